// A drill's set: each question's parameters drawn from a seeded generator (the same quiz seed gives
// the same numbers everywhere, for a whole class), its engine configs checked against the
// engine's schema, the text of its setting, and the verdict on a prediction once the engine has
// measured it. Pure: no DOM, no engine (tests run it in Node).
import { QUESTION_DEFS } from './question-bank.js';
import { fmt } from '../../ui/format.js';

export const DEFAULT_SEED = 1;
export const MAX_SEED = 4294967295;
export const QUESTION_IDS = Object.freeze(QUESTION_DEFS.map((d) => d.id));
const byId = new Map(QUESTION_DEFS.map((d) => [d.id, d]));

/** FNV-1a of a string: each question draws from its own stream of the quiz seed. */
function hash(s) {
  let x = 2166136261;
  for (const c of s) x = Math.imul(x ^ c.codePointAt(0), 16777619) >>> 0;
  return x;
}

/** Mulberry32: a small, fast generator whose stream is fixed by its 32-bit seed. */
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: (list) => list[Math.floor(next() * list.length)] };
}

/** The schema's lists that questions use: scalings by exponent, the 16-bit formats. */
function schemaLists(schema) {
  const choices = (name) => schema.find((f) => f.name === name)?.choices ?? [];
  const byExponent = (e) => choices('scale').find((c) => c.exponent === e)?.value;
  const formats = choices('precision');
  return {
    unscaled: byExponent(0),
    sqrt: byExponent(-0.5),
    linear: byExponent(-1),
    formats16: formats.filter((f) => 1 + f.exponentBits + f.mantissaBits === 16),
    format: (value) => formats.find((f) => f.value === value),
    scaleLabel: (value) => choices('scale').find((c) => c.value === value)?.label ?? String(value),
  };
}

/**
 * Question `id` of the set drawn from `seed` → { id, title, group, kind, quantity, chapter, params,
 * configs, prompt, lists, def }. Every config of a question shares one sample seed, so two settings are
 * compared on the same q and k.
 */
function buildQuestion(id, seed, lists) {
  const def = byId.get(id);
  const rng = generator(hash(`${id}:${seed}`));
  const params = def.draw(rng, lists);
  const sampleSeed = Math.floor(rng.next() * MAX_SEED);
  const configs = def.configs(params, lists).map((c) => ({ ...c, seed: sampleSeed }));
  return {
    id,
    title: def.title,
    group: def.group,
    kind: def.kind,
    quantity: def.quantity,
    chapter: def.chapter,
    params,
    configs,
    prompt: def.prompt(params, lists),
    lists,
    def,
  };
}

/** A field of `cfg` the schema refuses: '<field>=<value> is outside …', or null. */
function refusal(cfg, schema) {
  for (const [name, v] of Object.entries(cfg)) {
    const f = schema.find((x) => x.name === name);
    if (!f) return `${name} is not a setting of the engine`;
    if (f.values && typeof v === 'string' && !f.values.includes(v))
      return `${name}=${v} is not one of ${f.values.join(', ')}`;
    if (typeof v === 'number' && (v < f.min || v > f.max))
      return `${name}=${v} is outside the engine's range [${f.min}, ${f.max}]`;
  }
  return null;
}

/**
 * The questions `ids` at `seed` → { questions, notices }: a question whose setting the engine's
 * schema refuses is left out with a notice ({ field, given, used, reason }, as state.js gives them);
 * if none is left, the default set.
 */
export function buildSet(ids, seed, schema) {
  const lists = schemaLists(schema);
  const notices = [];
  const keep = (list) =>
    list.flatMap((id) => {
      const q = buildQuestion(id, seed, lists);
      const why = q.configs.map((c) => refusal(c, schema)).find(Boolean);
      if (!why) return [q];
      notices.push({
        field: 'question',
        given: id,
        used: 'left out',
        reason: `asks for a setting the engine refuses (${why})`,
      });
      return [];
    });
  let questions = keep(ids);
  if (!questions.length && ids !== QUESTION_IDS) questions = keep(QUESTION_IDS);
  return { questions, notices };
}

/** A config's setting as [what, text] parts. */
function settingParts(cfg, lists) {
  return [
    ['dk', `d_k ${cfg.dk}`],
    ['seqLen', `T ${cfg.seqLen}`],
    ['scale', `scaling ${lists.scaleLabel(cfg.scale)}`],
    ['precision', cfg.precision ? (lists.format(cfg.precision)?.label ?? cfg.precision) : 'fp32'],
    ['subtractMax', cfg.subtractMax === false ? 'exp without subtracting the row max' : 'max subtracted'],
    ['dist', `q, k components independent N(${cfg.mean ?? 0}, ${cfg.std ?? 1}²)`],
  ];
}

/**
 * The settings of `configs` in words, what they share once and what differs as 'a, then b':
 * 'd_k 32, then 512 · T 64 · scaling none · fp32 · …'.
 */
export function settingText(configs, lists) {
  const each = configs.map((c) => settingParts(c, lists));
  return each[0]
    .map(([key, text], i) => {
      const all = each.map((parts) => parts[i][1]);
      if (all.every((t) => t === text)) return key === 'subtractMax' ? null : text;
      return all.join(', then ');
    })
    .filter(Boolean)
    .join(' · ');
}

/** The question's tolerance in words. */
export function toleranceText(q) {
  const t = q.def.answer?.tolerance;
  if (!t) return `Close when your choice is the one the measured numbers pick: ${q.def.rule}.`;
  if (t.factor)
    return `Close when within ${fmt((t.factor - 1) * 100)} % on a log scale (a factor of ${t.factor} either way).`;
  return `Close when within ±${t.within} of the measured value.`;
}

/**
 * The verdict on `prediction` given the engine's `measured` scalars (one per config) →
 * { verdict: 'close' | 'off', value: the quantity at the first config, answer?: the option the
 * numbers pick }.
 */
export function judge(q, prediction, measured) {
  const value = measured[0][q.quantity];
  if (q.kind === 'choice') {
    const answer = q.def.decide(measured, q.params);
    return { verdict: prediction === answer ? 'close' : 'off', value, answer };
  }
  const t = q.def.answer.tolerance;
  const close = t.factor
    ? prediction > 0 && value > 0 && Math.abs(Math.log(prediction / value)) <= Math.log(t.factor)
    : Math.abs(prediction - value) <= t.within;
  return { verdict: close ? 'close' : 'off', value };
}
