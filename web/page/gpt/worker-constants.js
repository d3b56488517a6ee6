// gpt/worker-constants.js: what the training worker samples and evaluates, and when; shared by
// the worker (worker.js) and the sections that describe it.
export const SAMPLE_EVERY = 25;      // steps between two samples
export const EVAL_EVERY = 100;       // steps between two evaluations (every validation window)
export const SAMPLE_POEMS = 8;       // poems per sample, generation seeds 0 … 7
export const SAMPLE_TEMPERATURE = 0.8;
export const EVAL_PIECE_MS = 20;    // in the worker, the longest piece of an evaluation between two commands
