// The app's panels as the Workers' answers reach them: mounted one by one while the first
// answers come in, each given what the panels before it were given; on the page, a panel far
// from the viewport or in a closed fold is mounted only once the reader comes near it or opens
// its fold.

/** A promise resolved in a task of its own: the browser may paint and take input before it. */
export const yieldToBrowser = () =>
  new Promise((resolve) => {
    setTimeout(resolve, 0);
  });

const SWEEP = ['sweepReset', 'sweepPoints', 'sweepDone', 'sweepFailed'];
// What a panel mounted after the start still needs, by message: the ones a new message of that
// kind makes obsolete. The latest run and its gradients (a new run's gradients are on their
// way), and the current sweep since its reset; the rest (redraw, destroy) concerns only the
// panels already mounted.
const OBSOLETED_BY = {
  update: ['update', 'updateGradients'],
  updateGradients: ['updateGradients'],
  sweepReset: SWEEP,
  sweepPoints: [],
  sweepDone: [],
  sweepFailed: [],
};

/**
 * What the Workers answer, on its way to the panels: { panels, each(method, ...args),
 * one(name, method, ...args), whenMounted(fn), add(name, panel), finish(), firstResultIn }.
 * The first run and the background jobs are sent before the panels are mounted, so the Workers
 * compute while this thread builds the charts. What they answer reaches the panels mounted so
 * far at once, and each panel mounted later gets it replayed: until `finish()` all of it
 * (`backlog`), after it the latest run and sweep (`current`); what concerns the whole app (its
 * state, counters, notices) waits until the first panels, the controls and the presets are in
 * place (`finish()`), and is then done in order.
 */
export function panelDelivery() {
  const panels = new Map();
  let mounted = false;
  const early = [];
  const backlog = [];
  const current = [];
  function keep(method, args) {
    const obsolete = OBSOLETED_BY[method];
    if (!obsolete) return;
    for (let i = current.length - 1; i >= 0; i -= 1)
      if (obsolete.includes(current[i][0])) current.splice(i, 1);
    current.push([method, args]);
  }
  return {
    panels,
    firstResultIn: false,
    /** To every panel. */
    each(method, ...args) {
      if (!mounted) backlog.push([null, method, args]);
      keep(method, args);
      for (const p of panels.values()) p.api[method]?.(...args);
    },
    /** To the panel `name` only (what its own job answers). */
    one(name, method, ...args) {
      if (!mounted) backlog.push([name, method, args]);
      panels.get(name)?.api[method]?.(...args);
    },
    whenMounted: (fn) => (mounted ? fn() : early.push(fn)),
    /** A panel just mounted: it gets what the panels before it were given. */
    add(name, panel) {
      panels.set(name, panel);
      if (mounted) for (const [method, args] of current) panel.api[method]?.(...args);
      else
        for (const [to, method, args] of backlog)
          if (to === null || to === name) panel.api[method]?.(...args);
    },
    /** Everything is in place: the work for the whole app that waited is done, in order. */
    finish() {
      mounted = true;
      backlog.length = 0;
      for (const fn of early.splice(0)) fn();
    },
  };
}

const inClosedFold = (el) => !!el.closest('details:not([open])');
const inOpenFold = (el) => !!el.closest('details[open]');

/**
 * Watches the panels' elements `wanted` ([[name, el]]) for the reader coming within `margin` (a
 * rootMargin) of them outside a closed fold, or opening the fold that holds them (a topic opened
 * is a topic the reader wants to see): → { first: Promise<Set<name>> of those due at the start,
 * later(fn): fn(name) for each one due after it, stop() }. Without IntersectionObserver every
 * panel is due at once.
 */
export function watchNearPanels(wanted, margin) {
  if (typeof IntersectionObserver !== 'function' || !wanted.length)
    return { first: Promise.resolve(new Set(wanted.map(([n]) => n))), later() {}, stop() {} };
  const nameOf = new Map(wanted.map(([name, el]) => [el, name]));
  const pending = new Set(nameOf.keys());
  let onLater = null;
  let started = false;
  const queued = [];
  let resolveFirst;
  const first = new Promise((resolve) => {
    resolveFirst = resolve;
  });
  const io = new IntersectionObserver(
    (entries) => {
      const due = entries.filter((e) => e.isIntersecting && !inClosedFold(e.target)).map((e) => e.target);
      if (!started) due.push(...[...pending].filter((el) => inOpenFold(el) && !due.includes(el)));
      deliver(due);
    },
    { rootMargin: margin },
  );
  function deliver(els) {
    for (const el of els) {
      io.unobserve(el);
      pending.delete(el);
    }
    const names = els.map((el) => nameOf.get(el));
    if (!started) {
      started = true;
      resolveFirst(new Set(names));
    } else if (onLater) names.forEach(onLater);
    else queued.push(...names);
  }
  for (const el of pending) io.observe(el);
  const onToggle = (e) => {
    if (e.target.open && started) deliver([...pending].filter((el) => e.target.contains(el)));
  };
  const doc = wanted[0][1].ownerDocument;
  doc.addEventListener('toggle', onToggle, true);
  return {
    first,
    later(fn) {
      onLater = fn;
      queued.splice(0).forEach(fn);
    },
    stop() {
      io.disconnect();
      doc.removeEventListener('toggle', onToggle, true);
    },
  };
}

/**
 * Mounts the panels `names` (all of `loading.wanted` when absent), their code fetched in
 * parallel (`loading.mod(name)`), in the page's order, each in tasks of its own: this thread yields between panels,
 * so that the first chart is drawn as soon as both its panel and the result exist, and a
 * reader's input is never kept waiting for all of them. `onMounted(name, api)` follows each.
 */
export async function mountPanels(delivery, loading, panelCtx, { names = null, onMounted = () => {} } = {}) {
  for (const [name, el] of loading.wanted) {
    if (delivery.panels.has(name) || (names && !names.has(name))) continue;
    const mod = await loading.mod(name);
    if (delivery.panels.has(name)) continue; // mounted meanwhile
    const api = mod.mount(el, panelCtx(name, el));
    // Its data in a task of its own: building a chart and drawing it are each a task's worth.
    await yieldToBrowser();
    delivery.add(name, { mod, el, api });
    onMounted(name, api);
    await yieldToBrowser();
  }
}
