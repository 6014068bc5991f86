// The gradients panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'gradients', title: 'Gradient health', sweep: true, gif: true });
