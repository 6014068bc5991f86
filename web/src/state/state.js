// Schema-driven state: URL query ⇄ engine config. Pure functions, no DOM, no page globals.
//
// The engine's schema (engine.schema, owned by the C++) is the one table of the config: every
// field's name, type, range, default and allowed values come from it. This module only loops over
// that table (the tensorflow/playground way) and adds the page's few narrowings (PAGE_LIMITS).
// Invalid input is never an error here: each bad value is clamped or reset to its default and
// reported as a notice { field, given, used, reason } for the page to show (as text).

/** Page-level narrowings of the engine's ranges (the page's T control starts at 8). */
export const PAGE_LIMITS = Object.freeze({ seqLen: { min: 8 } });

/** Range bounds that depend on another field, when the schema's static max is wider. */

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);
const MAX_SHOWN = 40; // characters of a bad URL value quoted back in a notice

const shown = (s) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s);

/** Effective [min, max] of a numeric field: schema ∩ page limits ∩ dependent bound. */
export function bounds(field, config = {}, limits = PAGE_LIMITS) {
  let min = typeof field.min === 'number' ? field.min : -Infinity;
  let max = typeof field.max === 'number' ? field.max : Infinity;
  const lim = limits[field.name];
  if (lim && typeof lim.min === 'number') min = Math.max(min, lim.min);
  if (lim && typeof lim.max === 'number') max = Math.min(max, lim.max);
  // The schema names a field that bounds this one (blockSize: maxField 'seqLen').
  const dep = field.maxField;
  if (dep && typeof config[dep] === 'number') max = Math.min(max, config[dep]);
  return { min, max };
}

/** Strictly-positive fields (e.g. std > 0) are marked by the schema with minExclusive. */
const exclusive = (field) => !!(field.minExclusive ?? field.exclusiveMin);
function belowMin(field, v, min) {
  return exclusive(field) ? v <= min : v < min;
}

/** Defaults from the schema (what engine.defaults() returns), clamped to page limits. */
export function schemaDefaults(schema, limits = PAGE_LIMITS) {
  const cfg = {};
  for (const f of schema) cfg[f.name] = f.default;
  for (const f of schema) {
    if (f.type === 'int' || f.type === 'number') {
      const { min, max } = bounds(f, cfg, limits);
      cfg[f.name] = Math.min(max, Math.max(min, cfg[f.name]));
    }
  }
  return cfg;
}

/**
 * Coerce one value (a URL string or a JS value) for one schema field.
 * Returns { value, notice } where notice is null when the value was used as given.
 */
export function coerceField(field, input, config = {}, limits = PAGE_LIMITS) {
  const given = typeof input === 'string' ? input : String(input);
  const reset = (reason) => ({
    value: field.default,
    notice: { field: field.name, given: shown(given), used: field.default, reason },
  });
  switch (field.type) {
    case 'int':
    case 'number': {
      const v = typeof input === 'number' ? input : input.trim() === '' ? NaN : Number(input);
      if (!Number.isFinite(v)) return reset('is not a number');
      const { min, max } = bounds(field, config, limits);
      let x = field.type === 'int' ? Math.round(v) : v;
      if (x === 0) x = 0; // no -0: it would not survive the URL
      let reason = field.type === 'int' && x !== v ? 'is not a whole number' : null;
      if (belowMin(field, x, min)) {
        x = exclusive(field) ? field.default : min;
        reason = `is below the allowed range ${rangeText(field, min, max)}`;
      } else if (x > max) {
        x = max;
        reason = `is above the allowed range ${rangeText(field, min, max)}`;
      }
      return {
        value: x,
        notice: reason ? { field: field.name, given: shown(given), used: x, reason } : null,
      };
    }
    case 'bool': {
      if (typeof input === 'boolean') return { value: input, notice: null };
      const s = given.trim().toLowerCase();
      if (TRUE.has(s)) return { value: true, notice: null };
      if (FALSE.has(s)) return { value: false, notice: null };
      return reset('is not true or false');
    }
    case 'enum': {
      const vals = field.values ?? [];
      if (vals.includes(given)) return { value: given, notice: null };
      const ci = vals.find((v) => v.toLowerCase() === given.trim().toLowerCase());
      if (ci) return { value: ci, notice: null };
      return reset(`is not one of ${vals.join(', ')}`);
    }
    case 'scale': {
      const vals = field.values ?? [];
      if (typeof input === 'string') {
        const ci = vals.find((v) => v.toLowerCase() === given.trim().toLowerCase());
        if (ci) return { value: ci, notice: null };
      } else if (vals.includes(input)) return { value: input, notice: null };
      const v = typeof input === 'number' ? input : given.trim() === '' ? NaN : Number(given);
      // A custom multiplier: the schema's numeric range (min exclusive: > 0) applies.
      const { min, max } = bounds(field, config, limits);
      const lo = Number.isFinite(min) ? min : 0;
      if (Number.isFinite(v) && v > lo && v <= max) return { value: v, notice: null };
      if (Number.isFinite(v) && v > max) {
        return {
          value: max,
          notice: {
            field: field.name,
            given: shown(given),
            used: max,
            reason: `is above the largest custom multiplier ${max}`,
          },
        };
      }
      return reset(`is not one of ${vals.join(', ')} or a number above ${lo}`);
    }
    default:
      // A field type this page does not know yet: pass strings through; the engine validates.
      return { value: input, notice: null };
  }
}

function rangeText(field, min, max) {
  const lo = Number.isFinite(min) ? min : '−∞';
  const hi = Number.isFinite(max) ? max : '∞';
  return exclusive(field) ? `(${lo}, ${hi}]` : `${lo}..${hi}`;
}

/** Order fields so that a dependent bound (blockSize ≤ seqLen) is checked after its bound. */
function ordered(schema) {
  const deps = new Set(schema.map((f) => f.maxField).filter(Boolean));
  return [...schema.filter((f) => deps.has(f.name)), ...schema.filter((f) => !deps.has(f.name))];
}

/**
 * URL query → { config, notices }. Fields missing from the query take their defaults;
 * names not in the schema are ignored (other pages may add their own parameters).
 */
export function parseQuery(search, schema, { limits = PAGE_LIMITS, base } = {}) {
  const params = new URLSearchParams(search);
  const config = { ...(base ?? schemaDefaults(schema, limits)) };
  const notices = [];
  for (const f of ordered(schema)) {
    if (!params.has(f.name)) continue;
    const { value, notice } = coerceField(f, params.get(f.name), config, limits);
    config[f.name] = value;
    if (notice) notices.push(notice);
  }
  // A field the query did not name follows its bound silently (`?seqLen=32` moves the default
  // blockSize down to 32 without a notice); a value the query gave is reported when clamped.
  notices.push(...enforceDependencies(config, schema, limits).filter((n) => params.has(n.field)));
  return { config, notices };
}

/** Re-clamp dependent bounds after any change (e.g. T lowered below the block size). */
function enforceDependencies(config, schema, limits = PAGE_LIMITS) {
  const notices = [];
  for (const f of schema) {
    if (f.type !== 'int' && f.type !== 'number') continue;
    const { min, max } = bounds(f, config, limits);
    const v = config[f.name];
    if (typeof v !== 'number') continue;
    if (v > max) {
      notices.push({
        field: f.name,
        given: String(v),
        used: max,
        reason: `is above the allowed range ${rangeText(f, min, max)}`,
      });
      config[f.name] = max;
    }
  }
  return notices;
}

/** Apply a partial change coming from a control or preset (JS values). */
export function applyChange(config, partial, schema, limits = PAGE_LIMITS) {
  const next = { ...config };
  const notices = [];
  const byName = new Map(schema.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(partial)) {
    const f = byName.get(k);
    if (!f) continue;
    const { value, notice } = coerceField(f, v, next, limits);
    next[k] = value;
    if (notice) notices.push(notice);
  }
  enforceDependencies(next, schema, limits); // silent: the control for the bound moved, not a URL
  return { config: next, notices };
}

const urlValue = (v) => (typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v));

/** Config → URL query string (every field, in schema order, with the engine's names). */
export function serialize(config, schema) {
  const p = new URLSearchParams();
  for (const f of schema) {
    const v = config[f.name];
    if (v === undefined) continue;
    p.set(f.name, urlValue(v));
  }
  return p.toString();
}

/**
 * The fields of `config` that differ from their defaults, as [name, value] pairs in schema order.
 * A field bounded by another (blockSize ≤ seqLen) is compared with its default under that bound:
 * the value parseQuery gives it when the URL leaves it out.
 */
export function changedFields(config, schema, limits = PAGE_LIMITS) {
  const defaults = schemaDefaults(schema, limits);
  const out = [];
  for (const f of schema) {
    const v = config[f.name];
    if (v === undefined) continue;
    let d = defaults[f.name];
    if (typeof d === 'number' && f.maxField) d = Math.min(d, bounds(f, config, limits).max);
    if (v !== d) out.push([f.name, v]);
  }
  return out;
}

/** Config → URL query of only the fields that differ from their defaults (parseQuery restores the rest). */
export function serializeChanged(config, schema, limits = PAGE_LIMITS) {
  const p = new URLSearchParams();
  for (const [name, v] of changedFields(config, schema, limits)) p.set(name, urlValue(v));
  return p.toString();
}

/** Stable key of the fields in `config` except `omit`: equal keys ⇒ identical computation. */
export function keyOf(config, schema, omit = []) {
  const skip = new Set(omit);
  return schema
    .filter((f) => !skip.has(f.name))
    .map((f) => `${f.name}=${config[f.name]}`)
    .join('&');
}

export function sameConfig(a, b, schema) {
  return schema.every((f) => a[f.name] === b[f.name]);
}

/** Human text of one notice (rendered with textContent by the page). */
export function noticeText(n) {
  return `${n.field}=${n.given} ${n.reason}; using ${n.field}=${n.used}.`;
}
