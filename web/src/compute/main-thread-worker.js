// The compute "Worker" on the page's own thread: the fallback when a Worker cannot be constructed
// or fails to start (Workers disabled by the browser, a policy such as CSP worker-src, a sandbox;
// see worker-client.js). worker.js runs unchanged; its postMessage and
// onmessage go through a MessageChannel, so the client (worker-client.js) sees the same object
// shape and the same asynchronous, structured-cloned messages as with a real Worker. Compute then
// blocks the page while it runs; the app says so in a notice. One instance per page.
import { useWorkerScope } from './worker-scope.js';

let instance = null;

/** A Worker-like object ({ postMessage, addEventListener }) backed by worker.js on this thread. */
export function createMainThreadWorker() {
  if (instance) return instance;
  const { port1, port2 } = new MessageChannel();
  useWorkerScope({
    postMessage: (message, transfer) => port2.postMessage(message, transfer ?? []),
    get onmessage() {
      return port2.onmessage;
    },
    set onmessage(fn) {
      port2.onmessage = fn;
    }, // assigning onmessage starts the port
  });
  import('./worker.js').catch((err) => {
    port2.postMessage({
      type: 'fatal',
      message: `the compute code could not be loaded: ${err?.message ?? err}`,
    });
  });
  port1.start();
  instance = port1;
  return instance;
}
