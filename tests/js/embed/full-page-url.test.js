// The web component's "Open in attnscale" link target (web/src/embed/full-page-url.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fullPageUrl, HOSTED_PAGE } from '../../../web/src/embed/full-page-url.js';

const HOST = 'https://blog.example/posts/a.html';

test('full page: beside the script on our own host or a copy of dist/', () => {
  assert.equal(
    fullPageUrl(null, 'https://attnscale.example/dist/attn-scale-demo.js', HOST),
    'https://attnscale.example/dist/index.html',
  );
  assert.equal(
    fullPageUrl('', 'http://127.0.0.1:8080/attn-scale-demo.js', HOST),
    'http://127.0.0.1:8080/index.html',
  );
});

test('full page: the hosted site when the script comes from an npm CDN', () => {
  for (const cdn of [
    'https://cdn.jsdelivr.net/npm/attnscale@0.1.0/dist/attn-scale-demo.js',
    'https://unpkg.com/attnscale@0.1.0/dist/attn-scale-demo.js',
  ]) {
    assert.equal(fullPageUrl(null, cdn, HOST), HOSTED_PAGE, cdn);
  }
});

test('full page: the page attribute, http(s) only, resolved against the host page', () => {
  const script = 'https://cdn.jsdelivr.net/npm/attnscale@0.1.0/dist/attn-scale-demo.js';
  assert.equal(
    fullPageUrl('https://mirror.example/attnscale/?dk=4#x', script, HOST),
    'https://mirror.example/attnscale/',
  );
  assert.equal(fullPageUrl('/demo/', script, HOST), 'https://blog.example/demo/');
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'http://[bad', 'file:///etc/passwd']) {
    assert.equal(fullPageUrl(bad, script, HOST), HOSTED_PAGE, bad);
  }
});
