// Registry of the chart panels. Each module exports `meta` and `mount(el, ctx)`; the app (page,
// web component or embed) mounts any subset of them, in any element. A panel's code is loaded
// only when it is mounted (`load()`), so an embed of one chart does not fetch the others.
import { PANEL_META } from './meta.js';

const loaders = {
  spread: () => import('./spread/spread.js'),
  sigma: () => import('./sigma/sigma.js'),
  entropy: () => import('./entropy/entropy.js'),
  gradients: () => import('./gradients/gradients.js'),
  heatmap: () => import('./heatmap/heatmap.js'),
  precision: () => import('./precision/precision.js'),
  training: () => import('./training/training.js'),
  thresholds: () => import('./thresholds/thresholds.js'),
  schemes: () => import('./schemes/schemes.js'),
  length: () => import('./length/length.js'),
  report: () => import('./report/report.js'),
};

export const PANELS = Object.freeze(
  Object.fromEntries(
    Object.entries(PANEL_META).map(([name, meta]) => [name, Object.freeze({ meta, load: loaders[name] })]),
  ),
);
export const PANEL_NAMES = Object.freeze(Object.keys(PANELS));
