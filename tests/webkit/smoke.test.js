// WebKitGTK (Safari's engine; WebKitWebDriver + MiniBrowser under xvfb-run): the smoke suite of
// tests/e2e/support/smoke-suite.js. build-scripts/test.sh runs it twice, with LANG=C.UTF-8 (WebKit then
// reports navigator.language 'C', which Intl rejects) and with LANG=en_US.UTF-8. WebDriver cannot
// intercept requests: the offline file is opened from file:// and the page's own record of what
// it fetched (resource timing entries) must hold nothing but file:, data: and blob: URLs.
import assert from 'node:assert/strict';
import { smokeSuite, waitSettled } from '../e2e/support/smoke-suite.js';
import { launchWebKit } from './driver.js';
import { test } from '../e2e/support/browser.js';

/** The language WebKit derives from the environment: 'C' for the C/POSIX locale. */
function expectedLanguage(env = process.env) {
  const lang = env.LC_ALL || env.LC_MESSAGES || env.LANG || 'C';
  const m = /^([a-z]{2,3})(?:_([A-Z]{2}))?/.exec(lang);
  return m ? [m[1], m[2]].filter(Boolean).join('-') : 'C';
}

smokeSuite({
  engine: 'webkit',
  launch: launchWebKit,
  extra(getDriver) {
    test(`the locale under test is the one WebKit reports (LANG=${process.env.LANG ?? ''})`, async () => {
      const driver = getDriver();
      await driver.goto('about:blank');
      assert.equal(await driver.evaluate(() => navigator.language), expectedLanguage());
    });
  },
  async offline(driver, url) {
    await driver.goto(url);
    await waitSettled(driver);
    return driver.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((name) => !/^(file|data|blob):/.test(name)),
    );
  },
});
