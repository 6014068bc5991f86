// The length panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'length', title: 'Attention vs context length T' });
