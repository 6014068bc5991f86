// The offline build's engine client: the same Worker code, inlined in the page as a blob Worker
// (its engine comes from ./engine.js, with both wasm builds inside it).
import EngineWorker from '../worker.js?worker&inline';
import { getEngineClient } from '../worker-client.js';

getEngineClient({ createWorker: () => new EngineWorker({ name: 'attnscale-engine' }) });
