// Entry of the page. The compute Worker (fetching and compiling the wasm engine) starts first;
// the rest of the page code (charts, controls) downloads and parses while it boots.
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
// The page's charts need the sweep Workers too: they boot as soon as the foreground one is ready.
getEngineClient().startBackground?.();
applyStoredTheme();
// A deep link into a folded topic opens it (and so does every in-page link later).
watchFolds(document);
// On a narrow screen the settings start folded, so the story and the charts come first.
const settings = document.getElementById('settings');
if (settings && matchMedia('(max-width: 900px)').matches) settings.open = false;
import('./page.js');
