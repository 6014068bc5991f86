// The SVG builder of the charts' downloads (web/src/export/svg-*.js), in Node from a fake uPlot
// state: the recording Path2D and Canvas 2D context, one chart's axes, series, points and layer
// read from that state, and the panel's file around them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PathRecorder, createSvgContext, paint, fontAttrs } from '../../../web/src/export/svg-canvas.js';
import { chartSvg } from '../../../web/src/export/svg-chart.js';
import { panelSvg } from '../../../web/src/export/svg-export.js';

const ids = (() => {
  let k = 0;
  return () => `t${k++}`;
})();

test('the recording Path2D writes SVG path data, arcs included', () => {
  const p = new PathRecorder();
  p.moveTo(1, 2);
  p.lineTo(3.456, 4);
  p.rect(0, 0, 10, 5);
  assert.equal(p.d, 'M1 2L3.46 4M0 0h10v5h-10Z');
  const c = new PathRecorder();
  c.moveTo(15, 10);
  c.arc(10, 10, 5, 0, 2 * Math.PI); // a whole circle: two half arcs
  assert.equal(c.d, 'M15 10L15 10A5 5 0 0 1 5 10A5 5 0 0 1 15 10');
  const q = new PathRecorder();
  q.arc(0, 0, 2, 0, Math.PI / 2);
  assert.equal(q.d, 'M2 0A2 2 0 0 1 0 2');
  assert.equal(new PathRecorder(q).d, q.d, 'new Path2D(path) copies');
});

test('colours with alpha become paint and opacity; a font shorthand becomes attributes', () => {
  assert.deepEqual(paint('rgba(11, 99, 181, 0.28)'), { color: 'rgb(11,99,181)', opacity: 0.28 });
  assert.deepEqual(paint('#0b63b5'), { color: '#0b63b5', opacity: null });
  assert.deepEqual(fontAttrs('600 15px system-ui, sans-serif'), {
    'font-family': 'system-ui, sans-serif',
    'font-size': '15',
    'font-weight': '600',
    'font-style': null,
  });
});

test('the recording context: strokes, clips until restore, text with its alignment', () => {
  const c = createSvgContext({ ids, measure: (t) => t.length * 6 });
  c.save();
  c.strokeStyle = 'rgba(0, 0, 0, 0.5)';
  c.lineWidth = 2;
  c.setLineDash([5, 4]);
  c.beginPath();
  c.rect(0, 0, 100, 50);
  c.clip();
  c.beginPath();
  c.moveTo(10, 0);
  c.lineTo(10, 50);
  c.stroke();
  c.restore();
  c.fillStyle = '#123456';
  c.font = '11px system-ui, sans-serif';
  c.textAlign = 'right';
  c.textBaseline = 'top';
  c.fillText('d_k = 64 <', 90, 4);
  assert.equal(c.measureText('abc').width, 18);
  const svg = c.svg();
  assert.match(svg, /<clipPath id="t\d+"><path d="M0 0L100 0L100 50L0 50Z"\/><\/clipPath>/);
  assert.match(
    svg,
    /<g clip-path="url\(#t\d+\)"><path d="M10 0L10 50" fill="none" stroke="rgb\(0,0,0\)" stroke-opacity="0.5" stroke-width="2" stroke-dasharray="5 4"\/><\/g>/,
  );
  // The text came after restore(): outside the clip group.
  assert.match(
    svg,
    /<\/g><text x="90" y="4" fill="#123456" font-family="system-ui, sans-serif" font-size="11" text-anchor="end" dominant-baseline="text-before-edge">d_k = 64 &lt;<\/text>$/,
  );
});

/**
 * A uPlot as export/svg-chart.js reads it after a draw: a 200 × 100 canvas at 2 canvas pixels per
 * CSS pixel, plot area (40, 10)–(190, 70) in canvas pixels, x and y linear on [0, 10].
 */
function fakeChart() {
  const bbox = { left: 40, top: 10, width: 150, height: 60 };
  const valToPos = (v, key) =>
    key === 'x' ? bbox.left + (v / 10) * bbox.width : bbox.top + bbox.height - (v / 10) * bbox.height;
  const stroke = () => '#1b1d22';
  const lines = { show: true, size: 4, width: 1, stroke: () => '#dcdfe5', filter: (u, s) => s };
  const axis = (extra) => ({
    show: true,
    _show: true,
    gap: 5,
    labelGap: 0,
    alignTo: 1,
    lineGap: 1.5,
    font: ['22px system-ui, sans-serif', 22],
    labelFont: ['24px system-ui, sans-serif', 24],
    stroke,
    ticks: { ...lines },
    grid: { ...lines },
    _found: [5, 50],
    _splits: [0, 5, 10],
    _values: ['0', '5', '10'],
    ...extra,
  });
  const series = {
    show: true,
    label: 'measured',
    width: 2,
    dash: [6, 4],
    pxAlign: 1,
    _stroke: '#c2410c',
    _fill: null,
    paths: (u, i, a, b) => {
      const p = new globalThis.Path2D();
      for (let k = a; k <= b; k++) p.lineTo(valToPos(u.data[0][k], 'x'), valToPos(u.data[i][k], 'y'));
      return { stroke: p, fill: null, clip: null, flags: 0 };
    },
    points: {
      width: 1,
      _stroke: '#c2410c',
      _fill: '#c2410c',
      show: () => true,
      filter: () => null,
      paths: (u, i, a, b) => {
        const p = new globalThis.Path2D();
        for (let k = a; k <= b; k++) {
          const [x, y] = [valToPos(u.data[0][k], 'x'), valToPos(u.data[i][k], 'y')];
          p.moveTo(x + 3, y);
          p.arc(x, y, 3, 0, 2 * Math.PI);
        }
        return { stroke: p, fill: p, clip: null, flags: 0 };
      },
    },
  };
  return {
    width: 100,
    height: 50,
    bbox,
    valToPos,
    pal: { current: '#000000' },
    data: [
      [0, 5, 10],
      [2, 4, 8],
    ],
    series: [{ idxs: [0, 2] }, series],
    axes: [
      axis({ side: 2, scale: 'x', label: 'd_k', _pos: 35, _lpos: 45, _size: 20 }),
      axis({ side: 3, scale: 'y', label: 'σ of logits', _pos: 20, _lpos: 0, _size: 15 }),
    ],
    layer(u) {
      const c = u.ctx;
      c.strokeStyle = u.pal.current;
      c.beginPath();
      c.moveTo(u.valToPos(5, 'x'), u.bbox.top);
      c.lineTo(u.valToPos(5, 'x'), u.bbox.top + u.bbox.height);
      c.stroke();
      c.fillText('d_k = 5', 120, 14);
    },
  };
}

test('one chart from uPlot state: axes, ticks, labels, series, points, the layer', () => {
  const before = globalThis.Path2D;
  const { width, height, body } = chartSvg(fakeChart(), { px: 2, measure: () => 10, prefix: 'a' });
  assert.equal(globalThis.Path2D, before, 'Path2D is given back');
  assert.deepEqual([width, height], [100, 50]);
  // Axis labels: the x label under the plot, the y label turned a quarter to the left.
  assert.match(
    body,
    /<text x="115" y="90" fill="#1b1d22" [^>]*text-anchor="middle" dominant-baseline="text-before-edge" class="axis-label">d_k<\/text>/,
  );
  assert.match(
    body,
    /transform="translate\(0 40\) rotate\(-90\)"[^>]*class="axis-label">σ of logits<\/text>/,
  );
  // Tick labels at valToPos of each split, past the ticks (4 px) and the gap (5 px): 70 + 18.
  const xTicks = [...body.matchAll(/<text x="(\d+)" y="88"[^>]*class="tick-label">(\d+)<\/text>/g)].map(
    (m) => [m[1], m[2]],
  );
  assert.deepEqual(xTicks, [
    ['40', '0'],
    ['115', '5'],
    ['190', '10'],
  ]);
  const yTicks = [
    ...body.matchAll(/<text x="22" y="(\d+)"[^>]*text-anchor="end"[^>]*class="tick-label">(\d+)<\/text>/g),
  ].map((m) => m[2]);
  assert.deepEqual(yTicks, ['0', '5', '10']);
  // Grid lines across the plot; tick marks outside it.
  assert.match(
    body,
    /<path d="M40 10V70M115 10V70M190 10V70" fill="none" stroke="#dcdfe5" stroke-width="2" class="grid"\/>/,
  );
  assert.match(body, /<path d="M40 70V78M115 70V78M190 70V78"[^>]*class="tick"\/>/);
  // The series: its stroke, clipped to the plot widened by half its width (4 canvas pixels).
  assert.match(body, /<clipPath id="a0"><path d="M38 8h154v64h-154Z"\/><\/clipPath>/);
  assert.match(body, /stroke="#c2410c" stroke-width="4" stroke-dasharray="6 4" stroke-linejoin="round"/);
  assert.match(body, /<path d="M40 58L115 46L190 22"/);
  // Its points: three circles, filled, then stroked (one path, two elements).
  assert.equal(body.match(/A3 3 0 0 1/g).length, 12);
  assert.match(body, /class="points"/);
  // The layer: the marker and its label.
  assert.match(
    body,
    /<g class="layer"><path d="M115 10L115 70" fill="none" stroke="#000000" stroke-width="1"\/><text x="120" y="14"/,
  );
});

test('the panel file: title, legend, every chart scaled to CSS pixels', () => {
  const svg = panelSvg({
    title: 'σ of the logits vs d_k',
    legend: [
      { color: 'c-none', label: 'measured, none' },
      { color: 'c-theory', label: 'theory', dash: 'dashed' },
      { color: 'c-raw', label: 'raw', kind: 'box' },
    ],
    charts: [{ u: fakeChart() }, { u: fakeChart(), title: 'second' }],
    pal: { bg: '#ffffff', fg: '#1b1d22', muted: '#545a66' },
    colorOf: (c) => ({ 'c-none': '#c2410c', 'c-theory': '#6b7280', 'c-raw': '#7a7f8a' })[c],
    px: 2,
    measure: () => 10,
  });
  assert.match(
    svg,
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="424" height="184" viewBox="0 0 424 184" role="img"><title>σ of the logits vs d_k<\/title>/,
  );
  assert.match(
    svg,
    /class="title" font-family="system-ui, sans-serif" font-size="15" font-weight="600">σ of the logits vs d_k<\/text>/,
  );
  assert.match(
    svg,
    /<path d="M145.33 44h18" fill="none" stroke="#6b7280" stroke-width="2.5" stroke-dasharray="6 4"\/>/,
  );
  assert.match(svg, /<rect x="278.67" y="39" width="16" height="10" fill="#7a7f8a"\/>/);
  assert.match(svg, /<g class="chart" transform="translate\(12 54\) scale\(0.5\)">/);
  assert.match(
    svg,
    /class="subtitle"[^>]*>second<\/text><g class="chart" transform="translate\(12 122\) scale\(0.5\)">/,
  );
  // Ids of the two charts do not collide.
  assert.ok(svg.includes('id="k0-0"') && svg.includes('id="k1-0"'));
});
