// Imported by uplot-chart.js before uPlot, so that it runs first. uPlot formats numbers with
// `new Intl.NumberFormat(navigator.language)`, evaluated when its module loads; a tag Intl
// rejects (WebKit reports 'C' under the C/POSIX locale) would throw there and stop every chart
// from loading. In that case only, navigator.language reads 'en' (the tag was unusable anyway).
import { isValidLocale } from '../pure/locale.js';

if (
  typeof navigator === 'object' &&
  navigator &&
  typeof navigator.language === 'string' &&
  !isValidLocale(navigator.language)
) {
  Object.defineProperty(navigator, 'language', { configurable: true, enumerable: true, get: () => 'en' });
}
