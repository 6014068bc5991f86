// The training panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'training', title: 'Training side by side' });
