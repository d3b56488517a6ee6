// qkv-lab.js: the JavaScript API over the qkv-lab WebAssembly modules.
//
//   import { load } from 'qkv-lab';
//   const qkv = await load();
//   const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
//
// Its memory belongs to one Heap per instance (heap.js, which every module reaching WASM memory
// goes through; model.js does too): every call copies its inputs in, computes, and copies the
// results out into fresh Float32Arrays (Matrices it returns), also when it throws. Inputs are
// checked here first, so that errors name the operation, the matrix and the position; a Matrix
// this API returned is not checked entry by entry again (see matrix.js), the C side checks the
// finiteness of every input anyway, and its status codes become RangeErrors.
//
// Two WebAssembly modules share one memory: the core (RNG, model, allocator; Emscripten glue in
// dist/qkv-core.js) and the kernels (products, softmax, attention), of which there are three
// builds, relaxed SIMD (fused multiply-add), SIMD128 and scalar; load() picks the fastest the
// engine validates (see build.sh). How they are probed, inflated, instantiated and attached is
// loader.js's; this file is the API over them. The core and SIMD128 travel in dist/qkv-wasm.js; the other
// two in modules of their own, imported only where they run. The GPT engine (wasm/gpt.c and
// web/gpt.js) is a third module on the same memory, loaded on demand: load({ gpt: true }) or
// qkv.loadGPTEngine() imports dist/qkv-gpt.js and gpt.js and attaches it to the instance.
// qkv.loadPretrained() imports dist/qkv-pretrained.js, the pretrained poet's weights, the same way.
// The trainable model's JavaScript (web/model.js with corpus.js and pca.js; its C side is in the
// core) is imported on demand too, by load({ model: true }) or qkv.loadModelEngine(): no attention
// call needs it, and it is a fifth of what an app would otherwise load at first.
import {
  Matrix, ReturnedMatrix, readInput, nonFiniteError, checkShape, checkWork, checkPositiveFloat32,
  readOptions as readPlainOptions, argumentError, describe, guard, MAX_ELEMENTS, MAX_SIDE,
} from './matrix.js';
import { provideModel, modelProvided } from './engine-sources.js';
import { STATUS } from './heap.js';
import {
  KERNELS, hasWebAssembly, simdSupported, relaxedSupported, pickKernels, instantiate, chunk, decode, attachGPT,
} from './loader.js';

/** Most positions positionalEncoding gives (QKV_MAX_POSITIONS in wasm/qkv.h). */
const MAX_POSITIONS = 2 ** 20;
/** multiHeadAttention's weights, and what each head returns. */
const WEIGHT_NAMES = ['Wq', 'Wk', 'Wv', 'Wo'];
const HEAD_KEYS = ['Q', 'K', 'V', 'scores', 'weights', 'output'];
/** The options attend and multiHeadAttention take besides scale and causal. */
const ATTEND_OPTIONS = ['outputs'], MULTI_HEAD_OPTIONS = ['heads'];

export { Matrix, simdSupported };

/** A new instance on the heap load() made (loader.js instantiate). */
const makeLab = (heap, kernelsName) => new QkvLab(heap, kernelsName);

const shared = new Map();  // kernels name -> Promise<QkvLab>

/**
 * The trainable model's class (web/model.js), which loads on demand (loadModelEngine): this
 * stand-in keeps `import { Model }` and `model instanceof Model` working before and after.
 */
export class Model {
  /** Use qkv.createModel(options). */
  constructor(lab, options) {
    return lab.createModel(options);
  }

  static [Symbol.hasInstance](value) {
    const Loaded = modelProvided();
    return Loaded !== null && value instanceof Loaded;
  }
}

/**
 * Imports web/model.js once and provides its class (engine-sources.js), unless a bundle that
 * carries it provided it already (the page's and the widget's training sections). The classic
 * widget's core has a stand-in for model.js whose Model is null: its provided() fetches the
 * training add-on, which provides the class (tools/build-page.mjs).
 */
let modelLoading = null;
function loadModel() {
  if (modelProvided()) return Promise.resolve();
  return modelLoading ||= import('./model.js').then((m) => (m.Model ? provideModel(m.Model) : m.provided()))
    .catch((error) => { modelLoading = null; throw error; });
}

/**
 * Loads the WebAssembly modules once and returns the API object (shared by every caller:
 * widgets on one page use one instance). Options:
 *   fresh: true    a private instance instead of the shared one;
 *   kernels: name  'relaxed-simd' (fused multiply-add), 'simd128' or 'scalar'; the promise
 *                  rejects where the engine cannot run it. Without it, the fastest that this
 *                  engine validates; in Node the environment variable QKV_LAB_SIMD=0 makes that
 *                  default scalar (the tests run every build);
 *   simd: boolean  the older spelling: true is 'simd128', false 'scalar';
 *   gpt: true      with the GPT engine (transformerBlock, createGPT, loadGPT), fetched on
 *                  demand and attached to the instance (to the shared one too: qkv.loadGPTEngine());
 *   model: true    with the trainable model's code (createModel), fetched on demand, for every
 *                  instance (qkv.loadModelEngine()).
 */
export function load(options = {}) {
  let fresh, kernels, simd, gpt, model;
  try {
    ({ fresh = false, kernels, simd, gpt = false, model = false } = readPlainOptions('load', options, ['fresh', 'kernels', 'simd', 'gpt', 'model'],
      "{ fresh: true, kernels: 'scalar', gpt: true, model: true }"));
    for (const [name, value] of [['fresh', fresh], ['gpt', gpt], ['model', model]]) {
      if (typeof value !== 'boolean') throw argumentError(TypeError, `load: ${name} must be true or false, got ${describe(value)}`);
    }
    if (simd !== undefined && typeof simd !== 'boolean') {
      throw argumentError(TypeError, `load: simd must be true or false, got ${describe(simd)}`);
    }
    if (kernels !== undefined && !KERNELS.includes(kernels)) {
      throw argumentError(TypeError, `load: kernels must be ${KERNELS.map((k) => `'${k}'`).join(', ')} or left out, got ${describe(kernels)}`);
    }
    if (kernels !== undefined && simd !== undefined) {
      throw argumentError(TypeError, `load: give kernels or simd, not both (simd: ${simd} means kernels: '${simd ? 'simd128' : 'scalar'}')`);
    }
  } catch (error) {
    return Promise.reject(error);  // bad options reject the promise: load never throws
  }
  if (!hasWebAssembly()) {
    return Promise.reject(new Error('load: this JavaScript engine has no WebAssembly, which qkv-lab needs: every current browser and Node.js has it unless it is disabled ' +
      '(Node\'s --jitless, a browser setting that disables the JIT, Safari\'s Lockdown Mode)'));
  }
  if (simd !== undefined) kernels = simd ? 'simd128' : 'scalar';
  if (kernels === 'simd128' && !simdSupported()) {
    return Promise.reject(new Error('load: this WebAssembly engine does not run SIMD128; ' +
      "call load() (which falls back to the scalar build) or load({ kernels: 'scalar' })"));
  }
  if (kernels === 'relaxed-simd' && !relaxedSupported()) {
    return Promise.reject(new Error('load: this WebAssembly engine does not run relaxed SIMD (Chrome ≥ 114 and ' +
      'Firefox ≥ 120 do; Node 20 with --experimental-wasm-relaxed-simd); load() takes the fastest build it runs'));
  }
  const lab = pickKernels(kernels).then((name) => {
    if (fresh) return instantiate(name, makeLab);
    if (!shared.has(name)) {
      shared.set(name, instantiate(name, makeLab).catch((error) => { shared.delete(name); throw error; }));
    }
    return shared.get(name);
  });
  const withModel = model ? lab.then((instance) => instance.loadModelEngine()) : lab;
  return gpt ? withModel.then((instance) => instance.loadGPTEngine()) : withModel;
}

const C_MESSAGES = new Map();

// Random generators keep their state (2.5 KB, numpy's MT19937) in WASM memory, in one of a few
// slots allocated once. The generator used least recently gives up its slot when another needs
// one: its state is copied out to a JS array and back in when it draws again. So a generator
// that keeps drawing is never copied, nothing is allocated per generator, and nothing needs
// freeing: a generator that is garbage collected just leaves its slot to be reused.
const RNG_SLOTS = 4;
// The results of one call share one ArrayBuffer up to this many floats in all (see _read).
const SHARED_RESULT_FLOATS = 1 << 16;

export class QkvLab {
  /** load() makes these; heap: the instance's Heap (heap.js), which owns its memory. */
  constructor(heap, kernelsName) {
    this._heap = heap;
    this._k = heap.kernels;  // called directly: each API call's hot path
    /** Which kernel build runs: 'relaxed-simd', 'simd128' or 'scalar'. */
    this.kernels = kernelsName;
    /** true when SIMD kernels run (relaxed-simd or simd128), false for the scalar build. */
    this.simd = kernelsName !== 'scalar';
    this._rngBytes = (heap.call('qkv_rng_size') + 15) & ~15;
    this._slots = heap.allocations('load').bytes(RNG_SLOTS * this._rngBytes);
    this._slotOwners = new Array(RNG_SLOTS).fill(null);
    this._clock = 0;
    this._gpt = null;         // web/gpt.js once the GPT engine is attached
    this._gptLoading = null;  // Promise<web/gpt.js> while and after it loads
  }

  /**
   * Attaches the GPT engine (transformerBlock, createGPT, loadGPT) to this instance, fetching it
   * on the first call (load({ gpt: true }) does this too) → Promise<this>. Once per instance;
   * later calls return at once.
   */
  loadGPTEngine() {
    if (!this._gptLoading) {
      this._gptLoading = attachGPT(this).then((engine) => { this._gpt = engine; return engine; },
        (error) => { this._gptLoading = null; throw error; });
    }
    return this._gptLoading.then(() => this);
  }

  /**
   * The pretrained Tang poet (a GPT of 4 layers, 4 heads, width 128, context 72, trained on the
   * regular-verse Tang poems: docs/pretrained.md) → Promise<GPT>, a new one on every call (dispose()
   * it when done). Its weights are fetched on the first call (about 1.7 MB; a chunk of their own
   * in a bundler, an add-on script beside the classic widget's) and the GPT engine is attached
   * if it is not yet; nothing is loaded before.
   */
  async loadPretrained() {
    const { deflated, size } = await chunk('pretrained');
    await this.loadGPTEngine();
    return this.loadGPT(decode(deflated, size));
  }

  /**
   * Loads the trainable model's code (web/model.js), which createModel needs, fetching it on the
   * first call (load({ model: true }) does this too) → Promise<this>. It then serves every
   * instance; later calls return at once.
   */
  loadModelEngine() {
    return loadModel().then(() => this);
  }

  /** Whether createModel can run: the trainable model's code is loaded (see loadModelEngine). */
  get modelLoaded() {
    return modelProvided() !== null;
  }

  /** Whether the GPT engine is attached (see loadGPTEngine). */
  get gptLoaded() {
    return this._gpt !== null;
  }

  _gptEngine(op) {
    if (this._gpt) return this._gpt;
    throw new Error(`${op}: the GPT engine is not loaded on this instance: get the instance with ` +
      '`await load({ gpt: true })`, or call `await qkv.loadGPTEngine()` on it first');
  }

  /** Bytes currently allocated on the WASM heap. */
  heapUsed() {
    return this._heap.used();
  }

  /** The sentence the C library gives for a status code. */
  errorMessage(status) {
    if (!Number.isInteger(status)) {
      throw argumentError(TypeError, `errorMessage: status must be an integer, got ${describe(status)}`);
    }
    if (!C_MESSAGES.has(status)) {
      C_MESSAGES.set(status, this._heap.readString(this._heap.call('qkv_error_message', status)));
    }
    return C_MESSAGES.get(status);
  }

  /**
   * A random generator that gives exactly numpy's legacy stream:
   * `qkv.rng(42).randn(4, 3)` equals `np.random.seed(42); np.random.randn(4, 3)` (as float32),
   * and successive calls continue the stream, as numpy's do.
   */
  rng(seed) {
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      const Err = typeof seed === 'number' ? RangeError : TypeError;
      throw argumentError(Err, `rng: seed must be an integer from 0 to 4294967295, got ${describe(seed)}`);
    }
    const lab = this;
    const generator = { slot: -1, saved: null, used: 0 };
    lab._check('rng', lab._heap.call('qkv_rng_seed', lab._resident(generator), seed >>> 0));
    return {
      seed,
      randn(rows, cols) {
        checkCount('randn', rows, 'rows');
        checkCount('randn', cols, 'cols');
        if (rows > MAX_SIDE || cols > MAX_SIDE || rows * cols > MAX_ELEMENTS) {
          throw argumentError(RangeError, `randn: ${rows}×${cols} is too large ` +
            `(at most ${MAX_ELEMENTS} entries and ${MAX_SIDE} per side)`);
        }
        checkWork('randn', { draws: rows * cols, elements: rows * cols }, `${rows}×${cols} normal draws`);
        lab._heap.open(rows * cols);
        try {
          const out = lab._heap.take(rows * cols);
          lab._check('randn', lab._heap.call('qkv_rng_randn', lab._resident(generator), out, rows, cols));
          return lab._read([out, rows, cols])[0];
        } finally {
          lab._heap.close();
        }
      },
    };
  }

  /** A (n×k) · B (k×m) → n×m */
  matmul(A, B) {
    const a = readInput(A, 'matmul', 'A');
    const b = readInput(B, 'matmul', 'B');
    if (a.cols !== b.rows) {
      throw new RangeError(`matmul: A is ${a.rows}×${a.cols} but B is ${b.rows}×${b.cols}; ` +
        `A's columns must equal B's rows`);
    }
    checkShape('matmul', 'the result', a.rows, b.cols);
    checkWork('matmul', { multiplyAdds: a.rows * a.cols * b.cols, elements: a.data.length + b.data.length + a.rows * b.cols },
      `${a.rows}×${a.cols} by ${b.rows}×${b.cols}`);
    this._heap.open(a.rows * b.cols + a.data.length + b.data.length);
    try {
      const out = this._heap.take(a.rows * b.cols);
      const status = this._k.qkv_matmul(out, this._put(a), this._put(b), a.rows, a.cols, b.cols);
      this._check('matmul', status, [[a, 'A'], [b, 'B']]);
      return this._read([out, a.rows, b.cols])[0];
    } finally {
      this._heap.close();
    }
  }

  /** Aᵀ */
  transpose(A) {
    const a = readInput(A, 'transpose', 'A');
    checkWork('transpose', { elements: 2 * a.data.length }, `transposing ${a.rows}×${a.cols}`);
    this._heap.open(2 * a.data.length);
    try {
      const out = this._heap.take(a.rows * a.cols);
      this._check('transpose', this._k.qkv_transpose(out, this._put(a), a.rows, a.cols), [[a, 'A']]);
      return this._read([out, a.cols, a.rows])[0];
    } finally {
      this._heap.close();
    }
  }

  /** Softmax of every row. -Infinity entries are masked out (weight 0); each row needs one finite entry. */
  softmaxRows(S) {
    const s = readInput(S, 'softmaxRows', 'S', { allowNegativeInfinity: true });
    checkWork('softmaxRows', { exps: s.data.length, elements: 2 * s.data.length }, `the softmax of ${s.rows}×${s.cols}`);
    this._heap.open(2 * s.data.length);
    try {
      const out = this._heap.take(s.rows * s.cols);
      const status = this._k.qkv_softmax_rows(out, this._put(s), s.rows, s.cols);
      if (status === STATUS.MASKED_ROW) {
        for (let i = 0; i < s.rows; i++) {
          let finite = false;
          for (let j = 0; j < s.cols && !finite; j++) finite = s.data[i * s.cols + j] !== -Infinity;
          if (!finite) {
            throw new RangeError(`softmaxRows: row ${i} of S is entirely -Infinity; ` +
              `a row needs at least one finite score to give weight to`);
          }
        }
      }
      this._check('softmaxRows', status, [[s, 'S']], { allowNegativeInfinity: true });
      return this._read([out, s.rows, s.cols])[0];
    } finally {
      this._heap.close();
    }
  }

  /**
   * Attention from given Q (n_q×d_k), K (n_k×d_k), V (n_k×d_v):
   * scores = Q·Kᵀ, weights = softmax(scores / s) by rows (causal: j > i masked), output = weights·V.
   * outputs (default all three) names the results to return: the others are neither copied out
   * nor kept whole in WASM memory (the kernel then works in 4 rows of them at a time).
   */
  attend(Q, K, V, options = {}) {
    const op = 'attend';
    const { scale, causal, outputs = ALL_OUTPUTS } = readOptions(op, options, ATTEND_OPTIONS, "{ scale: true, causal: false, outputs: ['output'] }");
    const keep = outputs === ALL_OUTPUTS ? KEEP_ALL : guard(op, 'outputs', () => outputsMask(op, outputs));
    const q = readInput(Q, op, 'Q');
    const k = readInput(K, op, 'K');
    const v = readInput(V, op, 'V');
    if (q.cols !== k.cols) {
      throw new RangeError(`${op}: Q is ${q.rows}×${q.cols} but K is ${k.rows}×${k.cols}; ` +
        `Q and K must have the same number of columns (d_k)`);
    }
    if (k.rows !== v.rows) {
      throw new RangeError(`${op}: K is ${k.rows}×${k.cols} but V is ${v.rows}×${v.cols}; ` +
        `K and V must have the same number of rows (one key and one value per token)`);
    }
    if (causal && q.rows > k.rows) {
      throw new RangeError(`${op}: causal attention needs at least as many keys as queries, ` +
        `but Q has ${q.rows} rows and K has ${k.rows}`);
    }
    const nq = q.rows, nk = k.rows, dv = v.cols;
    checkShape(op, 'the score matrix', nq, nk);
    checkShape(op, 'the output', nq, dv);
    // scores or weights not asked for: 4 rows of work space instead of n_q
    const scoreRows = keep & KEEP_SCORES ? nq : Math.min(nq, 4), weightRows = keep & KEEP_WEIGHTS ? nq : Math.min(nq, 4);
    const floats = (scoreRows + weightRows) * nk + nq * dv + q.data.length + k.data.length + v.data.length;
    checkWork(op, { multiplyAdds: nq * nk * (q.cols + dv), exps: nq * nk, elements: floats },
      `attention of ${nq} queries over ${nk} keys`);
    const divisor = scaleDivisor(scale, q.cols);
    this._heap.open(floats);
    try {
      // the results first, one after another, so that _read can copy them out in one block
      const output = this._heap.take(nq * dv);
      const weights = this._heap.take(weightRows * nk);
      const scores = this._heap.take(scoreRows * nk);
      const qp = this._put(q), kp = this._put(k), vp = this._put(v);
      const status = keep === KEEP_ALL
        ? this._k.qkv_attention_forward(scores, weights, output, qp, kp, vp, nq, nk, q.cols, dv, divisor, causal ? 1 : 0)
        : this._k.qkv_attention_forward_keep(scores, weights, output, qp, kp, vp, nq, nk, q.cols, dv, divisor, causal ? 1 : 0, keep & (KEEP_SCORES | KEEP_WEIGHTS));
      this._check(op, status, [[q, 'Q'], [k, 'K'], [v, 'V']]);
      if (outputs === ALL_OUTPUTS) {
        const [O, W, S] = this._read([output, nq, dv], [weights, nq, nk], [scores, nq, nk]);
        return { scores: S, weights: W, output: O };
      }
      const parts = [], names = [];
      if (keep & KEEP_OUTPUT) { parts.push([output, nq, dv]); names.push('output'); }
      if (keep & KEEP_WEIGHTS) { parts.push([weights, nq, nk]); names.push('weights'); }
      if (keep & KEEP_SCORES) { parts.push([scores, nq, nk]); names.push('scores'); }
      const read = this._read(...parts);
      const result = {};
      for (const name of outputs) result[name] = read[names.indexOf(name)];
      return result;
    } finally {
      this._heap.close();
    }
  }

  /**
   * Self-attention of X (n×d) with Wq, Wk (d×d_k) and Wv (d×d_v):
   * Q = X·Wq, K = X·Wk, V = X·Wv, then attend(Q, K, V, options). Every intermediate is returned.
   */
  selfAttention(X, Wq, Wk, Wv, options = {}) {
    const op = 'selfAttention';
    const { scale, causal } = readOptions(op, options);
    const x = readInput(X, op, 'X');
    const wq = readInput(Wq, op, 'Wq');
    const wk = readInput(Wk, op, 'Wk');
    const wv = readInput(Wv, op, 'Wv');
    for (const [name, w] of [['Wq', wq], ['Wk', wk], ['Wv', wv]]) {
      if (w.rows !== x.cols) {
        throw new RangeError(`${op}: X is ${x.rows}×${x.cols} but ${name} is ${w.rows}×${w.cols}; ` +
          `X's columns must equal ${name}'s rows`);
      }
    }
    if (wq.cols !== wk.cols) {
      throw new RangeError(`${op}: Wq is ${wq.rows}×${wq.cols} but Wk is ${wk.rows}×${wk.cols}; ` +
        `Wq and Wk must have the same number of columns (d_k)`);
    }
    const n = x.rows, d = x.cols, dk = wq.cols, dv = wv.cols;
    checkShape(op, 'Q and K', n, dk);
    checkShape(op, 'V and the output', n, dv);
    checkShape(op, 'the score matrix', n, n);
    const floats = 2 * n * dk + 2 * n * dv + 2 * n * n + x.data.length + wq.data.length +
      wk.data.length + wv.data.length;
    checkWork(op, { multiplyAdds: n * d * (2 * dk + dv) + n * n * (dk + dv), exps: n * n, elements: floats },
      `self-attention of ${n} tokens`);
    const divisor = scaleDivisor(scale, dk);
    this._heap.open(floats);
    try {
      const Qp = this._heap.take(n * dk), Kp = this._heap.take(n * dk), Vp = this._heap.take(n * dv);
      const scores = this._heap.take(n * n), weights = this._heap.take(n * n), output = this._heap.take(n * dv);
      const status = this._k.qkv_self_attention_forward(Qp, Kp, Vp, scores, weights, output,
        this._put(x), this._put(wq), this._put(wk), this._put(wv), n, d, dk, dv, divisor, causal ? 1 : 0);
      this._check(op, status, [[x, 'X'], [wq, 'Wq'], [wk, 'Wk'], [wv, 'Wv']]);
      const [Qm, Km, Vm, S, W, O] = this._read([Qp, n, dk], [Kp, n, dk], [Vp, n, dv],
        [scores, n, n], [weights, n, n], [output, n, dv]);
      return { Q: Qm, K: Km, V: Vm, scores: S, weights: W, output: O };
    } finally {
      this._heap.close();
    }
  }

  /**
   * The sinusoidal positional encoding of "Attention Is All You Need", n×d:
   * PE[p][2i] = sin(p / base^(2i/d)), PE[p][2i+1] = cos(p / base^(2i/d)) (computed in double,
   * rounded to float32). The model's positions are this table with base 10000.
   */
  positionalEncoding(n, d, options = {}) {
    const op = 'positionalEncoding';
    const { base = 10000 } = readPlainOptions(op, options, ['base'], '{ base: 10000 }');
    checkCount(op, n, 'n', MAX_POSITIONS);
    checkCount(op, d, 'd', MAX_SIDE);
    checkShape(op, 'the table', n, d);
    // base reaches C as a double: any finite number above 1
    if (typeof base !== 'number') {
      throw argumentError(TypeError, `${op}: base must be a number above 1, got ${describe(base)}`);
    }
    if (!(base > 1 && base < Infinity)) {
      throw argumentError(RangeError, `${op}: base must be a finite number above 1 (up to ${Number.MAX_VALUE}), got ${describe(base)}`);
    }
    checkWork(op, { table: n * d, elements: n * d }, `the table of ${n}×${d} entries`);
    this._heap.open(n * d);
    try {
      const out = this._heap.take(n * d);
      this._check(op, this._heap.call('qkv_positional_encoding', out, n, d, base));
      return this._read([out, n, d])[0];
    } finally {
      this._heap.close();
    }
  }

  /**
   * Multi-head self-attention. X (n×d); Wq, Wk, Wv (d×d_model); Wo (d_model×d_out); heads
   * divides d_model, d_k = d_model / heads. Head h takes columns [h·d_k, (h+1)·d_k) of
   * Q = X·Wq, K = X·Wk, V = X·Wv and attends with them (scale: true divides by √d_k of the head).
   * → { heads: [{ Q, K, V, scores, weights, output }], concat (n×d_model), output = concat·Wo }
   */
  multiHeadAttention(X, weights, options = {}) {
    const op = 'multiHeadAttention';
    const { heads, scale, causal } = readOptions(op, options, MULTI_HEAD_OPTIONS, '{ heads: 2, scale: true, causal: false }');
    const w = readPlainOptions(op, weights, WEIGHT_NAMES, '{ Wq, Wk, Wv, Wo }', 'weight');
    const x = readInput(X, op, 'X');
    const [wq, wk, wv, wo] = WEIGHT_NAMES.map((name) => readInput(w[name], op, name));
    const n = x.rows, d = x.cols, dm = wq.cols, dout = wo.cols, shape = (m) => `${m.rows}×${m.cols}`;
    for (const [name, m] of [['Wq', wq], ['Wk', wk], ['Wv', wv]]) {
      if (m.rows !== d) throw argumentError(RangeError, `${op}: X is ${shape(x)} but ${name} is ${shape(m)}; X's columns must equal ${name}'s rows`);
      if (m.cols !== dm) throw argumentError(RangeError, `${op}: Wq is ${shape(wq)} but ${name} is ${shape(m)}; Wq, Wk and Wv must have the same columns (d_model)`);
    }
    if (wo.rows !== dm) throw argumentError(RangeError, `${op}: Wq is ${shape(wq)} but Wo is ${shape(wo)}; Wo's rows must equal d_model = ${dm}`);
    checkCount(op, heads, 'heads', dm);
    if (dm % heads) throw argumentError(RangeError, `${op}: heads is ${heads}, which does not divide d_model = ${dm} (Wq is ${shape(wq)})`);
    checkShape(op, 'Q, K and V', n, dm);
    checkShape(op, 'the score matrices', heads * n, n);
    checkShape(op, 'the output', n, dout);
    const floats = 6 * n * dm + 2 * heads * n * n + n * dout + x.data.length + 3 * wq.data.length + wo.data.length;
    checkWork(op, { multiplyAdds: 3 * n * d * dm + 2 * n * n * dm + n * dm * dout, exps: heads * n * n, elements: floats },
      `multi-head attention of ${n} tokens`);
    const dk = dm / heads;
    const widths = [dk, dk, dk, n, n, dk];   // each head's Q, K, V, scores, weights, output
    this._heap.open(floats);
    try {
      const ptrs = widths.map((cols) => this._heap.take(heads * n * cols));
      const concat = this._heap.take(n * dm), output = this._heap.take(n * dout);
      const inputs = [[x, 'X'], [wq, 'Wq'], [wk, 'Wk'], [wv, 'Wv'], [wo, 'Wo']];
      this._check(op, this._heap.call('qkv_multi_head_attention_forward', ...ptrs, concat, output,
        ...inputs.map(([m]) => this._put(m)), n, d, dm, heads, dout, scaleDivisor(scale, dk), causal ? 1 : 0), inputs);
      const parts = [];
      for (let h = 0; h < heads; h++) widths.forEach((cols, b) => parts.push([ptrs[b] + 4 * h * n * cols, n, cols]));
      const all = this._read(...parts, [concat, n, dm], [output, n, dout]);
      return {
        heads: Array.from({ length: heads }, (_, h) => Object.fromEntries(HEAD_KEYS.map((key, b) => [key, all[6 * h + b]]))),
        concat: all[6 * heads],
        output: all[6 * heads + 1],
      };
    } finally {
      this._heap.close();
    }
  }

  /**
   * A tiny language model whose embedding table is learned (see web/model.js):
   * createModel({ corpus, dim, seed, optimizer: 'sgd' | 'adam', lr, batchSize, steps, beta1, beta2, eps }).
   * Needs the model's code: load({ model: true }) or loadModelEngine() first.
   */
  createModel(options = {}) {
    const Loaded = modelProvided();
    if (!Loaded) {
      throw new Error('createModel: the trainable model is not loaded: get the instance with ' +
        '`await load({ model: true })`, or call `await qkv.loadModelEngine()` first');
    }
    return new Loaded(this, options);
  }

  /**
   * One pre-LN GPT-2 Transformer block on X (n×d), every intermediate returned (web/gpt.js):
   * transformerBlock(X, { ln1: { gamma, beta }, attn: { Wq, Wk, Wv, bq, bk, bv, Wo, bo },
   * ln2: { gamma, beta }, mlp: { W1, b1, W2, b2 } }, { heads, causal = true, eps = 1e-5 }).
   */
  transformerBlock(X, weights, options = {}) {
    return this._gptEngine('transformerBlock').transformerBlock(this, X, weights, options);
  }

  /**
   * A GPT-2-style character model trained on text, one document per line (web/gpt.js):
   * createGPT({ text, layers = 2, heads = 4, dim = 64, context = 32, seed = 0, lr, batch, steps }).
   */
  createGPT(options = {}) {
    return new (this._gptEngine('createGPT').GPT)(this, options);
  }

  /** The GPT that gpt.save() wrote (web/gpt.js); truncated or foreign bytes are refused. */
  loadGPT(bytes) {
    return this._gptEngine('loadGPT').loadGPT(this, bytes);
  }

  /** The LoRA adapters ft.saveAdapter() wrote, on the base they were trained on (web/finetune.js);
   * adapters of another base (by a checksum of its weights) are refused. */
  loadAdapter(base, bytes) {
    return this._gptEngine('loadAdapter').loadAdapter(this, base, bytes);
  }

  // ---- memory ----
  //
  // A call opens a frame on the heap (heap.open) for all its buffers, takes them from it
  // (heap.take), copies its inputs in (_put) and its results out (_read), and closes the frame
  // in a finally (heap.close).

  /** Copies an input's data into the open frame (checking it, if readInput left that to the copy); returns its address. */
  _put(input) {
    const ptr = this._heap.take(input.data.length);
    this._heap.copyInput(ptr, input);
    return ptr;
  }

  /**
   * Copies results ([ptr, rows, cols], allocated one after another) out into Matrices. What
   * costs here is allocating ArrayBuffers, not copying: V8 keeps arrays of up to 64 bytes on its
   * heap (cheap), while every larger one gets a backing store of its own (about a microsecond).
   * So results of up to 16 floats are sliced one by one, and the larger results of one call
   * share a single copy, each Matrix a view of its part, unless they are large enough that
   * keeping one alive should not keep the others.
   */
  _read(...parts) {
    const heap = this._heap;
    let first = -1, end = 0;
    for (const [ptr, rows, cols] of parts) {
      if (rows * cols <= 16) continue;
      if (first < 0) first = ptr >> 2;
      end = (ptr >> 2) + rows * cols;
    }
    const block = first >= 0 && end - first <= SHARED_RESULT_FLOATS ? heap.readFloats(first << 2, end - first) : null;
    return parts.map(([ptr, rows, cols]) => {
      const at = ptr >> 2, count = rows * cols;
      const data = block && count > 16 ? block.subarray(at - first, at - first + count) : heap.readFloats(ptr, count);
      return new ReturnedMatrix(rows, cols, data);
    });
  }

  /** The address of generator's state, made resident in a slot (see RNG_SLOTS). */
  _resident(generator) {
    const owners = this._slotOwners;
    generator.used = ++this._clock;
    if (generator.slot >= 0 && owners[generator.slot] === generator) {
      return this._slots + generator.slot * this._rngBytes;
    }
    let slot = owners.indexOf(null);
    if (slot < 0) {
      slot = 0;
      for (let i = 1; i < owners.length; i++) if (owners[i].used < owners[slot].used) slot = i;
    }
    const ptr = this._slots + slot * this._rngBytes;
    const victim = owners[slot];
    if (victim) {
      victim.saved = this._heap.readBytes(ptr, this._rngBytes);
      victim.slot = -1;
    }
    owners[slot] = generator;
    generator.slot = slot;
    if (generator.saved) {
      this._heap.writeBytes(ptr, generator.saved);
      generator.saved = null;
    }
    return ptr;
  }

  /**
   * Throws for a non-zero status. A non-finite input (possible only in a Matrix this API
   * returned and the caller then changed, since every other input was checked already) is
   * named with its position, as the JavaScript check would have.
   */
  _check(op, status, inputs = [], options) {
    if (status === 0) return;
    if (status === STATUS.NONFINITE) {
      for (const [input, name] of inputs) {
        const error = nonFiniteError(input, op, name, options);
        if (error) throw error;
      }
    }
    throw new RangeError(`${op}: ${this.errorMessage(status)} (status ${status})`);
  }
}

/**
 * scale and causal (checked, defaulted) from a plain options object; `extra` names further keys
 * the operation takes (returned as given, for it to check), `example` shows them in messages.
 */
const OPTION_NAMES = new Map();  // extra -> [...extra, 'scale', 'causal'], made once per caller
const NO_EXTRA = [];
function readOptions(op, options, extra = NO_EXTRA, example = '{ scale: true, causal: false }') {
  let names = OPTION_NAMES.get(extra);
  if (!names) OPTION_NAMES.set(extra, names = [...extra, 'scale', 'causal']);
  // the copy readPlainOptions made, defaults filled in (no rest and spread: they cost a small
  // call a third of its time)
  const copy = readPlainOptions(op, options, names, example);
  const scale = copy.scale === undefined ? true : copy.scale, causal = copy.causal === undefined ? false : copy.causal;
  if (typeof scale !== 'boolean' && typeof scale !== 'number') {
    throw argumentError(TypeError, `${op}: scale must be true (divide by √d_k), false (divide by 1) or a positive number, got ${describe(scale)}`);
  }
  // the divisor reaches C as float32: refuse what would round to 0, a subnormal or Infinity
  if (typeof scale === 'number') checkPositiveFloat32(op, 'scale', scale);
  if (typeof causal !== 'boolean') {
    throw argumentError(TypeError, `${op}: causal must be true or false, got ${describe(causal)}`);
  }
  copy.scale = scale;
  copy.causal = causal;
  return copy;
}

// attend's results, as the bits of qkv_attention_forward_keep's keep (wasm/qkv.h), plus the output
const ALL_OUTPUTS = Object.freeze(['scores', 'weights', 'output']);
const KEEP_SCORES = 1, KEEP_WEIGHTS = 2, KEEP_OUTPUT = 4, KEEP_ALL = 7;
const KEEP_BITS = new Map([['scores', KEEP_SCORES], ['weights', KEEP_WEIGHTS], ['output', KEEP_OUTPUT]]);

/** attend's `outputs`: a non-empty array of distinct result names → their KEEP_ bits. */
const OUTPUT_NAMES = ALL_OUTPUTS.map((n) => `'${n}'`).join(', ');
function outputsMask(op, outputs) {
  const names = OUTPUT_NAMES;
  if (!Array.isArray(outputs) || outputs.length === 0) {
    throw argumentError(TypeError, `${op}: outputs must be a non-empty array of result names (${names}), got ${Array.isArray(outputs) ? 'an empty array' : describe(outputs)}`);
  }
  let mask = 0;
  for (let i = 0; i < outputs.length; i++) {
    const bit = typeof outputs[i] === 'string' ? KEEP_BITS.get(outputs[i]) : undefined;
    if (bit === undefined) {
      throw argumentError(TypeError, `${op}: outputs[${i}] is ${describe(outputs[i])}; the results are ${names}`);
    }
    if (mask & bit) throw argumentError(TypeError, `${op}: outputs names '${outputs[i]}' twice`);
    mask |= bit;
  }
  return mask;
}

function scaleDivisor(scale, dk) {
  if (scale === true) return Math.sqrt(dk);
  if (scale === false) return 1;
  return scale;
}

function checkCount(op, value, name, max = Infinity) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    const Err = typeof value === 'number' ? RangeError : TypeError;
    throw argumentError(Err, `${op}: ${name} must be a positive integer${max < Infinity ? ` up to ${max}` : ''}, got ${describe(value)}`);
  }
}
