// matrix.js: the Matrix type every qkv-lab call returns, and the checks every input goes through.
// No WebAssembly here: pure JavaScript that the page and the tests can use on their own.

/** Largest number of entries in one matrix (2^26 floats = 256 MiB), as in wasm/qkv.h. */
export const MAX_ELEMENTS = 2 ** 26;
/** Largest single side, as in wasm/qkv.h. */
export const MAX_SIDE = 2 ** 24;

/** A row-major float32 matrix: `data[i * cols + j]` is row i, column j. */
export class Matrix {
  constructor(rows, cols, data = new Float32Array(rows * cols)) {
    this.rows = rows;
    this.cols = cols;
    this.data = data instanceof Float32Array ? data : Float32Array.from(data);
  }

  get(i, j) {
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

/** Throws a RangeError if a rows×cols matrix would be too large to allocate. */
export function checkShape(op, name, rows, cols) {
  if (rows > MAX_SIDE || cols > MAX_SIDE || rows * cols > MAX_ELEMENTS) {
    throw new RangeError(`${op}: ${name} would be ${rows}×${cols}, too large ` +
      `(at most ${MAX_ELEMENTS} entries and ${MAX_SIDE} per side)`);
  }
}

/**
 * An operation's input as `{ rows, cols, data, trusted }` with data a Float32Array to copy into
 * WebAssembly memory as it is: a Matrix this library returned (trusted: its entries are checked
 * on the C side only), a Matrix-like object whose data is a Float32Array (its entries checked
 * here, not copied), or anything else toMatrix accepts (checked and converted).
 */
export function readInput(value, op, name, { allowNegativeInfinity = false } = {}) {
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
    // float32 entries are numbers within float32's range: only NaN and ±Infinity can be wrong
    for (let at = 0; at < data.length; at++) {
      const x = data[at];
      if (x - x !== 0 && !(x === -Infinity && allowNegativeInfinity)) {
        entry(x, op, name, Math.floor(at / cols), at % cols, allowNegativeInfinity);
      }
    }
    return { rows, cols, data, trusted: false };
  }
  const m = toMatrix(value, op, name, { allowNegativeInfinity });
  return { rows: m.rows, cols: m.cols, data: m.data, trusted: false };
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
 *   TypeError for a wrong kind of value (not an array, a string entry, ragged rows),
 *   RangeError for empty or too large matrices and NaN / ±Infinity entries.
 * With allowNegativeInfinity, -Infinity entries are kept (softmax masks).
 */
export function toMatrix(value, op, name, { allowNegativeInfinity = false } = {}) {
  let rows, cols, data;
  if (Array.isArray(value)) {
    rows = value.length;
    if (rows === 0) throw new RangeError(`${op}: ${name} is empty; it needs at least one row`);
    if (!Array.isArray(value[0]) && !ArrayBuffer.isView(value[0])) {
      throw new TypeError(`${op}: ${name} must be an array of rows (nested arrays), but row 0 is ${kind(value[0])}`);
    }
    cols = value[0].length;
    if (cols === 0) throw new RangeError(`${op}: ${name} is empty; row 0 has no entries`);
    checkShape(op, name, rows, cols);
    data = new Float32Array(rows * cols);
    for (let i = 0; i < rows; i++) {
      const row = value[i];
      if (!Array.isArray(row) && !ArrayBuffer.isView(row)) {
        throw new TypeError(`${op}: ${name} row ${i} is ${kind(row)}, not an array`);
      }
      if (row.length !== cols) {
        throw new TypeError(`${op}: ${name} is ragged: row ${i} has ${row.length} entries but row 0 has ${cols}`);
      }
      for (let j = 0; j < cols; j++) data[i * cols + j] = entry(row[j], op, name, i, j, allowNegativeInfinity);
    }
    return new Matrix(rows, cols, data);
  }
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${op}: ${name} must be a Matrix ({ rows, cols, data }) or nested arrays, got ${kind(value)}`);
  }
  ({ rows, cols, data } = value);
  if (!Number.isInteger(rows) || !Number.isInteger(cols)) {
    throw new TypeError(`${op}: ${name} needs integer rows and cols, got rows ${kind(rows)} and cols ${kind(cols)}`);
  }
  if (rows <= 0 || cols <= 0) throw new RangeError(`${op}: ${name} is ${rows}×${cols}; it must not be empty`);
  checkShape(op, name, rows, cols);
  if (data === null || typeof data !== 'object' || typeof data.length !== 'number') {
    throw new TypeError(`${op}: ${name}.data must be an array or Float32Array, got ${kind(data)}`);
  }
  if (data.length !== rows * cols) {
    throw new RangeError(`${op}: ${name} is ${rows}×${cols} but its data has ${data.length} entries, not ${rows * cols}`);
  }
  const out = new Float32Array(rows * cols);
  for (let at = 0; at < out.length; at++) {
    out[at] = entry(data[at], op, name, Math.floor(at / cols), at % cols, allowNegativeInfinity);
  }
  return new Matrix(rows, cols, out);
}

function entry(x, op, name, i, j, allowNegativeInfinity) {
  if (typeof x !== 'number') {
    throw new TypeError(`${op}: ${name}[${i}][${j}] is ${kind(x)}, not a number`);
  }
  if (Number.isFinite(x)) {
    // a finite double beyond float32's range would become ±Infinity in the copy
    if (Math.abs(x) > 3.4028234663852886e38) {
      throw new RangeError(`${op}: ${name}[${i}][${j}] is ${x}, beyond float32's range`);
    }
    return x;
  }
  if (x === -Infinity && allowNegativeInfinity) return x;
  throw new RangeError(`${op}: ${name}[${i}][${j}] is ${x}; every entry must be a finite number`);
}

function kind(x) {
  if (x === null) return 'null';
  if (x === undefined) return 'undefined';
  if (typeof x === 'string') return `the string ${JSON.stringify(x.length > 20 ? x.slice(0, 20) + '…' : x)}`;
  if (Array.isArray(x)) return 'an array';
  return `a ${typeof x}`;
}
