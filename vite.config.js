// Vite build of the static page: root web/, output dist/ at the repo root, relative asset paths
// (works under any sub-path), module Worker sharing chunks with the page.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import katex from 'katex';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// KaTeX at build time: <tex>…</tex> (inline) and <tex-block>…</tex-block> (display) in index.html
// become KaTeX HTML+MathML; no KaTeX JavaScript reaches the browser, only its stylesheet.
function decodeEntities(s) {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}
function katexAtBuild() {
  const render = (tex, displayMode) =>
    katex.renderToString(decodeEntities(tex.trim()), { displayMode, throwOnError: true, strict: 'error', output: 'htmlAndMathml' });
  // KaTeX sizes its boxes with style="…" attributes, which a strict CSP (style-src 'self', issue 5)
  // blocks. Each distinct style becomes a class in a generated stylesheet instead.
  let memo = { src: null, out: null };
  function renderPage(src) {
    if (memo.src === src) return memo.out;
    const styles = new Map(); // style text → class name derived from it (order-independent)
    const cls = (css) => {
      if (!styles.has(css)) styles.set(css, `ks-${createHash('sha1').update(css).digest('hex').slice(0, 8)}`);
      return styles.get(css);
    };
    const fix = (html) => html
      .replace(/ class="([^"]*)" style="([^"]*)"/g, (_, c, st) => ` class="${c} ${cls(st)}"`)
      .replace(/ style="([^"]*)"/g, (_, st) => ` class="${cls(st)}"`);
    const html = src
      .replace(/<tex-block>([\s\S]*?)<\/tex-block>/g, (_, t) => `<div class="math-display">${fix(render(t, true))}</div>`)
      .replace(/<tex>([\s\S]*?)<\/tex>/g, (_, t) => fix(render(t, false)));
    const css = [...styles].map(([st, c]) => `.katex .${c}{${st.split(';').filter(Boolean).map((d) => `${d} !important`).join(';')}}`).join('\n');
    memo = { src, out: { html, css } };
    return memo.out;
  }
  const VIRTUAL = 'virtual:attnscale-katex.css';
  return {
    name: 'attnscale-katex-at-build',
    transformIndexHtml: { order: 'pre', handler: (html) => renderPage(html).html },
    resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
    load: (id) => (id === `\0${VIRTUAL}` ? renderPage(readFileSync(here('./web/index.html'), 'utf8')).css : null),
  };
}

// Keep only the woff2 font sources in KaTeX's stylesheet: every browser we target reads woff2,
// and the .woff/.ttf copies would only add files to dist/ (and to the offline single file).
// enforce 'pre': must run before Vite's CSS plugin resolves the url()s.
function katexWoff2Only() {
  return {
    name: 'attnscale-katex-woff2-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/katex(\.min)?\.css($|\?)/.test(id)) return null;
      return code.replace(/,\s*url\([^)]*\.woff\)\s*format\(["']woff["']\)|,\s*url\([^)]*\.ttf\)\s*format\(["']truetype["']\)/g, '');
    },
  };
}

const plugins = [katexWoff2Only(), katexAtBuild()];

export default defineConfig({
  root: here('./web'),
  base: './',
  publicDir: false,
  plugins,
  worker: { format: 'es' },
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
