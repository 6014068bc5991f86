// The app's setting and how it changes: a control, a preset or the address changes the config
// (validated against the engine's schema, with a notice for each value it had to change), the
// Worker is asked for it, and the address follows: the config's fields, then each panel's own.
import { parseQuery, applyChange, serialize, sameConfig, noticeText } from '../state/state.js';
import { PANELS } from '../panels/index.js';
import { showNotices } from './app-status.js';

/**
 * The parts of the address `query` that the panel `name` keeps there (its meta's urlParams), as
 * a query ('' if none): a panel not mounted yet keeps them as they came.
 */
export function panelParams(name, query) {
  const owns = PANELS[name]?.meta.urlParams;
  if (!owns || !query) return '';
  const keyOf = (part) => {
    try {
      return decodeURIComponent(part.split('=')[0].replace(/\+/g, ' '));
    } catch {
      return ''; // a malformed escape: not the panel's
    }
  };
  return query
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part && owns.test(keyOf(part)))
    .join('&');
}

/**
 * The app's setting, `st.config`, and how it changes: → { set(partial, { force, base }), setQuery(q),
 * publish({ computing }) }. `ui` holds the controls, the dock and the preset buttons once they are
 * mounted; `compute()` sends the config; `onConfigChange` is createApp's.
 */
export function configChanges(
  st,
  ui,
  { schema, limits, defaults, noticeEl, panels, names, compute, onConfigChange },
) {
  const notify = (lines, kind) => showNotices(noticeEl, lines, kind);
  const urlStates = () => [...panels.values()].map((p) => p.api.urlState).filter(Boolean);
  const notMounted = () => names.filter((name) => !panels.has(name));
  /**
   * The whole state as a URL query: every config field, then the panels' non-default settings
   * (those of a panel not mounted yet as the address gave them).
   */
  const fullQuery = () =>
    [
      serialize(st.config, schema),
      ...urlStates().map((u) => u.query()),
      ...notMounted().map((name) => panelParams(name, st.query)),
    ]
      .filter(Boolean)
      .join('&');
  // `computing`: a run of this config is on its way (onResult follows once it is shown).
  const publish = ({ computing = false } = {}) => onConfigChange(st.config, fullQuery(), { computing });
  const markPreset = () => ui.presetButtons?.mark(st.config);

  /** Applies a change; false when the config stayed the same. */
  function set(partial, { force = false, base = st.config } = {}) {
    const { config: next, notices } = applyChange(base, partial, schema, limits);
    if (notices.length) notify(notices.map(noticeText));
    if (!force && st.config && sameConfig(next, st.config, schema)) {
      ui.controls?.update(st.config);
      ui.dock?.update(st.config);
      return false;
    }
    st.config = next;
    compute(); // first: the Worker computes while this thread updates the controls and the URL
    ui.controls?.update(st.config);
    ui.dock?.update(st.config);
    markPreset();
    publish({ computing: true });
    return true;
  }

  /** A whole URL (the first load, back/forward): its notices replace the last URL's, or clear them. */
  function setQuery(q) {
    st.query = q;
    const { config: next, notices } = parseQuery(q, schema, { limits });
    const panelNotices = urlStates().flatMap((u) => u.set(q));
    const lines = [...notices, ...panelNotices].map(noticeText);
    if (lines.length) notify(lines);
    else if (noticeEl?.firstElementChild?.classList.contains('warning')) noticeEl.replaceChildren();
    // Unchanged (the first load: its config was sent before the panels were mounted): the preset
    // marks and the URL still follow it (the panels' settings may have changed).
    if (!set(next, { base: defaults, force: !st.config })) {
      markPreset();
      publish();
    }
  }
  return { set, setQuery, publish };
}
