// The global scope the compute Worker's code (worker.js) talks to: `self` inside a real Worker. When
// no Worker can be constructed (a browser or policy without Workers), main-thread-worker.js runs
// the same code on the page's thread and installs a stand-in scope here before importing it.
export let workerSelf = globalThis;

/** Route worker.js's postMessage / onmessage through `scope` (call before worker.js is imported). */
export function useWorkerScope(scope) {
  workerSelf = scope;
}
