// Number formatting for readouts and axes. Pure.
// Readout text must stay machine-readable (parseFloat): ASCII '-' and 'e' notation.

export function fmt(x, digits = 4) {
  if (x === null || x === undefined) return '—';
  if (typeof x !== 'number') return String(x);
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (Number.isInteger(x) && a < 1e7) return String(x);
  if (a >= 1e5 || a < 1e-3)
    return x
      .toExponential(digits - 1)
      .replace(/\.?0+e/, 'e')
      .replace('e+', 'e');
  return String(Number(x.toPrecision(digits)));
}

/** Short axis label: 1, 10, 0.01, 1e-5, 1k … */
export function axisNum(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) return x.toExponential(0).replace('e+', 'e');
  return String(Number(x.toPrecision(3)));
}
