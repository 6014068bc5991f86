// The GIF button: the panel's frames (gif-frames.js) encoded in a Worker of their own as they come,
// the progress on the button ("GIF 5/13") and in a status line beside it (role="status"), the file
// downloaded as attnscale-<panel>.gif. The Worker is a same-origin module script, a blob: Worker
// that imports it when this script came from another origin (compute/worker-client.js), or the
// offline file's inlined copy (a file:// page cannot load a Worker by URL). Where none can start,
// the status line says so and the frames are encoded on the page's thread, one per task.
import { download } from '../ui/dom.js';
import { startModuleWorker } from '../compute/worker-client.js';
import { gifFrames } from './gif-frames.js';
import { sweepDks } from '../state/choices.js';

const busy = new WeakSet();
const WORKER_WAIT_MS = 10000;

/** The status line beside `button` (made on first use). */
function statusBeside(button) {
  const actions = button.parentElement;
  let s = actions.querySelector('[data-export-status]');
  if (!s) {
    s = document.createElement('span');
    s.setAttribute('role', 'status');
    s.dataset.exportStatus = '';
    Object.assign(s.style, { fontSize: '0.8rem', color: 'var(--muted)', alignSelf: 'center' });
    actions.append(s);
  }
  return s;
}

/** The GIF's Worker, once it has said it is ready; rejects with why it could not start. */
async function startGifWorker() {
  const worker =
    import.meta.env.MODE === 'offline'
      ? new (await import('./gif-worker.js?worker&inline')).default()
      : startModuleWorker((await import('./gif-worker.js?worker&url')).default);
  await new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      worker.terminate();
      reject(new Error(why));
    };
    const timer = setTimeout(
      () => fail(`it did not answer within ${WORKER_WAIT_MS / 1000} s`),
      WORKER_WAIT_MS,
    );
    worker.addEventListener(
      'message',
      (e) => {
        if (e.data?.type === 'fatal') return fail(e.data.message);
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
    worker.addEventListener(
      'error',
      (e) => {
        e.preventDefault();
        fail(e.message || 'its script could not be loaded (a worker-src policy may refuse it)');
      },
      { once: true },
    );
  });
  return worker;
}

/** An encoder in the Worker: add(frame) posts it, finish() → the file's bytes. */
function workerEncoder(worker, onCount) {
  let failure = null;
  let finishing = null;
  const fail = (message) => {
    failure = new Error(message);
    finishing?.reject(failure);
  };
  worker.addEventListener('message', ({ data: m }) => {
    if (m.type === 'encoded') onCount(m.count);
    else if (m.type === 'done') finishing?.resolve(new Uint8Array(m.bytes));
    else if (m.type === 'error') fail(m.message);
  });
  worker.addEventListener('error', (e) => fail(e.message || 'the GIF encoder stopped'));
  return {
    note: '',
    add({ image, delay }) {
      if (failure) throw failure;
      const rgba = image.data.buffer;
      worker.postMessage({ type: 'frame', width: image.width, height: image.height, rgba, delay }, [rgba]);
    },
    finish: () =>
      new Promise((resolve, reject) => {
        if (failure) reject(failure);
        else {
          finishing = { resolve, reject };
          worker.postMessage({ type: 'finish' });
        }
      }),
    close: () => worker.terminate(),
  };
}

/** The encoder: in a Worker if one starts, else on this thread with a note that says why. */
async function openEncoder(onCount) {
  try {
    return workerEncoder(await startGifWorker(), onCount);
  } catch (err) {
    // The offline file's engine needs a Worker too: without one there is nothing to draw frames
    // with, and its file keeps a single copy of the encoder.
    if (import.meta.env.MODE === 'offline') throw new Error(`no Worker could start here (${err.message})`);
    const { createGifWriter } = await import('./gif-encoder.js');
    const writer = createGifWriter();
    return {
      note: `No Worker could start here (${err.message}): encoding on the page’s thread, which may pause it. `,
      add({ image, delay }) {
        writer.add({ width: image.width, height: image.height, rgba: image.data, delay });
        onCount(writer.count);
      },
      finish: async () => writer.finish(),
      close() {},
    };
  }
}

/** The GIF button's click: `image` is the panel frame's { el, name, title, legend, exports }. */
export async function exportGif({ el, name, title, legend, exports }, button) {
  if (busy.has(button)) return;
  const status = statusBeside(button);
  const say = (text) => (status.textContent = text);
  const source = exports.gif();
  if (!source.cfg) return say('The GIF starts from the chart as drawn: wait for its first result.');
  if (!source.client || source.client.mode === 'unavailable')
    return say('No engine here to measure the frames.');
  busy.add(button);
  button.setAttribute('aria-disabled', 'true');
  button.style.whiteSpace = 'nowrap'; // "GIF 5/13" on one line: the header does not jump
  const label = button.textContent;
  let encoder = null;
  try {
    const dks = sweepDks((await source.client.ready).schema);
    const show = (k) => {
      button.textContent = `GIF ${k}/${dks.length}`;
      say(`${encoder?.note ?? ''}Making the GIF: ${k} of ${dks.length} frames encoded…`);
    };
    show(0);
    encoder = await openEncoder(show);
    show(0);
    for await (const frame of gifFrames({ el, title, legend, source, dks })) encoder.add(frame);
    const bytes = await encoder.finish();
    download(new Blob([bytes], { type: 'image/gif' }), `attnscale-${name}.gif`);
    // A sweep still running: the frames show the exact points measured so far.
    const total = Number(el.dataset.pointsTotal);
    const partial =
      source.points && total > source.points.length
        ? ` Its sweep had ${source.points.length} of ${total} points measured.`
        : '';
    say(
      `${encoder.note}GIF saved: ${dks.length} frames, d_k = ${dks[0]} to ${dks[dks.length - 1]}, ${Math.round(bytes.length / 1024)} KB.${partial}`,
    );
  } catch (err) {
    say(`${encoder?.note ?? ''}The GIF could not be made: ${err?.message ?? err}`);
  } finally {
    encoder?.close();
    busy.delete(button);
    button.textContent = label;
    button.removeAttribute('aria-disabled');
    button.style.whiteSpace = '';
  }
}
