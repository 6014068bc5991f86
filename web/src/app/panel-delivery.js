// The app's panels as the Workers' answers reach them: mounted one by one while the first
// answers come in, each given what the panels before it were given.

const yieldToBrowser = () =>
  new Promise((resolve) => {
    setTimeout(resolve, 0);
  });

/**
 * What the Workers answer, on its way to the panels: { panels, each(method, ...args),
 * one(name, method, ...args), whenMounted(fn), add(name, panel), finish(), firstResultIn }.
 * The first run and the background jobs are sent before the panels are mounted, so the Workers
 * compute while this thread builds the charts. What they answer reaches the panels mounted so
 * far at once, and each panel mounted later gets it replayed (`backlog`); what concerns the whole
 * app (its state, counters, notices) waits until every panel, the controls and the presets are
 * in place (`finish()`), and is then done in order.
 */
export function panelDelivery() {
  const panels = new Map();
  let mounted = false;
  const early = [];
  const backlog = [];
  return {
    panels,
    firstResultIn: false,
    /** To every panel. */
    each(method, ...args) {
      if (!mounted) backlog.push([null, method, args]);
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
      for (const [to, method, args] of backlog) if (to === null || to === name) panel.api[method]?.(...args);
    },
    /** Everything is in place: the work for the whole app that waited is done, in order. */
    finish() {
      mounted = true;
      backlog.length = 0;
      for (const fn of early.splice(0)) fn();
    },
  };
}

/**
 * Mounts the panels, their code fetched in parallel, in the order given, each in a task of its
 * own: this thread yields between panels, so that the first chart is drawn as soon as both its
 * panel and the result exist, and a reader's input is never kept waiting for all of them.
 */
export async function mountPanels(delivery, loading, panelCtx) {
  const mods = await loading.mods;
  for (const [i, [name, el]] of loading.wanted.entries()) {
    const api = mods[i].mount(el, panelCtx(name, el));
    delivery.add(name, { mod: mods[i], el, api });
    await yieldToBrowser();
  }
}
