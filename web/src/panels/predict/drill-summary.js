// The summary a reader can copy for a teacher: the set, the score and, per question, the last
// prediction and its verdict (as text, in a read-only field with a Copy button).
import { h, uniquePrefix } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { copyText } from '../../ui/clipboard.js';

/** The summary's text. */
export function summaryText({ seed, cards, store, score }) {
  const lines = cards.map(({ q }, i) => {
    const last = store.get(seed, q.id);
    if (!last) return `${i + 1}. ${q.title}: not checked yet`;
    const yours =
      q.kind === 'choice'
        ? (q.def.options.find((o) => o.value === last.prediction)?.label ?? last.prediction)
        : fmt(last.prediction, 4);
    return `${i + 1}. ${q.title}: predicted ${yours}, ${last.verdict}`;
  });
  return [`attnscale, Test yourself, set ${seed} (quiz=${seed})`, `Score: ${score}`, ...lines].join('\n');
}

/** drillSummary(state()) → { el, refresh() }: a <details> with the text and its Copy button. */
export function drillSummary(state) {
  const id = `${uniquePrefix('predict-summary')}text`;
  const field = h('textarea', {
    id,
    class: 'predict-summary-text',
    readonly: true,
    rows: 6,
    spellcheck: 'false',
  });
  const status = h('span', { class: 'predict-copy-status', role: 'status' });
  const copy = h('button', { type: 'button', class: 'btn small', text: 'Copy the summary' });
  copy.addEventListener('click', async () => {
    const ok = await copyText(field.value, field);
    status.textContent = ok ? 'Copied.' : 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
  });
  const el = h(
    'details',
    { class: 'predict-summary' },
    h('summary', { text: 'Summary for a teacher' }),
    h('label', { for: id, class: 'predict-label', text: 'Your score and predictions, as text' }),
    field,
    h('div', { class: 'predict-actions' }, copy, status),
  );
  return {
    el,
    refresh() {
      field.value = summaryText(state());
      status.textContent = '';
    },
  };
}
