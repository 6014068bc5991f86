// The Embed dialog's routes, as data: where a reader's snippet goes, one block per route in the
// dialog (page/embed-dialog.js loops over them). Each route: id (the block's data-snippet), kind (its
// name in the copy button and the status), title, rows (of its textarea), snippet (the text, from
// embedSnippets' result), note (parts: text, { code }, { href, text }) and, for the site engines,
// config (the line that points them at this host). Pure: no DOM (Node tests load it).

const REPO = 'https://github.com/attnscale/attnscale/blob/main/';
/** Where authors publish: Hugo, Jekyll, VitePress, MDX, script-free platforms. */
export const PUBLISHING_DOC = `${REPO}docs/publishing.md`;

/** The charts' files on the CDN, pinned to a package version (what the shortcode and the include use by default). */
export const cdnBase = (version) => `https://cdn.jsdelivr.net/npm/attnscale@${version}/dist/`;

/** The host note of a site engine: where the charts come from, and how to point it at this host. */
const hostNote = (setting, file, { cdn }) => [
  'The charts’ files come from ',
  { code: setting },
  ` in ${file} (a URL ending in /), by default the CDN copy of this version (`,
  { code: cdn },
  '). To load them from where this page is served instead:',
];

/** A double-quoted string for TOML and YAML: JSON's escapes are valid in both. */
const quoted = (s) => JSON.stringify(String(s));

export const ROUTES = Object.freeze([
  {
    id: 'iframe',
    kind: 'iframe',
    title: 'As an iframe (any site, any CMS)',
    rows: 9,
    snippet: (s) => s.iframe,
    note: () => [
      'The script line sizes the frame to its content; a site that forbids inline scripts can drop it and keep the fixed height.',
    ],
  },
  {
    id: 'web component',
    kind: 'web component',
    title: 'As a web component (pages where you can add a script)',
    rows: 4,
    snippet: (s) => s.component,
    note: () => [
      'One module script and one element; several elements on a page share one engine. Change its attributes from your own code and it updates.',
    ],
  },
  {
    id: 'hugo',
    kind: 'Hugo',
    title: 'Hugo (a shortcode: works under the default Markdown settings)',
    rows: 2,
    snippet: (s) => s.hugo,
    note: (ctx) => [
      'Needs ',
      {
        href: `${REPO}web/integrations/hugo/layouts/shortcodes/attnscale.html`,
        text: 'the attnscale shortcode',
      },
      ' in your site’s layouts/shortcodes/; its parameters are the element’s attributes. ',
      ...hostNote('params.attnscale.base', 'the site’s configuration', ctx),
    ],
    config: ({ base }) => ({ file: 'hugo.toml', text: `[params.attnscale]\nbase = ${quoted(base)}` }),
  },
  {
    id: 'jekyll',
    kind: 'Jekyll',
    title: 'Jekyll (an include)',
    rows: 2,
    snippet: (s) => s.jekyll,
    note: (ctx) => [
      'Needs ',
      { href: `${REPO}web/integrations/jekyll/_includes/attnscale.html`, text: 'attnscale.html' },
      ' in your site’s _includes/. ',
      ...hostNote('attnscale.base', '_config.yml', ctx),
    ],
    config: ({ base }) => ({ file: '_config.yml', text: `attnscale: { base: ${quoted(base)} }` }),
  },
  {
    id: 'element',
    kind: 'VitePress / MDX',
    title: 'VitePress, Astro or another MDX engine (the element alone)',
    rows: 5,
    snippet: (s) => s.element,
    note: () => [
      'Load the script once for the whole site, not in the page; VitePress also needs to be told that the element is a custom element. The recipes: ',
      { href: `${PUBLISHING_DOC}#vitepress`, text: 'VitePress' },
      ', ',
      { href: `${PUBLISHING_DOC}#astro-and-other-mdx-engines`, text: 'Astro and other MDX engines' },
      '.',
    ],
  },
  {
    id: 'markdown',
    kind: 'Markdown',
    title: 'Markdown image and link (platforms that run no script)',
    rows: 4,
    snippet: (s) => s.markdown,
    note: () => [
      'Each chart’s GIF button downloads its picture (',
      { code: 'attnscale-<panel>.gif' },
      '; a chart that does not change with d_k has no GIF, and its SVG button gives ',
      { code: 'attnscale-<panel>.svg' },
      '): upload it beside your post, under that name. The picture links to this view on the full page, where it is live.',
    ],
  },
]);
