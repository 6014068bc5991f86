// The notice box of the page, the component and the embed: what was adjusted (warning) or what
// went wrong (error, announced at once), with a Dismiss button.
import { h } from './dom.js';

/** A notice box listing `lines`; `kind` 'warning' | 'error'; the Dismiss button removes it. */
export function noticeBox(lines, kind = 'warning') {
  const box = h(
    'div',
    { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('p', {
      class: 'notice-title',
      text: kind === 'error' ? 'Something went wrong' : 'Some values were adjusted',
    }),
    h(
      'ul',
      {},
      lines.map((l) => h('li', { text: l })),
    ),
    h('button', { type: 'button', class: 'btn small', text: 'Dismiss', onclick: () => box.remove() }),
  );
  return box;
}
