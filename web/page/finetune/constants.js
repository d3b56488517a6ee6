// finetune/constants.js: what the fine-tuning run samples and evaluates, and when; shared by the
// run (run.js, in the worker) and the section that describes it.
export const SAMPLE_EVERY = 25;       // steps between two samples
export const SAMPLE_POEMS = 4;        // poems per sample, generation seeds 0 … 3
export const SAMPLE_TEMPERATURE = 0.8;
export const EVAL_EVERY = 25;         // steps between two evaluations
export const EVAL_WINDOWS = 12;       // windows of each text an evaluation scores (ft.evaluation)
export const MOVED_THRESHOLD = 1e-3;  // full fine-tuning: a parameter "moved" when it changed by more
export const MOVED_EVERY = 5;         // steps between two counts of the moved parameters
/**
 * The pretrained poet's shape, for the section's introduction before the base is loaded (then the
 * base's own numbers replace it); tests/finetune-page.test.js holds it to the shipped report.
 */
export const BASE_SHAPE = Object.freeze({ layers: 4, dim: 128, parameters: 1635712 });
