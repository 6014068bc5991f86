// The copy-paste snippets of the Embed dialog, for a given state: an <iframe> of embed.html (plus
// the one-line auto-height listener), the <attn-scale-demo> web component, the same element bare
// (VitePress, MDX), as a Hugo shortcode and a Jekyll include (web/integrations/), and a Markdown
// image that links to the full page. Pure: no DOM (so Node tests load it). Each element snippet
// reserves the room its charts will take (embed-height.js).
import { serializeChanged, changedFields } from '../state/state.js';
import { elementCss, frameCss } from './embed-height.js';
import { kebab } from './attribute-names.js';

export { kebab };

/** The message embed.html posts to its parent whenever its content height changes. */
export const HEIGHT_MESSAGE = 'attnscale:height';

/** The host page's listener: sizes whichever iframe sent the message. One line, no dependencies. */
const HEIGHT_LISTENER = `addEventListener('message', (e) => { if (e.data?.type === '${HEIGHT_MESSAGE}') for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px'; });`;

/** The text of the link inside the component snippet (shown when the element cannot draw). */
const FALLBACK_LINK_TEXT = 'Open the attnscale demo';

const escAttr = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Config fields that differ from the defaults, as [attribute, value] pairs (schema order). */
export function changedAttributes(config, schema, limits) {
  return changedFields(config, schema, limits).map(([name, v]) => [kebab(name), String(v)]);
}

const joinQuery = (...parts) => parts.filter(Boolean).join('&');

/**
 * name="value" for a Hugo shortcode or a Jekyll include: both read \" inside a double-quoted value
 * as a quote, and neither reads \\ back as one backslash, so a backslash cannot be written at all.
 */
function quotedParam(syntax, name, value) {
  const v = String(value);
  if (!/^[a-z][a-z-]*$/.test(name))
    throw new RangeError(`${syntax}: parameter name ${JSON.stringify(name)} is not kebab-case`);
  if (v.includes('\\'))
    throw new RangeError(`${syntax}: ${name} cannot hold a backslash, got ${JSON.stringify(v)}`);
  return `${name}="${v.replace(/"/g, '\\"')}"`;
}

/**
 * The element's inline style that gives it, before its script runs, the height its panels will
 * take at the width it is given (`height`: a CSS length, embed-height.js). The component keeps
 * that room once it runs (attn-scale-demo.js), so the text below it never moves.
 */
const reserveStyle = (height) =>
  `display:block;--attnscale-height:${height};padding-bottom:var(--attnscale-height)`;

/** {{< attnscale panel="…" dk="…" >}}: the shortcode of web/integrations/hugo/. attrs: [name, value] pairs. */
export const hugoShortcode = (attrs) =>
  `{{< attnscale ${attrs.map(([k, v]) => quotedParam('Hugo', k, v)).join(' ')} >}}`;

/** {% include attnscale.html panel="…" dk="…" %}: the include of web/integrations/jekyll/. */
export const jekyllInclude = (attrs) =>
  `{% include attnscale.html ${attrs.map(([k, v]) => quotedParam('Jekyll', k, v)).join(' ')} %}`;

/** Markdown link text: a backslash or a bracket would end or bend the link, so each is escaped. */
const mdText = (s) => String(s).replace(/[\\[\]]/g, (c) => `\\${c}`);
/** A Markdown link destination: parentheses, spaces and angle brackets percent-encoded. */
const MD_URL_CHARS = { '(': '%28', ')': '%29', ' ': '%20', '<': '%3C', '>': '%3E' };
const mdUrl = (u) => String(u).replace(/[() <>]/g, (c) => MD_URL_CHARS[c]);

/**
 * For pages that run no script: per panel, the picture that the chart's button downloads
 * (attnscale-<panel>.gif, uploaded beside the post), linked to the full page in this state.
 * pictures: panel → 'gif' (the default) or 'svg', for a chart that has no GIF button.
 */
export const markdownImages = ({ panels, titles = {}, fullUrl, pictures = {} }) =>
  panels
    .map((p) => {
      const ext = pictures[p] === 'svg' ? 'svg' : 'gif';
      return `[![attnscale: ${mdText(titles[p] ?? p)}](attnscale-${p}.${ext})](${mdUrl(fullUrl)})`;
    })
    .join('\n\n');

/**
 * embedSnippets({ config, schema, limits, panels, controls, theme, base, titles, panelQuery, attributes, pictures }) →
 *   { embedUrl, fullUrl, scriptUrl, attrs, height, iframe, component, element, hugo, jekyll, markdown }
 * base: the URL of the folder that holds index.html, embed.html and attn-scale-demo.js.
 * panels: names; controls: null or field names; theme: 'auto' | 'light' | 'dark'.
 * panelQuery: the chosen panels' own URL settings (the training panel's), already a query: the
 * iframe only. attributes: [name, value] pairs that both take (the drill's quiz and question), in
 * the iframe's query and on the element.
 * pictures: which picture each panel downloads, for the Markdown image (see markdownImages).
 * Every snippet names only the fields that differ from their defaults: the embed fills in the rest.
 * attrs: the element's attributes as [name, value] pairs, which the shortcode and the include share,
 * with `height`: the room the element takes before its script runs, as a CSS length of its width.
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
  attributes = [],
  pictures = {},
}) {
  const shared = new URLSearchParams(attributes).toString().replace(/%2C/gi, ',');
  const state = joinQuery(serializeChanged(config, schema, limits), panelQuery, shared);
  const q = new URLSearchParams();
  q.set('panel', panels.join(','));
  if (controls && controls.length) q.set('controls', controls.join(','));
  if (theme !== 'auto') q.set('theme', theme);
  // Commas are legal in a query: keep panel=spread,sigma readable.
  const embedUrl = `${new URL('embed.html', base).href}?${joinQuery(q.toString().replace(/%2C/gi, ','), state)}`;
  const fullUrl = `${new URL('index.html', base).href}${state ? `?${state}` : ''}`;
  const scriptUrl = new URL('attn-scale-demo.js', base).href;
  const title = `attnscale: ${panels.map((p) => titles[p] ?? p).join(', ')}`;
  // The frame's room at the reader's width, held by an empty box in the same grid cell: the frame
  // fills it until its content's height arrives (the listener), and the text below stays put.
  const iframe = [
    '<div style="display:grid">',
    `<div style="grid-area:1/1;padding-top:${frameCss(panels, controls)}"></div>`,
    `<iframe src="${escAttr(embedUrl)}" title="${escAttr(title)}"`,
    '  loading="lazy" style="grid-area:1/1;width:100%;height:100%;border:0"></iframe>',
    '</div>',
    '<script>',
    `  ${HEIGHT_LISTENER}`,
    '</script>',
  ].join('\n');

  const attrs = [['panel', panels.join(',')], ...changedAttributes(config, schema, limits), ...attributes];
  if (controls && controls.length) attrs.push(['controls', controls.map(kebab).join(',')]);
  if (theme !== 'auto') attrs.push(['theme', theme]);
  // The element's children show until its first chart, and stay if its script cannot load: a
  // link to the same state on the full page.
  const height = elementCss(panels, controls);
  const element = [
    `<attn-scale-demo ${attrs.map(([k, v]) => `${k}="${escAttr(v)}"`).join(' ')} style="${reserveStyle(height)}">`,
    `  <a href="${escAttr(fullUrl)}">${FALLBACK_LINK_TEXT}</a>`,
    '</attn-scale-demo>',
  ].join('\n');
  const component = `<script type="module" src="${escAttr(scriptUrl)}"></script>\n${element}`;

  return {
    embedUrl,
    fullUrl,
    scriptUrl,
    attrs,
    iframe,
    component,
    element,
    height,
    hugo: hugoShortcode([...attrs, ['height', height]]),
    jekyll: jekyllInclude([...attrs, ['height', height]]),
    markdown: markdownImages({ panels, titles, fullUrl, pictures }),
  };
}
