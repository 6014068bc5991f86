// The presets' buttons (state/presets.js), which the build writes into the page's HTML
// (build-scripts/lib/static-presets.js): a press applies the preset from the defaults and says, in
// its group's note, what to look at; the button of the preset the current setting equals is pressed.
import { applyChange, sameConfig } from '../state/state.js';
import { PRESETS } from '../state/presets.js';
import { h } from '../ui/dom.js';

const byId = new Map(PRESETS.map((p) => [p.id, p]));

/** The note of a pressed preset: its step number in the story, what to look at, a link to the chart. */
function noteOf(p, button, presetHref) {
  const num = button.querySelector('.preset-num')?.textContent;
  return [
    num ? h('strong', { text: `Step ${num}: ` }) : null,
    p.note,
    ' ',
    h('a', { href: presetHref(p.chart), text: 'See the chart' }),
  ].filter(Boolean);
}

/** mountPresetButtons(root, { defaults, schema, limits, presetHref, set }) → { mark(config) }. */
export function mountPresetButtons(root, { defaults, schema, limits, presetHref, set }) {
  const buttons = [...root.querySelectorAll('button[data-preset]')].filter((b) => byId.has(b.dataset.preset));
  for (const b of buttons) {
    const p = byId.get(b.dataset.preset);
    const note = b.closest('.preset-group')?.querySelector('.preset-note');
    b.addEventListener('click', () => {
      set(p.set, { base: defaults });
      note?.replaceChildren(...noteOf(p, b, presetHref));
    });
  }
  let presetConfigs = null; // each button's full config (presets start from the defaults)
  return {
    mark(config) {
      presetConfigs ??= buttons.map(
        (b) => applyChange(defaults, byId.get(b.dataset.preset).set, schema, limits).config,
      );
      buttons.forEach((b, i) => {
        const pressed = String(sameConfig(presetConfigs[i], config, schema));
        if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
      });
    },
  };
}
