// Chapter 9 — a reader's own model: q and k read from .safetensors or .npy files on this machine,
// every head analyzed in the Workers (engine.analyze, one layer per Worker at a time), a layers ×
// heads grid coloured by the chosen statistic, one head in full on a click, what-if settings that
// recompute the grid, a CSV of every head and a sentence that sums the model up. Nothing is sent.
import { panelFrame } from '../../frame/panel-frame.js';
import { downloadCsv } from '../../export/csv-export.js';
import { h, uniquePrefix } from '../../ui/dom.js';
import { meta } from './meta.js';
import { openModel } from './model-source.js';
import { mountDetail } from './report-detail.js';
import { mountGrid } from './report-grid.js';
import { buildReportView } from './report-view.js';
import { keyHeadFor } from '../../tensors/pair-heads.js';
import {
  count,
  isSink,
  layerLabel,
  modelSentence,
  reportRows,
  reportStats,
  statById,
} from './report-stats.js';
import { CONFIG_SCALE, FILE_SCALE, mountWhatIf } from './report-whatif.js';
import { configSentence, isConfigFile, readModelConfig } from './model-config.js';

export { meta };

const SAMPLE_PATH = 'samples/trained-sample.safetensors';
/** Layers sent ahead to each Worker: one computing, one waiting, so no Worker idles while a layer is read. */
const LAYERS_AHEAD = 2;
const baseName = (url) => decodeURIComponent(new URL(url, document.baseURI).pathname.split('/').pop() || url);

export function mount(el, ctx = {}) {
  const prefix = uniquePrefix('report-');
  const frame = panelFrame(el, {
    name: 'report',
    title: meta.title,
    description:
      'Choose or drop a .safetensors file (or several .npy files) with tensors named <prefix>q and <prefix>k, of shape (T, d_k), (H, T, d_k) or (B, H, T, d_k); add the model’s config.json to measure with its own multiplier and soft-cap.',
  });
  el.dataset.reportState = 'empty';
  const stats = reportStats(ctx.schema);
  const ui = buildReportView(prefix, stats, el.getRootNode() instanceof ShadowRoot);
  frame.body.append(...ui.parts);
  // rc: what every part of the panel shares; rc.run: the model and the measuring of its heads.
  const rc = { el, ctx, frame, ui, stats, run: newRun() };
  rc.grid = mountGrid(ui.gridHost, { onPick: (l, hd) => pick(rc, l, hd) });
  rc.detail = mountDetail(frame.body, prefix, ctx.mountPanel ?? (() => new Promise(() => {})), ctx.schema);
  rc.session = ctx.client?.openSession(sessionHandlers(rc));
  // The Workers load the report's code now: a model's file is then read without a request.
  rc.session?.prepare(['report', 'reportDetail']);
  ctx.client?.ready?.then(
    ({ schema, defaults }) => {
      rc.run.whatIf = mountWhatIf(ui.whatIfHost, {
        schema,
        defaults: { ...defaults, causal: false },
        onChange: ({ options: next, notices }) => {
          rc.run.options = next;
          showNotes(rc, notices);
          if (rc.run.model) start(rc);
        },
      });
      rc.run.options = rc.run.whatIf.read().options;
    },
    () => {},
  );
  wireControls(rc);
  if (el.dataset.src) loadUrl(rc, el.dataset.src, el.dataset.src);

  el.dataset.reportStat = ui.statSelect.value;
  rc.grid.paint(statById(stats, ui.statSelect.value));
  ctx.onDrawn?.('report');

  return {
    redraw: () => rc.detail.redraw(),
    destroy: () => {
      rc.run.gen += 1;
      rc.session?.close();
      rc.detail.destroy();
    },
  };
}

/** A run with no model yet. `gen` counts runs: a read that comes back for an older one is dropped. */
function newRun() {
  return {
    model: null,
    options: {},
    gen: 0,
    reports: [],
    done: 0,
    total: 0,
    peakMemory: 0,
    startedAt: 0,
    selected: null,
    whatIf: null,
  };
}

/** What the Workers send back: each head's statistics, each layer done, the chosen head in full. */
function sessionHandlers(rc) {
  const { el, run, detail } = rc;
  return {
    reportHead(m) {
      if (!run.model) return;
      const r = { ...m.report, layer: m.part, layerName: run.model.layers[m.part].layer };
      r.sink = isSink(r.sinkWeight, run.model.layers[m.part].seqLen, !!layerOptions(run, m.part).causal);
      run.reports.push(r);
      rc.grid.set(m.part, m.head, r);
      run.done += 1;
      run.peakMemory = Math.max(run.peakMemory, m.memory ?? 0);
      showProgress(rc);
    },
    reportDetail(m) {
      run.peakMemory = Math.max(run.peakMemory, m.memory ?? 0);
      el.dataset.reportMemory = String(run.peakMemory);
      detail.report(m.report);
    },
    reportPrecision: (m) => detail.precision(m.row),
    reportDetailDone: () => (el.dataset.reportDetail = 'done'),
    onError(m) {
      if (m.kind === 'report')
        fail(rc, `The report stopped after ${run.done} of ${run.total} heads: ${m.message}`);
      else if (m.kind === 'reportDetail')
        fail(rc, `This head could not be computed in full: ${m.message}`, false);
    },
  };
}

/** The scale a layer's metadata gives (`<prefix>scale`, a positive number), or null. */
function fileScale(model, i) {
  const s = Number(model?.metadata?.[`${model.layers[i].layer}scale`]);
  return Number.isFinite(s) && s > 0 ? s : null;
}
/** The engine's options for layer i: the what-if settings, the file's or the config's scale where chosen. */
function layerOptions({ model, options, modelConfig }, i) {
  if (options.scale === CONFIG_SCALE) return { ...options, scale: modelConfig?.multiplier ?? 'sqrt' };
  return options.scale === FILE_SCALE ? { ...options, scale: fileScale(model, i) ?? 'sqrt' } : options;
}

function showNotes(rc, extra = []) {
  const { model, options } = rc.run;
  const scaled =
    model && options.scale === FILE_SCALE
      ? [
          `Each layer is scaled as its metadata says: ${model.layers.map((l, i) => `${layerLabel(l.layer)} × ${fileScale(model, i)}`).join(', ')}.`,
        ]
      : [];
  rc.ui.notes.replaceChildren(
    ...[...(model?.notes ?? []), ...scaled, ...extra].map((t) => h('li', { text: t })),
  );
  const config = configSentence(rc.run.modelConfig, model?.layers.map((l) => l.dk) ?? []);
  rc.ui.config.textContent = config;
  rc.ui.config.hidden = !config;
  rc.ui.config.classList.toggle('is-bad', !!rc.run.modelConfig?.problems.length);
}
function fail(rc, message, stop = true) {
  rc.ui.error.hidden = false;
  rc.ui.error.textContent = message;
  if (stop) {
    rc.run.gen += 1;
    rc.session?.cancel('report');
    rc.ui.cancel.disabled = true;
    rc.el.dataset.reportState = 'error';
  }
}
function showProgress(rc) {
  const { el, ui, run } = rc;
  const { done, total } = run;
  ui.progress.max = Math.max(1, total);
  ui.progress.value = done;
  el.dataset.reportHeadsDone = String(done);
  el.dataset.reportHeadsTotal = String(total);
  el.dataset.reportMemory = String(run.peakMemory);
  const state = el.dataset.reportState;
  ui.progressText.textContent =
    state === 'running'
      ? `Measuring: ${done} of ${total} heads…`
      : state === 'cancelled'
        ? `Cancelled after ${done} of ${total} heads.`
        : state === 'done'
          ? `${count(total, 'head')} of ${count(run.model.layers.length, 'layer')} measured in ${((performance.now() - run.startedAt) / 1000).toFixed(2)} s, on ${count(rc.session?.slots ?? 1, 'Worker')}.`
          : '';
  ui.summary.textContent = modelSentence(run.reports, run.options, rc.ctx.schema);
  rc.frame.setSummary(ui.summary.textContent);
  ui.csv.disabled = run.reports.length === 0;
}

/** Layer i's message to its Worker, once its q and k are read (null if the run changed meanwhile or the read failed). */
function layerMessage(rc, i) {
  const { run } = rc;
  const mine = run.gen;
  const { model } = run;
  return model.read(i).then(
    ({ q, k }) => {
      if (mine !== run.gen) return null;
      const { seqLen, dk, heads, kvHeads } = model.layers[i];
      return { q, k, seqLen, dk, heads, kvHeads, options: layerOptions(run, i) };
    },
    (err) => {
      if (mine === run.gen) fail(rc, `Layer '${model.layers[i].layer}' could not be read: ${err.message}`);
      return null;
    },
  );
}

function start(rc) {
  const { el, ui, run, session } = rc;
  if (!session) {
    fail(rc, 'No compute engine to measure with.');
    return;
  }
  run.gen += 1;
  ui.error.hidden = true;
  run.reports = [];
  run.done = 0;
  run.total = run.model.layers.reduce((a, l) => a + l.heads, 0);
  rc.grid.reset(run.model.layers);
  rc.grid.paint(statById(rc.stats, ui.statSelect.value));
  run.startedAt = performance.now();
  el.dataset.reportState = 'running';
  ui.cancel.disabled = false;
  showProgress(rc);
  // Every layer to the Workers, read as it is dealt; each finished layer takes the next one.
  session.deal(
    'report',
    run.model.layers.map((_, i) => i),
    {
      holds: () => LAYERS_AHEAD,
      message: (i) => layerMessage(rc, i),
      doneType: 'reportLayerDone',
      finished: () => finish(rc),
    },
  );
  if (run.selected) pick(rc, run.selected.l, run.selected.hd);
}
function finish(rc) {
  rc.el.dataset.reportState = 'done';
  rc.ui.cancel.disabled = true;
  showProgress(rc);
  rc.el.dataset.reportMs = (performance.now() - rc.run.startedAt).toFixed(1);
}

async function load(rc, files) {
  const { el, ui, run } = rc;
  run.gen += 1;
  rc.session?.cancel('report');
  el.dataset.reportState = 'reading';
  ui.error.hidden = true;
  run.selected = null;
  rc.detail.hide();
  ui.progressText.textContent = `Reading ${files.map((f) => f.name).join(', ')}…`;
  const configs = files.filter((f) => isConfigFile(f.name));
  try {
    run.modelConfig = configs.length ? await readModelConfig(configs[0]) : null;
    if (configs.length && configs.length === files.length)
      throw new Error(`${configs[0].name} alone: choose it together with the files of q and k`);
    run.model = await openModel(files.filter((f) => !isConfigFile(f.name)));
  } catch (err) {
    run.model = null;
    rc.grid.reset([]);
    run.reports = [];
    ui.summary.textContent = '';
    fail(rc, err.message);
    return;
  }
  el.dataset.reportFile = run.model.name;
  const scales = run.model.layers.map((_, i) => fileScale(run.model, i));
  run.whatIf?.offerFileScale(scales.every((x) => x !== null));
  run.whatIf?.offerConfig(run.modelConfig);
  if (run.whatIf) run.options = run.whatIf.read().options;
  showNotes(rc);
  start(rc);
}

/** Fetches a file by URL (same origin, or CORS) and reports it. */
async function loadUrl(rc, url, what) {
  rc.el.dataset.reportState = 'reading';
  rc.ui.progressText.textContent = `Fetching ${what}…`;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trim());
    await load(rc, [{ blob: await res.blob(), name: baseName(url) }]);
  } catch (err) {
    fail(rc, `Could not fetch ${what}: ${err.message}`);
  }
}

/** One head in full: its q and its key head's k read again and sent to be computed alone. */
function pick(rc, l, hd) {
  const { run, session } = rc;
  const { model } = run;
  if (!model || !session) return;
  run.selected = { l, hd };
  rc.grid.select(l, hd);
  const layer = model.layers[l];
  const kvHead = keyHeadFor(hd, layer.heads, layer.kvHeads);
  rc.el.dataset.reportDetail = 'loading';
  rc.detail.show(
    { layerName: layer.layer, head: hd, kvHead, seqLen: layer.seqLen, dk: layer.dk },
    layerOptions(run, l),
  );
  const mine = run.gen;
  model.read(l, { q: hd, k: kvHead }).then(
    ({ q, k }) => {
      if (mine !== run.gen) return;
      session.job(
        'reportDetail',
        {
          q,
          k,
          seqLen: layer.seqLen,
          dk: layer.dk,
          options: layerOptions(run, l),
        },
        'foreground',
      );
    },
    (err) => fail(rc, `Layer '${layer.layer}' could not be read: ${err.message}`, false),
  );
}

/** The file picker, the drop zone, the sample, Cancel, the statistic and the CSV. */
function wireControls(rc) {
  const { el, ui, run } = rc;
  const { input, drop } = ui;
  input.addEventListener('change', () => {
    const files = [...input.files].map((f) => ({ blob: f, name: f.name }));
    if (files.length) load(rc, files);
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('is-over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('is-over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('is-over');
    const files = [...(e.dataTransfer?.files ?? [])].map((f) => ({ blob: f, name: f.name }));
    if (files.length) load(rc, files);
  });
  ui.cancel.addEventListener('click', () => {
    run.gen += 1;
    rc.session?.cancel('report');
    el.dataset.reportState = 'cancelled';
    ui.cancel.disabled = true;
    showProgress(rc);
  });
  ui.statSelect.addEventListener('change', () => {
    el.dataset.reportStat = ui.statSelect.value;
    rc.grid.paint(statById(rc.stats, ui.statSelect.value));
  });
  ui.csv.addEventListener('click', () =>
    downloadCsv(
      reportRows([...run.reports].sort((a, b) => a.layer - b.layer || a.head - b.head)),
      'attnscale-report.csv',
    ),
  );
  ui.sample.addEventListener('click', () =>
    loadUrl(rc, new URL(SAMPLE_PATH, document.baseURI).href, 'the trained sample'),
  );
}
