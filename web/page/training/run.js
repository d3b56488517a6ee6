// training/run.js: one reproducible training run of the WASM model, with the history the charts
// draw. No DOM here. The model is deterministic for its options (seed included), so any step can
// be reached again by replaying from the seed: that is how the page goes back a step and how a
// link with ?step=N restores a run (training/store.js replays in chunks across frames).
// What the views draw from the model (the table, its 2-D projection, a word's neighbours) is
// computed here once per step and kept until the next step: the views read it every frame,
// and never call the model themselves.
import { WORD_GROUPS } from '../../corpus.js';

/** The words whose cosine similarity the section follows (when the corpus has them). */
export const PROBES = Object.freeze({ anchor: '猫', near: '狗', far: '汽车' });

const EMA = 0.1;  // weight of the newest loss in the moving average
/**
 * A checkpoint of the whole training state (model.saveState(): parameters, Adam's moments, the
 * shuffle generator, the batch schedule) every this many steps, step 0 included: going back to
 * any step k replays at most this many steps from the nearest one, on a second model, and gives
 * exactly what the run showed at k. Each checkpoint is 12 bytes per parameter plus 2.5 KiB (the
 * generator): the default run (3,276 parameters, 1,500 steps) keeps 16 of 41.8 KB, 0.67 MB in
 * all (checkpointBytes says it for any run).
 */
export const CHECKPOINT_EVERY = 100;

/** What advance({ deadline }) returns while its step is under way (taken in parts, not yet applied). */
export const PENDING = Object.freeze({ pending: true });

/** The most plain (ungrouped) words a scatter draws; the rest of a large vocabulary is left off. */
export const SCATTER_WORDS = 400;

export class TrainingRun {
  /** qkv: the loaded API; options: createModel's options (seed included). */
  constructor(qkv, options) {
    this.qkv = qkv;
    this.options = { ...options };
    this.model = qkv.createModel(this.options);
    this.vocab = this.model.vocab;
    this._ids = new Map(this.vocab.map((w, i) => [w, i]));   // word → row (a 9,000-word vocabulary: no indexOf per token)
    this.total = this.model.defaultSteps;
    this.history = [];  // per step: { step, loss, average, catDog, catCar }
    this.last = null;   // the last step's full record, with batch, updatedRows and batchRows
    this.error = null;  // set when a step threw (divergence or otherwise); the run is over
    const has = (w) => this._ids.has(w);
    /** Whether the corpus has the probe words (a reader's own corpus may not). */
    this.probes = {
      near: has(PROBES.anchor) && has(PROBES.near),
      far: has(PROBES.anchor) && has(PROBES.far),
    };
    this.initial = { step: 0, ...this._similarities() };
    /** step → model.saveState() at that step, every CHECKPOINT_EVERY steps */
    this.checkpoints = new Map([[0, this.model.saveState()]]);
    this._replica = null;   // the second model that replays from a checkpoint (made when first needed)
    /** Colour group per word: 0 = none, g + 1 = WORD_GROUPS[g]. */
    const groupOf = new Map();
    WORD_GROUPS.forEach((g, k) => { for (const w of g.words) if (!groupOf.has(w)) groupOf.set(w, k + 1); });
    this.groups = this.vocab.map((w) => groupOf.get(w) || 0);
  }

  get step() {
    return this.model.steps;
  }

  /**
   * The rows the scatters draw: every grouped word and the first SCATTER_WORDS plain words, never
   * <s> (it sits in every sentence, far from all the words). A 9,000-word corpus would cost
   * Chart.js seconds a frame, and the timeline's SVG 18,000 elements.
   */
  get scatterWords() {
    return this._scatterWords ||= this.vocab.map((_, i) => i).filter((i) => i > 0 && (i <= SCATTER_WORDS || this.groups[i]));
  }

  /** The model's width and batch size (what the views say about the run). */
  get dim() { return this.model.dim; }
  get batchSize() { return this.model.batchSize; }

  /** The embedding table at this step (vocab × dim, a copy). */
  get table() {
    return this._atStep().table ||= this.model.embeddings();
  }

  /**
   * The table projected on its two principal axes at this step (model.project2d: each axis's
   * sign follows the previous projection's, so a scatter redrawn step after step does not flip).
   */
  get projection() {
    return this._atStep().projection ||= this.model.project2d();
  }

  /** The k words nearest to word at this step: [{ word, score }] (model.nearest). */
  nearest(word, k) {
    const queries = this._atStep().queries;
    const key = `nearest\n${word}\n${k}`;
    if (!queries.has(key)) queries.set(key, this.model.nearest(word, k));
    return queries.get(key);
  }

  /** The k words nearest to b − a + c at this step (model.analogy's arguments). */
  analogy(a, b, c, k) {
    const queries = this._atStep().queries;
    const key = `analogy\n${a}\n${b}\n${c}\n${k}`;
    if (!queries.has(key)) queries.set(key, this.model.analogy(a, b, c, k));
    return queries.get(key);
  }

  /** What was computed from the model at the current step (a new step starts afresh). */
  _atStep() {
    if (!this._computed || this._computed.step !== this.step) this._computed = { step: this.step, queries: new Map() };
    return this._computed;
  }

  get finished() {
    return this.step >= this.total || this.error !== null;
  }

  _similarities() {
    const { anchor, near, far } = PROBES;
    return {
      catDog: this.probes.near ? this.model.similarity(anchor, near) : NaN,
      catCar: this.probes.far ? this.model.similarity(anchor, far) : NaN,
    };
  }

  /**
   * One optimizer step. Returns its record, or null when the run is over (finished or failed).
   * deadline (a performance.now() time): the step is taken a few sentences at a time until then
   * (model.step({ deadline })), and PENDING comes back while it is not finished; the next call
   * goes on with it. A large batch on a large vocabulary then never blocks the page for a whole step.
   */
  advance({ deadline } = {}) {
    if (this.finished) return null;
    let result;
    try {
      result = this.model.step(deadline === undefined ? undefined : { deadline });
    } catch (error) {
      this.error = error;
      return null;
    }
    if (result === null) return PENDING;
    const prev = this.history.length ? this.history[this.history.length - 1].average : result.loss;
    const record = {
      step: result.step,
      loss: result.loss,
      average: this.history.length ? prev + EMA * (result.loss - prev) : result.loss,
      ...this._similarities(),
    };
    this.history.push(record);
    if (result.step % CHECKPOINT_EVERY === 0) this.checkpoints.set(result.step, this.model.saveState());
    // the rows of the batch's own tokens (<s> included: every sentence starts and ends with it);
    // with SGD exactly updatedRows, with Adam a subset (its moments move other rows too)
    const ids = new Set([0]);
    for (const sentence of result.batch) for (const word of sentence) ids.add(this._ids.get(word));
    const batchRows = [...ids].sort((a, b) => a - b);
    this.last = { ...record, batch: result.batch, updatedRows: result.updatedRows, batchRows };
    return this.last;
  }

  /** The state before any step: the probes' cosines of the initial table, for the charts' step 0. */
  initialPoint() {
    return this.initial;
  }

  /** Bytes the checkpoints hold (their states' copies, outside the WASM heap). */
  get checkpointBytes() {
    let sum = 0;
    for (const state of this.checkpoints.values()) sum += state.bytes.length;
    return sum;
  }

  /**
   * A model at step k (0 … this.step) of this run, to look at, never to train the run with: the
   * run's own second model, loaded from the last checkpoint at or before k and stepped on to k
   * (at most CHECKPOINT_EVERY steps), or the run's current state when k is its step. The same
   * numbers, bit for bit, as the run had at k: the model is deterministic for its state.
   * deadline (a performance.now() time): past it, the replay stops after a step and gives null;
   * the next call goes on from where it stopped (the page replays a frame at a time).
   */
  modelAt(k, { deadline = Infinity } = {}) {
    if (!Number.isInteger(k) || k < 0 || k > this.step) throw new RangeError(`modelAt: step ${k} is not in 0 … ${this.step}`);
    this._replica ||= this.qkv.createModel(this.options);
    const replica = this._replica;
    if (k === this.step) {
      replica.loadState(this.model.saveState());
      return replica;
    }
    const from = k - (k % CHECKPOINT_EVERY);
    // the replica may already be between the checkpoint and k (scrubbing forward): go on from there
    if (!(replica.steps >= from && replica.steps <= k)) replica.loadState(this.checkpoints.get(from));
    while (replica.steps < k) {
      // a step in parts when the deadline is near (a 9,000-word corpus at batch 32: 90 ms a step)
      if (replica.step({ deadline }) === null) return null;
      if (replica.steps < k && performance.now() >= deadline) return null;
    }
    return replica;
  }

  dispose() {
    this.model.dispose();
    if (this._replica) this._replica.dispose();
    this._replica = null;
  }
}
