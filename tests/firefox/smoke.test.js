// Firefox ESR (Debian firefox-esr over WebDriver BiDi, puppeteer-core): the smoke suite of
// tests/e2e/support/smoke-suite.js. The offline file is opened with request interception refusing every
// request that is not file:, data: or blob:.
import { smokeSuite, waitSettled } from '../e2e/support/smoke-suite.js';
import { launchFirefox } from './driver.js';

smokeSuite({
  engine: 'firefox',
  launch: launchFirefox,
  async offline(driver, url) {
    const net = await driver.refuseNetwork();
    try {
      await driver.goto(url);
      await waitSettled(driver);
      const requested = [...net.refused];
      if (driver.errors.length) throw new Error(`console errors: ${driver.errors.join('; ')}`);
      // The interception is live: a request the page makes now is refused and recorded.
      const probe = 'http://127.0.0.1:65530/probe';
      const outcome = await driver.evaluate(
        (u) =>
          fetch(u).then(
            () => 'fetched',
            () => 'refused',
          ),
        probe,
      );
      if (outcome !== 'refused' || !net.refused.includes(probe))
        throw new Error(`request interception is not active (${outcome})`);
      return requested;
    } finally {
      await net.stop();
    }
  },
});
