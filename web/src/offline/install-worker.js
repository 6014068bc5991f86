// The offline build's engine client: the same Worker code, inlined in the page as a blob Worker.
// The page inflates the wasm and posts the bytes to each Worker (offline/wasm.js says why).
import EngineWorker from '../compute/worker.js?worker&inline';
import { getEngineClient } from '../compute/worker-client.js';
import { offlineWasm } from './wasm.js';
import { WASM_MESSAGE } from './protocol.js';

function startWorker() {
  const worker = new EngineWorker({ name: 'attnscale-engine' });
  offlineWasm().then(
    (bytes) => worker.postMessage({ type: WASM_MESSAGE, bytes }),
    (err) => worker.postMessage({ type: WASM_MESSAGE, error: String(err?.message ?? err) }),
  );
  return worker;
}

getEngineClient({ createWorker: startWorker });
