// The options of an embed (the <attn-scale-demo> element and embed.html), beside the engine config:
// which panels, which controls, which theme; and the mapping between element attributes
// (kebab-case) and the schema's field names. Pure functions, no DOM.
//
// Bad values follow the same rules as the URL (state.js): never an error, always a usable
// fallback and a notice { field, given, used, reason } that the caller shows as text.
import { PANELS, PANEL_NAMES } from '../panels/index.js';
import { noticeText } from '../state/state.js';
import { kebab } from './attribute-names.js';

const DEFAULT_PANELS = Object.freeze(['spread']);
const THEMES = Object.freeze(['auto', 'light', 'dark']);
const MAX_SHOWN = 40;
const shown = (s) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s);
const list = (s) =>
  String(s)
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** Panels an embed may show: every panel of the registry unless its meta says `embed: false`. */
export function embeddablePanels() {
  return PANEL_NAMES.filter((n) => PANELS[n]?.meta?.embed !== false);
}

/**
 * Attribute name → schema field name, for every field: the kebab form (`seq-len`) and the
 * lower-cased camel form (`seqlen`, what HTML makes of `seqLen`).
 */
export function attributeMap(schema) {
  const m = new Map();
  for (const f of schema) {
    m.set(kebab(f.name), f.name);
    m.set(f.name.toLowerCase(), f.name);
  }
  return m;
}

/**
 * Attribute value → the string state.js coerces, as a URL value would be. A boolean attribute
 * written bare (`<attn-scale-demo causal>`) means true, as in HTML.
 */
export function attributeValue(field, value) {
  if (field.type === 'bool' && value !== null && value.trim() === '') return 'true';
  return value;
}

/** The element's config attributes as a URL query (so state.js applies the URL's rules). */
export function attributesToQuery(getAttribute, schema) {
  const p = new URLSearchParams();
  for (const f of schema) {
    let v = getAttribute(kebab(f.name));
    if (v === null) v = getAttribute(f.name.toLowerCase());
    if (v !== null) p.set(f.name, attributeValue(f, v));
  }
  return p.toString();
}

/** panel="spread, sigma" → { panels, notices }. Unknown names are dropped with a notice. */
export function parsePanels(value) {
  const allowed = embeddablePanels();
  if (value === null || value === undefined || String(value).trim() === '')
    return { panels: [...DEFAULT_PANELS], notices: [] };
  const panels = [];
  const bad = [];
  for (const name of list(value)) {
    const hit = allowed.find((a) => a.toLowerCase() === name.toLowerCase());
    if (hit) {
      if (!panels.includes(hit)) panels.push(hit);
    } else bad.push(name);
  }
  const used = panels.length ? panels : [...DEFAULT_PANELS];
  const notices = bad.length
    ? [
        {
          field: 'panel',
          given: shown(bad.join(',')),
          used: used.join(','),
          reason: `is not one of ${allowed.join(', ')}`,
        },
      ]
    : [];
  return { panels: used, notices };
}

/**
 * controls="dk, scale" (field names, kebab or camel), "all", or "none"/absent → { fields, notices }.
 * fields: null = none, or the list of schema field names to show.
 */
export function parseControls(value, schema) {
  if (value === null || value === undefined) return { fields: null, notices: [] };
  const items = list(value);
  if (!items.length || (items.length === 1 && /^(none|false|off)$/i.test(items[0])))
    return { fields: null, notices: [] };
  if (items.length === 1 && /^(all|true|on)$/i.test(items[0]))
    return { fields: schema.map((f) => f.name), notices: [] };
  const attrs = attributeMap(schema);
  const fields = [];
  const bad = [];
  for (const it of items) {
    const name = attrs.get(it.toLowerCase()) ?? schema.find((f) => f.name === it)?.name;
    if (name) {
      if (!fields.includes(name)) fields.push(name);
    } else bad.push(it);
  }
  const notices = bad.length
    ? [
        {
          field: 'controls',
          given: shown(bad.join(',')),
          used: fields.length ? fields.join(',') : 'none',
          reason: `names no setting (use all, none or some of ${schema.map((f) => kebab(f.name)).join(', ')})`,
        },
      ]
    : [];
  return { fields: fields.length ? fields : null, notices };
}

/** theme="light" | "dark" | "auto" (absent = auto). */
export function parseTheme(value) {
  if (value === null || value === undefined || value.trim() === '') return { theme: 'auto', notices: [] };
  const t = value.trim().toLowerCase();
  if (THEMES.includes(t)) return { theme: t, notices: [] };
  return {
    theme: 'auto',
    notices: [
      { field: 'theme', given: shown(value), used: 'auto', reason: `is not one of ${THEMES.join(', ')}` },
    ],
  };
}

export { noticeText };
