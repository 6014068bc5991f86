// Chapter 8 — the scaling schemes against d_k, on a fixed setup (T = 128, d_k = 2…2048, seed 1):
// every named scaling, QK-norm (RMS or layer norm of each q and k row) before 1/√d_k, and the
// soft-cap of 50, each measured under three sampling assumptions (i.i.d.; mean 1 and std 2; the
// same with correlation 0.5). One chart per assumption; the reader picks the statistic shown. The
// study's setup and its schemes are data (state/study-presets.js: SCHEMES_STUDY); the scalings, the
// engine's schema.
import { panelFrame } from '../../frame/panel-frame.js';
import { logYAxis, axis } from '../../charts/uplot-chart.js';
import { createStudy, studyChart } from '../../charts/study.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { scalingsOf } from '../../state/choices.js';
import { SCHEMES_STUDY } from '../../state/study-presets.js';
import { meta } from './meta.js';

export { meta };

const { setup: SCHEMES_SETUP, conditions: CONDITIONS } = SCHEMES_STUDY;
const LAST = SCHEMES_SETUP.dks[SCHEMES_SETUP.dks.length - 1];

/**
 * The study's tasks and curves: every named scaling of the plain logits (one task), then the
 * schemes. Each task samples once and measures its scalings on the same Q, K
 * (engine.sweepScalesJob): schemes with the same settings share one.
 */
function studyPlan(schema) {
  const tasks = [{ cfg: {}, scales: [] }];
  const curves = scalingsOf(schema).map((s) => {
    tasks[0].scales.push(s.value);
    const label = SCHEMES_STUDY.scalingLabels[s.value] ?? s.label;
    return { id: s.value, label, task: 0, key: s.value, color: s.value };
  });
  for (const { set, scale, ...curve } of SCHEMES_STUDY.schemes) {
    let task = tasks.findIndex((t) => JSON.stringify(t.cfg) === JSON.stringify(set));
    if (task < 0) task = tasks.push({ cfg: set, scales: [] }) - 1;
    if (!tasks[task].scales.includes(scale)) tasks[task].scales.push(scale);
    curves.push({ ...curve, task, key: scale });
  }
  return { tasks, curves };
}

const METRICS = [
  { id: 'sigma', label: 'σ of the logits', field: 'logitStd', log: true },
  { id: 'max', label: 'largest logit', field: 'logitMax', log: true },
  { id: 'entropy', label: 'entropy (nats)', field: 'entropy', log: false },
];

const LN_T = Math.log(SCHEMES_SETUP.seqLen);

export function mount(el, ctx = {}) {
  // The statistic shown, one chart per sampling assumption, and the study that measures them.
  const state = { plan: studyPlan(ctx.schema), metric: METRICS[0], charts: [], study: null };
  const { plan } = state;
  const point = (ci, s, dk) => state.study.get(ci * plan.tasks.length + s.task, s.key, dk);

  const frame = panelFrame(el, {
    name: 'schemes',
    title: meta.title,
    description: `Fixed setup: T = ${SCHEMES_SETUP.seqLen}, d_k = 2…${LAST}, seed ${SCHEMES_SETUP.seed}, fp32; measured once, not the page's setting.`,
    legend: [
      ...plan.curves.map((s) => ({
        color: `c-${s.color}`,
        label: s.label,
        dash: s.dash ? 'dashed' : 'solid',
      })),
      { color: 'c-theory', label: 'ceiling ln T (entropy)', dash: 'dotted' },
    ],
    readouts: [
      { stat: 'schemes.shiftedSqrt', label: `σ, mean 1 std 2, 1/√d_k (d_k ${LAST})` },
      { stat: 'schemes.shiftedRms', label: 'σ, mean 1 std 2, RMS-norm' },
      { stat: 'schemes.shiftedLayer', label: 'σ, mean 1 std 2, layer-norm' },
      { stat: 'schemes.shiftedRmsMean', label: 'mean logit, mean 1 std 2, RMS-norm' },
      { stat: 'schemes.shiftedLayerMean', label: 'mean logit, mean 1 std 2, layer-norm' },
      { stat: 'schemes.correlatedLayer', label: 'σ, correlation 0.5, layer-norm' },
      { stat: 'schemes.correlatedSqrtMax', label: 'largest logit, correlation 0.5, 1/√d_k' },
      { stat: 'schemes.correlatedLinearMax', label: 'largest logit, correlation 0.5, 1/d_k' },
    ],
    exports: {
      png: () =>
        state.charts.map((c, i) => ({
          u: c.c.u,
          title: `${state.metric.label} vs d_k, ${CONDITIONS[i].title}`,
        })),
      csv: () => ({ rows: csvRows(plan, point) }),
    },
  });

  const draw = () => {
    for (const c of state.charts) c.draw();
  };
  const grid = h('div', { class: 'study-charts' });
  const rebuild = () => {
    rebuildCharts(grid, state, point, ctx);
    draw();
  };
  frame.body.append(metricSwitch(state, rebuild));
  frame.body.append(grid);

  state.study = createStudy(el, frame, {
    ctx,
    tasks: studyTasks(plan),
    slot: 0,
    onPoints: draw,
    onDone: () => {
      summarize(frame, plan, point);
      draw();
    },
  });
  rebuild();

  return {
    redraw: () => {
      for (const c of state.charts) c.c.redraw();
    },
    destroy: () => {
      state.study.close();
      for (const c of state.charts) c.c.destroy();
    },
  };
}

// Every task of the plan once per sampling assumption, over the study's d_k.
function studyTasks(plan) {
  return CONDITIONS.flatMap((cond) =>
    plan.tasks.map((t) => ({
      over: 'dk',
      cfg: { seqLen: SCHEMES_SETUP.seqLen, seed: SCHEMES_SETUP.seed, ...cond.set, ...t.cfg },
      xs: SCHEMES_SETUP.dks,
      scales: t.scales,
    })),
  );
}

// One CSV row per assumption, scheme and d_k measured so far.
function csvRows(plan, point) {
  const rows = [
    [
      'assumption',
      'scheme',
      'dk',
      'logitStd',
      'logitMean',
      'logitMax',
      'entropy',
      'maxWeight',
      'normLogitStd',
      'rawLogitStd',
    ],
  ];
  CONDITIONS.forEach((cond, ci) =>
    plan.curves.forEach((s) =>
      SCHEMES_SETUP.dks.forEach((dk) => {
        const p = point(ci, s, dk);
        if (p)
          rows.push([
            cond.id,
            s.id,
            dk,
            p.logitStd,
            p.logitMean,
            p.logitMax,
            p.entropy,
            p.maxWeight,
            p.normLogitStd,
            p.rawLogitStd,
          ]);
      }),
    ),
  );
  return rows;
}

// The "Show:" buttons: picking a statistic marks its button pressed and rebuilds the charts.
function metricSwitch(state, rebuild) {
  const buttons = METRICS.map((m) =>
    h('button', {
      type: 'button',
      class: 'btn small',
      'aria-pressed': String(m === state.metric),
      text: m.label,
      onclick: () => {
        state.metric = m;
        for (const b of buttons) b.setAttribute('aria-pressed', String(b === buttons[METRICS.indexOf(m)]));
        rebuild();
      },
    }),
  );
  return h(
    'div',
    { class: 'metric-switch', role: 'group', 'aria-label': 'Statistic shown' },
    h('span', { text: 'Show:' }),
    ...buttons,
  );
}

// Replaces the charts in `grid` with one per assumption for the statistic now shown.
function rebuildCharts(grid, state, point, ctx) {
  const { metric, plan } = state;
  for (const c of state.charts) c.c.destroy();
  grid.replaceChildren();
  state.charts = CONDITIONS.map((cond, ci) => {
    const cell = h('div', {}, h('h4', { class: 'subchart', text: cond.title }));
    grid.append(cell);
    const series = plan.curves.map((s) => ({ ...s, value: (dk) => point(ci, s, dk)?.[metric.field] }));
    if (metric.id === 'entropy')
      series.push({ label: 'ln T', color: 'theory', dash: [2, 3], width: 1.25, value: () => LN_T });
    return studyChart(cell, {
      label: `${metric.label} against d_k for seven scaling schemes, ${cond.title}`,
      xLabel: 'd_k',
      xs: SCHEMES_SETUP.dks,
      yScale: metric.log ? { distr: 3, log: 10 } : { range: [0, LN_T * 1.05] },
      yAxis: metric.log ? logYAxis(metric.label) : axis({ label: metric.label, size: 50 }),
      series,
      aspect: 0.8,
      onDraw: () => {
        if (state.study?.done) ctx.onDrawn?.('schemes');
      },
    });
  });
}

// Readouts, caption and summary from the largest d_k, once the study is done.
function summarize(frame, plan, point) {
  const at = (ci, id, f = 'logitStd') =>
    point(
      ci,
      plan.curves.find((s) => s.id === id),
      LAST,
    )?.[f];
  const stats = {
    shiftedSqrt: at(1, 'sqrt'),
    shiftedRms: at(1, 'rms'),
    shiftedLayer: at(1, 'layer'),
    shiftedRmsMean: at(1, 'rms', 'logitMean'),
    shiftedLayerMean: at(1, 'layer', 'logitMean'),
    correlatedLayer: at(2, 'layer'),
    correlatedSqrtMax: at(2, 'sqrt', 'logitMax'),
    correlatedLinearMax: at(2, 'linear', 'logitMax'),
  };
  frame.setStats({ schemes: stats });
  frame.caption.textContent =
    `At d_k = ${LAST}, mean 1 and std 2: σ of the logits ${fmt(stats.shiftedSqrt, 3)} with 1/√d_k alone, ` +
    `${fmt(stats.shiftedRms, 3)} after RMS-norm, ${fmt(stats.shiftedLayer, 3)} after layer-norm; with correlation 0.5 the layer-normed σ is ` +
    `${fmt(stats.correlatedLayer, 3)}, and the largest logit is ${fmt(stats.correlatedSqrtMax, 3)} with 1/√d_k against ${fmt(stats.correlatedLinearMax, 3)} with 1/d_k.`;
  frame.setSummary(frame.caption.textContent);
}
