// Chapter 8 — attention against the context length T on a fixed setup (d_k = 64, T = 8…2048,
// seed 1, engine.sweepSeqLen): 1/√d_k alone and with Scalable-Softmax's length factor s·ln n
// (s = 0.43), for i.i.d. q and k and for q and k with correlation 0.5 (each query has one key that
// matches it). Entropy with its ceiling ln T, and the mean largest weight of a row.
import { panelFrame } from '../../frame/panel-frame.js';
import { axis } from '../../charts/uplot-chart.js';
import { createStudy, studyChart } from '../../charts/study.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { meta } from './meta.js';

export { meta };

const LENGTH_SETUP = Object.freeze({
  dk: 64,
  seed: 1,
  lengthScale: 0.43,
  seqLens: [8, 16, 32, 64, 128, 256, 512, 1024, 2048],
});
const FIRST = LENGTH_SETUP.seqLens[0],
  LAST = LENGTH_SETUP.seqLens[LENGTH_SETUP.seqLens.length - 1];

export const CASES = [
  { id: 'iid', label: '1/√d_k, i.i.d.', set: { correlation: 0 }, color: 'sqrt' },
  {
    id: 'iidLn',
    label: `1/√d_k × ${LENGTH_SETUP.lengthScale}·ln n, i.i.d.`,
    set: { correlation: 0, lengthScale: LENGTH_SETUP.lengthScale },
    color: 'v2',
  },
  { id: 'corr', label: '1/√d_k, correlation 0.5', set: { correlation: 0.5 }, color: 'sqrt', dash: [7, 4] },
  {
    id: 'corrLn',
    label: `1/√d_k × ${LENGTH_SETUP.lengthScale}·ln n, correlation 0.5`,
    set: { correlation: 0.5, lengthScale: LENGTH_SETUP.lengthScale },
    color: 'v2',
    dash: [7, 4],
  },
];

export function mount(el, ctx = {}) {
  const tasks = CASES.map((c) => ({
    over: 'seqLen',
    cfg: { dk: LENGTH_SETUP.dk, seed: LENGTH_SETUP.seed, scale: 'sqrt', ...c.set },
    xs: LENGTH_SETUP.seqLens,
  }));
  const point = (i, T) => study.get(i, '', T);
  const frame = panelFrame(el, {
    name: 'length',
    title: meta.title,
    description: `Fixed setup: d_k = ${LENGTH_SETUP.dk}, T = ${FIRST}…${LAST}, seed ${LENGTH_SETUP.seed}, fp32, every query sees every key; measured once, not the page's setting.`,
    legend: [
      ...CASES.map((c) => ({ color: `c-${c.color}`, label: c.label, dash: c.dash ? 'dashed' : 'solid' })),
      { color: 'c-theory', label: 'ceiling ln T', dash: 'dotted' },
    ],
    // The largest weight at T = 64 and at the last T, per case (the entropies are in the CSV).
    readouts: CASES.flatMap((c) => [
      { stat: `length.${c.id}.maxFirst`, label: `max weight, T = 64, ${c.label}` },
      { stat: `length.${c.id}.maxLast`, label: `max weight, T = ${LAST}, ${c.label}` },
    ]),
    exports: {
      png: () => charts.map((c, i) => ({ u: c.c.u, title: i ? 'Mean largest weight vs T' : 'Entropy vs T' })),
      csv: () => {
        const rows = [
          ['case', 'seqLen', 'entropy', 'entropyMax', 'maxWeight', 'saturatedFraction', 'logitStd'],
        ];
        CASES.forEach((c, i) =>
          LENGTH_SETUP.seqLens.forEach((T) => {
            const p = point(i, T);
            if (p)
              rows.push([c.id, T, p.entropy, p.entropyMax, p.maxWeight, p.saturatedFraction, p.logitStd]);
          }),
        );
        return { rows };
      },
    },
  });

  const grid = h('div', { class: 'study-charts' });
  frame.body.append(grid);
  const cell = (title) => {
    const d = h('div', {}, h('h4', { class: 'subchart', text: title }));
    grid.append(d);
    return d;
  };
  const onDraw = () => {
    if (study?.done) ctx.onDrawn?.('length');
  };
  const series = (field) => CASES.map((c, i) => ({ ...c, value: (T) => point(i, T)?.[field] }));
  const charts = [
    studyChart(cell('Entropy of a row vs T'), {
      label:
        'Softmax entropy against the sequence length T, with and without the length factor, i.i.d. and correlated',
      xLabel: 'T',
      xs: LENGTH_SETUP.seqLens,
      yScale: { range: (u, lo, hi) => [0, Math.max(hi, 1) * 1.05] },
      yAxis: axis({ label: 'entropy (nats)', size: 50 }),
      series: [
        ...series('entropy'),
        { label: 'ln T', color: 'theory', dash: [2, 3], width: 1.25, value: (T) => Math.log(T) },
      ],
      onDraw,
    }),
    studyChart(cell('Mean largest weight of a row vs T'), {
      label:
        'Mean largest attention weight against the sequence length T, with and without the length factor, i.i.d. and correlated',
      xLabel: 'T',
      xs: LENGTH_SETUP.seqLens,
      yScale: { range: [0, 1.02] },
      yAxis: axis({ label: 'largest weight', size: 50 }),
      series: series('maxWeight'),
      onDraw,
    }),
  ];
  const draw = () => {
    for (const c of charts) c.draw();
  };

  function summarize() {
    const stats = Object.fromEntries(
      CASES.map((c, i) => [
        c.id,
        {
          maxFirst: point(i, 64)?.maxWeight,
          maxLast: point(i, LAST)?.maxWeight,
          entropyLast: point(i, LAST)?.entropy,
        },
      ]),
    );
    frame.setStats({ length: stats });
    frame.caption.textContent =
      `From T = 64 to ${LAST}, the mean largest weight goes from ${fmt(stats.corr.maxFirst, 3)} to ${fmt(stats.corr.maxLast, 3)} ` +
      `with 1/√d_k and correlated q, k, and from ${fmt(stats.corrLn.maxFirst, 3)} to ${fmt(stats.corrLn.maxLast, 3)} with the length factor; ` +
      `i.i.d.: ${fmt(stats.iid.maxFirst, 3)} → ${fmt(stats.iid.maxLast, 3)}, and ${fmt(stats.iidLn.maxFirst, 3)} → ${fmt(stats.iidLn.maxLast, 3)}.`;
    frame.setSummary(frame.caption.textContent);
  }

  const study = createStudy(el, frame, {
    ctx,
    tasks,
    slot: 1,
    onPoints: draw,
    onDone: () => {
      summarize();
      draw();
    },
  });

  return {
    redraw: () => {
      for (const c of charts) c.c.redraw();
    },
    destroy: () => {
      study.close();
      for (const c of charts) c.c.destroy();
    },
  };
}
