// Chapter 8 — where each format overflows: for every precision, scaling and max subtraction, the
// smallest d_k at which a NaN or an infinity first appears, and at which stage. Computed in a
// background Worker (worker.js 'thresholds', thresholds-job.js) at the page's T (capped),
// seed and distribution; the table fills in one format at a time.
import { panelFrame } from '../../frame/panel-frame.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { formatOf, scaleLabel } from '../../state/choices.js';
import { meta, THRESHOLDS_MAX_SEQ_LEN } from './meta.js';
import { thresholdGrid } from './threshold-grid.js';

export { meta };

const keyOf = (c) => `${c.precision}:${c.subtractMax ? 'sub' : 'nosub'}:${c.scale}`;
const subText = (s) => (s ? 'max subtracted' : 'no max subtraction');

/** The text of a cell: the d_k, the stage, and what the sampled powers of two say around it. */
function cellText(c) {
  if (c.never) return { main: `never up to ${c.maxDk}`, sub: '' };
  const again = c.finiteAfter.length
    ? `; finite again at d_k ${c.finiteAfter[0]}${c.finiteAfter.length > 1 ? `…${c.finiteAfter[c.finiteAfter.length - 1]}` : ''}`
    : '';
  return { main: `d_k ${c.dk}`, sub: `${c.stage}${again}` };
}

/** What exp overflows to in a format: infinity, or NaN in one without infinities (fp8 E4M3). */
function overflowText(format) {
  if (!format || format.hasInfinity) return 'infinite';
  return `NaN (E${format.exponentBits}M${format.mantissaBits} has no infinity)`;
}

/** Why a cell failed, from the measured largest logit at d_k and d_k − 1 (`schema`: the engine's). */
function whyText(c, schema) {
  const where = `${c.precision}, ${scaleLabel(c.scale, schema)}, ${subText(c.subtractMax)}`;
  const lnMax = Math.log(c.largestFinite);
  const before = c.before ? ` (d_k ${c.before.dk}: ${fmt(c.before.logitMax)})` : '';
  if (c.stage === 'exp') {
    return `${where}: at d_k ${c.dk} the largest logit is ${fmt(c.at.logitMax)}${before}, above ln(${fmt(c.largestFinite)}) = ${fmt(lnMax)}, so its exponential is ${overflowText(formatOf(schema, c.precision))}.`;
  }
  if (c.stage === 'logits')
    return `${where}: at d_k ${c.dk} a logit itself leaves the format's range (largest finite ${fmt(c.largestFinite)}).`;
  return `${where}: at d_k ${c.dk} the first non-finite values appear at the ${c.stage} stage.`;
}

export function mount(el, ctx = {}) {
  const { rows, scales } = thresholdGrid(ctx.schema);
  // The run's settings, the cells measured so far (by keyOf) and whether the run has ended.
  const state = { cfg: null, cells: new Map(), done: false };
  const frame = panelFrame(el, {
    name: 'thresholds',
    title: 'Where each format overflows',
    description:
      'For every number format, scaling and softmax with or without max subtraction: the smallest d_k at which a NaN or an infinity first appears, and the stage where it appears. Measured by the engine at the page’s T, seed and distribution.',
  });

  const { wrap, tds } = buildTable(rows, scales, ctx.schema);
  const whyTitle = h('h4', { class: 'subchart', text: 'Why, measured' });
  const whyList = h('ul', { class: 'thresholds-why' });
  frame.body.append(wrap, whyTitle, whyList);
  const view = { el, frame, tds, whyList, rows, scales, ctx };
  const render = () => renderThresholds(view, state);

  // Until it comes into view (app.js: whenNear) the table says when it will be measured.
  el.classList.add('is-stale');
  render();

  const api = {
    update() {},
    jobReset({ cfg: c }) {
      state.cfg = c;
      state.cells = new Map();
      state.done = false;
      el.classList.add('is-stale');
      render();
    },
    jobMessage(m) {
      if (m.type === 'thresholdsCells') api.thresholdsCells(m.cells);
      else if (m.type === 'thresholdsDone') api.thresholdsDone();
    },
    thresholdsCells(list) {
      for (const c of list) state.cells.set(keyOf(c), c);
      render();
      ctx.onDrawn?.('thresholds');
    },
    thresholdsDone() {
      state.done = true;
      el.classList.remove('is-stale');
      render();
      ctx.onDrawn?.('thresholds');
    },
    jobFailed(message) {
      state.done = true;
      el.classList.remove('is-stale');
      render();
      frame.gaps.textContent = message;
    },
    redraw() {},
    destroy() {},
  };
  return api;
}

/** The empty table in its scrolling wrapper: one row per format and softmax, one cell per scaling (`tds`). */
function buildTable(rows, scales, schema) {
  const tds = new Map();
  const table = h(
    'table',
    { class: 'variants thresholds-table', tabindex: '0' }, // focusable: it may scroll sideways
    h('caption', {
      text: 'Smallest d_k with a non-finite value (d_k 1…4096; the stage that broke first under it)',
    }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col', text: 'format' }),
        h('th', { scope: 'col', text: 'softmax' }),
        scales.map((s) => h('th', { scope: 'col', text: `scale ${scaleLabel(s, schema)}` })),
        h('th', { scope: 'col', text: 'largest finite (ln of it)' }),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          { 'data-row': `${r.precision}:${r.subtractMax ? 'sub' : 'nosub'}` },
          h('th', { scope: 'row', text: r.precision }),
          h('td', { text: subText(r.subtractMax) }),
          scales.map((scale) => {
            const td = h('td', { 'data-threshold': keyOf({ ...r, scale }), text: '…' });
            tds.set(keyOf({ ...r, scale }), td);
            return td;
          }),
          h('td', { 'data-largest-finite': r.precision, text: '…' }),
        ),
      ),
    ),
  );
  const wrap = h(
    'div',
    {
      class: 'table-scroll',
      tabindex: '0',
      role: 'region',
      'aria-label': 'Overflow thresholds (scrollable table)',
    },
    table,
  );
  return { wrap, tds };
}

// Everything measured so far: the cells, the largest finite per format, the reasons, caption, status, summary.
function renderThresholds(view, state) {
  const { el, frame, tds, whyList, rows, scales, ctx } = view;
  const { cells, cfg, done } = state;
  for (const [key, td] of tds) renderCell(td, cells.get(key), done);
  for (const r of rows) {
    const c = cells.get(keyOf({ ...r, scale: scales[0] })); // a row's cells share the format's largest finite
    const td = el.querySelector(
      `[data-row="${r.precision}:${r.subtractMax ? 'sub' : 'nosub'}"] [data-largest-finite]`,
    );
    if (td && c) td.textContent = `${fmt(c.largestFinite)} (${fmt(Math.log(c.largestFinite))})`;
  }
  const failing = [...cells.values()].filter((c) => !c.never);
  whyList.replaceChildren(...failing.map((c) => h('li', { text: whyText(c, ctx.schema) })));
  const n = cells.size,
    total = rows.length * scales.length;
  frame.caption.textContent = cfg ? captionText(cfg, ctx.config, total) : '';
  frame.status.textContent = done
    ? ''
    : cfg
      ? `Measuring: ${n} of ${total} cells…`
      : 'Measured when this table comes into view.';
  frame.setSummary(
    failing.length || n
      ? `Overflow thresholds (${n} of ${total} measured): ${[...cells.values()]
          .filter((c) => c.scale === 'none' && !c.subtractMax)
          .map(
            (c) =>
              `${c.precision} unscaled without max subtraction ${c.never ? 'never overflows' : `first fails at d_k ${c.dk} (${c.stage})`}`,
          )
          .join('; ')}.`
      : cfg
        ? 'Overflow thresholds: measuring.'
        : 'Overflow thresholds: measured when this table comes into view.',
  );
}

// One table cell: its d_k and stage (text, data-dk, data-stage) and a title saying how it was found.
function renderCell(td, c, done) {
  td.removeAttribute('data-dk');
  td.removeAttribute('data-stage');
  if (!c) {
    td.textContent = done ? '—' : '…';
    return;
  }
  const { main, sub } = cellText(c);
  td.replaceChildren(
    h('strong', { text: main }),
    ...(sub ? [h('span', { class: 'threshold-stage', text: ` ${sub}` })] : []),
  );
  td.dataset.dk = c.never ? 'never' : String(c.dk);
  td.dataset.stage = c.never ? '' : c.stage;
  td.title = c.never
    ? `Every value finite at every power of two up to ${c.maxDk}`
    : c.bisected
      ? `d_k ${c.bracket[0]} finite and ${c.bracket[1]} not; bisection with single runs found ${c.dk} (d_k ${c.dk - 1} finite)`
      : `Among the powers of two, the first that fails (none is tested between ${c.bracket[0]} and ${c.bracket[1]})`;
}

// The run's settings (`pageConfig`: the page's own, whose T may be above the cap) and the method.
function captionText(cfg, pageConfig, total) {
  const T = cfg.seqLen;
  return (
    `T = ${T}${pageConfig && pageConfig.seqLen > T ? ` (the page’s T = ${pageConfig.seqLen}, capped at ${THRESHOLDS_MAX_SEQ_LEN} here: ${total} sweeps to d_k 4096 are slow above it)` : ''}, ` +
    `seed ${cfg.seed}, mean ${fmt(cfg.mean)}, std ${fmt(cfg.std)}, correlation ${fmt(cfg.correlation)}${cfg.causal ? ', causal' : ''}${cfg.saturate ? ', fp8 saturating' : ''}; ` +
    'two-pass softmax. Powers of two are swept first; between the last finite one and the first that fails, single runs bisect to one d_k. ' +
    'Bisection assumes one crossing: where a sampled power of two is finite again after a failure, the cell says so.'
  );
}
