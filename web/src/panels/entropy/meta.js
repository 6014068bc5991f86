// The entropy panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({
  name: 'entropy',
  title: 'Softmax entropy and saturation vs d_k',
  sweep: true,
  gif: true,
});
