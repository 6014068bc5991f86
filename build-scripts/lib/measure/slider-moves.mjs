// The d_k slider's moves (measure-budgets.mjs --only slider): on a page already complete at
// T = 256, a sequence of d_k stops, each input timed to the frame with the new forward and to the
// frame with the gradient panel, with each part of the trip the page publishes (data-timing,
// data-update-ms, data-worker-ms, data-gradients-timing). A build without the run in two parts
// publishes only the whole result; its forward and gradient panel are then the same frame.
import { median, pct, round } from './stats.mjs';

/** measureSliderMoves(page) → the dkChangeMs section: medians and p90s of the moves, in ms. */
export async function measureSliderMoves(page) {
  // Slider stops: index 0 → d_k 1 … 9 → 512.
  const sequence = [7, 8, 9, 8, 7, 6, 5, 6, 7, 8, 9, 9 - 1, 6, 4, 2, 0, 3, 6, 9, 7, 8, 9, 6, 7];
  const samples = [];
  for (let round2 = 0; round2 < 2; round2++) {
    for (const stop of sequence) {
      const ms = await page.evaluate(async (s) => {
        const slider = document.querySelector('[data-field="dk"] input[type="range"]');
        const root = document.getElementById('app');
        const dk = 2 ** s;
        if (new URLSearchParams(root.dataset.resultQuery).get('dk') === String(dk)) return null;
        await new Promise((r) => {
          setTimeout(r, 120);
        }); // idle between moves, like a reader
        const t0 = performance.now();
        const has = (query) => new URLSearchParams(query).get('dk') === String(dk);
        let forward = null;
        let frames = 0;
        let gradientsShown = false;
        const shown = new Promise((resolve) => {
          const mo = new MutationObserver(() => {
            // (A build without the split publishes only the whole result.)
            if (!forward && has(root.dataset.forwardQuery ?? root.dataset.resultQuery)) {
              // The charts were updated synchronously; the next frame puts them on screen.
              const upd = Number(root.dataset.updateMs),
                work = Number(root.dataset.workerMs);
              const [toWorker, inWorker, fromWorker, sentAt] = (root.dataset.timing ?? 'NaN,NaN,NaN,NaN')
                .split(',')
                .map(Number);
              const shownAt = performance.now();
              // What the charts' own drawing took (uPlot draws in microtasks, after the update).
              const draw =
                shownAt -
                t0 -
                (sentAt - (performance.timeOrigin + t0)) -
                toWorker -
                inWorker -
                fromWorker -
                upd;
              forward = new Promise((r) => {
                requestAnimationFrame(() => {
                  // Frames begun since the forward's, until the gradient panel's frame.
                  frames = 0;
                  const tick = () => {
                    frames += 1;
                    if (!gradientsShown) requestAnimationFrame(tick);
                  };
                  requestAnimationFrame(tick);
                  r({
                    total: performance.now() - t0,
                    worker: work,
                    update: upd,
                    toWorker,
                    inWorker,
                    fromWorker,
                    beforeSend: sentAt - (performance.timeOrigin + t0),
                    draw,
                    toFrame: performance.now() - shownAt,
                  });
                });
              });
            }
            if (forward && has(root.dataset.resultQuery)) {
              mo.disconnect();
              // The gradient panel: the frame after the backward's result.
              const [gradientsFromSend, gradientsInWorker, gradientsFromWorker] = (
                root.dataset.gradientsTiming ?? 'NaN,NaN,NaN'
              )
                .split(',')
                .map(Number);
              const gradientsAt = performance.now() - t0;
              requestAnimationFrame(() => {
                const whole = performance.now() - t0;
                gradientsShown = true;
                forward.then((f) =>
                  resolve({
                    ...f,
                    whole,
                    framesAfterForward: frames,
                    gradientsAt,
                    gradientsFromSend,
                    gradientsInWorker,
                    gradientsFromWorker,
                  }),
                );
              });
            }
          });
          mo.observe(root, {
            attributes: true,
            attributeFilter: ['data-forward-query', 'data-result-query'],
          });
        });
        slider.value = String(s);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        return shown;
      }, stop);
      if (ms !== null) samples.push(ms);
    }
  }
  const col = (k) => samples.map((x) => x[k]);
  if (process.env.BUDGET_DEBUG)
    console.error(
      samples
        .map((x) =>
          Object.values(x)
            .map((v) => round(v))
            .join(' '),
        )
        .join('\n'),
    );
  return {
    median: round(median(col('total'))),
    p90: round(pct(col('total'), 0.9)),
    max: round(Math.max(...col('total'))),
    workerComputeMedian: round(median(col('worker'))),
    mainThreadUpdateMedian: round(median(col('update'))),
    messageToWorkerMedian: round(median(col('toWorker'))),
    messageFromWorkerMedian: round(median(col('fromWorker'))),
    inputToSendMedian: round(median(col('beforeSend'))),
    chartDrawMedian: round(median(col('draw'))),
    resultToFrameMedian: round(median(col('toFrame'))),
    gradientsMedian: round(median(col('whole'))),
    gradientsP90: round(pct(col('whole'), 0.9)),
    gradientsStartMedian: round(median(col('gradientsFromSend'))),
    gradientsWorkerMedian: round(median(col('gradientsInWorker'))),
    gradientsMessageMedian: round(median(col('gradientsFromWorker'))),
    gradientsResultMedian: round(median(col('gradientsAt'))),
    gradientsNextFrameShare: round(col('framesAfterForward').filter((n) => n <= 1).length / samples.length),
    gradientsFramesAfterForward: col('framesAfterForward').join(''),
    samples: samples.length,
    seqLen: 256,
    dkRange: '1..512',
    budget: { median: 16.7, p90: 25 },
  };
}
