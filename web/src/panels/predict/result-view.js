// What a check shows, built only once the engine has measured: the measured value beside the
// prediction ([data-stat="measured"] with its full-precision number in data-value), a strip that
// places both on the answer's scale with the tolerance band (number questions), the numbers that
// picked a choice's answer, why, and a link to the page at that setting.
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';

/** A position in [0, 100] on the answer's scale. */
function percentOf({ scale, min, max }, v) {
  const x = scale === 'log' ? Math.log(v / min) / Math.log(max / min) : (v - min) / (max - min);
  return Math.min(100, Math.max(0, 100 * x));
}

/** The band of predictions that count as close. */
function band({ tolerance: t }, value) {
  return t.factor ? [value / t.factor, value * t.factor] : [value - t.within, value + t.within];
}

const mark = (cls, at, label) => {
  const m = h('span', { class: `predict-mark ${cls}`, title: label });
  m.style.setProperty('--at', String(at));
  return m;
};

/** The strip: the answer's range, the close band around the measured value, both marks. */
function strip(answer, prediction, value) {
  const [lo, hi] = band(answer, value).map((v) => percentOf(answer, Math.max(v, answer.min)));
  const zone = h('span', { class: 'predict-band' });
  zone.style.setProperty('--from', String(lo));
  zone.style.setProperty('--to', String(hi));
  return h(
    'figure',
    { class: 'predict-strip' },
    h(
      'div',
      {
        class: 'predict-track',
        role: 'img',
        'aria-label': `On the scale from ${fmt(answer.min)} to ${fmt(answer.max)}: measured ${fmt(value, 3)}, your prediction ${fmt(prediction, 3)}, close from ${fmt(band(answer, value)[0], 3)} to ${fmt(band(answer, value)[1], 3)}`,
      },
      zone,
      mark('is-measured', percentOf(answer, value), `measured ${fmt(value, 3)}`),
      mark('is-predicted', percentOf(answer, prediction), `your prediction ${fmt(prediction, 3)}`),
    ),
    h(
      'figcaption',
      { class: 'predict-axis' },
      h('span', { text: fmt(answer.min) }),
      h(
        'span',
        { class: 'predict-key' },
        h('span', { class: 'predict-key-measured', text: '● measured' }),
        ' ',
        h('span', { class: 'predict-key-predicted', text: '◇ yours' }),
        ' ',
        h('span', { class: 'predict-key-band', text: '▬ close' }),
      ),
      h('span', { text: `${fmt(answer.max)}${answer.scale === 'log' ? ' (log)' : ''}` }),
    ),
  );
}

const optionLabel = (q, value) => q.def.options.find((o) => o.value === value)?.label ?? value;

/** The verdict in one sentence, for the live region. */
export function verdictSentence(q, prediction, { verdict, value, answer }) {
  const yours = q.kind === 'choice' ? `“${optionLabel(q, prediction)}”` : fmt(prediction, 3);
  const measured =
    q.kind === 'choice'
      ? `the measured numbers pick “${optionLabel(q, answer)}”`
      : `measured ${fmt(value, 4)}`;
  return `${verdict === 'close' ? 'Close' : 'Off'}: you predicted ${yours}; ${measured}.`;
}

/** The result's nodes: measured beside predicted, the strip or the basis, why, the link. */
export function resultNodes(q, prediction, judged, measured, href) {
  const { value } = judged;
  const rows = [
    ['Your prediction', q.kind === 'choice' ? optionLabel(q, prediction) : fmt(prediction, 4)],
    [
      `Measured ${q.quantity}${q.configs.length > 1 ? ' (first setting)' : ''}`,
      h('span', { 'data-stat': 'measured', 'data-value': String(value), text: fmt(value, 4) }),
    ],
    ...(q.def.basis?.(measured, q.params) ?? []).map(([label, v]) => [label, fmt(v, 4)]),
  ];
  return [
    h(
      'dl',
      { class: 'predict-numbers' },
      rows.map(([k, v]) => h('div', {}, h('dt', { text: k }), h('dd', {}, v))),
    ),
    q.kind === 'number' ? strip(q.def.answer, prediction, value) : null,
    h('p', { class: 'predict-why', text: q.def.why(q.params, measured, q.lists) }),
    h(
      'p',
      {},
      h('a', { href, target: '_blank', rel: 'noopener', text: 'See it on the page at this setting ↗' }),
    ),
  ];
}
