// Chart 7 — training. A tiny attention model (cpp/train/train.hpp: one attention layer learning
// multi-query associative recall) trained with the logit scale none, 1/√d_k and 1/d_k (and the
// page's custom multiplier, when set) side by side, from one initialisation, on the same batches.
//
// The trainer lives in a compute Worker of its own (worker-client.js: openTraining). Steps are
// pulled one chunk at a time: a chunk is sized to take about CHUNK_MS of Worker time, the next one
// is requested when its answer arrives, and nothing else queues up. So the page never waits on
// the engine, Pause takes effect as soon as the chunk in flight is back, and Reset or a change of
// config simply drops whatever was in flight (every request carries the run's generation).
// d_k, T, precision and the custom multiplier come from the page (train-state.js says how they
// are clamped, and the panel says so in a plain line beside its settings: fitting the page's
// values to the trainer is expected, not a warning); the optimizer, learning rate, init scale,
// batch size, seed, pause step and the copies trained (none, 1/√d_k, 1/d_k by default; QK-norm,
// soft-cap and s·ln T schemes on request) are this panel's, and live in the URL under their own names
// (the `urlState` of the API below: the app reads and writes them with the page's fields).
// Every number drawn is a metric the engine measured on that step's batch, before the update.
import { panelFrame, createChart, axis, logYAxis, readPalette, drawImageInPlot } from '../../charts/common.js';
import { rampRgb, tOf, FLOOR } from '../heatmap/heatmap.js';
import { h, uniquePrefix } from '../../ui/dom.js';
import { fmt, axisNum } from '../../ui/format.js';
import { getEngineClient } from '../../compute/worker-client.js';
import {
  COPIES, COPY_SCHEMES, DEFAULT_COPIES, METRICS, STEP_BUTTON_STEPS, VALUE_TOKENS, REACH_ACCURACY, TRAIN_PRESETS, FINDINGS_PRESETS, PRESET_PAGE_BASE,
  copyLabel, defaultSettings, coerceSetting, trainerConfig, trainerKey, copiesOf, describeRun, stepReaching, summarize,
  settingsFromQuery, settingsToQuery,
} from '../../state/train-state.js';
import { PANEL_META } from '../meta.js';

export const meta = PANEL_META.training;

const CHUNK_MS = 50; // Worker time per chunk (bounds the delay of Pause)
const MAX_CHUNK = 100;
const FIRST_CHUNK = 10;
const DRAW_EVERY_MS = 120; // chart redraws while playing
const SUMMARY_EVERY_MS = 1000;
const ATTENTION_EVERY_MS = 400; // heatmaps refresh at most this often while playing
const SPEED_WINDOW_MS = 1500;

const SETTING_UI = [
  { name: 'optimizer', label: 'Optimizer', kind: 'select', options: { adam: 'Adam', sgd: 'SGD (plain)' },
    hint: 'Adam rescales each weight’s step; plain SGD steps along the raw gradient, so gradient size matters directly.' },
  { name: 'learningRate', label: 'Learning rate', kind: 'number',
    hint: 'Adam’s usual 0.001 is the default. Plain SGD needs a far larger rate on this task (about 1).' },
  { name: 'initScale', label: 'Init scale σ', kind: 'number',
    hint: 'The std of every embedding component, so every q and k component starts with std σ. σ = 1 is the unit-variance assumption that 1/√d_k is built on; without scaling, the logits start with std σ²·√d_k.' },
  { name: 'batchSize', label: 'Batch size', kind: 'number', step: 1, hint: 'Sequences per step (each has T queries).' },
  { name: 'seed', label: 'Seed', kind: 'number', step: 1, hint: 'Picks the starting weights, the batches and the example drawn below.' },
  { name: 'stopAt', label: 'Pause at step', kind: 'number', step: 1, min: 0, hint: 'Play pauses when the counter reaches this step (0: run until paused).' },
];
const TABLE_COLS = [
  ['loss', 'loss'], ['accuracy', 'accuracy'], ['entropy', 'entropy (nats)'], ['saturatedFraction', 'saturated rows'],
  ['gradNormWq', '‖∇W_q‖'], ['gradNormWk', '‖∇W_k‖'], ['stepTo90', `${100 * REACH_ACCURACY}% at step`],
];

export function mount(el, ctx = {}) {
  const client = ctx.client ?? getEngineClient();
  const idp = uniquePrefix('tr');
  let schema = ctx.trainSchema ?? null;
  let settings = null;
  let pageCfg = null; // the page fields the trainer uses
  let derived = null; // { cfg, notes } from pageCfg + settings
  let inputNotes = [];

  // --- the run (main-thread copy of everything the Worker measured) ---
  let run = null; // { cfg, steps: [], copies: { c: { metric: [] } }, draw: { c: { metric: [] } }, reached, reachState }
  let gen = 0; // bumped by every reset / new trainer; answers of older generations are dropped
  let live = null; // key of the trainer config in the Worker
  let inflight = 0; // id of the step request in the Worker (0: none)
  let playing = false;
  let stepsWanted = 0; // Step button: steps still to run
  let limit = Infinity; // Play pauses at this step
  let msPerStep = NaN;
  let lastAttentionAt = 0, chunkHadAttention = false;
  let heat = null; // { T, maps: { copy: Float32Array } }
  let speedSamples = []; // [time, steps, cumulative Worker ms]
  let workerMs = 0;
  let stepsPerSec = NaN, engineStepsPerSec = NaN;
  let lastDraw = 0, lastSummary = 0, drawQueued = false;
  let session = null;

  const frame = panelFrame(el, {
    name: 'training',
    title: 'Training side by side',
    description: 'One attention layer learns to look up a value by its key. The copies differ only in the logit scale: same start, same batches, measured every step.',
    legend: legendFor(['none', 'sqrt', 'linear']),
    exports: {
      png: () => [...charts.map((c) => ({ u: c.chart.u, title: c.title })), ...heatCharts.map((c) => ({ u: c.chart.u, title: `Attention of the fixed example: ${c.label}` }))],
      legend: () => legendFor(run ? copiesOf(run.cfg) : derived ? copiesOf(derived.cfg) : DEFAULT_COPIES, (run ?? derived)?.cfg.scale),
      csv: () => csvRows(),
    },
  });

  function legendFor(copies, scale) {
    return [
      ...copies.map((c) => ({ color: `c-${c}`, label: copyLabel(c, scale) })),
      { color: 'fg', label: 'W_q (gradient chart)' },
      { color: 'fg', label: 'W_k (gradient chart)', dash: 'dashed' },
      { color: 'c-theory', label: 'chance / ceiling', dash: 'dashed' },
    ];
  }

  // --- controls ---
  const playBtn = h('button', { type: 'button', class: 'btn train-play', 'data-action': 'play', 'aria-describedby': `${idp}status`, text: 'Play', onclick: () => (playing ? pause() : play()) });
  const stepBtn = h('button', {
    type: 'button', class: 'btn', 'data-action': 'step', text: `Step +${STEP_BUTTON_STEPS}`,
    'aria-label': `Step +${STEP_BUTTON_STEPS}: run ${STEP_BUTTON_STEPS} more steps`, onclick: () => stepOnce(),
  });
  const resetBtn = h('button', { type: 'button', class: 'btn', 'data-action': 'reset', text: 'Reset', 'aria-label': 'Reset: back to the starting weights, step 0', onclick: () => reset() });
  const stepOut = h('output', { 'data-stat': 'train.step', text: '0' });
  const speedOut = h('output', { 'data-stat': 'train.speed', text: '—' });
  const status = h('p', { class: 'train-status', id: `${idp}status`, role: 'status', 'aria-live': 'polite' });
  const transport = h('div', { class: 'train-transport', role: 'group', 'aria-label': 'Training' },
    playBtn, stepBtn, resetBtn,
    h('span', { class: 'train-counter' }, 'step ', stepOut),
    h('span', { class: 'train-speed', title: 'Steps of all copies per second, wall clock, while playing' }, speedOut, ' steps/s'));
  const presetNote = h('p', { class: 'train-preset-note' });
  const presetButtons = (list) => h('div', { class: 'train-preset-list' }, list.map((p) => h('button', {
    type: 'button', class: 'btn small', 'data-train-preset': p.id, text: p.title, onclick: () => applyPreset(p),
  })));
  const presetBox = h('div', { class: 'train-presets' },
    h('p', { class: 'train-presets-title', text: 'Repeat a measured comparison (T 32, batch 16, fp32, seed 1, 500 steps):' }),
    presetButtons(TRAIN_PRESETS),
    h('p', { class: 'train-presets-title', text: 'The newer schemes (QK-norm, soft-caps, s·ln T), same settings:' }),
    presetButtons(FINDINGS_PRESETS),
    presetNote);
  const fieldsBox = h('div', { class: 'train-fields' });
  const settingsBox = h('fieldset', { class: 'control-group train-settings' }, h('legend', { text: 'Training settings' }), fieldsBox);
  // The copies picker: one labelled checkbox per scheme, its colour beside it.
  const copyBoxes = new Map();
  const copiesHintId = `${idp}copies-hint`;
  const copiesBox = h('fieldset', { class: 'control-group train-copies' }, h('legend', { text: 'Copies to train' }),
    h('div', { class: 'train-copy-list' }, COPY_SCHEMES.map((c) => {
      const id = `${idp}copy-${c.name}`;
      const input = h('input', { type: 'checkbox', id, value: c.name, 'data-train-copy': c.name, 'aria-describedby': copiesHintId });
      input.addEventListener('change', () => changeCopies(c.name));
      copyBoxes.set(c.name, input);
      const sw = h('span', { class: 'swatch solid', 'aria-hidden': 'true' });
      sw.style.setProperty('--swatch', `var(--c-${c.name})`);
      return h('label', { for: id, class: 'train-copy' }, input, sw, h('span', { text: c.label }));
    })),
    h('p', { class: 'hint', id: copiesHintId, text: 'All copies start from the same weights and see the same batches; they differ only in how they form their logits. '
      + 'QK-norm normalizes each query and key row (with a learned gain) before 1/√d_k; a soft-cap c turns a logit z into c·tanh(z/c); '
      + '0.43 ln T multiplies the 1/√d_k logits by 0.43·ln T (Scalable-Softmax). Changing the copies starts the run again.' }));
  const fromPage = h('p', { class: 'train-from-page' });
  const adjustBox = h('div', { class: 'train-adjust', role: 'status' }); // the page's values fitted to the trainer
  const notesBox = h('div', { class: 'train-notes', role: 'status' }); // a typed value the panel could not use
  frame.body.append(h('div', { class: 'train-controls' }, transport, status, presetBox, settingsBox, copiesBox, fromPage, adjustBox, notesBox));

  const inputs = new Map();
  function buildSettings() {
    for (const ui of SETTING_UI) {
      const f = schema.find((x) => x.name === ui.name) ?? { name: ui.name, min: ui.min };
      const id = `${idp}${ui.name}`;
      const hintId = `${id}-hint`;
      let input;
      if (ui.kind === 'select') {
        input = h('select', { id, 'aria-describedby': hintId }, (f.values ?? Object.keys(ui.options)).map((v) => h('option', { value: v, text: ui.options[v] ?? v })));
      } else {
        input = h('input', {
          type: 'number', id, 'aria-describedby': hintId, step: ui.step ?? 'any', inputmode: ui.step ? 'numeric' : 'decimal',
          min: f.min ?? ui.min, max: f.max,
        });
      }
      input.addEventListener('change', () => changeSetting(ui.name, input.value));
      inputs.set(ui.name, input);
      fieldsBox.append(h('div', { class: 'control', 'data-train-field': ui.name },
        h('label', { for: id, text: ui.label }), input, h('p', { class: 'hint', id: hintId, text: ui.hint })));
    }
    showSettings();
  }
  function showSettings() {
    for (const [name, input] of inputs) input.value = String(settings[name]);
    for (const [name, box] of copyBoxes) box.checked = settings.copies.includes(name);
  }

  // --- charts ---
  const grid = h('div', { class: 'train-charts' });
  frame.body.append(frame.legendEl, grid); // the key to the colours, above the charts it explains
  const charts = [];
  // One series per possible copy (the schemes and 'custom'); copies not in the run have no data.
  // RMS- and layer-norm copies often run on the same curve: the RMS one is drawn wider, beneath.
  const copySeries = (suffix = '', dash) => COPIES.map((c) => ({
    label: `${c}${suffix}`, stroke: (u) => u.pal[c], width: (dash ? 1.5 : 2) * (c === 'rms_sqrt' ? 2.2 : 1), dash, points: { show: false }, spanGaps: false,
  }));
  function addChart(title, label, scaleY, yAxis, series, onDraw) {
    const box = h('div', { class: 'train-chart' }, h('h4', { class: 'subchart', text: title }));
    grid.append(box);
    const chart = createChart(box, {
      label, aspect: 0.55, minH: 170, maxH: 260,
      makeOpts: () => ({
        scales: { x: { time: false, range: (u, lo, hi) => [0, Math.max(10, hi ?? 10)] }, y: scaleY },
        axes: [axis({ label: 'step', size: 40 }), yAxis],
        series: [{}, ...series],
      }),
      data: [[0, 1], ...series.map(() => [null, null])],
      onDraw,
    });
    const entry = { title, chart, nSeries: series.length };
    charts.push(entry);
    return entry;
  }
  const hline = (y, text) => (u) => drawHLine(u, typeof y === 'function' ? y() : y, text);
  const T = () => run?.cfg.seqLen ?? derived?.cfg.seqLen ?? 32;
  const lossChart = addChart('Loss (cross-entropy, nats; log scale)', 'Training loss of each copy against the step, log scale',
    { distr: 3, log: 10 }, logYAxis('loss'), copySeries(), hline(Math.log(VALUE_TOKENS), `chance: ln ${VALUE_TOKENS}`));
  const accChart = addChart('Accuracy', 'Accuracy of each copy against the step',
    { range: [0, 1] }, axis({ label: 'accuracy', size: 46, values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))) }), copySeries(), hline(1 / VALUE_TOKENS, `chance: 1/${VALUE_TOKENS}`));
  const gradChart = addChart('Gradient norm of W_q (solid) and W_k (dashed); log scale', 'Frobenius norm of the gradient of W_q and of W_k for each copy against the step, log scale',
    { distr: 3, log: 10 }, logYAxis('‖∇W‖'), [...copySeries(' W_q'), ...copySeries(' W_k', [6, 4])]);
  const entChart = addChart('Attention entropy (nats)', 'Mean attention entropy of each copy against the step, with the ceiling ln T',
    { range: () => [0, Math.log(T()) * 1.06] }, axis({ label: 'entropy (nats)', size: 46, values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))) }), copySeries(),
    (u) => drawHLine(u, Math.log(T()), `ceiling ln T = ${fmt(Math.log(T()), 3)} (uniform)`));
  const satChart = addChart('Saturated rows (largest weight > 0.99)', 'Fraction of attention rows whose largest weight is above 0.99, each copy, against the step',
    { range: [0, 1] }, axis({ label: 'fraction of rows', size: 46, values: (u, s) => s.map((v) => (v == null ? '' : fmt(v, 2))) }), copySeries());

  // --- attention heatmaps (one fixed example) ---
  const heatTitle = h('h4', { class: 'subchart', text: 'Attention of one fixed example (row = query, column = key; colour = weight, log scale)' });
  const heatGrid = h('div', { class: 'train-heat' });
  const heatCaption = h('p', { class: 'caption', text: 'Press Play or Step: the copies’ attention patterns appear here.' });
  frame.body.append(heatTitle, heatGrid, heatCaption);
  let heatCharts = [];
  let heatCopiesKey = '';
  function buildHeat(copies, scale) {
    const key = copies.join(',') + (typeof scale === 'number' ? `:${scale}` : '');
    if (key === heatCopiesKey) return;
    heatCopiesKey = key;
    for (const c of heatCharts) c.chart.destroy();
    heatGrid.replaceChildren();
    heatCharts = copies.map((copy) => {
      const label = copyLabel(copy, scale);
      const box = h('div', { class: 'train-heat-cell' }, h('p', { class: 'train-heat-label', text: label }));
      heatGrid.append(box);
      let image = null;
      const chart = createChart(box, {
        label: `Attention weights of the fixed example under the ${label} copy`,
        aspect: (w) => w - 4, minH: 180, maxH: 280, maxW: 280,
        makeOpts: () => ({
          padding: [4, 6, 0, 0],
          scales: { x: { time: false, range: () => [0, T()] }, y: { range: () => [0, T()], dir: -1 } },
          axes: [axis({ side: 2, size: 26, values: (u, s) => s.map(axisNum) }), axis({ side: 3, size: 30, scale: 'y', values: (u, s) => s.map(axisNum) })],
          series: [{}, { stroke: 'transparent', points: { show: false } }],
        }),
        data: [[0, 1], [0, 1]],
        onDraw: (u) => {
          if (!image) return;
          drawImageInPlot(u, image);
        },
      });
      return { copy, label, chart, setImage(img) { image = img; } };
    });
  }
  function paintHeat() {
    if (!heat) return;
    for (const hc of heatCharts) {
      const w = heat.maps[hc.copy];
      if (!w) continue;
      const n = heat.T;
      const canvas = document.createElement('canvas');
      canvas.width = n;
      canvas.height = n;
      const g = canvas.getContext('2d');
      const img = g.createImageData(n, n);
      const nonFin = hexRgb(readPalette(el).nonfinite);
      for (let i = 0; i < n * n; i++) {
        const v = w[i];
        const rgb = Number.isFinite(v) ? rampRgb(tOf(v)) : nonFin;
        img.data[4 * i] = rgb[0]; img.data[4 * i + 1] = rgb[1]; img.data[4 * i + 2] = rgb[2]; img.data[4 * i + 3] = 255;
      }
      g.putImageData(img, 0, 0);
      hc.setImage(canvas);
      hc.chart.setData([[0, n], [0, n]]);
    }
    heatCaption.textContent = `At step ${heat.step}. The same ${heat.T} × ${heat.T} example for every copy; colours from ${FLOOR} (dark) to 1 (yellow) on a log scale, as in the attention weights panel. A trained copy puts each row’s weight on the one key its query asks for.`;
  }

  // --- table + summary ---
  // Scrolls sideways on a narrow screen: focusable and named, so a keyboard can scroll it too.
  const tableWrap = h('div', { class: 'train-table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Training numbers (scrollable table)' });
  const summaryEl = h('p', { class: 'train-summary', 'data-train-summary': '' });
  frame.body.append(h('h4', { class: 'subchart', text: 'Numbers' }), tableWrap,
    h('p', { class: 'caption', id: `${idp}table-note`, text: `“${100 * REACH_ACCURACY}% at step”: the first step at which the accuracy averaged over the last 10 steps reached ${REACH_ACCURACY}.` }),
    h('h4', { class: 'subchart', text: 'What the curves show now' }), summaryEl);
  let tableCopiesKey = '';
  const cells = new Map();
  function buildTable(copies, scale) {
    const key = copies.join(',') + (typeof scale === 'number' ? `:${scale}` : '');
    if (key === tableCopiesKey) return;
    tableCopiesKey = key;
    cells.clear();
    const body = h('tbody', {}, copies.map((c) => h('tr', {}, h('th', { scope: 'row', text: copyLabel(c, scale) }),
      TABLE_COLS.map(([m]) => {
        const td = h('td', { 'data-stat': `train.${c}.${m}`, text: '—' });
        cells.set(`${c}.${m}`, td);
        return td;
      }))));
    tableWrap.replaceChildren(h('table', { class: 'variants train-table', 'aria-describedby': `${idp}table-note` },
      h('caption', { text: 'Each copy at the latest step' }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'copy' }), TABLE_COLS.map(([, t]) => h('th', { scope: 'col', text: t })))),
      body));
  }

  // --- derived config ---
  function derive() {
    if (!schema || !settings || !pageCfg) return;
    derived = trainerConfig(pageCfg, settings, schema);
    const c = derived.cfg;
    const copies = copiesOf(c);
    if (!run) {
      buildHeat(copies, c.scale);
      buildTable(copies, c.scale);
      frame.setLegend(legendFor(copies, c.scale));
    }
    fromPage.textContent = `From the page’s settings: d_k ${c.dk}, T ${c.seqLen}, precision ${c.precision}; copies: ${copies.map((x) => copyLabel(x, c.scale)).join(', ')}`
      + `${typeof c.scale === 'number' ? ' (the last: the page’s custom multiplier)' : ' (a custom scaling on the page adds one more)'}.`;
    renderNotes();
    if (live !== null && live !== trainerKey(c)) {
      // The curves on screen belong to another config: start over (keep playing if playing).
      newGeneration();
      live = null;
      setStatus(`Settings changed (${describeRun(c)}): the run starts again from step 0.`);
      pump();
    }
  }
  // Both boxes are live regions: they are rebuilt only when their text changes (a d_k drag would
  // otherwise repeat the same sentence to a screen reader at every step).
  let shownNotes = '';
  function renderNotes() {
    const adjusted = derived?.notes ?? [];
    const key = JSON.stringify([adjusted, inputNotes]);
    if (key === shownNotes) return;
    shownNotes = key;
    adjustBox.replaceChildren(...adjusted.map((l) => h('p', { text: l })));
    if (pageCfg && derived && derived.cfg.seqLen !== pageCfg.seqLen && ctx.setConfig) {
      adjustBox.append(h('button', { type: 'button', class: 'btn small', text: 'Set the page’s T to 32', onclick: () => ctx.setConfig({ seqLen: 32 }) }));
    }
    notesBox.replaceChildren();
    if (!inputNotes.length) return;
    notesBox.append(h('div', { class: 'notice warning' }, h('p', { class: 'notice-title', text: 'Some values were adjusted' }),
      h('ul', {}, inputNotes.map((l) => h('li', { text: l })))));
  }
  /** New settings (a control, a preset or the URL); `fromUrl` applies them without writing the URL back. */
  function applySettings(next, { fromUrl = false } = {}) {
    const same = (a, b) => (Array.isArray(a) ? a.join() === b?.join?.() : a === b);
    const stopOnly = Object.keys(next).every((k) => k === 'stopAt' || same(next[k], settings[k]));
    settings = { ...settings, ...next };
    showSettings();
    if (!fromUrl) ctx.onUrlStateChange?.();
    if (stopOnly) {
      if (playing) limit = settings.stopAt > stepsDone() ? settings.stopAt : Infinity;
      renderNotes();
      return;
    }
    derive();
  }
  function changeCopies(name) {
    const chosen = COPY_SCHEMES.map((c) => c.name).filter((n) => copyBoxes.get(n).checked);
    if (!chosen.length) {
      copyBoxes.get(name).checked = true;
      inputNotes = ['At least one copy must be trained: it stays picked.'];
      renderNotes();
      return;
    }
    inputNotes = [];
    applySettings({ copies: chosen });
  }
  function changeSetting(name, value) {
    const { value: v, notice } = coerceSetting(schema, name, value);
    inputNotes = notice ? [notice] : [];
    applySettings({ [name]: v });
  }
  function readPage(c) {
    if (!c) return false;
    const next = { dk: c.dk, seqLen: c.seqLen, precision: c.precision, saturate: c.saturate, scale: typeof c.scale === 'number' ? c.scale : null };
    if (pageCfg && Object.keys(next).every((k) => next[k] === pageCfg[k])) return false;
    pageCfg = next;
    return true;
  }

  // --- the run ---
  const stepsDone = () => (run ? run.steps.length : 0);
  function newGeneration() {
    gen += 1;
    run = null;
    heat = null;
    speedSamples = [];
    stepsWanted = 0;
    scheduleDraw(true);
  }
  function ensureRun() {
    const cfg = derived.cfg;
    const key = trainerKey(cfg);
    if (!run) {
      const copies = copiesOf(cfg);
      run = {
        cfg, steps: [],
        copies: Object.fromEntries(copies.map((c) => [c, Object.fromEntries(METRICS.map((m) => [m, []]))])),
        draw: Object.fromEntries(copies.map((c) => [c, Object.fromEntries(METRICS.map((m) => [m, []]))])),
        reached: Object.fromEntries(copies.map((c) => [c, null])),
        reachState: Object.fromEntries(copies.map((c) => [c, { sum: 0, at: null, next: 0 }])),
      };
      buildHeat(copies, cfg.scale);
      buildTable(copies, cfg.scale);
      frame.setLegend(legendFor(copies, cfg.scale));
    }
    if (live !== key) {
      session ??= client.openTraining({ onMessage, onError });
      session.send('create', { cfg, attention: true, tag: gen });
      live = key;
    }
  }
  function pump() {
    if (inflight || !derived) return;
    let n;
    if (playing) {
      if (stepsDone() >= limit) { finishPlay(`Paused at step ${stepsDone()} (the “pause at step” setting).`); return; }
      n = Number.isFinite(msPerStep) ? Math.round(CHUNK_MS / Math.max(msPerStep, 1e-3)) : FIRST_CHUNK;
      n = Math.max(1, Math.min(MAX_CHUNK, n, limit - stepsDone()));
    } else if (stepsWanted > 0) {
      n = Math.min(stepsWanted, MAX_CHUNK);
    } else {
      return;
    }
    ensureRun();
    const now = performance.now();
    const last = !playing ? n === stepsWanted : stepsDone() + n >= limit;
    const attention = last || now - lastAttentionAt >= ATTENTION_EVERY_MS;
    if (attention) lastAttentionAt = now;
    inflight = session.send('step', { n, attention, tag: gen });
  }
  function onMessage(m) {
    if (m.op === 'step' && m.id === inflight) inflight = 0;
    if (m.tag !== gen || !run) { pump(); updateButtons(); settle(); return; } // an older run's answer
    if (m.attention) {
      heat = { T: m.config.seqLen, maps: m.attention, step: m.total };
      paintHeat();
      chunkHadAttention = true;
    }
    if (m.op === 'step') {
      append(m);
      chunkHadAttention = !!m.attention;
      if (!playing) stepsWanted = Math.max(0, stepsWanted - m.step.length);
      const per = m.ms / m.step.length;
      msPerStep = Number.isFinite(msPerStep) ? 0.7 * msPerStep + 0.3 * per : per; // sizes the next chunk
      workerMs += m.ms;
      const now = performance.now();
      speedSamples.push([now, stepsDone(), workerMs]);
      while (speedSamples.length > 2 && now - speedSamples[0][0] > SPEED_WINDOW_MS) speedSamples.shift();
      if (playing && speedSamples.length >= 2) {
        // Over the last ~1.5 s: steps per second of wall clock (what the visitor sees), and per
        // second of Worker compute (the engine alone; for the benchmark).
        const [t0, s0, w0] = speedSamples[0];
        stepsPerSec = ((stepsDone() - s0) * 1000) / (now - t0);
        engineStepsPerSec = ((stepsDone() - s0) * 1000) / (workerMs - w0);
        el.dataset.engineStepsPerSec = engineStepsPerSec.toFixed(1);
      }
      scheduleDraw();
    }
    pump();
    updateButtons();
    settle();
  }
  let pausedNote = null; // the status to show once the last chunk is in: (step) => text
  function settle() {
    if (inflight || playing || stepsWanted > 0) return;
    if (pausedNote) { setStatus(pausedNote(stepsDone())); pausedNote = null; }
    if (!run) return;
    // Idle: make sure the heatmaps show the final weights.
    if (!chunkHadAttention && run.steps.length && live !== null) {
      chunkHadAttention = true;
      session.send('attention', { tag: gen });
    }
    scheduleDraw(true);
  }
  let failedGen = -1;
  function onError(m) {
    // Requests are answered in order, so an error is the answer to the oldest one still open.
    inflight = 0;
    playing = false;
    stepsWanted = 0;
    live = null;
    updateButtons();
    if (failedGen !== gen) setStatus(`Training failed: ${m.message}`); // keep the first cause
    failedGen = gen;
  }
  function append(m) {
    const n = m.step.length;
    // The counter is written in draw(), with the table and charts: a reader (or a test) who sees
    // step N also sees step N's numbers, never the previous chunk's.
    for (let i = 0; i < n; i++) run.steps.push(m.step[i]);
    for (const c of Object.keys(run.copies)) {
      const src = m.copies[c];
      for (const k of METRICS) {
        const raw = run.copies[c][k], dr = run.draw[c][k], a = src[k];
        const positive = k === 'loss' || k === 'gradNormWq' || k === 'gradNormWk'; // log-scale charts
        for (let i = 0; i < n; i++) {
          const v = a[i];
          raw.push(v);
          dr.push(Number.isFinite(v) && (!positive || v > 0) ? v : null);
        }
      }
      run.reached[c] = stepReaching(run.steps, run.copies[c].accuracy, run.reachState[c]);
    }
  }

  // --- drawing ---
  function scheduleDraw(force = false) {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      const now = performance.now();
      if (!force && playing && now - lastDraw < DRAW_EVERY_MS) { scheduleDraw(); return; }
      lastDraw = now;
      draw(force || !playing || now - lastSummary >= SUMMARY_EVERY_MS);
      updateButtons();
    });
  }
  function draw(withSummary) {
    stepOut.textContent = String(run?.steps.at(-1) ?? 0);
    speedOut.textContent = Number.isFinite(stepsPerSec) ? fmt(stepsPerSec, 3) : '—';
    el.dataset.trainSteps = String(stepsDone());
    const x = run ? run.steps : [];
    const nulls = new Array(x.length).fill(null);
    const col = (c, m) => (run?.draw[c]?.[m] ?? nulls);
    const data = (m) => [x, ...COPIES.map((c) => col(c, m))];
    if (!x.length) {
      for (const ch of charts) ch.chart.setData([[0, 1], ...Array.from({ length: ch.nSeries }, () => [null, null])]);
    } else {
      lossChart.chart.setData(data('loss'));
      accChart.chart.setData(data('accuracy'));
      gradChart.chart.setData([x, ...COPIES.map((c) => col(c, 'gradNormWq')), ...COPIES.map((c) => col(c, 'gradNormWk'))]);
      entChart.chart.setData(data('entropy'));
      satChart.chart.setData(data('saturatedFraction'));
      ctx.onDrawn?.('training');
    }
    if (!heat) {
      for (const hc of heatCharts) { hc.setImage(null); hc.chart.redraw(); }
      heatCaption.textContent = 'Press Play or Step: the copies’ attention patterns appear here.';
    }
    for (const [key, td] of cells) {
      const [c, m] = key.split('.');
      if (!run?.copies[c] || !x.length) { td.textContent = '—'; continue; }
      td.textContent = m === 'stepTo90' ? (run.reached[c] == null ? 'not yet' : String(run.reached[c])) : fmt(run.copies[c][m].at(-1));
    }
    if (withSummary) {
      lastSummary = performance.now();
      summaryEl.textContent = summarize(run ?? { cfg: null, steps: [] });
      frame.setSummary(summaryEl.textContent); // the charts' text alternative (aria-describedby)
    }
  }

  // --- transport ---
  function updateButtons() {
    playBtn.textContent = playing ? 'Pause' : 'Play';
    stepBtn.disabled = playing;
    // 'busy': paused, but a chunk is still in the Worker (its steps will still land) or its
    // steps are not drawn yet (the counter and the table change at the next frame).
    el.dataset.trainState = playing ? 'playing' : stepsWanted > 0 || inflight || drawQueued ? 'busy' : 'paused';
  }
  function setStatus(text) { status.textContent = text; }
  function play() {
    if (!derived) return;
    playing = true;
    pausedNote = null;
    limit = settings.stopAt > stepsDone() ? settings.stopAt : Infinity;
    speedSamples = [[performance.now(), stepsDone(), workerMs]];
    stepsPerSec = NaN;
    updateButtons();
    setStatus(`Playing${Number.isFinite(limit) ? ` until step ${limit}` : ''}.`);
    pump();
  }
  function finishPlay(text) {
    playing = false;
    updateButtons();
    setStatus(text);
    settle();
  }
  function pause() {
    playing = false;
    updateButtons();
    pausedNote = (n) => `Paused at step ${n}.`;
    setStatus('Pausing…');
    settle();
  }
  function stepOnce() {
    if (!derived || playing) return;
    stepsWanted += STEP_BUTTON_STEPS;
    updateButtons();
    setStatus(`Running ${STEP_BUTTON_STEPS} steps.`);
    pausedNote = (n) => `Ran ${STEP_BUTTON_STEPS} steps: now at step ${n}.`;
    pump();
  }
  function reset() {
    playing = false;
    pausedNote = null;
    newGeneration();
    if (live !== null && derived && live === trainerKey(derived.cfg)) {
      session.send('reset', { attention: true, tag: gen });
    } else {
      live = null;
    }
    // The run is rebuilt at the next Play or Step; the step-0 heatmaps come back with the reset.
    if (live !== null) ensureRun();
    updateButtons();
    setStatus('Reset: back to the starting weights, step 0.');
  }
  function applyPreset(p) {
    if (!pageCfg) return;
    playing = false;
    settings = { ...defaultSettings(schema), ...p.train };
    inputNotes = [];
    showSettings();
    ctx.onUrlStateChange?.();
    const partial = { ...PRESET_PAGE_BASE, ...p.page };
    pageCfg = { ...pageCfg, ...partial };
    ctx.setConfig?.(partial);
    newGeneration();
    live = null; // a fresh trainer: the preset's run from its first step
    derive();
    presetNote.textContent = `${p.title}${p.title.endsWith('?') ? '' : ':'} the native run of the same settings reached ${100 * REACH_ACCURACY}% at steps ${p.measured}. This run repeats it.`;
    play();
  }

  // --- CSV ---
  function csvRows() {
    if (!run) return [['# no steps yet']];
    const copies = Object.keys(run.copies);
    const rows = [[`# ${describeRun(run.cfg)}; copies ${copies.map((c) => copyLabel(c, run.cfg.scale)).join(', ')}`]];
    rows.push(['step', ...copies.flatMap((c) => METRICS.map((m) => `${c}.${m}`))]);
    for (let i = 0; i < run.steps.length; i++) rows.push([run.steps[i], ...copies.flatMap((c) => METRICS.map((m) => run.copies[c][m][i]))]);
    return rows;
  }

  // --- start ---
  function init(s) {
    if (!Array.isArray(s)) { setStatus('Training is not available: the engine did not report its training schema.'); playBtn.disabled = true; stepBtn.disabled = true; return; }
    schema = s;
    settings = defaultSettings(schema);
    buildSettings();
    buildHeat(DEFAULT_COPIES);
    buildTable(DEFAULT_COPIES);
    readPage(ctx.config);
    derive();
    updateButtons();
    draw(true);
  }
  if (schema) init(schema);
  else client.ready.then((r) => init(r.trainSchema)).catch(() => {});

  return {
    /** The settings in the URL (app.js reads them with the page's fields and writes them back). */
    urlState: settings && { // null when the engine gave no training schema
      /** URL query → notices (as state.js gives them) about the values it had to change. */
      set(search) {
        const { settings: next, notices } = settingsFromQuery(search, schema);
        inputNotes = [];
        applySettings(next, { fromUrl: true });
        return notices;
      },
      query: () => settingsToQuery(settings, schema),
    },
    update(result, cfg) {
      if (!schema) return;
      // The page's current config (a preset may have moved it past the result being delivered).
      if (readPage(ctx.config ?? cfg)) derive();
    },
    redraw() {
      paintHeat();
      for (const c of charts) c.chart.redraw();
      for (const c of heatCharts) c.chart.redraw();
    },
    destroy() {
      playing = false;
      session?.close();
      for (const c of charts) c.chart.destroy();
      for (const c of heatCharts) c.chart.destroy();
    },
  };
}

function drawHLine(u, y, label) {
  const ys = u.scales.y;
  if (!(y >= ys.min && y <= ys.max)) return;
  const { ctx, bbox } = u;
  const py = Math.round(u.valToPos(y, 'y', true)) + 0.5;
  const dpr = devicePixelRatio;
  ctx.save();
  ctx.strokeStyle = u.pal.theory;
  ctx.lineWidth = 1.25 * dpr;
  ctx.setLineDash([6 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(bbox.left, py);
  ctx.lineTo(bbox.left + bbox.width, py);
  ctx.stroke();
  if (label) {
    // Right-aligned above the line (below it near the top), on a backing box: curves run through here.
    ctx.setLineDash([]);
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    const above = py - bbox.top > 16 * dpr;
    const tw = ctx.measureText(label).width;
    const x1 = bbox.left + bbox.width - 4 * dpr;
    const yText = above ? py - 3 * dpr : py + 3 * dpr;
    const hBox = 13 * dpr;
    ctx.fillStyle = u.pal.panel;
    ctx.globalAlpha = 0.85;
    ctx.fillRect(x1 - tw - 3 * dpr, above ? yText - hBox : yText, tw + 6 * dpr, hBox);
    ctx.globalAlpha = 1;
    ctx.fillStyle = u.pal.fg;
    ctx.textAlign = 'right';
    ctx.textBaseline = above ? 'bottom' : 'top';
    ctx.fillText(label, x1, yText);
  }
  ctx.restore();
}

function hexRgb(color) {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return [255, 0, 255];
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
