// The frame of every chart panel: title, PNG, CSV, SVG and GIF buttons, description, legend,
// readouts, caption, progress line and the charts' text alternative; the panel fills in its body.
import { h } from '../ui/dom.js';
import { fmt } from '../ui/format.js';
import { panelExports } from '../export/panel-exports.js';
// The writers (web/src/export/) load on their first click: a chart that is only looked at never
// downloads them.

/**
 * The panel frame. Returns the elements a panel fills in.
 * `exports`: { png(): [{u, title}], csv(): { rows, name }, legend?(), gif?() } (gif: see
 * export/gif-frames.js; only the charts that change with d_k have it).
 */
export function panelFrame(el, { name, title, description, legend = [], readouts = [], exports }) {
  el.classList.add('panel');
  el.dataset.panel = name;
  const titleId = `${el.id || name}-title`;
  const heading = h('h3', { id: titleId, text: title });
  const actions = h('div', { class: 'panel-actions' });
  const body = h('div', { class: 'panel-body' });
  const legendEl = h('ul', { class: 'legend', 'aria-label': `Legend of ${title}` });
  const readoutsEl = h('dl', { class: 'readouts' });
  const caption = h('p', { class: 'caption' });
  const gaps = h('p', { class: 'caption gaps' });
  const status = h('p', { class: 'panel-status' }); // sweep progress: visual only (not announced per point)
  // The charts' text alternative: a short summary of what they show now (setSummary), which every
  // chart image of the panel points to with aria-describedby. Read by screen readers only (the
  // caption says the same for the eye); app.js announces it once a change settles.
  const summaryId = `${el.id || name}-summary`;
  const summary = h('p', { class: 'panel-summary sr-only', id: summaryId, 'data-panel-summary': '' });
  const legendBox = legendFold(legendEl);
  el.setAttribute('aria-labelledby', titleId);
  el.append(
    h('header', { class: 'panel-head' }, heading, actions),
    description ? h('p', { class: 'panel-desc', text: description }) : null,
    body,
    legendBox.fold,
    status,
    gaps,
    readoutsEl,
    caption,
    summary,
  );
  setLegend(legendEl, legend);
  legendBox.fit(legend.length);

  const stats = new Map();
  for (const r of readouts) {
    const dd = h('dd', { 'data-stat': r.stat, text: '—' });
    const box = h('div', { class: 'readout' }, h('dt', { text: r.label, title: r.title ?? null }), dd);
    stats.set(r.stat, { dd, r, box });
    readoutsEl.append(box);
  }

  if (exports) {
    panelExports.set(el, exports);
    const button = (text, what, onclick) =>
      h('button', {
        type: 'button',
        class: 'btn small',
        text,
        'aria-label': `Download the ${title} ${what}`,
        onclick,
      });
    const image = () => ({ el, name, title, legend: exports.legend?.() ?? legend, exports });
    actions.append(
      button('PNG', 'chart as PNG', () =>
        import('../export/png-export.js').then(
          (m) => m.exportPng(el, exports.png(), title, exports.legend?.() ?? legend, `attnscale-${name}.png`),
          reportError,
        ),
      ),
      button('CSV', 'data as CSV', () =>
        import('../export/csv-export.js').then(
          (m) => m.downloadCsv(exports.csv().rows, `attnscale-${name}.csv`),
          reportError,
        ),
      ),
      button('SVG', 'chart as SVG', () =>
        import('../export/svg-export.js').then((m) => m.exportSvg(image()), reportError),
      ),
    );
    // Only the charts that change with d_k have a GIF.
    if (exports.gif)
      actions.append(
        button('GIF', 'chart as a GIF that steps through d_k', (e) => {
          const b = e.currentTarget;
          import('../export/gif-export.js').then((m) => m.exportGif(image(), b), reportError);
        }),
      );
  }

  return {
    body,
    legendEl,
    legendBox: legendBox.fold, // the legend with its phone toggle (a panel may move it)
    caption,
    status,
    gaps,
    setLegend: (items) => {
      setLegend(legendEl, items);
      legendBox.fit(items.length);
    },
    /** The charts' text alternative, e.g. "σ of the logits 11.3 at d_k = 128, 26% of rows saturated". */
    setSummary(text) {
      if (summary.textContent !== text) summary.textContent = text;
      for (const c of el.querySelectorAll('.chart[role="img"]'))
        if (!c.hasAttribute('aria-describedby')) c.setAttribute('aria-describedby', summaryId);
    },
    /** Write readouts from a result object ('a.b' paths allowed). */
    setStats(result) {
      for (const [stat, { dd, r, box }] of stats) {
        // A readout with `when` is shown only while it says so (a value that means nothing here).
        if (r.when) box.hidden = !r.when(result);
        const v = stat.split('.').reduce((o, k) => (o == null ? undefined : o[k]), result);
        const text = r.format ? r.format(v, result) : fmt(v);
        if (dd.textContent !== text) dd.textContent = text; // unchanged text: no relayout
      }
    },
  };
}

// On a phone a long legend would stand taller than its chart: it folds behind a "Legend" toggle
// there, and stays open (its toggle hidden by the stylesheet) on a wider screen.
const NARROW = '(max-width: 600px)';
const LONG_LEGEND = 4;
function legendFold(legendEl) {
  const fold = h('details', { class: 'legend-fold', open: '' }, h('summary', { text: 'Legend' }), legendEl);
  const mq = typeof matchMedia === 'function' ? matchMedia(NARROW) : null;
  mq?.addEventListener?.('change', () => {
    if (!mq.matches) fold.open = true;
  });
  let folded = false; // folded once when it first grew long: a reader's toggle is theirs after that
  return {
    fold,
    fit(count) {
      if (folded || !mq?.matches || count <= LONG_LEGEND) return;
      folded = true;
      fold.open = false;
    },
  };
}

function setLegend(ul, items) {
  // Colours go through the CSSOM (el.style.setProperty), never a style attribute: strict CSP.
  ul.replaceChildren(
    ...items.map((it) => {
      const sw = h('span', { class: `swatch ${it.dash ?? 'solid'}`, 'aria-hidden': 'true' });
      sw.style.setProperty('--swatch', `var(--${it.color})`);
      return h('li', { class: `key ${it.kind ?? 'line'}` }, sw, h('span', { text: it.label }));
    }),
  );
}
