// The report panel's controls and readouts: the file picker and drop zone, the privacy line, the
// progress bar, the error and notes, the model's sentence, and the statistic and CSV tools.
import { h } from '../../ui/dom.js';

/**
 * buildReportView(prefix, stats, inShadow) → the elements, with `parts` in their order in the panel.
 * `stats` are the grid's colourings; `inShadow` hides the sample button (no page to fetch it from).
 */
export function buildReportView(prefix, stats, inShadow) {
  const input = h('input', {
    type: 'file',
    id: `${prefix}file`,
    multiple: true,
    accept: '.safetensors,.npy,.json',
    'data-tensor-input': '',
  });
  const sample = h('button', {
    type: 'button',
    class: 'btn',
    'data-report-sample': '',
    text: 'Try the trained sample',
    title: 'q and k of the training panel’s three copies after 500 steps (seed 1)',
    hidden: inShadow || import.meta.env.MODE === 'offline',
  });
  const drop = h(
    'div',
    { class: 'report-drop', 'data-report-drop': '' },
    h('label', { class: 'report-pick', for: input.id }, h('span', { text: 'Choose files' }), input),
    h('span', { class: 'report-drop-hint', text: 'or drop them here' }),
    sample,
  );
  const privacy = h('p', {
    class: 'report-privacy',
    'data-report-privacy': '',
    text: 'Nothing is uploaded: the files are read by this page, on this machine, and computed in its Workers. Nothing leaves this machine.',
  });
  const progress = h('progress', {
    'data-report-progress': '',
    max: '1',
    value: '0',
    'aria-label': 'Heads measured',
  });
  const progressText = h('span', { class: 'report-progress-text', 'aria-live': 'polite' });
  const cancel = h('button', {
    type: 'button',
    class: 'btn small',
    'data-report-cancel': '',
    text: 'Cancel',
    disabled: true,
  });
  // Announced when it changes (aria-live), without role="alert": the page's notices are its alerts.
  const error = h('p', {
    class: 'report-error',
    'data-report-error': '',
    'aria-live': 'assertive',
    hidden: true,
  });
  const notes = h('ul', { class: 'report-notes', 'data-report-notes': '' });
  // What a chosen config.json set (its fields, the multiplier and soft-cap used) or why it could not.
  const config = h('p', {
    class: 'report-config',
    'data-report-config': '',
    'aria-live': 'polite',
    hidden: true,
  });
  const summary = h('p', { class: 'report-summary', 'data-report-summary': '' });
  const statSelect = h(
    'select',
    { 'data-report-stat': '', id: `${prefix}stat` },
    stats.map((s) => h('option', { value: s.id, text: s.label })),
  );
  const csv = h('button', {
    type: 'button',
    class: 'btn small',
    'data-report-csv': '',
    text: 'CSV of every head',
    disabled: true,
  });
  const whatIfHost = h('div', { class: 'report-whatif-host' });
  const gridHost = h('div', { class: 'report-grid-host' });
  const bar = h('div', { class: 'report-bar' }, progress, progressText, cancel);
  const tools = h(
    'div',
    { class: 'report-tools' },
    h('label', { for: statSelect.id, text: 'Colour by ' }),
    statSelect,
    csv,
  );
  const parts = [drop, privacy, bar, error, notes, config, summary, whatIfHost, tools, gridHost];
  return {
    parts,
    input,
    sample,
    drop,
    progress,
    progressText,
    cancel,
    error,
    notes,
    config,
    summary,
    statSelect,
    csv,
    whatIfHost,
    gridHost,
  };
}
