// The report's what-if settings: the logit fields of the page (scale, QK-norm, soft-cap, length
// factor, precision, causal mask), from the engine's schema and defaults. A number outside its
// range is clamped, and the panel says what was changed. A file whose metadata gives each layer's
// scale (`<prefix>scale`, as the training panel's download does) adds the scale "as in the file".
import { h } from '../../ui/dom.js';

const FIELDS = ['scale', 'qkNorm', 'softcap', 'lengthScale', 'precision', 'causal'];

export const FILE_SCALE = 'file';
/** The scale "as in config.json": the multiplier a model's config gives (model-config.js). */
export const CONFIG_SCALE = 'config';

/**
 * mountWhatIf(host, { schema, defaults, onChange({ options, notices }) }) → { read(), offerFileScale(on),
 * offerConfig(cfg) }.
 */
export function mountWhatIf(host, { schema, defaults, onChange }) {
  const byName = new Map(schema.map((f) => [f.name, f]));
  const inputs = {};
  const box = h(
    'fieldset',
    { class: 'report-whatif', 'data-report-whatif': '' },
    h('legend', { text: 'What if' }),
  );
  for (const name of FIELDS) {
    const f = byName.get(name);
    if (!f) continue;
    let input;
    if (f.type === 'bool')
      input = h('input', { type: 'checkbox', 'data-whatif-field': name, checked: !!defaults[name] });
    else if (f.type === 'number')
      input = h('input', {
        type: 'number',
        'data-whatif-field': name,
        min: f.min,
        max: f.max,
        step: 'any',
        value: defaults[name],
      });
    else {
      input = h(
        'select',
        { 'data-whatif-field': name },
        f.values.map((v) => h('option', { value: v, text: v })),
      );
      input.value = String(defaults[name]);
    }
    input.addEventListener('change', () => onChange(read()));
    inputs[name] = input;
    box.append(h('label', { class: 'report-field' }, h('span', { text: f.label, title: f.hint }), input));
  }
  host.append(box);

  /** The settings as the engine takes them, and what was clamped to fit their ranges. */
  function read() {
    const options = {};
    const notices = [];
    for (const [name, input] of Object.entries(inputs)) {
      const f = byName.get(name);
      if (f.type === 'bool') options[name] = input.checked;
      else if (f.type === 'number') {
        let x = Number(input.value);
        if (input.value === '' || !Number.isFinite(x)) {
          notices.push(`${f.label}: '${input.value}' is not a number; set to ${defaults[name]}`);
          x = defaults[name];
        } else if (x < f.min || x > f.max) {
          const y = Math.min(f.max, Math.max(f.min, x));
          notices.push(`${f.label} ${x} is outside ${f.min}…${f.max}; set to ${y}`);
          x = y;
        }
        input.value = String(x);
        options[name] = x;
      } else options[name] = input.value;
    }
    return { options, notices };
  }
  /** Offers (and chooses) the scale the file gives for each layer, or takes it away. */
  function offerFileScale(on) {
    const select = inputs.scale;
    if (!select) return;
    select.querySelector(`option[value="${FILE_SCALE}"]`)?.remove();
    if (on) {
      select.prepend(h('option', { value: FILE_SCALE, text: 'as in the file' }));
      select.value = FILE_SCALE;
    } else if (select.value === '' || select.value === FILE_SCALE) select.value = String(defaults.scale);
  }
  let capFromConfig = false;
  /** Offers (and chooses) the multiplier a config.json gives and sets its soft-cap; null takes them away. */
  function offerConfig(cfg) {
    const select = inputs.scale;
    select?.querySelector(`option[value="${CONFIG_SCALE}"]`)?.remove();
    if (select && cfg?.multiplier) {
      select.prepend(
        h('option', { value: CONFIG_SCALE, text: `as in ${cfg.name} (× ${cfg.multiplierText})` }),
      );
      select.value = CONFIG_SCALE;
    } else if (select && (select.value === '' || select.value === CONFIG_SCALE))
      select.value = String(defaults.scale);
    const cap = inputs.softcap;
    if (cap && (cfg?.softcap ?? null) !== null) cap.value = String(cfg.softcap);
    else if (cap && capFromConfig) cap.value = String(defaults.softcap);
    capFromConfig = (cfg?.softcap ?? null) !== null;
  }
  return { read, offerFileScale, offerConfig };
}
