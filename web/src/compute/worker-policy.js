// Which Content-Security-Policy directive refused the engine's Worker, so that the notice can
// name it and say what to allow, instead of "Web Workers are not available here". A Worker is
// governed by worker-src (falling back to child-src, then script-src). The engine's script from
// another origin runs in a blob: Worker (worker-client.js) that import()s it: the Worker needs
// blob: in worker-src, its import is a script fetch (script-src, which lists that origin already).

/** The Worker sources a host's worker-src must allow for a Worker script at `workerHref`. */
function workerSources(workerHref) {
  return new URL(workerHref, location.href).origin === location.origin ? ["'self'"] : ['blob:'];
}

/**
 * Listens for the document's securitypolicyviolation events that concern the engine's Worker
 * (worker-src, or script-src for the Worker's own URL or a blob: URL).
 * Returns { refusal: null | { directive, blocked, allow: [sources] }, note(fatalMessage) }: `note`
 * takes a report made inside the Worker (the shim's { policy: { directive, blocked } }).
 */
export function watchWorkerPolicy(workerHref) {
  const state = {
    refusal: null,
    note(m) {
      if (m?.policy) record(m.policy.directive, m.policy.blocked);
    },
  };
  function record(directive, blocked) {
    if (state.refusal || !directive) return;
    state.refusal = {
      directive: directive.split(' ')[0],
      blocked: blocked ?? '',
      allow: workerSources(workerHref),
    };
  }
  if (typeof document === 'undefined') return state;
  document.addEventListener('securitypolicyviolation', (e) => {
    const directive = e.effectiveDirective || e.violatedDirective || '';
    const blocked = e.blockedURI || '';
    const ours = blocked === 'blob' || blocked.startsWith('blob:') || blocked === workerHref;
    if (directive.startsWith('worker-src') || (directive.startsWith('script-src') && ours))
      record(directive, blocked);
  });
  return state;
}

/**
 * The source of the blob: Worker that imports the engine Worker's module from another origin.
 * A refused import is reported as a 'fatal' message (with the directive, when the Worker's own
 * securitypolicyviolation event names it), so the client falls back and the notice can say why.
 * Messages that arrive while the module loads are kept and handed over in order.
 */
export function blobShimSource(href) {
  return `const early = [];
const hold = (e) => early.push(e.data);
let policy = null;
addEventListener('message', hold);
addEventListener('securitypolicyviolation', (e) => { policy ??= { directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI }; });
import(${JSON.stringify(href)}).then(() => {
  removeEventListener('message', hold);
  for (const data of early) self.onmessage?.({ data });
}, (err) => setTimeout(() => postMessage({ type: 'fatal', policy, message: 'the engine could not be loaded into its Worker (' + err + ')' }), 50));
`;
}
