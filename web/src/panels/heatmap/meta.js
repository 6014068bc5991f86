// The heatmap panel as the registry (panels/index.js) sees it before its code loads.
export const meta = Object.freeze({ name: 'heatmap', title: 'Attention weights', gif: true });
