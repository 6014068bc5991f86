// Vite build of the static page: root web/, output dist/ at the repo root, relative asset paths
// (works under any sub-path), module Worker sharing chunks with the page.
// Entries: index.html (the page), embed.html (panels only, for iframes) and attn-scale-demo.js
// (the web component, kept at dist/attn-scale-demo.js so that its snippet URL is stable).
// Once dist/ is written, the same command builds the offline single file (`--mode offline`, see
// build-scripts/lib/vite-offline.js) into build/offline/ and copies it to dist/attnscale-offline.html.
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import {
  offlineEnginePlugins,
  offlinePagePlugins,
  offlineAfterFolderBuild,
} from './build-scripts/lib/vite-offline.js';
import { componentChunks } from './build-scripts/lib/component-chunks.js';
import { linkPreview } from './build-scripts/lib/link-preview.js';
import { staticPresets } from './build-scripts/lib/static-presets.js';
import { fileURLToPath } from 'node:url';
import katex from 'katex';
import { panelCss } from './web/src/embed/embed-height.js';
import { PANEL_HEIGHTS } from './web/src/embed/panel-heights.js';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// KaTeX at build time: <tex>…</tex> (inline) and <tex-block>…</tex-block> (display) in index.html
// become MathML, which every current browser lays out natively (MathML Core) in its own math font:
// no KaTeX JavaScript, stylesheet or web font reaches the browser. KaTeX's HTML output would add
// most of the page's elements and text that moves when its fonts arrive.
function decodeEntities(s) {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
function katexAtBuild() {
  const render = (tex, displayMode) =>
    katex.renderToString(decodeEntities(tex.trim()), {
      displayMode,
      throwOnError: true,
      strict: 'error',
      output: 'mathml',
    });
  // KaTeX sizes its boxes with style="…" attributes, which a strict CSP (style-src 'self')
  // blocks. Each distinct style becomes a class in a generated stylesheet instead.
  let memo = { src: null, out: null };
  function renderPage(src) {
    if (memo.src === src) return memo.out;
    const styles = new Map(); // style text → class name derived from it (order-independent)
    const cls = (css) => {
      if (!styles.has(css)) styles.set(css, `ks-${createHash('sha1').update(css).digest('hex').slice(0, 8)}`);
      return styles.get(css);
    };
    const fix = (html) =>
      html
        .replace(/ class="([^"]*)" style="([^"]*)"/g, (_, c, st) => ` class="${c} ${cls(st)}"`)
        .replace(/ style="([^"]*)"/g, (_, st) => ` class="${cls(st)}"`);
    const html = src
      .replace(
        /<tex-block>([\s\S]*?)<\/tex-block>/g,
        (_, t) => `<div class="math-display scroll-x">${fix(render(t, true))}</div>`,
      )
      .replace(/<tex>([\s\S]*?)<\/tex>/g, (_, t) => fix(render(t, false)));
    const css = [...styles]
      .map(
        ([st, c]) =>
          `.katex .${c}{${st
            .split(';')
            .filter(Boolean)
            .map((d) => `${d} !important`)
            .join(';')}}`,
      )
      .join('\n');
    memo = { src, out: { html, css } };
    return memo.out;
  }
  const VIRTUAL = 'virtual:attnscale-katex.css';
  return {
    name: 'attnscale-katex-at-build',
    transformIndexHtml: { order: 'pre', handler: (html) => renderPage(html).html },
    resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
    load: (id) =>
      id === `\0${VIRTUAL}` ? renderPage(readFileSync(here('./web/index.html'), 'utf8')).css : null,
  };
}

// Each chart panel's room on the page before its code has mounted it: the height it will take at
// its width (measured, web/src/embed/panel-heights.js), so the text below does not move when it
// arrives. A padding of a pseudo-element, as percentages of padding are of the width.
function panelRoom() {
  const VIRTUAL = 'virtual:attnscale-panel-room.css';
  return {
    name: 'attnscale-panel-room',
    resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
    load: (id) =>
      id === `\0${VIRTUAL}`
        ? Object.keys(PANEL_HEIGHTS)
            .map(
              (n) => `[data-panel="${n}"]:empty::before{content:"";display:block;padding-top:${panelCss(n)}}`,
            )
            .join('\n')
        : null,
  };
}

const plugins = [katexAtBuild(), panelRoom(), staticPresets()];

const component = componentChunks(here('./web/src/embed/attn-scale-demo.js'));

const folderBuild = {
  root: here('./web'),
  base: './',
  // Copied into dist/ as they are: the trained sample (samples/trained-sample.safetensors), which
  // build-scripts/lib/make-trained-sample.mjs writes there before this build, and the link-preview
  // card (preview-card.png, build-scripts/lib/link-preview.js).
  publicDir: here('./web/public'),
  plugins: [
    ...plugins,
    linkPreview(),
    component.plugin,
    offlineAfterFolderBuild({
      configFile: here('./vite.config.js'),
      outFile: here('./dist/attnscale-offline.html'),
    }),
  ],
  worker: { format: 'es' },
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    // Modulepreload links in the HTML only: chunks loaded later (a panel, the controls) must not
    // add <link> elements to a host page at run time.
    modulePreload: { resolveDependencies: (file, deps, { hostType }) => (hostType === 'html' ? deps : []) },
    rolldownOptions: {
      input: {
        index: here('./web/index.html'),
        embed: here('./web/embed.html'),
        'attn-scale-demo': here('./web/src/embed/attn-scale-demo.js'),
      },
      // A JS entry exports what it defines: keep the component module's exports.
      preserveEntrySignatures: 'exports-only',
      output: {
        // The component's chunks in assets/, the page's own in assets/page/ (component-chunks.js).
        entryFileNames: component.entryFileNames,
        chunkFileNames: component.chunkFileNames,
        // The charts' shared code in one chunk: the uPlot wrapper (with uPlot), the panel frame (its
        // PNG and CSV writers load on first click), the sweep's store and the weights' colours. Every panel needs most of it
        // and the app loads it first, so one file serves them all (and the package ships one). The
        // DOM helper and the number formats stay chunks of their own: the component's entry and the
        // controls import them without the charts.
        codeSplitting: {
          groups: [
            // Vite's helper for dynamic imports, which the component's entry needs too: a chunk of its
            // own, or a group that imports it (the charts, whose buttons load the exporters) takes it
            // in, and the component would load uPlot before it could report that the charts failed.
            { name: 'preload-helper', test: /vite[\\/]preload-helper/, priority: 3 },
            // The DOM helper and the notice box, which the component's entry and the app both use.
            { name: 'dom', test: /[\\/]web[\\/]src[\\/]ui[\\/](dom|notice)\.js$/, priority: 2 },
            { name: 'format', test: /[\\/]web[\\/]src[\\/]ui[\\/]format\.js$/, priority: 2 },
            // The panels' registry and their metas, which the app and each view import: one chunk.
            {
              name: 'panels',
              test: /[\\/]web[\\/]src[\\/]panels[\\/](index|[^\\/]+[\\/]meta)\.js$/,
              priority: 2,
            },
            {
              name: 'charts',
              test: /[\\/]web[\\/]src[\\/]charts[\\/](uplot-chart|uplot-locale|panel-frame|sweep-store|weight-colors)\.js$|[\\/]node_modules[\\/]uplot[\\/]/,
              priority: 1,
            },
          ],
        },
      },
    },
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
};

const offlineBuild = {
  root: here('./web'),
  base: './',
  publicDir: false,
  plugins: [
    ...plugins,
    linkPreview({ offline: true }),
    ...offlineEnginePlugins(),
    ...offlinePagePlugins(),
    viteSingleFile({ removeViteModuleLoader: true }),
  ],
  // One classic script for the inlined Worker (a blob Worker cannot load chunks).
  worker: { format: 'iife', plugins: () => offlineEnginePlugins({ worker: true }) },
  build: {
    outDir: here('./build/offline'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
};

export default defineConfig(({ mode }) => (mode === 'offline' ? offlineBuild : folderBuild));
