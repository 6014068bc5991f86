// The report panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'report', title: 'Your model, head by head' });
