// The order statistics the measurement scripts report.

/** The median of `xs` (the mean of the two middle values of an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The `p`-quantile of `xs` (the value at rank ⌊p·n⌋ of the sorted values). */
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** `x` rounded to `d` decimals. */
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
