// embed.html and the main page's Embed dialog, in headless Debian chromium: the chosen panels only,
// a link back to the page with the same state, option notices; the dialog's snippets of the current
// state, copied from the keyboard, and working when pasted into a page. Needs a built dist/.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitForApp, waitForDemos, test } from '../support/browser.js';
import {
  useEmbedSites,
  OUT,
  NO_FAVICON,
  demoStat,
  demoQuery,
  waitFrameSized,
} from '../support/embed-sites.js';
import { repoRoot } from '../support/serve-dist.js';
import { elementCss } from '../../../web/src/embed/embed-height.js';

/** The room the snippets reserve for a spread chart alone, and the element's style holding it. */
const SPREAD_HEIGHT = elementCss(['spread']);
const SPREAD_STYLE = `display:block;--attnscale-height:${SPREAD_HEIGHT};padding-bottom:var(--attnscale-height)`;

const sites = useEmbedSites();

describe('embeds', () => {
  test('embed.html: the chosen panels only, a link back with the same state, option notices', async () => {
    const q = 'panel=spread,sigma&controls=dk,scale&theme=dark&dk=128&scale=none&seqLen=128';
    const { page, errors } = await sites.open(`${sites.dist.url}embed.html?${q}`, {
      width: 760,
      height: 900,
    });
    await waitForApp(page);
    assert.deepEqual(await page.$$eval('[data-panel]', (els) => els.map((e) => e.dataset.panel)), [
      'spread',
      'sigma',
    ]);
    assert.equal(await page.locator('h1, .site-head, .presets-box, .story').count(), 0, 'no page chrome');
    assert.deepEqual(await page.$$eval('[data-field]', (els) => els.map((e) => e.dataset.field)), [
      'dk',
      'scale',
    ]);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.ok(
      Math.abs(
        parseFloat(await page.locator('[data-stat="rawLogitStd"]').first().textContent()) - Math.sqrt(128),
      ) < 0.3,
    );
    const link = new URL(await page.locator('#full-link').getAttribute('href'));
    assert.equal(link.pathname, '/index.html');
    assert.equal(link.searchParams.get('dk'), '128');
    assert.equal(link.searchParams.get('scale'), 'none');
    assert.equal(link.searchParams.get('seqLen'), '128');
    await page.screenshot({ path: join(OUT, 'embed-page.png'), fullPage: true });
    // The link follows the embed's own controls: at 760 px wide, its dock's.
    await page.locator('[data-dock] select[name="scale"]').selectOption('linear');
    await page.waitForFunction(() => /scale=linear/.test(document.getElementById('full-link').href));
    // The full page opened from the link shows the same state.
    const full = await sites.open(await page.locator('#full-link').getAttribute('href'));
    await waitForApp(full.page, { sweeps: false });
    assert.equal(await full.page.locator('[data-field="dk"] input[type="number"]').inputValue(), '128');
    assert.equal(await full.page.locator('[data-field="scale"] input[value="linear"]').isChecked(), true);
    assert.deepEqual([...errors, ...full.errors], []);
    await page.close();
    await full.page.close();

    const bad = await sites.open(`${sites.dist.url}embed.html?panel=bogus&theme=x&controls=zzz&dk=0`);
    await waitForApp(bad.page, { sweeps: false });
    const text = await bad.page.locator('#notices').textContent();
    for (const f of ['panel', 'theme', 'controls', 'dk'])
      assert.match(text, new RegExp(`\\b${f}=`), `notice names ${f}`);
    assert.deepEqual(await bad.page.$$eval('[data-panel]', (els) => els.map((e) => e.dataset.panel)), [
      'spread',
    ]);
    assert.deepEqual(bad.errors, []);
    await bad.page.close();
  });

  test('Embed dialog: snippets of the current state, keyboard copy with feedback; the snippets work when pasted', async () => {
    const { page, errors } = await sites.open(`${sites.dist.url}index.html?dk=128&scale=none&seed=7`, {
      width: 1100,
      height: 900,
    });
    await waitForApp(page, { sweeps: false });
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sites.dist.url.replace(/\/$/, '') });
    const button = page.locator('#embed-button');
    await button.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog.embed-dialog');
    await dialog.waitFor();
    const iframeCode = dialog.locator('[data-snippet="iframe"] textarea');
    const componentCode = dialog.locator('[data-snippet="web component"] textarea');
    assert.match(
      await componentCode.inputValue(),
      /<attn-scale-demo panel="spread" dk="128" scale="none" seed="7" style="[^"]*">\n {2}<a href="[^"]*\/index\.html\?[^"]*dk=128&amp;[^"]*seed=7[^"]*">Open the attnscale demo<\/a>\n<\/attn-scale-demo>/,
    );
    assert.match(await iframeCode.inputValue(), /embed\.html\?panel=spread&amp;dk=128&amp;/);
    assert.match(await iframeCode.inputValue(), /title="attnscale: Logit spread"/);
    // Choose charts with the keyboard: the snippets follow.
    await dialog.getByLabel('Attention weights').focus();
    await page.keyboard.press('Space');
    await dialog.getByLabel('d_k and scaling').check();
    assert.match(await componentCode.inputValue(), /panel="spread,heatmap".*controls="dk,scale"/);
    assert.match(
      await iframeCode.inputValue(),
      /embed\.html\?panel=spread,heatmap&amp;controls=dk,scale&amp;dk=128&amp;/,
    );
    // Copy by keyboard: Tab reaches the button, Enter copies, the status says so.
    const copy = dialog.locator('[data-snippet="web component"] .embed-copy');
    assert.equal(await copy.textContent(), 'Copy the web component snippet');
    await componentCode.focus();
    await page.keyboard.press('Tab');
    assert.equal(
      await copy.evaluate((b) => b === document.activeElement),
      true,
      'Tab reaches the copy button',
    );
    await page.keyboard.press('Enter');
    await dialog.locator('.embed-status').filter({ hasText: 'on the clipboard' }).waitFor();
    assert.equal(await copy.textContent(), 'Copied ✓');
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(clip, await componentCode.inputValue());
    await dialog.getByRole('button', { name: 'Copy the iframe snippet' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await iframeCode.inputValue());
    await dialog.screenshot({ path: join(OUT, 'embed-dialog.png') });
    // Escape closes it and gives the focus back.
    await page.keyboard.press('Escape');
    assert.equal(await dialog.isVisible(), false);
    assert.equal(await button.evaluate((b) => b === document.activeElement), true);

    // Paste both snippets into a page on another origin: they render this state.
    const snippetComponent = clip;
    const snippetIframe = await iframeCode.inputValue();
    await writeFile(
      join(sites.hostDir, 'pasted.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8">${NO_FAVICON}<title>Pasted</title></head><body>
<p>My post.</p>
${snippetComponent.replace('<attn-scale-demo ', '<attn-scale-demo id="c" ')}
${snippetIframe.replace('<iframe ', '<iframe id="f" ')}
</body></html>`,
    );
    const pasted = await sites.open(`${sites.host.url}pasted.html`, { width: 1100, height: 900 });
    await waitForDemos(pasted.page);
    assert.ok(Math.abs((await demoStat(pasted.page, 'c', 'rawLogitStd')) - Math.sqrt(128)) < 0.3);
    assert.match(await demoQuery(pasted.page, 'c'), /seed=7/);
    assert.equal(
      await pasted.page.locator('#c > a').isVisible(),
      false,
      "the snippet's fallback link hides once the charts are drawn",
    );
    assert.equal(await pasted.page.locator('#c [data-field]').count(), 2);
    await pasted.page.locator('#f').scrollIntoViewIfNeeded();
    const frame = pasted.page.frames().find((f) => f.url().includes('embed.html'));
    await frame.waitForFunction(() => document.getElementById('app').dataset.state === 'ready', null, {
      timeout: 60000,
    });
    assert.match(
      await frame.evaluate(() => document.getElementById('app').dataset.resultQuery),
      /dk=128&.*scale=none&.*seed=7/,
    );
    // The snippet's own listener sizes the frame to its content, once that content is final.
    const { height } = await waitFrameSized(pasted.page, frame);
    assert.ok(height > 400, `the pasted listener sized the iframe to its content (${height} px)`);
    assert.deepEqual([...errors, ...pasted.errors], []);
    await page.close();
    await pasted.page.close();
  });

  test('Embed dialog: every route (Hugo, Jekyll, VitePress / MDX, Markdown) writes the current state', async () => {
    const { page, errors } = await sites.open(`${sites.dist.url}index.html?scale=none`, {
      width: 1100,
      height: 900,
    });
    await waitForApp(page, { sweeps: false });
    // Set d_k on the page itself, then open the dialog.
    const dk = page.locator('[data-field="dk"] input[type="number"]');
    await dk.fill('256');
    await dk.press('Enter');
    await page.waitForFunction(() => /dk=256/.test(location.search));
    await page.locator('#embed-button').click();
    const dialog = page.locator('dialog.embed-dialog');
    await dialog.waitFor();
    const code = (id) => dialog.locator(`[data-snippet="${id}"] textarea`).inputValue();
    const base = sites.dist.url;
    const full = `${base}index.html?dk=256&amp;scale=none`;
    assert.equal(
      await code('hugo'),
      `{{< attnscale panel="spread" dk="256" scale="none" height="${SPREAD_HEIGHT}" >}}`,
    );
    assert.equal(
      await code('jekyll'),
      `{% include attnscale.html panel="spread" dk="256" scale="none" height="${SPREAD_HEIGHT}" %}`,
    );
    assert.equal(
      await code('element'),
      `<attn-scale-demo panel="spread" dk="256" scale="none" style="${SPREAD_STYLE}">\n  <a href="${full}">Open the attnscale demo</a>\n</attn-scale-demo>`,
    );
    assert.equal(
      await code('markdown'),
      `[![attnscale: Logit spread](attnscale-spread.gif)](${base}index.html?dk=256&scale=none)`,
    );
    assert.ok(
      (await code('web component')).includes(
        `<attn-scale-demo panel="spread" dk="256" scale="none" style="${SPREAD_STYLE}">`,
      ),
    );
    // The site engines' host lines name this host, their notes the pinned CDN default.
    const { version } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
    const configs = await dialog.locator('pre.embed-config').allTextContents();
    assert.deepEqual(configs, [
      `# hugo.toml\n[params.attnscale]\nbase = "${base}"`,
      `# _config.yml\nattnscale: { base: "${base}" }`,
    ]);
    for (const id of ['hugo', 'jekyll'])
      assert.match(
        await dialog.locator(`[data-snippet="${id}"] .embed-note`).textContent(),
        new RegExp(`https://cdn\\.jsdelivr\\.net/npm/attnscale@${version.replaceAll('.', '\\.')}/dist/`),
      );
    assert.deepEqual(
      await dialog
        .locator('[data-snippet="element"] .embed-note a')
        .evaluateAll((as) => as.map((a) => a.hash)),
      ['#vitepress', '#astro-and-other-mdx-engines'],
    );
    // The options follow in every route: a second chart, the d_k and scaling controls, the dark theme.
    await dialog.getByLabel('σ of the logits vs d_k').check();
    await dialog.getByLabel('d_k and scaling').check();
    await dialog.getByLabel('dark', { exact: true }).check();
    const params = 'panel="spread,sigma" dk="256" scale="none" controls="dk,scale" theme="dark"';
    // The reserved room follows the charts and the controls chosen.
    const height = elementCss(['spread', 'sigma'], ['dk', 'scale']);
    assert.equal(await code('hugo'), `{{< attnscale ${params} height="${height}" >}}`);
    assert.equal(await code('jekyll'), `{% include attnscale.html ${params} height="${height}" %}`);
    assert.ok(
      (await code('element')).startsWith(
        `<attn-scale-demo ${params} style="display:block;--attnscale-height:${height};`,
      ),
    );
    assert.match(
      await code('markdown'),
      /\(attnscale-spread\.gif\)\]\([^)]*\)\n\n\[!\[attnscale: σ of the logits vs d_k\]\(attnscale-sigma\.gif\)/,
    );
    // A chart that does not change with d_k has no GIF button: its SVG instead.
    await dialog.getByLabel('Training side by side').check();
    assert.match(
      await code('markdown'),
      /\n\n\[!\[attnscale: Training side by side\]\(attnscale-training\.svg\)\]\(/,
    );
    await dialog.getByLabel('Training side by side').uncheck();
    // Each route copies its own snippet.
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
    await dialog.getByRole('button', { name: 'Copy the Hugo snippet' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await code('hugo'));
    await dialog
      .locator('.embed-status')
      .filter({ hasText: 'The Hugo snippet is on the clipboard.' })
      .waitFor();
    // The site routes in view, for a look by eye.
    await dialog.evaluate((d) => {
      d.scrollTop = d.querySelector('[data-snippet="hugo"]').offsetTop - 16;
    });
    await page.screenshot({ path: join(OUT, 'embed-dialog-routes.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
