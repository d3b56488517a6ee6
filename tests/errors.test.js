// errors.test.js: what bad input gets through the public API, and that nothing leaks.
// Every error must be a TypeError or RangeError with a message a user can act on; afterwards the
// module must keep working and heapUsed() must be back where it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { MAX_WORK, WORK_WEIGHTS as W, workOf, Matrix } from '../web/matrix.js';
import { workRuleFacts } from '../tools/docs-tables.mjs';

const qkv = await load({ model: true });
const A23 = [[1, 2, 3], [4, 5, 6]];
const B22 = [[1, 2], [3, 4]];
const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];

function throwsWith(fn, Type, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof Type, `expected ${Type.name}, got ${error.constructor.name}: ${error.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test('shape mismatch names the operation and both shapes', () => {
  throwsWith(() => qkv.matmul(A23, B22), RangeError,
    /^matmul: A is 2×3 but B is 2×2; A's columns must equal B's rows$/);
  throwsWith(() => qkv.attend([[1, 2]], [[1, 2, 3]], [[1]]), RangeError, /attend: Q is 1×2 but K is 1×3/);
  throwsWith(() => qkv.attend([[1, 2]], [[1, 2]], [[1], [2]]), RangeError, /attend: K is 1×2 but V is 2×1/);
  throwsWith(() => qkv.selfAttention(A23, I3, I3, B22), RangeError, /selfAttention: X is 2×3 but Wv is 2×2/);
  throwsWith(() => qkv.selfAttention(A23, I3, [[1], [2], [3]], I3), RangeError, /Wq is 3×3 but Wk is 3×1/);
});

test('Q×K instead of Q×Kᵀ fails with the shape error the page shows', () => {
  const Q = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1]]; // 4 tokens, d_k = 3
  throwsWith(() => qkv.matmul(Q, Q), RangeError, /A is 4×3 but B is 4×3/);
  assert.equal(qkv.matmul(Q, qkv.transpose(Q)).rows, 4);
});

test('NaN or ±Infinity names the matrix and the position', () => {
  throwsWith(() => qkv.matmul([[1, 2], [3, NaN]], B22), RangeError, /matmul: A\[1\]\[1\] is NaN/);
  throwsWith(() => qkv.matmul(A23, [[1], [2], [Infinity]]), RangeError, /matmul: B\[2\]\[0\] is Infinity/);
  throwsWith(() => qkv.transpose({ rows: 1, cols: 2, data: [0, -Infinity] }), RangeError, /transpose: A\[0\]\[1\] is -Infinity/);
  throwsWith(() => qkv.selfAttention([[1, 1e309]], [[1], [1]], [[1], [1]], [[1], [1]]), RangeError,
    /selfAttention: X\[0\]\[1\] is Infinity/);
  throwsWith(() => qkv.softmaxRows([[0, NaN]]), RangeError, /softmaxRows: S\[0\]\[1\] is NaN/);
  throwsWith(() => qkv.softmaxRows([[0, Infinity]]), RangeError, /S\[0\]\[1\] is Infinity/);
  throwsWith(() => qkv.softmaxRows([[0, 1], [-Infinity, -Infinity]]), RangeError, /row 1 of S is entirely -Infinity/);
  // a finite double that float32 cannot hold would silently become Infinity
  throwsWith(() => qkv.matmul([[1e39]], [[1]]), RangeError, /beyond float32's range/);
});

test('products that overflow float32 inside the computation are refused, not returned as Infinity or NaN', () => {
  const overflow = /a result is too large for float32/;
  const big = [[3e38, 3e38]];
  throwsWith(() => qkv.selfAttention(big, [[3e38], [3e38]], [[1], [1]], [[1], [1]]), RangeError,
    /^selfAttention: a result is too large for float32/);
  // finite Q and K whose dot product is not finite
  throwsWith(() => qkv.attend([[1e20, 1e20]], [[1e20, 1e20]], [[1]]), RangeError, /^attend: a result is too large/);
  throwsWith(() => qkv.attend([[1e20, 1e20], [1, 1]], [[-1e20, -1e20], [1e20, 1e20]], [[1], [2]]), RangeError, overflow);
  // a finite score divided by a tiny scale
  throwsWith(() => qkv.attend([[1e10]], [[1e10]], [[1]], { scale: 1e-30 }), RangeError, overflow);
  throwsWith(() => qkv.matmul([[1e20, 1e20]], [[1e20], [1e20]]), RangeError, /^matmul: a result is too large/);
  // large but representable: answered, and finite
  const ok = qkv.selfAttention([[1e10, 1e10]], [[1e10], [1e10]], [[1], [1]], [[1], [1]]);
  assert.ok([...ok.scores.data, ...ok.weights.data, ...ok.output.data].every(Number.isFinite));
});

test('ragged rows, empty matrices and non-numbers', () => {
  throwsWith(() => qkv.matmul([[1, 2], [3]], B22), TypeError, /matmul: A is ragged: row 1 has 1 entries but row 0 has 2/);
  throwsWith(() => qkv.matmul([], B22), RangeError, /matmul: A is empty/);
  throwsWith(() => qkv.matmul([[]], B22), RangeError, /matmul: A is empty/);
  throwsWith(() => qkv.matmul([[1, '2']], B22), TypeError, /matmul: A\[0\]\[1\] is the string "2", not a number/);
  throwsWith(() => qkv.matmul([[1, null]], B22), TypeError, /A\[0\]\[1\] is null, not a number/);
  throwsWith(() => qkv.matmul([1, 2], B22), TypeError, /A must be an array of rows/);
  throwsWith(() => qkv.matmul('[[1]]', B22), TypeError, /A must be a Matrix/);
  throwsWith(() => qkv.matmul(undefined, B22), TypeError, /A must be a Matrix/);
  throwsWith(() => qkv.matmul({ rows: 2, cols: 2, data: [1, 2, 3] }, B22), RangeError, /data has 3 entries, not 4/);
  throwsWith(() => qkv.matmul({ rows: 0, cols: 2, data: [] }, B22), RangeError, /must not be empty/);
  throwsWith(() => qkv.matmul({ rows: 1.5, cols: 2, data: [1, 2] }, B22), TypeError, /integer rows and cols/);
});

test('a Matrix made by hand: its sides, its data\'s length and get()\'s indices are checked', () => {
  throwsWith(() => new Matrix(-1, 2), RangeError, /^new Matrix\(rows, cols, data\?\): rows must be an integer from 0 to 16777216, got -1$/);
  throwsWith(() => new Matrix(), TypeError, /rows must be an integer from 0 to 16777216, got undefined/);
  throwsWith(() => new Matrix(2, 1.5), RangeError, /cols must be an integer/);
  throwsWith(() => new Matrix(2, 2, [1, 2, 3]), RangeError, /data has 3 entries; a 2×2 matrix has 4/);
  throwsWith(() => new Matrix(2 ** 14, 2 ** 13), RangeError, /has more than 67108864 entries/);
  const m = new Matrix(2, 3, [1, 2, 3, 4, 5, 6]);
  assert.equal(m.get(1, 2), 6);
  assert.deepEqual(new Matrix(2, 2).toArray(), [[0, 0], [0, 0]]);
  throwsWith(() => m.get(5, 5), RangeError, /^get\(i, j\): \(5, 5\) is outside this 2×3 matrix \(rows 0 to 1, columns 0 to 2\)$/);
  throwsWith(() => m.get(0, 3), RangeError, /outside this 2×3 matrix/);
  throwsWith(() => m.get(0.5, 0), RangeError, /outside/);
  assert.deepEqual(qkv.matmul(m, [[1], [0], [0]]).toArray(), [[1], [4]]);
});

test('options are checked', () => {
  throwsWith(() => qkv.attend(I3, I3, I3, { scale: 0 }), RangeError, /scale must be a positive finite number/);
  throwsWith(() => qkv.attend(I3, I3, I3, { scale: -1 }), RangeError, /scale must be a positive/);
  throwsWith(() => qkv.attend(I3, I3, I3, { scale: NaN }), RangeError, /scale must be a positive/);
  throwsWith(() => qkv.attend(I3, I3, I3, { scale: 'yes' }), TypeError, /scale must be true/);
  throwsWith(() => qkv.attend(I3, I3, I3, { causal: 1 }), TypeError, /causal must be true or false/);
  throwsWith(() => qkv.attend(I3, I3, I3, { scaled: true }), TypeError, /unknown option "scaled"/);
  throwsWith(() => qkv.attend(I3, I3, I3, null), TypeError, /options must be an object/);
  throwsWith(() => qkv.attend([[1], [2]], [[1]], [[1]], { causal: true }), RangeError, /causal attention needs at least as many keys/);
});

test('sizes too large to allocate throw a RangeError, not an abort', () => {
  // 2^14 × 2^14 = 2^28 entries: over the 2^26 limit, refused before any allocation
  throwsWith(() => qkv.rng(1).randn(16384, 16384), RangeError, /randn: 16384×16384 is too large/);
  throwsWith(() => qkv.matmul({ rows: 1e9, cols: 1, data: [] }, B22), RangeError, /too large/);
  // small inputs whose product is huge: 40000×1 · 1×40000 would be 1.6e9 entries
  const column = { rows: 40000, cols: 1, data: new Float32Array(40000) };
  const row = { rows: 1, cols: 40000, data: new Float32Array(40000) };
  throwsWith(() => qkv.matmul(column, row), RangeError, /matmul: the result would be 40000×40000, too large/);
  throwsWith(() => qkv.attend(column, column, column), RangeError, /the score matrix would be 40000×40000, too large/);
  // within the entry limit but more work than one call may take (2^30 multiply-adds): refused
  // before anything is allocated
  const half = () => ({ rows: 8192, cols: 4096, data: new Float32Array(8192 * 4096) });
  const heapBefore = qkv.heapUsed();
  throwsWith(() => {
    qkv.attend(half(), half(), half()); // 8192² × (4096 + 4096) = 5.5e11 multiply-adds
  }, RangeError, /^attend: attention of 8192 queries over 8192 keys would take [\d.e+]+ multiply-adds of work \(5\.50e\+11 multiply-adds \+ 6\.71e\+7 softmax entries × \d+ \+ 2\.68e\+8 floats copied or written × \d+\), more than the limit of 1073741824/);
  assert.equal(qkv.heapUsed(), heapBefore);
  // within the entry and work limits but more than the heap has left (it grows to 1 GiB at
  // most): C's malloc returns NULL and the API turns that into a RangeError. The heap is filled
  // first (no one call within the work limit needs 1 GiB: 2^30 of work copies at most 2.7e7 floats)
  const blocks = [];
  for (let block; (block = qkv._heap.call('qkv_alloc_bytes', 32 * 2 ** 20));) blocks.push(block);
  try {
    const wide = { rows: 4, cols: 2 ** 20, data: new Float32Array(2 ** 22) };
    throwsWith(() => {
      qkv.attend(wide, wide, wide); // 3 × 16 MiB in, 16 MiB out
    }, RangeError, /^out of WebAssembly memory: could not allocate \d+ bytes$/);
  } finally {
    for (const block of blocks) qkv._heap.call('qkv_free', block);
  }
  assert.equal(qkv.heapUsed(), heapBefore);
  assert.deepEqual(qkv.matmul([[2]], [[3]]).toArray(), [[6]], 'the module keeps working');
});

test('rng seeds and randn sizes are checked', () => {
  throwsWith(() => qkv.rng(-1), RangeError, /seed must be an integer from 0 to 4294967295, got -1/);
  throwsWith(() => qkv.rng(2 ** 32), RangeError, /got 4294967296/);
  throwsWith(() => qkv.rng('42'), TypeError, /got the string "42"/);
  throwsWith(() => qkv.rng(1).randn(0, 3), RangeError, /rows must be a positive integer/);
  throwsWith(() => qkv.rng(1).randn(2, 1.5), RangeError, /cols must be a positive integer/);
  throwsWith(() => qkv.rng(1).randn(2), TypeError, /cols must be a positive integer, got undefined/);
});

test('the module keeps working after every kind of error, and heapUsed() stays flat', () => {
  const r = qkv.rng(7);
  const X = r.randn(5, 8), W = r.randn(8, 4);
  const bad = [
    () => qkv.matmul(A23, B22),
    () => qkv.matmul([[NaN]], [[1]]),
    () => qkv.softmaxRows([[-Infinity]]),
    () => qkv.selfAttention(X, W, W, [[1]]),
    () => qkv.attend(X, X, X, { scale: -2 }),
    () => qkv.rng(1).randn(16384, 16384),
  ];
  const good = () => {
    qkv.selfAttention(X, W, W, W, { causal: true });
    qkv.rng(3).randn(3, 3);
    qkv.softmaxRows([[0, -Infinity, 1]]);
    qkv.transpose(X);
  };
  good();
  const before = qkv.heapUsed();
  const reference = qkv.selfAttention(X, W, W, W).output.toArray();
  for (let i = 0; i < 20000; i++) {
    try {
      bad[i % bad.length]();
      assert.fail('bad input was accepted');
    } catch (error) {
      assert.ok(error instanceof RangeError || error instanceof TypeError, error.message);
    }
    if (i % 4 === 0) good();
  }
  assert.equal(qkv.heapUsed(), before, 'heapUsed() after 20,000 calls');
  assert.deepEqual(qkv.selfAttention(X, W, W, W).output.toArray(), reference, 'same answer as before');
});

test('results are copies: changing one does not change the next', () => {
  const a = qkv.matmul([[1, 2]], [[3], [4]]);
  a.data[0] = 99;
  assert.equal(qkv.matmul([[1, 2]], [[3], [4]]).data[0], 11);
});

test('a Matrix the API returned skips the JavaScript entry check, yet NaN written into it is caught with its position', () => {
  const g = qkv.rng(1);
  const A = g.randn(3, 3);
  const before = qkv.heapUsed();
  A.data[4] = NaN;  // the caller changes a result: C's finiteness check finds it, the API names it
  throwsWith(() => qkv.matmul(A, I3), RangeError, /^matmul: A\[1\]\[1\] is NaN; every entry must be a finite number$/);
  throwsWith(() => qkv.matmul(I3, A), RangeError, /^matmul: B\[1\]\[1\] is NaN/);
  throwsWith(() => qkv.transpose(A), RangeError, /^transpose: A\[1\]\[1\] is NaN/);
  throwsWith(() => qkv.attend(I3, I3, A), RangeError, /^attend: V\[1\]\[1\] is NaN/);
  throwsWith(() => qkv.selfAttention(I3, I3, A, I3), RangeError, /^selfAttention: Wk\[1\]\[1\] is NaN/);
  A.data[4] = Infinity;
  throwsWith(() => qkv.softmaxRows(A), RangeError, /^softmaxRows: S\[1\]\[1\] is Infinity/);
  throwsWith(() => qkv.attend(A.scale(2), I3, I3), RangeError, /^attend: Q\[1\]\[1\] is Infinity/);
  A.data.fill(-Infinity, 3, 6);  // row 1 masked entirely: softmax's own error
  throwsWith(() => qkv.softmaxRows(A), RangeError, /^softmaxRows: row 1 of S is entirely -Infinity/);
  // a returned Matrix whose shape or data the caller replaced is checked like any object
  const B = g.randn(2, 2);
  B.rows = 3;
  throwsWith(() => qkv.matmul(B, B22), RangeError, /B is 3×2 but its data has 4 entries, not 6|A is 3×2 but its data has 4 entries, not 6/);
  B.rows = 2;
  B.data = [1, 2, 3, NaN];
  throwsWith(() => qkv.matmul(B, B22), RangeError, /^matmul: A\[1\]\[1\] is NaN/);
  assert.equal(qkv.heapUsed(), before, 'heapUsed() after the errors');
});

test('a user-made Matrix with a Float32Array is checked entry by entry (it is not the API\'s)', () => {
  const m = { rows: 2, cols: 2, data: new Float32Array([1, 2, NaN, 4]) };
  throwsWith(() => qkv.matmul(m, B22), RangeError, /^matmul: A\[1\]\[0\] is NaN/);
  throwsWith(() => qkv.softmaxRows({ rows: 1, cols: 2, data: new Float32Array([0, Infinity]) }), RangeError, /S\[0\]\[1\] is Infinity/);
  assert.deepEqual(qkv.softmaxRows({ rows: 1, cols: 2, data: new Float32Array([0, -Infinity]) }).toArray(), [[1, 0]]);
});

// ---- inputs that used to be accepted, messages that did not name the problem, sizes
// checked after allocating ----

test('a DataView row is refused by name (it has no entries to index)', () => {
  const view = new DataView(new ArrayBuffer(8));
  throwsWith(() => qkv.matmul([view], B22), TypeError, /^matmul: A must be an array of rows \(nested arrays\), but row 0 is a DataView$/);
  throwsWith(() => qkv.matmul([[1, 2], view], B22), TypeError, /^matmul: A row 1 is a DataView, not an array$/);
  throwsWith(() => qkv.transpose({ rows: 1, cols: 2, data: view }), TypeError, /^transpose: A\.data must be an array or a typed array of numbers, got a DataView$/);
  // typed arrays of numbers are rows; a BigInt64Array's entries are not numbers
  assert.deepEqual(qkv.matmul([new Float64Array([1, 2]), new Int8Array([3, 4])], B22).toArray(), [[7, 10], [15, 22]]);
  throwsWith(() => qkv.matmul([new BigInt64Array(2)], B22), TypeError, /^matmul: A\[0\]\[0\] is the bigint 0n, not a number$/);
});

test('options must be plain objects: an array or a Date is refused, naming options', () => {
  for (const [options, shown] of [[[], 'an array'], [new Date(0), 'a Date'], [new Map(), 'a Map'], [new (class Opts {})(), 'an object']]) {
    throwsWith(() => qkv.attend(I3, I3, I3, options), TypeError, new RegExp(`^attend: options must be an object like \\{ scale: true, causal: false, outputs: \\['output'\\] \\} \\(a plain object\\), got ${shown}$`));
    throwsWith(() => qkv.selfAttention(I3, I3, I3, I3, options), TypeError, /^selfAttention: options must be an object/);
    assert.throws(() => qkv.createModel(options), { name: 'TypeError', message: /^createModel: options must be an object like \{ dim: 16, seed: 1 \} \(a plain object\)/ });
  }
  // a plain object without a prototype is fine
  assert.equal(qkv.attend(I3, I3, I3, Object.assign(Object.create(null), { scale: false })).weights.rows, 3);
});

test('load(null) and other bad options reject the promise; load never throws', async () => {
  for (const [options, pattern] of [[null, /^load: options must be an object like \{ fresh: true, kernels: 'scalar', gpt: true, model: true \} \(a plain object\), got null$/],
    [[], /got an array/], [{ fresh: 'yes' }, /^load: fresh must be true or false, got the string "yes"$/],
    [{ simd: 1 }, /^load: simd must be true or false, got 1$/],
    [{ model: 1 }, /^load: model must be true or false, got 1$/],
    [{ kernels: 'sse' }, /^load: kernels must be 'relaxed-simd', 'simd128', 'scalar' or left out, got the string "sse"$/],
    [{ kernels: true }, /^load: kernels must be .* got true$/],
    [{ kernels: 'scalar', simd: true }, /^load: give kernels or simd, not both \(simd: true means kernels: 'simd128'\)$/],
    [{ freshh: true }, /^load: unknown option "freshh"; the options are fresh, kernels, simd, gpt, model$/]]) {
    let promise;
    assert.doesNotThrow(() => { promise = load(options); });
    await assert.rejects(promise, (error) => error instanceof TypeError && pattern.test(error.message));
  }
  assert.equal(await load(), qkv, 'the shared instance is unaffected');
});

test('getters and Proxy traps that throw become TypeErrors naming the argument; the module keeps working', () => {
  const before = qkv.heapUsed();
  const boom = { get rows() { throw new Error('boom'); }, cols: 2, data: [1, 2] };
  throwsWith(() => qkv.matmul(boom, B22), TypeError, /^matmul: reading A threw Error: boom$/);
  const trap = new Proxy([[1, 2]], { get(target, key) { if (key === '0') throw new RangeError('no'); return target[key]; } });
  throwsWith(() => qkv.matmul(B22, trap), TypeError, /^matmul: reading B threw RangeError: no$/);
  const keys = new Proxy({}, { ownKeys() { throw new Error('keys'); } });
  throwsWith(() => qkv.attend(I3, I3, I3, keys), TypeError, /^attend: reading options threw Error: keys$/);
  const thrower = { get scale() { throw 42; } };  // eslint-disable-line no-throw-literal
  throwsWith(() => qkv.attend(I3, I3, I3, thrower), TypeError, /^attend: reading options threw 42$/);
  // a Proxy that behaves is read like the array it wraps
  assert.deepEqual(qkv.matmul(new Proxy(B22, {}), B22).toArray(), [[7, 10], [15, 22]]);
  assert.equal(qkv.heapUsed(), before);
});

test('dimensions that are not integers are printed in the message', () => {
  throwsWith(() => qkv.transpose({ rows: NaN, cols: 2, data: [1, 2] }), TypeError, /^transpose: A needs integer rows and cols, got rows NaN and cols 2$/);
  throwsWith(() => qkv.transpose({ rows: 1, cols: Infinity, data: [1, 2] }), TypeError, /got rows 1 and cols Infinity$/);
  throwsWith(() => qkv.transpose({ rows: 2.5, cols: 2, data: [1, 2] }), TypeError, /got rows 2\.5 and cols 2$/);
  throwsWith(() => qkv.transpose({ rows: '2', cols: 1, data: [1, 2] }), TypeError, /got rows the string "2" and cols 1$/);
  throwsWith(() => qkv.rng(1).randn(-0, 2), RangeError, /^randn: rows must be a positive integer, got -0$/);
});

test('float32: what rounds to a finite float32 is accepted (3.4028235e38, numpy\'s printed max), what rounds to Infinity is not', () => {
  assert.deepEqual(qkv.matmul([[3.4028235e38]], [[1]]).toArray(), [[Math.fround(3.4028235e38)]]);
  assert.equal(Math.fround(3.4028235e38), 3.4028234663852886e38);
  throwsWith(() => qkv.matmul([[3.4028236e38]], [[1]]), RangeError, /^matmul: A\[0\]\[0\] is 3\.4028236e\+38, beyond float32's range \(±3\.4028234663852886e\+38\)$/);
  throwsWith(() => qkv.matmul([[-1e39]], [[1]]), RangeError, /A\[0\]\[0\] is -1e\+39, beyond float32's range/);
});

test('a scale float32 cannot hold names scale and its range, instead of "status 6"', () => {
  const range = /scale must be a positive finite number that float32 can hold \(1\.1754943508222875e-38 to 3\.4028234663852886e\+38\)/;
  for (const scale of [1e-50, 1e39, 1e-40]) {
    throwsWith(() => qkv.attend(I3, I3, I3, { scale }), RangeError, new RegExp(`^attend: ${range.source}, got ${String(scale).replace('+', '\\+')}$`));
    throwsWith(() => qkv.selfAttention(I3, I3, I3, I3, { scale }), RangeError, range);
  }
  assert.equal(qkv.attend(I3, I3, I3, { scale: 3.4028235e38 }).weights.rows, 3);
});

test('every output size is checked in JavaScript before anything is allocated, and WASM memory does not grow', () => {
  const memory = () => qkv._heap.memoryBytes();
  const heap = qkv.heapUsed(), bytes = memory();
  // 2^24 + 1 rows: within 2^26 entries? No: 50,331,651 entries fit, but a side above 2^24 does not
  throwsWith(() => qkv.rng(1).randn(2 ** 24 + 1, 3), RangeError, /^randn: 16777217×3 is too large \(at most 67108864 entries and 16777216 per side\)$/);
  // Q = X·Wq would be 8192 × 8193 > 2^26 entries, although X, Wq and the 8192² scores fit
  const X = { rows: 8192, cols: 1, data: new Float32Array(8192) };
  const W = { rows: 1, cols: 8193, data: new Float32Array(8193) };
  throwsWith(() => qkv.selfAttention(X, W, W, W), RangeError, /^selfAttention: Q and K would be 8192×8193, too large/);
  const Wv = { rows: 1, cols: 4, data: new Float32Array(4) };
  const Wqk = { rows: 1, cols: 4, data: new Float32Array(4) };
  throwsWith(() => qkv.selfAttention(X, Wqk, Wqk, W), RangeError, /^selfAttention: V and the output would be 8192×8193, too large/);
  assert.ok(qkv.selfAttention({ rows: 4, cols: 1, data: [1, 2, 3, 4] }, Wqk, Wqk, Wv).output.rows === 4);
  assert.equal(qkv.heapUsed(), heap);
  assert.equal(memory(), bytes, 'WASM memory grew for a call that was refused');
});

test('one call does at most 2^30 multiply-adds of work: larger ones are refused before allocating', () => {
  const heap = qkv.heapUsed();
  const A = { rows: 1024, cols: 1024, data: new Float32Array(1024 * 1024) };
  const B = { rows: 1024, cols: 1025, data: new Float32Array(1024 * 1025) };
  throwsWith(() => qkv.matmul(A, B), RangeError, /^matmul: 1024×1024 by 1024×1025 would take [\d.e+]+ multiply-adds of work \(1\.07e\+9 multiply-adds \+ 3\.15e\+6 floats copied or written × \d+\), more than the limit of 1073741824 \(2\^30\) for one call$/);
  const Q = { rows: 4096, cols: 64, data: new Float32Array(4096 * 64) };
  throwsWith(() => qkv.attend(Q, Q, Q), RangeError, /^attend: attention of 4096 queries over 4096 keys would take [\d.e+]+ multiply-adds of work \(2\.15e\+9 multiply-adds \+ 1\.68e\+7 softmax entries × \d+ \+ 3\.46e\+7 floats copied or written × \d+\)/);
  throwsWith(() => qkv.selfAttention(Q, { rows: 64, cols: 64, data: new Float32Array(4096) }, { rows: 64, cols: 64, data: new Float32Array(4096) }, { rows: 64, cols: 64, data: new Float32Array(4096) }),
    RangeError, /^selfAttention: self-attention of 4096 tokens would take [\d.e+]+ multiply-adds of work \(2\.20e\+9 multiply-adds \+ 1\.68e\+7 softmax entries × \d+ \+ 3\.49e\+7 floats copied or written × \d+\)/);
  assert.equal(qkv.heapUsed(), heap);
});

// Calls that the multiply-add count alone used to let through, each several times as long as
// matmul at the limit (positionalEncoding(2^20, 64) 7.5 ×, randn(8192, 8192) 6.2 ×, selfAttention
// of 8192 tokens with d = 1 2 ×, transpose of 8192×8192 about 6 ×): the rule now counts every
// float copied or written, softmax entry, table entry, random draw and optimizer update, weighted
// by WORK_WEIGHTS (measured by tools/measure-work.mjs, which also times each call at its new
// limit against matmul's), and refuses them before anything is allocated.
test('the work rule counts floats, softmax entries, table entries, random draws and parameter updates, not only multiply-adds', () => {
  const memory = () => qkv._heap.memoryBytes();
  const heap = qkv.heapUsed(), bytes = memory();
  const e = (x) => x.toExponential(2).replace(/[.+]/g, '\\$&');
  const N = 2 ** 26;
  throwsWith(() => qkv.positionalEncoding(2 ** 20, 64), RangeError, new RegExp(`^positionalEncoding: the table of 1048576×64 entries would take ${e(N * (W.table + W.elements))} multiply-adds of work \\(6\\.71e\\+7 table entries × ${W.table} \\+ 6\\.71e\\+7 floats copied or written × ${W.elements}\\), more than the limit of 1073741824`));
  throwsWith(() => qkv.rng(1).randn(8192, 8192), RangeError, new RegExp(`^randn: 8192×8192 normal draws would take ${e(N * (W.draws + W.elements))} multiply-adds of work \\(6\\.71e\\+7 random draws × ${W.draws} \\+ 6\\.71e\\+7 floats copied or written × ${W.elements}\\)`));
  const X = { rows: 8192, cols: 1, data: new Float32Array(8192) }, one = { rows: 1, cols: 1, data: new Float32Array(1) };
  throwsWith(() => qkv.selfAttention(X, one, one, one), RangeError, /^selfAttention: self-attention of 8192 tokens would take [\d.e+]+ multiply-adds of work \(1\.34e\+8 multiply-adds \+ 6\.71e\+7 softmax entries × \d+ \+ 1\.34e\+8 floats copied or written × \d+\)/);
  const big = { rows: 8192, cols: 8192, data: new Float32Array(N) };
  throwsWith(() => qkv.transpose(big), RangeError, /^transpose: transposing 8192×8192 would take [\d.e+]+ multiply-adds of work \(1\.34e\+8 floats copied or written × \d+\)/);
  throwsWith(() => qkv.softmaxRows(big), RangeError, /^softmaxRows: the softmax of 8192×8192 would take [\d.e+]+ multiply-adds of work/);
  // a model whose random initial parameters are more work than a call may do: 2,100 words × dim 1024
  const words = Array.from({ length: 2100 }, (_, i) => [`w${i}`]);  // one-word sentences
  throwsWith(() => qkv.createModel({ corpus: words, dim: 1024 }), RangeError,
    /^createModel: creating a model of vocabulary 2101 × dim 1024 \(a random draw for each of its 7450677 parameters\) would take [\d.e+]+ multiply-adds of work \(7\.45e\+6 new parameters × \d+ \+ 2\.05e\+3 table entries × \d+\)/);
  assert.equal(qkv.heapUsed(), heap);
  assert.equal(memory(), bytes, 'WASM memory grew for a call that was refused');
  // the largest of each that fits, by the rule (tools/measure-work.mjs --check times them)
  const fits = [
    ['matmul 985³', { multiplyAdds: 985 ** 3, elements: 3 * 985 ** 2 }, { multiplyAdds: 986 ** 3, elements: 3 * 986 ** 2 }],
    ['positionalEncoding(2^20, 3)', { table: 3 * 2 ** 20, elements: 3 * 2 ** 20 }, { table: 4 * 2 ** 20, elements: 4 * 2 ** 20 }],
    ['randn(2030, 2030)', { draws: 2030 ** 2, elements: 2030 ** 2 }, { draws: 2040 ** 2, elements: 2040 ** 2 }],
  ];
  for (const [label, inside, outside] of fits) {
    assert.ok(workOf(inside) <= MAX_WORK && workOf(outside) > MAX_WORK, label);
  }
  assert.equal(qkv.positionalEncoding(2 ** 20, 3).rows, 2 ** 20, 'the largest table of width 3 is computed');
  assert.equal(qkv.heapUsed(), heap);
});

// docs/api.md's Limits state every weight of the rule and the largest calls it allows, as
// tools/docs-tables.mjs computes them (tests/docs.test.js keeps the page as the tool writes it):
// the weights must be WORK_WEIGHTS, and each largest size the largest the rule lets through.
test('docs/api.md: the weights of the work rule and the largest calls it names are those of WORK_WEIGHTS', () => {
  const facts = workRuleFacts();
  assert.deepEqual(facts.weights, { ...W });
  const fits = (parts) => workOf(parts) <= MAX_WORK;
  // each size fits and the next one does not
  const edge = (n, cost, what) => assert.ok(fits(cost(n)) && !fits(cost(n + 1)), `${what}: ${n} is not the largest`);
  edge(facts.matmul, (n) => ({ multiplyAdds: n ** 3, elements: 3 * n * n }), 'matmul');
  edge(facts.transpose, (n) => ({ elements: 2 * n * n }), 'transpose');
  edge(facts.softmaxRows, (n) => ({ exps: n * n, elements: 2 * n * n }), 'softmaxRows');
  edge(facts.randn, (n) => ({ draws: n * n, elements: n * n }), 'randn');
  edge(facts.selfAttentionTokens, (n) => ({ multiplyAdds: 3 * n + 2 * n * n, exps: n * n, elements: 2 * n * n + 5 * n + 3 }), 'selfAttention');
  assert.deepEqual([facts.positionalEncodingWidthAt2e20, facts.positionalEncodingWidthAt2e16], [3, 58]);
  assert.ok(fits({ table: 3 * 2 ** 20, elements: 3 * 2 ** 20 }) && fits({ table: 58 * 2 ** 16, elements: 58 * 2 ** 16 }));
  assert.ok(!fits({ table: 59 * 2 ** 16, elements: 59 * 2 ** 16 }), 'positionalEncoding 2^16 × 58 is the widest at 2^16 positions');
  assert.equal(facts.modelMillionParameters, Math.round(MAX_WORK / W.parameters / 1e4) / 100);
});
