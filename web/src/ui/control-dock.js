// The control dock: a bar one thumb tall that stays in reach on a narrow screen, holding the d_k
// slider with its value, the scaling, and a button that opens the full settings as a sheet. It
// keeps no state of its own: it shows the app's config (update) and sends changes as the full
// settings do (onChange), so both always show the same setting. Where it is shown is up to the
// stylesheet (dock.css): the page, the embed and the component each say when they are narrow.
import { h } from './dom.js';
import { bounds } from '../state/state.js';
import { fmt } from './format.js';
import { choiceLabel, log2Stops, nearestStop } from './control-widgets.js';
import { createSettingsSheet } from './settings-sheet.js';

const FOLD_KEY = 'attnscale-dock';
/** The reader's last choice (open or folded); storage may be refused (a sandboxed frame). */
const storage = {
  get() {
    try {
      return localStorage.getItem(FOLD_KEY);
    } catch {
      return null;
    }
  },
  set(v) {
    try {
      localStorage.setItem(FOLD_KEY, v);
    } catch {
      /* the fold then lasts for this visit only */
    }
  },
};

/** The d_k slider: log2 stops over the field's current bounds, the value beside it. */
function dkSlider(f, { idPrefix, limits, onChange }) {
  let stops = [f.default];
  const id = `${idPrefix}dock-dk`;
  const slider = h('input', { type: 'range', id, name: 'dk', 'aria-label': 'd_k', min: 0, step: 1 });
  const out = h('output', { class: 'dock-value', for: id });
  slider.addEventListener('input', () => onChange({ dk: stops[Number(slider.value)] }));
  return {
    el: h('div', { class: 'dock-dk' }, slider, out),
    set(c) {
      const { min, max } = bounds(f, c, limits);
      stops = log2Stops(min, max);
      slider.max = String(stops.length - 1);
      slider.value = String(nearestStop(stops, c.dk));
      slider.setAttribute('aria-valuetext', `d_k ${fmt(c.dk)}`);
      // The value names its field ("d_k = 64"), the name set small above the number, so that the
      // slider keeps its width on a phone.
      out.replaceChildren(h('span', { class: 'dock-name', text: 'd_k = ' }), fmt(c.dk));
    },
  };
}

/** The scaling as a select: the named scales, and a custom multiplier shown as such. */
function scaleSelect(f, { idPrefix, onChange }) {
  const id = `${idPrefix}dock-scale`;
  const custom = h('option', { value: 'custom', hidden: true, disabled: true });
  const sel = h(
    'select',
    { id, name: 'scale', 'aria-label': 'Scaling' },
    (f.values ?? []).map((v) => h('option', { value: v, text: choiceLabel(f, v) })),
    custom,
  );
  sel.addEventListener('change', () => onChange({ scale: sel.value }));
  return {
    el: h('div', { class: 'dock-scale' }, h('label', { for: id, class: 'dock-label', text: 'scale' }), sel),
    set(c) {
      const isNum = typeof c.scale === 'number';
      custom.hidden = !isNum;
      custom.textContent = isNum ? `custom ×${fmt(c.scale)}` : '';
      sel.value = isNum ? 'custom' : c.scale;
    },
  };
}

/**
 * mountDock(container, { schema, limits, idPrefix, fields?, settings?, onChange(partial) })
 * → { update(config), destroy() } | null (none of d_k and the scaling among the fields shown).
 * `settings`: the element of the full settings, which the Settings button shows in a sheet.
 */
export function mountDock(container, { schema, limits, idPrefix = 'as-', fields, settings, onChange }) {
  const byName = new Map(schema.map((f) => [f.name, f]));
  const shown = (n) => byName.has(n) && (!fields || fields.includes(n));
  const parts = [];
  if (shown('dk')) parts.push(dkSlider(byName.get('dk'), { idPrefix, limits, onChange }));
  if (shown('scale')) parts.push(scaleSelect(byName.get('scale'), { idPrefix, onChange }));
  if (!parts.length) return null;

  const bar = h(
    'div',
    { class: 'dock-bar' },
    parts.map((p) => p.el),
  );
  // The full settings only where they hold more than the dock does.
  const more = !fields || fields.some((n) => n !== 'dk' && n !== 'scale');
  const sheet = settings && more ? createSettingsSheet(settings, { idPrefix }) : null;
  if (sheet) {
    const open = h('button', {
      type: 'button',
      class: 'btn dock-settings',
      'aria-haspopup': 'dialog',
      'aria-label': 'Settings',
      onclick: () => sheet.open(open),
    });
    open.append(
      h('span', { 'aria-hidden': 'true', text: '⚙' }),
      h('span', { class: 'dock-word', text: ' Settings' }),
    );
    bar.append(open);
  }
  const fold = h('button', { type: 'button', class: 'btn dock-fold', 'aria-expanded': 'true' });
  const unfold = h('button', { type: 'button', class: 'btn dock-unfold', 'aria-expanded': 'false' });
  const dock = h(
    'div',
    { class: 'dock', role: 'region', 'aria-label': 'Quick settings', 'data-dock': '' },
    bar,
    fold,
    unfold,
  );
  let dkText = '';
  const setFolded = (folded, { remember = true, focus = false } = {}) => {
    dock.dataset.dockState = folded ? 'folded' : 'open';
    if (remember) storage.set(dock.dataset.dockState);
    if (focus) (folded ? unfold : fold).focus();
  };
  fold.addEventListener('click', () => setFolded(true, { focus: true }));
  unfold.addEventListener('click', () => setFolded(false, { focus: true }));
  setFolded(storage.get() === 'folded', { remember: false });
  container.append(dock, ...(sheet ? [sheet.el] : []));

  return {
    update(c) {
      for (const p of parts) p.set(c);
      const text = shown('dk') ? `d_k ${fmt(c.dk)}` : 'Settings';
      if (text === dkText) return;
      dkText = text;
      fold.textContent = '▾';
      fold.setAttribute('aria-label', 'Fold the quick settings');
      unfold.textContent = `${text} ▴`;
      unfold.setAttribute('aria-label', `Show the quick settings (${text})`);
    },
    destroy() {
      sheet?.close();
      sheet?.el.remove();
      dock.remove();
    },
  };
}
