// The training panel's state, as pure functions (no DOM): the trainer's config derived from the
// page's config and the panel's own settings, and the text summary of a run. Ranges and the copies
// come from the engine's training schema (engine.trainSchema, owned by the C++); the one-click
// comparisons are presets (state/study-presets.js).
//
// What comes from where:
//   page config  → dk, seqLen (T), precision, saturate, and scale when it is a custom multiplier
//                  (the trainer then adds a fourth copy, "custom", with that multiplier);
//   panel        → optimizer, learningRate, initScale, batchSize, seed, stopAt (page-only:
//                  pause when the step counter reaches it; 0 = run until paused), and the copies
//                  trained (the training schema's `copies` row; URL `trainCopies=none,sqrt,rms_sqrt`).
// The page's ranges are wider than the trainer's (T up to 2048 there, 8..128 here; the trainer
// also caps d_k · T · batch): values outside are clamped and every clamp is reported as a line
// of text for the panel to show.
// The panel's settings live in the URL too, under names of their own (`trainSeed`: the page
// already has a `seed`), with the URL's rules of state.js.
import { coerceField, parseQuery, serializeChanged } from '../../state/state.js';
import { formatOf } from '../../state/choices.js';
import { fmt } from '../../ui/format.js';

/**
 * The training schema's `copies` row: { min, max, default, choices }. `choices` are the copies the
 * panel can train, each { name, label, scale, qkNorm, softcap, lengthScale } (one entry of
 * engine.train's `copies`; measured in the training findings (docs/science.md) under the same
 * names), the defaults first; `default` the copies trained when none are picked; `max` how many
 * engine.train takes. The page's custom multiplier adds one more copy, 'custom'.
 */
export const copiesField = (trainSchema) => trainSchema.find((f) => f.name === 'copies');
const choiceNames = (trainSchema) => copiesField(trainSchema).choices.map((c) => c.name);

/** Every copy name a run can have, in the order the charts draw them. */
export const copyNames = (trainSchema) => [...choiceNames(trainSchema), 'custom'];
export const METRICS = Object.freeze([
  'loss',
  'accuracy',
  'entropy',
  'saturatedFraction',
  'gradNormWq',
  'gradNormWk',
  'maxLogit',
  'minRowEntropy',
  'entropyFloor',
]);
/** Steps the Step button runs. */
export const STEP_BUTTON_STEPS = 10;
/** Default of the stop-at setting: the length of the runs in the training findings (docs/science.md). */
export const DEFAULT_STOP_AT = 500;
/** Value tokens of the task (train.hpp: kValueTokens): chance accuracy 1/16, chance loss ln 16. */
export const VALUE_TOKENS = 16;
/** "Reached 90 %": the first step at which the accuracy averaged over the last 10 steps is ≥ 0.9. */
export const REACH_ACCURACY = 0.9;
export const REACH_WINDOW = 10;

const SETTINGS = ['optimizer', 'learningRate', 'initScale', 'batchSize', 'seed', 'stopAt'];
/** stopAt is the page's own setting (the engine does not know it). */
const STOP_AT_FIELD = Object.freeze({
  name: 'stopAt',
  type: 'int',
  min: 0,
  max: 1e9,
  default: DEFAULT_STOP_AT,
});

/** How a copy is shown: its label in the training schema, or '× m' for the custom multiplier m. */
export function copyLabel(copy, scale, trainSchema) {
  if (copy === 'custom') return typeof scale === 'number' ? `× ${fmt(scale)}` : 'custom';
  return copiesField(trainSchema).choices.find((c) => c.name === copy)?.label ?? copy;
}

/**
 * A list of copy names (an array, or the URL's comma-separated text) → { copies, notice }: known
 * names in the schema's order, each once; unknown names dropped and an empty list reset to the
 * defaults, with a notice { field: 'trainCopies', given, used, reason } as state.js writes them.
 */
export function coerceCopies(input, trainSchema) {
  const given = Array.isArray(input)
    ? input
    : String(input ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
  const names = choiceNames(trainSchema);
  const known = names.filter((n) => given.includes(n));
  const unknown = given.filter((n) => !names.includes(n));
  const copies = known.length ? known : [...copiesField(trainSchema).default];
  let reason = null;
  if (unknown.length) reason = `names unknown copies (${unknown.join(', ')}; known: ${names.join(', ')})`;
  else if (!known.length) reason = 'picks no copy';
  const notice = reason
    ? { field: 'trainCopies', given: given.join(','), used: copies.join(','), reason }
    : null;
  return { copies, notice };
}
const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

const fieldOf = (trainSchema, name) => trainSchema.find((f) => f.name === name);

/** The panel's settings as a schema in state.js's shape: the training schema's fields plus stopAt. */
function settingsSchema(trainSchema) {
  return SETTINGS.map((n) => (n === 'stopAt' ? STOP_AT_FIELD : fieldOf(trainSchema, n))).filter(Boolean);
}

/** A setting's name in the URL: seed → trainSeed. */
const urlName = (name) => `train${name[0].toUpperCase()}${name.slice(1)}`;

/** The settings schema under the URL's names. */
function settingsUrlSchema(trainSchema) {
  return settingsSchema(trainSchema).map((f) => ({ ...f, name: urlName(f.name) }));
}

/** The panel's settings at their defaults (from the training schema) plus stopAt. */
export function defaultSettings(trainSchema) {
  return {
    ...Object.fromEntries(settingsSchema(trainSchema).map((f) => [f.name, f.default])),
    copies: [...copiesField(trainSchema).default],
  };
}

/**
 * URL query → { settings, notices }: the settings the query names (the others at their defaults),
 * each bad value clamped or reset with a notice { field, given, used, reason } under its URL name.
 */
export function settingsFromQuery(search, trainSchema) {
  const { config, notices } = parseQuery(search, settingsUrlSchema(trainSchema), { limits: {} });
  const settings = Object.fromEntries(
    settingsSchema(trainSchema).map((f) => [f.name, config[urlName(f.name)]]),
  );
  const raw = new URLSearchParams(search).get('trainCopies');
  const { copies, notice } =
    raw === null
      ? { copies: [...copiesField(trainSchema).default], notice: null }
      : coerceCopies(raw, trainSchema);
  settings.copies = copies;
  return { settings, notices: notice ? [...notices, notice] : notices };
}

/** Settings → URL query of the ones that differ from their defaults ('' at the defaults). */
export function settingsToQuery(settings, trainSchema) {
  const byUrlName = Object.fromEntries(
    Object.entries(settings)
      .filter(([k]) => k !== 'copies')
      .map(([k, v]) => [urlName(k), v]),
  );
  const q = serializeChanged(byUrlName, settingsUrlSchema(trainSchema), {});
  const defaults = copiesField(trainSchema).default;
  const { copies } = coerceCopies(settings.copies ?? defaults, trainSchema);
  // Commas stay readable: copy names are letters, digits and '_' only.
  return sameList(copies, defaults) ? q : [q, `trainCopies=${copies.join(',')}`].filter(Boolean).join('&');
}

/**
 * One setting from a control (string or number) → { value, notice } with the schema's range
 * (state.js rules: clamped or reset, with a notice naming the field).
 */
export function coerceSetting(trainSchema, name, input) {
  const f = settingsSchema(trainSchema).find((x) => x.name === name);
  if (!f) return { value: input, notice: null };
  const { value, notice } = coerceField(f, input, {}, {});
  return {
    value,
    notice: notice ? `${name}=${notice.given} ${notice.reason}; using ${name}=${notice.used}.` : null,
  };
}

/**
 * Page config + settings → { cfg, notes }: `cfg` is what engine.train gets; `notes` are the
 * clamps, as text (empty when the page's values fit the trainer as they are).
 */
export function trainerConfig(page, settings, trainSchema) {
  const notes = [];
  const clampField = (name, label, v) => {
    const f = fieldOf(trainSchema, name);
    const lo = f?.min ?? -Infinity,
      hi = f?.max ?? Infinity;
    const x = Math.min(hi, Math.max(lo, v));
    if (x !== v) {
      notes.push(
        `The page's ${label} = ${v} is ${v > hi ? 'above' : 'below'} the trainer's range ${lo}..${hi}: training uses ${label} = ${x}.`,
      );
    }
    return x;
  };
  const dk = clampField('dk', 'd_k', page.dk);
  const seqLen = clampField('seqLen', 'T', page.seqLen);
  const cap = fieldOf(trainSchema, 'workCap')?.value ?? Infinity;
  let batchSize = settings.batchSize;
  if (dk * seqLen * batchSize > cap) {
    const fit = Math.max(1, Math.floor(cap / (dk * seqLen)));
    notes.push(
      `d_k × T × batch = ${dk} × ${seqLen} × ${batchSize} = ${dk * seqLen * batchSize} is over the trainer's cost cap of ${cap}: training uses batch size ${fit}.`,
    );
    batchSize = fit;
  }
  const cfg = {
    dk,
    seqLen,
    batchSize,
    optimizer: settings.optimizer,
    learningRate: settings.learningRate,
    initScale: settings.initScale,
    precision: page.precision,
    saturate: !!page.saturate,
    seed: settings.seed,
  };
  const { default: defaults, max, choices } = copiesField(trainSchema);
  const chosen = coerceCopies(settings.copies ?? defaults, trainSchema).copies; // in the schema's order
  const custom = typeof page.scale === 'number';
  if (sameList(chosen, defaults)) {
    // The default copies: the trainer's own defaults (the bits of every earlier run).
    if (custom) cfg.scale = page.scale;
  } else {
    cfg.copies = choices.filter((c) => chosen.includes(c.name)).map(({ label: _, ...spec }) => spec);
    if (custom) {
      if (cfg.copies.length < max) cfg.copies.push({ name: 'custom', scale: page.scale });
      else
        notes.push(
          `The trainer runs at most ${max} copies: the page's custom multiplier × ${fmt(page.scale)} is left out while every copy is picked.`,
        );
    }
  }
  return { cfg, notes };
}

/** Equal keys ⇔ the same training run (bit for bit). */
export const trainerKey = (cfg) => JSON.stringify(cfg);

/** The copies a config trains, in output order. */
export const copiesOf = (cfg, trainSchema) =>
  cfg.copies
    ? cfg.copies.map((c) => c.name)
    : [...copiesField(trainSchema).default, ...(typeof cfg.scale === 'number' ? ['custom'] : [])];

/** One line describing a run's config (`schema`: the engine's, which says whether a format saturates). */
export function describeRun(cfg, schema) {
  const opt = cfg.optimizer === 'sgd' ? 'SGD' : 'Adam';
  const saturating = cfg.saturate && formatOf(schema, cfg.precision)?.canSaturate;
  return (
    `d_k ${cfg.dk}, T ${cfg.seqLen}, batch ${cfg.batchSize}, ${opt} lr ${fmt(cfg.learningRate)}, init scale ${fmt(cfg.initScale)}, ` +
    `${cfg.precision}${saturating ? ' (saturating)' : ''}, seed ${cfg.seed}`
  );
}

/**
 * First step where the accuracy averaged over the last REACH_WINDOW steps is ≥ REACH_ACCURACY, or
 * null. Incremental: pass the same `state` object each time and only new entries are scanned.
 */
export function stepReaching(steps, accuracy, state = { sum: 0, at: null, next: 0 }) {
  if (state.at !== null) return state.at;
  for (let i = state.next; i < accuracy.length; i++) {
    state.sum += accuracy[i];
    if (i >= REACH_WINDOW) state.sum -= accuracy[i - REACH_WINDOW];
    state.next = i + 1;
    if (i >= REACH_WINDOW - 1 && state.sum / REACH_WINDOW >= REACH_ACCURACY) {
      state.at = steps[i];
      return state.at;
    }
  }
  return null;
}

const mean = (a, from) => {
  let s = 0,
    n = 0;
  for (let i = Math.max(0, from); i < a.length; i++) {
    s += a[i];
    n++;
  }
  return n ? s / n : NaN;
};
const pct = (x) => (Number.isFinite(x) ? `${fmt(100 * x, 3)}%` : fmt(x));

/**
 * A plain-text summary of what the curves show now (the text alternative of the charts):
 * `run` = { cfg, steps: number[], copies: { name: { metric: number[] } }, reached: { name: step|null } };
 * `trainSchema`, `schema`: the engine's (the copies' labels, the formats).
 */
export function summarize(run, trainSchema, schema) {
  const { cfg, steps } = run;
  if (!cfg || !steps.length)
    return 'No steps yet. Press Play or Step to train the copies from the same starting weights on the same batches.';
  const copies = copiesOf(cfg, trainSchema);
  const label = (c) => copyLabel(c, cfg.scale, trainSchema);
  const n = steps.length;
  const last = steps[n - 1];
  const from = n - REACH_WINDOW;
  const out = [`Step ${last} (${describeRun(cfg, schema)}).`];
  const acc = copies.map((c) => [c, mean(run.copies[c].accuracy, from)]);
  out.push(
    `Accuracy over the last ${Math.min(n, REACH_WINDOW)} steps: ${acc.map(([c, a]) => `${label(c)} ${pct(a)}`).join(', ')} (chance ${pct(1 / VALUE_TOKENS)}).`,
  );
  const reached = copies
    .filter((c) => run.reached[c] != null)
    .sort((a, b) => run.reached[a] - run.reached[b]);
  const notYet = copies.filter((c) => run.reached[c] == null);
  if (reached.length) {
    out.push(
      `Reached ${pct(REACH_ACCURACY)} (mean of ${REACH_WINDOW} steps): ${reached.map((c) => `${label(c)} at step ${run.reached[c]}`).join(', ')}` +
        `${notYet.length ? `; not yet: ${notYet.map(label).join(', ')}` : ''}.`,
    );
  } else {
    out.push(`No copy has reached ${pct(REACH_ACCURACY)} accuracy yet.`);
  }
  out.push(
    `Saturated attention rows at this step: ${copies.map((c) => `${label(c)} ${pct(run.copies[c].saturatedFraction[n - 1])}`).join(', ')}; ` +
      `mean entropy ${copies.map((c) => `${label(c)} ${fmt(run.copies[c].entropy[n - 1], 3)}`).join(', ')} nats (ceiling ln T = ${fmt(Math.log(cfg.seqLen), 3)}).`,
  );
  const gq = Object.fromEntries(copies.map((c) => [c, mean(run.copies[c].gradNormWq, from)]));
  let grad = `‖∇W_q‖ over the last ${Math.min(n, REACH_WINDOW)} steps: ${copies.map((c) => `${label(c)} ${fmt(gq[c], 3)}`).join(', ')}`;
  if (Number.isFinite(gq.none) && Number.isFinite(gq.sqrt) && gq.sqrt > 0) {
    const r = gq.none / gq.sqrt;
    grad +=
      r >= 1
        ? `: the unscaled copy's is ${fmt(r, 2)}× the 1/√d_k copy's`
        : `: the 1/√d_k copy's is ${fmt(1 / r, 2)}× the unscaled copy's`;
  }
  out.push(`${grad}.`);
  const broken = copies.filter((c) => run.copies[c].loss.some((v) => !Number.isFinite(v)));
  if (broken.length) {
    out.push(
      `The loss of ${broken.map(label).join(', ')} became NaN or infinite (the run diverged); the chart leaves those steps out.`,
    );
  }
  return out.join(' ');
}
