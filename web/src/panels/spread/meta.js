// The spread panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'spread', title: 'Logit spread', gif: true });
