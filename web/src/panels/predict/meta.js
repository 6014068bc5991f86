// The drill as the registry (panels/index.js) sees it before its code loads: its name, its title
// and its questions' ids and titles (the Embed dialog offers one question alone). The questions
// themselves (question-bank.js) and their Worker job (predict-job.js) load with the view.
export const meta = Object.freeze({
  name: 'predict',
  title: 'Test yourself',
  // The address's parameters of its own (drill-params.js).
  urlParams: /^(quiz|question|questions)$/,
  questions: Object.freeze([
    { id: 'sigma-growth', title: 'How σ of q·k grows with d_k' },
    { id: 'saturation-gradient', title: 'What a saturated softmax does to the gradient' },
    { id: 'saturated-share', title: 'How many rows saturate' },
    { id: 'why-sqrt', title: 'Why √d_k and not d_k' },
    { id: 'inference', title: 'Does the scale matter at inference' },
    { id: 'low-precision', title: 'How the scale meets fp16 and bf16' },
    { id: 'mistake-normalizes', title: 'Mistake: “the scale normalizes the weights”' },
    { id: 'mistake-dk', title: 'Mistake: quoting d_k for √d_k' },
    { id: 'mistake-assumption', title: 'Mistake: dropping the assumption' },
  ]),
});
