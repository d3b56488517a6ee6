// finetune/worker-source.js: where the fine-tuning worker's code comes from. Bundles
// (tools/build-page.mjs) replace this file with the worker's whole script as text (WORKER_SOURCE),
// started from a blob: URL; unbundled (served as modules), the worker is worker.js beside it.
export const WORKER_SOURCE = null;
export const workerURL = new URL('./worker.js', import.meta.url);
