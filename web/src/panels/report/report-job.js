// The report's Worker jobs (worker.js 'report' and 'reportDetail'). A layer of a model is analyzed
// one head per slice (engine.analyze on that head's q and its key head's k), so a cancel, a newer
// request or the page's own run is seen between heads; each head's scalars are posted when done.
// The detail of one head: its per-row arrays and weights, then the precision table, one format
// and max subtraction per slice. No DOM.
import { downsampleAttention, HEATMAP_SIDE } from '../../pure/downsample-attention.js';
import { keyHeadFor } from '../../tensors/pair-heads.js';
import { formatsByRange } from './report-stats.js';

/** A head's report without its arrays (histograms, rows, weights): what the grid and the CSV use. */
function scalarsOf(r) {
  const out = {};
  for (const [key, value] of Object.entries(r))
    if (typeof value !== 'object' || key === 'nonFinite') out[key] = value;
  return out;
}

const headSlice = (data, h, n) => data.subarray(h * n, (h + 1) * n);

/** { part: layer index, q, k, seqLen, dk, heads, kvHeads, options } → 'reportHead'*, 'reportLayerDone'. */
function reportJob(engine, m, post) {
  const { session, id, part, q, k, seqLen, dk, heads, kvHeads, options } = m;
  const n = seqLen * dk;
  let h = 0;
  return {
    next() {
      if (h >= heads) {
        post({ type: 'reportLayerDone', session, id, part });
        return false;
      }
      const kvHead = keyHeadFor(h, heads, kvHeads);
      const t0 = performance.now();
      const [r] = engine.analyze(headSlice(q, h, n), headSlice(k, kvHead, n), {
        ...options,
        seqLen,
        dk,
        heads: 1,
        kvHeads: 1,
      }).heads;
      const ms = performance.now() - t0;
      post({
        type: 'reportHead',
        session,
        id,
        part,
        head: h,
        report: { ...scalarsOf(r), head: h, kvHead },
        ms,
        memory: engine.memoryBytes,
      });
      h += 1;
      return true;
    },
    dispose() {},
  };
}

/** { q, k (one head each), seqLen, dk, options } → 'reportDetail', 'reportPrecision'*, 'reportDetailDone'. */
function reportDetailJob(engine, m, post) {
  const { session, id, q, k, seqLen, dk, options } = m;
  const rows = formatsByRange(engine.schema).flatMap((format) =>
    [false, true].map((subtractMax) => ({ precision: format.value, subtractMax })),
  );
  let step = -1;
  const analyze = (extra) => engine.analyze(q, k, { ...options, ...extra, seqLen, dk }).heads[0];
  return {
    next() {
      if (step === -1) {
        const r = analyze({ detail: true });
        const { attention, ...rest } = r;
        const heatmap = downsampleAttention(attention, seqLen, HEATMAP_SIDE);
        post({ type: 'reportDetail', session, id, report: { ...rest, heatmap }, memory: engine.memoryBytes });
      } else if (step < rows.length) {
        const r = analyze(rows[step]);
        post({ type: 'reportPrecision', session, id, row: { ...rows[step], ...scalarsOf(r) } });
      } else {
        post({ type: 'reportDetailDone', session, id });
        return false;
      }
      step += 1;
      return true;
    },
    dispose() {},
  };
}

export const workerJobs = { report: reportJob, reportDetail: reportDetailJob };
