// Two posts as an author writes them: an ordinary article (h1, then h2 sections of paragraphs) with
// the Embed dialog's snippet near its top, once as the web component and once as the iframe. The
// snippets come from the dialog's own code (embed-snippets.js) at the page's default settings, with
// the dialog's default choices but two charts: the spread and σ, as embed.html?panel=spread,sigma.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../../web/src/engine/engine.js';
import { schemaDefaults, PAGE_LIMITS } from '../../../web/src/state/state.js';
import { embedSnippets } from '../../../web/src/embed/embed-snippets.js';

export const POST_PANELS = ['spread', 'sigma'];

const paragraph = (n) =>
  `<p>Paragraph ${n} of the post. Attention scores are dot products of queries and keys, and their spread ` +
  'grows with the width of those vectors. A reader scrolling past the chart above should find this ' +
  'text where it was when the page first painted, whether the chart has drawn yet or not.</p>';

function post({ title, snippet }) {
  const section = (h, from) => `<h2>${h}</h2>\n${[0, 1, 2].map((i) => paragraph(from + i)).join('\n')}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A blog post that embeds an attnscale chart near its top.">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>
  body { font: 18px/1.6 system-ui, sans-serif; max-width: 44rem; margin: 0 auto; padding: 1rem; color: #222; background: #fff; }
  h1 { font-size: 2rem; line-height: 1.2; }
</style>
</head>
<body>
<header><p><a href="./">A small blog</a></p></header>
<main>
<article>
<h1>${title}</h1>
<p>Why do transformers divide their attention scores by the square root of the key width? The chart below
is measured live in your browser.</p>
${snippet}
${paragraph(1)}
${section('What the chart shows', 2)}
${section('Why it matters in training', 5)}
${section('Further reading', 8)}
</article>
</main>
</body>
</html>
`;
}

/** Writes component.html and iframe.html into dir, with the snippets for the demo at base. */
export async function writePosts(dir, base) {
  const engine = await createEngine({ simd: true });
  const { schema } = engine;
  const s = embedSnippets({
    config: schemaDefaults(schema, PAGE_LIMITS),
    schema,
    limits: PAGE_LIMITS,
    panels: POST_PANELS,
    base,
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'component.html'),
    post({ title: 'Scaled attention, with a live chart', snippet: s.component }),
  );
  writeFileSync(
    join(dir, 'iframe.html'),
    post({ title: 'Scaled attention, with a framed chart', snippet: s.iframe }),
  );
}
