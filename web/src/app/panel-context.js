// What a panel is mounted with (panels/index.js: mount(el, ctx)): a way to say it has drawn, the
// engine's schema (the lists a panel shows: its scalings and number formats), and, for panels that
// compute on their own (training), the engine client, the training schema, the page's current
// config and a way to change it (as a control would), and a way to mount another registered panel
// inside one (the report shows a head in the page's own charts).
import { PANELS } from '../panels/index.js';

/**
 * panelContexts({ root, client, schema, trainSchema, config(), set(partial), onUrlStateChange() })
 * → (name, el) => ctx. The first panel to draw marks the app's first chart (a performance mark
 * and an 'attnscale:first-chart' event on `root`, which the component listens for).
 */
export function panelContexts({ root, client, schema, trainSchema, config, set, onUrlStateChange }) {
  let firstDrawn = false;
  return (name, el) => ({
    onDrawn() {
      if (el.dataset.drawn !== 'true') el.dataset.drawn = 'true';
      if (!firstDrawn) {
        firstDrawn = true;
        performance.mark('attnscale:first-chart');
        root.dispatchEvent(new CustomEvent('attnscale:first-chart', { bubbles: true, composed: true }));
      }
    },
    client,
    schema,
    trainSchema,
    get config() {
      const c = config();
      return c ? { ...c } : null;
    },
    setConfig: (partial) => set(partial),
    /** Mounts the registered panel `other` in `host`, drawn only by its update calls → Promise<its api>. */
    mountPanel: (other, host) => PANELS[other].load().then((mod) => mod.mount(host, { schema })),
    onUrlStateChange,
  });
}
