// The heatmap's Worker job for its contrast: the page's setting run again with the other choice of
// scale (contrast.js), forward only, its weights reduced for display as the run's are. One step: a
// newer request replaces it (latest wins).
import { downsampleAttention, HEATMAP_SIDE } from '../../pure/downsample-attention.js';

function contrastJob(engine, { session, id, cfg }, post) {
  return {
    next() {
      // runForward leaves a backward pending in this Worker's engine: its next call drops it.
      const r = engine.runForward(cfg);
      const heatmap = downsampleAttention(r.attention, cfg.seqLen, HEATMAP_SIDE);
      const { maxWeight, entropy, saturatedFraction } = r;
      const nonFiniteWeights = r.nonFinite?.weights ?? 0;
      post(
        {
          type: 'contrastWeights',
          session,
          id,
          cfg,
          heatmap,
          stats: { maxWeight, entropy, saturatedFraction, nonFiniteWeights },
        },
        [heatmap.data.buffer],
      );
      return false;
    },
    dispose() {},
  };
}

/** { type: 'heatmapContrast', session, id, cfg } → 'contrastWeights' { cfg, heatmap, stats }. */
// urgent: it follows the page's current setting (worker.js serves it before the studies).
export const workerJobs = { heatmapContrast: { start: contrastJob, urgent: true } };
