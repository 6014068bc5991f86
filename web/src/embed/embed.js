// embed.html: the chosen panels only, for an <iframe> in someone else's page.
//   embed.html?panel=spread,sigma&controls=dk,scale&theme=dark&dk=128&scale=none…
// The state uses the page's URL names and rules (state.js); panel / controls / theme the same
// rules as the web component's attributes (embed-options.js). The page posts its content height
// to its parent ({ type: 'attnscale:height', height }) whenever it changes, and links back to the
// full page with the same state.
import '../styles/panels.css';
import '../panels/index.css';
import '../styles/embed.css';
import '../styles/dock.css';
import '../styles/touch.css';
import { getEngineClient } from '../compute/worker-client.js';
import { createApp } from '../app/app.js';
import { parsePanels, parseControls, parseTheme } from './embed-options.js';
import { HEIGHT_MESSAGE } from './embed-snippets.js';
import { bodyHeight } from './embed-height.js';
import { noticeText } from '../state/state.js';
import { h } from '../ui/dom.js';

const client = getEngineClient(); // the Worker starts loading the engine right away
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

const { theme, notices: themeNotices } = parseTheme(params.get('theme'));
if (theme !== 'auto') document.documentElement.dataset.theme = theme;
const { panels, notices: panelNotices } = parsePanels(params.get('panel'));

const optionNotices = h('div', { class: 'embed-option-notices' });
const appNotices = h('div', { class: 'embed-app-notices' });
$('notices').append(optionNotices, appNotices);
function showOptionNotices(list) {
  if (!list.length) return;
  const box = h(
    'div',
    { class: 'notice warning', role: 'status' },
    h('p', { class: 'notice-title', text: 'Some values were adjusted' }),
    h(
      'ul',
      {},
      list.map((n) => h('li', { text: noticeText(n) })),
    ),
    h('button', { type: 'button', class: 'btn small', text: 'Dismiss', onclick: () => box.remove() }),
  );
  optionNotices.replaceChildren(box);
}

const panelEls = {};
const panelBox = $('panels');
panelBox.dataset.count = String(panels.length);
for (const name of panels) {
  panelEls[name] = h('div', { 'data-panel': name, id: `chart-${name}` });
  panelBox.append(panelEls[name]);
}

// The room the panels (and settings) will take at this width, kept from the start: the line under
// them is at its place before they are drawn, and the frame's height is known at once.
const controlList = params.get('controls')?.split(',') ?? null;
function reserve() {
  const root = document.documentElement.clientWidth;
  const padding = root <= 420 ? 8 : 16; // embed.css: .embed-root's padding
  $('embed-body').style.minHeight = `${Math.ceil(bodyHeight(panels, root - padding, controlList))}px`;
  $('app').classList.add('is-reserved'); // embed.css: the line under the panels shows from now on
}
reserve();
addEventListener('resize', reserve);

// Auto-height: tell the parent page how tall the content is, whenever that changes.
let lastHeight = 0;
function postHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight) return;
  lastHeight = height;
  window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
}
new ResizeObserver(postHeight).observe(document.body);
// Chromium skips rendering (and so ResizeObserver) in a cross-origin frame that is out of view:
// content changes also trigger a measurement (a forced layout works there).
let measureTimer = 0;
new MutationObserver(() => {
  clearTimeout(measureTimer);
  measureTimer = setTimeout(postHeight, 50);
}).observe(document.body, { childList: true, subtree: true, characterData: true });
postHeight();

const fullLink = $('full-link');
const fullPage = new URL('./index.html', location.href);
// The controls are checked against the engine's schema; if the engine cannot start, createApp
// below shows why, in the notices.
const ready = await client.ready.catch(() => null);
const { fields, notices: controlNotices } = ready
  ? parseControls(params.get('controls'), ready.schema)
  : { fields: null, notices: [] };
showOptionNotices([...panelNotices, ...controlNotices, ...themeNotices]);
const controls = $('controls');
controls.hidden = !fields;
$('embed-body').classList.toggle('has-controls', !!fields);
try {
  const app = await createApp({
    root: $('app'),
    panels: panelEls,
    controls: fields ? controls : null,
    controlFields: fields,
    dock: $('dock'),
    notices: appNotices,
    query: location.search,
    presetHref: () => fullPage.href,
    onConfigChange: (config, query) => {
      fullLink.href = `${fullPage.href}?${query}`;
    },
  });
  if ($('app').classList.contains('has-dock')) (await import('./frame-dock.js')).followVisiblePart();
  $('engine-info').textContent =
    `Computed live by the attnscale engine (${app.info.simd ? 'WebAssembly SIMD' : 'WebAssembly, scalar'}).`;
} catch (err) {
  $('engine-info').textContent = '';
  console.warn(err);
}
