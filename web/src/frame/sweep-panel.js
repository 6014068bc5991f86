// A panel that is one chart of the d_k sweep (σ of the logits, the softmax's entropy): its frame
// with the scalings' legend, readouts and exports (PNG, CSV of the exact points, GIF), the sweep
// chart (sweep-chart.js), a caption of the current setting and a text alternative that ends with
// each scaling's value at the largest d_k swept. The panel gives what differs as a spec.
import { panelFrame } from './panel-frame.js';
import { createSweepCharts } from '../charts/sweep-chart.js';
import { scalingsOf } from '../state/choices.js';

/**
 * mountSweepPanel(el, ctx, spec) → the panel's API: update(result, cfg), sweepReset, sweepPoints,
 * sweepDone, sweepFailed, reveal, redraw, destroy. spec: { name, title, description,
 * legend(scalings) → legend entries, readouts, csv: { header, row(scale, point) }, gapValue(point),
 * chart: the sweep chart's spec, end: { value(point), text(value) } → a scaling's value at the
 * largest d_k swept, summary(result, cfg, ends, last) → the text alternative (`ends`: each
 * scaling's end value as text, '' until the sweep is complete; `last`: that d_k), caption(result,
 * cfg) → the caption }.
 */
export function mountSweepPanel(el, ctx, spec) {
  let cfg = null,
    result = null;
  const scalings = scalingsOf(ctx.schema);
  const frame = panelFrame(el, {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    legend: spec.legend(scalings),
    readouts: spec.readouts,
    exports: {
      png: () => [{ u: chart.u }],
      csv: () => {
        const rows = [spec.csv.header];
        for (const [s, p] of store.points()) rows.push(spec.csv.row(s, p));
        return { rows };
      },
      gif: () => ({
        mount: (host, c) => mountSweepPanel(host, c, spec),
        schema: ctx.schema,
        client: ctx.client,
        cfg,
        points: store.points(),
      }),
    },
  });

  const sweep = createSweepCharts(el, frame, {
    name: spec.name,
    ctx,
    gapValue: spec.gapValue,
    onDone: () => summarize(),
  });
  const { store } = sweep;
  const chart = sweep.chart(frame.body, spec.chart);

  /** Text alternative: the current setting, and each scaling's value at the largest d_k swept. */
  function summarize() {
    if (!cfg || !result) return;
    const dks = store.stale ? [] : store.dks();
    const last = dks[dks.length - 1];
    const ends = last
      ? scalings
          .map(
            (s) =>
              `${s.label} ${spec.end.text(store.column(s.value, [last], spec.end.value, { estimate: false })[0] ?? NaN)}`,
          )
          .join(', ')
      : '';
    frame.setSummary(spec.summary(result, cfg, ends, last));
  }

  return {
    update(r, c) {
      result = r;
      cfg = c;
      frame.setStats(r);
      frame.caption.textContent = spec.caption(r, c);
      sweep.setCurrent(r, c);
      summarize();
    },
    sweepReset: sweep.sweepReset,
    sweepPoints: sweep.sweepPoints,
    sweepDone: sweep.sweepDone,
    sweepFailed: sweep.failed,
    reveal: sweep.reveal,
    redraw: sweep.redraw,
    destroy: sweep.destroy,
  };
}
