// Shared helpers for the qkv-lab core tests (node:test).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { notInstalledAsLocked } from '../tools/installed.mjs';
import { BENCH } from '../tools/tfjs.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/numpy.json', import.meta.url));

/** Parse tests/fixtures/numpy.json (written by tests/fixtures/make_fixtures.py). */
let cached = null;
export function loadFixtures() {
  if (!cached) cached = JSON.parse(readFileSync(FIXTURES, 'utf8'));
  return cached;
}

/**
 * A fixture matrix (nested arrays, `null` = -Infinity because JSON has no infinities)
 * → a fresh nested array of numbers with -Infinity restored.
 */
export function fromFixture(m) {
  return m.map((row) => row.map((v) => (v === null ? -Infinity : v)));
}

/** Nested array → Matrix-like { rows, cols, data: Float32Array } (row-major). */
export function toMatrixLike(nested) {
  const rows = nested.length;
  const cols = rows ? nested[0].length : 0;
  const data = new Float32Array(rows * cols);
  nested.forEach((row, i) => row.forEach((v, j) => { data[i * cols + j] = v; }));
  return { rows, cols, data };
}

function isMatrixLike(m) {
  return m !== null && typeof m === 'object' && !Array.isArray(m) &&
    Number.isInteger(m.rows) && Number.isInteger(m.cols) && m.data !== undefined;
}

/** Matrix(-like) or nested array → nested array of numbers. */
export function toNested(m) {
  if (Array.isArray(m)) return m.map((row) => Array.from(row));
  if (isMatrixLike(m)) {
    const out = [];
    for (let i = 0; i < m.rows; i++) out.push(Array.from(m.data.subarray
      ? m.data.subarray(i * m.cols, (i + 1) * m.cols)
      : m.data.slice(i * m.cols, (i + 1) * m.cols)));
    return out;
  }
  throw new TypeError(`not a matrix: ${Object.prototype.toString.call(m)}`);
}

/** Largest |x| over the finite entries of a nested array. */
export function maxAbs(nested) {
  let m = 0;
  for (const row of nested) for (const v of row) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  return m;
}

/**
 * Assert that `m` is a real qkv-lab Matrix of the given shape: integer rows/cols, a
 * Float32Array `data` of length rows*cols, and a toArray() that returns the same numbers.
 */
export function assertMatrix(m, rows, cols, label = 'matrix') {
  assert.ok(isMatrixLike(m), `${label}: not a Matrix ({rows, cols, data})`);
  assert.equal(m.rows, rows, `${label}: rows`);
  assert.equal(m.cols, cols, `${label}: cols`);
  assert.ok(m.data instanceof Float32Array, `${label}: data must be a Float32Array`);
  assert.equal(m.data.length, rows * cols, `${label}: data.length`);
  assert.equal(typeof m.toArray, 'function', `${label}: toArray()`);
  const arr = m.toArray();
  assert.ok(Array.isArray(arr) && arr.length === rows, `${label}: toArray() row count`);
  for (let i = 0; i < rows; i++) {
    assert.ok(Array.isArray(arr[i]) && arr[i].length === cols, `${label}: toArray()[${i}] length`);
    for (let j = 0; j < cols; j++) {
      assert.ok(Object.is(arr[i][j], m.data[i * cols + j]),
        `${label}: toArray()[${i}][${j}] = ${arr[i][j]} but data[${i * cols + j}] = ${m.data[i * cols + j]}`);
    }
  }
}

/**
 * Compare `actual` (a Matrix, Matrix-like or nested array) with `expected` (nested array,
 * -Infinity allowed; pass fixture matrices through fromFixture first).
 *
 * `tol` is either a number (absolute tolerance) or { abs = 0, rel = 0 }: element (i,j) passes
 * when |actual - expected| <= abs + rel * |expected|. Non-finite expected entries (±Infinity)
 * must be matched exactly. NaN in `actual` always fails.
 *
 * Throws an AssertionError naming the label, the max difference, its position, and the actual
 * and expected values there. On success returns the max absolute difference over finite entries.
 */
export function checkMatrix(actual, expected, tol, label = 'matrix') {
  const { abs, rel } = typeof tol === 'number' ? { abs: tol, rel: 0 } : { abs: tol.abs ?? 0, rel: tol.rel ?? 0 };
  const act = toNested(actual);
  const rows = expected.length;
  const cols = rows ? expected[0].length : 0;
  const shape = (m) => `${m.length}x${m.length ? m[0].length : 0}`;
  if (act.length !== rows || act.some((r) => r.length !== cols)) {
    throw new assert.AssertionError({
      message: `${label}: shape ${shape(act)} (actual) vs ${rows}x${cols} (expected)`,
      actual: shape(act), expected: `${rows}x${cols}`, operator: 'checkMatrix',
    });
  }
  let maxDiff = 0;
  let maxAt = null;
  let worst = null; // { i, j, diff, excess } of the worst failing element
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const a = act[i][j];
      const e = expected[i][j];
      let diff;
      let ok;
      if (!Number.isFinite(e)) {
        ok = a === e;
        diff = ok ? 0 : Infinity;
      } else {
        diff = Math.abs(a - e); // NaN if a is NaN
        ok = diff <= abs + rel * Math.abs(e);
        if (diff > maxDiff) { maxDiff = diff; maxAt = [i, j]; }
      }
      if (!ok) {
        const excess = Number.isNaN(diff) ? Infinity : diff - (abs + rel * Math.abs(e));
        if (!worst || excess > worst.excess) worst = { i, j, diff, excess };
      }
    }
  }
  if (worst) {
    const { i, j, diff } = worst;
    const tolText = rel ? `abs ${abs} + rel ${rel}·|expected|` : `${abs}`;
    const maxText = maxAt && (maxAt[0] !== i || maxAt[1] !== j)
      ? ` (largest |diff| overall: ${maxDiff} at [${maxAt[0]}][${maxAt[1]}])` : '';
    throw new assert.AssertionError({
      message: `${label}: max diff ${diff} (tolerance ${tolText}) at [${i}][${j}]: ` +
        `actual ${act[i][j]}, expected ${expected[i][j]}${maxText}`,
      actual: act[i][j], expected: expected[i][j], operator: 'checkMatrix',
    });
  }
  return maxDiff;
}

/** Row-major flatten of a nested array. */
export function flatten(nested) {
  return nested.flat();
}

/** Small deterministic PRNG (mulberry32) for choosing shapes/permutations in property tests (tools/random.mjs: the benchmark's too). */
export { mulberry32 } from '../tools/random.mjs';

/**
 * Throws unless bench/node_modules holds the benchmark's peers as bench/package-lock.json locks
 * them (TensorFlow.js, onnxruntime-web). `./build.sh setup` and `./build.sh test` install them
 * once; a test never does (two test files would run npm ci in the same folder at once).
 */
export function requirePeers() {
  const missing = notInstalledAsLocked(BENCH);
  if (missing.length) {
    throw new Error(`the benchmark's peers are not installed as bench/package-lock.json locks them ` +
      `(${missing.length} differences, the first: ${missing[0]}): run ./build.sh setup, or npm ci in bench/`);
  }
}
