// model.js: the tiny language model of wasm/model.c, trained from JavaScript.
//
//   const model = qkv.createModel({ seed: 3 });
//   model.train();                       // the default schedule
//   model.similarity('猫', '狗');         // cosine of the two embedding rows
//
// A Model owns its WebAssembly memory (the C model and a few buffers, allocated through the
// instance's Heap, heap.js) and frees it in dispose(); every method afterwards throws. Everything it returns is a copy.
// The C side computes (forward, hand-written backward, SGD / Adam); this side keeps the corpus,
// the vocabulary and the batch schedule, and does the small geometry (cosines; PCA in pca.js) in double.
import {
  Matrix, toMatrix, ReturnedMatrix, guard, readOptions, argumentError, checkPositiveFloat32, checkWork,
  describe, MAX_ELEMENTS, trainSteps,
} from './matrix.js';
import { STATUS, OPTIMIZER, TENSOR_GROUP, MODEL_PARAMETERS, MODEL_ACTIVATIONS } from './heap.js';
import { DEFAULT_CORPUS, BOUNDARY, MODEL_DEFAULTS, DEFAULT_LR, tokenize, buildVocab } from './corpus.js';
import { principalAxes, dot } from './pca.js';

/** Longest sentence createModel accepts, in tokens (its steps then stay well within MAX_WORK). */
export const MAX_SENTENCE_TOKENS = 256;
/**
 * Training has diverged when a batch loss exceeds DIVERGENCE_FACTOR × ln V: ln V is the loss of a
 * uniform guess over the vocabulary, where a fresh model starts (wasm/qkv.h, QKV_DIVERGENCE_FACTOR).
 */
export const DIVERGENCE_FACTOR = 100;
/** Largest beta float32 holds below 1 (1 − 2^−24): a larger one rounds to 1 in the C model. */
const BETA_MAX = 1 - 2 ** -24;

/** Defaults of createModel's options (lr depends on the optimizer: DEFAULT_LR); defined in corpus.js. */
export { MODEL_DEFAULTS, DEFAULT_LR };

const OPTION_NAMES = ['corpus', 'dim', 'seed', 'optimizer', 'lr', 'batchSize', 'steps',
  'beta1', 'beta2', 'eps'];

/** Parameter tensors, in wasm/model.c's order (the `which` of qkv_model_tensor). */
export const PARAMETER_NAMES = MODEL_PARAMETERS;
const GROUP = TENSOR_GROUP;
const ACTIVATION = Object.fromEntries(MODEL_ACTIVATIONS.map((name, which) => [name, which]));

export class Model {
  /** Use QkvLab.createModel(options); see MODEL_DEFAULTS for the options. */
  constructor(lab, options = {}) {
    const op = 'createModel';
    const given = readOptions(op, options, OPTION_NAMES, '{ dim: 16, seed: 1 }');
    const o = { ...MODEL_DEFAULTS };
    for (const [k, v] of Object.entries(given)) if (v !== undefined) o[k] = v;
    if (typeof o.optimizer !== 'string' || !Object.hasOwn(OPTIMIZER, o.optimizer)) {
      throw argumentError(RangeError, `${op}: unknown optimizer ${describe(o.optimizer)}; use 'sgd' or 'adam'`);
    }
    if (o.lr === undefined) o.lr = DEFAULT_LR[o.optimizer];
    integer(op, 'dim', o.dim, 1, 1024);
    integer(op, 'seed', o.seed, 0, 0xffffffff);
    integer(op, 'batchSize', o.batchSize, 1, 1e6);
    integer(op, 'steps', o.steps, 1, 1e7);
    // lr, eps and the betas reach C as float32: refuse what float32 would turn into 0, Infinity or 1
    checkPositiveFloat32(op, 'lr', o.lr);
    checkPositiveFloat32(op, 'eps', o.eps);
    for (const name of ['beta1', 'beta2']) {
      if (typeof o[name] !== 'number') {
        throw argumentError(TypeError, `${op}: ${name} must be a number in [0, 1), got ${describe(o[name])}`);
      }
      if (!(o[name] >= 0 && Math.fround(o[name]) < 1)) {
        throw argumentError(RangeError, `${op}: ${name} must be a number in [0, 1) that stays below 1 in float32 ` +
          `(at most ${BETA_MAX}), got ${describe(o[name])}`);
      }
    }
    const sentences = readCorpus(op, o.corpus === undefined ? DEFAULT_CORPUS : o.corpus, MAX_SENTENCE_TOKENS);
    const { vocab, ids } = buildVocab(sentences);
    // one step's work: the batchSize longest sentences, forward and backward
    const longest = sentences.map((t) => t.length).sort((a, b) => b - a);
    const batchSize = Math.min(o.batchSize, sentences.length);
    const numParams = checkModelSize(op, vocab.length, o.dim, longest[0]);
    // creating it: every parameter (its draw and its storage), and the positions table
    checkWork(op, { parameters: numParams, table: (longest[0] + 1) * o.dim },
      `creating a model of vocabulary ${vocab.length} × dim ${o.dim} (a random draw for each of its ${numParams} parameters)`);
    // one step: the batchSize longest sentences forward and backward, and the optimizer's pass
    // over every parameter
    const stepWork = { ...trainingWork(longest.slice(0, batchSize), o.dim, vocab.length), [o.optimizer]: numParams };
    checkWork(op, stepWork, `one training step (batchSize ${batchSize}, sentences of up to ` +
      `${longest[0]} tokens, vocabulary ${vocab.length}, dim ${o.dim})`);

    this._lab = lab;
    this._heap = lab._heap;
    this._numParams = numParams;
    this._ids = ids;
    this._memory = this._heap.allocations(op);  // the model's own buffers, freed in dispose()
    /** string[]: index = token id = embedding row; vocab[0] is the boundary '<s>'. */
    this.vocab = Object.freeze(vocab.slice());
    /** The training sentences as token arrays. */
    this.sentences = Object.freeze(sentences.map((s) => Object.freeze(s.slice())));
    this.dim = o.dim;
    this.seed = o.seed;
    this.optimizer = o.optimizer;
    this.lr = o.lr;
    this.batchSize = batchSize;
    /** Length of the default schedule: train() with no argument runs it to this many steps. */
    this.defaultSteps = o.steps;
    /** Longest context predict() and attention() accept (the longest corpus sentence). */
    this.maxTokens = longest[0];  // not Math.max(...lengths): ~130,000 arguments overflow the stack
    /** Steps taken so far. */
    this.steps = 0;
    /** Set when a step produced a non-finite loss; the parameters are those before it. */
    this.diverged = false;
    this._encoded = sentences.map((s) => s.map((t) => ids.get(t)));
    this._previousAxes = null;

    const heap = this._heap;
    const slot = this._alloc(4);
    const status = heap.call('qkv_model_create', slot, vocab.length, o.dim, this.maxTokens + 1, o.seed >>> 0);
    const ptr = heap.readInt(slot);
    this._model = ptr;
    if (status !== 0) {
      this._free();
      if (status === STATUS.ALLOC) {
        throw new RangeError(`${op}: out of WebAssembly memory for a model of vocabulary ${vocab.length} × dim ${o.dim} ` +
          `with sentences of up to ${this.maxTokens} tokens; use a smaller dim or corpus`);
      }
      lab._check(op, status);
    }
    const optStatus = heap.call('qkv_model_set_optimizer', ptr, OPTIMIZER[o.optimizer], o.lr, o.beta1, o.beta2, o.eps);
    if (optStatus !== 0) {
      this._free();
      lab._check(op, optStatus);
    }
    this.beta1 = o.beta1;
    this.beta2 = o.beta2;
    this.eps = o.eps;
    this._slot3 = this._alloc(12);  // int32 slots: a tensor's pointer, rows, cols
    this._order = this._alloc(4 * sentences.length);
    this._updated = this._alloc(4 * vocab.length);
    this._count = this._alloc(4);
    this._loss = this._alloc(8);
    this._cursor = sentences.length;  // start with a shuffle
    this._orderJs = null;
    this._partial = null;   // a step taken in parts, under way: { indices, encoded, next, before }
  }

  // ---- training ----

  /**
   * One optimizer step on the next batch of the schedule (sentences in an order shuffled every
   * epoch with the model's seeded generator). Returns
   *   { loss, batch, updatedRows, rowGradNorms, step }
   * loss: mean cross-entropy of the batch before the update; batch: the sentences as token
   * arrays; updatedRows: the embedding rows the update changed, ascending (with SGD exactly the
   * batch's tokens, <s> included); rowGradNorms[i]: the gradient norm of row updatedRows[i];
   * step: the number of steps taken, this one included.
   * Throws a DivergenceError (and sets model.diverged) when the batch loss exceeds
   * DIVERGENCE_FACTOR × ln V (ln V: the loss of a uniform guess, where training starts) or the
   * loss, gradients or new parameters are not finite; that step is not applied.
   *
   * step({ deadline }): the same step taken in parts, for a page that must not block: the
   * batch's sentences one at a time until performance.now() passes `deadline` (at least one per
   * call). Returns null while sentences are left (model.stepping is then true); a later call goes
   * on, and the call that finishes returns the step's result, bit for bit the one step() gives.
   * Between the parts the model can be read as usual; saveState() gives the state before the
   * step, loadState() drops it, and a call that computes gradients of its own (loss, gradients,
   * stepOn, setParameter) makes it start again from its first sentence.
   */
  step({ deadline } = {}) {
    this._alive('step');
    this._notDiverged('step');
    if (deadline === undefined && !this._partial) {
      const indices = this._nextBatch();
      return this._finishStep(indices, this._lossAndGrad('step', indices.map((i) => this._encoded[i])));
    }
    if ((deadline !== undefined && typeof deadline !== 'number') || Number.isNaN(deadline)) {
      throw new TypeError(`step: deadline must be a time from performance.now() (or Infinity), got ${describe(deadline)}`);
    }
    // a step in parts: the batch's sentences one at a time until the deadline has passed (at least
    // one a call); the gradients add up in the model in the order one call would take. What
    // saveState() gives meanwhile is the state before the step (the schedule's place; at an epoch's
    // start the generator too, which the shuffle moves on).
    if (!this._partial) {
      const before = this._cursor >= this.sentences.length ? this.saveState() : { cursor: this._cursor };
      const indices = this._nextBatch();
      this._partial = { indices, encoded: indices.map((i) => this._encoded[i]), next: 0, before };
    }
    const part = this._partial;
    do part.loss = this._lossAndGrad('step', part.encoded, part.next++);
    while (part.next < part.encoded.length && performance.now() < (deadline ?? Infinity));
    if (part.next < part.encoded.length) return null;
    this._partial = null;
    return this._finishStep(part.indices, part.loss);
  }

  /** Whether a step taken in parts (step({ deadline })) is under way: begun, not yet applied. */
  get stepping() {
    return this._partial !== null;
  }

  _finishStep(indices, loss) {
    const { updatedRows, rowGradNorms } = this._applyUpdate('step', loss);
    this.steps++;
    return { loss, batch: indices.map((i) => this.sentences[i]), updatedRows, rowGradNorms, step: this.steps };
  }

  /** A step under way goes back to its first sentence: its gradients were overwritten, or the parameters changed. */
  _restartPartial() {
    if (this._partial) this._partial.next = 0;
  }

  /**
   * Runs `steps` steps and returns their losses. Without an argument, the rest of the default
   * schedule: model.defaultSteps − model.steps (steps taken by step() and stepOn() count), none
   * once it is done. On divergence it throws an Error whose `losses` holds the finite losses
   * before it.
   */
  train(steps = Math.max(0, this.defaultSteps - this.steps)) {
    this._alive('train');
    integer('train', 'steps', steps, 0, 1e7);
    return trainSteps(this, steps);
  }

  /**
   * Mean next-token cross-entropy over sentences (default: the whole corpus), without
   * changing anything but the gradient buffers. Sentences: strings or token arrays.
   */
  loss(sentences) {
    this._alive('loss');
    return this._lossAndGrad('loss', this._sentencesArg('loss', sentences));
  }

  /**
   * Loss and gradients over sentences (default: the whole corpus), nothing updated:
   *   { loss, grads: { embedding, Wq, Wk, Wv, Wout, bout } } (Matrix copies).
   * Used by the gradient checks; the page can show them too.
   */
  gradients(sentences) {
    this._alive('gradients');
    const loss = this._lossAndGrad('gradients', this._sentencesArg('gradients', sentences));
    const grads = {};
    PARAMETER_NAMES.forEach((name, i) => { grads[name] = this._copy(GROUP.grads, i); });
    return { loss, grads };
  }

  /** A copy of one parameter tensor (PARAMETER_NAMES: embedding V×d, Wq, Wk, Wv d×d, Wout d×V, bout 1×V). */
  getParameter(name) {
    this._alive('getParameter');
    return this._copy(GROUP.params, parameterIndex('getParameter', name));
  }

  /** Overwrites one parameter tensor with a same-shaped matrix of finite numbers. */
  setParameter(name, value) {
    this._alive('setParameter');
    const t = this._tensor(GROUP.params, parameterIndex('setParameter', name));
    const m = toMatrix(value, 'setParameter', name);
    if (m.rows !== t.rows || m.cols !== t.cols) {
      throw new RangeError(`setParameter: ${name} is ${t.rows}×${t.cols}, got ${m.rows}×${m.cols}`);
    }
    this._heap.writeFloats(t.ptr, m.data);
    this._restartPartial();
  }

  // ---- checkpoints ----

  /**
   * The whole training state, copied out: the parameters, the optimizer's moments and step count,
   * the shuffle generator, the place in the batch schedule and the steps taken. loadState(state)
   * on a model created with the same options continues exactly as this one does from here
   * (the same batches, the same numbers, bit for bit). { steps, bytes: Uint8Array, … }; its
   * size is about 12 bytes per parameter plus 2.5 KiB (the generator).
   */
  saveState() {
    this._alive('saveState');
    // during a step taken in parts, the state before it (the step is not applied yet)
    if (this._partial && this._partial.before.bytes) return this._partial.before;
    const cursor = this._partial ? this._partial.before.cursor : this._cursor;
    const heap = this._heap;
    this._lab._check('saveState', heap.call('qkv_model_state_bytes', this._model, this._count));
    const size = heap.readInt(this._count);
    return heap.frame(size >> 2, (frame) => {
      const buffer = frame.bytes(size);
      this._lab._check('saveState', heap.call('qkv_model_save_state', this._model, buffer, size));
      return Object.freeze({
        steps: this.steps, cursor, order: this._orderJs ? this._orderJs.slice() : null,
        axes: this._previousAxes, diverged: this.diverged, vocab: this.vocab.length, dim: this.dim,
        bytes: heap.readBytes(buffer, size),
      });
    });
  }

  /** Puts back a state saveState() copied from a model with the same options (see saveState). */
  loadState(state) {
    const op = 'loadState';
    this._alive(op);
    if (!state || !(state.bytes instanceof Uint8Array) || !Number.isInteger(state.steps)) {
      throw new TypeError(`${op}: expected a state from saveState(), got ${describe(state)}`);
    }
    if (state.vocab !== this.vocab.length || state.dim !== this.dim) {
      throw new RangeError(`${op}: the state is of a model with vocabulary ${state.vocab} × dim ${state.dim}; this one is ${this.vocab.length} × ${this.dim}`);
    }
    const heap = this._heap;
    heap.frame(state.bytes.length >> 2, (frame) => {
      const buffer = frame.bytes(state.bytes.length);
      heap.writeBytes(buffer, state.bytes);
      this._lab._check(op, heap.call('qkv_model_load_state', this._model, buffer, state.bytes.length));
    });
    this._partial = null;   // a step under way belonged to the state replaced
    this.steps = state.steps;
    this._cursor = state.cursor;
    this._orderJs = state.order ? state.order.slice() : null;
    this._previousAxes = state.axes;
    this.diverged = state.diverged;
  }

  // ---- what the embedding table has learned ----

  /** The embedding table, vocab × dim (a copy). Row i belongs to vocab[i]. */
  embeddings() {
    this._alive('embeddings');
    return this._copy(GROUP.params, 0);
  }

  /** Cosine similarity of two words' embedding rows. */
  similarity(a, b) {
    this._alive('similarity');
    const e = this.embeddings();
    return cosine(e, this._id('similarity', a), rowOf(e, this._id('similarity', b)));
  }

  /** The k words (default 5) whose embeddings are most cosine-similar to word's: [{ word, score }]. <s> is left out. */
  nearest(word, k = 5) {
    this._alive('nearest');
    const id = this._id('nearest', word);
    integer('nearest', 'k', k, 1, 1e6);
    const e = this.embeddings();
    return this._ranked(e, rowOf(e, id), new Set([0, id]), k);
  }

  /**
   * Words nearest (cosine) to b − a + c, "a is to b as c is to ?", leaving out a, b, c and <s>:
   * analogy('男人', '国王', '女人') asks for the word that is to 女人 what 国王 is to 男人.
   */
  analogy(a, b, c, k = 5) {
    this._alive('analogy');
    const ia = this._id('analogy', a), ib = this._id('analogy', b), ic = this._id('analogy', c);
    integer('analogy', 'k', k, 1, 1e6);
    const e = this.embeddings();
    const ra = rowOf(e, ia), rb = rowOf(e, ib), rc = rowOf(e, ic);
    const target = ra.map((_, j) => rb[j] - ra[j] + rc[j]);
    return this._ranked(e, target, new Set([0, ia, ib, ic]), k);
  }

  /**
   * vocab × 2: the embeddings (centred over the vocabulary) projected on their first two
   * principal axes. Each axis's sign is chosen to agree with the previous call's, so that a
   * scatter redrawn after every step does not flip; the first call makes each axis's largest
   * entry positive.
   */
  project2d() {
    this._alive('project2d');
    const e = this.embeddings();
    const V = e.rows, d = e.cols;
    // (pca.js: the solver works on the smaller of the covariance and the Gram matrix)
    const m = Math.min(V, d);
    // (the cyclic Jacobi solver takes a few sweeps of ~6·m³ operations each: ~100·m³ in all)
    checkWork('project2d', { multiplyAdds: V * d * m + 100 * m ** 3, elements: V * d }, `PCA of the ${V}×${d} embedding table`);
    const { axes, centredRow } = principalAxes(e.data, V, d, 2);
    while (axes.length < 2) axes.push(new Float64Array(d));  // dim 1: the second axis is 0
    for (let a = 0; a < 2; a++) {
      const axis = axes[a];
      let sign;
      const prev = this._previousAxes && this._previousAxes[a];
      if (prev) {
        sign = dot(axis, prev) < 0 ? -1 : 1;
      } else {
        let big = 0;
        for (let j = 0; j < d; j++) if (Math.abs(axis[j]) > Math.abs(axis[big])) big = j;
        sign = axis[big] < 0 ? -1 : 1;
      }
      for (let j = 0; j < d; j++) axis[j] *= sign;
    }
    this._previousAxes = axes;
    const out = new Float32Array(V * 2);
    for (let i = 0; i < V; i++) {
      const x = centredRow(i);
      for (let a = 0; a < 2; a++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += x[j] * axes[a][j];
        out[i * 2 + a] = s;
      }
    }
    return new ReturnedMatrix(V, 2, out);
  }

  // ---- the model as a language model ----

  /**
   * Next-token probabilities after a context (a string, tokenized like the corpus, or a token
   * array; may be empty: then the first word of a sentence). Returns every vocabulary entry as
   * [{ word, p }], most probable first; '<s>' stands for "the sentence ends here".
   */
  predict(tokens) {
    this._alive('predict');
    const ids = this._context('predict', tokens);
    this._forward('predict', ids);
    const t = this._tensor(GROUP.activations, ACTIVATION.probs);
    const row = this._heap.readFloats(t.ptr + 4 * (t.rows - 1) * t.cols, t.cols);
    const out = Array.from(row, (p, i) => ({ word: this.vocab[i], p }));
    out.sort((x, y) => y.p - x.p || this._ids.get(x.word) - this._ids.get(y.word));
    return out;
  }

  /**
   * The head's attention weights over a sentence: { tokens: ['<s>', …], weights: Matrix n×n },
   * row i = how much position i attends to each position j ≤ i (causal).
   */
  attention(tokens) {
    this._alive('attention');
    const ids = this._context('attention', tokens);
    this._forward('attention', ids);
    return {
      tokens: ids.map((i) => this.vocab[i]),
      weights: this._copy(GROUP.activations, ACTIVATION.weights),
    };
  }

  // ---- one sentence, looked at closely (the training-step walkthrough) ----

  /**
   * Everything the model computes on one sentence, without changing a parameter. The sentence
   * (a string, tokenized like the corpus, or a token array of 1 … maxTokens words of the
   * vocabulary) runs as <s> w1 … wn → w1 … wn <s>, so n = words + 1 positions:
   *   { tokens, targets, ids, targetIds,
   *     embeddingRows (E[ids], n×d), positions (n×d), X, Q, K, V (n×d),
   *     scores (n×n, raw Q·Kᵀ: unscaled, unmasked), weights (n×n, causal softmax of scores/√d),
   *     attention (weights·V), h (X + attention), logits, probs (n×V),
   *     losses (n numbers, −log probs[t][targetIds[t]] computed in C in double), loss (their mean),
   *     gradients { embedding, Wq, Wk, Wv, Wout, bout } (d loss / d parameters for this sentence
   *     alone), gradientRows [{ row, word, norm }] (the non-zero rows of gradients.embedding) }
   * Every Matrix is a copy. The gradient buffers the C model keeps are overwritten (as loss() does).
   */
  inspect(sentence) {
    const op = 'inspect';
    this._alive(op);
    const words = this._sentence(op, sentence);
    const ids = [0, ...words];
    const n = ids.length;
    const { loss, losses } = this._sentenceLosses(op, words);
    const table = this._copy(GROUP.params, 0);
    const d = this.dim;
    const embeddingRows = new Matrix(n, d, new Float32Array(n * d));
    ids.forEach((id, t) => embeddingRows.data.set(table.data.subarray(id * d, (id + 1) * d), t * d));
    const pos = this._tensor(GROUP.positions, 0);
    const positions = new Matrix(n, d, this._heap.readFloats(pos.ptr, n * d));
    const act = {};
    for (const [name, which] of Object.entries(ACTIVATION)) act[name] = this._copy(GROUP.activations, which);
    const gradients = {};
    PARAMETER_NAMES.forEach((name, i) => { gradients[name] = this._copy(GROUP.grads, i); });
    const gradientRows = [];
    const g = gradients.embedding;
    for (let r = 0; r < g.rows; r++) {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += g.data[r * d + j] ** 2;
      if (sum > 0) gradientRows.push({ row: r, word: this.vocab[r], norm: Math.sqrt(sum) });
    }
    const targetIds = [...words, 0];
    return {
      tokens: ids.map((i) => this.vocab[i]),
      targets: targetIds.map((i) => this.vocab[i]),
      ids,
      targetIds,
      embeddingRows,
      positions,
      X: act.X, Q: act.Q, K: act.K, V: act.V,
      scores: act.scores,
      weights: act.weights,
      attention: act.attention,
      h: act.h,
      logits: act.logits,
      probs: act.probs,
      losses,
      loss,
      gradients,
      gradientRows,
    };
  }

  /**
   * One optimizer step (the model's optimizer and lr) on exactly this one sentence, outside the
   * shuffled schedule step() follows (which it leaves where it was). It counts as a step:
   * model.steps grows by one, and Adam's moments and step count advance as in step(). Returns
   *   { loss, lossAfter, batch: [tokens], updatedRows, rowGradNorms, step, rowsBefore, rowsAfter }
   * loss: the sentence's loss before the update; lossAfter: the same sentence's loss after it;
   * batch, updatedRows, rowGradNorms, step: as step() returns them; rowsBefore / rowsAfter: the
   * embedding rows updatedRows (k×d) before and after the update.
   * Divergence is handled as in step(): a DivergenceError, nothing applied, model.diverged set.
   */
  stepOn(sentence) {
    const op = 'stepOn';
    this._alive(op);
    this._notDiverged(op);
    const words = this._sentence(op, sentence);
    const before = this._copy(GROUP.params, 0);
    const loss = this._lossAndGrad(op, [words]);
    const { updatedRows, rowGradNorms } = this._applyUpdate(op, loss);
    this.steps++;
    const after = this._copy(GROUP.params, 0);
    const lossAfter = this._lossAfter(op, words);
    return {
      loss,
      lossAfter,
      batch: [words.map((i) => this.vocab[i])],
      updatedRows,
      rowGradNorms,
      step: this.steps,
      rowsBefore: pickRows(before, updatedRows),
      rowsAfter: pickRows(after, updatedRows),
    };
  }

  /** Frees the model's WebAssembly memory. Every later call throws; calling dispose again does nothing. */
  dispose() {
    if (this._model === 0) return;
    this._heap.call('qkv_model_destroy', this._model);
    this._model = 0;
    this._free();
  }

  get disposed() {
    return this._model === 0;
  }

  // ---- internals ----

  _alive(op) {
    if (this._model === 0) throw new Error(`${op}: this model was disposed; create a new one with createModel()`);
  }

  _notDiverged(op) {
    if (this.diverged) {
      throw divergence(`${op}: training diverged at step ${this.steps + 1} (lr ${this.lr}, ${this.optimizer}); ` +
        `the parameters are those before it; create a new model with a smaller lr`);
    }
  }

  /** The divergence rule: a batch loss above this stops training (see DIVERGENCE_FACTOR). */
  get lossLimit() {
    return DIVERGENCE_FACTOR * Math.log(this.vocab.length);
  }

  _diverge(loss) {
    this.diverged = true;
    const limit = this.lossLimit;
    const what = !Number.isFinite(loss) ? `the loss is ${loss}`
      : loss > limit ? `the batch loss ${loss.toPrecision(4)} is above ${DIVERGENCE_FACTOR} × ln V = ${limit.toPrecision(4)}`
        : `its gradients or new parameters are not finite (loss ${loss})`;
    throw divergence(`step ${this.steps + 1}: training diverged, ${what} ` +
      `(lr ${this.lr} with ${this.optimizer} is too large); training stopped and the parameters ` +
      `are those before this step`);
  }

  _alloc(bytes) {
    try {
      return this._memory.bytes(bytes);
    } catch (error) {
      this._free();
      throw error;
    }
  }

  _free() {
    this._memory.freeAll();
    if (this._model) this._heap.call('qkv_model_destroy', this._model);
    this._model = 0;
  }

  _nextBatch() {
    const n = this.sentences.length;
    if (this._cursor >= n) {
      const heap = this._heap;
      heap.writeInts(this._order, Array.from({ length: n }, (_, i) => i));
      this._lab._check('step', heap.call('qkv_model_shuffle', this._model, this._order, n));
      this._orderJs = Array.from(heap.readInts(this._order, n));
      this._cursor = 0;
    }
    const batch = this._orderJs.slice(this._cursor, this._cursor + this.batchSize);
    this._cursor += batch.length;
    return batch;
  }

  /** Loss and gradients of the encoded sentences; with `sentence`, only that one of them (step({ deadline })'s parts). */
  _lossAndGrad(op, encoded, sentence = null) {
    const heap = this._heap;
    if (sentence === null) this._restartPartial();
    const total = encoded.reduce((s, x) => s + x.length, 0);
    if (op !== 'step') {
      const work = trainingWork(encoded.map((x) => x.length), this.dim, this.vocab.length);
      if (op === 'gradients') work.elements = this._numParams;  // every gradient copied out
      checkWork(op, work, `${encoded.length} sentences (${total} tokens)`);
    }
    return heap.frame(total + encoded.length, (frame) => {
      const tokens = frame.bytes(4 * total);
      const lengths = frame.bytes(4 * encoded.length);
      let at = tokens;
      encoded.forEach((s) => {
        heap.writeInts(at, s);
        at += 4 * s.length;
      });
      heap.writeInts(lengths, encoded.map((s) => s.length));
      // the whole batch, or only its sentence `sentence` (a part of step({ deadline }))
      const status = heap.call('qkv_model_loss_and_grad_range', this._model, tokens, lengths, encoded.length,
        sentence ?? 0, sentence === null ? encoded.length : sentence + 1, this._loss);
      const loss = heap.readDouble(this._loss);
      if (status === STATUS.DIVERGED) {
        this._partial = null;
        if (op === 'step' || op === 'stepOn') this._diverge(loss);
      }
      this._lab._check(op, status);
      return loss;
    });
  }

  /** The optimizer step from the gradients just computed: { updatedRows, rowGradNorms }. */
  _applyUpdate(op, loss) {
    const heap = this._heap;
    const status = heap.call('qkv_model_update', this._model, this._updated, this._count);
    if (status === STATUS.DIVERGED) this._diverge(loss);
    this._lab._check(op, status);
    const updatedRows = Array.from(heap.readInts(this._updated, heap.readInt(this._count)));
    const grad = this._tensor(GROUP.grads, 0);
    const rowGradNorms = updatedRows.map((r) => {
      const row = heap.readFloats(grad.ptr + 4 * r * this.dim, this.dim);
      let sum = 0;
      for (let j = 0; j < this.dim; j++) sum += row[j] ** 2;
      return Math.sqrt(sum);
    });
    return { updatedRows, rowGradNorms };
  }

  /** The loss of one encoded sentence right after stepOn's update (which has been applied). */
  _lossAfter(op, words) {
    try {
      return this._sentenceLosses(op, words).loss;
    } catch (error) {
      this.diverged = true;
      throw divergence(`${op}: step ${this.steps} was applied, but the sentence's loss after it could not ` +
        `be computed (${error.message}); training stopped; create a new model with a smaller lr`);
    }
  }

  /** C's per-position losses of one encoded sentence (forward + backward): { loss, losses }. */
  _sentenceLosses(op, words) {
    const heap = this._heap;
    this._restartPartial();   // the C side computes them as a loss_and_grad of their own
    return heap.frame(3 * words.length + 4, (frame) => {
      const tokens = frame.bytes(4 * words.length);
      const losses = frame.bytes(8 * (words.length + 1));
      heap.writeInts(tokens, words);
      const status = heap.call('qkv_model_sentence_losses', this._model, tokens, words.length, losses, this._loss);
      this._lab._check(op, status);
      const out = Array.from(heap.readDoubles(losses, words.length + 1));
      return { loss: heap.readDouble(this._loss), losses: out };
    });
  }

  /** One sentence for inspect / stepOn → its token ids (without <s>), or a clear error. */
  _sentence(op, sentence) {
    return guard(op, 'sentence', () => {
      if (typeof sentence !== 'string' && !Array.isArray(sentence)) {
        throw argumentError(TypeError, `${op}: sentence must be a string (like '我 爱 吃 苹 果') or an array of words, got ${describe(sentence)}`);
      }
      const words = typeof sentence === 'string' ? tokenize(sentence) : sentence;
      if (words.length === 0) {
        throw argumentError(RangeError, `${op}: the sentence is empty; give 1 to ${this.maxTokens} words of the vocabulary`);
      }
      if (words.length > this.maxTokens) {
        throw argumentError(RangeError, `${op}: the sentence has ${words.length} tokens; this model takes at most ` +
          `${this.maxTokens} (its longest training sentence)`);
      }
      const ids = [];
      for (let i = 0; i < words.length; i++) {
        if (words[i] === BOUNDARY) {
          throw argumentError(RangeError, `${op}: word ${i} is ${BOUNDARY}, which is reserved for the sentence boundary (the model adds it)`);
        }
        ids.push(this._id(op, words[i]));
      }
      return ids;
    });
  }

  _forward(op, ids) {
    const heap = this._heap;
    heap.frame(ids.length, (frame) => {
      const tokens = frame.bytes(4 * ids.length);
      heap.writeInts(tokens, ids);
      this._lab._check(op, heap.call('qkv_model_forward', this._model, tokens, ids.length));
    });
  }

  _tensor(group, which) {
    const s = this._slot3;
    this._lab._check('tensor', this._heap.call('qkv_model_tensor', this._model, group, which, s, s + 4, s + 8));
    const [ptr, rows, cols] = this._heap.readInts(s, 3);
    return { ptr, rows, cols };
  }

  _copy(group, which) {
    const t = this._tensor(group, which);
    return this._heap.readMatrix(t.ptr, t.rows, t.cols);
  }

  _id(op, word) {
    if (typeof word !== 'string') throw argumentError(TypeError, `${op}: a word must be a string, got ${describe(word)}`);
    const id = this._ids.get(word);
    if (id === undefined) {
      throw argumentError(RangeError, `${op}: unknown word ${JSON.stringify(word)}; it is not in the vocabulary ` +
        `(${this.vocab.length} tokens built from the corpus)`);
    }
    return id;
  }

  _context(op, tokens) {
    return guard(op, 'tokens', () => {
      const list = typeof tokens === 'string' ? tokenize(tokens) : tokens;
      if (!Array.isArray(list)) {
        throw argumentError(TypeError, `${op}: tokens must be a string or an array of words, got ${describe(tokens)}`);
      }
      if (list.length > this.maxTokens) {
        throw argumentError(RangeError, `${op}: the context has ${list.length} tokens; this model takes at most ` +
          `${this.maxTokens} (its longest training sentence)`);
      }
      const ids = [0];
      for (let i = 0; i < list.length; i++) ids.push(this._id(op, list[i]));
      return ids;
    });
  }

  _sentencesArg(op, sentences) {
    if (sentences === undefined) return this._encoded;
    const list = readCorpus(op, sentences, this.maxTokens);
    return list.map((tokens) => tokens.map((w) => this._id(op, w)));
  }

  _ranked(e, target, exclude, k) {
    const scored = [];
    for (let i = 0; i < e.rows; i++) {
      if (!exclude.has(i)) scored.push({ word: this.vocab[i], score: cosine(e, i, target) });
    }
    scored.sort((x, y) => y.score - x.score);
    return scored.slice(0, k);
  }
}

// ---- helpers ----

/**
 * sentences: an array of strings / token arrays, or one string with a sentence per line; each of
 * at most maxTokens tokens.
 */
function readCorpus(op, corpus, maxTokens) {
  return guard(op, 'corpus', () => {
    let list = corpus;
    if (typeof corpus === 'string') list = corpus.split(/\r?\n/u);
    if (!Array.isArray(list)) {
      throw argumentError(TypeError, `${op}: corpus must be an array of sentences (strings) or a string with one sentence per line, got ${describe(corpus)}`);
    }
    const sentences = [];
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      let tokens;
      if (typeof s === 'string') tokens = tokenize(s);
      else if (Array.isArray(s) && s.every((t) => typeof t === 'string' && t.trim() !== '' && !/\s/u.test(t))) tokens = s.slice();
      else throw argumentError(TypeError, `${op}: sentence ${i} must be a string or an array of non-empty tokens, got ${describe(s)}`);
      if (tokens.includes(BOUNDARY)) {
        throw argumentError(RangeError, `${op}: sentence ${i} contains ${BOUNDARY}, which is reserved for the sentence boundary`);
      }
      if (tokens.length > maxTokens) {
        throw argumentError(RangeError, `${op}: sentence ${i} has ${tokens.length} tokens; ` +
          (maxTokens === MAX_SENTENCE_TOKENS ? `a sentence may have at most ${maxTokens} (MAX_SENTENCE_TOKENS)`
            : `this model takes at most ${maxTokens} (its longest training sentence)`));
      }
      if (tokens.length > 0) sentences.push(tokens);
    }
    if (sentences.length === 0) {
      throw argumentError(RangeError, `${op}: the corpus is empty; give at least one sentence with a word in it`);
    }
    return sentences;
  });
}

/**
 * The C model's blocks (wasm/model.c, qkv_model_create), each at most MAX_ELEMENTS floats: the
 * parameters 2·V·d + 3·d² + V, the activations n·(6d + 2V) + 2n² and the backward buffers
 * n·(5d + V) + n², n = the longest sentence + 1 positions. Checked here first so that the error
 * names the sizes (C would only say "a size is zero, negative or too large"). Returns the
 * number of parameters.
 */
function checkModelSize(op, V, d, longest) {
  const n = longest + 1;
  const blocks = [
    ['parameters', 2 * V * d + 3 * d * d + V, '2·V·d + 3·d² + V'],
    ['activations', n * (6 * d + 2 * V) + 2 * n * n, `n·(6·d + 2·V) + 2·n², n = ${n}`],
    ['backward buffers', n * (5 * d + V) + n * n, `n·(5·d + V) + n², n = ${n}`],
  ];
  for (const [what, floats, formula] of blocks) {
    if (floats > MAX_ELEMENTS) {
      throw argumentError(RangeError, `${op}: a model of vocabulary ${V} × dim ${d} (sentences of up to ${longest} tokens) ` +
        `needs ${floats.toLocaleString('en-US')} floats of ${what} (${formula}), more than ` +
        `${MAX_ELEMENTS.toLocaleString('en-US')} (2^26) in one block; use a smaller dim, fewer distinct words or shorter sentences`);
    }
  }
  return blocks[0][1];
}

/**
 * The work of loss and gradients over sentences of the given lengths (without <s>), as
 * checkWork's parts: per sequence of n = length + 1 rows, a forward pass takes
 * n·(3d² + 2nd + dV) multiply-adds (Q, K, V; scores and mixing; logits) and the backward pass
 * about twice that; its softmaxes have n² + n·V entries (the attention's, the next word's).
 */
function trainingWork(lengths, d, V) {
  let multiplyAdds = 0, exps = 0;
  for (const length of lengths) {
    const n = length + 1;
    multiplyAdds += 3 * n * (3 * d * d + 2 * n * d + d * V);
    exps += n * n + n * V;
  }
  return { multiplyAdds, exps };
}

function parameterIndex(op, name) {
  const i = PARAMETER_NAMES.indexOf(name);
  if (i < 0) throw argumentError(RangeError, `${op}: unknown parameter ${describe(name)}; the parameters are ${PARAMETER_NAMES.join(', ')}`);
  return i;
}

function integer(op, name, value, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const Err = typeof value === 'number' ? RangeError : TypeError;
    throw argumentError(Err, `${op}: ${name} must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
}

function divergence(message) {
  const error = new Error(message);
  error.name = 'DivergenceError';
  error.code = 'QKV_DIVERGED';
  return error;
}

function rowOf(m, i) {
  return Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
}

/** rows (ascending ids) of a matrix → a new rows.length × cols Matrix */
function pickRows(m, rows) {
  const out = new Float32Array(rows.length * m.cols);
  rows.forEach((r, i) => out.set(m.data.subarray(r * m.cols, (r + 1) * m.cols), i * m.cols));
  return new Matrix(rows.length, m.cols, out);
}

/** cosine of row i of m with vector v (0 when either is the zero vector) */
function cosine(m, i, v) {
  let ab = 0, aa = 0, bb = 0;
  for (let j = 0; j < m.cols; j++) {
    const a = m.data[i * m.cols + j];
    ab += a * v[j]; aa += a * a; bb += v[j] * v[j];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}
