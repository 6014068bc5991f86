// An MkDocs site (Debian's mkdocs, its default theme): Markdown passes raw HTML through, so its
// posts hold the component snippet as pasted (module script, element, fallback link).
import { join } from 'node:path';
import { POST_TITLE, rawElement, run, writeFiles } from './common.js';

export const name = 'mkdocs';

export const call = (attrs, base) => rawElement(base, attrs);

/** build(root, base, { post: markdown }) → { out, path(post) }. */
export async function build(root, base, posts) {
  const script = `<script type="module" src="${base}attn-scale-demo.js"></script>`;
  await writeFiles(root, {
    // The theme's highlight.js comes from a CDN: off, as the test machine has no network.
    'mkdocs.yml': 'site_name: A blog\ntheme:\n  name: mkdocs\n  highlightjs: false\n',
    'docs/index.md': '# A blog\n',
    ...Object.fromEntries(
      Object.entries(posts).map(([post, body]) => [
        `docs/posts/${post}.md`,
        `# ${POST_TITLE}\n\n${script}\n${body}\n`,
      ]),
    ),
  });
  const out = join(root, 'site');
  await run('mkdocs', ['build', '--quiet', '--config-file', join(root, 'mkdocs.yml'), '--site-dir', out]);
  return { out, path: (post) => `posts/${post}/` };
}
