// The sigma panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'sigma', title: 'σ of the logits vs d_k', sweep: true, gif: true });
