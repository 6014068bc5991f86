// A compute Worker that falls back to the page's thread. The engine on the page's thread, once any
// Worker has failed, is one instance (main-thread-worker.js), whose messages reach the client
// through the first wrapper that switched to it ("receiver"); the others only send to it, so that
// no message is routed twice. `reason`: why the Worker failed (the offline file's stand-in, which
// cannot run the engine here, reports it; see build-scripts/lib/vite-offline.js).
import { createMainThreadWorker } from './main-thread-worker.js';

let mainThread = null;

/** True once some Worker of this realm has moved to the page's thread. */
export const onMainThread = () => mainThread !== null;

function switchToMainThread(reason) {
  const first = !mainThread;
  if (first) mainThread = createMainThreadWorker({ reason });
  return { port: mainThread, receiver: first };
}

/**
 * A Worker from `create()` behind a Worker-shaped wrapper ({ postMessage, addEventListener }). If
 * the constructor throws, or the Worker's first message is 'fatal' (its engine could not start:
 * e.g. WebKit cannot read a Blob in a blob: Worker of a file:// page), or it reports an error
 * before any message, the wrapper moves to the main-thread engine and re-sends what was posted so
 * far. Later errors are passed on. `notePolicy(m)` receives a 'fatal' message's policy report;
 * `onFallBack()` is told each time a wrapper moves to the page's thread.
 */
export function resilientWorker(create, notePolicy = () => {}, onFallBack = () => {}) {
  const listeners = { message: new Set(), error: new Set() };
  const emit = (type, e) => {
    for (const fn of listeners[type]) fn(e);
  };
  let target = null;
  let unanswered = []; // messages posted before the Worker first answered (null once it has)
  const fallBack = (reason) => {
    const { port, receiver } = switchToMainThread(reason);
    onFallBack();
    if (receiver) port.addEventListener('message', (e) => emit('message', e));
    target = port;
    for (const m of unanswered ?? []) port.postMessage(m);
    unanswered = null;
  };
  /** The real Worker: its first 'fatal' message or early error sends the wrapper to the page's thread. */
  function watch(worker) {
    worker.addEventListener('message', (e) => {
      if (target === worker && unanswered && e.data?.type === 'fatal') {
        notePolicy(e.data);
        worker.terminate?.();
        fallBack(e.data.message);
        return;
      }
      unanswered = null;
      emit('message', e);
    });
    worker.addEventListener('error', (e) => {
      if (target === worker && unanswered) {
        e.preventDefault?.();
        worker.terminate?.();
        fallBack();
      } else emit('error', e);
    });
  }
  if (mainThread) fallBack();
  else {
    try {
      const worker = create();
      target = worker;
      watch(worker);
    } catch {
      fallBack();
    }
  }
  return {
    postMessage(m, transfer) {
      if (unanswered) unanswered.push(m);
      target.postMessage(m, transfer);
    },
    addEventListener(type, fn) {
      listeners[type]?.add(fn);
    },
    /** Runs on the page's thread (several wrappers may share that one engine). */
    get onMainThread() {
      return target === mainThread;
    },
  };
}
