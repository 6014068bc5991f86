// The value under a pointer or a finger: uPlot's cursor, and a short readout over the bottom of the
// chart (its x axis). uPlot follows mouse events; a tap fires the compatibility mouse events (Pointer Events,
// §11) at the finger, so a tap moves the cursor too. Nothing here listens to touch or calls
// preventDefault, so a finger that drags across a chart still scrolls the page.
import { h } from '../ui/dom.js';
import { fmt } from '../ui/format.js';

const labelled = (s, k) => k > 0 && s.label && s.show !== false;

/**
 * addProbe(box, opts) adds the cursor and the readout to uPlot options `opts` (mutated) when they
 * have a labelled series to read; the readout element, `[data-probe]`, is appended to `box`.
 */
export function addProbe(box, opts) {
  if (!(opts.series ?? []).some(labelled)) return;
  const readout = h('div', { class: 'chart-probe', 'data-probe': '', hidden: true });
  box.append(readout);
  const xName = opts.axes?.[0]?.label || 'x';
  opts.cursor = {
    show: true,
    x: true,
    y: false,
    points: { show: true, size: 7 },
    // A drag must not zoom: the axes are part of what the chart shows.
    drag: { x: false, y: false, setScale: false },
    focus: { prox: -1 },
    ...opts.cursor,
  };
  opts.hooks.setCursor = [
    ...(opts.hooks.setCursor ?? []),
    (u) => {
      const i = u.cursor.idx;
      // Series named "<layer>, <scaling>" are grouped by layer: "measured: none 11.4 · 1/√d_k 1".
      const groups = new Map();
      if (i != null && u.cursor.left >= 0)
        u.series.forEach((s, k) => {
          const v = labelled(s, k) ? u.data[k]?.[i] : null;
          if (v == null) return;
          const cut = s.label.indexOf(', ');
          const group = cut < 0 ? '' : s.label.slice(0, cut);
          const name = cut < 0 ? s.label : s.label.slice(cut + 2);
          groups.set(group, [...(groups.get(group) ?? []), `${name} ${fmt(v, 3)}`]);
        });
      readout.hidden = groups.size === 0;
      if (!groups.size) return;
      const parts = [...groups].map(([g, vals]) => (g ? `${g}: ` : '') + vals.join(' · '));
      readout.textContent = `${xName} = ${fmt(u.data[0][i])} — ${parts.join('; ')}`;
    },
  ];
}
