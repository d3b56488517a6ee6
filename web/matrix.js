// matrix.js: the Matrix type every qkv-lab call returns, the checks every input goes through, and
// what the trainable models share (trainSteps). No WebAssembly here: pure JavaScript that the page
// and the tests can use on their own.

/** Largest number of entries in one matrix (2^26 floats = 256 MiB), as in wasm/qkv.h. */
export const MAX_ELEMENTS = 2 ** 26;
/** Largest single side, as in wasm/qkv.h. */
export const MAX_SIDE = 2 ** 24;

/** A row-major float32 matrix: `data[i * cols + j]` is row i, column j. */
export class Matrix {
  /** rows × cols (integers from 0, at most MAX_ELEMENTS entries), zeros unless `data` (rows · cols numbers) is given. */
  constructor(rows, cols, data) {
    for (const [name, n] of [['rows', rows], ['cols', cols]]) {
      if (!Number.isInteger(n) || n < 0 || n > MAX_SIDE) {
        throw argumentError(typeof n === 'number' ? RangeError : TypeError, `new Matrix(rows, cols, data?): ${name} must be an integer from 0 to ${MAX_SIDE}, got ${describe(n)}`);
      }
    }
    if (rows * cols > MAX_ELEMENTS) throw argumentError(RangeError, `new Matrix(rows, cols, data?): ${rows}×${cols} has more than ${MAX_ELEMENTS} entries`);
    this.rows = rows;
    this.cols = cols;
    this.data = data === undefined ? new Float32Array(rows * cols) : data instanceof Float32Array ? data : Float32Array.from(data);
    if (this.data.length !== rows * cols) {
      throw argumentError(RangeError, `new Matrix(rows, cols, data?): data has ${this.data.length} entries; a ${rows}×${cols} matrix has ${rows * cols}`);
    }
  }

  /** Entry (i, j); a RangeError outside the matrix. */
  get(i, j) {
    if (!(Number.isInteger(i) && i >= 0 && i < this.rows && Number.isInteger(j) && j >= 0 && j < this.cols)) {
      throw argumentError(RangeError, `get(i, j): (${describe(i)}, ${describe(j)}) is outside this ${this.rows}×${this.cols} matrix (rows 0 to ${this.rows - 1}, columns 0 to ${this.cols - 1})`);
    }
    return this.data[i * this.cols + j];
  }

  /** Row i as a plain array. */
  row(i) {
    return Array.from(this.data.subarray(i * this.cols, (i + 1) * this.cols));
  }

  /** Nested arrays of numbers, one per row. */
  toArray() {
    const out = [];
    for (let i = 0; i < this.rows; i++) out.push(this.row(i));
    return out;
  }

  /** A new Matrix with every entry multiplied by k (in float32). */
  scale(k) {
    const data = new Float32Array(this.data.length);
    for (let i = 0; i < data.length; i++) data[i] = this.data[i] * k;
    return new ReturnedMatrix(this.rows, this.cols, data);
  }

  clone() {
    return new ReturnedMatrix(this.rows, this.cols, this.data.slice());
  }

  static from(value, name = 'matrix') {
    return toMatrix(value, 'Matrix.from', name);
  }
}

/**
 * A Matrix this library made (results, randn draws, scale() and clone() copies): as an input it
 * skips the entry-by-entry check in readInput, because its data is a Float32Array the library
 * filled. Only a caller's later writes could have put NaN or ±Infinity in it, and the C side
 * checks the finiteness of every input anyway (the API then names the entry as the JavaScript
 * check would have), so neither such a write nor an object made to look like one of these gets
 * NaN through. Its shape is still checked, in O(1). A subclass, not a WeakSet: marking every
 * result in a WeakSet took a third of a small call's time.
 */
export class ReturnedMatrix extends Matrix {}

/**
 * Largest amount of work one call may do: 2^30 ≈ 1.07e9 units, one unit being one multiply-add
 * of a matmul this size (2^30 multiply-adds: 1024×1024 by 1024×1024, which with its copies is
 * just over; 985³ is the largest square product that fits). Calls are synchronous; this bounds
 * how long one can block the page. See WORK_WEIGHTS for what else a call costs.
 */
export const MAX_WORK = 2 ** 30;

/**
 * What one unit of each other kind of work costs, in multiply-adds of the limit's matmul, so
 * that the limit means about the same blocking time for every call. Measured by
 * `node tools/measure-work.mjs` (SIMD128 kernels, Node 20, this repository's 2-core machine, other
 * jobs running: the range over several runs):
 *   elements    a float copied into or out of WebAssembly memory (checked for NaN on the way
 *               in, a fresh Float32Array on the way out) or written by a kernel: transpose is all
 *               this; measured 22–38 (the larger of a float in and a float out);
 *   exps        a softmax entry beyond its floats (its exponential, sum and division): up to 57,
 *               the difference of two noisy times;
 *   table       a positional-encoding entry (a power, a sine or cosine, in double): 140–233;
 *   draws       a normal random draw (numpy's polar method: two uniforms, a logarithm, a square
 *               root): 111–215;
 *   parameters  a new model's parameter: its draw and the seven floats kept for it (value,
 *               gradient, Adam's two moments, three of the update's scratch): 208–310;
 *   sgd         a parameter's SGD update in a training step (read, write, the finiteness check): 27–72;
 *   adam        a parameter's Adam update (two moments, a square root, a division): 61–184.
 * The machine was busy (a load of 6 to 12 on 2 cores), so the times are noisy; each weight is at
 * the top of what was seen. With them, `node tools/measure-work.mjs --check` times each call at
 * its new limit at 0.15–1.15 × matmul at the limit (before, positionalEncoding(2^20, 64) took
 * 7.5 ×, randn(8192, 8192) 6.2 × and selfAttention of 8192 tokens with d = 1 2 ×).
 */
export const WORK_WEIGHTS = Object.freeze({ elements: 40, exps: 60, table: 240, draws: 220, parameters: 320, sgd: 75, adam: 185 });

/**
 * The work of a call, in multiply-adds of the limit's matmul:
 *   multiplyAdds + Σ WORK_WEIGHTS[kind] · parts[kind] (elements, exps, table entries, draws, …).
 */
export function workOf(parts) {
  let work = parts.multiplyAdds || 0;
  for (const [kind, weight] of Object.entries(WORK_WEIGHTS)) work += weight * (parts[kind] || 0);
  return work;
}

/** Largest float32, and the smallest positive normal one. */
export const FLOAT32_MAX = 3.4028234663852886e38;
export const FLOAT32_MIN_NORMAL = 2 ** -126;

// Errors made by our own checks. A value that throws while it is read (a getter, a Proxy trap)
// is the caller's problem; guard() turns it into a TypeError that names the argument.
const OWN_ERRORS = new WeakSet();

/** A TypeError or RangeError from our own checks (guard() passes these through unchanged). */
export function argumentError(Type, message, options) {
  const error = new Type(message, options);
  OWN_ERRORS.add(error);
  return error;
}

/**
 * Runs read() and returns its result. Our own TypeErrors and RangeErrors pass through; anything
 * else thrown while reading the argument (a getter, a Proxy trap) becomes a TypeError naming it.
 */
export function guard(op, name, read) {
  try {
    return read();
  } catch (error) {
    if (OWN_ERRORS.has(error)) throw error;
    const what = error instanceof Error ? `${error.name}: ${error.message}` : describe(error);
    throw argumentError(TypeError, `${op}: reading ${name} threw ${what}`, { cause: error });
  }
}

/**
 * Checks that options is a plain object ({ … }, not an array, a Date or a class instance) whose
 * keys are among names, and returns a copy of it (read once, so getters run once). `what` names
 * the entries in messages: 'option' (options), or e.g. 'weight' for an object of weights.
 */
export function readOptions(op, options, names, example, what = 'option') {
  return guard(op, `${what}s`, () => {
    const proto = options !== null && typeof options === 'object' ? Object.getPrototypeOf(options) : undefined;
    if (proto !== Object.prototype && proto !== null) {
      throw argumentError(TypeError, `${op}: ${what}s must be an object like ${example} (a plain object), got ${describe(options)}`);
    }
    const copy = {};
    for (const key of Reflect.ownKeys(options)) {
      if (typeof key !== 'string' || !names.includes(key)) {
        throw argumentError(TypeError, `${op}: unknown ${what} ${typeof key === 'string' ? JSON.stringify(key) : describe(key)}; the ${what}s are ${names.join(', ')}`);
      }
      copy[key] = options[key];
    }
    return copy;
  });
}

/** Throws a RangeError if a rows×cols matrix would be too large to allocate. */
export function checkShape(op, name, rows, cols) {
  if (rows > MAX_SIDE || cols > MAX_SIDE || rows * cols > MAX_ELEMENTS) {
    throw argumentError(RangeError, `${op}: ${name} would be ${rows}×${cols}, too large ` +
      `(at most ${MAX_ELEMENTS} entries and ${MAX_SIDE} per side)`);
  }
}

/**
 * Throws a RangeError if a call would do more than MAX_WORK: `work` is a number of multiply-adds
 * or the parts workOf() weighs ({ multiplyAdds, elements, exps, table, draws, sgd, adam }). The
 * rule, for every call: its multiply-adds, plus every float it copies in or writes out, every
 * softmax entry, every positional-encoding entry, every random draw and every parameter an
 * optimizer step updates, each weighted by WORK_WEIGHTS, is at most 2^30 (about 0.25 s on this
 * repository's machine, the time of matmul at the limit).
 */
export function checkWork(op, work, what) {
  const parts = typeof work === 'number' ? { multiplyAdds: work } : work;
  const total = workOf(parts);
  if (total > MAX_WORK) {
    const named = Object.entries(parts).filter(([, n]) => n > 0);
    const detail = named.length === 1 && named[0][0] === 'multiplyAdds' ? ''
      : ` (${named.map(([kind, n]) => (kind === 'multiplyAdds' ? `${n.toExponential(2)} multiply-adds` : `${n.toExponential(2)} ${WORK_NAMES[kind]} × ${WORK_WEIGHTS[kind]}`)).join(' + ')})`;
    throw argumentError(RangeError, `${op}: ${what} would take ${total.toExponential(2)} multiply-adds${named.length > 1 || detail ? ' of work' : ''}${detail}, ` +
      `more than the limit of ${MAX_WORK} (2^30) for one call`);
  }
}

const WORK_NAMES = { elements: 'floats copied or written', exps: 'softmax entries', table: 'table entries', draws: 'random draws', parameters: 'new parameters', sgd: 'SGD parameter updates', adam: 'Adam parameter updates' };

/**
 * A number for a float32 argument of the C side that must be positive: refuses what float32
 * would turn into 0 or Infinity, naming the argument and the range.
 */
export function checkPositiveFloat32(op, name, value) {
  if (typeof value !== 'number') {
    throw argumentError(TypeError, `${op}: ${name} must be a number, got ${describe(value)}`);
  }
  const f = Math.fround(value);
  if (!(f >= FLOAT32_MIN_NORMAL && f <= FLOAT32_MAX)) {
    throw argumentError(RangeError, `${op}: ${name} must be a positive finite number that float32 can hold ` +
      `(${FLOAT32_MIN_NORMAL} to ${FLOAT32_MAX}), got ${describe(value)}`);
  }
  return value;
}

/**
 * An operation's input as `{ rows, cols, data, trusted, check }` with data a Float32Array to copy
 * into WebAssembly memory as it is: a Matrix this library returned (trusted: its entries are
 * checked on the C side only), a Matrix-like object whose data is a Float32Array (its entries
 * are checked while they are copied in, in one pass: `check` is CHECK_FINITE, or
 * CHECK_FINITE_OR_MINUS_INFINITY with allowNegativeInfinity; the copier throws what
 * nonFiniteError gives, naming op, name and the position), or anything else toMatrix accepts
 * (checked and converted here).
 */
export function readInput(value, op, name, { allowNegativeInfinity = false } = {}) {
  return guard(op, name, () => readInputUnguarded(value, op, name, allowNegativeInfinity));
}

function readInputUnguarded(value, op, name, allowNegativeInfinity) {
  if (value instanceof ReturnedMatrix) {
    const { rows, cols, data } = value;
    if (data instanceof Float32Array && Number.isInteger(rows) && Number.isInteger(cols) &&
        rows > 0 && cols > 0 && data.length === rows * cols) {
      checkShape(op, name, rows, cols);
      return { rows, cols, data, trusted: true };
    }
  }
  if (value !== null && typeof value === 'object' && value.data instanceof Float32Array &&
      Number.isInteger(value.rows) && Number.isInteger(value.cols) && value.rows > 0 &&
      value.cols > 0 && value.data.length === value.rows * value.cols) {
    const { rows, cols, data } = value;
    checkShape(op, name, rows, cols);
    // float32 entries are numbers within float32's range: only NaN and ±Infinity can be wrong,
    // and the copy into WebAssembly memory looks for them (see copyChecked)
    return { rows, cols, data, trusted: false, check: allowNegativeInfinity ? CHECK_FINITE_OR_MINUS_INFINITY : CHECK_FINITE, op, name };
  }
  const m = readMatrix(value, op, name, allowNegativeInfinity);
  return { rows: m.rows, cols: m.cols, data: m.data, trusted: false, check: 0 };
}

/** readInput's `check`: what the copy into WebAssembly memory must look for. */
export const CHECK_FINITE = 1, CHECK_FINITE_OR_MINUS_INFINITY = 2;

/**
 * Copies input.data to heap (a Float32Array) from index `at`. Up to 64 floats, in one JavaScript
 * loop that also checks the entries when input.check asks for it (the first NaN or ±Infinity,
 * -Infinity allowed by CHECK_FINITE_OR_MINUS_INFINITY, throws the RangeError toMatrix would):
 * cheaper than set(). Larger inputs are copied by set() and checked by the C function they go
 * to, which checks the finiteness of every input before it computes (the API then names the
 * entry from nonFiniteError, as for a Matrix it returned): that pass runs anyway, in WebAssembly,
 * and a JavaScript pass besides cost more than the copy (45 µs for 65,536 floats, measured).
 */
export function copyChecked(input, heap, at) {
  const { data, check } = input, count = data.length;
  if (count > 64) {
    heap.set(data, at);
  } else if (check) {
    let bad = false;
    for (let i = 0; i < count; i++) {
      const x = data[i];
      heap[at + i] = x;
      if (x - x !== 0 && !(x === -Infinity && check === CHECK_FINITE_OR_MINUS_INFINITY)) bad = true;
    }
    if (bad) throw nonFiniteError(input, input.op, input.name, { allowNegativeInfinity: check === CHECK_FINITE_OR_MINUS_INFINITY });
  } else {
    for (let i = 0; i < count; i++) heap[at + i] = data[i];
  }
}

/** The first NaN or ±Infinity entry of a matrix's data, as the RangeError toMatrix would throw. */
export function nonFiniteError(input, op, name, { allowNegativeInfinity = false } = {}) {
  const { cols, data } = input;
  for (let at = 0; at < data.length; at++) {
    const x = data[at];
    if (x - x !== 0 && !(x === -Infinity && allowNegativeInfinity)) {
      try {
        entry(x, op, name, Math.floor(at / cols), at % cols, allowNegativeInfinity);
      } catch (error) {
        return error;
      }
    }
  }
  return null;
}

/**
 * Turns a Matrix-like `{ rows, cols, data }` or nested arrays of numbers into a checked Matrix.
 * Errors name the operation, the matrix and the position:
 *   TypeError for a wrong kind of value (not an array, a string entry, ragged rows, a DataView,
 *   a getter or Proxy trap that throws),
 *   RangeError for empty or too large matrices, NaN / ±Infinity entries and finite numbers
 *   float32 cannot hold (they would become ±Infinity).
 * With allowNegativeInfinity, -Infinity entries are kept (softmax masks).
 */
export function toMatrix(value, op, name, { allowNegativeInfinity = false } = {}) {
  return guard(op, name, () => readMatrix(value, op, name, allowNegativeInfinity));
}

function readMatrix(value, op, name, allowNegativeInfinity) {
  let rows, cols, data;
  if (Array.isArray(value)) {
    rows = value.length;
    if (rows === 0) throw argumentError(RangeError, `${op}: ${name} is empty; it needs at least one row`);
    const first = value[0];
    if (!isRow(first)) {
      throw argumentError(TypeError, `${op}: ${name} must be an array of rows (nested arrays), but row 0 is ${describe(first)}`);
    }
    cols = first.length;
    if (cols === 0) throw argumentError(RangeError, `${op}: ${name} is empty; row 0 has no entries`);
    checkShape(op, name, rows, cols);
    data = new Float32Array(rows * cols);
    for (let i = 0; i < rows; i++) {
      const row = value[i];
      if (!isRow(row)) {
        throw argumentError(TypeError, `${op}: ${name} row ${i} is ${describe(row)}, not an array`);
      }
      if (row.length !== cols) {
        throw argumentError(TypeError, `${op}: ${name} is ragged: row ${i} has ${row.length} entries but row 0 has ${cols}`);
      }
      for (let j = 0; j < cols; j++) data[i * cols + j] = entry(row[j], op, name, i, j, allowNegativeInfinity);
    }
    return new Matrix(rows, cols, data);
  }
  if (value === null || typeof value !== 'object') {
    throw argumentError(TypeError, `${op}: ${name} must be a Matrix ({ rows, cols, data }) or nested arrays, got ${describe(value)}`);
  }
  ({ rows, cols, data } = value);
  if (!Number.isInteger(rows) || !Number.isInteger(cols)) {
    throw argumentError(TypeError, `${op}: ${name} needs integer rows and cols, got rows ${describe(rows)} and cols ${describe(cols)}`);
  }
  if (rows <= 0 || cols <= 0) throw argumentError(RangeError, `${op}: ${name} is ${rows}×${cols}; it must not be empty`);
  checkShape(op, name, rows, cols);
  if (data === null || typeof data !== 'object' || data instanceof DataView || typeof data.length !== 'number') {
    throw argumentError(TypeError, `${op}: ${name}.data must be an array or a typed array of numbers, got ${describe(data)}`);
  }
  if (data.length !== rows * cols) {
    throw argumentError(RangeError, `${op}: ${name} is ${rows}×${cols} but its data has ${describe(data.length)} entries, not ${rows * cols}`);
  }
  const out = new Float32Array(rows * cols);
  for (let at = 0; at < out.length; at++) {
    out[at] = entry(data[at], op, name, Math.floor(at / cols), at % cols, allowNegativeInfinity);
  }
  return new Matrix(rows, cols, out);
}

/** A row: an array or a typed array with numbers (a DataView has no entries to index). */
function isRow(x) {
  return Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView));
}

function entry(x, op, name, i, j, allowNegativeInfinity) {
  if (typeof x !== 'number') {
    throw argumentError(TypeError, `${op}: ${name}[${i}][${j}] is ${describe(x)}, not a number`);
  }
  if (Number.isFinite(x)) {
    // a finite double that rounds to ±Infinity in float32 would become ±Infinity in the copy;
    // one that rounds to ±3.4028235e38 (numpy's printed float32 max) is float32's max
    if (!Number.isFinite(Math.fround(x))) {
      throw argumentError(RangeError, `${op}: ${name}[${i}][${j}] is ${x}, beyond float32's range (±${FLOAT32_MAX})`);
    }
    return x;
  }
  if (x === -Infinity && allowNegativeInfinity) return x;
  throw argumentError(RangeError, `${op}: ${name}[${i}][${j}] is ${x}; every entry must be a finite number`);
}

/** What a value is, for messages: numbers and strings shown, other things named by kind. */
export function describe(value) {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  let tag = 'Object';
  try {
    tag = Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    // a revoked Proxy cannot be inspected
  }
  return tag === 'Object' ? 'an object' : `a ${tag}`;
}

/** Runs model.step() `steps` times → the steps' losses; an error thrown on the way carries the losses before it (error.losses). Model and GPT train with it. */
export function trainSteps(model, steps) {
  const losses = [];
  for (let i = 0; i < steps; i++) {
    try {
      losses.push(model.step().loss);
    } catch (error) {
      error.losses = losses;
      throw error;
    }
  }
  return losses;
}
