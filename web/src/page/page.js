// The full page: theme, the app mounted in the page's own elements, the URL kept in sync.
// Loaded by main.js once the compute Worker is on its way.
import { createApp } from '../app/app.js';
import { initTheme } from '../ui/theme.js';
import { openFoldsAround } from './folds.js';

let app = null;
initTheme(document.getElementById('theme-toggle'), () => app?.redraw());

// A setting that is being computed goes into the URL right after its result is shown, or after
// URL_DELAY_MS at the latest; any other change at once. So the URL is never older than the result
// on screen, and a slider drag does not pay history.replaceState (a few ms of this thread in
// Chromium) on every move.
const URL_DELAY_MS = 150;
let urlQuery = null,
  urlTimer = 0;
function writeUrl() {
  clearTimeout(urlTimer);
  if (urlQuery !== null) history.replaceState(history.state, '', `?${urlQuery}${location.hash}`);
  urlQuery = null;
}
addEventListener('pagehide', writeUrl);

const panels = {};
for (const el of document.querySelectorAll('[data-panel]')) panels[el.dataset.panel] = el;

try {
  app = await createApp({
    root: document.getElementById('app'),
    panels,
    controls: document.getElementById('controls'),
    dock: document.getElementById('dock'),
    // Every preset group of the page: the walk-through on top and the topics' own.
    presets: document.getElementById('app'),
    notices: document.getElementById('notices'),
    query: location.search,
    // A chart is built once the reader is within a screen and a half of it (or opens its topic).
    mountNear: '150% 0px',
    onConfigChange: (config, query, { computing = false } = {}) => {
      urlQuery = query;
      clearTimeout(urlTimer);
      if (computing) urlTimer = setTimeout(writeUrl, URL_DELAY_MS);
      else writeUrl();
    },
    // (In a task of its own: the result's own task stays short.)
    onResult: () => {
      clearTimeout(urlTimer);
      if (urlQuery !== null) urlTimer = setTimeout(writeUrl, 0);
    },
  });
  // A panel whose own settings came in the address (the training panel's, say) is shown open.
  for (const [name, el] of Object.entries(panels)) if (app.panelQuery([name])) openFoldsAround(el);
  // The real models' presets: their module loads once the app is up.
  const models = document.getElementById('model-presets');
  if (models) import('./model-preset-buttons.js').then((m) => m.mountModelPresets(models, app));
  const info = document.getElementById('engine-info');
  if (info)
    info.textContent = `Engine ${app.info.version} (${app.info.simd ? 'WebAssembly SIMD' : 'WebAssembly, scalar fallback'}, ${app.info.arch}).`;
  // The URL is the state: a pasted link (or back/forward to one) re-applies it.
  window.addEventListener('popstate', () => {
    clearTimeout(urlTimer);
    urlQuery = null;
    app.setQuery(location.search);
  });
  // Embed: snippets for the current state (not in the offline single file: nothing to link to).
  const embedButton = document.getElementById('embed-button');
  if (embedButton && import.meta.env.MODE !== 'offline') {
    embedButton.hidden = false;
    embedButton.addEventListener('click', async () =>
      (await import('./embed-dialog.js')).openEmbedDialog(app),
    );
  }
} catch (err) {
  // createApp already showed the notice; keep the page (and its text) usable.
  const info = document.getElementById('engine-info');
  if (info) info.textContent = 'The engine could not start in this browser (see the message at the top).';
  // Presets and settings have nothing to drive: hide their empty boxes.
  for (const box of document.querySelectorAll('.presets-box, .preset-group, .sidebar')) box.hidden = true;
  console.warn(err);
}
