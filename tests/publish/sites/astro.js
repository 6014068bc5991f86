// An Astro 5 site with MDX (from tests/publish/node_modules) whose .mdx posts use the shipped
// component web/integrations/astro/AttnScale.astro.
import { join } from 'node:path';
import { POST_TITLE, copyIntegration, layout, linkNodeModules, run, writeFiles } from './common.js';

export const name = 'astro';

/** The component in MDX; values as JS string expressions, so quotes in them stay as given. */
export const call = (attrs) =>
  `<AttnScale ${Object.entries(attrs)
    .map(([k, v]) => `${k}={${JSON.stringify(v)}}`)
    .join(' ')} />`;

/** build(root, base, { post: mdx }) → { out, path(post) }; rejects with Astro's errors. */
export async function build(root, base, posts) {
  await linkNodeModules(root);
  await copyIntegration('astro/AttnScale.astro', root, 'src/components/AttnScale.astro');
  await writeFiles(root, {
    'astro.config.mjs': [
      "import { defineConfig } from 'astro/config';",
      "import mdx from '@astrojs/mdx';",
      'export default defineConfig({ integrations: [mdx()] });',
      '',
    ].join('\n'),
    '.env': base ? `PUBLIC_ATTNSCALE_BASE=${base}\n` : '',
    'src/layouts/Post.astro': `---\nconst { frontmatter } = Astro.props;\n---\n${layout('{frontmatter.title}', '<slot />')}`,
    ...Object.fromEntries(
      Object.entries(posts).map(([post, body]) => [
        `src/pages/posts/${post}.mdx`,
        [
          '---',
          'layout: ../../layouts/Post.astro',
          `title: "${POST_TITLE}"`,
          '---',
          "import AttnScale from '../../components/AttnScale.astro';",
          '',
          body,
          '',
        ].join('\n'),
      ]),
    ),
  });
  await run(join(root, 'node_modules', '.bin', 'astro'), ['build'], {
    cwd: root,
    env: { ASTRO_TELEMETRY_DISABLED: '1' },
  });
  return { out: join(root, 'dist'), path: (post) => `posts/${post}/` };
}
