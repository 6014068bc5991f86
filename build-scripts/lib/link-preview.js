// Link previews: the Open Graph and Twitter card tags of index.html and embed.html, so that a link
// shared in a chat or a feed shows a card (title, description, the chart in preview-card.png, which
// `node build-scripts/readme-screenshot.mjs --card` makes from the real page into web/public/).
//
// Crawlers want absolute URLs, which a build with relative paths does not know: given its public
// URL (ATTNSCALE_PUBLIC_URL, the folder that holds index.html, ending in "/"), the build writes an
// absolute og:image and og:url; without it, og:url is left out and og:image is relative to the page.
// The offline single file travels alone, without the image beside it: it names the image only by
// its absolute URL on the public site, and otherwise carries the text tags alone.
import { basename } from 'node:path';

export const PUBLIC_URL_VARIABLE = 'ATTNSCALE_PUBLIC_URL';
export const CARD = Object.freeze({ file: 'preview-card.png', width: 1200, height: 630 });
const OFFLINE_FILE = 'attnscale-offline.html';
const CARD_ALT =
  'The logit-spread chart at d_k = 128: the raw q·k logits lie wide (σ ≈ 11.3), the logits scaled by 1/√d_k stay narrow (σ ≈ 1).';

/** The card's text per page; `path` is the page's place under the public URL. */
const PAGES = {
  'index.html': {
    path: '',
    title: 'Why attention divides by √d_k',
    description:
      'Drag d_k and watch the logits spread, the softmax saturate and the gradients vanish without the 1/√d_k scale. ' +
      'Every curve is measured live in your browser by a SIMD C++ attention engine compiled to WebAssembly.',
  },
  'embed.html': {
    path: 'embed.html',
    title: 'attnscale: why attention divides by √d_k, live',
    description:
      'An interactive chart of transformer attention with and without the 1/√d_k scale, computed in your browser ' +
      'by a SIMD C++ engine compiled to WebAssembly.',
  },
};

const escAttr = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The public URL from the environment's value: null when unset or empty, else the absolute http(s)
 * URL of a folder (ending in "/"). Anything else is an error that names the variable.
 */
export function parsePublicUrl(value) {
  if (value === undefined || value === null || String(value).trim() === '') return null;
  let url = null;
  try {
    url = new URL(String(value).trim());
  } catch {
    /* not a URL: the error below */
  }
  if (
    !url ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.search ||
    url.hash ||
    url.username ||
    !url.pathname.endsWith('/')
  ) {
    throw new Error(
      `${PUBLIC_URL_VARIABLE} must be an absolute http(s) URL of the folder that holds index.html, ending in "/" ` +
        `(for example https://example.org/attnscale/), without a query or a hash; got ${JSON.stringify(String(value))}`,
    );
  }
  return url.href;
}

/**
 * The meta tags of one page ('index.html' or 'embed.html'), one per line.
 * publicUrl: null or a URL from parsePublicUrl; offline: the tags of the offline single file.
 */
export function previewTags(page, { publicUrl = null, offline = false } = {}) {
  const text = PAGES[page];
  if (!text)
    throw new Error(`link previews: no card text for ${page} (known: ${Object.keys(PAGES).join(', ')})`);
  const pageUrl = publicUrl && new URL(offline ? OFFLINE_FILE : text.path, publicUrl).href;
  const image = publicUrl ? new URL(CARD.file, publicUrl).href : offline ? null : `./${CARD.file}`;
  const tags = [
    ['property', 'og:type', 'website'],
    ['property', 'og:site_name', 'attnscale'],
    ['property', 'og:title', text.title],
    ['property', 'og:description', text.description],
    pageUrl && ['property', 'og:url', pageUrl],
    image && ['property', 'og:image', image],
    image && ['property', 'og:image:type', 'image/png'],
    image && ['property', 'og:image:width', String(CARD.width)],
    image && ['property', 'og:image:height', String(CARD.height)],
    image && ['property', 'og:image:alt', CARD_ALT],
    // A large-image card needs an image; without one, the small card.
    ['name', 'twitter:card', image ? 'summary_large_image' : 'summary'],
    ['name', 'twitter:title', text.title],
    ['name', 'twitter:description', text.description],
    image && ['name', 'twitter:image', image],
    image && ['name', 'twitter:image:alt', CARD_ALT],
  ].filter(Boolean);
  return tags.map(([key, name, value]) => `<meta ${key}="${name}" content="${escAttr(value)}">`).join('\n');
}

/** The page's HTML with its preview tags at the end of <head>. */
export function addPreviewTags(html, page, options) {
  if (!html.includes('</head>')) throw new Error(`link previews: ${page} has no </head>`);
  const tags = previewTags(page, options).replace(/\n/g, '\n  ');
  return html.replace('</head>', `  ${tags}\n</head>`);
}

/**
 * The Vite plugin: every built page gets its tags. 'post', after Vite has rewritten the page's own
 * asset URLs, so that it leaves these alone.
 */
export function linkPreview({ publicUrl = process.env[PUBLIC_URL_VARIABLE], offline = false } = {}) {
  const url = parsePublicUrl(publicUrl);
  return {
    name: 'attnscale-link-preview',
    transformIndexHtml: {
      order: 'post',
      handler: (html, ctx) =>
        addPreviewTags(html, basename(ctx.filename ?? ctx.path), { publicUrl: url, offline }),
    },
  };
}
