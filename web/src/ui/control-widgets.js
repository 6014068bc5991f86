// One control per schema field, by the field's type: a checkbox (bool), a select (enum), radio
// buttons plus a custom multiplier (scale), a number box with a slider or a Resample button
// (int / number). Each widget is { f, el, set(config) }: set() shows a config's value, range
// and whether the field applies. Labels, hints, ranges and allowed values come from the schema;
// the UI table of controls.js says only which widget a field gets.
import { h } from './dom.js';
import { bounds } from '../state/state.js';
import { fmt } from './format.js';

/** What a control shows for value `v` of field `f`: its label among the schema's choices. */
export const choiceLabel = (f, v) => f.choices?.find((c) => c.value === v)?.label ?? v;

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
export const nearestStop = (stops, v) =>
  stops.reduce(
    (best, s, i) =>
      Math.abs(Math.log(s) - Math.log(v)) < Math.abs(Math.log(stops[best]) - Math.log(v)) ? i : best,
    0,
  );

function hintOf(f, id) {
  return f.hint ? h('p', { class: 'hint', id, text: f.hint }) : null;
}

function labelText(f) {
  return f.unit ? `${f.label ?? f.name} (${f.unit})` : (f.label ?? f.name);
}

const enabledIn = (ui, c, schema) => (ui.enabledWhen ? ui.enabledWhen(c, schema) : true);

function boolWidget(f, { id, hintId, described, ui, wrap }, { onChange, schema }) {
  const input = h('input', { type: 'checkbox', id, name: f.name, 'aria-describedby': described });
  input.addEventListener('change', () => onChange({ [f.name]: input.checked }));
  wrap.append(
    h('div', { class: 'check' }, input, h('label', { for: id, text: labelText(f) })),
    hintOf(f, hintId),
  );
  return {
    f,
    el: wrap,
    set(c) {
      input.checked = !!c[f.name];
      input.disabled = !enabledIn(ui, c, schema);
    },
  };
}

function enumWidget(f, { id, hintId, described, ui, wrap }, { onChange, schema }) {
  const sel = h(
    'select',
    { id, name: f.name, 'aria-describedby': described },
    (f.values ?? []).map((v) => h('option', { value: v, text: choiceLabel(f, v) })),
  );
  sel.addEventListener('change', () => onChange({ [f.name]: sel.value }));
  wrap.append(h('label', { for: id, text: labelText(f) }), sel, hintOf(f, hintId));
  return {
    f,
    el: wrap,
    set(c) {
      sel.value = c[f.name];
      sel.disabled = !enabledIn(ui, c, schema);
    },
  };
}

/** The scaling: one radio per named scale, and 'custom ×' with its multiplier. */
function scaleWidget(f, { id, hintId, described, wrap }, { idPrefix, onChange, current }) {
  const legendId = `${id}-legend`;
  const radios = [];
  const group = h('div', {
    class: 'radios',
    role: 'radiogroup',
    'aria-labelledby': legendId,
    'aria-describedby': described,
  });
  const custom = h('input', {
    type: 'number',
    id: `${id}-custom`,
    min: 0,
    step: 'any',
    value: '0.1',
    inputmode: 'decimal',
    'aria-label': 'Custom multiplier',
  });
  const opts = [...(f.values ?? []), 'custom'];
  for (const v of opts) {
    const rid = `${id}-${v}`;
    const r = h('input', { type: 'radio', id: rid, name: `${idPrefix}scale`, value: v });
    r.addEventListener('change', () => {
      if (!r.checked) return;
      onChange({ [f.name]: v === 'custom' ? Number(custom.value) : v });
    });
    radios.push(r);
    group.append(
      h(
        'span',
        { class: 'radio' },
        r,
        h('label', { for: rid, text: v === 'custom' ? 'custom ×' : choiceLabel(f, v) }),
      ),
    );
  }
  group.append(custom);
  custom.addEventListener('change', () => {
    onChange({ [f.name]: Number(custom.value) });
    const config = current();
    if (typeof config[f.name] === 'number') custom.value = String(config[f.name]);
  });
  wrap.append(h('span', { class: 'label', id: legendId, text: labelText(f) }), group, hintOf(f, hintId));
  return {
    f,
    el: wrap,
    set(c) {
      const v = c[f.name];
      const isNum = typeof v === 'number';
      for (const r of radios) r.checked = isNum ? r.value === 'custom' : r.value === v;
      if (isNum && !focused(custom)) custom.value = String(v);
      custom.disabled = !isNum;
    },
  };
}

/** A slider's position, range and step for value `v` within [min, max]; `stops` for a log2 one. */
function placeSlider(slider, sliderKind, v, min, max) {
  if (sliderKind === 'log2') {
    const stops = log2Stops(min, max);
    slider.min = '0';
    slider.max = String(stops.length - 1);
    slider.step = '1';
    slider.value = String(nearestStop(stops, v));
    return stops;
  }
  const lo = Number.isFinite(sliderKind.min) ? Math.max(sliderKind.min, min) : min;
  const hi = Number.isFinite(sliderKind.max) ? Math.min(sliderKind.max, max) : max;
  slider.min = String(lo);
  slider.max = String(hi);
  slider.step = String(sliderKind.step ?? 'any');
  slider.value = String(Math.min(hi, Math.max(lo, v)));
  return null;
}

/** int / number: a number box, with a slider or a Resample button (the seed). */
function numberWidget(f, { id, hintId, described, ui, wrap }, { limits, onChange, current, schema }) {
  const num = h('input', {
    type: 'number',
    id,
    name: f.name,
    step: f.type === 'int' ? 1 : 'any',
    inputmode: f.type === 'int' ? 'numeric' : 'decimal',
    'aria-describedby': described,
  });
  num.addEventListener('change', () => {
    if (num.value.trim() !== '') onChange({ [f.name]: Number(num.value) });
    num.value = String(current()[f.name]); // show the value actually used (clamped, or unchanged if empty)
  });
  const label = h('label', { for: id, id: `${id}-label`, text: labelText(f) });
  let slider = null;
  let stops = null;
  const sliderKind = ui.slider;
  if (sliderKind) {
    slider = h('input', {
      type: 'range',
      id: `${id}-range`,
      'aria-labelledby': `${id}-label`,
      'aria-label': labelText(f), // the name where a checker does not follow aria-labelledby
      'aria-describedby': described,
    });
    slider.addEventListener('input', () => {
      const v = stops ? stops[Number(slider.value)] : Number(slider.value);
      onChange({ [f.name]: v });
    });
  }
  if (ui.resample) {
    const btn = h('button', {
      type: 'button',
      class: 'btn small',
      text: 'Resample',
      'aria-label': 'Resample: draw a new random seed',
      onclick: () => {
        const a = new Uint32Array(1);
        crypto.getRandomValues(a);
        const { min, max } = bounds(f, current(), limits);
        onChange({ [f.name]: Math.min(max, Math.max(min, a[0])) });
      },
    });
    wrap.append(label, h('div', { class: 'row' }, num, btn), hintOf(f, hintId));
  } else {
    wrap.append(label, h('div', { class: 'row' }, slider, num), hintOf(f, hintId));
  }
  return {
    f,
    el: wrap,
    set(c) {
      const v = c[f.name];
      const { min, max } = bounds(f, c, limits);
      if (Number.isFinite(min)) num.min = String(min);
      else num.removeAttribute('min');
      if (Number.isFinite(max)) num.max = String(max);
      else num.removeAttribute('max');
      if (!focused(num)) num.value = String(v);
      const enabled = enabledIn(ui, c, schema);
      num.disabled = !enabled;
      if (!slider) return;
      slider.disabled = !enabled;
      stops = placeSlider(slider, sliderKind, v, min, max);
      slider.setAttribute('aria-valuetext', `${labelText(f)} ${fmt(v)}`);
    },
  };
}

const WIDGETS = { bool: boolWidget, enum: enumWidget, scale: scaleWidget };

/**
 * makeWidget(f, { idPrefix, limits, onChange(partial), current() → config, schema, ui }) → { f, el,
 * set(c) }. `current()` is the config the controls show now; `ui.enabledWhen(config, schema)` says
 * whether the field applies (it may read another field's choices).
 */
export function makeWidget(f, env) {
  const id = `${env.idPrefix}${f.name}`;
  const hintId = `${id}-hint`;
  const ui = env.ui ?? {};
  const wrap = h('div', { class: `control control-${f.type}`, 'data-field': f.name });
  const described = f.hint ? hintId : undefined;
  const widget = Object.hasOwn(WIDGETS, f.type) ? WIDGETS[f.type] : numberWidget;
  return widget(f, { id, hintId, described, ui, wrap }, env);
}
