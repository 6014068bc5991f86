// The learning-rate sweep as the registry (panels/index.js) sees it before its code loads. Its
// job (lr-sweep-job.js, registered in panels/jobs.js) is sent by the panel itself, on a click.
export const meta = Object.freeze({ name: 'lr-sweep', title: 'Learning-rate sensitivity' });
