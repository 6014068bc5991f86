// Chapter 8's model presets as buttons (state/model-presets.js): a press sets the page to that
// model's d_k, multiplier, soft-cap and QK-norm, says which config.json fields gave them, and
// measures, on a background Worker, what the model's choice does against plain 1/√d_k at the same
// d_k, T and inputs (the page's own setting otherwise): σ of the logits, entropy, saturated rows.
import { createStudy } from '../charts/study.js';
import { getEngineClient } from '../compute/worker-client.js';
import { MODEL_PRESETS } from '../state/model-presets.js';
import { exact, modelScaling, scalingSettings } from '../state/model-scaling.js';
import { h } from '../ui/dom.js';
import { fmt } from '../ui/format.js';

/** The page's fields the measurement keeps from the current setting (its inputs and T). */
const PLAIN = { softcap: 0, qkNorm: 'none', lengthScale: 0 };

/** mountModelPresets(el, app, client?) → { destroy() }. `app`: createApp's { set, config }. */
export function mountModelPresets(el, app, client = getEngineClient()) {
  const list = h('ul', { class: 'model-preset-list' });
  const setting = h('p', { class: 'model-preset-note', 'data-model-setting': '' });
  const measured = h('p', { class: 'model-preset-note', 'aria-live': 'polite', 'data-model-measured': '' });
  const status = h('span', { class: 'model-preset-status' });
  const gaps = h('span', { class: 'model-preset-status' });
  let study = null;
  const buttons = MODEL_PRESETS.map((preset) => {
    const b = h('button', {
      type: 'button',
      class: 'btn model-preset',
      'aria-pressed': 'false',
      'data-model-preset': preset.id,
      text: preset.title,
      title: `${preset.repo}: ${preset.code}`,
      onclick: () => {
        for (const x of buttons) x.setAttribute('aria-pressed', String(x === b));
        study?.close();
        study = press(preset);
      },
    });
    list.append(h('li', {}, b));
    return b;
  });
  el.append(list, setting, measured, h('p', { class: 'model-preset-note' }, status, gaps));

  function press(preset) {
    const s = modelScaling(preset.config);
    const set = scalingSettings(s);
    app.set(set);
    const cfg = app.config;
    setting.textContent = settingText(preset, s);
    measured.textContent = '';
    delete measured.dataset.modelMeasured;
    measured.dataset.modelMeasuring = preset.id;
    const { dk } = set;
    // The page's setting without d_k and the scale: the sweep's x and its scales give them.
    const { dk: _dk, scale: _scale, ...inputs } = cfg;
    const mine = { softcap: set.softcap, qkNorm: set.qkNorm, lengthScale: 0 };
    const tasks = [
      { over: 'dk', cfg: { ...inputs, ...mine }, xs: [dk], scales: [set.scale] },
      { over: 'dk', cfg: { ...inputs, ...PLAIN }, xs: [dk], scales: ['sqrt'] },
    ];
    // The box, never empty (unlike the sentence), is in view when its button is pressed: measured at once.
    const out = createStudy(
      el,
      { status, gaps },
      {
        ctx: { client },
        tasks,
        onDone: () => {
          const model = out.get(0, String(set.scale), dk);
          const plain = out.get(1, 'sqrt', dk);
          if (!model || !plain) return;
          measured.textContent = measuredText(preset, s, cfg, model, plain);
          delete measured.dataset.modelMeasuring;
          measured.dataset.modelMeasured = preset.id;
        },
      },
    );
    return out;
  }
  return { destroy: () => study?.close() };
}

/** What the model sets and the fields it came from. */
function settingText(preset, s) {
  const fields = s.used.map((u) => `${u.field} = ${fieldValue(u.value)} (${u.effect})`).join('; ');
  const norm = s.qkNorm === 'none' ? 'no QK-norm' : `QK-norm ${s.qkNorm}`;
  const cap = s.softcap ? `soft-cap ${s.softcap}` : 'no soft-cap';
  return (
    `${preset.title} (${preset.repo}, config.json): d_k = ${s.dk}, q·k × ${s.formula} = ${exact(s.multiplier)}` +
    ` (1/√d_k would be ${exact(s.dk ** -0.5)}), ${cap}, ${norm}. From ${fields}.` +
    (s.notes.length ? ` ${s.notes.join(' ')}` : '')
  );
}
const fieldValue = (v) => (Array.isArray(v) ? v.join(', ') : String(v));

/** The measured sentence: the model's choice against plain 1/√d_k on the same q and k. */
function measuredText(preset, s, cfg, model, plain) {
  const pct = (x) => `${fmt(100 * x, 3)}%`;
  return (
    `Measured at d_k = ${s.dk}, T = ${cfg.seqLen}, seed ${cfg.seed} (the page’s inputs: mean ${cfg.mean}, std ${cfg.std}, ` +
    `correlation ${cfg.correlation}): ${preset.title}’s choice gives σ of the logits ${fmt(model.logitStd, 4)}, ` +
    `entropy ${fmt(model.entropy, 4)} nats and ${pct(model.saturatedFraction)} saturated rows (largest weight ` +
    `${fmt(model.maxWeight, 3)} on average); plain 1/√d_k gives σ ${fmt(plain.logitStd, 4)}, entropy ` +
    `${fmt(plain.entropy, 4)} nats and ${pct(plain.saturatedFraction)} saturated rows (largest weight ${fmt(plain.maxWeight, 3)}).`
  );
}
