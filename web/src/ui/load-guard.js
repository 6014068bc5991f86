// The first script of index.html and embed.html (a module of its own, no imports; the strict CSP
// allows no inline script). Until the app shows its first result, a failure while loading the
// page's code — a script that cannot be fetched, a module that throws while it loads, a rejected
// dynamic import — would leave "Starting the engine…" on screen forever with nothing said. Here
// it becomes a visible message in place of that line and at the top of the charts, and the app's
// root is marked data-state="failed". If the app still reaches its first result, the message goes.
// Text only (textContent): an error message is never markup.
const app = document.getElementById('app');
let notice = null;
let undo = []; // what show() changed outside the notice, to put back if the app starts after all

function show(reason) {
  if (notice || !app || app.dataset.state === 'ready' || app.dataset.state === 'failed') return;
  const text =
    `The page's code could not load in this browser (${reason}). The text still reads fine; ` +
    'for the charts, try reloading, or open the page in a current Chrome, Edge, Firefox or Safari.';
  notice = document.createElement('div');
  notice.className = 'notice error';
  notice.setAttribute('role', 'alert');
  notice.dataset.loadFailure = '';
  const title = document.createElement('p');
  title.className = 'notice-title';
  title.textContent = 'The charts could not load';
  const body = document.createElement('p');
  body.textContent = text;
  notice.append(title, body);
  (document.getElementById('notices') ?? app).prepend(notice);
  const info = document.getElementById('engine-info');
  if (info) {
    const before = info.textContent;
    info.textContent = 'The charts could not load (see the message above them).';
    undo.push(() => {
      info.textContent = before;
    });
  }
  // The page's presets and settings have nothing to drive (as page.js does when the engine fails).
  for (const box of document.querySelectorAll('.presets-box, .sidebar')) {
    const hidden = box.hidden;
    box.hidden = true;
    undo.push(() => {
      box.hidden = hidden;
    });
  }
  app.dataset.state = 'failed';
}

const describe = (err) =>
  err && typeof err === 'object' && 'message' in err ? `${err.name ?? 'Error'}: ${err.message}` : String(err);

// Reported by browsers as an error event, but harmless: a ResizeObserver callback changed a size
// and the rest waits for the next frame (the chapter's wide charts do this while they lay out).
const BENIGN = /^ResizeObserver loop/;

function onError(e) {
  const el = e.target;
  if (e instanceof ErrorEvent && !e.error && BENIGN.test(e.message)) return;
  // A <script> that could not be fetched (the error event does not bubble: listened in capture).
  if (el instanceof HTMLScriptElement) show(`${el.src || 'a script'} did not load`);
  else if (e instanceof ErrorEvent) show(describe(e.error ?? e.message));
}
const onRejection = (e) => show(describe(e.reason));

window.addEventListener('error', onError, true);
window.addEventListener('unhandledrejection', onRejection);

// Once the app has a result it reports its own failures: stand down (and take back a message
// that an unrelated error put up while the app was still starting).
if (app) {
  const watch = new MutationObserver(() => {
    if (app.dataset.state !== 'ready') return;
    watch.disconnect();
    window.removeEventListener('error', onError, true);
    window.removeEventListener('unhandledrejection', onRejection);
    notice?.remove();
    for (const put of undo) put();
    undo = [];
  });
  watch.observe(app, { attributes: true, attributeFilter: ['data-state'] });
}
