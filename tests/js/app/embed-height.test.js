// The room an embed reserves before its script runs (web/src/embed/embed-height.js): the CSS
// length of the width that the snippets write stays above the height the measured panels take
// (within the fitting tolerance) and not far above it, at every width from a phone's to a wide
// column, and drops where the panels move side by side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  elementCss,
  elementHeight,
  frameCss,
  frameHeight,
  panelCss,
} from '../../../web/src/embed/embed-height.js';
import { PANEL_HEIGHTS } from '../../../web/src/embed/panel-heights.js';

/** The CSS length at a containing block `w` px wide (100% = w), in px. */
function evaluate(css, w) {
  const js = css
    .replaceAll('100%', `${w}`)
    .replaceAll('px', '')
    .replace(/^calc/, '')
    .replaceAll('max(', 'Math.max(');
  assert.match(js, /^(?:[0-9.()+\-*, ]|Math\.max)+$/, 'only numbers, arithmetic and max()');
  return Function(`return ${js}`)();
}

// The fitting tolerance (cssOfWidth) and how much room above the panels is acceptable.
const BELOW = 22; // 20, and the rounding of the written coefficients
const ABOVE = 80;

const CASES = [
  [['spread'], null],
  [['spread', 'sigma'], null],
  [['sigma', 'entropy', 'heatmap'], null],
  [
    ['spread', 'sigma'],
    ['dk', 'scale'],
  ],
];

for (const [panels, controls] of CASES)
  test(`${panels.join(',')}${controls ? ' with settings' : ''}: the reserved room follows the panels' height`, () => {
    for (const [css, height] of [
      [elementCss(panels, controls), (w) => elementHeight(panels, w, controls)],
      [frameCss(panels, controls), (w) => frameHeight(panels, w, controls)],
    ])
      for (let w = 240; w <= 1600; w += 3) {
        const r = evaluate(css, w);
        const h = height(w);
        assert.ok(
          r >= h - BELOW && r <= h + ABOVE,
          `at ${w} px: reserved ${r.toFixed(0)} for ${h.toFixed(0)}`,
        );
      }
  });

test('two panels side by side from 30rem each: the room drops at that width', () => {
  const css = elementCss(['spread', 'sigma']);
  const narrow = evaluate(css, 973);
  const wide = evaluate(css, 976);
  assert.ok(narrow > 1000 && wide < 700, `${narrow} → ${wide}`);
});

test('every panel of the page has its room, a positive length at every width', () => {
  for (const name of Object.keys(PANEL_HEIGHTS))
    for (let w = 240; w <= 1600; w += 20) assert.ok(evaluate(panelCss(name), w) > 100, `${name} at ${w}`);
});
