// Declarations for web/gpt-defaults.js, the package's `qkv-lab/gpt-defaults`: what createGPT
// accepts and what it uses when an option is left out.

/** The limits createGPT enforces (and, per call, the work limit). */
export const GPT_LIMITS: {
  readonly layers: number; readonly dim: number; readonly context: number; readonly batch: number; readonly steps: number;
  /** characters of text (code points, newlines included) */
  readonly textCharacters: number;
  /** distinct characters + the end-of-text token */
  readonly vocab: number;
  /** lines of text: at least this many, since every 10th is held out for validation */
  readonly minLines: number;
};
/** createGPT's defaults. */
export const GPT_DEFAULTS: {
  readonly layers: number; readonly heads: number; readonly dim: number; readonly context: number;
  readonly seed: number; readonly lr: number; readonly batch: number; readonly steps: number;
};
