// Vite plugins of the offline single file (vite build --mode offline; see vite.config.js).
// The result is one HTML file with every script, style, font and both wasm builds inside, that
// works from file:// with no network:
//   - the page's entry becomes web/src/offline/main.js (the compute Worker inlined as a blob Worker);
//   - every import of web/src/engine/engine.js resolves to web/src/offline/engine.js, which gets the wasm
//     bytes from the page: the page holds the SIMD build only, gzip-compressed, base64 (≈ 48 % of
//     the raw wasm; a virtual module), inflates it and posts it to its Workers (web/src/offline/).
//     The scalar fallback stays out: it would add ≈ 90 KB, and the browsers without wasm SIMD
//     (Safari < 16.4, Chrome < 91, Firefox < 89) mostly lack DecompressionStream as well, so it
//     could not even be inflated there. The online page keeps the fallback;
//   - the Emscripten glue no longer names its .wasm file (nothing is fetched, nothing inlined twice);
//   - KaTeX's stylesheet keeps only the font faces the build-time-rendered math can use.
import { copyFileSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const ENGINE = here('../../web/src/engine/engine.js');
const OFFLINE_ENGINE = here('../../web/src/offline/engine.js');
const WORKER_CLIENT = here('../../web/src/compute/worker-client.js');
const MAIN_THREAD_WORKER = here('../../web/src/compute/main-thread-worker.js');
const NO_MAIN_THREAD = '\0attnscale-offline-no-main-thread';

let wasmB64 = null;
/** The SIMD wasm, gzip -9, base64 (computed once per build process). */
function simdWasmGzipBase64() {
  wasmB64 ??= gzipSync(readFileSync(`${GENERATED}attnscale-simd.wasm`), { level: 9 }).toString('base64');
  return wasmB64;
}
const GENERATED = here('../../web/generated/');
const WASM_MODULE = 'virtual:attnscale-offline-wasm';

/**
 * Plugins of the engine side (used by the page build and, with { worker: true }, by the inlined
 * Worker's build, which must not hold the wasm: the page sends it).
 */
export function offlineEnginePlugins({ worker = false } = {}) {
  return [
    {
      name: 'attnscale-offline-engine',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === WASM_MODULE) {
          if (worker)
            this.error(
              `offline build: the Worker imports ${WASM_MODULE} (${importer}); the page posts the wasm to it`,
            );
          return `\0${WASM_MODULE}`;
        }
        if (!importer || importer.startsWith('\0')) return null;
        const clean = importer.split('?')[0];
        // The folder build's Worker URL is never used here (install-worker.js supplies the Worker).
        if (clean === WORKER_CLIENT && source === './worker.js?worker&url')
          return '\0attnscale-no-worker-url';
        const target = resolve(dirname(clean), source);
        if (clean !== OFFLINE_ENGINE && target === ENGINE) return OFFLINE_ENGINE;
        // The main-thread fallback would bundle the engine (and its wasm) a second time, next to
        // the inlined Worker's copy: here it only says why nothing can run.
        if (target === MAIN_THREAD_WORKER) return NO_MAIN_THREAD;
        return null;
      },
      load(id) {
        if (id === '\0attnscale-no-worker-url') return 'export default "";';
        if (id === NO_MAIN_THREAD) {
          return `export function createMainThreadWorker({ reason } = {}) {
  const { port1, port2 } = new MessageChannel();
  port2.postMessage({ type: 'fatal', message: reason || 'this browser could not start a Worker, which the offline file needs; the online page can run without one' });
  port1.start();
  return port1;
}`;
        }
        // engine.js still names the scalar glue (in its createEngine, unused here): a stub, so that
        // neither that glue nor its wasm end up in the file.
        if (/[\\/]web[\\/]generated[\\/]attnscale-scalar\.mjs$/.test(id)) {
          return 'export default function () { throw new Error("the offline file has no scalar build"); }';
        }
        if (id !== `\0${WASM_MODULE}`) return null;
        const gz = simdWasmGzipBase64();
        return `export const wasmGzipBase64 = ${JSON.stringify(gz)};`;
      },
      transform(code, id) {
        const m = /[\\/]web[\\/]generated[\\/]attnscale-(simd)\.mjs$/.exec(id);
        if (!m) return null;
        // The wasm comes as wasmBinary: keep the glue from referencing (and Vite from inlining) the file.
        const urlExpr = `new URL("attnscale-${m[1]}.wasm",import.meta.url).toString()`;
        if (!code.includes(urlExpr)) this.error(`the Emscripten glue changed: ${urlExpr} not found in ${id}`);
        return {
          code: code.replace(urlExpr, `"attnscale-${m[1]}.wasm"`).replaceAll('import.meta.url', 'undefined'),
          map: null,
        };
      },
    },
  ];
}

/** The page build's plugins: swap the entry, prune KaTeX font faces. */
export function offlinePagePlugins() {
  return [
    {
      name: 'attnscale-offline-entry',
      transformIndexHtml: {
        order: 'pre',
        handler(html) {
          const from = 'src="./src/page/main.js"';
          if (!html.includes(from)) throw new Error(`offline build: ${from} not found in index.html`);
          // The favicon too (a file next to the page would not travel with it).
          const icon = `data:image/svg+xml,${encodeURIComponent(readFileSync(here('../../web/src/favicon.svg'), 'utf8').trim())}`;
          return html
            .replace(from, 'src="./src/offline/main.js"')
            .replace('href="./src/favicon.svg"', `href="${icon}"`);
        },
      },
    },
    {
      name: 'attnscale-offline-katex-fonts',
      // 'post': after Vite has emitted the page and its stylesheet, before the single-file plugin
      // (enforce: 'post', later in the list) inlines them.
      generateBundle: {
        order: 'post',
        handler(_, bundle) {
          const html = Object.values(bundle).find((f) => f.fileName.endsWith('.html'));
          if (!html) return;
          const classes = new Set();
          for (const m of String(html.source).matchAll(/class="([^"]*)"/g))
            for (const c of m[1].split(/\s+/)) classes.add(c);
          for (const css of Object.values(bundle).filter((f) => f.fileName.endsWith('.css'))) {
            css.source = pruneKatexFonts(String(css.source), classes);
          }
          // The wasm must be in the file exactly once (a second engine bundle would double the size).
          const probe = simdWasmGzipBase64().slice(0, 120);
          const copies = Object.values(bundle)
            .filter((f) => f.type === 'chunk')
            .reduce((n, c) => n + c.code.split(probe).length - 1, 0);
          if (copies !== 1) this.error(`offline build: the wasm is inlined ${copies} times (expected once)`);
        },
      },
    },
  ];
}

/**
 * Drops every KaTeX @font-face whose face (family, weight, style) no rule that matches the rendered
 * math's classes can select. KaTeX_Main regular is always kept (.katex's own font).
 */
export function pruneKatexFonts(css, classes) {
  const face = (family, decl) =>
    `${family}|${/font-weight:\s*(700|bold)/.test(decl) ? 700 : 400}|${/font-style:\s*italic/.test(decl) ? 'italic' : 'normal'}`;
  const used = new Set(['KaTeX_Main|400|normal']);
  if (classes.has('textbf')) used.add('KaTeX_Main|700|normal');
  const rules = css.replace(/@font-face\{[^}]*\}/g, '');
  for (const m of rules.matchAll(/([^{}]+)\{([^{}]*font-family:\s*(KaTeX_[A-Za-z0-9]+)[^{}]*)\}/g)) {
    const [, selectors, decl, family] = m;
    for (const sel of selectors.split(',')) {
      const needed = [...sel.matchAll(/\.([A-Za-z0-9_-]+)/g)].map((x) => x[1]).filter((c) => c !== 'katex');
      if (needed.every((c) => classes.has(c))) used.add(face(family, decl));
    }
  }
  return css.replace(/@font-face\{[^}]*\}/g, (block) => {
    const fam = /font-family:\s*(KaTeX_[A-Za-z0-9]+)/.exec(block);
    if (!fam) return block;
    return used.has(face(fam[1], block)) ? block : '';
  });
}

/**
 * In the folder build: once dist/ is written, run the offline build too and copy its file to
 * dist/attnscale-offline.html, so that a plain `vite build` always yields both (≈ 1 s more).
 */
export function offlineAfterFolderBuild({ configFile, outFile }) {
  return {
    name: 'attnscale-offline-after-folder-build',
    apply: 'build',
    async closeBundle() {
      const { build } = await import('vite');
      await build({ configFile, mode: 'offline', logLevel: 'warn' });
      copyFileSync(here('../../build/offline/index.html'), outFile);
    },
  };
}
