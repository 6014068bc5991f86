// Controls generated from the engine's schema. Labels, hints, ranges, defaults and allowed values
// all come from engine.schema; this file only decides the widget kind and grouping (UI table
// below; control-widgets.js builds the widgets). A schema field this table does not know still
// gets a control, in "More".
import { h } from './dom.js';
import { bounds, PAGE_LIMITS } from '../state/state.js';
import { formatOf } from '../state/choices.js';
import { makeWidget } from './control-widgets.js';

/**
 * Widget choices per field (presentation only; never ranges — those come from the schema).
 * `enabledWhen(config, schema)`: whether the field applies.
 */
const UI = {
  dk: { slider: 'log2' },
  seqLen: { slider: 'log2' },
  blockSize: { slider: 'log2', enabledWhen: (c) => c.softmax === 'online' },
  saturate: { enabledWhen: (c, schema) => formatOf(schema, c.precision)?.canSaturate === true },
  mean: { slider: { min: -3, max: 3, step: 0.05 } },
  std: { slider: { min: 0.05, max: 4, step: 0.05 } },
  correlation: { slider: { step: 0.05 } },
  seed: { resample: true },
  lengthScale: { slider: { min: 0, max: 2, step: 0.01 } },
  softcap: { slider: { min: 0, max: 100, step: 1 } },
};

const GROUPS = [
  { id: 'size', title: 'Size', fields: ['dk', 'seqLen', 'causal'] },
  { id: 'scaling', title: 'Scaling', fields: ['scale'] },
  {
    id: 'numerics',
    title: 'Precision and softmax',
    fields: ['precision', 'saturate', 'subtractMax', 'softmax', 'blockSize'],
  },
  { id: 'beyond', title: 'Beyond √d_k', fields: ['qkNorm', 'lengthScale', 'softcap'] },
  {
    id: 'assumption',
    title: 'The assumption',
    fields: ['mean', 'std', 'correlation'],
    reset: ['mean', 'std', 'correlation'],
  },
  { id: 'sampling', title: 'Sampling', fields: ['seed'] },
];

/** The groups shown: GROUPS, then "More" for the schema's other fields. */
function groupsOf(schema) {
  const known = new Set(GROUPS.flatMap((g) => g.fields));
  return [
    ...GROUPS,
    { id: 'more', title: 'More', fields: schema.map((f) => f.name).filter((n) => !known.has(n)) },
  ];
}

/** A group's button that puts its fields back to their defaults. */
function resetButton(g, byName, onChange) {
  const fieldsToReset = g.reset.filter((n) => byName.has(n));
  return h('button', {
    type: 'button',
    class: 'btn small',
    text: 'Reset to i.i.d. N(0, 1)',
    onclick: () => onChange(Object.fromEntries(fieldsToReset.map((n) => [n, byName.get(n).default]))),
  });
}

/**
 * mountControls(container, { schema, limits, idPrefix, fields?, onChange(partial) })
 * → { update(config), destroy() }. `fields` limits which controls appear (embeds).
 */
export function mountControls(
  container,
  { schema, limits = PAGE_LIMITS, idPrefix = 'as-', fields, onChange },
) {
  const byName = new Map(schema.map((f) => [f.name, f]));
  const wanted = fields ? new Set(fields) : null;
  const widgets = [];
  const root = h('div', { class: 'controls' });
  let config = {};
  const env = { idPrefix, limits, onChange, current: () => config, schema };

  for (const g of groupsOf(schema)) {
    const names = g.fields.filter((n) => byName.has(n) && (!wanted || wanted.has(n)));
    if (!names.length) continue;
    const fs = h('fieldset', { class: `control-group group-${g.id}` }, h('legend', { text: g.title }));
    for (const n of names) {
      const w = makeWidget(byName.get(n), { ...env, ui: UI[n] });
      // What the widget last showed; any input by the reader makes it unknown (rewrite next time).
      w.shown = null;
      for (const type of ['input', 'change'])
        w.el.addEventListener(
          type,
          () => {
            w.shown = null;
          },
          true,
        );
      widgets.push(w);
      fs.append(w.el);
    }
    if (g.reset) fs.append(resetButton(g, byName, onChange));
    root.append(fs);
  }
  container.append(root);

  return {
    root,
    update(c) {
      config = c;
      // Only the widgets whose value, range, state or focus changed: a slider move rewrites one
      // widget, not every input's attributes (each write costs style and layout work).
      for (const w of widgets) {
        const { f } = w;
        const active = w.el.getRootNode().activeElement;
        const shown = JSON.stringify([
          c[f.name],
          bounds(f, c, limits),
          UI[f.name]?.enabledWhen?.(c, schema) ?? true,
          !!active && w.el.contains(active),
        ]);
        if (shown === w.shown) continue;
        w.shown = shown;
        w.set(c);
      }
    },
    destroy() {
      root.remove();
    },
  };
}
