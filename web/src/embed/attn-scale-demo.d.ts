// Types of the <attn-scale-demo> web component (package entries `attnscale/component` and
// `attnscale/dist/attn-scale-demo.js`, built from web/src/embed/attn-scale-demo.js). Importing the module
// defines the element.
import type { FullConfig } from '../engine/engine.js';

/** The panels an element can show (attribute `panel`: one name or a comma list). */
export type PanelName = 'spread' | 'sigma' | 'entropy' | 'gradients' | 'heatmap' | 'precision' | 'training' | 'lr-sweep' | 'thresholds' | 'schemes' | 'length' | 'report' | 'predict';

/** Attribute `theme`. */
export type Theme = 'light' | 'dark' | 'auto';

/**
 * The element's attributes. All are strings, read with the page URL's rules: a bad value is
 * clamped or reset with a notice inside the element. A bare boolean attribute (`causal`) means true.
 */
export interface AttnScaleDemoAttributes {
  /** One panel or a comma list; default 'spread'. */
  panel?: string;
  /** 'all', or a comma list of fields (`dk,scale`, `seq-len`); none by default. */
  controls?: string;
  theme?: Theme;
  /** The full page the "Open in attnscale" link goes to (http or https). */
  page?: string;
  /** With panel 'report': the URL of a .safetensors file to report (same origin, or served with CORS). */
  src?: string;
  /** With panel 'predict': the seed of the drill's numbers, a whole number in [0, 4294967295]; default 1. */
  quiz?: string;
  /** With panel 'predict': the drill's questions by id, a comma list, in the order given. */
  questions?: string;
  /** With panel 'predict': one question alone, by id (wins over `questions`). */
  question?: string;
  dk?: string;
  'seq-len'?: string;
  precision?: string;
  saturate?: string;
  scale?: string;
  'subtract-max'?: string;
  softmax?: string;
  'block-size'?: string;
  causal?: string;
  mean?: string;
  std?: string;
  correlation?: string;
  seed?: string;
  'qk-norm'?: string;
  softcap?: string;
  'length-scale'?: string;
}

export class AttnScaleDemo extends HTMLElement {
  /** The config in use (engine field names), or null before the engine is ready. */
  readonly config: FullConfig | null;
}

declare global {
  interface HTMLElementTagNameMap {
    'attn-scale-demo': AttnScaleDemo;
  }
}
