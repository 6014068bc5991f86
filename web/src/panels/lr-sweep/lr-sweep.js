// Learning-rate sensitivity (Wortsman et al. 2023, "Small-scale proxies for large-scale
// Transformer training instabilities"): the chosen copies of the training panel's task trained at
// each rate of a grid (the paper's 3·10⁻⁴ … 3·10⁻¹ by default) with the paper's schedule shape,
// linear warm-up then cosine decay, scaled to the run. It draws the final loss against the rate
// and the largest logit against the step, and gives each copy's LR sensitivity,
// E_η[min(ℓ(η), ℓ₀) − ℓ*] (lr-sensitivity.js). The runs start on a click, go to the Workers
// (lr-sweep-runs.js), draw as they finish and can be cancelled.
import { panelFrame } from '../../frame/panel-frame.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { LR_GRID, lrSensitivity } from './lr-sensitivity.js';
import { createLrCharts, rateText } from './lr-sweep-charts.js';
import { createSweepRuns } from './lr-sweep-runs.js';
import { meta } from './meta.js';

export { meta };

/** The fixed setup: the trainer's default task and size, Adam, and the paper's schedule shape. */
export const LR_SWEEP_SETUP = Object.freeze({
  base: {
    dk: 64,
    seqLen: 32,
    batchSize: 16,
    optimizer: 'adam',
    initScale: 1,
    seed: 1,
    schedule: 'warmup-cosine',
  },
  steps: 1000,
  copies: ['sqrt', 'layer_sqrt'],
});

/** The rates typed in → { rates } or { error } naming the entry and the trainer's range. */
function parseRates(text, trainSchema) {
  const f = trainSchema.find((x) => x.name === 'learningRate');
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  if (!parts.length) return { error: 'learning rates: give at least one rate' };
  const rates = [];
  for (const [i, s] of parts.entries()) {
    const v = Number(s);
    if (!Number.isFinite(v) || v < f.min || v > f.max)
      return {
        error: `learning rate ${i + 1} (“${s}”): learningRate must be a finite number in [${f.min}, ${f.max}], got ${s}`,
      };
    if (!rates.includes(v)) rates.push(v);
  }
  return { rates: rates.sort((a, b) => a - b) };
}

/** A copy's colour key (set through the CSSOM: a style attribute is refused under a strict CSP). */
function swatchOf(name) {
  const sw = h('span', { class: 'swatch solid', 'aria-hidden': 'true' });
  sw.style.setProperty('--swatch', `var(--c-${name})`);
  return sw;
}

/** The controls: copies, rates, steps, Run / Cancel, and the rate whose logits are drawn. */
function controls(choices, { onRun, onCancel, onLogitRate }) {
  const boxes = choices.map((c) =>
    h('label', { class: 'copy-choice' }, [
      h('input', { type: 'checkbox', value: c.name, checked: LR_SWEEP_SETUP.copies.includes(c.name) }),
      swatchOf(c.name),
      ` ${c.label}`,
    ]),
  );
  const rates = h('input', {
    type: 'text',
    value: LR_GRID.join(', '),
    size: 40,
    'aria-label': 'learning rates',
  });
  const steps = h('input', { type: 'number', min: 10, max: 20000, step: 10, value: LR_SWEEP_SETUP.steps });
  const run = h('button', {
    type: 'button',
    class: 'btn',
    text: 'Run the sweep',
    'data-action': 'lr-run',
    onclick: onRun,
  });
  const cancel = h('button', {
    type: 'button',
    class: 'btn',
    text: 'Cancel',
    'data-action': 'lr-cancel',
    onclick: onCancel,
    disabled: true,
  });
  const logitRate = h('select', { 'aria-label': 'learning rate of the logit chart', onchange: onLogitRate });
  const el = h('div', { class: 'lr-controls' }, [
    h('fieldset', { class: 'copy-picker' }, [
      h('legend', { text: 'Copies' }),
      h('div', { class: 'copy-list' }, boxes),
    ]),
    h('label', {}, ['Learning rates ', rates]),
    h('label', {}, ['Steps per run ', steps]),
    h('div', { class: 'lr-buttons' }, [run, cancel]),
    h('label', {}, ['Logits drawn at learning rate ', logitRate]),
  ]);
  const picked = () =>
    boxes
      .map((b) => b.firstChild)
      .filter((i) => i.checked)
      .map((i) => i.value);
  return { el, rates, steps, run, cancel, logitRate, picked };
}

/** The table of results: each copy's LR sensitivity (once all its runs are in), best loss, largest logits. */
function renderTable(table, copies, runs) {
  const rows = copies.map((c) => {
    const mine = runs.filter((r) => r.copy.name === c.name);
    const all = mine.length && mine.every((r) => r.done);
    const l0 = mine.find((r) => r.done)?.initialLoss;
    const best = mine
      .filter((r) => r.done && Number.isFinite(r.finalLoss))
      .sort((a, b) => a.finalLoss - b.finalLoss)[0];
    const sens = all
      ? lrSensitivity(
          mine.map((r) => r.finalLoss),
          l0,
        )
      : NaN;
    return h('tr', {}, [
      h('th', { scope: 'row', text: c.label }),
      h('td', { 'data-stat': 'lrSensitivity', 'data-copy': c.name, text: all ? fmt(sens, 3) : '—' }),
      h('td', { text: best ? `${fmt(best.finalLoss, 3)} at ${best.rate}` : '—' }),
      h('td', {
        text:
          mine
            .filter((r) => r.done)
            .map((r) => fmt(r.largestLogit, 3))
            .join(', ') || '—',
      }),
    ]);
  });
  table.replaceChildren(
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['copy', 'LR sensitivity (nats)', 'best final loss', 'largest |logit| per rate'].map((t) =>
          h('th', { scope: 'col', text: t }),
        ),
      ),
    ),
    h('tbody', {}, rows),
  );
}

/** The charts' text alternative: each copy's losses, largest logit and sensitivity so far. */
function sweepSummary(copies, runs) {
  if (!runs.length)
    return 'Learning-rate sweep, not run yet: Run the sweep trains each chosen copy at every rate.';
  const done = runs.filter((r) => r.done);
  const perCopy = copies.map((c) => {
    const mine = done.filter((r) => r.copy.name === c.name);
    if (!mine.length) return `${c.label}: no run done yet`;
    const losses = mine.map((r) => `${fmt(r.finalLoss, 3)} at ${r.rate}`).join(', ');
    const largest = Math.max(...mine.map((r) => r.largestLogit));
    return `${c.label}: final loss ${losses}; largest |logit| ${fmt(largest, 3)}`;
  });
  return `${done.length} of ${runs.length} runs done. ${perCopy.join('. ')}.`;
}

/** What the controls ask for → { rates, copies, steps } or { error } naming the field and its range. */
function readPlan(ui, trainSchema, choices) {
  const parsed = parseRates(ui.rates.value, trainSchema);
  if (parsed.error) return parsed;
  const names = ui.picked();
  if (!names.length) return { error: 'copies: pick at least one copy' };
  const steps = Number(ui.steps.value);
  if (!Number.isInteger(steps) || steps < 10 || steps > 20000)
    return { error: `steps per run must be an integer in [10, 20000], got ${ui.steps.value}` };
  return { rates: parsed.rates, copies: choices.filter((c) => names.includes(c.name)), steps };
}

export function mount(el, ctx = {}) {
  const choices = ctx.trainSchema?.find((f) => f.name === 'copies')?.choices ?? [];
  const state = { rates: [...LR_GRID], copies: [], logitRate: 0.1 };
  const frame = panelFrame(el, {
    name: 'lr-sweep',
    title: meta.title,
    description: `Each copy trained from the same start at every rate: d_k ${LR_SWEEP_SETUP.base.dk}, T ${LR_SWEEP_SETUP.base.seqLen}, batch ${LR_SWEEP_SETUP.base.batchSize}, Adam, linear warm-up over the first 5 % of the steps, then cosine decay.`,
    exports: {
      png: () => [
        { u: charts.lossChart.u, title: 'Final loss vs learning rate' },
        { u: charts.logitChart.u, title: `Largest |logit| vs step at ${state.logitRate}` },
      ],
      csv: () => ({
        rows: [
          ['copy', 'learningRate', 'steps', 'initialLoss', 'finalLoss', 'largestLogit'],
          ...runs.runs
            .filter((r) => r.done)
            .map((r) => [r.copy.name, r.rate, r.step, r.initialLoss, r.finalLoss, r.largestLogit]),
        ],
      }),
    },
  });
  const ui = controls(choices, {
    onRun: () => start(),
    onCancel: () => {
      runs.cancel();
      setState('cancelled', `Cancelled after ${doneCount()} of ${runs.runs.length} runs.`);
    },
    onLogitRate: () => {
      state.logitRate = Number(ui.logitRate.value);
      draw();
    },
  });
  const table = h('table', { class: 'lr-table' });
  const grid = h('div', { class: 'study-charts' });
  frame.body.append(ui.el, grid, table);
  const charts = createLrCharts(grid, choices);
  const doneCount = () => runs.runs.filter((r) => r.done).length;
  const runs = createSweepRuns(ctx.client, {
    onProgress: () => draw(),
    onDone: () => {
      draw();
      renderTable(table, state.copies, runs.runs);
      frame.setSummary(sweepSummary(state.copies, runs.runs));
      frame.status.textContent = `Training: ${doneCount()} of ${runs.runs.length} runs done.`;
      el.dataset.runsDone = String(doneCount());
    },
    onFinished: () => setState('done', ''),
    onError: (message) => setState('error', `The sweep stopped: ${message}`),
  });

  function setState(s, text) {
    el.dataset.lrSweep = s;
    frame.setSummary(sweepSummary(state.copies, runs.runs));
    frame.status.textContent = s === 'running' ? frame.status.textContent : '';
    frame.gaps.textContent = text;
    ui.run.disabled = s === 'running';
    ui.cancel.disabled = s !== 'running';
  }
  function draw() {
    charts.draw({ rates: state.rates, runs: runs.runs, logitRate: state.logitRate });
  }
  function start() {
    const plan = readPlan(ui, ctx.trainSchema ?? [], choices);
    if (plan.error) {
      setState('invalid', plan.error);
      return;
    }
    const { steps } = plan;
    state.rates = plan.rates;
    state.copies = plan.copies;
    if (!state.rates.includes(state.logitRate)) state.logitRate = state.rates[state.rates.length - 1];
    showRates();
    const copies = state.copies.map(({ name, scale, qkNorm, softcap, lengthScale }) => ({
      name,
      scale,
      qkNorm,
      softcap,
      lengthScale,
    }));
    try {
      runs.start({ copies, rates: state.rates, steps, base: LR_SWEEP_SETUP.base });
    } catch (err) {
      setState('error', err.message);
      return;
    }
    el.dataset.runsDone = '0';
    frame.caption.textContent = '';
    frame.status.textContent = `Training: 0 of ${runs.runs.length} runs done.`;
    setState('running', '');
    renderTable(table, state.copies, runs.runs);
    draw();
  }

  function showRates() {
    ui.logitRate.replaceChildren(
      ...state.rates.map((r) =>
        h('option', { value: r, text: rateText(r), selected: r === state.logitRate }),
      ),
    );
  }
  showRates();
  setState('idle', '');
  ctx.onDrawn?.('lr-sweep'); // its controls and empty charts: a sweep starts on a click
  frame.caption.textContent = `Not run yet: a sweep trains every copy at every rate (${LR_GRID.length} × ${LR_SWEEP_SETUP.copies.length} runs by default) on every core, and takes some seconds.`;
  return {
    redraw: () => {
      charts.lossChart.redraw();
      charts.logitChart.redraw();
    },
    destroy: () => {
      runs.close();
      charts.lossChart.destroy();
      charts.logitChart.destroy();
    },
  };
}
