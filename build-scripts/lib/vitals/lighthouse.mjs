// One Lighthouse run (the npm package pinned in package.json) against Debian's chromium through
// CHROME_PATH: Lighthouse never downloads a browser. Returns the figures the vitals table shows.
import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const CLI = join(root, 'node_modules', 'lighthouse', 'cli', 'index.js');
export const CHROME = process.env.CHROME_PATH || '/usr/bin/chromium';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

/** The figures of one report: scores 0–100, times in ms, CLS, DOM elements, failing a11y audits. */
export function figures(report) {
  if (report.runtimeError)
    throw new Error(`Lighthouse: ${report.runtimeError.code} ${report.runtimeError.message}`);
  const a = report.audits;
  const score = (id) => {
    const s = report.categories[id]?.score;
    return s == null ? NaN : Math.round(s * 100);
  };
  const failing = (cat) =>
    report.categories[cat].auditRefs
      .filter((r) => r.weight > 0 && a[r.id]?.score !== null && a[r.id]?.score < 1)
      .map((r) => r.id);
  return {
    performance: score('performance'),
    fcp: a['first-contentful-paint'].numericValue,
    lcp: a['largest-contentful-paint'].numericValue,
    tbt: a['total-blocking-time'].numericValue,
    cls: a['cumulative-layout-shift'].numericValue,
    dom: a['dom-size']?.numericValue ?? NaN,
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    failing: Object.fromEntries(CATEGORIES.slice(1).map((c) => [c, failing(c)])),
    shifts: (a['layout-shifts']?.details?.items ?? []).map((i) => ({
      score: i.score,
      node: i.node?.selector ?? i.node?.snippet ?? '',
    })),
  };
}

/** Runs Lighthouse once: preset 'mobile' (its default profile) or 'desktop'. Resolves to figures(). */
export function lighthouse(url, preset, { keepReport } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'attnscale-lh-'));
  const out = join(dir, 'report.json');
  const args = [
    CLI,
    url,
    '--quiet',
    '--output=json',
    `--output-path=${out}`,
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync',
  ];
  if (preset === 'desktop') args.push('--preset=desktop');
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      args,
      { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 1 << 26 },
      (err, _stdout, stderr) => {
        try {
          if (err) throw new Error(`Lighthouse failed on ${url}: ${stderr || err.message}`);
          const text = readFileSync(out, 'utf8');
          if (keepReport) keepReport(text);
          resolvePromise(figures(JSON.parse(text)));
        } catch (e) {
          reject(e);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}
