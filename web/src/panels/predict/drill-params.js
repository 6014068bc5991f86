// The drill's own settings in the URL, beside the page's fields (app.js reads and writes them
// through the view's urlState), in embed.html's query and on the element (attributes of the same
// names): quiz=<seed> picks the set's numbers, questions=<id,…> picks and orders its questions,
// question=<id> shows that one alone. A bad value never stops the drill: it falls back to the
// default and says so, as a notice { field, given, used, reason } like the page's own (state.js).
import { DEFAULT_SEED, MAX_SEED, QUESTION_IDS } from './questions.js';

const MAX_SHOWN = 40;
const shown = (s) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s);

/** quiz=<seed> → { seed, notice? }: a whole number in [0, MAX_SEED], else the default seed. */
function parseSeed(value) {
  if (value === null) return { seed: DEFAULT_SEED };
  const t = value.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (Number.isSafeInteger(n) && n <= MAX_SEED) return { seed: n };
  return {
    seed: DEFAULT_SEED,
    notice: {
      field: 'quiz',
      given: shown(value),
      used: DEFAULT_SEED,
      reason: `is not a whole number in [0, ${MAX_SEED}]`,
    },
  };
}

/** A list of ids → { ids, notice? }: unknown ones dropped; none left is the default set. */
function parseIds(field, value) {
  const items = value
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
  const ids = [];
  const bad = [];
  for (const it of items) {
    const hit = QUESTION_IDS.find((id) => id === it.toLowerCase());
    if (hit) {
      if (!ids.includes(hit)) ids.push(hit);
    } else bad.push(it);
  }
  const used = ids.length ? ids : [...QUESTION_IDS];
  if (!bad.length && ids.length) return { ids: used };
  return {
    ids: used,
    notice: {
      field,
      given: shown(bad.length ? bad.join(',') : value),
      used: ids.length ? ids.join(',') : 'every question',
      reason: `names no question of the drill (${QUESTION_IDS.join(', ')})`,
    },
  };
}

/** URL query → { seed, ids, notices }. `question` wins over `questions` when both are given. */
export function parseDrillQuery(search) {
  const params = new URLSearchParams(search);
  const { seed, notice: seedNotice } = parseSeed(params.get('quiz'));
  const field = params.has('question') ? 'question' : params.has('questions') ? 'questions' : null;
  const { ids, notice: idNotice } = field ? parseIds(field, params.get(field)) : { ids: [...QUESTION_IDS] };
  return { seed, ids, notices: [seedNotice, idNotice].filter(Boolean) };
}

/** The drill's settings that differ from the defaults, as a query ('' if none). */
export function drillQuery({ seed, ids }) {
  const p = new URLSearchParams();
  if (seed !== DEFAULT_SEED) p.set('quiz', String(seed));
  const all = ids.length === QUESTION_IDS.length && ids.every((id, i) => id === QUESTION_IDS[i]);
  if (ids.length === 1) p.set('question', ids[0]);
  else if (!all) p.set('questions', ids.join(','));
  return p.toString().replace(/%2C/gi, ',');
}
