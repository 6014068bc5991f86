// Chart 3 — softmax entropy vs d_k for the three scalings (left axis, nats) with the ceiling
// ln T (mean ln of visible keys: entropyMax), and on the right axis (0..1) the mean largest weight
// per row and the fraction of saturated rows.
import { panelFrame, createChart, log2Axis, axis, drawVLine, drawDot, createSweepStore, gapText, SWEEP_SCALES, SCALE_NAMES, scaleColorKey } from './common.js';
import { fmt, scaleLabel } from '../format.js';

export const meta = { name: 'entropy', title: 'Softmax entropy and saturation vs d_k', sweep: true };

export function mount(el, ctx = {}) {
  const store = createSweepStore(SWEEP_SCALES);
  let cfg = null, result = null, total = 0;
  const frame = panelFrame(el, {
    name: 'entropy',
    title: 'Softmax entropy and saturation vs d_k',
    description: 'How spread out each attention row is (entropy, left axis) and how concentrated (largest weight and saturated rows, right axis).',
    legend: [
      ...SWEEP_SCALES.map((s) => ({ color: `c-${s}`, label: SCALE_NAMES[s] })),
      { color: 'fg', label: 'entropy (left)' },
      { color: 'fg', label: 'mean max weight (right)', dash: 'dashed' },
      { color: 'fg', label: 'saturated rows (right)', dash: 'dotted' },
      { color: 'c-theory', label: 'ceiling ln T', dash: 'dashed' },
      { color: 'c-current', label: 'current d_k (dot: current entropy)', dash: 'dotted' },
    ],
    readouts: [
      { stat: 'entropy', label: 'entropy (nats)' },
      { stat: 'entropyMax', label: 'ceiling ln T' },
      { stat: 'maxWeight', label: 'mean max weight' },
      { stat: 'saturatedFraction', label: 'saturated rows' },
    ],
    exports: {
      png: () => [{ u: chart.u }],
      csv: () => {
        const rows = [['scale', 'dk', 'entropy', 'entropyMax', 'maxWeight', 'saturatedFraction']];
        for (const [s, p] of store.points()) rows.push([s, p.dk, p.entropy, p.entropyMax, p.maxWeight, p.saturatedFraction]);
        return { rows };
      },
    },
  });

  const series = [{}];
  for (const s of SWEEP_SCALES) series.push({ label: `${s} entropy`, stroke: (u) => u.pal[s], width: 2, scale: 'y', points: { show: true, size: 5, fill: (u) => u.pal[s] } });
  for (const s of SWEEP_SCALES) series.push({ label: `${s} max weight`, stroke: (u) => u.pal[s], width: 1.5, dash: [7, 4], scale: 'p', points: { show: false } });
  for (const s of SWEEP_SCALES) series.push({ label: `${s} saturated`, stroke: (u) => u.pal[s], width: 1.5, dash: [2, 3], scale: 'p', points: { show: false } });
  series.push({ label: 'ln T', stroke: (u) => u.pal.theory, width: 1.25, dash: [6, 4], scale: 'y', points: { show: false } });

  const chart = createChart(frame.body, {
    label: 'Softmax entropy, max weight and saturated-row fraction against d_k for three scalings',
    makeOpts: () => ({
      scales: {
        x: { time: false, distr: 3, log: 2 },
        y: { range: (u, lo, hi) => [0, Math.max(hi, 0.1) * 1.06] },
        p: { range: [0, 1.02] },
      },
      axes: [
        log2Axis('d_k'),
        axis({ label: 'entropy (nats)', scale: 'y', size: 50 }),
        axis({ label: 'weight / fraction', scale: 'p', side: 1, size: 50, grid: { show: false } }),
      ],
      series,
    }),
    data: [[1, 4096], ...series.slice(1).map(() => [null, null])],
    onDraw: (u) => {
      if (!cfg || !result) return;
      drawVLine(u, cfg.dk, { color: u.pal.current, dash: [2, 3], label: `d_k = ${cfg.dk}` });
      drawDot(u, cfg.dk, result.entropy, { color: u.pal[scaleColorKey(cfg.scale)] });
      if (store.count()) ctx.onDrawn?.('entropy');
    },
  });

  function draw() {
    const dks = store.dks();
    if (!dks.length) return;
    const data = [dks];
    for (const s of SWEEP_SCALES) data.push(store.column(s, dks, (p) => p.entropy));
    for (const s of SWEEP_SCALES) data.push(store.column(s, dks, (p) => p.maxWeight));
    for (const s of SWEEP_SCALES) data.push(store.column(s, dks, (p) => p.saturatedFraction));
    // ln T does not depend on the scaling: take it from whichever scaling has the point.
    const ceil = dks.map((dk, i) => SWEEP_SCALES.map((s) => store.column(s, [dk], (p) => p.entropyMax)[0]).find((v) => v !== null) ?? null);
    data.push(ceil);
    chart.setData(data);
    frame.gaps.textContent = gapText(store.nonFiniteScales((p) => p.entropy));
  }

  /** Text alternative: the current entropy and saturation, and saturation at the largest d_k swept. */
  function summarize() {
    if (!cfg || !result) return;
    const pct = (v) => (Number.isFinite(v) ? `${fmt(100 * v, 3)}%` : 'undefined');
    const dks = store.stale ? [] : store.dks();
    const last = dks[dks.length - 1];
    const ends = last ? SWEEP_SCALES.map((s) => `${SCALE_NAMES[s]} ${pct(store.column(s, [last], (p) => p.saturatedFraction)[0] ?? NaN)}`).join(', ') : '';
    frame.setSummary(`Softmax entropy ${fmt(result.entropy, 3)} of at most ${fmt(result.entropyMax, 3)} nats at d_k = ${cfg.dk} with scaling ${scaleLabel(cfg.scale)}; `
      + `${pct(result.saturatedFraction)} of rows saturated.` + (ends ? ` Saturated rows at d_k = ${last}: ${ends}.` : ''));
  }

  function progress() {
    const n = store.stale ? 0 : store.count();
    frame.status.textContent = n < total ? `Sweep: ${n} of ${total} points computed…` : '';
    el.classList.toggle('is-stale', store.stale);
  }

  return {
    update(r, c) {
      result = r;
      cfg = c;
      frame.setStats(r);
      frame.caption.textContent = Number.isFinite(r.entropy)
        ? `Current: d_k = ${c.dk}, scaling ${scaleLabel(c.scale)}: entropy ${fmt(r.entropy, 3)} of at most ${fmt(r.entropyMax, 3)} nats; `
          + `the largest weight of a row averages ${fmt(r.maxWeight, 3)}; ${fmt(100 * r.saturatedFraction, 3)}% of rows are saturated.`
        : `Current: d_k = ${c.dk}, scaling ${scaleLabel(c.scale)}: the weights contain NaN or infinite values, so entropy and saturation are undefined (see the precision panel).`;
      chart.redraw();
      summarize();
    },
    sweepReset(n) { total = n; store.reset(); progress(); },
    sweepPoint(scale, p) { store.add(scale, p); draw(); progress(); },
    sweepDone() { progress(); summarize(); },
    redraw: () => chart.redraw(),
    destroy: () => chart.destroy(),
  };
}
