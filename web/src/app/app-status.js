// What the app tells the reader about the engine itself, beside the charts: how it runs (scalar
// build, main thread) when that is not the usual way, a message in place of every chart when it
// cannot run at all, and a polite live announcement of what the charts show once a change settles.
// Used by app.js; text only (textContent), never markup.
import { h } from '../ui/dom.js';
import { noticeBox } from '../ui/notice.js';
import { PANELS } from '../panels/index.js';

/**
 * Lines about an unusual way of running: no wasm SIMD, or no Web Worker. `refusal` (from
 * worker-policy.js): the site's Content-Security-Policy refused the Worker; the line names the
 * directive and the sources it must allow.
 */
export function engineNotes(info, mode, refusal = null) {
  const lines = [];
  if (info && info.simd === false) {
    lines.push(
      'This browser has no WebAssembly SIMD, so the engine runs its scalar build: the same numbers, computed more slowly.',
    );
  }
  if (mode === 'main-thread' && refusal) {
    lines.push(
      `This site’s Content-Security-Policy refused the engine’s Web Worker (${refusal.directive}), so the engine computes on the page’s own thread: the page may pause briefly while a chart updates. ` +
        `For a Worker, the site’s worker-src must allow ${refusal.allow.join(' ')}.`,
    );
  } else if (mode === 'main-thread') {
    lines.push(
      'Web Workers are not available here, so the engine computes on the page’s own thread: the page may pause briefly while a chart updates.',
    );
  }
  return lines;
}

/** A persistent notice (not dismissed by the config notices) just before `noticeEl`. */
export function showEngineNotes(noticeEl, lines) {
  if (!noticeEl || !lines.length) return null;
  const box = h(
    'div',
    { class: 'notice info engine-note', role: 'status', 'data-engine-note': '' },
    h('p', { class: 'notice-title', text: 'How the charts are computed here' }),
    h(
      'ul',
      {},
      lines.map((l) => h('li', { text: l })),
    ),
  );
  noticeEl.before(box);
  return box;
}

/** In place of every chart when the engine cannot start: the charts' titles and why they are missing. */
export function showUnavailable(panelEls) {
  for (const [name, el] of Object.entries(panelEls)) {
    if (!el) continue;
    const title = PANELS[name]?.meta?.title ?? name;
    el.classList.add('panel', 'panel-unavailable');
    el.replaceChildren(
      h('h3', { text: title }),
      h('p', {
        text: 'This chart is computed live by the attnscale engine, which could not start in this browser (see the message above).',
      }),
    );
  }
}

/** The short summary a panel keeps for its charts (frame/panel-frame.js). */
export const panelSummary = (el) => el?.querySelector('[data-panel-summary]')?.textContent ?? '';

/**
 * A polite live region after `noticeEl`: announce(text) speaks `text` once the results stop
 * changing for `settleMs` (a slider drag gives one announcement, not one per step).
 */
export function createAnnouncer(noticeEl, settleMs = 1200) {
  if (!noticeEl) return { announce() {}, destroy() {} };
  const live = h('p', {
    class: 'sr-only',
    role: 'status',
    'aria-live': 'polite',
    'aria-atomic': 'true',
    'data-live-summary': '',
  });
  noticeEl.after(live);
  let timer = 0;
  return {
    /** `text`: a string, or a function read when the announcement is due. */
    announce(text) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const t = typeof text === 'function' ? text() : text;
        if (t && live.textContent !== t) live.textContent = t;
      }, settleMs);
    },
    destroy() {
      clearTimeout(timer);
      live.remove();
    },
  };
}

/** A dismissable notice box in `noticeEl` (replacing the last one): warnings, or an error. */
export function showNotices(noticeEl, lines, kind = 'warning') {
  if (!noticeEl || !lines.length) return;
  noticeEl.replaceChildren(noticeBox(lines, kind));
}
