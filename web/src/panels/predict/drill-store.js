// The reader's score and last predictions, kept in this browser's localStorage and never sent
// anywhere: per quiz seed and question, the last prediction and its verdict (never a measured
// value: the engine measures again at each check). Where storage is refused (a sandboxed frame,
// a private window's quota), the drill keeps them for the visit only.
const KEY = 'attnscale-predict';

function load() {
  try {
    const v = JSON.parse(globalThis.localStorage?.getItem(KEY) ?? '{}');
    return v && typeof v === 'object' && v.answers && typeof v.answers === 'object' ? v : { answers: {} };
  } catch {
    return { answers: {} };
  }
}

/** → { get(seed, id) → { prediction, verdict } | undefined, put(seed, id, entry), clear() }. */
export function drillStore() {
  let data = load();
  const save = () => {
    try {
      globalThis.localStorage?.setItem(KEY, JSON.stringify(data));
    } catch {
      /* storage refused: kept for this visit */
    }
  };
  return {
    get: (seed, id) => data.answers[`${seed}:${id}`],
    put(seed, id, { prediction, verdict }) {
      data.answers[`${seed}:${id}`] = { prediction, verdict };
      save();
    },
    clear() {
      data = { answers: {} };
      try {
        globalThis.localStorage?.removeItem(KEY);
      } catch {
        /* nothing stored */
      }
    },
  };
}
