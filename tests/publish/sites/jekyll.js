// A Jekyll site (Debian's jekyll, kramdown) whose posts use the shipped include
// web/integrations/jekyll/_includes/attnscale.html.
import { join } from 'node:path';
import { jekyllInclude } from '../../../web/src/embed/embed-snippets.js';
import { POST_TITLE, copyIntegration, layout, run, writeFiles } from './common.js';

export const name = 'jekyll';

/** The include as the page's Embed dialog writes it (double-quoted values, \" for a quote). */
export const call = (attrs) => jekyllInclude(Object.entries(attrs));

/** build(root, base, { post: markdown }) → { out, path(post) }; rejects with Jekyll's errors. */
export async function build(root, base, posts) {
  const src = join(root, 'src');
  await copyIntegration('jekyll/_includes/attnscale.html', src, '_includes/attnscale.html');
  await writeFiles(src, {
    '_config.yml': `title: A blog\n${base ? `attnscale:\n  base: "${base}"\n` : ''}`,
    '_layouts/default.html': layout('{{ page.title }}', '{{ content }}'),
    // Posts need a date in their file name; the permalink keeps the address short.
    ...Object.fromEntries(
      Object.entries(posts).map(([post, body]) => [
        `_posts/1999-12-31-${post}.md`,
        `---\nlayout: default\ntitle: "${POST_TITLE}"\npermalink: /posts/${post}/\n---\n${body}\n`,
      ]),
    ),
  });
  const out = join(root, '_site');
  await run('jekyll', ['build', '--quiet', '--source', src, '--destination', out]);
  return { out, path: (post) => `posts/${post}/` };
}
