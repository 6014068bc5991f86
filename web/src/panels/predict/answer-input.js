// The prediction controls: for a number, a slider and a text field that follow each other (the
// slider on a log scale where the answer's range spans decades); for a choice, a radio group.
// Each returns { el, read() → { value } | { error }, set(value) }; the control tests and readers
// reach is marked [data-predict] (the text field, or the radio group's fieldset).
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';

const STEPS = 1000; // slider positions on a log scale

/** The value a slider position stands for, and back. */
function scaleOf({ scale, min, max }) {
  if (scale !== 'log') return { toPos: (v) => v, fromPos: (p) => p };
  const span = Math.log(max / min);
  return {
    toPos: (v) => Math.round((STEPS * Math.log(v / min)) / span),
    fromPos: (p) => Number((min * Math.exp((span * p) / STEPS)).toPrecision(3)),
  };
}

/** The starting prediction: the middle of the range (geometric on a log scale), so nothing hints. */
function neutralValue({ scale, min, max }) {
  return scale === 'log' ? Number(Math.sqrt(min * max).toPrecision(1)) : (min + max) / 2;
}

export function numberAnswer(answer, idPrefix, initial) {
  const { scale, min, max, step } = answer;
  const { toPos, fromPos } = scaleOf(answer);
  const log = scale === 'log';
  const textId = `${idPrefix}value`;
  const hintId = `${idPrefix}range`;
  const slider = h('input', {
    type: 'range',
    class: 'predict-slider',
    min: log ? 0 : min,
    max: log ? STEPS : max,
    step: log ? 1 : step,
    'aria-label': `Your prediction${log ? ', on a log scale' : ''}`,
    'aria-describedby': hintId,
  });
  const text = h('input', {
    type: 'number',
    id: textId,
    class: 'predict-value',
    min,
    max,
    step: 'any',
    inputmode: 'decimal',
    'data-predict': '',
    'aria-describedby': hintId,
  });
  const set = (v) => {
    text.value = String(v);
    slider.value = String(toPos(Math.min(max, Math.max(min, v))));
    slider.setAttribute('aria-valuetext', fmt(v, 3));
  };
  slider.addEventListener('input', () => {
    const v = fromPos(Number(slider.value));
    text.value = String(v);
    slider.setAttribute('aria-valuetext', fmt(v, 3));
  });
  text.addEventListener('input', () => {
    const v = Number(text.value);
    if (text.value.trim() !== '' && Number.isFinite(v) && v >= min && v <= max) set(v);
  });
  set(initial ?? neutralValue(answer));
  const el = h(
    'div',
    { class: 'predict-number' },
    h('label', { for: textId, class: 'predict-label', text: 'Your prediction' }),
    h('div', { class: 'predict-inputs' }, slider, text),
    h('p', {
      class: 'predict-hint',
      id: hintId,
      text: `From ${fmt(min)} to ${fmt(max)}${log ? ', the slider on a log scale' : ''}.`,
    }),
  );
  return {
    el,
    set,
    read() {
      const v = Number(text.value);
      if (text.value.trim() === '' || !Number.isFinite(v) || v < min || v > max || (log && v <= 0))
        return {
          error: `Your prediction must be a number from ${fmt(min)} to ${fmt(max)}, got “${text.value}”.`,
        };
      return { value: v };
    },
  };
}

export function choiceAnswer(options, idPrefix, initial) {
  const radios = options.map((o, i) => {
    const id = `${idPrefix}opt${i}`;
    const input = h('input', { type: 'radio', id, name: `${idPrefix}choice`, value: o.value });
    input.checked = o.value === initial;
    return {
      input,
      el: h('div', { class: 'predict-option' }, input, h('label', { for: id, text: o.label })),
    };
  });
  const el = h(
    'fieldset',
    { class: 'predict-choice', 'data-predict': '' },
    h('legend', { class: 'predict-label', text: 'Your prediction' }),
    radios.map((r) => r.el),
  );
  return {
    el,
    set(value) {
      for (const r of radios) r.input.checked = r.input.value === value;
    },
    read() {
      const hit = radios.find((r) => r.input.checked);
      return hit ? { value: hit.input.value } : { error: 'Pick one of the answers first.' };
    },
  };
}
