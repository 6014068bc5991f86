// The page's registry of chart panels: a line each. A panel is a folder, panels/<name>/, with
//   meta.js    what the app knows before the panel's code loads:
//                { name, title, sweep?: draws the d_k sweeps, gif?: downloads as a GIF,
//                  job?: its background job that follows the page's setting:
//                  { kind: the Worker job (panels/jobs.js), title: what a failure names,
//                    worker: where it runs, 'background' | { pool: n } (engine-client.js: poster),
//                    request(config, { dks }) → the message's fields (sent again only when they
//                    change), startsNear?: not before the panel nears the viewport,
//                    counter?: the root's data- counter of requests sent },
//                  urlParams?: a RegExp of the address's parameters that hold its own settings
//                    (its view's urlState), kept as they came while it is not mounted }
//   <name>.js  its view: exports `meta` and `mount(el, ctx)` (app/panel-context.js), loaded only
//              when mounted, so an embed of one chart does not fetch the others;
//   *-job.js   optionally, its Worker side (`workerJobs`, registered in panels/jobs.js), whose
//              messages reach the view: the page's job through the view's jobReset(request) and
//              jobMessage(m), a panel's own session (ctx.client.openSession) through its handlers.
// The app (page, web component or embed) mounts any subset, in any element; compute/ and app/
// read this registry and never a panel's own modules.
import { meta as spread } from './spread/meta.js';
import { meta as sigma } from './sigma/meta.js';
import { meta as entropy } from './entropy/meta.js';
import { meta as gradients } from './gradients/meta.js';
import { meta as heatmap } from './heatmap/meta.js';
import { meta as precision } from './precision/meta.js';
import { meta as training } from './training/meta.js';
import { meta as lrSweep } from './lr-sweep/meta.js';
import { meta as thresholds } from './thresholds/meta.js';
import { meta as schemes } from './schemes/meta.js';
import { meta as length } from './length/meta.js';
import { meta as report } from './report/meta.js';
import { meta as predict } from './predict/meta.js';

const panel = (meta, load) => Object.freeze({ meta, load });

export const PANELS = Object.freeze({
  spread: panel(spread, () => import('./spread/spread.js')),
  sigma: panel(sigma, () => import('./sigma/sigma.js')),
  entropy: panel(entropy, () => import('./entropy/entropy.js')),
  gradients: panel(gradients, () => import('./gradients/gradients.js')),
  heatmap: panel(heatmap, () => import('./heatmap/heatmap.js')),
  precision: panel(precision, () => import('./precision/precision.js')),
  training: panel(training, () => import('./training/training.js')),
  'lr-sweep': panel(lrSweep, () => import('./lr-sweep/lr-sweep.js')),
  thresholds: panel(thresholds, () => import('./thresholds/thresholds.js')),
  schemes: panel(schemes, () => import('./schemes/schemes.js')),
  length: panel(length, () => import('./length/length.js')),
  report: panel(report, () => import('./report/report.js')),
  predict: panel(predict, () => import('./predict/predict.js')),
});
export const PANEL_NAMES = Object.freeze(Object.keys(PANELS));
