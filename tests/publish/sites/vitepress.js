// A VitePress site (from tests/publish/node_modules) set up with the shipped recipe
// web/integrations/vitepress/ (config.mjs and attnscale.mjs in .vitepress/); its posts hold the bare
// element, as Markdown allows HTML.
import { join } from 'node:path';
import { POST_TITLE, copyIntegration, linkNodeModules, rawElement, run, writeFiles } from './common.js';

export const name = 'vitepress';

export const call = (attrs, base) => rawElement(base, attrs);

/** build(root, base, { post: markdown }) → { out, path(post) }. */
export async function build(root, base, posts) {
  await linkNodeModules(root);
  for (const file of ['config.mjs', 'attnscale.mjs'])
    await copyIntegration(`vitepress/${file}`, root, `docs/.vitepress/${file}`);
  await writeFiles(root, {
    'docs/index.md': '# A blog\n',
    ...Object.fromEntries(
      Object.entries(posts).map(([post, body]) => [`docs/posts/${post}.md`, `# ${POST_TITLE}\n\n${body}\n`]),
    ),
  });
  const out = join(root, 'out');
  await run(join(root, 'node_modules', '.bin', 'vitepress'), ['build', 'docs', '--outDir', out], {
    cwd: root,
    env: { ATTNSCALE_BASE: base },
  });
  return { out, path: (post) => `posts/${post}.html` };
}
