// Chapter 9 — a reader's own model: q and k read from .safetensors or .npy files on this machine,
// every head analyzed in the Workers (engine.analyze, one layer per Worker at a time), a layers ×
// heads grid coloured by the chosen statistic, one head in full on a click, what-if settings that
// recompute the grid, a CSV of every head and a sentence that sums the model up. Nothing is sent.
import { panelFrame } from '../../charts/panel-frame.js';
import { downloadCsv } from '../../charts/export.js';
import { h, uniquePrefix } from '../../ui/dom.js';
import { PANEL_META } from '../meta.js';
import { openModel } from './model-source.js';
import { mountDetail } from './report-detail.js';
import { mountGrid } from './report-grid.js';
import { keyHeadFor } from '../../tensors/pair-heads.js';
import { layerLabel, modelSentence, reportRows, reportStats, statById } from './report-stats.js';
import { FILE_SCALE, mountWhatIf } from './report-whatif.js';

export const meta = PANEL_META.report;

const SAMPLE_PATH = 'samples/trained-sample.safetensors';
/** Layers sent ahead to each Worker: one computing, one waiting, so no Worker idles while a layer is read. */
const LAYERS_AHEAD = 2;
const baseName = (url) => decodeURIComponent(new URL(url, document.baseURI).pathname.split('/').pop() || url);

export function mount(el, ctx = {}) {
  const prefix = uniquePrefix('report-');
  const frame = panelFrame(el, {
    name: 'report',
    title: PANEL_META.report.title,
    description:
      'Choose or drop a .safetensors file (or several .npy files) with tensors named <prefix>q and <prefix>k, of shape (T, d_k), (H, T, d_k) or (B, H, T, d_k).',
  });
  const set = (state) => (el.dataset.reportState = state);
  set('empty');

  const input = h('input', {
    type: 'file',
    id: `${prefix}file`,
    multiple: true,
    accept: '.safetensors,.npy',
    'data-tensor-input': '',
  });
  const inShadow = el.getRootNode() instanceof ShadowRoot;
  const sample = h('button', {
    type: 'button',
    class: 'btn',
    'data-report-sample': '',
    text: 'Try the trained sample',
    title: 'q and k of the training panel’s three copies after 500 steps (seed 1)',
    hidden: inShadow || import.meta.env.MODE === 'offline',
  });
  const drop = h(
    'div',
    { class: 'report-drop', 'data-report-drop': '' },
    h('label', { class: 'report-pick', for: input.id }, h('span', { text: 'Choose files' }), input),
    h('span', { class: 'report-drop-hint', text: 'or drop them here' }),
    sample,
  );
  const privacy = h('p', {
    class: 'report-privacy',
    'data-report-privacy': '',
    text: 'Nothing is uploaded: the files are read by this page, on this machine, and computed in its Workers. Nothing leaves this machine.',
  });
  const progress = h('progress', {
    'data-report-progress': '',
    max: '1',
    value: '0',
    'aria-label': 'Heads measured',
  });
  const progressText = h('span', { class: 'report-progress-text', 'aria-live': 'polite' });
  const cancel = h('button', {
    type: 'button',
    class: 'btn small',
    'data-report-cancel': '',
    text: 'Cancel',
    disabled: true,
  });
  // Announced when it changes (aria-live), without role="alert": the page's notices are its alerts.
  const error = h('p', {
    class: 'report-error',
    'data-report-error': '',
    'aria-live': 'assertive',
    hidden: true,
  });
  const notes = h('ul', { class: 'report-notes', 'data-report-notes': '' });
  const summary = h('p', { class: 'report-summary', 'data-report-summary': '' });
  const stats = reportStats(ctx.schema);
  const statSelect = h(
    'select',
    { 'data-report-stat': '', id: `${prefix}stat` },
    stats.map((s) => h('option', { value: s.id, text: s.label })),
  );
  const csv = h('button', {
    type: 'button',
    class: 'btn small',
    'data-report-csv': '',
    text: 'CSV of every head',
    disabled: true,
  });
  const whatIfHost = h('div', { class: 'report-whatif-host' });
  const gridHost = h('div', { class: 'report-grid-host' });
  const bar = h('div', { class: 'report-bar' }, progress, progressText, cancel);
  const tools = h(
    'div',
    { class: 'report-tools' },
    h('label', { for: statSelect.id, text: 'Colour by ' }),
    statSelect,
    csv,
  );
  frame.body.append(drop, privacy, bar, error, notes, summary, whatIfHost, tools, gridHost);
  const grid = mountGrid(gridHost, { onPick: pick });
  const detail = mountDetail(frame.body, prefix, ctx.mountPanel ?? (() => new Promise(() => {})), ctx.schema);

  let model = null;
  let options = {};
  let gen = 0;
  let queue = [];
  const slotOf = new Map(); // layer index → the Worker slot it was sent to
  let reports = [];
  let done = 0;
  let total = 0;
  let peakMemory = 0;
  let startedAt = 0;
  let selected = null;
  let whatIf = null;

  const session = ctx.client?.openSession({
    onReportHead(m) {
      if (!model) return;
      const r = { ...m.report, layer: m.part, layerName: model.layers[m.part].layer };
      reports.push(r);
      grid.set(m.part, m.head, r);
      done += 1;
      peakMemory = Math.max(peakMemory, m.memory ?? 0);
      showProgress();
    },
    onReportLayerDone(m) {
      const slot = slotOf.get(m.part);
      slotOf.delete(m.part);
      if (done >= total) finish();
      else if (slot !== undefined) send(slot);
    },
    onReportDetail(m) {
      peakMemory = Math.max(peakMemory, m.memory ?? 0);
      el.dataset.reportMemory = String(peakMemory);
      detail.report(m.report);
    },
    onReportPrecision: (m) => detail.precision(m.row),
    onReportDetailDone: () => (el.dataset.reportDetail = 'done'),
    onError(m) {
      if (m.kind === 'report') fail(`The report stopped after ${done} of ${total} heads: ${m.message}`);
      else if (m.kind === 'reportDetail')
        fail(`This head could not be computed in full: ${m.message}`, false);
    },
  });

  ctx.client?.ready?.then(
    ({ schema, defaults }) => {
      whatIf = mountWhatIf(whatIfHost, {
        schema,
        defaults: { ...defaults, causal: false },
        onChange: ({ options: next, notices }) => {
          options = next;
          showNotes(notices);
          if (model) start();
        },
      });
      options = whatIf.read().options;
    },
    () => {},
  );

  /** The scale a layer's metadata gives (`<prefix>scale`, a positive number), or null. */
  const fileScale = (i) => {
    const s = Number(model?.metadata?.[`${model.layers[i].layer}scale`]);
    return Number.isFinite(s) && s > 0 ? s : null;
  };
  /** The engine's options for layer i: the what-if settings, the file's scale where chosen. */
  const layerOptions = (i) =>
    options.scale === FILE_SCALE ? { ...options, scale: fileScale(i) ?? 'sqrt' } : options;

  function showNotes(extra = []) {
    const scaled =
      model && options.scale === FILE_SCALE
        ? [
            `Each layer is scaled as its metadata says: ${model.layers.map((l, i) => `${layerLabel(l.layer)} × ${fileScale(i)}`).join(', ')}.`,
          ]
        : [];
    notes.replaceChildren(...[...(model?.notes ?? []), ...scaled, ...extra].map((t) => h('li', { text: t })));
  }
  function fail(message, stop = true) {
    error.hidden = false;
    error.textContent = message;
    if (stop) {
      gen += 1;
      session?.reportCancel();
      cancel.disabled = true;
      set('error');
    }
  }
  function showProgress() {
    progress.max = Math.max(1, total);
    progress.value = done;
    el.dataset.reportHeadsDone = String(done);
    el.dataset.reportHeadsTotal = String(total);
    el.dataset.reportMemory = String(peakMemory);
    const state = el.dataset.reportState;
    progressText.textContent =
      state === 'running'
        ? `Measuring: ${done} of ${total} heads…`
        : state === 'cancelled'
          ? `Cancelled after ${done} of ${total} heads.`
          : state === 'done'
            ? `${total} heads of ${model.layers.length} layers measured in ${((performance.now() - startedAt) / 1000).toFixed(2)} s, in ${session?.reportSlots ?? 1} Workers.`
            : '';
    summary.textContent = modelSentence(reports, options, ctx.schema);
    frame.setSummary(summary.textContent);
    csv.disabled = reports.length === 0;
  }

  /** Reads the next layer not yet sent and gives it to Worker `slot`. */
  function send(slot) {
    const i = queue.shift();
    if (i === undefined) return;
    slotOf.set(i, slot);
    const mine = gen;
    model.read(i).then(
      ({ q, k }) => {
        if (mine !== gen) return;
        const { seqLen, dk, heads, kvHeads } = model.layers[i];
        session.reportLayer({ part: i, q, k, seqLen, dk, heads, kvHeads, options: layerOptions(i) }, slot);
      },
      (err) => mine === gen && fail(`Layer '${model.layers[i].layer}' could not be read: ${err.message}`),
    );
  }

  function start() {
    if (!session) {
      fail('No compute engine to measure with.');
      return;
    }
    gen += 1;
    session.reportStart();
    error.hidden = true;
    reports = [];
    done = 0;
    total = model.layers.reduce((a, l) => a + l.heads, 0);
    queue = model.layers.map((_, i) => i);
    slotOf.clear();
    grid.reset(model.layers);
    grid.paint(statById(stats, statSelect.value));
    startedAt = performance.now();
    set('running');
    cancel.disabled = false;
    showProgress();
    for (let round = 0; round < LAYERS_AHEAD; round++)
      for (let slot = 0; slot < session.reportSlots; slot++) send(slot);
    if (selected) pick(selected.l, selected.hd);
  }
  function finish() {
    set('done');
    cancel.disabled = true;
    showProgress();
    el.dataset.reportMs = (performance.now() - startedAt).toFixed(1);
  }

  async function load(files) {
    gen += 1;
    session?.reportCancel();
    set('reading');
    error.hidden = true;
    selected = null;
    detail.hide();
    progressText.textContent = `Reading ${files.map((f) => f.name).join(', ')}…`;
    try {
      model = await openModel(files);
    } catch (err) {
      model = null;
      grid.reset([]);
      reports = [];
      summary.textContent = '';
      fail(err.message);
      return;
    }
    el.dataset.reportFile = model.name;
    const scales = model.layers.map((_, i) => fileScale(i));
    whatIf?.offerFileScale(scales.every((x) => x !== null));
    if (whatIf) options = whatIf.read().options;
    showNotes();
    start();
  }

  function pick(l, hd) {
    if (!model || !session) return;
    selected = { l, hd };
    grid.select(l, hd);
    const layer = model.layers[l];
    const kvHead = keyHeadFor(hd, layer.heads, layer.kvHeads);
    el.dataset.reportDetail = 'loading';
    detail.show(
      { layerName: layer.layer, head: hd, kvHead, seqLen: layer.seqLen, dk: layer.dk },
      layerOptions(l),
    );
    const mine = gen;
    model.read(l, { q: hd, k: kvHead }).then(
      ({ q, k }) => {
        if (mine !== gen) return;
        session.reportDetail({
          q,
          k,
          seqLen: layer.seqLen,
          dk: layer.dk,
          options: layerOptions(l),
        });
      },
      (err) => fail(`Layer '${layer.layer}' could not be read: ${err.message}`, false),
    );
  }

  input.addEventListener('change', () => {
    const files = [...input.files].map((f) => ({ blob: f, name: f.name }));
    if (files.length) load(files);
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
    if (files.length) load(files);
  });
  cancel.addEventListener('click', () => {
    gen += 1;
    session?.reportCancel();
    queue = [];
    set('cancelled');
    cancel.disabled = true;
    showProgress();
  });
  statSelect.addEventListener('change', () => {
    el.dataset.reportStat = statSelect.value;
    grid.paint(statById(stats, statSelect.value));
  });
  csv.addEventListener('click', () =>
    downloadCsv(
      reportRows([...reports].sort((a, b) => a.layer - b.layer || a.head - b.head)),
      'attnscale-report.csv',
    ),
  );

  /** Fetches a file by URL (same origin, or CORS) and reports it. */
  async function loadUrl(url, what) {
    set('reading');
    progressText.textContent = `Fetching ${what}…`;
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trim());
      await load([{ blob: await res.blob(), name: baseName(url) }]);
    } catch (err) {
      fail(`Could not fetch ${what}: ${err.message}`);
    }
  }
  sample.addEventListener('click', () =>
    loadUrl(new URL(SAMPLE_PATH, document.baseURI).href, 'the trained sample'),
  );
  if (el.dataset.src) loadUrl(el.dataset.src, el.dataset.src);

  el.dataset.reportStat = statSelect.value;
  grid.paint(statById(stats, statSelect.value));
  ctx.onDrawn?.('report');

  return {
    redraw: () => detail.redraw(),
    destroy: () => {
      gen += 1;
      session?.close();
      detail.destroy();
    },
  };
}
