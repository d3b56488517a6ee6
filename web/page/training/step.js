// training/step.js: the numbers of the one-step walkthrough (section trainstep), computed with
// the WebAssembly model from the shared training run, so that the section only draws them.
// Data flows one way: WASM model → run (training/store.js) → this snapshot → section → DOM.
//
//   const source = createTrainStepSource(ctx);   // { get(), subscribe(fn), setVisible(v), destroy() }
//   source.get() → { status: 'waiting' | 'replaying' | 'ready' | 'error', … }
//
// The update is taken on a copy of the run's current parameters (a second model with the same
// options): the walkthrough shows what one step on this sentence does, and leaves the run alone.
// Dimensions: n = tokens + 1 positions (<s> first), d the embedding width, V the vocabulary.
import { tokenize } from '../../corpus.js';
import { Matrix } from '../../matrix.js';
import { PARAMETER_NAMES } from '../../model.js';
import { DEFAULT_EXAMPLE } from './settings.js';

/** While the run trains, the walkthrough's numbers follow at most this often. */
const REFRESH_MS = 250;

/** Rows `rows` of matrix M, as a Matrix k × cols. */
export function pickRows(M, rows) {
  const out = new Matrix(rows.length, M.cols);
  rows.forEach((r, k) => out.data.set(M.data.subarray(r * M.cols, (r + 1) * M.cols), k * M.cols));
  return out;
}

/**
 * How spread out causal attention is: the entropy of rows 1 … n−1, each over its largest possible
 * value ln(i + 1), averaged. 1 when every row is even, 0 when each row looks at one place. The
 * same measure as training/claims.js's attentionSpread (tools/training-measures.mjs), so the
 * walkthrough's number can be read against the range measured over seeds.
 */
export function attentionSpread(weights) {
  if (weights.rows < 2) return NaN;
  let sum = 0;
  for (let i = 1; i < weights.rows; i++) {
    let h = 0;
    for (let j = 0; j <= i; j++) {
      const p = weights.data[i * weights.cols + j];
      if (p > 0) h -= p * Math.log(p);
    }
    sum += h / Math.log(i + 1);
  }
  return sum / (weights.rows - 1);
}

/** Which corpus sentence to follow: the one asked for when the corpus has it, else the first. */
export function chooseSentence(sentences, asked) {
  const wanted = tokenize(asked || DEFAULT_EXAMPLE).join(' ');
  const texts = sentences.map((s) => s.join(' '));
  const at = texts.indexOf(wanted);
  return { tokens: at >= 0 ? sentences[at] : sentences[0], index: at >= 0 ? at : 0, missing: at < 0 ? wanted : null };
}

/**
 * Everything the walkthrough shows for one sentence at the run's current step:
 *   now, start   model.inspect(sentence) at the current step and at step 0
 *   update       stepOn(sentence) on a copy: { loss, lossAfter, updatedRows, rowsBefore, rowsAfter,
 *                gradRows (k×d, the gradient's rows for updatedRows), delta (rowsAfter − rowsBefore as
 *                the optimizer computes it), after (inspect after the step) }
 *   gradNonZero  the gradient's non-zero rows (now.gradientRows), k×d
 *   zeroRows     how many rows of the gradient are exactly 0 (counted, not assumed)
 */
export function deriveTrainStep(qkv, store, asked) {
  const run = store.run;
  const model = run.model;
  const { tokens, index, missing } = chooseSentence(model.sentences, asked);
  const now = model.inspect(tokens);
  const start = store.initialModel().inspect(tokens);
  const g = now.gradients.embedding;
  let zeroRows = 0;
  for (let r = 0; r < g.rows; r++) {
    let any = false;
    for (let j = 0; j < g.cols && !any; j++) any = g.data[r * g.cols + j] !== 0;
    if (!any) zeroRows++;
  }
  // the update on a copy of the current parameters (Adam: the copy's moments start at zero)
  const copy = qkv.createModel(run.options);
  let update;
  try {
    for (const name of PARAMETER_NAMES) copy.setParameter(name, model.getParameter(name));
    const stepped = copy.stepOn(tokens);
    const gradRows = pickRows(g, stepped.updatedRows);
    // what the step added to each changed row: −lr·grad for SGD (computed as the optimizer does,
    // in float32 with a float32 lr), after − before for Adam
    const delta = new Matrix(gradRows.rows, gradRows.cols);
    for (let i = 0; i < delta.data.length; i++) {
      delta.data[i] = model.optimizer === 'adam'
        ? stepped.rowsAfter.data[i] - stepped.rowsBefore.data[i]
        : -Math.fround(Math.fround(model.lr) * gradRows.data[i]);
    }
    update = { ...stepped, gradRows, delta, after: copy.inspect(tokens) };
  } finally {
    copy.dispose();
  }
  return {
    status: 'ready',
    step: run.step, total: run.total, seed: run.options.seed, optimizer: model.optimizer, lr: model.lr,
    batchSize: model.batchSize, dim: model.dim, vocab: model.vocab,
    sentences: model.sentences, sentenceIndex: index, tokens, missing,
    table: model.embeddings(), now, start, update, zeroRows,
    gradNonZero: pickRows(g, now.gradientRows.map((r) => r.row)),
    spread: { now: attentionSpread(now.weights), start: attentionSpread(start.weights) },
  };
}

/**
 * The walkthrough's data source (section-shell.js's `source`): recomputes when the run moves
 * (throttled while it trains), when the reader picks another sentence, and only while the section
 * is on screen; builds the shared run the first time the section is seen.
 */
export function createTrainStepSource(ctx) {
  const store = ctx.training;
  const release = store.acquire();
  const watchers = new Set();
  let data = { status: 'waiting' };
  let visible = false;
  let dirty = true;
  let timer = 0;
  let last = 0;

  function publish(next) {
    data = Object.freeze(next);
    for (const fn of [...watchers]) fn(data);
  }

  function compute() {
    timer = 0;
    if (!visible) return;
    if (!store.run) {
      if (store.error) publish({ status: 'error', message: String(store.error.message || store.error) });
      return;
    }
    if (store.replaying) { publish({ status: 'replaying', ...store.replaying }); return; }
    dirty = false;
    last = Date.now();
    try {
      publish(deriveTrainStep(ctx.qkv, store, ctx.state.get('example')));
    } catch (error) {
      publish({ status: 'error', message: String(error.message || error) });
    }
  }

  function schedule(throttle) {
    dirty = true;
    if (!visible || timer) return;
    const wait = throttle ? Math.max(0, REFRESH_MS - (Date.now() - last)) : 0;
    if (wait === 0) compute();
    else timer = setTimeout(compute, wait);
  }

  const offStore = store.subscribe((event) => {
    if (event.type === 'replay') {
      if (visible) publish({ status: 'replaying', done: event.done, target: event.target });
    } else if (event.type === 'step') {
      schedule(true);
    } else if (event.type === 'run') {
      dirty = true;  // a new run: its numbers come with the 'ready' that follows its replay
    } else if (event.type === 'ready' || event.type === 'error') {
      schedule(false);
    }
  });
  const offState = ctx.state.onChange((name) => { if (name === 'example') schedule(false); });

  return {
    get: () => data,
    subscribe(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    setVisible(v) {
      visible = v;
      if (!v) return;
      if (!store.run && !store.error) store.ensure();
      if (dirty) schedule(false);
    },
    destroy() {
      clearTimeout(timer);
      watchers.clear();
      offStore();
      offState();
      release();
    },
  };
}
