// A tiny static server for dist/ on 127.0.0.1 (random free port), for the e2e tests and the
// budgets script. Behaves like an ordinary static host: gzip when the client accepts it, hashed
// assets cacheable, ETag revalidation. Every response is logged with the bytes actually sent,
// so a script can sum what the page transferred.
// Run alone: `node tests/e2e/support/serve-dist.js [dir] [port]` prints the URL.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.svg']);

export const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/**
 * startServer({ root = dist/, port = 0, headers = {}, prefix = '/' }) → { url, log, close() }.
 * `prefix` serves `root` under a sub-path (e.g. '/some/deep/path/', as a project site on GitHub
 * Pages); anything outside it is a 404, and `url` ends with it.
 */
export async function startServer({
  root = join(repoRoot, 'dist'),
  port = 0,
  headers = {},
  prefix = '/',
} = {}) {
  const base = resolve(root);
  if (!prefix.startsWith('/') || !prefix.endsWith('/'))
    throw new Error(`prefix must start and end with '/', got ${prefix}`);
  const log = [];
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      let rel = decodeURIComponent(url.pathname);
      if (!rel.startsWith(prefix)) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        log.push({ path: rel, status: 404, bytes: 9, raw: 9 });
        return;
      }
      rel = rel.slice(prefix.length - 1);
      if (rel.endsWith('/')) rel += 'index.html';
      const file = normalize(join(base, rel));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      const st = await stat(file).catch(() => null);
      if (!st || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        log.push({ path: rel, status: 404, bytes: 9, raw: 9 });
        return;
      }
      // Caching as a static host does it: content-hashed files under assets/ are immutable;
      // everything else is revalidated (ETag → 304 Not Modified).
      const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const immutable = /\/assets\/[^/]+-[A-Za-z0-9_-]{8}\.[a-z0-9]+$/.test(rel);
      const cache = immutable ? 'public, max-age=31536000, immutable' : 'no-cache';
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag, 'cache-control': cache, ...headers }).end();
        log.push({ path: rel, status: 304, bytes: 0, raw: 0 });
        return;
      }
      let body = await readFile(file);
      const raw = body.length;
      const ext = extname(file);
      const h = {
        'content-type': TYPES[ext] ?? 'application/octet-stream',
        'cache-control': cache,
        etag,
        ...headers,
      };
      if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        body = gzipSync(body, { level: 9 });
        h['content-encoding'] = 'gzip';
      }
      h['content-length'] = body.length;
      res.writeHead(200, h).end(req.method === 'HEAD' ? undefined : body);
      log.push({ path: rel, status: 200, bytes: body.length, raw, type: h['content-type'] });
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise((ok) => {
    server.listen(port, '127.0.0.1', ok);
  });
  const { port: p } = server.address();
  return {
    url: `http://127.0.0.1:${p}${prefix}`,
    log,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const s = await startServer({
    root: process.argv[2] ?? join(repoRoot, 'dist'),
    port: Number(process.argv[3] ?? 0),
  });
  console.log(`serving ${process.argv[2] ?? 'dist/'} at ${s.url}`);
}
