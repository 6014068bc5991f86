// `npm run bench:vitals`: Lighthouse on the built page as a static host serves it (nginx, gzip,
// a 10-minute cache, under a sub-path), in four places: the page, embed.html with two charts, and
// an author's post with the Embed dialog's component snippet, and with its iframe snippet. Mobile
// and desktop presets, N runs each (alternated place by place, and build by build with --before),
// medians printed as a Markdown table.
//
//   node build-scripts/lib/vitals/bench-vitals.mjs [--runs 3] [--presets mobile,desktop]
//     [--only page,embed,component,iframe] [--dist dist] [--before DIR] [--json FILE] [--reports DIR]
import { parseArgs } from 'node:util';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNginx } from './nginx.mjs';
import { writePosts, POST_PANELS } from './posts.mjs';
import { lighthouse } from './lighthouse.mjs';
import { median } from '../measure/stats.mjs';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    presets: { type: 'string', default: 'mobile,desktop' },
    only: { type: 'string', default: 'page,embed,component,iframe' },
    dist: { type: 'string', default: join(root, 'dist') },
    before: { type: 'string' },
    json: { type: 'string' },
    reports: { type: 'string' },
  },
});

const PLACES = {
  page: { label: 'the page', path: (b) => `${b}/index.html` },
  embed: {
    label: `embed.html?panel=${POST_PANELS.join(',')}`,
    path: (b) => `${b}/embed.html?panel=${POST_PANELS.join(',')}`,
  },
  component: { label: 'post with the component', path: (b) => `${b}-posts/component.html` },
  iframe: { label: 'post with the iframe', path: (b) => `${b}-posts/iframe.html` },
};

const builds = { after: resolve(opts.dist) };
if (opts.before) builds.before = resolve(opts.before);
const runs = Number(opts.runs);
const presets = opts.presets.split(',');
const places = opts.only.split(',');
for (const p of places) if (!PLACES[p]) throw new RangeError(`--only: unknown place ${p}`);

// Each build under its own sub-path, its posts beside it (same origin, as a blog and its assets).
const postsDir = mkdtempSync(join(tmpdir(), 'attnscale-posts-'));
const roots = {};
for (const [name, dir] of Object.entries(builds)) roots[`site-${name}`] = dir;
for (const name of Object.keys(builds)) {
  mkdirSync(join(postsDir, name));
  roots[`site-${name}-posts`] = join(postsDir, name);
}
const server = await startNginx(roots);
// the posts need the server's origin, so they are written after it started, into its copy
for (const name of Object.keys(builds))
  await writePosts(join(server.dir, 'www', `site-${name}-posts`), server.url(`site-${name}`));

const results = []; // { build, place, preset, run, ...figures }
const started = Date.now();
try {
  for (let run = 0; run < runs; run++)
    for (const preset of presets)
      for (const place of places)
        for (const build of Object.keys(builds)) {
          const url = PLACES[place].path(`${server.origin}/site-${build}`);
          const keepReport = opts.reports
            ? (text) => {
                mkdirSync(opts.reports, { recursive: true });
                writeFileSync(join(opts.reports, `${build}-${place}-${preset}-${run + 1}.json`), text);
              }
            : undefined;
          const f = await lighthouse(url, preset, { keepReport });
          results.push({ build, place, preset, run, ...f });
          process.stderr.write(
            `[vitals] ${build} ${place} ${preset} run ${run + 1}: perf ${f.performance}, TBT ${Math.round(f.tbt)} ms, ` +
              `CLS ${f.cls.toFixed(3)}, DOM ${f.dom} (${Math.round((Date.now() - started) / 1000)} s)\n`,
          );
        }
} finally {
  await server.close();
}

const s1 = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rows = [];
const failing = new Set();
for (const place of places)
  for (const preset of presets)
    for (const build of Object.keys(builds)) {
      const rs = results.filter((r) => r.place === place && r.preset === preset && r.build === build);
      const m = (k) => median(rs.map((r) => r[k]));
      for (const r of rs)
        for (const [cat, ids] of Object.entries(r.failing))
          for (const id of ids) failing.add(`${build} ${place} ${preset}: ${cat} ${id}`);
      rows.push(
        `| ${PLACES[place].label} | ${preset} |${opts.before ? ` ${build} |` : ''} ${m('performance')} | ${s1(m('fcp'))} | ${s1(m('lcp'))} | ` +
          `${Math.round(m('tbt'))} ms | ${m('cls').toFixed(3)} | ${Math.round(m('dom')).toLocaleString('en-US')} | ` +
          `${m('accessibility')} / ${m('bestPractices')} / ${m('seo')} |`,
      );
    }
const head = `| place | preset |${opts.before ? ' build |' : ''} performance | FCP | LCP | TBT | CLS | DOM elements | a11y / best practices / SEO |`;
const rule = `|---|---|${opts.before ? '---|' : ''}---:|---:|---:|---:|---:|---:|---:|`;
console.log(`Medians of ${runs} Lighthouse 12 runs each\n\n${head}\n${rule}\n${rows.join('\n')}`);
if (failing.size)
  console.log(`\nAudits below 100 in some run:\n${[...failing].map((l) => `- ${l}`).join('\n')}`);
if (opts.json) writeFileSync(opts.json, JSON.stringify(results, null, 1));
