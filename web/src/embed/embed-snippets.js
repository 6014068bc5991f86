// The copy-paste snippets of the Embed dialog, for a given state: an <iframe> of embed.html (plus
// the one-line auto-height listener) and the <attn-scale-demo> web component. Pure: no DOM, and
// nothing but state.js (so Node tests load it; embed-options.js takes its attribute names from here).
import { serializeChanged, changedFields } from '../state/state.js';

/** seqLen → seq-len (attribute names are case-insensitive in HTML, hence kebab-case). */
export const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The message embed.html posts to its parent whenever its content height changes. */
export const HEIGHT_MESSAGE = 'attnscale:height';

/** The host page's listener: sizes whichever iframe sent the message. One line, no dependencies. */
export const HEIGHT_LISTENER = `addEventListener('message', (e) => { if (e.data?.type === '${HEIGHT_MESSAGE}') for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px'; });`;

/** The text of the link inside the component snippet (shown when the element cannot draw). */
export const FALLBACK_LINK_TEXT = 'Open the attnscale demo';

const escAttr = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Config fields that differ from the defaults, as [attribute, value] pairs (schema order). */
export function changedAttributes(config, schema, limits) {
  return changedFields(config, schema, limits).map(([name, v]) => [kebab(name), String(v)]);
}

const joinQuery = (...parts) => parts.filter(Boolean).join('&');

/**
 * embedSnippets({ config, schema, limits, panels, controls, theme, base, titles, panelQuery }) →
 *   { embedUrl, fullUrl, iframe, component, scriptUrl }
 * base: the URL of the folder that holds index.html, embed.html and attn-scale-demo.js.
 * panels: names; controls: null or field names; theme: 'auto' | 'light' | 'dark'.
 * panelQuery: the chosen panels' own URL settings (the training panel's), already a query.
 * Both snippets name only the fields that differ from their defaults: the embed fills in the rest.
 */
export function embedSnippets({
  config,
  schema,
  limits,
  panels,
  controls = null,
  theme = 'auto',
  base,
  titles = {},
  panelQuery = '',
}) {
  const state = joinQuery(serializeChanged(config, schema, limits), panelQuery);
  const q = new URLSearchParams();
  q.set('panel', panels.join(','));
  if (controls && controls.length) q.set('controls', controls.join(','));
  if (theme !== 'auto') q.set('theme', theme);
  // Commas are legal in a query: keep panel=spread,sigma readable.
  const embedUrl = `${new URL('embed.html', base).href}?${joinQuery(q.toString().replace(/%2C/gi, ','), state)}`;
  const fullUrl = `${new URL('index.html', base).href}${state ? `?${state}` : ''}`;
  const scriptUrl = new URL('attn-scale-demo.js', base).href;
  const title = `attnscale: ${panels.map((p) => titles[p] ?? p).join(', ')}`;
  const height = 40 + 560 * panels.length + (controls ? 240 : 0);

  const iframe = [
    `<iframe src="${escAttr(embedUrl)}" title="${escAttr(title)}"`,
    `  width="100%" height="${height}" loading="lazy" style="border:0"></iframe>`,
    '<script>',
    `  ${HEIGHT_LISTENER}`,
    '</script>',
  ].join('\n');

  const attrs = [['panel', panels.join(',')], ...changedAttributes(config, schema, limits)];
  if (controls && controls.length) attrs.push(['controls', controls.map(kebab).join(',')]);
  if (theme !== 'auto') attrs.push(['theme', theme]);
  // The element's children show until its first chart, and stay if its script cannot load: a
  // link to the same state on the full page.
  const component = [
    `<script type="module" src="${escAttr(scriptUrl)}"></script>`,
    `<attn-scale-demo ${attrs.map(([k, v]) => `${k}="${escAttr(v)}"`).join(' ')}>`,
    `  <a href="${escAttr(fullUrl)}">${FALLBACK_LINK_TEXT}</a>`,
    '</attn-scale-demo>',
  ].join('\n');

  return { embedUrl, fullUrl, scriptUrl, iframe, component };
}
