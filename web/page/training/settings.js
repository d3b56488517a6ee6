// training/settings.js: what the training run is made of, as URL state (state.js includes
// TRAINING_PROPERTIES in its one list) and as createModel options. No DOM, no WebAssembly.
//
//   tseed    the run's own seed (separate from `seed`, which draws the attention sections' W)
//   batch    sentences per step        lr    learning rate        dim    embedding width
//   opt      'sgd' | 'adam'            corpus  a preset id, or a short corpus (one sentence a line)
//   example  the sentence the one-step walkthrough (section trainstep) follows
//
// A corpus goes into the link only while it is short (URL_CORPUS_CHARS characters); a longer one
// trains all the same, but the link then names the default corpus, and the page says so and
// offers the corpus as a file instead.
import { CORPUS_PRESETS, checkCorpus, tokenize, TRAINING_DEFAULTS, MODEL_DEFAULTS, DEFAULT_LR } from '../../corpus.js';

export { TRAINING_DEFAULTS };

/** The longest corpus (in characters, newlines included) that a link carries. */
export const URL_CORPUS_CHARS = 1000;
/** The walkthrough's sentence, as in the second article: 我 爱 吃 苹 → 果. */
export const DEFAULT_EXAMPLE = '我 爱 吃 苹 果';
const MAX_EXAMPLE_CHARS = 120;

/** The choices the controls offer (a link may hold any valid value in between). */
export const CHOICES = Object.freeze({
  batch: [1, 2, 4, 6, 8, 16, 32],
  lr: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1, 3],
  dim: [2, 4, 8, 16, 32, 64],
  opt: ['sgd', 'adam'],
});

/** The corpus as text, one sentence a line, tokens separated by spaces. */
export function corpusText(sentences) {
  return sentences.map((s) => (Array.isArray(s) ? s.join(' ') : String(s).trim())).join('\n');
}

/** The preset whose sentences are exactly this text's, or undefined. */
export function presetFor(text) {
  const lines = String(text).split(/\r?\n/u).map((l) => tokenize(l).join(' ')).filter(Boolean);
  return CORPUS_PRESETS.find((p) => p.sentences.length === lines.length
    && p.sentences.every((s, i) => tokenize(s).join(' ') === lines[i]));
}

/** checkCorpus's problems that stop a corpus from training (the rest are warnings). */
export const errorsOf = (problems) => problems.filter((p) => p.severity !== 'warning');

/**
 * A `corpus` value (preset id or text) → { id, text, sentences, problems, errors }: id is the
 * preset's or null for the reader's own; sentences are token arrays; errors: the problems that
 * stop it from training (warnings, such as a one-word line, do not).
 */
export function resolveCorpus(value) {
  const preset = CORPUS_PRESETS.find((p) => p.id === value);
  const text = preset ? corpusText(preset.sentences) : String(value ?? '');
  const { sentences, problems } = checkedCorpus(text);
  return { id: preset ? preset.id : (presetFor(text)?.id ?? null), text, sentences, problems, errors: errorsOf(problems) };
}

let lastChecked = { text: null, result: null };

/**
 * checkCorpus(text), kept for the last text checked: Apply checks the editor's text, and the store
 * then resolves the same text (a 9,000-word corpus is 8 ms a check). The result is shared: read it,
 * never change it.
 */
export function checkedCorpus(text) {
  if (lastChecked.text !== text) lastChecked = { text, result: checkCorpus(text) };
  return lastChecked.result;
}

/** The state value for a corpus text: its preset's id, the text when short, else null (too long). */
export function corpusValue(text) {
  const preset = presetFor(text);
  if (preset) return preset.id;
  return text.length <= URL_CORPUS_CHARS ? text : null;
}

function validCorpus(raw) {
  if (CORPUS_PRESETS.some((p) => p.id === raw)) return raw;
  if (raw.length > URL_CORPUS_CHARS) return null;
  const { sentences, problems } = checkCorpus(raw);
  if (errorsOf(problems).length || !sentences.length) return null;
  return corpusValue(corpusText(sentences));
}

function validExample(raw) {
  const words = tokenize(raw);
  return words.length >= 1 && raw.length <= MAX_EXAMPLE_CHARS ? words.join(' ') : null;
}

/** URL properties of the training run, in state.js's format ('text': validate(raw) → value or null). */
export const TRAINING_PROPERTIES = Object.freeze([
  { name: 'tseed', type: 'int', min: 0, max: 4294967295, default: MODEL_DEFAULTS.seed },
  { name: 'batch', type: 'int', min: 1, max: 64, default: TRAINING_DEFAULTS.batchSize },
  { name: 'lr', type: 'number', min: 0.001, max: 10, default: TRAINING_DEFAULTS.lr },
  { name: 'dim', type: 'int', min: 2, max: 64, default: TRAINING_DEFAULTS.dim },
  { name: 'opt', type: 'enum', values: CHOICES.opt, default: TRAINING_DEFAULTS.optimizer },
  { name: 'corpus', type: 'text', maxLength: URL_CORPUS_CHARS, validate: validCorpus, default: 'default' },
  { name: 'example', type: 'text', maxLength: MAX_EXAMPLE_CHARS, validate: validExample, default: DEFAULT_EXAMPLE },
]);

/** The state keys that define a run: changing one starts a new run at step 0. */
export const RUN_KEYS = Object.freeze(['tseed', 'batch', 'lr', 'dim', 'opt', 'corpus']);

/** The learning rate an optimizer starts from when the reader switches to it. */
export function defaultLr(optimizer) {
  return optimizer === TRAINING_DEFAULTS.optimizer ? TRAINING_DEFAULTS.lr : DEFAULT_LR[optimizer];
}

/** createModel options from the state (the corpus from `sentences` when given). */
export function modelOptions(state, sentences) {
  return {
    seed: state.get('tseed'),
    batchSize: state.get('batch'),
    lr: state.get('lr'),
    dim: state.get('dim'),
    optimizer: state.get('opt'),
    steps: TRAINING_DEFAULTS.steps,
    corpus: sentences,
  };
}
