// Where the web component's "Open in attnscale" link goes (attn-scale-demo.js).

// The published site, for a script served from an npm CDN (which serves no page beside it).
export const HOSTED_PAGE = 'https://attnscale.github.io/attnscale/';

/**
 * The full page: the element's `page` attribute when it is an http(s) URL (resolved against the
 * host page, query and hash dropped); else dist/index.html beside the component's script, as on
 * our own host or a copy of dist/; except when the script comes from an npm CDN path
 * (…/attnscale@<version>/dist/…), where the hosted site is used.
 */
export function fullPageUrl(pageAttribute, moduleUrl, base) {
  if (pageAttribute) {
    try {
      const url = new URL(pageAttribute, base);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin + url.pathname;
    } catch {
      /* not a URL: the default below */
    }
  }
  const here = new URL(moduleUrl);
  if (/\/attnscale@[^/]+\/dist\//.test(here.pathname)) return HOSTED_PAGE;
  return new URL('./index.html', here).href;
}
