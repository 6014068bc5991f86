// Firefox for a test file: Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi (no
// browser download). One browser, one tab per test file. Same interface as tests/webkit/driver.js:
//   goto(url), evaluate(fn, ...args), waitFor(fn, args, { timeout }), screenshot(path), close();
// plus refuseNetwork() (request interception) and `errors` (console errors and uncaught
// exceptions of the page), which WebKit's WebDriver lacks.
import puppeteer from 'puppeteer-core';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** launchFirefox({ width, height }) → driver (see the file's comment). */
export async function launchFirefox({ width = 1280, height = 900 } = {}) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    defaultViewport: { width, height },
  });
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  page.setDefaultTimeout(120000);
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  // Firefox reports a MathML script element that is laid out while the parser is still inside it
  // (a long page parsed in slices: the offline file's 0.5 MB head) as invalid markup. The finished
  // markup is valid (tests/js/repo/mathml.test.js counts every script element's children), so these
  // reports are not the page's errors.
  const PARSE_TIME_MATHML = /^Invalid markup: Incorrect number of children for <m\w+\/> tag\.$/;
  page.on('pageerror', (e) => {
    if (!PARSE_TIME_MATHML.test(e.message)) errors.push(`pageerror: ${e.message}`);
  });
  return {
    name: 'firefox',
    page,
    errors,
    goto: (url) => page.goto(url, { waitUntil: 'load' }),
    evaluate: (fn, ...args) => page.evaluate(fn, ...args),
    /** Polls `fn(...args)` in the page until it returns a truthy value (which is returned). */
    async waitFor(fn, args = [], { timeout = 60000, interval = 200 } = {}) {
      const handle = await page.waitForFunction(fn, { timeout, polling: interval }, ...args);
      return handle.jsonValue();
    },
    screenshot: (path) => page.screenshot({ path }),
    /**
     * From now on every request that is not file:, data: or blob: is refused (and recorded).
     * Returns { refused: string[], stop() }.
     */
    async refuseNetwork() {
      const refused = [];
      const onRequest = (req) => {
        if (/^(file|data|blob):/.test(req.url())) req.continue();
        else {
          refused.push(req.url());
          req.abort('internetdisconnected');
        }
      };
      await page.setRequestInterception(true);
      page.on('request', onRequest);
      return {
        refused,
        async stop() {
          page.off('request', onRequest);
          await page.setRequestInterception(false);
        },
      };
    },
    close: () => browser.close(),
  };
}
