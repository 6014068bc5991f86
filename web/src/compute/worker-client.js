// Client of the compute Workers, shared by every session in this JS realm: the page, and later
// several embedded components, each open their own session.
//
// Workers, one engine each: a foreground one for the current setting, and background ones for
// sweeps and the panels' background jobs (sweep-pool.js): a sweep's d_k points are dealt to the sweep Workers and the foreground one
// (one per spare core; ?sweepWorkers=N in the page's URL forces N, for tests). A sweep at large T
// and d_k takes seconds; in Workers of their own it never delays the answer to a slider move.
// The sessions and the routing of answers: engine-client.js; the fallback to the page's thread:
// resilient-worker.js.

import workerUrl from './worker.js?worker&url';
import { hasWebAssembly, NO_WEBASSEMBLY } from '../engine/support.js';
import { watchWorkerPolicy, blobShimSource } from './worker-policy.js';
import { sweepWorkerCount } from './sweep-tasks.js';
import { createEngineClient } from './engine-client.js';
import { resilientWorker, onMainThread } from './resilient-worker.js';

let shared = null;

/**
 * A module Worker running `href` (the engine Worker by default). When this script was loaded from
 * another origin (a blog using attn-scale-demo.js from this site), `new Worker(url)` is refused
 * (Chromium and WebKit throw a SecurityError, Firefox fires an error event later); a same-origin
 * blob Worker that imports the script by URL works instead (the host serves the module with CORS,
 * as any cross-origin module script needs). CSP: the host's worker-src must allow blob:, its
 * script-src that origin (worker-policy.js).
 */
export function startModuleWorker(href = workerUrl) {
  const url = new URL(href, import.meta.url);
  if (url.origin === location.origin) return new Worker(url, { type: 'module' });
  const shim = new Blob([blobShimSource(url.href)], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(shim), { type: 'module' });
}

const defaultWorker = () => startModuleWorker();

/**
 * The shared client (created on first use). `createWorker` lets a build supply its own Worker.
 * Fallbacks: no WebAssembly → a client whose `ready` rejects with a message for the reader (no
 * Worker is started); a Worker that cannot be constructed, or fails before its first message
 * (blocked by a policy such as CSP `worker-src`, its script not loadable) → the engine runs on this
 * thread instead (`mode: 'main-thread'`; see resilient-worker.js).
 */
export function getEngineClient({
  createWorker = defaultWorker,
  background = true,
  sweepWorkers = sweepWorkersFromUrl(),
} = {}) {
  if (shared) return shared;
  if (!hasWebAssembly()) {
    shared = unavailableClient(NO_WEBASSEMBLY);
    return shared;
  }
  // A host policy that refuses the Worker: remembered, so the notice can name the directive.
  const policy = watchWorkerPolicy(new URL(workerUrl || import.meta.url, import.meta.url).href);
  const markMainThread = () => {
    if (shared) shared.mode = 'main-thread';
  };
  const make = () => resilientWorker(createWorker, policy.note, markMainThread);
  shared = createEngineClient(make(), background ? make : null, { sweepWorkers });
  Object.defineProperty(shared, 'workerRefusal', { get: () => policy.refusal, enumerable: true });
  if (onMainThread()) shared.mode = 'main-thread';
  return shared;
}

/** Sweep Workers: ?sweepWorkers=1..12 in the page's URL (a debug knob, see docs/architecture.md), else by cores. */
function sweepWorkersFromUrl() {
  const search = globalThis.location?.search ?? '';
  return sweepWorkerCount(new URLSearchParams(search).get('sweepWorkers'));
}

/** A client for a browser that cannot run the engine at all. */
function unavailableClient(message) {
  const ready = Promise.reject(new Error(message));
  ready.catch(() => {});
  const refuse = () => {
    throw new Error(message);
  };
  return { ready, mode: 'unavailable', openSession: refuse, workers: [] };
}
