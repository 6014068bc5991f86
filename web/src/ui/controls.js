// Controls generated from the engine's schema. Labels, hints, ranges, defaults and allowed values
// all come from engine.schema; this file only decides the widget kind and grouping (UI table
// below). A schema field this table does not know still gets a control, in "More".
import { h } from './dom.js';
import { bounds, PAGE_LIMITS } from '../state/state.js';
import { fmt } from './format.js';

/** Widget choices per field (presentation only; never ranges — those come from the schema). */
const UI = {
  dk: { slider: 'log2' },
  seqLen: { slider: 'log2' },
  blockSize: { slider: 'log2', enabledWhen: (c) => c.softmax === 'online' },
  saturate: { enabledWhen: (c) => String(c.precision).startsWith('fp8') },
  mean: { slider: { min: -3, max: 3, step: 0.05 } },
  std: { slider: { min: 0.05, max: 4, step: 0.05 } },
  correlation: { slider: { step: 0.05 } },
  seed: { resample: true },
  lengthScale: { slider: { min: 0, max: 2, step: 0.01 } },
  softcap: { slider: { min: 0, max: 100, step: 1 } },
};

const VALUE_LABELS = {
  none: 'none', sqrt: '1/√d_k', linear: '1/d_k',
  fp32: 'fp32', bf16: 'bf16', fp16: 'fp16', fp8e4m3: 'fp8 E4M3', fp8e5m2: 'fp8 E5M2',
  naive: 'two-pass (naive)', online: 'online (streaming)',
  rms: 'RMS norm', layer: 'layer norm',
};

export const GROUPS = [
  { id: 'size', title: 'Size', fields: ['dk', 'seqLen', 'causal'] },
  { id: 'scaling', title: 'Scaling', fields: ['scale'] },
  { id: 'numerics', title: 'Precision and softmax', fields: ['precision', 'saturate', 'subtractMax', 'softmax', 'blockSize'] },
  { id: 'beyond', title: 'Beyond √d_k', fields: ['qkNorm', 'lengthScale', 'softcap'] },
  { id: 'assumption', title: 'The assumption', fields: ['mean', 'std', 'correlation'], reset: ['mean', 'std', 'correlation'] },
  { id: 'sampling', title: 'Sampling', fields: ['seed'] },
];

/** Slider stops of a log2 slider: the bounds plus every power of two between them. */
export function log2Stops(min, max) {
  const stops = [];
  if (!(max >= min)) return [min];
  stops.push(min);
  for (let p = 2 ** Math.ceil(Math.log2(Math.max(min, 1))); p < max; p *= 2) if (p > min) stops.push(p);
  if (max > min) stops.push(max);
  return stops;
}
/** Focus check that also works inside a Shadow DOM (document.activeElement is the host there). */
const focused = (el) => el.getRootNode().activeElement === el;
const nearestStop = (stops, v) => stops.reduce((best, s, i) => (Math.abs(Math.log(s) - Math.log(v)) < Math.abs(Math.log(stops[best]) - Math.log(v)) ? i : best), 0);

/**
 * mountControls(container, { schema, limits, idPrefix, fields?, onChange(partial) })
 * → { update(config), destroy() }. `fields` limits which controls appear (embeds).
 */
export function mountControls(container, { schema, limits = PAGE_LIMITS, idPrefix = 'as-', fields, onChange }) {
  const byName = new Map(schema.map((f) => [f.name, f]));
  const wanted = fields ? new Set(fields) : null;
  const widgets = [];
  const root = h('div', { class: 'controls' });
  const known = new Set(GROUPS.flatMap((g) => g.fields));
  const groups = [...GROUPS, { id: 'more', title: 'More', fields: schema.map((f) => f.name).filter((n) => !known.has(n)) }];
  let config = {};

  for (const g of groups) {
    const names = g.fields.filter((n) => byName.has(n) && (!wanted || wanted.has(n)));
    if (!names.length) continue;
    const fs = h('fieldset', { class: `control-group group-${g.id}` }, h('legend', { text: g.title }));
    for (const n of names) {
      const w = makeWidget(byName.get(n));
      // What the widget last showed; any input by the reader makes it unknown (rewrite next time).
      w.shown = null;
      for (const type of ['input', 'change']) w.el.addEventListener(type, () => { w.shown = null; }, true);
      widgets.push(w);
      fs.append(w.el);
    }
    if (g.reset) {
      const fieldsToReset = g.reset.filter((n) => byName.has(n));
      fs.append(h('button', {
        type: 'button', class: 'btn small', text: 'Reset to i.i.d. N(0, 1)',
        onclick: () => onChange(Object.fromEntries(fieldsToReset.map((n) => [n, byName.get(n).default]))),
      }));
    }
    root.append(fs);
  }
  container.append(root);

  function hintOf(f, id) {
    return f.hint ? h('p', { class: 'hint', id, text: f.hint }) : null;
  }

  function labelText(f) {
    return f.unit ? `${f.label ?? f.name} (${f.unit})` : f.label ?? f.name;
  }

  function makeWidget(f) {
    const id = `${idPrefix}${f.name}`;
    const hintId = `${id}-hint`;
    const ui = UI[f.name] ?? {};
    const wrap = h('div', { class: `control control-${f.type}`, 'data-field': f.name });
    const described = f.hint ? hintId : undefined;

    if (f.type === 'bool') {
      const input = h('input', { type: 'checkbox', id, name: f.name, 'aria-describedby': described });
      input.addEventListener('change', () => onChange({ [f.name]: input.checked }));
      wrap.append(h('div', { class: 'check' }, input, h('label', { for: id, text: labelText(f) })), hintOf(f, hintId));
      return { f, el: wrap, set(c) { input.checked = !!c[f.name]; input.disabled = ui.enabledWhen ? !ui.enabledWhen(c) : false; } };
    }

    if (f.type === 'enum') {
      const sel = h('select', { id, name: f.name, 'aria-describedby': described },
        (f.values ?? []).map((v) => h('option', { value: v, text: VALUE_LABELS[v] ?? v })));
      sel.addEventListener('change', () => onChange({ [f.name]: sel.value }));
      wrap.append(h('label', { for: id, text: labelText(f) }), sel, hintOf(f, hintId));
      return { f, el: wrap, set(c) { sel.value = c[f.name]; sel.disabled = ui.enabledWhen ? !ui.enabledWhen(c) : false; } };
    }

    if (f.type === 'scale') {
      const legendId = `${id}-legend`;
      const radios = [];
      const group = h('div', { class: 'radios', role: 'radiogroup', 'aria-labelledby': legendId, 'aria-describedby': described });
      const custom = h('input', { type: 'number', id: `${id}-custom`, min: 0, step: 'any', value: '0.1', inputmode: 'decimal', 'aria-label': 'Custom multiplier' });
      const opts = [...(f.values ?? []), 'custom'];
      for (const v of opts) {
        const rid = `${id}-${v}`;
        const r = h('input', { type: 'radio', id: rid, name: `${idPrefix}scale`, value: v });
        r.addEventListener('change', () => {
          if (!r.checked) return;
          onChange({ [f.name]: v === 'custom' ? Number(custom.value) : v });
        });
        radios.push(r);
        group.append(h('span', { class: 'radio' }, r, h('label', { for: rid, text: v === 'custom' ? 'custom ×' : VALUE_LABELS[v] ?? v })));
      }
      group.append(custom);
      custom.addEventListener('change', () => {
        onChange({ [f.name]: Number(custom.value) });
        if (typeof config[f.name] === 'number') custom.value = String(config[f.name]);
      });
      wrap.append(h('span', { class: 'label', id: legendId, text: labelText(f) }), group, hintOf(f, hintId));
      return {
        f, el: wrap,
        set(c) {
          const v = c[f.name];
          const isNum = typeof v === 'number';
          for (const r of radios) r.checked = isNum ? r.value === 'custom' : r.value === v;
          if (isNum && !focused(custom)) custom.value = String(v);
          custom.disabled = !isNum;
        },
      };
    }

    // int / number
    const num = h('input', { type: 'number', id, name: f.name, step: f.type === 'int' ? 1 : 'any', inputmode: f.type === 'int' ? 'numeric' : 'decimal', 'aria-describedby': described });
    num.addEventListener('change', () => {
      if (num.value.trim() !== '') onChange({ [f.name]: Number(num.value) });
      num.value = String(config[f.name]); // show the value actually used (clamped, or unchanged if empty)
    });
    const label = h('label', { for: id, id: `${id}-label`, text: labelText(f) });
    let slider = null;
    let stops = null;
    const sliderKind = ui.slider;
    if (sliderKind) {
      slider = h('input', { type: 'range', id: `${id}-range`, 'aria-labelledby': `${id}-label`, 'aria-describedby': described });
      slider.addEventListener('input', () => {
        const v = stops ? stops[Number(slider.value)] : Number(slider.value);
        onChange({ [f.name]: v });
      });
    }
    if (ui.resample) {
      const btn = h('button', {
        type: 'button', class: 'btn small', text: 'Resample',
        'aria-label': 'Resample: draw a new random seed',
        onclick: () => {
          const a = new Uint32Array(1);
          crypto.getRandomValues(a);
          const { min, max } = bounds(f, config, limits);
          onChange({ [f.name]: Math.min(max, Math.max(min, a[0])) });
        },
      });
      wrap.append(label, h('div', { class: 'row' }, num, btn), hintOf(f, hintId));
    } else {
      wrap.append(label, h('div', { class: 'row' }, slider, num), hintOf(f, hintId));
    }
    return {
      f, el: wrap,
      set(c) {
        const v = c[f.name];
        const { min, max } = bounds(f, c, limits);
        if (Number.isFinite(min)) num.min = String(min); else num.removeAttribute('min');
        if (Number.isFinite(max)) num.max = String(max); else num.removeAttribute('max');
        if (!focused(num)) num.value = String(v);
        const enabled = ui.enabledWhen ? ui.enabledWhen(c) : true;
        num.disabled = !enabled;
        if (!slider) return;
        slider.disabled = !enabled;
        if (sliderKind === 'log2') {
          stops = log2Stops(min, max);
          slider.min = '0';
          slider.max = String(stops.length - 1);
          slider.step = '1';
          slider.value = String(nearestStop(stops, v));
        } else {
          const lo = Number.isFinite(sliderKind.min) ? Math.max(sliderKind.min, min) : min;
          const hi = Number.isFinite(sliderKind.max) ? Math.min(sliderKind.max, max) : max;
          slider.min = String(lo);
          slider.max = String(hi);
          slider.step = String(sliderKind.step ?? 'any');
          slider.value = String(Math.min(hi, Math.max(lo, v)));
        }
        slider.setAttribute('aria-valuetext', `${labelText(f)} ${fmt(v)}`);
      },
    };
  }

  return {
    root,
    update(c) {
      config = c;
      // Only the widgets whose value, range, state or focus changed: a slider move rewrites one
      // widget, not every input's attributes (each write costs style and layout work).
      for (const w of widgets) {
        const { f } = w;
        const active = w.el.getRootNode().activeElement;
        const shown = JSON.stringify([c[f.name], bounds(f, c, limits), UI[f.name]?.enabledWhen?.(c) ?? true, !!active && w.el.contains(active)]);
        if (shown === w.shown) continue;
        w.shown = shown;
        w.set(c);
      }
    },
    destroy() { root.remove(); },
  };
}
