// qkv-lab.js: the JavaScript API over the qkv-lab WebAssembly module.
//
//   import { load } from 'qkv-lab';
//   const qkv = await load();
//   const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
//
// This module owns WASM memory: every call copies its inputs in, computes, copies the results
// out into fresh Float32Arrays and frees what it allocated, also when it throws. Inputs are
// checked here first, so that errors name the operation, the matrix and the position; the C
// side checks again and its status codes become RangeErrors.
import createQkvCore from './dist/qkv-core.js';
import { Matrix, toMatrix, checkShape, MAX_ELEMENTS } from './matrix.js';
import { Model } from './model.js';

export { Matrix, Model };

let shared = null;

/**
 * Loads the WebAssembly module once and returns the API object (shared by every caller:
 * widgets on one page use one instance). Pass `{ fresh: true }` for a private instance.
 */
export function load(options = {}) {
  if (options.fresh) return instantiate();
  if (!shared) shared = instantiate().catch((error) => { shared = null; throw error; });
  return shared;
}

async function instantiate() {
  const core = await createQkvCore();
  return new QkvLab(core);
}

const C_MESSAGES = new Map();

export class QkvLab {
  constructor(core) {
    this._core = core;
    this._rngBytes = core._qkv_rng_size();
  }

  /** Bytes currently allocated on the WASM heap. */
  heapUsed() {
    return this._core._qkv_heap_used();
  }

  /** The sentence the C library gives for a status code. */
  errorMessage(status) {
    if (!C_MESSAGES.has(status)) {
      C_MESSAGES.set(status, this._core.UTF8ToString(this._core._qkv_error_message(status)));
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
      throw new Err(`rng: seed must be an integer from 0 to 4294967295, got ${describe(seed)}`);
    }
    const lab = this;
    const state = new Uint8Array(this._rngBytes);
    this._withHeap((heap) => {
      const statePtr = heap.bytes(state.length);
      lab._check('rng', lab._core._qkv_rng_seed(statePtr, seed >>> 0));
      state.set(lab._core.HEAPU8.subarray(statePtr, statePtr + state.length));
    });
    return {
      seed,
      randn(rows, cols) {
        checkCount('randn', rows, 'rows');
        checkCount('randn', cols, 'cols');
        if (rows * cols > MAX_ELEMENTS) {
          throw new RangeError(`randn: ${rows}×${cols} is too large (at most ${MAX_ELEMENTS} entries)`);
        }
        return lab._withHeap((heap) => {
          const statePtr = heap.bytes(state.length);
          lab._core.HEAPU8.set(state, statePtr);
          const out = heap.floats(rows * cols);
          lab._check('randn', lab._core._qkv_rng_randn(statePtr, out, rows, cols));
          state.set(lab._core.HEAPU8.subarray(statePtr, statePtr + state.length));
          return heap.read(out, rows, cols);
        });
      },
    };
  }

  /** A (n×k) · B (k×m) → n×m */
  matmul(A, B) {
    const a = toMatrix(A, 'matmul', 'A');
    const b = toMatrix(B, 'matmul', 'B');
    if (a.cols !== b.rows) {
      throw new RangeError(`matmul: A is ${a.rows}×${a.cols} but B is ${b.rows}×${b.cols}; ` +
        `A's columns must equal B's rows`);
    }
    checkShape('matmul', 'the result', a.rows, b.cols);
    return this._withHeap((heap) => {
      const out = heap.floats(a.rows * b.cols);
      this._check('matmul', this._core._qkv_matmul(out, heap.write(a), heap.write(b), a.rows, a.cols, b.cols));
      return heap.read(out, a.rows, b.cols);
    });
  }

  /** Aᵀ */
  transpose(A) {
    const a = toMatrix(A, 'transpose', 'A');
    return this._withHeap((heap) => {
      const out = heap.floats(a.rows * a.cols);
      this._check('transpose', this._core._qkv_transpose(out, heap.write(a), a.rows, a.cols));
      return heap.read(out, a.cols, a.rows);
    });
  }

  /** Softmax of every row. -Infinity entries are masked out (weight 0); each row needs one finite entry. */
  softmaxRows(S) {
    const s = toMatrix(S, 'softmaxRows', 'S', { allowNegativeInfinity: true });
    for (let i = 0; i < s.rows; i++) {
      let finite = false;
      for (let j = 0; j < s.cols && !finite; j++) finite = s.data[i * s.cols + j] !== -Infinity;
      if (!finite) {
        throw new RangeError(`softmaxRows: row ${i} of S is entirely -Infinity; ` +
          `a row needs at least one finite score to give weight to`);
      }
    }
    return this._withHeap((heap) => {
      const out = heap.floats(s.rows * s.cols);
      this._check('softmaxRows', this._core._qkv_softmax_rows(out, heap.write(s), s.rows, s.cols));
      return heap.read(out, s.rows, s.cols);
    });
  }

  /**
   * Attention from given Q (n_q×d_k), K (n_k×d_k), V (n_k×d_v):
   * scores = Q·Kᵀ, weights = softmax(scores / s) by rows (causal: j > i masked), output = weights·V.
   */
  attend(Q, K, V, options = {}) {
    const op = 'attend';
    const { scale, causal } = readOptions(op, options);
    const q = toMatrix(Q, op, 'Q');
    const k = toMatrix(K, op, 'K');
    const v = toMatrix(V, op, 'V');
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
    const divisor = scaleDivisor(scale, q.cols);
    return this._withHeap((heap) => {
      const scores = heap.floats(q.rows * k.rows);
      const weights = heap.floats(q.rows * k.rows);
      const output = heap.floats(q.rows * v.cols);
      this._check(op, this._core._qkv_attention_forward(scores, weights, output,
        heap.write(q), heap.write(k), heap.write(v), q.rows, k.rows, q.cols, v.cols, divisor, causal ? 1 : 0));
      return {
        scores: heap.read(scores, q.rows, k.rows),
        weights: heap.read(weights, q.rows, k.rows),
        output: heap.read(output, q.rows, v.cols),
      };
    });
  }

  /**
   * Self-attention of X (n×d) with Wq, Wk (d×d_k) and Wv (d×d_v):
   * Q = X·Wq, K = X·Wk, V = X·Wv, then attend(Q, K, V, options). Every intermediate is returned.
   */
  selfAttention(X, Wq, Wk, Wv, options = {}) {
    const op = 'selfAttention';
    const { scale, causal } = readOptions(op, options);
    const x = toMatrix(X, op, 'X');
    const wq = toMatrix(Wq, op, 'Wq');
    const wk = toMatrix(Wk, op, 'Wk');
    const wv = toMatrix(Wv, op, 'Wv');
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
    checkShape(op, 'the score matrix', n, n);
    const divisor = scaleDivisor(scale, dk);
    return this._withHeap((heap) => {
      const Qp = heap.floats(n * dk), Kp = heap.floats(n * dk), Vp = heap.floats(n * dv);
      const scores = heap.floats(n * n), weights = heap.floats(n * n), output = heap.floats(n * dv);
      this._check(op, this._core._qkv_self_attention_forward(Qp, Kp, Vp, scores, weights, output,
        heap.write(x), heap.write(wq), heap.write(wk), heap.write(wv), n, d, dk, dv, divisor, causal ? 1 : 0));
      return {
        Q: heap.read(Qp, n, dk),
        K: heap.read(Kp, n, dk),
        V: heap.read(Vp, n, dv),
        scores: heap.read(scores, n, n),
        weights: heap.read(weights, n, n),
        output: heap.read(output, n, dv),
      };
    });
  }

  /**
   * A tiny language model whose embedding table is learned (see web/model.js):
   * createModel({ corpus, dim, seed, optimizer: 'sgd' | 'adam', lr, batchSize, steps, beta1, beta2, eps }).
   */
  createModel(options = {}) {
    return new Model(this, options);
  }

  // ---- memory ----

  /** Runs fn with a scope that allocates on the WASM heap; everything is freed afterwards. */
  _withHeap(fn) {
    const core = this._core;
    const pointers = [];
    const track = (ptr, bytes) => {
      if (!ptr) {
        throw new RangeError(`out of WebAssembly memory: could not allocate ${bytes} bytes`);
      }
      pointers.push(ptr);
      return ptr;
    };
    const heap = {
      floats(count) {
        return track(core._qkv_alloc_floats(count), count * 4);
      },
      bytes(count) {
        return track(core._qkv_alloc_bytes(count), count);
      },
      write(matrix) {
        const ptr = heap.floats(matrix.data.length);
        core.HEAPF32.set(matrix.data, ptr >> 2);  // HEAPF32 re-read: memory may have grown
        return ptr;
      },
      read(ptr, rows, cols) {
        return new Matrix(rows, cols, core.HEAPF32.slice(ptr >> 2, (ptr >> 2) + rows * cols));
      },
    };
    try {
      return fn(heap);
    } finally {
      for (const ptr of pointers) core._qkv_free(ptr);
    }
  }

  _check(op, status) {
    if (status !== 0) throw new RangeError(`${op}: ${this.errorMessage(status)} (status ${status})`);
  }
}

function readOptions(op, options) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${op}: options must be an object like { scale: true, causal: false }`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'scale' && key !== 'causal') {
      throw new TypeError(`${op}: unknown option "${key}"; the options are scale and causal`);
    }
  }
  const { scale = true, causal = false } = options;
  if (typeof scale !== 'boolean' && typeof scale !== 'number') {
    throw new TypeError(`${op}: scale must be true (divide by √d_k), false (divide by 1) or a positive number, got ${describe(scale)}`);
  }
  if (typeof scale === 'number' && !(scale > 0 && Number.isFinite(scale))) {
    throw new RangeError(`${op}: scale must be a positive finite number, got ${describe(scale)}`);
  }
  if (typeof causal !== 'boolean') {
    throw new TypeError(`${op}: causal must be true or false, got ${describe(causal)}`);
  }
  return { scale, causal };
}

function scaleDivisor(scale, dk) {
  if (scale === true) return Math.sqrt(dk);
  if (scale === false) return 1;
  return scale;
}

function checkCount(op, value, name) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    const Err = typeof value === 'number' ? RangeError : TypeError;
    throw new Err(`${op}: ${name} must be a positive integer, got ${describe(value)}`);
  }
}

function describe(value) {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
