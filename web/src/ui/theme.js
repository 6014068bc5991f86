// Page theme: follows prefers-color-scheme until the reader picks one with the toggle; the pick
// is remembered (localStorage, when available). `onChange` repaints the charts.

const KEY = 'attnscale-theme';

/** Apply a remembered choice as early as possible (before the charts code loads). */
export function applyStoredTheme(rootEl = document.documentElement) {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    /* storage blocked */
  }
  if (stored === 'light' || stored === 'dark') rootEl.dataset.theme = stored;
}

export function initTheme(button, onChange = () => {}, rootEl = document.documentElement) {
  const mq = matchMedia('(prefers-color-scheme: dark)');
  const effective = () => rootEl.dataset.theme || (mq.matches ? 'dark' : 'light');
  const sync = () => {
    if (!button) return;
    const dark = effective() === 'dark';
    // A toggle button: a fixed name, the state in aria-pressed (and its pressed look).
    button.setAttribute('aria-pressed', String(dark));
    button.textContent = 'Dark theme';
  };
  applyStoredTheme(rootEl);
  sync();
  button?.addEventListener('click', () => {
    const next = effective() === 'dark' ? 'light' : 'dark';
    rootEl.dataset.theme = next;
    try {
      localStorage.setItem(KEY, next);
    } catch {
      /* storage blocked */
    }
    sync();
    onChange(next);
  });
  mq.addEventListener('change', () => {
    if (rootEl.dataset.theme) return;
    sync();
    onChange(effective());
  });
  return { effective };
}
