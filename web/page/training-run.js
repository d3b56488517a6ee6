// training-run.js: one reproducible training run of the WASM model, with the history the charts
// draw. No DOM here. The model is deterministic for a seed, so any step can be reached again by
// replaying from the seed: that is how the page goes back a step and how a link with ?step=N
// restores a run.

/** The words whose cosine similarity the section follows. */
export const PROBES = Object.freeze({ anchor: '猫', near: '狗', far: '汽车' });

/** Colour groups of the scatter plot (words not in the corpus are simply ignored). */
export const WORD_GROUPS = Object.freeze([
  ['猫', '狗', '兔', '鸟'],
  ['汽车', '卡车'],
  ['国王', '女王', '男人', '女人'],
]);

const EMA = 0.1;  // weight of the newest loss in the moving average

export class TrainingRun {
  /** qkv: the loaded API; options: createModel's options (seed included). */
  constructor(qkv, options) {
    this.qkv = qkv;
    this.options = { ...options };
    this.model = qkv.createModel(this.options);
    this.vocab = this.model.vocab;
    this.total = this.model.defaultSteps;
    this.history = [];  // per step: { step, loss, average, catDog, catCar }
    this.last = null;   // the last step's full record, with batch and updatedRows
    this.error = null;  // set when a step threw (divergence or otherwise); the run is over
    this.initial = {
      step: 0,
      catDog: this.model.similarity(PROBES.anchor, PROBES.near),
      catCar: this.model.similarity(PROBES.anchor, PROBES.far),
    };
    this.groups = this.vocab.map((w) => {
      const g = WORD_GROUPS.findIndex((list) => list.includes(w));
      return g + 1;
    });
  }

  get step() {
    return this.model.steps;
  }

  get finished() {
    return this.step >= this.total || this.error !== null;
  }

  /** One optimizer step. Returns its record, or null when the run is over (finished or failed). */
  advance() {
    if (this.finished) return null;
    let result;
    try {
      result = this.model.step();
    } catch (error) {
      this.error = error;
      return null;
    }
    const prev = this.history.length ? this.history[this.history.length - 1].average : result.loss;
    const record = {
      step: result.step,
      loss: result.loss,
      average: this.history.length ? prev + EMA * (result.loss - prev) : result.loss,
      catDog: this.model.similarity(PROBES.anchor, PROBES.near),
      catCar: this.model.similarity(PROBES.anchor, PROBES.far),
    };
    this.history.push(record);
    this.last = { ...record, batch: result.batch, updatedRows: result.updatedRows };
    return this.last;
  }

  /** The state before any step: the probes' cosines of the initial table, for the charts' step 0. */
  initialPoint() {
    return this.initial;
  }

  /**
   * A fresh run with the same options advanced to `step` (clamped to the schedule), calling
   * onProgress(run) every `every` steps (the page uses it to keep project2d's signs continuous).
   */
  static replay(qkv, options, step, { onProgress, every = 5 } = {}) {
    const run = new TrainingRun(qkv, options);
    const target = Math.max(0, Math.min(step, run.total));
    while (run.step < target && run.advance()) {
      if (onProgress && run.step % every === 0) onProgress(run);
    }
    return run;
  }

  dispose() {
    this.model.dispose();
  }
}
