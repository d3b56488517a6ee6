// wasm-harness.js: fuzzes the C API where it really runs, on wasm32, through the built modules
// (web/dist/qkv-wasm.js: the core with its glue, web/dist/qkv-core.js, and the kernels, SIMD128
// and scalar builds alike, instantiated as load() does) and nothing else: every function build.sh
// exports to JavaScript (EXPORTS, and KERNEL_EXPORTS but the unchecked kernels the core
// and the GPT module import), called with
// arbitrary sizes (0, negative, 2^24 ± 1, 2^26 ± 1, INT_MAX, …), values (NaN, ±Infinity,
// subnormals, float32's max, huge finite numbers), null pointers, corrupted generator states,
// and call sequences on models (create, set_optimizer, forward, loss_and_grad with lengths that
// sum past 2^32, sentence_losses, update, shuffle, tensor, destroy).
//
// Every call must
//   - return, never trap (a WebAssembly.RuntimeError is a failure);
//   - return the status the C contract (wasm/qkv.h) gives for its arguments, checked in the same
//     order as the C side: null pointers, sizes, arguments, shapes, finiteness, then the result;
//   - on success, return a correct result: within a float64 reference's error bound
//     (tests/fuzz/reference.js), a permutation for shuffle, rows summing to 1 for probabilities,
//     finite parameters, updated rows that are the batch's for SGD;
//   - write nothing outside its output buffers (every buffer has guard words on both sides) and
//     nothing at all into its inputs, and leave outputs untouched when it refuses;
//   - leak nothing: after each case qkv_heap_used() is back at its baseline.
// Buffers follow the contract's sizes; sizes the contract refuses get small buffers (the call
// must refuse before touching them); valid sizes too large for the harness's budget are passed
// with a null pointer instead (the call must say QKV_ERR_NULL).
//
// Each case draws from its own generator seeded from (seed, case), so one failing case
// replays alone: fuzzWasm({ seed, only: caseIndex }); the case also picks the kernel build.
import { load } from '../../web/qkv-lab.js';
import { STATUS } from '../../web/heap.js';
import * as ref from './reference.js';
import { gptDrivers } from './gpt-drivers.js';
import { mulberry32 } from '../helpers.js';

export { STATUS };
const STATUS_NAMES = Object.fromEntries(Object.entries(STATUS).map(([k, v]) => [v, k]));
const MAX_ELEMENTS = 2 ** 26;
const MAX_SIDE = 2 ** 24;
const MAX_BYTES = 2 ** 30;  // qkv_alloc_bytes's limit: the WebAssembly memory's maximum
const FLT_MAX = 3.4028234663852886e38;
const FLT_MIN = 2 ** -126;
const DIVERGENCE_FACTOR = 100;
const GUARD = 4;                 // guard words on each side of every buffer
const GUARD_BITS = 0x7fbadbad;   // a NaN no computation produces
const BUDGET = 1 << 16;          // entries per computed buffer (keeps a call well under 1 ms)
const WORK_BUDGET = 1 << 21;     // multiply-adds per computed call

/**
 * The functions build.sh exports to JavaScript: its EXPORTS list (the core's, `_name`), and its
 * KERNEL_EXPORTS but the unchecked kernels the core and the GPT module import (CORE_IMPORTS, GPT_KERNEL_IMPORTS) and the stack pointer,
 * named `_name` here too.
 */
export function exportedNames(buildSh) {
  const list = (name) => {
    const block = new RegExp(`\\n${name}=\\(([\\s\\S]*?)\\)`).exec(buildSh);
    if (!block) throw new Error(`build.sh: no ${name}=( … ) list`);
    return block[1].split(/\s+/).filter((word) => /^[_a-z]/i.test(word));
  };
  const internal = new Set([...list('CORE_IMPORTS'), ...list('GPT_KERNEL_IMPORTS'), '__stack_pointer']);
  const kernels = list('KERNEL_EXPORTS').filter((name) => !internal.has(name)).map((name) => `_${name}`);
  return [...list('EXPORTS'), ...kernels];
}

// ---- random choices ----

class Random {
  constructor(seed) { this.next = mulberry32(seed); }
  int(lo, hi) { return lo + Math.floor(this.next() * (hi - lo + 1)); }
  chance(p) { return this.next() < p; }
  pick(list) { return list[Math.floor(this.next() * list.length)]; }
  normal() {
    const u = 1 - this.next(), v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

const EDGE_SIZES = [-2147483648, -65536, -1, 0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 255, 256, 1023, 1024,
  1025, 4096, 8191, 8192, 8193, 65536, 65537, 2 ** 24 - 1, 2 ** 24, 2 ** 24 + 1, 2 ** 26 - 1, 2 ** 26,
  2 ** 26 + 1, 2 ** 30, 2147483647];
const SPECIAL_FLOATS = [0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 1.401298464324817e-45,
  -1.401298464324817e-45, 1e-40, 1.1754943508222875e-38, FLT_MAX, -FLT_MAX, 1e20, -1e20, 1e-20,
  65504, 1e38, 3e38];

/** A size: usually small, sometimes an edge of the contract. */
function size(r, small = 9) {
  if (r.chance(0.8)) return r.int(1, small);
  if (r.chance(0.5)) return r.pick(EDGE_SIZES);
  return r.int(-2147483648, 2147483647);
}

/** Values of one buffer: tame, with specials sprinkled in, huge, or subnormal. */
function floats(r, count, { finite = false } = {}) {
  const mode = r.pick(finite ? ['tame', 'tame', 'huge', 'tiny'] : ['tame', 'tame', 'tame', 'special', 'huge', 'tiny']);
  const scale = 10 ** r.int(-2, 2);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    if (mode === 'special' && r.chance(0.2)) out[i] = r.pick(SPECIAL_FLOATS);
    else if (mode === 'huge') out[i] = r.normal() * 10 ** r.int(15, 38);
    else if (mode === 'tiny') out[i] = r.normal() * 10 ** -r.int(36, 44);
    else out[i] = r.normal() * scale;
    if (finite && !Number.isFinite(out[i])) out[i] = 0;
  }
  if (mode === 'special' && count > 0 && r.chance(0.5)) out[r.int(0, count - 1)] = r.pick([NaN, Infinity, -Infinity]);
  return out;
}

/** A scale as JavaScript passes it (the C side receives Math.fround of it). */
function scaleValue(r) {
  if (r.chance(0.7)) return Math.abs(r.normal()) * 4 + 0.1;
  return r.pick([...SPECIAL_FLOATS, 1e-50, 1e39, 1e-30, 3.4028235e38]);
}

/** rows×cols entries when the contract accepts the shape, else 0 (as qkv_elements in errors.c). */
function elements(rows, cols) {
  if (!(rows > 0 && cols > 0 && rows <= MAX_SIDE && cols <= MAX_SIDE)) return 0;
  return rows * cols <= MAX_ELEMENTS ? rows * cols : 0;
}

function finiteAll(a) {
  for (let i = 0; i < a.length; i++) if (a[i] - a[i] !== 0) return false;  // NaN and ±Infinity
  return true;
}

// ---- the numpy-compatible generator, in JavaScript, for randn's reference ----

class MT19937 {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = this.mt[i - 1] ^ (this.mt[i - 1] >>> 30);
      this.mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = 624;
    this.hasGauss = false;
    this.gaussValue = 0;
  }
  u32() {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let i = 0; i < 624; i++) {
        const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
        mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
  double() {
    const a = this.u32() >>> 5, b = this.u32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }
  gauss() {
    if (this.hasGauss) {
      this.hasGauss = false;
      return this.gaussValue;
    }
    let x1, x2, r2;
    do {
      x1 = 2 * this.double() - 1;
      x2 = 2 * this.double() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * Math.log(r2)) / r2);
    this.gaussValue = f * x1;
    this.hasGauss = true;
    return f * x2;
  }
}

// ---- one instance of the module, with guarded buffers ----

class Failure extends Error {}

class Heap {
  constructor(core) {
    this.core = core;
    this.buffers = [];
  }
  get f32() { return this.core.HEAPF32; }
  get u32() { return this.core.HEAPU32; }
  get i32() { return this.core.HEAP32; }

  /** count 4-byte words with guards, filled with fill (else the guard pattern, or an int fill) */
  alloc(count, fill = null) {
    const base = this.core._malloc((count + 2 * GUARD) * 4);
    if (!base) throw new Failure(`harness: malloc of ${count} words failed`);
    const inner = base + GUARD * 4;
    const u32 = this.u32;
    for (let g = 0; g < GUARD; g++) {
      u32[(base >> 2) + g] = GUARD_BITS;
      u32[(inner >> 2) + count + g] = GUARD_BITS;
    }
    if (typeof fill === 'number') {
      this.i32.fill(fill, inner >> 2, (inner >> 2) + count);
    } else if (fill) {
      if (fill instanceof Float32Array) this.f32.set(fill, inner >> 2);
      else this.i32.set(fill, inner >> 2);
    } else {
      u32.fill(GUARD_BITS, inner >> 2, (inner >> 2) + count);  // untouched outputs stay this
    }
    this.buffers.push({ base, inner, count });
    return inner;
  }
  floats(ptr, count) { return this.f32.slice(ptr >> 2, (ptr >> 2) + count); }
  ints(ptr, count) { return this.i32.slice(ptr >> 2, (ptr >> 2) + count); }
  words(ptr, count) { return this.u32.slice(ptr >> 2, (ptr >> 2) + count); }

  /** every guard intact, else a Failure naming the buffer */
  checkGuards(label) {
    const u32 = this.u32;
    for (const { base, inner, count } of this.buffers) {
      for (let g = 0; g < GUARD; g++) {
        if (u32[(base >> 2) + g] !== GUARD_BITS || u32[(inner >> 2) + count + g] !== GUARD_BITS) {
          throw new Failure(`${label}: wrote outside a buffer of ${count} words at ${inner}`);
        }
      }
    }
  }
  freeAll() {
    for (const { base } of this.buffers) this.core._free(base);
    this.buffers = [];
  }
}

function expectStatus(label, got, allowed, detail = '') {
  const list = Array.isArray(allowed) ? allowed : [allowed];
  if (!list.includes(got)) {
    throw new Failure(`${label}: status ${got} (${STATUS_NAMES[got] ?? 'not a status'}), expected ` +
      `${list.map((s) => `${s} (${STATUS_NAMES[s]})`).join(' or ')}${detail ? `; ${detail}` : ''}`);
  }
}

function expectClose(label, actual, expected) {
  const bad = ref.compare(actual, expected);
  if (bad) {
    throw new Failure(`${label}: entry ${bad.at} is ${bad.actual}, reference ${bad.expected} ± ${bad.tol}`);
  }
}

function sameWords(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** After a refusal, outputs must be as they were (still the guard pattern). */
function untouched(heap, label, pointers) {
  for (const [ptr, count] of pointers) {
    if (!ptr) continue;
    const w = heap.words(ptr, count);
    if (!w.every((x) => x === GUARD_BITS)) throw new Failure(`${label}: refused, but wrote into an output`);
  }
}

// ---- the drivers: one per exported function (model functions in sequences) ----

/** Buffer sizes for a call: exact when valid and within budget, 4 words when refused, null when too big. */
function plan(shapes, valid) {
  if (!valid) return shapes.map(() => 4);
  if (shapes.some((n) => n > BUDGET)) return null;
  return shapes;
}

const DRIVERS = {
  _qkv_matmul(ctx) {
    const { r, heap, core } = ctx;
    const n = size(r), k = size(r), m = size(r);
    const valid = elements(n, k) && elements(k, m) && elements(n, m);
    const counts = plan([n * m, n * k, k * m], valid);
    const nullAt = r.chance(0.05) ? r.int(0, 2) : -1;
    if (!counts || (valid && n * k * m > WORK_BUDGET)) {
      return expectStatus('matmul (too large to run)', ctx.k.qkv_matmul(0, 0, 0, n, k, m), STATUS.NULL);
    }
    const A = floats(r, counts[1]), B = floats(r, counts[2]);
    const out = nullAt === 0 ? 0 : heap.alloc(counts[0]);
    const pa = nullAt === 1 ? 0 : heap.alloc(counts[1], A), pb = nullAt === 2 ? 0 : heap.alloc(counts[2], B);
    const status = ctx.k.qkv_matmul(out, pa, pb, n, k, m);
    const label = `matmul(${n}, ${k}, ${m})`;
    ctx.inputsUnchanged(label, [[pa, A], [pb, B]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, counts[0]]]); }
    if (!finiteAll(A) || !finiteAll(B)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, [[out, counts[0]]]); }
    const expected = ref.matmul(A, B, n, k, m);
    const mayOverflow = expected.absMax >= FLT_MAX / 4;
    expectStatus(label, status, mayOverflow ? [STATUS.OK, STATUS.OVERFLOW] : STATUS.OK, `largest |term| sum ${expected.absMax}`);
    if (status === STATUS.OK) expectClose(label, heap.floats(out, n * m), expected);
  },

  _qkv_transpose(ctx) {
    const { r, heap, core } = ctx;
    const rows = size(r), cols = size(r);
    const valid = elements(rows, cols);
    const counts = plan([rows * cols, rows * cols], valid);
    if (!counts) return expectStatus('transpose (too large)', ctx.k.qkv_transpose(0, 0, rows, cols), STATUS.NULL);
    const A = floats(r, counts[1]);
    const nullAt = r.chance(0.05) ? r.int(0, 1) : -1;
    const pa = nullAt === 1 ? 0 : heap.alloc(counts[1], A);
    const alias = valid && nullAt < 0 && r.chance(0.05);
    const out = nullAt === 0 ? 0 : alias ? pa : heap.alloc(counts[0]);
    const label = `transpose(${rows}, ${cols})${alias ? ' in place' : ''}`;
    const status = ctx.k.qkv_transpose(out, pa, rows, cols);
    if (!alias) ctx.inputsUnchanged(label, [[pa, A]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, counts[0]]]); }
    if (alias) { expectStatus(label, status, STATUS.ARGUMENT); return ctx.inputsUnchanged(label, [[pa, A]]); }
    if (!finiteAll(A)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, [[out, counts[0]]]); }
    expectStatus(label, status, STATUS.OK);
    // exact, bit for bit (−0 and subnormals included)
    const got = heap.words(out, rows * cols), want = new Uint32Array(rows * cols);
    const bits = new Uint32Array(A.buffer);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) want[j * rows + i] = bits[i * cols + j];
    if (!sameWords(got, want)) throw new Failure(`${label}: not the transpose`);
  },

  _qkv_softmax_rows(ctx) {
    const { r, heap, core } = ctx;
    const rows = size(r), cols = size(r);
    const valid = elements(rows, cols);
    const counts = plan([rows * cols, rows * cols], valid);
    if (!counts) return expectStatus('softmax_rows (too large)', ctx.k.qkv_softmax_rows(0, 0, rows, cols), STATUS.NULL);
    const S = floats(r, counts[1]);
    if (r.chance(0.3)) for (let i = 0; i < S.length; i++) if (r.chance(0.3)) S[i] = -Infinity;  // masks
    if (valid && r.chance(0.1)) S.fill(-Infinity, 0, cols);  // a fully masked row
    const nullAt = r.chance(0.05) ? r.int(0, 1) : -1;
    const out = nullAt === 0 ? 0 : heap.alloc(counts[0]);
    const ps = nullAt === 1 ? 0 : heap.alloc(counts[1], S);
    const label = `softmax_rows(${rows}, ${cols})`;
    const status = ctx.k.qkv_softmax_rows(out, ps, rows, cols);
    ctx.inputsUnchanged(label, [[ps, S]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, counts[0]]]); }
    if (S.some((x) => Number.isNaN(x) || x === Infinity)) {
      expectStatus(label, status, STATUS.NONFINITE);
      return untouched(heap, label, [[out, counts[0]]]);
    }
    const expected = ref.softmaxRows(S, rows, cols);
    if (!expected) return expectStatus(label, status, STATUS.MASKED_ROW);
    expectStatus(label, status, STATUS.OK);
    expectClose(label, heap.floats(out, rows * cols), expected);
  },

  _qkv_attention_forward(ctx) { attentionCall(ctx, false); },
  // keep: which of scores (1) and weights (2) are whole results; one not kept is 4 rows of work
  // space (4 * n_k floats); anything else is refused with QKV_ERR_ARGUMENT
  _qkv_attention_forward_keep(ctx) { attentionCall(ctx, false, ctx.r.pick([0, 1, 2, 3, 0, 3, 4, -1, 7])); },
  _qkv_attention_backward(ctx) { attentionCall(ctx, true); },

  _qkv_self_attention_forward(ctx) {
    const { r, heap, core } = ctx;
    const n = size(r, 7), d = size(r, 7), dk = size(r, 7), dv = size(r, 7);
    const scale = scaleValue(r), causal = r.pick([0, 1, 1, 2, -1]);
    const valid = elements(n, d) && elements(d, dk) && elements(d, dv) && elements(n, dk) && elements(n, dv) && elements(n, n);
    // Q, K, V, scores, weights, output, X, Wq, Wk, Wv
    const counts = plan([n * dk, n * dk, n * dv, n * n, n * n, n * dv, n * d, d * dk, d * dk, d * dv], valid);
    const label = `self_attention_forward(n ${n}, d ${d}, d_k ${dk}, d_v ${dv}, scale ${scale}, causal ${causal})`;
    if (!counts || (valid && n * d * (2 * dk + dv) + n * n * (dk + dv) > WORK_BUDGET)) {
      const status = ctx.k.qkv_self_attention_forward(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n, d, dk, dv, scale, causal);
      return expectStatus(label, status, STATUS.NULL);
    }
    const X = floats(r, counts[6]), Wq = floats(r, counts[7]), Wk = floats(r, counts[8]), Wv = floats(r, counts[9]);
    const nullAt = r.chance(0.05) ? r.int(0, 9) : -1;
    const ptrs = counts.map((c, i) => (i === nullAt ? 0 : heap.alloc(c, [null, null, null, null, null, null, X, Wq, Wk, Wv][i])));
    const status = ctx.k.qkv_self_attention_forward(...ptrs, n, d, dk, dv, scale, causal);
    ctx.inputsUnchanged(label, [[ptrs[6], X], [ptrs[7], Wq], [ptrs[8], Wk], [ptrs[9], Wv]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    const outputs = ptrs.slice(0, 6).map((p, i) => [p, counts[i]]);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, outputs); }
    if (![X, Wq, Wk, Wv].every(finiteAll)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, outputs); }
    const s = Math.fround(scale);
    const badScale = !(s >= FLT_MIN) || !Number.isFinite(s);
    const expected = ref.selfAttention(X, Wq, Wk, Wv, n, d, dk, dv, badScale ? 1 : s, causal !== 0);
    const qkvOverflow = Math.max(expected.Q.absMax, expected.K.absMax, expected.V.absMax) >= FLT_MAX / 4;
    if (expected.overflow) {
      // the exact Q, K or V is beyond float32: C's float32 one is Infinity, or just below
      return expectStatus(label, status, [STATUS.OVERFLOW, STATUS.ARGUMENT, STATUS.OK]);
    }
    // the C side's order: Q, K, V (overflow?), then the scale, then attention (overflow?)
    const allowed = [];
    if (qkvOverflow) allowed.push(STATUS.OVERFLOW);
    if (badScale) allowed.push(STATUS.ARGUMENT);
    else {
      allowed.push(STATUS.OK);
      if (expected.scores.absMax >= FLT_MAX / 4 || expected.output.absMax >= FLT_MAX / 4) allowed.push(STATUS.OVERFLOW);
    }
    expectStatus(label, status, allowed);
    if (status !== STATUS.OK) return;
    const get = (i, c) => heap.floats(ptrs[i], c);
    expectClose(`${label} Q`, get(0, n * dk), expected.Q);
    expectClose(`${label} K`, get(1, n * dk), expected.K);
    expectClose(`${label} V`, get(2, n * dv), expected.V);
    expectClose(`${label} scores`, get(3, n * n), expected.scores);
    expectClose(`${label} weights`, get(4, n * n), expected.weights);
    expectClose(`${label} output`, get(5, n * dv), expected.output);
  },

  _qkv_positional_encoding(ctx) {
    const { r, heap, core } = ctx;
    const far = r.chance(0.1);
    const n = far ? r.pick([2 ** 20 - 1, 2 ** 20, 2 ** 20 + 1, 1000000]) : size(r), d = far ? 1 : size(r);
    const base = r.chance(0.7) ? r.pick([10000, 10000, 2, 100, 1e6]) * (r.chance(0.5) ? 1 : 1 + r.next())
      : r.pick([1, 1 + 2 ** -52, 0.5, 0, -0, -10000, NaN, Infinity, -Infinity, 1e300, Number.MAX_VALUE, 5e-324]);
    // (n near 2^20 with d small enough for the budget: the largest angles, where sin and cos are hardest)
    const valid = elements(n, d) && n <= 2 ** 20;
    const label = `positional_encoding(n ${n}, d ${d}, base ${base})`;
    const count = valid ? n * d : 4;
    if (count > (far ? 2 ** 20 : BUDGET)) return expectStatus(`${label} (too large)`, core._qkv_positional_encoding(0, n, d, base), STATUS.NULL);
    const out = r.chance(0.05) ? 0 : heap.alloc(count);
    const status = core._qkv_positional_encoding(out, n, d, base);
    if (!out) return expectStatus(label, status, STATUS.NULL);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, count]]); }
    if (!(base > 1) || !Number.isFinite(base)) { expectStatus(label, status, STATUS.ARGUMENT); return untouched(heap, label, [[out, count]]); }
    expectStatus(label, status, STATUS.OK);
    expectClose(label, heap.floats(out, count), ref.positionalEncoding(n, d, base));
  },

  _qkv_multi_head_attention_forward(ctx) {
    const { r, heap } = ctx;
    const n = size(r, 6), d = size(r, 6), heads = size(r, 4), dk = size(r, 4), dout = size(r, 6);
    // d_model usually heads·d_k (as an int32, as C receives it), sometimes anything
    const dm = r.chance(0.85) ? Math.imul(heads, dk) : size(r, 9);
    const scale = scaleValue(r), causal = r.pick([0, 0, 1, 2, -1]);
    const nn = elements(n, n);
    const validSize = elements(n, d) && elements(d, dm) && elements(n, dm) && elements(dm, dout) &&
      elements(n, dout) && nn && heads > 0 && heads <= dm && nn <= Math.floor(MAX_ELEMENTS / heads);
    const valid = validSize && dm % heads === 0;
    // head Q, K, V, scores, weights, head outputs, concat, output | X, Wq, Wk, Wv, Wo
    const shapes = [n * dm, n * dm, n * dm, heads * n * n, heads * n * n, n * dm, n * dm, n * dout,
      n * d, d * dm, d * dm, d * dm, dm * dout];
    const counts = plan(shapes, validSize);
    const label = `multi_head_attention_forward(n ${n}, d ${d}, d_model ${dm}, heads ${heads}, d_out ${dout}, scale ${scale}, causal ${causal})`;
    if (!counts || (validSize && 3 * n * d * dm + 2 * n * n * dm + n * dm * dout > WORK_BUDGET)) {
      const status = ctx.core._qkv_multi_head_attention_forward(...shapes.map(() => 0), n, d, dm, heads, dout, scale, causal);
      return expectStatus(`${label} (too large)`, status, STATUS.NULL);
    }
    const [X, Wq, Wk, Wv, Wo] = counts.slice(8).map((c) => floats(r, c));
    const inputs = [null, null, null, null, null, null, null, null, X, Wq, Wk, Wv, Wo];
    const nullAt = r.chance(0.05) ? r.int(0, shapes.length - 1) : -1;
    const ptrs = counts.map((c, i) => (i === nullAt ? 0 : heap.alloc(c, inputs[i])));
    const status = ctx.core._qkv_multi_head_attention_forward(...ptrs, n, d, dm, heads, dout, scale, causal);
    ctx.inputsUnchanged(label, [8, 9, 10, 11, 12].map((i) => [ptrs[i], inputs[i]]));
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    const outputs = ptrs.slice(0, 8).map((p, i) => [p, counts[i]]);
    if (!validSize) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, outputs); }
    if (!valid) { expectStatus(label, status, STATUS.SHAPE); return untouched(heap, label, outputs); }
    const s = Math.fround(scale);
    if (!(s >= FLT_MIN) || !Number.isFinite(s)) { expectStatus(label, status, STATUS.ARGUMENT); return untouched(heap, label, outputs); }
    if (![X, Wq, Wk, Wv, Wo].every(finiteAll)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, outputs); }
    const e = ref.multiHeadAttention(X, Wq, Wk, Wv, n, d, dm, heads, s, causal !== 0);
    // the exact Q, K or V beyond float32: C's is Infinity (refused), or just below it
    if (e.overflow) return expectStatus(label, status, [STATUS.OVERFLOW, STATUS.OK]);
    // a product near float32's max may overflow in float32 partial sums: OVERFLOW is then allowed,
    // and only then (in a head, or in concat·Wo of the concat the C side wrote)
    const near = (x) => x >= FLT_MAX / 4;
    const risky = e.heads.some((h) => [h.Q, h.K, h.V, h.scores, h.output].some((m) => near(m.absMax)));
    expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
    if (status !== STATUS.OK) {
      if (!risky && !near(ref.matmul(heap.floats(ptrs[6], n * dm), Wo, n, dm, dout).absMax)) {
        throw new Failure(`${label}: OVERFLOW, but every product stays far below float32's max`);
      }
      return;
    }
    const dkh = dm / heads;
    e.heads.forEach((h, k) => {
      const part = (b, cols) => heap.floats(ptrs[b] + 4 * k * n * cols, n * cols);
      expectClose(`${label} head ${k} Q`, part(0, dkh), h.Q);
      expectClose(`${label} head ${k} K`, part(1, dkh), h.K);
      expectClose(`${label} head ${k} V`, part(2, dkh), h.V);
      expectClose(`${label} head ${k} scores`, part(3, n), h.scores);
      expectClose(`${label} head ${k} weights`, part(4, n), h.weights);
      expectClose(`${label} head ${k} output`, part(5, dkh), h.output);
    });
    const concat = heap.floats(ptrs[6], n * dm);
    expectClose(`${label} concat`, concat, e.concat);
    expectClose(`${label} output`, heap.floats(ptrs[7], n * dout), ref.matmul(concat, Wo, n, dm, dout));
  },

  _qkv_rng_size(ctx) {
    const bytes = ctx.core._qkv_rng_size();
    if (bytes !== ctx.rngBytes || bytes < 624 * 4) throw new Failure(`rng_size: ${bytes}`);
  },

  _qkv_rng_seed(ctx) { rngCall(ctx, false); },
  _qkv_rng_randn(ctx) { rngCall(ctx, true); },

  _qkv_error_message(ctx) {
    const { r, core } = ctx;
    const status = r.chance(0.7) ? r.int(-2, 12) : r.int(-2147483648, 2147483647);
    const text = core.UTF8ToString(core._qkv_error_message(status));
    const known = status >= 0 && status <= 10;
    if (!text || (known ? text === 'unknown status code' : text !== 'unknown status code')) {
      throw new Failure(`error_message(${status}): ${JSON.stringify(text)}`);
    }
  },

  _qkv_alloc_floats(ctx) { allocCall(ctx, '_qkv_alloc_floats', (n) => n > 0 && n <= MAX_ELEMENTS, 4); },
  _qkv_alloc_bytes(ctx) { allocCall(ctx, '_qkv_alloc_bytes', (n) => n > 0 && n <= MAX_BYTES, 1); },
  _malloc(ctx) { allocCall(ctx, '_malloc', (n) => n > 0 && n <= MAX_BYTES, 1, true); },
  _qkv_free(ctx) { ctx.core._qkv_free(0); },
  _free(ctx) { ctx.core._free(0); },

  _qkv_heap_used(ctx) {
    const used = ctx.core._qkv_heap_used();
    if (!Number.isInteger(used) || used < 0) throw new Failure(`heap_used: ${used}`);
  },

  _qkv_model_create: (ctx) => modelSequence(ctx),
};

// the GPT engine's LayerNorm, GELU, Transformer block and GPT (wasm/gpt.c; the drivers are in
// tests/fuzz/gpt-drivers.js)
const GPT = gptDrivers({ STATUS, Failure, expectStatus, untouched, elements, floats, size, finiteAll, SPECIAL_FLOATS,
  MAX_ELEMENTS, BUDGET, WORK_BUDGET });
Object.assign(DRIVERS, GPT.drivers);

// the model's (and the GPT's) other functions run inside their sequences; they count as driven
// when the sequence calls them
const MODEL_FUNCTIONS = ['_qkv_model_destroy', '_qkv_model_set_optimizer', '_qkv_model_tensor',
  '_qkv_model_num_params', '_qkv_model_forward', '_qkv_model_loss_and_grad', '_qkv_model_loss_and_grad_range', '_qkv_model_update',
  '_qkv_model_shuffle', '_qkv_model_sentence_losses', '_qkv_model_state_bytes', '_qkv_model_save_state',
  '_qkv_model_load_state', ...GPT.sequenceFunctions];

function attentionCall(ctx, backward, keep) {
  const { r, heap, core } = ctx;
  const nq = size(r, 7), nk = r.chance(0.7) ? nq : size(r, 7), dk = size(r, 7), dv = size(r, 7);
  const scale = scaleValue(r), causal = r.pick([0, 0, 1, 2, -1]);
  const valid = elements(nq, dk) && elements(nk, dk) && elements(nk, dv) && elements(nq, nk) && elements(nq, dv);
  const withKeep = keep !== undefined, keepValid = !withKeep || (keep >= 0 && keep <= 3);
  const keptScores = !withKeep || (keep & 1) !== 0, keptWeights = !withKeep || (keep & 2) !== 0;
  const name = backward ? 'attention_backward' : withKeep ? `attention_forward_keep(keep ${keep})` : 'attention_forward';
  const label = `${name}(n_q ${nq}, n_k ${nk}, d_k ${dk}, d_v ${dv}, scale ${scale}, causal ${causal})`;
  // forward: scores, weights, output, Q, K, V; backward: dQ, dK, dV, dscores, doutput, Q, K, V, weights
  const shapes = backward ? [nq * dk, nk * dk, nk * dv, nq * nk, nq * dv, nq * dk, nk * dk, nk * dv, nq * nk]
    : [keptScores || !keepValid ? nq * nk : 4 * nk, keptWeights || !keepValid ? nq * nk : 4 * nk, nq * dv, nq * dk, nk * dk, nk * dv];
  const counts = plan(shapes, valid);
  const fn = backward ? ctx.k.qkv_attention_backward
    : withKeep ? (...args) => ctx.k.qkv_attention_forward_keep(...args, keep) : ctx.k.qkv_attention_forward;
  if (!counts || (valid && nq * nk * (dk + dv) * (backward ? 3 : 1) > WORK_BUDGET)) {
    return expectStatus(`${label} (too large)`, fn(...shapes.map(() => 0), nq, nk, dk, dv, scale, causal), STATUS.NULL);
  }
  const Q = floats(r, counts[backward ? 5 : 3]), K = floats(r, counts[backward ? 6 : 4]), V = floats(r, counts[backward ? 7 : 5]);
  let inputs, outputs;
  let dO, W, dQ0, dK0, dV0;
  if (backward) {
    dO = floats(r, counts[4]);
    W = floats(r, counts[8], { finite: r.chance(0.8) });
    if (r.chance(0.5)) for (let i = 0; i < W.length; i++) W[i] = Math.abs(W[i]) % 1;  // weight-like
    dQ0 = floats(r, counts[0], { finite: true }); dK0 = floats(r, counts[1], { finite: true }); dV0 = floats(r, counts[2], { finite: true });
    if (r.chance(0.5)) { dQ0.fill(0); dK0.fill(0); dV0.fill(0); }
    inputs = [dQ0, dK0, dV0, null, dO, Q, K, V, W];
  } else {
    inputs = [null, null, null, Q, K, V];
  }
  const nullAt = r.chance(0.05) ? r.int(0, shapes.length - 1) : -1;
  const ptrs = counts.map((c, i) => (i === nullAt ? 0 : heap.alloc(c, inputs[i])));
  const status = fn(...ptrs, nq, nk, dk, dv, scale, causal);
  const readOnly = backward ? [4, 5, 6, 7, 8] : [3, 4, 5];
  ctx.inputsUnchanged(label, readOnly.map((i) => [ptrs[i], inputs[i]]));
  if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
  outputs = (backward ? [0, 1, 2, 3] : [0, 1, 2]).map((i) => [ptrs[i], counts[i]]);
  if (!keepValid) { expectStatus(label, status, STATUS.ARGUMENT); return untouched(heap, label, outputs); }
  const keepAccumulators = () => {
    if (!backward) return untouched(heap, label, outputs);
    ctx.inputsUnchanged(`${label} (refused)`, [[ptrs[0], dQ0], [ptrs[1], dK0], [ptrs[2], dV0]]);
    return untouched(heap, label, [[ptrs[3], counts[3]]]);
  };
  if (!valid) { expectStatus(label, status, STATUS.SIZE); return keepAccumulators(); }
  const s = Math.fround(scale);
  if (!(s >= FLT_MIN) || !Number.isFinite(s)) { expectStatus(label, status, STATUS.ARGUMENT); return keepAccumulators(); }
  if (causal !== 0 && nq > nk) { expectStatus(label, status, STATUS.SHAPE); return keepAccumulators(); }
  const finiteIn = [Q, K, V].every(finiteAll) && (!backward || [dO, W, dQ0, dK0, dV0].every(finiteAll));
  if (!finiteIn) { expectStatus(label, status, STATUS.NONFINITE); return keepAccumulators(); }
  if (!backward) {
    const expected = ref.attention(Q, K, V, nq, nk, dk, dv, s, causal !== 0);
    const mayOverflow = Math.max(expected.scores.absMax, expected.output.absMax) >= FLT_MAX / 4;
    expectStatus(label, status, mayOverflow ? [STATUS.OK, STATUS.OVERFLOW] : STATUS.OK, `largest sum ${expected.scores.absMax}`);
    if (status !== STATUS.OK) return;
    if (keptScores) expectClose(`${label} scores`, heap.floats(ptrs[0], nq * nk), expected.scores);
    if (keptWeights) expectClose(`${label} weights`, heap.floats(ptrs[1], nq * nk), expected.weights);
    expectClose(`${label} output`, heap.floats(ptrs[2], nq * dv), expected.output);
    if (causal !== 0 && keptWeights) {
      const w = heap.floats(ptrs[1], nq * nk);
      for (let i = 0; i < nq; i++) for (let j = i + 1; j < nk; j++) {
        if (w[i * nk + j] !== 0) throw new Failure(`${label}: causal weight [${i}][${j}] is ${w[i * nk + j]}`);
      }
    }
    return;
  }
  const expected = ref.attentionBackward(dO, Q, K, V, W, nq, nk, dk, dv, s, dQ0, dK0, dV0);
  const big = Math.max(expected.dscores.absMax, expected.dQ.absMax, expected.dK.absMax, expected.dV.absMax);
  expectStatus(label, status, big >= FLT_MAX / 4 ? [STATUS.OK, STATUS.OVERFLOW] : STATUS.OK, `largest sum ${big}`);
  if (status !== STATUS.OK) return;
  expectClose(`${label} dQ`, heap.floats(ptrs[0], nq * dk), expected.dQ);
  expectClose(`${label} dK`, heap.floats(ptrs[1], nk * dk), expected.dK);
  expectClose(`${label} dV`, heap.floats(ptrs[2], nk * dv), expected.dV);
  expectClose(`${label} dscores`, heap.floats(ptrs[3], nq * nk), expected.dscores);
}

function rngCall(ctx, draw) {
  const { r, heap, core } = ctx;
  const seed = r.chance(0.8) ? r.int(0, 0xffffffff) : r.pick([0, 1, 42, 0xffffffff, -1, 2 ** 31]);
  const state = r.chance(0.05) ? 0 : heap.alloc(ctx.rngBytes >> 2);
  const status = core._qkv_rng_seed(state, seed);
  if (!state) return expectStatus('rng_seed(null)', status, STATUS.NULL);
  expectStatus(`rng_seed(${seed})`, status, STATUS.OK);
  if (!draw) return;
  const twin = new MT19937(seed);
  const corrupt = r.chance(0.1);
  if (corrupt) {
    // a state copied in from outside: garbage index, flag and cached value must not trap
    const words = ctx.rngBytes >> 2;
    for (let i = 0; i < 8; i++) heap.u32[(state >> 2) + r.int(0, words - 1)] = r.int(0, 0xffffffff);
    heap.i32[(state >> 2) + 624] = r.pick([-5, 623, 624, 625, 100000, -2147483648, 2147483647]);
  }
  for (let call = 0; call < r.int(1, 3); call++) {
    const rows = size(r), cols = size(r);
    const valid = elements(rows, cols);
    const count = valid ? rows * cols : 4;
    const label = `rng_randn(${rows}, ${cols})${corrupt ? ' from a corrupted state' : ''}`;
    if (count > BUDGET) { expectStatus(label, core._qkv_rng_randn(state, 0, rows, cols), STATUS.NULL); continue; }
    const out = heap.alloc(count);
    const status = core._qkv_rng_randn(state, out, rows, cols);
    if (!valid) { expectStatus(label, status, STATUS.SIZE); untouched(heap, label, [[out, count]]); continue; }
    expectStatus(label, status, STATUS.OK);
    if (corrupt) continue;
    const got = heap.floats(out, count);
    for (let i = 0; i < count; i++) {
      const want = Math.fround(twin.gauss());
      // log and sqrt may differ by an ulp between libm and V8: a float32 ulp or two at most
      if (!(Math.abs(got[i] - want) <= 4 * 2 ** -23 * Math.max(1, Math.abs(want)))) {
        throw new Failure(`${label}: entry ${i} is ${got[i]}, numpy's stream gives ${want} (seed ${seed})`);
      }
    }
  }
}

function allocCall(ctx, name, valid, align, raw = false) {
  const { r, core } = ctx;
  // (sizes above a few MiB only where the call must refuse them: WASM memory never shrinks)
  const edges = raw ? [-2147483648, -1, 0, 1, 1 << 20, 2147483647]  // (malloc has no limit of its own)
    : [-2147483648, -1, 0, 1, 1 << 20, MAX_ELEMENTS + 1, MAX_BYTES + 1, 2 ** 30, 2147483647].filter((x) => !valid(x) || x <= 1 << 20);
  const n = r.chance(0.6) ? r.int(-4, 4096) : r.pick(edges);
  const ptr = core[name](n);
  const ok = valid(n);
  if (!raw && !ok && ptr !== 0) throw new Failure(`${name}(${n}) allocated ${ptr}; the limit refuses it`);
  if (raw && n <= 0 && ptr !== 0) { core._free(ptr); return; }  // malloc(0) may return a pointer
  if (ok && ptr === 0) throw new Failure(`${name}(${n}) returned null`);
  if (ptr % align !== 0 || ptr % 8 !== 0) throw new Failure(`${name}(${n}) returned ${ptr}, not 8-byte aligned`);
  if (ptr) core._qkv_free(ptr);
}

// ---- model sequences ----

function modelSequence(ctx) {
  const { r, heap, core, count } = ctx;
  const pick = (small) => (r.chance(0.85) ? r.int(1, small) : r.pick(EDGE_SIZES));
  const V = r.chance(0.9) ? r.int(2, 30) : pick(30), d = pick(12), L = r.chance(0.2) ? r.pick([2, 1025, 4097, 8193]) : pick(10);
  const seed = r.int(0, 0xffffffff);
  const label = `model_create(V ${V}, d ${d}, L ${L})`;
  let valid = V >= 2 && d > 0 && L > 0 && elements(V, d) && elements(L, V) && elements(L, L) && elements(L, d) && elements(d, d);
  if (valid) {
    const params = 2 * V * d + 3 * d * d + V, Ld = L * d, LL = L * L, LV = L * V;
    if (params > MAX_ELEMENTS || 6 * Ld + 2 * LL + 2 * LV > MAX_ELEMENTS || 5 * Ld + LL + LV > MAX_ELEMENTS) valid = 0;
  }
  const bytes = valid ? 4 * (7 * (2 * V * d + 3 * d * d + V) + 12 * L * d + 3 * L * L + 3 * L * V) : 0;
  if (valid && bytes > 16 << 20) {
    expectStatus(`${label} (too large to run)`, core._qkv_model_create(0, V, d, L, seed), STATUS.NULL);
    return;
  }
  const slot = heap.alloc(1, new Int32Array([12345]));
  if (r.chance(0.03)) return expectStatus(label, core._qkv_model_create(0, V, d, L, seed), STATUS.NULL);
  const status = core._qkv_model_create(slot, V, d, L, seed);
  const m = heap.i32[slot >> 2];
  if (!valid) {
    expectStatus(label, status, STATUS.SIZE);
    if (m !== 0) throw new Failure(`${label}: refused but *out is ${m}`);
    return;
  }
  expectStatus(label, status, [STATUS.OK, STATUS.ALLOC]);
  if (status !== STATUS.OK) return;
  const state = { V, d, L, lastN: 0, lastLoss: 0, lossOk: true, optimizer: 0, lastBatch: null, gradsZero: true };
  try {
    const steps = r.int(1, 24);
    for (let step = 0; step < steps; step++) {
      const op = r.pick(['set_optimizer', 'tensor', 'num_params', 'forward', 'loss', 'loss', 'loss', 'ranges', 'update', 'update', 'shuffle',
        'sentence_losses', 'state', 'poke']);
      const t0 = performance.now();
      try {
        MODEL_OPS[op](ctx, m, state);
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) error.message += ` (in the model's ${op}, V ${V}, d ${d}, L ${L})`;
        throw error;
      }
      if (ctx.timing) ctx.timing[op] = (ctx.timing[op] || 0) + performance.now() - t0;
      heap.checkGuards(`${label} after ${op}`);
    }
  } finally {
    count('_qkv_model_destroy');
    core._qkv_model_destroy(m);
    if (r.chance(0.1)) core._qkv_model_destroy(0);
  }
}

function tensorOf(ctx, m, group, which) {
  const { heap, core } = ctx;
  const slots = heap.alloc(3);
  const status = core._qkv_model_tensor(m, group, which, slots, slots + 4, slots + 8);
  if (status !== STATUS.OK) return { status };
  const [ptr, rows, cols] = heap.ints(slots, 3);
  return { status, ptr, rows, cols };
}

function paramsOf(ctx, m, state) {
  const t = tensorOf(ctx, m, 0, 0);
  const total = 2 * state.V * state.d + 3 * state.d * state.d + state.V;
  return { ptr: t.ptr, count: total, values: ctx.heap.floats(t.ptr, total) };
}

const MODEL_OPS = {
  set_optimizer(ctx, m, state) {
    const { r, core, count } = ctx;
    count('_qkv_model_set_optimizer');
    const optimizer = r.pick([0, 1, 1, 2, -1]);
    const lr = r.chance(0.7) ? 10 ** (r.next() * 6 - 4) : r.pick([...SPECIAL_FLOATS, 1e39, 1e-50]);
    const b1 = r.chance(0.8) ? r.next() : r.pick([0, 1, 0.99999999999, -0.1, NaN, 2]);
    const b2 = r.chance(0.8) ? r.next() : r.pick([0, 1, 0.99999999999, -0.1, NaN]);
    const eps = r.chance(0.8) ? 10 ** (-r.int(1, 12)) : r.pick([0, -1, 1e-50, NaN, Infinity, 1.4e-45]);
    const f = Math.fround;
    const ok = (optimizer === 0 || optimizer === 1) && Number.isFinite(f(lr)) && f(lr) > 0 &&
      f(b1) >= 0 && f(b1) < 1 && f(b2) >= 0 && f(b2) < 1 && Number.isFinite(f(eps)) && f(eps) > 0;
    const status = core._qkv_model_set_optimizer(m, optimizer, lr, b1, b2, eps);
    expectStatus(`set_optimizer(${optimizer}, lr ${lr}, ${b1}, ${b2}, eps ${eps})`, status, ok ? STATUS.OK : STATUS.ARGUMENT);
    if (ok) state.optimizer = optimizer;
    if (r.chance(0.05)) expectStatus('set_optimizer(null)', core._qkv_model_set_optimizer(0, 0, 0.1, 0.9, 0.9, 1e-8), STATUS.NULL);
  },

  tensor(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_tensor');
    const group = r.pick([0, 1, 2, 3, 3, -1, 4]), which = r.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]);
    if (r.chance(0.05)) return expectStatus('tensor(null slots)', core._qkv_model_tensor(m, group, which, 0, 0, 0), STATUS.NULL);
    const t = tensorOf(ctx, m, group, which);
    const { V, d, L, lastN: n } = state;
    const label = `tensor(${group}, ${which})`;
    let shape = null;
    if (group === 0 || group === 1) shape = [[V, d], [d, d], [d, d], [d, d], [d, V], [1, V]][which] ?? null;
    else if (group === 2) shape = [L, d];
    else if (group === 3 && n > 0) shape = [[n, d], [n, d], [n, d], [n, d], [n, n], [n, n], [n, d], [n, d], [n, V], [n, V]][which] ?? null;
    if (group === 3 && n === null && which >= 0 && which <= 9) {
      // after a diverged forward the activations may or may not be there; if they are, n rows
      expectStatus(label, t.status, [STATUS.OK, STATUS.ARGUMENT]);
      return;
    }
    expectStatus(label, t.status, shape ? STATUS.OK : STATUS.ARGUMENT);
    if (shape && (t.rows !== shape[0] || t.cols !== shape[1] || t.ptr <= 0 || t.ptr % 4 !== 0 ||
        t.ptr + 4 * t.rows * t.cols > heap.core.HEAPU8.length)) {
      throw new Failure(`${label}: ${t.rows}×${t.cols} at ${t.ptr}, expected ${shape.join('×')}`);
    }
    if (shape && group === 3 && which === 9) {  // probabilities: rows sum to 1
      const probs = heap.floats(t.ptr, t.rows * t.cols);
      for (let i = 0; i < t.rows; i++) {
        let sum = 0;
        for (let j = 0; j < t.cols; j++) {
          const p = probs[i * t.cols + j];
          if (!(p >= 0 && p <= 1)) throw new Failure(`${label}: probability ${p}`);
          sum += p;
        }
        if (Math.abs(sum - 1) > 1e-4) throw new Failure(`${label}: row ${i} sums to ${sum}`);
      }
    }
  },

  num_params(ctx, m, state) {
    ctx.count('_qkv_model_num_params');
    const got = ctx.core._qkv_model_num_params(m), want = 2 * state.V * state.d + 3 * state.d * state.d + state.V;
    if (got !== want) throw new Failure(`num_params: ${got}, expected ${want}`);
    if (ctx.core._qkv_model_num_params(0) !== 0) throw new Failure('num_params(null) is not 0');
  },

  forward(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_forward');
    const n = r.chance(0.85) ? r.int(1, state.L) : r.pick([0, -1, state.L + 1, 2147483647]);
    const tokens = Int32Array.from({ length: n > 0 && n <= state.L ? n : 4 }, () => (r.chance(0.97) ? r.int(0, state.V - 1) : r.pick([-1, state.V, 2147483647])));
    const p = heap.alloc(tokens.length, tokens);
    const status = core._qkv_model_forward(m, p, n);
    const label = `forward(n ${n})`;
    ctx.inputsUnchanged(label, [[p, tokens]]);
    if (!(n > 0 && n <= state.L)) return expectStatus(label, status, STATUS.SIZE);
    if (tokens.some((t) => t < 0 || t >= state.V)) return expectStatus(label, status, STATUS.TOKEN);
    const params = paramsOf(ctx, m, state);
    if (!finiteAll(params.values)) return expectStatus(label, status, STATUS.NONFINITE);
    expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
    state.lastN = status === STATUS.OK ? n : null;
    if (status === STATUS.OK) MODEL_OPS.tensorProbs(ctx, m, state);
  },

  tensorProbs(ctx, m, state) {
    const t = tensorOf(ctx, m, 3, 9);
    expectStatus('tensor(probs)', t.status, STATUS.OK);
    const probs = ctx.heap.floats(t.ptr, t.rows * t.cols);
    for (let i = 0; i < t.rows; i++) {
      let sum = 0;
      for (let j = 0; j < t.cols; j++) sum += probs[i * t.cols + j];
      if (!(Math.abs(sum - 1) <= 1e-4)) throw new Failure(`forward: probabilities of row ${i} sum to ${sum}`);
    }
  },

  loss(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_loss_and_grad');
    const { L, V } = state;
    // lengths: usually a small valid batch; sometimes counts and lengths meant to overflow a
    // 32-bit sum (2^22 sentences of 1,024 tokens sum to exactly 2^32)
    let sentences, fill = null, lengths = null;
    const pattern = r.next();
    if (pattern < 0.9) {
      sentences = r.int(1, 6);
      // (sentences of up to 40 tokens keep a call short; the longest, L - 1, now and then)
      lengths = Int32Array.from({ length: sentences }, () => (r.chance(0.97) ? r.int(1, Math.max(1, Math.min(L - 1, 40)))
        : r.pick([0, -1, L, L - 1, L - 1, 2147483647])));
    } else if (pattern < 0.97) {
      sentences = r.chance(0.5) ? r.pick([2 ** 20, 2 ** 21, 2 ** 22, 2 ** 22 + 1, 2 ** 23, 4194304 - 1]) : r.int(1, 2 ** 23);
      fill = r.chance(0.7) ? L - 1 : r.pick([1, L, 2147483647, 1024]);
    } else {
      sentences = r.pick([0, -1, -2147483648]);
      lengths = new Int32Array(4).fill(1);
    }
    // the contract, in the C side's order
    let expected = null, total = 0;
    if (sentences <= 0) expected = STATUS.SIZE;
    else if (fill !== null) {
      total = fill * sentences;
      if (fill <= 0 || fill > L - 1 || total > MAX_ELEMENTS) expected = STATUS.SIZE;
    } else {
      for (let s = 0; s < sentences; s++) {
        const len = lengths[s];
        if (len <= 0 || len > L - 1) { expected = STATUS.SIZE; break; }
        total += len;
        if (total > MAX_ELEMENTS) { expected = STATUS.SIZE; break; }
      }
    }
    // valid but too large to run here: tokens beyond the budget, or attention over long sentences
    if (expected === null && (total > BUDGET || (fill ?? Math.max(...lengths)) ** 2 * state.d * sentences > WORK_BUDGET)) return;
    const tokens = Int32Array.from({ length: expected === null ? total : 4 }, () => (r.chance(0.98) ? r.int(0, V - 1) : r.pick([-1, V])));
    if (expected === null && tokens.some((t) => t < 0 || t >= V)) expected = STATUS.TOKEN;
    const pt = heap.alloc(tokens.length, tokens);
    let pl;
    if (fill !== null) {  // millions of lengths: written straight into WASM memory
      pl = heap.alloc(sentences, fill);
    } else {
      pl = heap.alloc(lengths.length, lengths);
    }
    const lossSlot = heap.alloc(2);
    const nullAt = r.chance(0.04) ? r.int(0, 2) : -1;
    const status = core._qkv_model_loss_and_grad(m, nullAt === 0 ? 0 : pt, nullAt === 1 ? 0 : pl, sentences, nullAt === 2 ? 0 : lossSlot);
    const label = `loss_and_grad(${sentences} sentences${fill !== null ? ` of ${fill} tokens` : ''}, L ${L})`;
    ctx.inputsUnchanged(label, [[pt, tokens], [pl, lengths]]);
    if (fill !== null) {  // the ends of millions of lengths are unchanged
      const view = heap.i32.subarray(pl >> 2, (pl >> 2) + sentences);
      for (const s of [0, 1, sentences >> 1, sentences - 2, sentences - 1]) {
        if (s >= 0 && view[s] !== fill) throw new Failure(`${label}: changed lengths[${s}]`);
      }
    }
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    const loss = core.HEAPF64[lossSlot >> 3];
    if (expected !== null) {
      expectStatus(label, status, expected, `${total} tokens checked so far`);
      if (!Number.isNaN(loss)) throw new Failure(`${label}: refused but *loss is ${loss}`);
      return;
    }
    expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
    state.lastN = null;  // a failed sentence may or may not have left activations
    state.lastLoss = NaN;
    state.gradsZero = false;
    if (status === STATUS.OK) {
      if (!(loss >= 0 && Number.isFinite(loss))) throw new Failure(`${label}: loss ${loss}`);
      const g = tensorOf(ctx, m, 1, 0);
      const grads = heap.floats(g.ptr, 2 * V * state.d + 3 * state.d * state.d + V);
      if (!finiteAll(grads)) throw new Failure(`${label}: OK with non-finite gradients`);
      state.lastLoss = loss;
      state.lastN = (fill ?? lengths[sentences - 1]) + 1;
      state.lastBatch = new Set([0, ...tokens]);
    }
  },

  // a batch in ranges of sentences: refused ranges change nothing, and the last range gives the
  // loss and gradients of one whole call bit for bit; a batch left unfinished cannot be applied
  ranges(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_loss_and_grad_range');
    const { L, V, d } = state;
    if (L < 2) return;   // no sentence fits (loss covers the refusals)
    const sentences = r.int(1, 5);
    const lengths = Int32Array.from({ length: sentences }, () => r.int(1, Math.max(1, Math.min(L - 1, 12))));
    const total = lengths.reduce((a, b) => a + b, 0);
    if (total > BUDGET || Math.max(...lengths) ** 2 * d * sentences > WORK_BUDGET) return;
    const tokens = Int32Array.from({ length: total }, () => r.int(0, V - 1));
    const pt = heap.alloc(total, tokens), pl = heap.alloc(sentences, lengths), slot = heap.alloc(2);
    const n = 2 * V * d + 3 * d * d + V;
    const label = `loss_and_grad_range(${sentences} sentences, L ${L})`;
    state.lastN = null;
    state.lastLoss = NaN;
    state.gradsZero = false;
    const whole = core._qkv_model_loss_and_grad(m, pt, pl, sentences, slot);
    const wholeLoss = core.HEAPF64.slice(slot >> 3, (slot >> 3) + 1);
    const wholeGrads = whole === STATUS.OK ? heap.words(tensorOf(ctx, m, 1, 0).ptr, n) : null;
    // cut points, in order; now and then a range that does not follow on, or lies outside the batch
    const cuts = [0, ...new Set(Array.from({ length: r.int(0, 3) }, () => r.int(1, sentences)))].sort((a, b) => a - b);
    if (cuts.at(-1) !== sentences) cuts.push(sentences);
    const stopAfter = r.chance(0.2) ? r.int(1, cuts.length - 1) : cuts.length - 1;
    let status = STATUS.OK;
    for (let k = 0; k < stopAfter && status === STATUS.OK; k++) {
      if (r.chance(0.15)) {
        const from = r.pick([cuts[k] + 1, -1, cuts[k + 1]]), to = r.pick([cuts[k + 1], sentences + 1, from]);
        if (!(from === 0 && to > 0 && to <= sentences)) {
          expectStatus(`${label} [${from}, ${to}) after ${cuts[k]}`, core._qkv_model_loss_and_grad_range(m, pt, pl, sentences, from, to, slot), STATUS.ARGUMENT);
        }
      }
      status = core._qkv_model_loss_and_grad_range(m, pt, pl, sentences, cuts[k], cuts[k + 1], slot);
      ctx.inputsUnchanged(label, [[pt, tokens], [pl, lengths]]);
      const loss = core.HEAPF64[slot >> 3];
      if (k + 1 < cuts.length - 1) {
        if (whole === STATUS.OK) expectStatus(label, status, STATUS.OK);
        if (status === STATUS.OK && !Number.isNaN(loss)) throw new Failure(`${label}: range [${cuts[k]}, ${cuts[k + 1]}) of ${sentences} gave a loss (${loss}) before the last`);
        continue;
      }
      expectStatus(label, status, whole === STATUS.OK ? STATUS.OK : [STATUS.OK, STATUS.DIVERGED]);
      if (status !== STATUS.OK) break;
      if (whole !== STATUS.OK) throw new Failure(`${label}: ranges OK where the whole call said ${whole}`);
      if (!sameWords(new Uint32Array(new Float64Array([loss]).buffer), new Uint32Array(wholeLoss.buffer))) throw new Failure(`${label}: loss ${loss} in ranges, ${wholeLoss[0]} whole`);
      if (!sameWords(heap.words(tensorOf(ctx, m, 1, 0).ptr, n), wholeGrads)) throw new Failure(`${label}: gradients differ from the whole call's`);
      state.lastLoss = loss;
      state.lastBatch = new Set([0, ...tokens]);
    }
  },

  update(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_update');
    const rows = heap.alloc(state.V), countSlot = heap.alloc(1);
    if (r.chance(0.04)) return expectStatus('update(null)', core._qkv_model_update(m, 0, countSlot), STATUS.NULL);
    const before = paramsOf(ctx, m, state);
    const status = core._qkv_model_update(m, rows, countSlot);
    const after = paramsOf(ctx, m, state);
    const limit = DIVERGENCE_FACTOR * Math.log(state.V);
    const label = `update(last loss ${state.lastLoss}, optimizer ${state.optimizer})`;
    if (!(state.lastLoss <= limit)) expectStatus(label, status, STATUS.DIVERGED, `limit ${limit}`);
    else expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
    if (status !== STATUS.OK) {
      if (!sameWords(new Uint32Array(before.values.buffer), new Uint32Array(after.values.buffer))) {
        throw new Failure(`${label}: refused but changed the parameters`);
      }
      return;
    }
    if (!finiteAll(after.values)) throw new Failure(`${label}: OK with non-finite parameters`);
    const n = heap.i32[countSlot >> 2];
    const updated = heap.ints(rows, Math.max(0, Math.min(n, state.V)));
    if (!(n >= 0 && n <= state.V)) throw new Failure(`${label}: ${n} updated rows of ${state.V}`);
    for (let i = 0; i < n; i++) {
      if (updated[i] < 0 || updated[i] >= state.V || (i > 0 && updated[i] <= updated[i - 1])) {
        throw new Failure(`${label}: updated rows ${updated.join(',')}`);
      }
      if (state.optimizer === 0 && state.lastBatch && !state.lastBatch.has(updated[i])) {
        throw new Failure(`${label}: SGD changed row ${updated[i]}, which was not in the batch`);
      }
    }
    if (state.optimizer === 0 && state.gradsZero && n !== 0) throw new Failure(`${label}: zero gradients changed ${n} rows`);
  },

  sentence_losses(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_sentence_losses');
    const { L, V } = state;
    const length = r.chance(0.9) ? r.int(1, Math.max(1, Math.min(L - 1, 40))) : r.pick([0, -1, L, L - 1, 2147483647]);
    const valid = length > 0 && length <= L - 1;
    if (valid && length * length * state.d > WORK_BUDGET) return;
    const tokens = Int32Array.from({ length: valid ? length : 4 }, () => (r.chance(0.97) ? r.int(0, V - 1) : r.pick([-1, V])));
    const pt = heap.alloc(tokens.length, tokens), losses = heap.alloc(2 * (valid ? length + 1 : 2)), lossSlot = heap.alloc(2);
    const nullAt = r.chance(0.04) ? r.int(0, 2) : -1;
    const status = core._qkv_model_sentence_losses(m, nullAt === 0 ? 0 : pt, length, nullAt === 1 ? 0 : losses, nullAt === 2 ? 0 : lossSlot);
    const label = `sentence_losses(${length}, L ${L})`;
    ctx.inputsUnchanged(label, [[pt, tokens]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    const loss = core.HEAPF64[lossSlot >> 3];
    if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[losses, 4]]); }
    if (tokens.some((t) => t < 0 || t >= V)) return expectStatus(label, status, STATUS.TOKEN);
    expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
    state.gradsZero = false;
    if (status !== STATUS.OK) {
      state.lastLoss = NaN;
      state.lastN = null;
      return;
    }
    const each = new Float64Array(core.HEAPU8.buffer, losses, length + 1);
    let sum = 0;
    for (const x of each) {
      if (!(x >= 0 && Number.isFinite(x))) throw new Failure(`${label}: a position's loss is ${x}`);
      sum += x;
    }
    if (!(Math.abs(sum / (length + 1) - loss) <= 1e-9 * Math.max(1, loss))) throw new Failure(`${label}: the losses' mean ${sum / (length + 1)} is not the loss ${loss}`);
    state.lastLoss = loss;
    state.lastN = length + 1;
    state.lastBatch = new Set([0, ...tokens]);
  },

  shuffle(ctx, m) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_shuffle');
    const n = r.chance(0.9) ? r.int(1, 300) : r.pick([0, -1, -2147483648]);
    const order = Int32Array.from({ length: n > 0 ? n : 4 }, (_, i) => (r.chance(0.5) ? i : r.int(-5, 5)));
    const p = r.chance(0.04) ? 0 : heap.alloc(order.length, order);
    const status = core._qkv_model_shuffle(m, p, n);
    const label = `shuffle(${n})`;
    if (!p) return expectStatus(label, status, STATUS.NULL);
    if (n <= 0) return expectStatus(label, status, STATUS.SIZE);
    expectStatus(label, status, STATUS.OK);
    const got = Array.from(heap.ints(p, n)).sort((a, b) => a - b), want = Array.from(order).sort((a, b) => a - b);
    if (got.join() !== want.join()) throw new Failure(`${label}: not a permutation of its input`);
  },

  // write into a parameter through the live pointer, as a C user may: NaN must then be refused
  // Model.saveState / loadState (the training timeline's checkpoints): a saved state loads back
  // to the same parameters; a wrong size, another shape, a bad header or a non-finite entry is
  // refused and leaves the model as it was
  state(ctx, m, state) {
    const { r, core, heap, count } = ctx;
    count('_qkv_model_state_bytes');
    count('_qkv_model_save_state');
    count('_qkv_model_load_state');
    const label = `model_state(V ${state.V}, d ${state.d})`;
    if (r.chance(0.05)) return expectStatus(label, core._qkv_model_state_bytes(m, 0), STATUS.NULL);
    const slot = heap.alloc(1);
    expectStatus(`${label} bytes`, core._qkv_model_state_bytes(m, slot), STATUS.OK);
    const n = heap.i32[slot >> 2];
    const total = 2 * state.V * state.d + 3 * state.d * state.d + state.V;
    if (!(n > 12 * total)) throw new Failure(`${label}: ${n} bytes for ${total} parameters and two moments each`);
    const buffer = heap.alloc(Math.ceil(n / 4) + 1);
    if (r.chance(0.1)) return expectStatus(`${label} save, wrong size`, core._qkv_model_save_state(m, buffer, n + r.pick([-1, 1, -n - 1])), STATUS.SIZE);
    if (r.chance(0.05)) return expectStatus(`${label} save, NULL`, core._qkv_model_save_state(m, 0, n), STATUS.NULL);
    expectStatus(`${label} save`, core._qkv_model_save_state(m, buffer, n), STATUS.OK);
    const saved = paramsOf(ctx, m, state);
    const header = n - 12 * total;
    const spoil = r.pick(['none', 'none', 'none', 'size', 'nan', 'shape']);
    if (spoil === 'nan') heap.f32[(buffer + header) / 4 + r.int(0, 3 * total - 1)] = r.pick([NaN, Infinity, -Infinity]);
    if (spoil === 'shape') heap.i32[buffer >> 2] = state.V + 1;   // the header's V
    // a model poke made non-finite saves as it is, and is refused on load like a spoiled state
    const savedFinite = finiteAll(heap.floats(buffer + header, 3 * total));
    const status = core._qkv_model_load_state(m, buffer, spoil === 'size' ? n - 4 : n);
    const after = paramsOf(ctx, m, state);
    if (!sameWords(new Uint32Array(saved.values.buffer), new Uint32Array(after.values.buffer))) {
      throw new Failure(`${label}: load (${spoil}) left other parameters than were saved`);
    }
    expectStatus(`${label} load (${spoil})`, status,
      { none: savedFinite ? STATUS.OK : STATUS.NONFINITE, size: STATUS.SIZE, nan: STATUS.NONFINITE, shape: STATUS.SHAPE }[spoil]);
  },

  poke(ctx, m, state) {
    const { r, heap } = ctx;
    const params = paramsOf(ctx, m, state);
    const at = r.int(0, params.count - 1);
    heap.f32[(params.ptr >> 2) + at] = r.pick([NaN, Infinity, 1e30, 0.5, -0.25]);
    state.lastBatch = null;  // a C user changed the model behind the optimizer's back
  },
};

// ---- the loop ----

/**
 * Runs cases for `seconds` (or `cases`), returns { seed, cases, calls: { export: n }, failures }.
 * A failure records its case and message; a trap re-creates the instance and goes on (at most
 * maxFailures are collected).
 */
export async function fuzzWasm({ seconds = 10, cases = Infinity, seed = 1, only = null, exportsList = null,
  log = () => {}, timing = false, maxFailures = 10 } = {}) {
  const times = timing ? {} : null;
  // a private instance of each kernel build (the scalar one runs everywhere; SIMD128 where the
  // engine has it), each in its own WebAssembly memory
  const builds = [false, true];
  const labs = {};
  for (const simd of builds) labs[simd] = await load({ fresh: true, simd, gpt: true });
  const calls = Object.fromEntries(Object.keys(DRIVERS).concat(MODEL_FUNCTIONS).map((k) => [k, 0]));
  const failures = [];
  const deadline = Date.now() + seconds * 1000;
  const names = Object.keys(DRIVERS);
  const rngBytes = labs[false]._heap.core._qkv_rng_size();
  if (exportsList) {
    const missing = exportsList.filter((name) => !(name in calls));
    if (missing.length) throw new Error(`fuzz: no driver for exported ${missing.join(', ')}`);
  }
  const baseline = {};
  for (const simd of builds) baseline[simd] = labs[simd]._heap.core._qkv_heap_used();
  let index = only ?? 0;
  let done = 0;
  for (; done < cases && (only !== null ? done < 1 : Date.now() < deadline); index++, done++) {
    const r = new Random((Math.imul(seed, 0x9e3779b1) ^ index) >>> 0);
    const simd = r.chance(0.5);
    const lab = labs[simd];
    // the core's functions and the GPT engine's (attached to the instance's Heap), by _name
    const core = lab._heap.functions;
    const heap = new Heap(core);
    const ctx = {
      r, heap, core, k: lab._heap.kernels, rngBytes, timing: times,
      count: (name) => { calls[name]++; },
      inputsUnchanged(label, pairs) {
        for (const [ptr, values] of pairs) {
          if (!ptr || !values) continue;
          const now = values instanceof Float32Array ? new Uint32Array(heap.floats(ptr, values.length).buffer) : heap.ints(ptr, values.length);
          const was = values instanceof Float32Array ? new Uint32Array(values.buffer, values.byteOffset, values.length) : values;
          if (!sameWords(now, was)) throw new Failure(`${label}: changed an input buffer`);
        }
      },
    };
    const ops = [];
    try {
      const length = r.int(1, 8);
      for (let k = 0; k < length; k++) {
        const name = r.chance(0.25) ? '_qkv_model_create' : r.pick(names);
        ops.push(name);
        calls[name]++;
        const t0 = performance.now();
        DRIVERS[name](ctx);
        if (times) times[name] = (times[name] || 0) + performance.now() - t0;
        heap.checkGuards(name);
      }
      heap.freeAll();
      const used = core._qkv_heap_used();
      if (used !== baseline[simd]) {
        throw new Failure(`heap_used is ${used} after the case, ${baseline[simd]} before: ${used - baseline[simd]} bytes leaked`);
      }
    } catch (error) {
      const trapped = error instanceof WebAssembly.RuntimeError;
      const build = simd ? 'SIMD128' : 'scalar';
      failures.push({ case: index, seed, build, ops, message: `${trapped ? 'TRAP ' : ''}${error.message}` });
      log(`fuzz wasm: FAILED case ${index} (${build} kernels; seed ${seed}; replay with --seed ${seed} --case ${index}): ${ops.join(' → ')}: ${trapped ? 'trap: ' : ''}${error.message}`);
      if (trapped || !(error instanceof Failure)) labs[simd] = await load({ fresh: true, simd, gpt: true });  // a trap leaves the stack unwound
      else heap.freeAll();
      baseline[simd] = labs[simd]._heap.core._qkv_heap_used();
      if (failures.length >= maxFailures) break;
    }
  }
  const memoryBytes = Math.max(...builds.map((simd) => labs[simd]._heap.core.HEAPU8.length));
  return { seed, cases: done, calls, failures, memoryBytes, timing: times };
}
