// Learning-rate sensitivity (Wortsman et al. 2023, "Small-scale proxies for large-scale Transformer
// training instabilities", arXiv 2309.14322, section 2.2): how far the final loss strays from the
// best one when the learning rate varies over orders of magnitude,
//   E_η [ min(ℓ(η), ℓ₀) − ℓ* ],
// the mean over a log-spaced grid of rates η of the final loss ℓ(η), clipped at ℓ₀, the loss at
// initialisation (a run that diverges, or ends no better than it began, counts as ℓ₀), minus ℓ*,
// the lowest final loss over the grid. ℓ* is taken over the clipped losses, so the value is ≥ 0
// even when no rate improves on ℓ₀ (the paper's ℓ* whenever one does). A final loss that is not
// finite (NaN, ±∞: the run diverged) counts as ℓ₀. Pure: the panel and the tests share it.

/** The paper's grid of learning rates, 3·10⁻⁴ … 3·10⁻¹ in half-decade steps. */
export const LR_GRID = Object.freeze([3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1]);

/** The share of the last steps whose mean loss is a run's final loss. */
export const FINAL_FRACTION = 0.05;

/** How many of n steps finalLoss averages: round(n · FINAL_FRACTION), at least 1. */
export function finalWindow(n) {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`steps must be an integer ≥ 1, got ${n}`);
  return Math.max(1, Math.round(n * FINAL_FRACTION));
}

/**
 * A run's final loss: the mean loss of its last finalWindow(n) steps (the batches are fresh every
 * step, so this is a held-out loss, averaged to tame one batch's noise). NaN if one of them is.
 * @param {ArrayLike<number>} losses the loss of every step, in order
 */
export function finalLoss(losses) {
  const n = losses?.length;
  if (!Number.isInteger(n) || n < 1) throw new TypeError('losses must be a non-empty array of numbers');
  const w = finalWindow(n);
  let sum = 0;
  for (let i = n - w; i < n; i++) sum += losses[i];
  return sum / w;
}

/**
 * E_η[min(ℓ(η), ℓ₀) − ℓ*] over the rates whose final losses are given (one per rate, e.g. LR_GRID's).
 * @param {ArrayLike<number>} finalLosses ℓ(η) per rate; not finite = diverged (counts as ℓ₀)
 * @param {number} initialLoss ℓ₀ (the loss at step 1, or ln 16 for this task's chance level)
 */
export function lrSensitivity(finalLosses, initialLoss) {
  const n = finalLosses?.length;
  if (!Number.isInteger(n) || n < 1)
    throw new TypeError('finalLosses must be a non-empty array of numbers (one per learning rate)');
  if (typeof initialLoss !== 'number' || !Number.isFinite(initialLoss))
    throw new RangeError(
      `initialLoss must be a finite number (the loss at initialisation), got ${initialLoss}`,
    );
  const clipped = Array.from(finalLosses, (l, i) => {
    if (typeof l !== 'number') throw new TypeError(`finalLosses[${i}] must be a number, got ${typeof l}`);
    return Number.isFinite(l) ? Math.min(l, initialLoss) : initialLoss;
  });
  const best = Math.min(...clipped);
  return clipped.reduce((s, l) => s + (l - best), 0) / n;
}
