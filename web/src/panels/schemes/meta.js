// The schemes panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'schemes', title: 'Scaling schemes vs d_k, three assumptions' });
