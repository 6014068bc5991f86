// What the browser must provide, checked before anything is loaded, with the message a reader sees
// when it is missing (shown in place of the charts; see app.js).
export const NO_WEBASSEMBLY =
  'This browser does not provide WebAssembly, which attnscale needs to compute its charts ' +
  '(it may be switched off by a setting, a policy or a high-security mode). The text still reads fine; ' +
  'to see the charts, open the page in a current Chrome, Edge, Firefox or Safari with WebAssembly enabled.';

export const hasWebAssembly = () =>
  typeof WebAssembly === 'object' && WebAssembly !== null && typeof WebAssembly.instantiate === 'function';
