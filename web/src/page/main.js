// Entry of the page: its styles, its theme and folds, then the app (page.js), which starts the
// compute Worker. Started here instead, the Worker would compile the wasm engine while this thread
// parses and lays out the page, on a phone's two cores, and the first chart comes no sooner
// (docs/performance.md, "Ideas tried and not kept").
import 'virtual:attnscale-katex.css'; // any style KaTeX writes, as classes (strict CSP: no style attributes)
import 'virtual:attnscale-panel-room.css'; // each panel's room until it is mounted
import '../styles/panels.css';
import '../panels/index.css';
import '../styles/page.css';
import '../styles/dock.css';
import '../styles/touch.css';
import '../styles/story.css';
import { getEngineClient } from '../compute/worker-client.js';
import { applyStoredTheme } from '../ui/theme.js';
import { watchFolds } from './folds.js';

performance.mark('attnscale:main-start');
// The page's sweeps run on Workers of their own. They boot with the engine when a panel built at
// load needs them (app.js), else once the first chart is drawn: a second engine compiled while
// the page starts would take a core from its first draw, on a phone with two.
document.addEventListener('attnscale:first-chart', () => getEngineClient().startBackground?.(), {
  once: true,
});
applyStoredTheme();
// A deep link into a folded topic opens it (and so does every in-page link later).
watchFolds(document);
// On a narrow screen the settings start folded, so the story and the charts come first.
const settings = document.getElementById('settings');
if (settings && matchMedia('(max-width: 900px)').matches) settings.open = false;
import('./page.js');
