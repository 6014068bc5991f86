// Firefox ESR (Debian firefox-esr over WebDriver BiDi, puppeteer-core): the smoke suite of
// tests/e2e/smoke-suite.js. The offline file is opened with request interception refusing every
// request that is not file:, data: or blob:.
import { smokeSuite, waitSettled } from '../e2e/smoke-suite.js';
import { launchFirefox } from './driver.js';

smokeSuite({
  engine: 'firefox',
  launch: launchFirefox,
  async offline(driver, url) {
    const net = await driver.refuseNetwork();
    try {
      await driver.goto(url);
      await waitSettled(driver);
      return [...net.refused];
    } finally {
      await net.stop();
    }
  },
});
