// The training panel as the registry (panels/index.js) sees it before its code loads: its name,
// its title, and the address's parameters that hold its settings (trainSeed, trainCopies, …).
export const meta = Object.freeze({
  name: 'training',
  title: 'Training side by side',
  urlParams: /^train[A-Z]/,
});
