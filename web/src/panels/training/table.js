// The training panel's numbers: a table of each copy at the latest step, and the summary of what
// the curves show now (also the charts' text alternative).
import { h } from '../../ui/dom.js';
import { fmt } from '../../ui/format.js';
import { REACH_ACCURACY, copyLabel } from './train-state.js';

const TABLE_COLS = [
  ['loss', 'loss'],
  ['accuracy', 'accuracy'],
  ['entropy', 'entropy (nats)'],
  ['saturatedFraction', 'saturated rows'],
  ['gradNormWq', '‖∇W_q‖'],
  ['gradNormWk', '‖∇W_k‖'],
  ['stepTo90', `${100 * REACH_ACCURACY}% at step`],
];

/**
 * createTrainingTable(body, idp) appends the table and the summary. → { build(copies, scale,
 * trainSchema), fill(run), summaryEl }.
 */
export function createTrainingTable(body, idp) {
  // Scrolls sideways on a narrow screen: focusable and named, so a keyboard can scroll it too.
  const tableWrap = h('div', {
    class: 'table-scroll',
    tabindex: '0',
    role: 'region',
    'aria-label': 'Training numbers (scrollable table)',
  });
  const summaryEl = h('p', { class: 'train-summary', 'data-train-summary': '' });
  body.append(
    h('h4', { class: 'subchart', text: 'Numbers' }),
    tableWrap,
    h('p', {
      class: 'caption',
      id: `${idp}table-note`,
      text: `“${100 * REACH_ACCURACY}% at step”: the first step at which the accuracy averaged over the last 10 steps reached ${REACH_ACCURACY}.`,
    }),
    h('h4', { class: 'subchart', text: 'What the curves show now' }),
    summaryEl,
  );
  let copiesKey = '';
  const cells = new Map();

  return {
    summaryEl,
    /** One row per copy (kept while the copies and the custom scale stay the same). */
    build(copies, scale, trainSchema) {
      const key = copies.join(',') + (typeof scale === 'number' ? `:${scale}` : '');
      if (key === copiesKey) return;
      copiesKey = key;
      cells.clear();
      const tbody = h(
        'tbody',
        {},
        copies.map((c) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row', text: copyLabel(c, scale, trainSchema) }),
            TABLE_COLS.map(([m]) => {
              const td = h('td', { 'data-stat': `train.${c}.${m}`, text: '—' });
              cells.set(`${c}.${m}`, td);
              return td;
            }),
          ),
        ),
      );
      tableWrap.replaceChildren(
        h(
          'table',
          { class: 'variants train-table', 'aria-describedby': `${idp}table-note` },
          h('caption', { text: 'Each copy at the latest step' }),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col', text: 'copy' }),
              TABLE_COLS.map(([, t]) => h('th', { scope: 'col', text: t })),
            ),
          ),
          tbody,
        ),
      );
    },
    /** Each cell from the run's latest step ('—' before the first). */
    fill(run) {
      const stepsDrawn = run ? run.steps.length : 0;
      for (const [key, td] of cells) {
        const [c, m] = key.split('.');
        if (!run?.copies[c] || !stepsDrawn) {
          td.textContent = '—';
          continue;
        }
        td.textContent =
          m === 'stepTo90'
            ? run.reached[c] == null
              ? 'not yet'
              : String(run.reached[c])
            : fmt(run.copies[c][m].at(-1));
      }
    },
  };
}
