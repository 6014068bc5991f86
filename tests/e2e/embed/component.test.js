// The <attn-scale-demo> web component in a hostile host page on another origin, in headless Debian
// chromium: two elements and an iframe render, isolated from the host's CSS both ways, follow live
// attribute changes, and the iframe is sized to the height it posts; bad attributes give a notice
// inside the element and leave the host page as it was. Needs a built dist/ (npm run build).
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitForDemos, test } from '../support/browser.js';
import {
  useEmbedSites,
  OUT,
  HOSTILE_CSS,
  NO_FAVICON,
  waitForDemoSweeps,
  canvasColours,
  demoStat,
  demoQuery,
  waitDemoQuery,
  waitFrameSized,
  LISTENER,
} from '../support/embed-sites.js';

const sites = useEmbedSites();

describe('embeds', () => {
  test('hostile host page on another origin: two elements and an iframe render, isolated both ways, live attributes, iframe height', async () => {
    await writeFile(
      join(sites.hostDir, 'hostile.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}
<title>A hostile blog</title><style>${HOSTILE_CSS}</style>
<script type="module" src="${sites.dist.url}attn-scale-demo.js"></script></head><body>
<p id="host-text">The host's own paragraph.</p>
<attn-scale-demo id="a" dk="128" scale="none" panel="spread,heatmap"></attn-scale-demo>
<attn-scale-demo id="b" dk="16" panel="sigma" controls="dk,scale" theme="dark"></attn-scale-demo>
<iframe id="f" src="${sites.dist.url}embed.html?panel=entropy&amp;dk=64" title="attnscale entropy" width="100%" height="300"></iframe>
<script>${LISTENER}</script></body></html>`,
    );
    const { page, errors } = await sites.open(`${sites.host.url}hostile.html`, { width: 1100, height: 900 });
    const hostSheets = await page.evaluate(
      () => document.querySelectorAll('style, link[rel="stylesheet"]').length,
    );
    await waitForDemos(page);

    // Both render real charts, with their own d_k, untouched by the host's CSS.
    for (const [id, dk, panels] of [
      ['a', 128, ['spread', 'heatmap']],
      ['b', 16, ['sigma']],
    ]) {
      for (const name of panels) {
        const panel = page.locator(`#${id} [data-panel="${name}"]`);
        assert.ok((await canvasColours(panel)) > 8, `${id}/${name} has pixels`);
        assert.notEqual(
          await panel
            .locator('canvas')
            .first()
            .evaluate((c) => getComputedStyle(c).display),
          'none',
          `${id}/${name} canvas shown`,
        );
      }
      const raw = await demoStat(page, id, 'rawLogitStd');
      assert.ok(
        Math.abs(raw - Math.sqrt(dk)) < 0.05 * Math.sqrt(dk) + 0.1,
        `#${id}: rawLogitStd ${raw} for d_k ${dk}`,
      );
      assert.match(await demoQuery(page, id), new RegExp(`(^|&)dk=${dk}(&|$)`));
      const look = await page
        .locator(`#${id} [data-stat="rawLogitStd"]`)
        .first()
        .evaluate((dd) => {
          const cs = getComputedStyle(dd);
          return { color: cs.color, size: parseFloat(cs.fontSize), padding: cs.paddingTop };
        });
      assert.notEqual(look.color, 'rgb(255, 0, 0)', `#${id} readout not red`);
      assert.ok(look.size > 11 && look.size < 16, `#${id} readout font-size ${look.size}px`);
      assert.equal(look.padding, '0px', `#${id}: the host's div rule does not reach in`);
    }
    assert.match(
      await page.locator('#a [data-panel="spread"] .caption:not(.gaps)').first().textContent(),
      /d_k = 128/,
    );
    assert.match(
      await page.locator('#b [data-panel="sigma"] .caption:not(.gaps)').first().textContent(),
      /d_k = 16/,
    );
    // Nothing leaks out: the host's own text keeps the host's style; no stylesheet was added to it.
    const hostP = await page
      .locator('#host-text')
      .evaluate((p) => ({ color: getComputedStyle(p).color, size: getComputedStyle(p).fontSize }));
    assert.deepEqual(hostP, { color: 'rgb(255, 0, 0)', size: '40px' });
    assert.equal(
      await page.evaluate(() => document.querySelectorAll('style, link[rel="stylesheet"]').length),
      hostSheets,
    );
    // The two elements share one engine client: one foreground and one background Worker (blob
    // Workers here, as the script comes from another origin); the iframe has its own.
    const blobWorkers = page
      .workers()
      .filter((w) => w.url().startsWith(`blob:${sites.host.url.replace(/\/$/, '')}`));
    assert.equal(
      blobWorkers.length,
      2,
      `workers: ${page
        .workers()
        .map((w) => w.url())
        .join(', ')}`,
    );

    // Attribute changes update live.
    await page.evaluate(() => document.getElementById('a').setAttribute('dk', '64'));
    await waitDemoQuery(page, 'a', /(^|&)dk=64&/);
    assert.ok(Math.abs((await demoStat(page, 'a', 'rawLogitStd')) - 8) < 0.5);
    await page.evaluate(() => document.getElementById('a').removeAttribute('scale'));
    await waitDemoQuery(page, 'a', /scale=sqrt/);
    assert.equal(await demoStat(page, 'a', 'scaleFactor'), 0.125);
    await page.evaluate(() => document.getElementById('b').setAttribute('panel', 'sigma,precision'));
    await waitForDemos(page);
    assert.equal(await page.locator('#b [data-panel]').count(), 2);
    assert.match(await demoQuery(page, 'b'), /(^|&)dk=16&/, 'state kept across a panel change');
    const bg = () =>
      page.evaluate(
        () =>
          getComputedStyle(document.getElementById('a').shadowRoot.querySelector('.as-root')).backgroundColor,
      );
    const light = await bg();
    await page.evaluate(() => document.getElementById('a').setAttribute('theme', 'dark'));
    assert.notEqual(await bg(), light, 'theme attribute switches the theme');
    // The element's own controls drive it too (keyboard on the d_k slider of #b).
    await page.locator('#b [data-field="dk"] input[type="range"]').focus();
    await page.keyboard.press('ArrowRight');
    await waitDemoQuery(page, 'b', /(^|&)dk=32&/);

    // The iframe posts its content height; the one-line listener sizes it.
    await page.locator('#f').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.__heights.some((x) => x > 400), null, { timeout: 60000 });
    const frame = page.frames().find((f) => f.url().includes('embed.html'));
    const sized = await waitFrameSized(page, frame, { posted: true });
    assert.deepEqual(
      [sized.content, sized.posted, sized.sized],
      [sized.height, sized.height, sized.height],
      'the frame posts its content height and the host sizes it to that',
    );
    assert.equal(
      await frame.evaluate(() => document.querySelector('[data-panel="entropy"]').dataset.drawn),
      'true',
    );
    await waitForDemoSweeps(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(OUT, 'embed-host.png'), fullPage: true });
    // A cross-origin frame below the fold is not painted into a full-page capture: its own shot.
    await page.locator('#f').screenshot({ path: join(OUT, 'embed-host-iframe.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('bad attributes: a notice inside the element, a working chart, the host page intact', async () => {
    await writeFile(
      join(sites.hostDir, 'bad.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Bad attributes</title>
<script type="module" src="${sites.dist.url}attn-scale-demo.js"></script></head><body>
<h1>Host heading</h1><p id="host-text">Host paragraph.</p>
<attn-scale-demo id="bad" dk="abc" seq-len="99999" panel="spread,nope" theme="purple" controls="dk,bogus"
  scale="&lt;img src=x onerror=window.__pwned=1&gt;" causal="maybe" correlation="5"></attn-scale-demo>
<p id="after">Host text after the element.</p>
<script>window.__before = document.body.innerHTML;</script></body></html>`,
    );
    const { page, errors } = await sites.open(`${sites.host.url}bad.html`);
    await waitForDemos(page);
    const notice = await page.locator('#bad .as-notices').textContent();
    for (const f of ['dk', 'seqLen', 'panel', 'theme', 'controls', 'scale', 'causal', 'correlation']) {
      assert.match(notice, new RegExp(`\\b${f}=`), `notice names ${f}`);
    }
    assert.match(notice, /seqLen=99999 is above the allowed range 8\.\.2048; using seqLen=2048/);
    assert.match(notice, /panel=nope is not one of/);
    // Text only: no element made from attribute text, nothing run.
    assert.equal(
      await page.evaluate(() => document.getElementById('bad').shadowRoot.querySelectorAll('img').length),
      0,
    );
    assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // The element works with the values it used; the host page is exactly as it was.
    assert.match(await demoQuery(page, 'bad'), /(^|&)dk=64&seqLen=2048&/);
    assert.ok((await canvasColours(page.locator('#bad [data-panel="spread"]'))) > 8);
    assert.equal(await page.locator('#bad [data-field="dk"]').count(), 1, 'the valid control is shown');
    assert.equal(
      await page.evaluate(() => document.body.innerHTML === window.__before),
      true,
      'host DOM untouched',
    );
    assert.equal(await page.locator('h1').textContent(), 'Host heading');
    // Fixing an attribute applies it; a new bad value gives a new notice.
    await page.evaluate(() => document.getElementById('bad').setAttribute('dk', '256'));
    await waitDemoQuery(page, 'bad', /(^|&)dk=256&/);
    await page.evaluate(() => document.getElementById('bad').setAttribute('precision', 'fp7'));
    await page.locator('#bad .as-app-notices .notice').filter({ hasText: 'precision=fp7' }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
