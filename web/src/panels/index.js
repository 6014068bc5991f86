// Registry of the chart panels. Each module exports `meta` and `mount(el, ctx)`; the app (page,
// web component or embed) mounts any subset of them, in any element.
import * as spread from './spread.js';
import * as sigma from './sigma.js';
import * as entropy from './entropy.js';
import * as gradients from './gradients.js';
import * as heatmap from './heatmap.js';
import * as precision from './precision.js';
import * as training from './training.js';

export const PANELS = Object.freeze({ spread, sigma, entropy, gradients, heatmap, precision, training });
export const PANEL_NAMES = Object.freeze(Object.keys(PANELS));
