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
// dist/qkv-core.js) and the kernels (products, softmax, attention), of which there are two
// builds, SIMD128 and scalar; load() picks one by feature detection (see build.sh).
import createQkvCore from './dist/qkv-core.js';
import { modules as WASM } from './dist/qkv-wasm.js';
import {
  Matrix, ReturnedMatrix, readInput, nonFiniteError, checkShape, checkWork, checkPositiveFloat32,
  readOptions as readPlainOptions, argumentError, describe, MAX_ELEMENTS, MAX_SIDE,
} from './matrix.js';
import { Model } from './model.js';
import { GPT, loadGPT, transformerBlock } from './gpt.js';
import { Heap, STATUS } from './heap.js';
import { inflate } from './inflate.js';

/** Most positions positionalEncoding gives (QKV_MAX_POSITIONS in wasm/qkv.h). */
const MAX_POSITIONS = 2 ** 20;
/** multiHeadAttention's weights, and what each head returns. */
const WEIGHT_NAMES = ['Wq', 'Wk', 'Wv', 'Wo'];
const HEAD_KEYS = ['Q', 'K', 'V', 'scores', 'weights', 'output'];

export { Matrix, Model, GPT };

// The smallest module with a SIMD128 instruction (v128 i8x16.popcnt of a splat): whether this
// engine validates it is whether it runs SIMD128.
const SIMD_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11);

/** Whether this JavaScript engine runs WebAssembly SIMD128 (and load() uses the SIMD kernels). */
export function simdSupported() {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

const shared = new Map();  // 'simd' | 'scalar' -> Promise<QkvLab>

/**
 * Loads the WebAssembly modules once and returns the API object (shared by every caller:
 * widgets on one page use one instance). Options:
 *   fresh: true   a private instance instead of the shared one;
 *   simd: false   the scalar kernels even where SIMD128 runs (true: require SIMD128). Without
 *                 the option, SIMD128 where the engine has it; the environment variable
 *                 QKV_LAB_SIMD=0 makes that default scalar in Node (the tests run both builds).
 */
export function load(options = {}) {
  let fresh, simd;
  try {
    ({ fresh = false, simd = defaultSimd() } = readPlainOptions('load', options, ['fresh', 'simd'],
      '{ fresh: true, simd: false }'));
    for (const [name, value] of [['fresh', fresh], ['simd', simd]]) {
      if (typeof value !== 'boolean') {
        throw argumentError(TypeError, `load: ${name} must be true or false, got ${describe(value)}`);
      }
    }
  } catch (error) {
    return Promise.reject(error);  // bad options reject the promise: load never throws
  }
  if (simd && !simdSupported()) {
    return Promise.reject(new Error('load: this WebAssembly engine does not run SIMD128; ' +
      'call load() (which falls back to the scalar build) or load({ simd: false })'));
  }
  if (fresh) return instantiate(simd);
  const key = simd ? 'simd' : 'scalar';
  if (!shared.has(key)) {
    shared.set(key, instantiate(simd).catch((error) => { shared.delete(key); throw error; }));
  }
  return shared.get(key);
}

function defaultSimd() {
  const env = globalThis.process && globalThis.process.env;
  if (env && env.QKV_LAB_SIMD === '0') return false;
  return simdSupported();
}

/** The modules' bytes from dist/qkv-wasm.js: { core, simd, scalar }, inflated from one stream. */
function wasmBytes() {
  const { sizes, deflated } = WASM;
  const text = atob(deflated);
  const packed = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) packed[i] = text.charCodeAt(i);
  const all = inflate(packed, sizes.core + sizes.simd + sizes.scalar);
  let at = 0;
  return Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, all.subarray(at, at += size)]));
}

/** Kernel stack: the scalar build's local arrays may live there (the SIMD build needs none). */
const KERNEL_STACK_BYTES = 16384;

async function instantiate(simd) {
  const bytes = wasmBytes();
  const coreBytes = bytes.core;
  const kernelModule = await WebAssembly.compile(simd ? bytes.simd : bytes.scalar);
  let kernels = null;
  let fail;
  const failed = new Promise((resolve, reject) => { fail = reject; });
  const core = await Promise.race([failed, createQkvCore({
    locateFile: (file) => file,  // never used to fetch; spares the glue a URL built from import.meta.url
    // The glue made the memory (-sIMPORTED_MEMORY) and the import object; the kernels get the
    // memory, then the core gets the kernels in place of the stand-ins build.sh declared.
    instantiateWasm(imports, receive) {
      const memory = Object.values(imports).flatMap((o) => Object.values(o))
        .find((v) => v instanceof WebAssembly.Memory);
      WebAssembly.instantiate(kernelModule, { env: { memory } })
        .then((instance) => {
          kernels = instance.exports;
          bindKernels(imports, kernels);
          return WebAssembly.instantiate(coreBytes, imports);
        })
        .then(({ instance, module }) => receive(instance, module), fail);
      return {};
    },
  })]);
  const stack = core._malloc(KERNEL_STACK_BYTES);
  if (!stack) throw new RangeError('load: out of WebAssembly memory for the kernels\' stack');
  kernels.__stack_pointer.value = (stack + KERNEL_STACK_BYTES) & ~15;
  return new QkvLab(new Heap(core, kernels), simd);
}

/** Replaces each stand-in in the core's imports (marked qkvKernel by build.sh) by the kernel. */
function bindKernels(imports, kernels) {
  for (const table of Object.values(imports)) {
    for (const [key, value] of Object.entries(table)) {
      if (typeof value === 'function' && value.qkvKernel) {
        const kernel = kernels[value.qkvKernel];
        if (typeof kernel !== 'function') throw new Error(`load: the kernels do not export ${value.qkvKernel}`);
        table[key] = kernel;
      }
    }
  }
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
  constructor(heap, simd) {
    this._heap = heap;
    this._k = heap.kernels;  // called directly: each API call's hot path
    /** true when the SIMD128 kernels run, false for the scalar build. */
    this.simd = simd;
    this._rngBytes = (heap.call('qkv_rng_size') + 15) & ~15;
    this._slots = heap.allocations('load').bytes(RNG_SLOTS * this._rngBytes);
    this._slotOwners = new Array(RNG_SLOTS).fill(null);
    this._clock = 0;
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
   */
  attend(Q, K, V, options = {}) {
    const op = 'attend';
    const { scale, causal } = readOptions(op, options);
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
    checkShape(op, 'the score matrix', q.rows, k.rows);
    checkShape(op, 'the output', q.rows, v.cols);
    const floats = 2 * q.rows * k.rows + q.rows * v.cols + q.data.length + k.data.length + v.data.length;
    checkWork(op, { multiplyAdds: q.rows * k.rows * (q.cols + v.cols), exps: q.rows * k.rows, elements: floats },
      `attention of ${q.rows} queries over ${k.rows} keys`);
    const divisor = scaleDivisor(scale, q.cols);
    this._heap.open(floats);
    try {
      const scores = this._heap.take(q.rows * k.rows);
      const weights = this._heap.take(q.rows * k.rows);
      const output = this._heap.take(q.rows * v.cols);
      const status = this._k.qkv_attention_forward(scores, weights, output,
        this._put(q), this._put(k), this._put(v), q.rows, k.rows, q.cols, v.cols, divisor, causal ? 1 : 0);
      this._check(op, status, [[q, 'Q'], [k, 'K'], [v, 'V']]);
      const [S, W, O] = this._read([scores, q.rows, k.rows], [weights, q.rows, k.rows], [output, q.rows, v.cols]);
      return { scores: S, weights: W, output: O };
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
    const { heads, scale, causal } = readOptions(op, options, ['heads'], '{ heads: 2, scale: true, causal: false }');
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
   */
  createModel(options = {}) {
    return new Model(this, options);
  }

  /**
   * One pre-LN GPT-2 Transformer block on X (n×d), every intermediate returned (web/gpt.js):
   * transformerBlock(X, { ln1: { gamma, beta }, attn: { Wq, Wk, Wv, bq, bk, bv, Wo, bo },
   * ln2: { gamma, beta }, mlp: { W1, b1, W2, b2 } }, { heads, causal = true, eps = 1e-5 }).
   */
  transformerBlock(X, weights, options = {}) {
    return transformerBlock(this, X, weights, options);
  }

  /**
   * A GPT-2-style character model trained on text, one document per line (web/gpt.js):
   * createGPT({ text, layers = 2, heads = 4, dim = 64, context = 32, seed = 0, lr, batch, steps }).
   */
  createGPT(options = {}) {
    return new GPT(this, options);
  }

  /** The GPT that gpt.save() wrote (web/gpt.js); truncated or foreign bytes are refused. */
  loadGPT(bytes) {
    return loadGPT(this, bytes);
  }

  // ---- memory ----
  //
  // A call opens a frame on the heap (heap.open) for all its buffers, takes them from it
  // (heap.take), copies its inputs in (_put) and its results out (_read), and closes the frame
  // in a finally (heap.close).

  /** Copies an input's data into the open frame; returns its address. */
  _put(input) {
    const ptr = this._heap.take(input.data.length);
    this._heap.writeFloats(ptr, input.data);
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
function readOptions(op, options, extra = [], example = '{ scale: true, causal: false }') {
  const { scale = true, causal = false, ...rest } = readPlainOptions(op, options, [...extra, 'scale', 'causal'], example);
  if (typeof scale !== 'boolean' && typeof scale !== 'number') {
    throw argumentError(TypeError, `${op}: scale must be true (divide by √d_k), false (divide by 1) or a positive number, got ${describe(scale)}`);
  }
  // the divisor reaches C as float32: refuse what would round to 0, a subnormal or Infinity
  if (typeof scale === 'number') checkPositiveFloat32(op, 'scale', scale);
  if (typeof causal !== 'boolean') {
    throw argumentError(TypeError, `${op}: causal must be true or false, got ${describe(causal)}`);
  }
  return { ...rest, scale, causal };
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
