// attnscale's charts in VitePress: copy this file and config.mjs into your .vitepress/ folder (or
// merge the two keys of config.mjs into yours), then write the element in any Markdown page:
//
//   <attn-scale-demo panel="sigma" dk="256"></attn-scale-demo>
//
// Vue's compiler is told that the element is a custom element (else it warns and drops it), and the
// module script goes into every page's <head>, where only the browser runs it: VitePress takes a
// <script> written in Markdown as the page's own Vue script and fails the build on a URL.

/** The charts' files by default: the CDN copy of this package version. */
export const DEFAULT_BASE = 'https://cdn.jsdelivr.net/npm/attnscale@0.1.0/dist/';

export const TAG = 'attn-scale-demo';

/** For vue.template.compilerOptions.isCustomElement. */
export const isAttnscaleElement = (tag) => tag === TAG;

/** The <head> entry that loads the element; base: a URL ending in / that serves attnscale's dist/. */
export function attnscaleHead(base = DEFAULT_BASE) {
  if (typeof base !== 'string' || !/^https?:\/\/.+\/$/.test(base))
    throw new Error(`attnscale base must be an http(s) URL ending in /, got ${JSON.stringify(base)}`);
  return [['script', { type: 'module', src: `${base}attn-scale-demo.js` }]];
}
