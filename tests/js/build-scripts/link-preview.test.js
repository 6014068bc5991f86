// Link previews (build-scripts/lib/link-preview.js): the Open Graph and Twitter tags of index.html
// and embed.html with and without the public URL, the offline file's, the variable's validation;
// the committed card is a PNG of 1200 × 630 within the README picture's budget; and the built
// dist/ carries the tags and the card (needs `npm run build`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  addPreviewTags,
  linkPreview,
  parsePublicUrl,
  CARD,
  PUBLIC_URL_VARIABLE,
} from '../../../build-scripts/lib/link-preview.js';

const root = (p) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const URL_ = 'https://example.org/attnscale/';
const PAGE =
  '<!doctype html>\n<html lang="en">\n<head>\n  <title>t</title>\n</head>\n<body></body>\n</html>\n';

/** Every <meta property|name="og:…|twitter:…" content="…"> of a page, as a Map (entities decoded). */
function previewMeta(html) {
  const m = new Map();
  for (const [, , key, value] of html.matchAll(
    /<meta (property|name)="((?:og|twitter):[^"]+)" content="([^"]*)">/g,
  )) {
    assert.ok(!m.has(key), `${key} appears twice`);
    m.set(
      key,
      value
        .replaceAll('&quot;', '"')
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&amp;', '&'),
    );
  }
  return m;
}
const REQUIRED = [
  'og:title',
  'og:description',
  'og:image',
  'og:type',
  'twitter:card',
  'twitter:title',
  'twitter:description',
  'twitter:image',
];

/** The plugin's handler on a page, as Vite calls it. */
const transform = (options, page = 'index.html', html = PAGE) =>
  linkPreview(options).transformIndexHtml.handler(html, { path: `/${page}`, filename: `/x/web/${page}` });

test('without a public URL: every tag, a relative image, no og:url', () => {
  for (const page of ['index.html', 'embed.html']) {
    const html = transform({ publicUrl: undefined }, page);
    const meta = previewMeta(html);
    for (const key of REQUIRED) assert.ok(meta.get(key), `${page}: ${key}`);
    assert.equal(meta.get('og:image'), `./${CARD.file}`);
    assert.equal(meta.get('twitter:image'), `./${CARD.file}`);
    assert.equal(meta.get('twitter:card'), 'summary_large_image');
    assert.equal(meta.get('og:type'), 'website');
    assert.equal(meta.get('og:image:width'), '1200');
    assert.equal(meta.get('og:image:height'), '630');
    assert.ok(!meta.has('og:url'), `${page} has no og:url`);
    assert.match(html, /<meta name="twitter:image:alt" content="[^"]+">\n<\/head>/, 'the tags end the head');
    assert.equal(meta.get('og:title'), meta.get('twitter:title'));
    assert.equal(meta.get('og:description'), meta.get('twitter:description'));
  }
  assert.notEqual(
    previewMeta(transform({}, 'index.html')).get('og:title'),
    previewMeta(transform({}, 'embed.html')).get('og:title'),
  );
});

test('with a public URL: og:url and the image are absolute', () => {
  const index = previewMeta(transform({ publicUrl: URL_ }, 'index.html'));
  assert.equal(index.get('og:url'), URL_);
  assert.equal(index.get('og:image'), `${URL_}${CARD.file}`);
  assert.equal(index.get('twitter:image'), `${URL_}${CARD.file}`);
  const embed = previewMeta(transform({ publicUrl: URL_ }, 'embed.html'));
  assert.equal(embed.get('og:url'), `${URL_}embed.html`);
  assert.equal(embed.get('og:image'), `${URL_}${CARD.file}`);
  // The site's root works too.
  assert.equal(
    previewMeta(transform({ publicUrl: 'http://localhost:8080/' })).get('og:url'),
    'http://localhost:8080/',
  );
});

test('the offline file: no relative image (it travels alone); the public one when the URL is known', () => {
  const alone = previewMeta(transform({ publicUrl: '', offline: true }));
  assert.ok(!alone.has('og:image') && !alone.has('twitter:image') && !alone.has('og:url'));
  assert.equal(alone.get('twitter:card'), 'summary', 'no large-image card without an image');
  assert.ok(alone.get('og:title') && alone.get('og:description'));
  const hosted = previewMeta(transform({ publicUrl: URL_, offline: true }));
  assert.equal(hosted.get('og:url'), `${URL_}attnscale-offline.html`);
  assert.equal(hosted.get('og:image'), `${URL_}${CARD.file}`);
  assert.equal(hosted.get('twitter:card'), 'summary_large_image');
});

test(`${PUBLIC_URL_VARIABLE}: unset or empty means none; anything but an absolute http(s) folder URL is an error naming it`, () => {
  for (const unset of [undefined, null, '', '  ']) assert.equal(parsePublicUrl(unset), null);
  assert.equal(parsePublicUrl('https://example.org/attnscale/'), URL_);
  assert.equal(parsePublicUrl('https://example.org'), 'https://example.org/');
  for (const bad of [
    'example.org/attnscale/',
    '/attnscale/',
    './',
    'ftp://example.org/',
    'javascript:alert(1)//',
    'https://example.org/attnscale',
    'https://example.org/index.html',
    'https://example.org/?x=1',
    'https://example.org/#top',
    'https://user:pw@example.org/',
  ]) {
    assert.throws(
      () => linkPreview({ publicUrl: bad }),
      (e) => e.message.startsWith(PUBLIC_URL_VARIABLE) && e.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});

test('one well-formed tag a line, closing the head; a page without a head is an error', () => {
  const html = addPreviewTags(PAGE, 'index.html', { publicUrl: 'https://example.org/a"b<c>/' });
  const lines = html.slice(html.indexOf('<meta'), html.indexOf('</head>')).trim().split('\n');
  assert.equal(lines.length, 15);
  for (const line of lines)
    assert.match(line.trim(), /^<meta (property|name)="[a-z:_]+" content="[^"<>]+">$/);
  assert.equal(previewMeta(html).get('og:url'), 'https://example.org/a%22b%3Cc%3E/');
  assert.throws(() => addPreviewTags('<p>no head</p>', 'index.html', {}), /no <\/head>/);
  assert.throws(() => addPreviewTags(PAGE, 'other.html', {}), /no card text for other\.html/);
});

/** Width and height of a PNG, from its signature and IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual(
    [...bytes.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    'PNG signature',
  );
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR', 'the first chunk is IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('the committed card is a PNG of 1200 × 630 px, at most 250 KB', () => {
  const png = readFileSync(root(`web/public/${CARD.file}`));
  assert.deepEqual(pngSize(png), { width: 1200, height: 630 });
  assert.ok(png.length <= 250 * 1024, `${png.length} bytes`);
});

test('the built dist/: both pages carry the tags, the card sits beside them, the offline file has no relative image', () => {
  const dist = (p) => root(`dist/${p}`);
  assert.ok(existsSync(dist('index.html')), 'dist/ is missing: run `npm run build` first');
  for (const page of ['index.html', 'embed.html']) {
    const meta = previewMeta(readFileSync(dist(page), 'utf8'));
    for (const key of REQUIRED) assert.ok(meta.get(key), `dist/${page}: ${key}`);
    assert.equal(meta.get('twitter:card'), 'summary_large_image');
    const image = meta.get('og:image');
    // Built with or without the public URL: the image is this card, relative or absolute.
    assert.ok(
      image === `./${CARD.file}` || /^https?:\/\/[^/]+\/(.*\/)?preview-card\.png$/.test(image),
      image,
    );
    assert.equal(
      meta.has('og:url'),
      !image.startsWith('./'),
      `dist/${page}: og:url only with the public URL`,
    );
  }
  assert.deepEqual(readFileSync(dist(CARD.file)), readFileSync(root(`web/public/${CARD.file}`)));
  const offline = previewMeta(readFileSync(dist('attnscale-offline.html'), 'utf8'));
  assert.ok(offline.get('og:title'));
  for (const key of ['og:image', 'twitter:image'])
    assert.ok(
      !offline.has(key) || /^https?:\/\//.test(offline.get(key)),
      `offline ${key}: ${offline.get(key)}`,
    );
});
