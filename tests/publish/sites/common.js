// What every site of tests/publish/ shares: the posts' charts (as element attributes), the shipped
// integration files, a file writer and a build command runner.
import { execFile } from 'node:child_process';
import { cp, mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../e2e/support/serve-dist.js';

export const INTEGRATIONS = join(repoRoot, 'web', 'integrations');
/** tests/publish/node_modules: VitePress and Astro, installed by tests/publish/setup.sh. */
export const NODE_MODULES = join(repoRoot, 'tests', 'publish', 'node_modules');

export const POST_TITLE = 'Why attention divides by the square root of d_k';
export const POST_TEXT = 'Without the scale, the logits spread as √d_k and the softmax saturates.';

/** The two charts of every post: attributes of <attn-scale-demo>, in kebab-case. */
export const CHARTS = [
  { panel: 'spread,sigma', dk: '256', scale: 'none' },
  { panel: 'heatmap', dk: '16', 'seq-len': '128', causal: 'true' },
];

/** Values that try to leave their attribute (the integrations with parameters must escape them). */
export const HOSTILE = { panel: 'x" onmouseover="alert(1)', dk: '"><script>window.__pwned=1</script>' };

/** The fallback link the component snippet puts inside the element: the full page, same state. */
export function fullPageHref(base, attrs) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(attrs))
    if (!['panel', 'controls', 'theme', 'page', 'src'].includes(k))
      q.set(
        k.replace(/-([a-z])/g, (_, c) => c.toUpperCase()),
        v,
      );
  return `${base}index.html${q.size ? `?${q}` : ''}`;
}

const escAttr = (s) =>
  String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The element as an author pastes it into raw HTML (VitePress, MkDocs): attributes and fallback link. */
export const rawElement = (base, attrs) =>
  [
    `<attn-scale-demo ${Object.entries(attrs)
      .map(([k, v]) => `${k}="${escAttr(v)}"`)
      .join(' ')}>`,
    `  <a href="${escAttr(fullPageHref(base, attrs))}">Open the attnscale demo</a>`,
    '</attn-scale-demo>',
  ].join('\n');

/** writeFiles(root, { 'a/b.md': text }) */
export async function writeFiles(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  }
}

/** Copies a shipped integration file into a site, as its author would. */
export async function copyIntegration(rel, root, to) {
  await mkdir(dirname(join(root, to)), { recursive: true });
  await cp(join(INTEGRATIONS, rel), join(root, to));
}

/** A site's node_modules: a link to tests/publish/node_modules. */
export async function linkNodeModules(root) {
  await mkdir(root, { recursive: true });
  await symlink(NODE_MODULES, join(root, 'node_modules'), 'dir');
}

/**
 * run(cmd, args, { cwd, env }) → { stdout, stderr }; rejects with the command's output on failure
 * (err.output), so that a failed build says why.
 */
export function run(cmd, args, { cwd, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 180000 },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        err.output = `${stdout}\n${stderr}`;
        err.message = `${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${err.output.slice(-4000)}`;
        reject(err);
      },
    );
  });
}

/** A minimal page layout: the engines' own default themes are not what is tested. */
export const layout = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${title}</title>
<style>body { font: 16px/1.5 Georgia, serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem }</style>
</head><body><main><h1>${title}</h1>
${body}
</main></body></html>
`;
