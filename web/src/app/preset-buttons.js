// The numbered presets (state/presets.js) as buttons: a press applies the preset from the defaults
// and says what to look at; the button of the preset the current setting equals is pressed.
import { applyChange, sameConfig } from '../state/state.js';
import { PRESETS } from '../state/presets.js';
import { h } from '../ui/dom.js';

/** mountPresetButtons(el, { defaults, schema, limits, presetHref, set }) → { mark(config) }. */
export function mountPresetButtons(el, { defaults, schema, limits, presetHref, set }) {
  const list = h('ol', { class: 'preset-list' });
  const note = h('p', { class: 'preset-note', 'aria-live': 'polite' });
  const buttons = PRESETS.map((p, i) => {
    const b = h(
      'button',
      {
        type: 'button',
        class: 'btn preset',
        'aria-pressed': 'false',
        'data-preset': p.id,
        onclick: () => {
          set(p.set, { base: defaults });
          note.replaceChildren(
            h('strong', { text: `Step ${i + 1}: ` }),
            p.note,
            ' ',
            h('a', { href: presetHref(p.chart), text: 'See the chart' }),
          );
        },
      },
      h('span', { class: 'preset-num', text: String(i + 1) }),
      h('span', { text: p.title }),
    );
    list.append(h('li', {}, b));
    return b;
  });
  el.append(list, note);
  let presetConfigs = null; // each preset's full config (they start from the defaults)
  return {
    mark(config) {
      presetConfigs ??= PRESETS.map((p) => applyChange(defaults, p.set, schema, limits).config);
      buttons.forEach((b, i) => {
        const pressed = String(sameConfig(presetConfigs[i], config, schema));
        if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
      });
    },
  };
}
