// The Worker's registry of the panels' jobs: a line per job kind, naming the panel module whose
// `workerJobs` has it. A module is loaded the first time one of its jobs is asked for (a chunk
// of its own), so the Worker a single chart starts carries none of them. compute/worker.js runs
// them; a kind's messages ({ type: kind, session, id, part?, … }) are described in its module.
// This file is apart from index.js so that the Worker's bundle never refers to the panels' views.
export const JOB_MODULES = Object.freeze({
  variants: () => import('./precision/precision-job.js'),
  heatmapContrast: () => import('./heatmap/heatmap-job.js'),
  thresholds: () => import('./thresholds/thresholds-job.js'),
  report: () => import('./report/report-job.js'),
  reportDetail: () => import('./report/report-job.js'),
  train: () => import('./training/training-job.js'),
  lrSweep: () => import('./lr-sweep/lr-sweep-job.js'),
  predict: () => import('./predict/predict-job.js'),
});
