// "Test yourself": predict, then see. Each question states a setting and asks for a number or a
// choice; Check sends the setting to the engine in a Worker (predict-job.js), and only then does
// the measured value appear beside the prediction, with a verdict under the question's stated
// tolerance, why, and a link to the page at that setting. The set's numbers come from a seeded
// generator (questions.js): quiz=<seed> gives a whole class the same set, "New numbers" another.
// The score and the last predictions stay in this browser (drill-store.js). The drill's settings
// live in the URL beside the page's (urlState, drill-params.js).
import { panelFrame } from '../../frame/panel-frame.js';
import { h, uniquePrefix } from '../../ui/dom.js';
import { serializeChanged, noticeText, PAGE_LIMITS } from '../../state/state.js';
import { meta } from './meta.js';
import { buildSet, DEFAULT_SEED, MAX_SEED, QUESTION_IDS, judge } from './questions.js';
import { parseDrillQuery, drillQuery } from './drill-params.js';
import { drillStore } from './drill-store.js';
import { questionCard } from './question-view.js';
import { drillSummary } from './drill-summary.js';
import drillCss from './predict.css?inline';

export { meta };

let sheet = null;
/** The drill's styles in the document or shadow root that holds `el` (once per root). */
function adoptStyles(el) {
  const root = el.getRootNode();
  if (!('adoptedStyleSheets' in root)) return;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(drillCss);
  }
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

/** A fresh quiz seed for "New numbers". */
function newSeed(old) {
  const a = new Uint32Array(1);
  do globalThis.crypto.getRandomValues(a);
  while (a[0] === old || a[0] > MAX_SEED);
  return a[0];
}

/** The bar above the questions: the score, the set, New numbers, Reset. */
function toolbar({ onNew, onReset }) {
  const score = h('p', { class: 'predict-score', 'data-stat': 'score', 'aria-live': 'polite' });
  const set = h('span', { class: 'predict-set' });
  const bar = h(
    'div',
    { class: 'predict-bar' },
    score,
    set,
    h('button', { type: 'button', class: 'btn small', text: 'New numbers', onclick: onNew }),
    h('button', { type: 'button', class: 'btn small', text: 'Reset score', onclick: onReset }),
  );
  return { bar, score, set };
}

/** Links to a config on the full page: this page when the drill is part of it, else index.html beside it. */
function pageLinks(el, schema) {
  return (cfg, chapter) => {
    const onPage = el.ownerDocument.getElementById('predict')?.contains(el);
    const url = onPage ? new URL(location.href) : new URL('index.html', el.ownerDocument.baseURI);
    url.search = serializeChanged(cfg, schema, PAGE_LIMITS);
    url.hash = chapter;
    return url.href;
  };
}

/** The numbered steps and Previous / Next: one question on screen at a time. */
function stepper() {
  const st = { cards: [], current: 0 };
  const steps = h('ol', { class: 'predict-steps', 'aria-label': 'Questions' });
  const go = (i) => {
    show(i);
    st.cards[st.current]?.el.querySelector('h4').focus();
  };
  const button = (text, onclick) => h('button', { type: 'button', class: 'btn small', text, onclick });
  const prev = button('← Previous', () => go(st.current - 1));
  const next = button('Next →', () => go(st.current + 1));
  const move = h('div', { class: 'predict-move' }, prev, next);
  function show(i) {
    st.current = Math.max(0, Math.min(st.cards.length - 1, i));
    st.cards.forEach((c, k) => {
      c.el.hidden = k !== st.current;
      const b = steps.children[k]?.firstChild;
      if (k === st.current) b?.setAttribute('aria-current', 'step');
      else b?.removeAttribute('aria-current');
    });
    prev.disabled = st.current === 0;
    next.disabled = st.current === st.cards.length - 1;
  }
  return {
    steps,
    move,
    /** New cards: their steps, the first one on screen. */
    setCards(cards) {
      st.cards = cards;
      for (const c of cards) c.el.querySelector('h4').tabIndex = -1;
      const single = cards.length === 1;
      steps.hidden = single;
      move.hidden = single;
      steps.replaceChildren(
        ...cards.map((c, k) =>
          h(
            'li',
            {},
            h('button', {
              type: 'button',
              class: 'predict-step',
              text: String(k + 1),
              'aria-label': `Question ${k + 1}: ${c.q.title}`,
              onclick: () => go(k),
            }),
          ),
        ),
      );
      show(0);
    },
  };
}

export function mount(el, ctx = {}) {
  adoptStyles(el);
  const schema = ctx.schema ?? [];
  const store = drillStore();
  const href = pageLinks(el, schema);
  const st = { seed: DEFAULT_SEED, ids: [...QUESTION_IDS], cards: [], pending: null };
  const frame = panelFrame(el, {
    name: 'predict',
    title: meta.title,
    description:
      'Commit to an answer, then press Check: the engine measures the setting in your browser, and only then shows the number. Your score stays in this browser.',
  });
  const tools = toolbar({
    onNew: () => {
      st.seed = newSeed(st.seed);
      render();
      ctx.onUrlStateChange?.();
    },
    onReset: () => {
      store.clear();
      for (const c of st.cards) c.reset();
      showScore();
    },
  });
  const nav = stepper();
  const cardsBox = h('div', { class: 'predict-cards' });
  const summary = drillSummary(() => ({ seed: st.seed, cards: st.cards, store, score: scoreText() }));
  frame.body.append(tools.bar, nav.steps, cardsBox, nav.move, summary.el);

  const session = ctx.client?.openSession({
    predictMeasured(m) {
      const p = st.pending;
      if (!p || m.id !== p.jobId) return;
      st.pending = null;
      const judged = judge(p.card.q, p.prediction, m.measured);
      p.card.showResult(p.prediction, judged, m.measured);
      store.put(st.seed, p.card.q.id, { prediction: p.prediction, verdict: judged.verdict });
      idle();
    },
    onError(m) {
      const p = st.pending;
      if (!p) return;
      st.pending = null;
      p.card.showError(`The engine could not measure this setting: ${m.message}`);
      idle();
    },
  });

  function idle() {
    for (const c of st.cards) c.busy(false);
    showScore();
  }

  function check(card) {
    const read = card.read();
    if (read.error) {
      card.showError(read.error);
      return;
    }
    if (!session) {
      card.showError('The engine is not available here, so nothing can be measured.');
      return;
    }
    for (const c of st.cards) c.busy(c === card);
    const { configs, def } = card.q;
    const jobId = session.job('predict', { configs, rowSums: !!def.rowSums }, 'foreground');
    st.pending = { jobId, card, prediction: read.value };
  }

  function scoreText() {
    const close = st.cards.filter((c) => store.get(st.seed, c.q.id)?.verdict === 'close').length;
    return `${close} of ${st.cards.length} within tolerance`;
  }
  function showScore() {
    tools.score.textContent = scoreText();
    summary.refresh();
  }

  function render(notices = []) {
    st.pending = null;
    const built = buildSet(st.ids, st.seed, schema);
    notices.push(...built.notices);
    frame.gaps.textContent = built.notices.map(noticeText).join(' ');
    const prefix = uniquePrefix('predict');
    st.cards = built.questions.map((q, index) =>
      questionCard(q, {
        index,
        count: built.questions.length,
        idPrefix: `${prefix}${q.id}-`,
        last: store.get(st.seed, q.id),
        href,
        onCheck: check,
      }),
    );
    cardsBox.replaceChildren(...st.cards.map((c) => c.el));
    nav.setCards(st.cards);
    tools.set.textContent = `Set ${st.seed}`;
    el.dataset.quiz = String(st.seed);
    showScore();
    return notices;
  }

  render();
  ctx.onDrawn?.('predict'); // its questions: nothing is measured until a Check
  return {
    urlState: {
      /** URL query → notices about the drill's values it had to change. */
      set(search) {
        const { seed, ids, notices } = parseDrillQuery(search);
        if (seed === st.seed && ids.join() === st.ids.join() && !notices.length) return [];
        st.seed = seed;
        st.ids = ids;
        return render(notices);
      },
      query: () => drillQuery(st),
    },
    redraw() {},
    destroy() {
      session?.close();
    },
  };
}
