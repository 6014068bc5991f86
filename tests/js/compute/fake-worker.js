// A stand-in for a compute Worker in the engine client's tests: it records what the client posts
// (`sent`) and delivers what a test answers (`answer(data)`) to the client's message listeners.
import { createEngineClient } from '../../../web/src/compute/engine-client.js';

export function fakeWorker(name = 'worker') {
  const listeners = [];
  return {
    name,
    sent: [],
    postMessage(m) {
      this.sent.push(m);
    },
    addEventListener(type, fn) {
      if (type === 'message') listeners.push(fn);
    },
    answer(data) {
      for (const fn of listeners) fn({ data });
    },
  };
}

/**
 * An engine client over a fake foreground Worker and one fake sweep Worker (created when the client
 * starts its pool): → { client, fg, background } (`background`: the sweep Workers made so far).
 */
export function fakeClient() {
  const fg = fakeWorker('fg');
  const background = [];
  const client = createEngineClient(
    fg,
    () => {
      const w = fakeWorker(`bg${background.length}`);
      background.push(w);
      return w;
    },
    { sweepWorkers: 1 },
  );
  return { client, fg, background };
}
