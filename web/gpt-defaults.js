// gpt-defaults.js: createGPT's limits and defaults (web/gpt.js), apart from the engine, so that
// what shows or links the GPT's settings (the page's URL state) need not carry the engine with it.
/** The limits createGPT enforces (beyond them a step would exceed the work limit anyway, or
 * the model would not fit in memory). */
export const GPT_LIMITS = Object.freeze({
  layers: 16, dim: 512, context: 256, batch: 256, steps: 1e6,
  /** characters of text (code points, newlines included) */
  textCharacters: 2_000_000,
  /** distinct characters + the end-of-text token */
  vocab: 8192,
  /** lines of text: at least 10, since every 10th is held out for validation */
  minLines: 10,
});
/** createGPT's defaults (docs/gpt.md: how they were chosen). */
export const GPT_DEFAULTS = Object.freeze({
  layers: 2, heads: 4, dim: 64, context: 32, seed: 0, lr: 3e-3, batch: 16, steps: 600,
});
