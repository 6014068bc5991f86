// The full settings as a sheet over the bottom of a narrow screen: a modal <dialog> into which
// the one settings element moves while it is open, and out of which it moves back to its place
// when it closes. One set of inputs, so one state. The dialog brings Escape, the focus kept
// inside and the rest of the page inert (HTML's modal dialog); a tap on the backdrop closes it.
import { h } from './dom.js';

/** createSettingsSheet(settingsEl, { idPrefix }) → { el, open(opener), close() } */
export function createSettingsSheet(settingsEl, { idPrefix = 'as-' } = {}) {
  const titleId = `${idPrefix}sheet-title`;
  const body = h('div', { class: 'sheet-body' });
  const done = h('button', { type: 'button', class: 'btn', text: 'Done', onclick: () => close() });
  const inner = h(
    'div',
    { class: 'sheet-inner' },
    h('div', { class: 'sheet-head' }, h('h2', { id: titleId, text: 'Settings' }), done),
    body,
  );
  const dialog = h(
    'dialog',
    { class: 'settings-sheet', 'aria-labelledby': titleId, 'data-settings-sheet': '' },
    inner,
  );
  // A click whose target is the dialog itself landed on the backdrop (the inner box fills the rest).
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) close();
  });
  let marker = null;
  let opener = null;
  dialog.addEventListener('close', () => {
    marker?.replaceWith(settingsEl);
    marker = null;
    opener?.focus();
    opener = null;
  });

  function close() {
    if (dialog.open) dialog.close();
  }
  return {
    el: dialog,
    open(from) {
      if (dialog.open) return;
      opener = from ?? null;
      marker = document.createComment('settings');
      settingsEl.before(marker);
      body.append(settingsEl);
      dialog.showModal();
      done.focus();
    },
    close,
  };
}
