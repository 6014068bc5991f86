// One question of the drill as a card: its setting, its prompt, the prediction control, its
// tolerance, Check, and (only after the check) the result. The card carries the hooks
// [data-question], data-config (the engine config it measures, as JSON; an array where it compares
// two) and data-quantity; after the check, data-verdict ('close' | 'off').
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { settingText, toleranceText } from './questions.js';
import { numberAnswer, choiceAnswer } from './answer-input.js';
import { resultNodes, verdictSentence } from './result-view.js';

const GROUP_NAMES = { core: 'Core', 'follow-up': 'Follow-up', mistake: 'Common mistake' };

/** The last check kept in this browser, in words (a prediction and a verdict; never a measured value). */
function lastText(q, last) {
  if (!last) return '';
  const yours =
    q.kind === 'choice'
      ? `“${q.def.options.find((o) => o.value === last.prediction)?.label ?? last.prediction}”`
      : fmt(last.prediction, 3);
  return `Your last check of these numbers: ${yours}, ${last.verdict === 'close' ? 'close' : 'off'}.`;
}

/**
 * questionCard(q, { index, count, idPrefix, last, href(cfg, chapter), onCheck(card) }) → card:
 * { el, q, read(), busy(on), showResult(prediction, judged, measured), showError(text), reset() }.
 */
export function questionCard(q, { index, count, idPrefix, last, href, onCheck }) {
  const titleId = `${idPrefix}title`;
  const input =
    q.kind === 'number'
      ? numberAnswer(q.def.answer, idPrefix, last?.prediction)
      : choiceAnswer(q.def.options, idPrefix, last?.prediction);
  const check = h('button', { type: 'button', class: 'btn predict-check', 'data-check': '', text: 'Check' });
  const live = h('p', { class: 'predict-verdict', role: 'status', 'aria-live': 'polite' });
  const result = h('div', { class: 'predict-result' });
  const lastLine = h('p', { class: 'predict-last', text: lastText(q, last) });
  const el = h(
    'section',
    {
      class: 'predict-question',
      'data-question': q.id,
      'data-config': JSON.stringify(q.configs.length > 1 ? q.configs : q.configs[0]),
      'data-quantity': q.quantity,
      'aria-labelledby': titleId,
    },
    h(
      'h4',
      { id: titleId, class: 'predict-title' },
      h('span', { class: 'predict-count', text: `${index + 1} of ${count} · ${GROUP_NAMES[q.group]}` }),
      h('span', { text: q.title }),
    ),
    h(
      'p',
      { class: 'predict-setting' },
      h('strong', { text: q.configs.length > 1 ? 'Settings: ' : 'Setting: ' }),
      settingText(q.configs, q.lists),
    ),
    h('p', { class: 'predict-prompt', text: q.prompt }),
    input.el,
    h('p', { class: 'predict-tolerance', text: toleranceText(q) }),
    h('div', { class: 'predict-actions' }, check),
    live,
    lastLine,
    result,
  );
  const card = {
    el,
    q,
    read: () => input.read(),
    busy(on) {
      check.disabled = on;
      if (on) live.textContent = 'Measuring…';
    },
    showResult(prediction, judged, measured) {
      el.dataset.verdict = judged.verdict;
      live.textContent = verdictSentence(q, prediction, judged);
      live.classList.toggle('is-close', judged.verdict === 'close');
      live.classList.toggle('is-off', judged.verdict === 'off');
      lastLine.textContent = '';
      result.replaceChildren(
        ...resultNodes(q, prediction, judged, measured, href(q.configs[0], q.chapter)).filter(Boolean),
      );
    },
    showError(text) {
      live.textContent = text;
      live.classList.remove('is-close', 'is-off');
    },
    /** Forget the shown result and the kept line (after a reset of the score). */
    reset() {
      delete el.dataset.verdict;
      live.textContent = '';
      lastLine.textContent = '';
      result.replaceChildren();
    },
  };
  check.addEventListener('click', () => onCheck(card));
  return card;
}
