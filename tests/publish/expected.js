// What a chart must show for its attributes, computed in Node: the element reads its attributes
// with the page URL's rules (state.js), so its config is parseQuery of them under the engine's
// names; its readouts are the engine's result for that config, formatted as the panels format them.
import { createEngine } from '../../web/src/engine/engine.js';
import { parseQuery, serialize } from '../../web/src/state/state.js';
import { fmt } from '../../web/src/ui/format.js';

const OPTIONS = new Set(['panel', 'controls', 'theme', 'page', 'src']);
const camel = (k) => k.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
let engine;

/**
 * expected(attrs) → { query, stat(name) } for one <attn-scale-demo>'s attributes: the query its
 * result must be for (data-result-query), and the text of readout `name` (data-stat, 'a.b' paths).
 */
export async function expected(attrs) {
  engine ??= await createEngine();
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(attrs)) if (!OPTIONS.has(k)) q.set(camel(k), v);
  const { config, notices } = parseQuery(q.toString(), engine.schema);
  if (notices.length) throw new Error(`test attributes out of range: ${JSON.stringify(notices)}`);
  const result = engine.run(config);
  return {
    query: serialize(config, engine.schema),
    stat: (name) => fmt(name.split('.').reduce((o, k) => o?.[k], result)),
  };
}
