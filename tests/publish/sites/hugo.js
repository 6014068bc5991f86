// A Hugo site (Debian's hugo, default configuration) whose posts call the shipped shortcode
// web/integrations/hugo/layouts/shortcodes/attnscale.html.
import { join } from 'node:path';
import { hugoShortcode } from '../../../web/src/embed/embed-snippets.js';
import { POST_TITLE, copyIntegration, layout, run, writeFiles } from './common.js';

export const name = 'hugo';

/** The shortcode as the page's Embed dialog writes it (double-quoted values, \" for a quote). */
export const call = (attrs) => hugoShortcode(Object.entries(attrs));

/** build(root, base, { post: markdown }) → { out, path(post) }; rejects with Hugo's errors. */
export async function build(root, base, posts) {
  await copyIntegration('hugo/layouts/shortcodes/attnscale.html', root, 'layouts/shortcodes/attnscale.html');
  const page = layout('{{ .Title }}', '{{ .Content }}');
  await writeFiles(root, {
    'hugo.toml': [
      'baseURL = "http://127.0.0.1/"',
      'title = "A blog"',
      'disableKinds = ["taxonomy", "term", "RSS", "sitemap"]',
      // No base: the shortcode's default, the CDN.
      ...(base ? ['[params.attnscale]', `base = "${base}"`] : []),
      '',
    ].join('\n'),
    'layouts/_default/single.html': page,
    'layouts/_default/list.html': page,
    ...Object.fromEntries(
      Object.entries(posts).map(([post, body]) => [
        `content/posts/${post}.md`,
        `---\ntitle: "${POST_TITLE}"\n---\n${body}\n`,
      ]),
    ),
  });
  const out = join(root, 'public');
  await run('hugo', ['--source', root, '--destination', out]);
  return { out, path: (post) => `posts/${post}/` };
}
