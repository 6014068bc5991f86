// WebKitGTK (Safari's engine) for a test file: Debian's WebKitWebDriver driving its MiniBrowser
// over plain W3C WebDriver HTTP (fetch). One browser window per test file. Run under `xvfb-run -a`
// (MiniBrowser needs an X display). Same interface as tests/firefox/driver.js:
//   goto(url), evaluate(fn, ...args), waitFor(fn, args, { timeout }), screenshot(path), close().
// WebDriver has no console API and no init scripts: what a test must see, the page shows in its DOM.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER =
  process.env.WEBKIT_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** A port that was free a moment ago (WebKitWebDriver takes a port number, not 0). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** launchWebKit({ width, height }) → driver (see the file's comment). */
export async function launchWebKit({ width = 1280, height = 900 } = {}) {
  if (!process.env.DISPLAY) throw new Error('WebKit needs an X display: run this suite under `xvfb-run -a`');
  const port = await freePort();
  const proc = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) => {
    proc.once('exit', resolve);
  });
  const base = `http://127.0.0.1:${port}`;

  async function call(method, path, body) {
    const res = await fetch(base + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!res.ok || json.value?.error)
      throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
    return json.value;
  }

  // The driver listens a moment after it starts.
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 100 || proc.exitCode !== null) {
      proc.kill();
      throw new Error(`WebKitWebDriver did not start on port ${port}: ${stderr}`);
    }
    await sleep(100);
  }
  let session;
  try {
    session = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } },
      },
    });
  } catch (err) {
    proc.kill();
    throw err;
  }
  const sid = `/session/${session.sessionId}`;
  await call('POST', `${sid}/timeouts`, { script: 120000, pageLoad: 120000 });
  await call('POST', `${sid}/window/rect`, { width, height }).catch(() => {});

  /** Runs `fn(...args)` in the page (awaited if it returns a promise); its result, or its error. */
  async function evaluate(fn, ...args) {
    const script = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (${fn}).apply(null, Array.prototype.slice.call(arguments, 0, -1)))
  .then((value) => done({ value: value === undefined ? null : value }), (e) => done({ error: String(e && e.stack || e) }));`;
    const r = await call('POST', `${sid}/execute/async`, { script, args });
    if (r?.error) throw new Error(`in the page: ${r.error}`);
    return r?.value;
  }

  return {
    name: 'webkit',
    goto: (url) => call('POST', `${sid}/url`, { url }),
    evaluate,
    /** Polls `fn(...args)` in the page until it returns a truthy value (which is returned). */
    async waitFor(fn, args = [], { timeout = 60000, interval = 200, message = '' } = {}) {
      const until = Date.now() + timeout;
      let last;
      for (;;) {
        last = await evaluate(fn, ...args).catch((e) => ({ error: e.message }));
        if (last && !last.error) return last;
        if (Date.now() > until)
          throw new Error(
            `timed out after ${timeout} ms waiting for ${message || fn}: last ${JSON.stringify(last)}`,
          );
        await sleep(interval);
      }
    },
    /** W3C WebDriver Perform Actions: `sources` as the spec's `actions` list (pointer, key, none). */
    perform: (sources) => call('POST', `${sid}/actions`, { actions: sources }),
    async screenshot(path) {
      await writeFile(path, Buffer.from(await call('GET', `${sid}/screenshot`), 'base64'));
    },
    async close() {
      await call('DELETE', sid).catch(() => {});
      proc.kill();
      await exited;
    },
  };
}
