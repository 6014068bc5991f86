// A panel's data as CSV: numbers as JavaScript writes them, non-finite values by name.
import { download } from '../ui/dom.js';

function csvCell(v) {
  if (v === null || v === undefined) return '';
  const s =
    typeof v === 'number'
      ? Number.isFinite(v)
        ? String(v)
        : Number.isNaN(v)
          ? 'NaN'
          : v > 0
            ? 'Infinity'
            : '-Infinity'
      : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function toCsv(rows) {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

export function downloadCsv(rows, filename) {
  download(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }), filename);
}
