// The page's preset buttons, written into index.html at build time: each
// <div class="preset-group" data-presets="GROUP"></div> gets the buttons of that group
// (web/src/state/presets.js) and an empty note. They are in the HTML from the first paint, so
// nothing moves when the page's script arrives; app/preset-buttons.js gives them their clicks.
import { presetsOf } from '../../web/src/state/presets.js';

const esc = (s) =>
  String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The markup of one group's buttons: numbered steps for the story, a plain list elsewhere. */
export function presetGroupHtml(group) {
  const presets = presetsOf(group);
  if (!presets.length)
    throw new Error(`index.html names a preset group "${group}" that presets.js does not have`);
  const story = group === 'story';
  const items = presets.map(
    (p, i) =>
      `<li><button type="button" class="btn preset" aria-pressed="false" data-preset="${esc(p.id)}">` +
      (story ? `<span class="preset-num">${i + 1}</span>` : '') +
      `<span>${esc(p.title)}</span></button></li>`,
  );
  const list = story ? 'ol' : 'ul';
  // The story's steps scroll sideways on a phone (scroll-x: a shadow at the edge with more).
  const cls = story ? 'preset-list scroll-x' : 'preset-list';
  return `<${list} class="${cls}">${items.join('')}</${list}><p class="preset-note" aria-live="polite"></p>`;
}

/** The Vite plugin: fills every preset group of the HTML. */
export function staticPresets() {
  return {
    name: 'attnscale-static-presets',
    transformIndexHtml: {
      order: 'pre',
      handler: (html) =>
        html.replace(
          /(<div class="preset-group" data-presets="([a-z-]+)">)(<\/div>)/g,
          (_, open, group, close) => `${open}${presetGroupHtml(group)}${close}`,
        ),
    },
  };
}
