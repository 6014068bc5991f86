// The report's layers × heads grid: one button per head, coloured by the chosen statistic, with
// data-layer, data-head and data-value for tests and scripts, and data-sink="true" on an attention
// sink's cell (report-stats.js isSink). A click chooses the head.
import { rampRgb } from '../../charts/weight-colors.js';
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { SINK_MIN, layerLabel, statPosition } from './report-stats.js';

/** mountGrid(host, { onPick(layer, head) }) → { reset(layers), set(layer, head, report), paint(stat), select(layer, head) }. */
export function mountGrid(host, { onPick }) {
  const scale = h('p', { class: 'report-scale', 'data-report-scale': '' });
  const table = h('table', { class: 'report-grid', 'data-report-grid': '' });
  host.append(h('div', { class: 'report-grid-box table-scroll' }, table), scale);
  let layers = [];
  let cells = []; // [layer][head] → button
  let reports = []; // [layer][head] → report | undefined
  let stat = null;

  function paintCell(l, hd) {
    const b = cells[l]?.[hd];
    const r = reports[l]?.[hd];
    if (!b) return;
    const name = `layer ${layers[l].layer || '(unnamed)'}, head ${hd}`;
    if (r?.sink) b.dataset.sink = 'true';
    else delete b.dataset.sink;
    if (!r || !stat) {
      b.style.backgroundColor = '';
      b.classList.add('is-pending');
      b.setAttribute('aria-label', `${name}: not measured yet`);
      b.removeAttribute('data-value');
      return;
    }
    const value = stat.value(r);
    const t = statPosition(stat, value);
    b.classList.remove('is-pending');
    b.classList.toggle('is-nonfinite', Number.isNaN(t));
    const [red, green, blue] = Number.isNaN(t) ? [0, 0, 0] : rampRgb(t);
    b.style.backgroundColor = Number.isNaN(t) ? '' : `rgb(${red | 0}, ${green | 0}, ${blue | 0})`;
    b.dataset.value = String(value);
    const sink = r.sink ? `, an attention sink (key 0: ${fmt(r.sinkWeight, 3)})` : '';
    const text = `${name}: ${stat.short} ${fmt(value, stat.digits)}${sink}`;
    b.setAttribute('aria-label', text);
    b.title = text;
  }

  return {
    reset(next) {
      layers = next;
      reports = next.map(() => []);
      cells = next.map((layer, l) =>
        Array.from({ length: layer.heads }, (_, hd) =>
          h('button', {
            type: 'button',
            class: 'report-cell is-pending',
            'data-layer': String(l),
            'data-head': String(hd),
            onclick: () => onPick(l, hd),
          }),
        ),
      );
      const widest = Math.max(0, ...next.map((layer) => layer.heads));
      table.replaceChildren(
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col', text: 'layer \\ head' }),
            Array.from({ length: widest }, (_, hd) => h('th', { scope: 'col', text: String(hd) })),
          ),
        ),
        h(
          'tbody',
          {},
          next.map((layer, l) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', text: layerLabel(layer.layer) }),
              cells[l].map((b) => h('td', {}, b)),
            ),
          ),
        ),
      );
      for (let l = 0; l < next.length; l++) for (let hd = 0; hd < next[l].heads; hd++) paintCell(l, hd);
    },
    set(l, hd, r) {
      if (!reports[l]) return;
      reports[l][hd] = r;
      paintCell(l, hd);
    },
    /** Recolours every cell by `s` (one of report-stats.js's reportStats) and says its scale. */
    paint(s) {
      stat = s;
      for (let l = 0; l < cells.length; l++) for (let hd = 0; hd < cells[l].length; hd++) paintCell(l, hd);
      const [lo, hi] = s.range;
      scale.textContent =
        `Colour: ${s.label}, dark ${fmt(lo, 3)} to yellow ${fmt(hi, 3)} (values beyond are clamped); red outline: not finite; ` +
        `ring: an attention sink (key 0 takes at least ${SINK_MIN} of each row’s weight on average).`;
    },
    select(l, hd) {
      for (const row of cells) for (const b of row) b.removeAttribute('aria-pressed');
      cells[l]?.[hd]?.setAttribute('aria-pressed', 'true');
    },
  };
}
