// Property tests of the JavaScript API with fast-check: arbitrary JavaScript values for every
// argument of every call (wrong types, typed arrays of every kind, DataView, ragged and holey
// arrays, Proxies, getters and traps that throw, huge sizes, −0, NaN, subnormals, float32's
// max), mixed with valid matrices in every accepted form. Every call must either
//   - return the float64 reference result (tests/fuzz/reference.js) within its error bound, or
//   - throw a TypeError or RangeError whose message starts with the operation and names the
//     argument at fault (and the right one of the two when the generator knows which it made);
// and afterwards the module keeps working and heapUsed() is back at its baseline.
// The seed is fixed (printed; FC_SEED=n to choose another) so a failure reproduces; fast-check
// prints the counterexample and its replay path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { load, Matrix } from 'qkv-lab';
import * as ref from './fuzz/reference.js';
import { MAX_WORK, workOf } from '../web/matrix.js';

const qkv = await load({ gpt: true, model: true });
const SEED = Number(process.env.FC_SEED ?? 20240611);
const RUNS = Number(process.env.FC_RUNS ?? 1);  // multiplier for longer local runs
const FLT_MAX = 3.4028234663852886e38;
console.log(`api-properties: fast-check seed ${SEED} (FC_SEED=${SEED} reproduces this run)`);
let cases = 0;

// ---- valid matrices, in every form the API accepts ----

const entry = fc.oneof(
  { weight: 12, arbitrary: fc.double({ min: -100, max: 100, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1.401298464324817e-45, -1e-40, 1e-30, 3.4028235e38, -3.4028235e38, 1e20, 65504) },
);
const FORMS = ['nested', 'nestedFloat64', 'nestedFloat32', 'nestedInt16', 'likeArray', 'likeFloat32',
  'likeFloat64', 'likeUint8', 'Matrix', 'proxy', 'getters', 'extraKeys'];

/** value in form `form` for rows×cols entries flat; returns { value, data: what C receives } */
function build(form, rows, cols, flat) {
  const nested = (make) => Array.from({ length: rows }, (_, i) => make(flat.slice(i * cols, (i + 1) * cols)));
  let value;
  switch (form) {
    case 'nested': value = nested((r) => r); break;
    case 'nestedFloat64': value = nested((r) => Float64Array.from(r)); break;
    case 'nestedFloat32': value = nested((r) => Float32Array.from(r)); break;
    case 'nestedInt16': value = nested((r) => Int16Array.from(r, (x) => Math.round(Math.max(-32768, Math.min(32767, x))))); break;
    case 'likeArray': value = { rows, cols, data: flat.slice() }; break;
    case 'likeFloat32': value = { rows, cols, data: Float32Array.from(flat) }; break;
    case 'likeFloat64': value = { rows, cols, data: Float64Array.from(flat) }; break;
    case 'likeUint8': value = { rows, cols, data: Uint8Array.from(flat, (x) => Math.abs(Math.round(x)) % 256) }; break;
    case 'Matrix': value = new Matrix(rows, cols, Float32Array.from(flat)); break;
    case 'proxy': value = new Proxy(nested((r) => r), {}); break;
    case 'getters': value = { get rows() { return rows; }, get cols() { return cols; }, get data() { return flat; } }; break;
    case 'extraKeys': value = Object.assign({ rows, cols, data: flat.slice() }, { name: 'W', toString() { return 'x'; } }); break;
    default: throw new Error(form);
  }
  // what the C side receives: each entry as the form holds it, rounded to float32
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = Array.isArray(value) || form === 'proxy' ? value[i][j] : value.data[i * cols + j];
      data[i * cols + j] = v;
    }
  }
  return { value, data };
}

/** a valid matrix { kind: 'valid', value, rows, cols, data }, with the given sides when fixed */
const validMatrix = (rowsArb = fc.integer({ min: 1, max: 5 }), colsArb = fc.integer({ min: 1, max: 5 })) =>
  fc.tuple(rowsArb, colsArb).chain(([rows, cols]) => fc.tuple(
    fc.array(entry, { minLength: rows * cols, maxLength: rows * cols }),
    fc.constantFrom(...FORMS),
  ).map(([flat, form]) => ({ kind: 'valid', form, rows, cols, ...build(form, rows, cols, flat) })));

// ---- invalid ones: each knows the error it must cause ----

function throwing(message) {
  return () => { throw new Error(message); };
}

const INVALID = [
  // [label, make(), Error class]
  ['a DataView row', () => [new DataView(new ArrayBuffer(8))], TypeError],
  ['a DataView as data', () => ({ rows: 1, cols: 2, data: new DataView(new ArrayBuffer(8)) }), TypeError],
  ['BigInt64Array rows', () => [new BigInt64Array(2)], TypeError],
  ['BigUint64Array data', () => ({ rows: 1, cols: 1, data: new BigUint64Array(1) }), TypeError],
  ['ragged rows', () => [[1, 2], [3]], TypeError],
  ['a holey row', () => [[1, , 3]], TypeError],  // eslint-disable-line no-sparse-arrays
  ['a missing row', () => [, [1]], TypeError],  // eslint-disable-line no-sparse-arrays
  ['an empty array', () => [], RangeError],
  ['an empty row', () => [[]], RangeError],
  ['rows 0', () => ({ rows: 0, cols: 1, data: [] }), RangeError],
  ['rows −0', () => ({ rows: -0, cols: 1, data: [] }), RangeError],
  ['rows NaN', () => ({ rows: NaN, cols: 1, data: [1] }), TypeError],
  ['rows 2.5', () => ({ rows: 2.5, cols: 1, data: [1, 2] }), TypeError],
  ['rows Infinity', () => ({ rows: Infinity, cols: 1, data: [1] }), TypeError],
  ['rows as a string', () => ({ rows: '1', cols: 1, data: [1] }), TypeError],
  ['2^24 + 1 rows', () => ({ rows: 2 ** 24 + 1, cols: 1, data: { length: 2 ** 24 + 1 } }), RangeError],
  ['2^26 + 2^13 entries', () => ({ rows: 2 ** 13 + 1, cols: 2 ** 13, data: [] }), RangeError],
  ['2^40 entries', () => ({ rows: 2 ** 20, cols: 2 ** 20, data: [] }), RangeError],
  ['data too short', () => ({ rows: 2, cols: 2, data: [1, 2, 3] }), RangeError],
  ['data a string', () => ({ rows: 1, cols: 4, data: '1234' }), TypeError],
  ['no data', () => ({ rows: 1, cols: 1 }), TypeError],
  ['a NaN entry', () => [[1, NaN]], RangeError],
  ['an Infinity entry', () => ({ rows: 1, cols: 1, data: [Infinity] }), RangeError],
  ['a -Infinity entry', () => [[-Infinity]], RangeError],
  ['3.5e38, beyond float32', () => [[3.5e38]], RangeError],
  ['-1e300', () => [[-1e300]], RangeError],
  ['a string entry', () => [['1']], TypeError],
  ['a null entry', () => [[null]], TypeError],
  ['a boolean entry', () => ({ rows: 1, cols: 1, data: [true] }), TypeError],
  ['a bigint entry', () => [[1n]], TypeError],
  ['an object entry', () => [[{ valueOf: () => 1 }]], TypeError],
  ['a throwing rows getter', () => ({ get rows() { throw new Error('rows'); }, cols: 1, data: [1] }), TypeError],
  ['a throwing data getter', () => ({ rows: 1, cols: 1, get data() { throw new RangeError('data'); } }), TypeError],
  ['a throwing entry getter', () => [Object.defineProperty([0], 0, { get: throwing('entry') })], TypeError],
  ['a Proxy whose get throws', () => new Proxy([[1]], { get: throwing('trap') }), TypeError],
  ['a revoked Proxy', () => { const p = Proxy.revocable([[1]], {}); p.revoke(); return p.proxy; }, TypeError],
  ['a Proxy row whose length lies', () => [new Proxy([1, 2], { get: (t, k) => (k === 'length' ? 2 ** 30 : t[k]) })], RangeError],
  ['null', () => null, TypeError],
  ['undefined', () => undefined, TypeError],
  ['a number', () => 42, TypeError],
  ['a string', () => '[[1]]', TypeError],
  ['a symbol', () => Symbol('m'), TypeError],
  ['a function', () => () => [[1]], TypeError],
  ['a Date', () => new Date(0), TypeError],
  ['a Map', () => new Map([['rows', 1]]), TypeError],
  ['nested numbers, not rows', () => [1, 2], TypeError],
];
const invalidMatrix = fc.constantFrom(...INVALID).map(([label, make, error]) => ({ kind: 'invalid', label, value: make(), error }));
/** anything at all: fast-check's own generator; may happen to be valid */
const anyValue = fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true })
  .map((value) => ({ kind: 'unknown', label: 'fc.anything()', value }));

const matrixArg = (sides) => fc.oneof({ weight: 6, arbitrary: sides ?? validMatrix() }, { weight: 3, arbitrary: invalidMatrix }, { weight: 1, arbitrary: anyValue });

// options for attend / selfAttention
const OPTION_VALUES = [
  [{}, null], [{ scale: false }, null], [{ scale: true }, null], [{ causal: true }, null],
  [{ scale: 2.5, causal: false }, null], [{ scale: 3.4028235e38 }, null], [Object.create(null), null],
  [undefined, null],
  [null, TypeError], [[], TypeError], [new Date(0), TypeError], [new Map(), TypeError],
  [{ scale: 0 }, RangeError], [{ scale: -0 }, RangeError], [{ scale: -1 }, RangeError], [{ scale: NaN }, RangeError],
  [{ scale: 1e-50 }, RangeError], [{ scale: 1e39 }, RangeError], [{ scale: 1e-40 }, RangeError],
  [{ scale: 'yes' }, TypeError], [{ causal: 1 }, TypeError], [{ causal: 'true' }, TypeError], [{ scaled: true }, TypeError],
  [{ get scale() { throw new Error('getter'); } }, TypeError],
  [new Proxy({}, { ownKeys: throwing('keys') }), TypeError],
  [{ [Symbol('s')]: 1 }, TypeError],
];
const optionsArg = fc.constantFrom(...OPTION_VALUES).map(([value, error]) => ({
  kind: error ? 'invalid' : 'valid', value, error, label: 'options',
}));

const validOptionsArg = fc.constantFrom(...OPTION_VALUES.filter(([, error]) => !error))
  .map(([value]) => ({ kind: 'valid', value, error: null, label: 'options' }));

// ---- checking one call ----

// an argument's name as a word ("A" in "matmul: A[0][1] is NaN"); other marks ("×") anywhere
const NAME_RE = (name) => (/^\w+$/.test(name) ? new RegExp(`(^|[^\\w])${name}([^\\w]|$)`) : { test: (s) => s.includes(name) });

/**
 * Calls fn(); if every argument is valid, the result must pass check(result) (which may allow
 * a named RangeError through `allowed`); otherwise the call must throw a TypeError or
 * RangeError naming an invalid argument, of the class its generator expects.
 */
function expectCall(op, args, fn, { check, allowed = [] } = {}) {
  cases++;
  const before = qkv.heapUsed();
  let result, error = null;
  try {
    result = fn();
  } catch (e) {
    error = e;
  }
  assert.equal(qkv.heapUsed(), before, `${op}: heapUsed() changed (${error ? error.message : 'returned'})`);
  const bad = args.filter((a) => a.kind === 'invalid');
  const unknown = args.filter((a) => a.kind === 'unknown');
  if (error) {
    assert.ok(error instanceof TypeError || error instanceof RangeError,
      `${op} threw ${error?.constructor?.name}: ${error?.message}`);
    assert.ok(error.message.startsWith(`${op}: `), `${op}: the message does not start with the operation: ${error.message}`);
    if (bad.length + unknown.length === 0) {
      // every argument valid: only a documented refusal is allowed
      assert.ok(allowed.some((re) => re.test(error.message)), `${op} refused valid arguments: ${error.message}`);
      return null;
    }
    const named = [...bad, ...unknown, ...(allowed.some((re) => re.test(error.message)) ? args : [])]
      .filter((a) => a.names.some((n) => NAME_RE(n).test(error.message)));
    assert.ok(named.length > 0 || allowed.some((re) => re.test(error.message)),
      `${op}: "${error.message}" names none of the arguments at fault (${[...bad, ...unknown].map((a) => `${a.names[0]}: ${a.label ?? a.kind}`).join(', ')})`);
    // when only one argument is at fault and its generator knows the class, it must be that
    if (bad.length === 1 && unknown.length === 0 && bad[0].error && named.includes(bad[0])) {
      assert.ok(error instanceof bad[0].error, `${op}: ${bad[0].label} should be a ${bad[0].error.name}, got ${error.constructor.name}: ${error.message}`);
    }
    return null;
  }
  assert.equal(bad.length, 0, `${op} accepted ${bad.map((a) => `${a.names[0]} = ${a.label}`).join(', ')}`);
  if (unknown.length === 0 && check) check(result);
  return result;
}

function checkMatrixResult(label, m, rows, cols, expected) {
  assert.ok(m instanceof Matrix, `${label}: not a Matrix`);
  assert.equal(m.rows, rows, `${label}: rows`);
  assert.equal(m.cols, cols, `${label}: cols`);
  assert.ok(m.data instanceof Float32Array && m.data.length === rows * cols, `${label}: data`);
  const bad = ref.compare(m.data, expected);
  assert.equal(bad, null, bad && `${label}: entry ${bad.at} is ${bad.actual}, reference ${bad.expected} ± ${bad.tol}`);
}

const named = (arg, ...names) => ({ ...arg, names });
const OVERFLOW = /a result is too large for float32/;
const canary = () => qkv.matmul([[1, 2]], [[3], [4]]).data[0];

// ---- the properties ----

test('matmul(A, B): the reference product or a named TypeError/RangeError', () => {
  // half the pairs share the inner side, so that valid pairs multiply
  const pair = fc.integer({ min: 1, max: 5 }).chain((k) => fc.tuple(
    matrixArg(validMatrix(fc.integer({ min: 1, max: 5 }), fc.constant(k))),
    fc.oneof(matrixArg(validMatrix(fc.constant(k), fc.integer({ min: 1, max: 5 }))), matrixArg())));
  fc.assert(fc.property(pair, ([a, b]) => {
    const A = named(a, 'A'), B = named(b, 'B');
    const mismatch = a.kind === 'valid' && b.kind === 'valid' && a.cols !== b.rows;
    if (mismatch) B.kind = 'invalid', B.error = RangeError, B.names = ['A', 'B'];
    expectCall('matmul', [A, B], () => qkv.matmul(a.value, b.value), {
      allowed: [OVERFLOW],
      check: (m) => {
        const expected = ref.matmul(a.data, b.data, a.rows, a.cols, b.cols);
        checkMatrixResult('matmul', m, a.rows, b.cols, expected);
      },
    });
  }), { seed: SEED, numRuns: 2000 * RUNS });
  assert.equal(canary(), 11);
});

test('transpose(A) and softmaxRows(S): the reference or a named error', () => {
  fc.assert(fc.property(matrixArg(), fc.boolean(), (a, masks) => {
    expectCall('transpose', [named(a, 'A')], () => qkv.transpose(a.value), {
      check: (m) => checkMatrixResult('transpose', m, a.cols, a.rows, ref.transpose(a.data, a.rows, a.cols)),
    });
    // softmax: -Infinity entries are masks; a row of only -Infinity is refused
    let s = a;
    if (masks && a.kind === 'valid' && (a.form === 'nested' || a.form === 'likeArray')) {
      const value = a.form === 'nested' ? a.value.map((r) => r.map((x, j) => (j % 2 ? -Infinity : x)))
        : { ...a.value, data: a.value.data.map((x, i) => ((i % a.cols) % 2 ? -Infinity : x)) };
      s = { ...a, value, data: build(a.form === 'nested' ? 'nested' : 'likeArray', a.rows, a.cols,
        Array.from({ length: a.rows * a.cols }, (_, i) => ((i % a.cols) % 2 ? -Infinity : a.data[i]))).data };
    }
    expectCall('softmaxRows', [named(s, 'S')], () => qkv.softmaxRows(s.value), {
      check: (m) => checkMatrixResult('softmaxRows', m, s.rows, s.cols, ref.softmaxRows(s.data, s.rows, s.cols)),
    });
  }), { seed: SEED, numRuns: 2000 * RUNS });
  assert.equal(canary(), 11);
});

test('attend(Q, K, V, options): the reference attention or a named error', () => {
  const shapes = fc.record({ nq: fc.integer({ min: 1, max: 5 }), nk: fc.integer({ min: 1, max: 5 }), dk: fc.integer({ min: 1, max: 4 }), dv: fc.integer({ min: 1, max: 4 }) });
  const call = shapes.chain(({ nq, nk, dk, dv }) => fc.tuple(
    matrixArg(validMatrix(fc.constant(nq), fc.constant(dk))),
    matrixArg(validMatrix(fc.constant(nk), fc.constant(dk))),
    matrixArg(validMatrix(fc.constant(nk), fc.constant(dv))),
    optionsArg));
  fc.assert(fc.property(call, ([q, k, v, o]) => {
    const opts = o.value === undefined ? {} : o.value;
    const scale = opts && typeof opts === 'object' && 'scale' in opts && o.kind === 'valid' ? opts.scale : true;
    const causal = o.kind === 'valid' && opts.causal === true;
    const args = [named(q, 'Q'), named(k, 'K'), named(v, 'V'), named(o, 'options', 'scale', 'causal', 'scaled')];
    if (causal && q.kind === 'valid' && k.kind === 'valid' && q.rows > k.rows) {
      Object.assign(args[0], { kind: 'invalid', error: RangeError, names: ['Q', 'K', 'causal'] });
    }
    expectCall('attend', args, () => (o.value === undefined ? qkv.attend(q.value, k.value, v.value) : qkv.attend(q.value, k.value, v.value, o.value)), {
      allowed: [OVERFLOW],
      check: (r) => {
        const s = scale === true ? Math.sqrt(q.cols) : scale === false ? 1 : Math.fround(scale);
        const expected = ref.attention(q.data, k.data, v.data, q.rows, k.rows, q.cols, v.cols, s, causal);
        checkMatrixResult('attend scores', r.scores, q.rows, k.rows, expected.scores);
        checkMatrixResult('attend weights', r.weights, q.rows, k.rows, expected.weights);
        checkMatrixResult('attend output', r.output, q.rows, v.cols, expected.output);
      },
    });
  }), { seed: SEED, numRuns: 1500 * RUNS });
  assert.equal(canary(), 11);
});

test('selfAttention(X, Wq, Wk, Wv, options): the reference or a named error', () => {
  const shapes = fc.record({ n: fc.integer({ min: 1, max: 5 }), d: fc.integer({ min: 1, max: 4 }), dk: fc.integer({ min: 1, max: 4 }), dv: fc.integer({ min: 1, max: 4 }) });
  const call = shapes.chain(({ n, d, dk, dv }) => fc.tuple(
    matrixArg(validMatrix(fc.constant(n), fc.constant(d))),
    matrixArg(validMatrix(fc.constant(d), fc.constant(dk))),
    matrixArg(validMatrix(fc.constant(d), fc.constant(dk))),
    matrixArg(validMatrix(fc.constant(d), fc.constant(dv))),
    optionsArg));
  fc.assert(fc.property(call, ([x, wq, wk, wv, o]) => {
    const opts = o.value === undefined ? {} : o.value;
    const scale = o.kind === 'valid' && 'scale' in opts ? opts.scale : true;
    const causal = o.kind === 'valid' && opts.causal === true;
    const args = [named(x, 'X'), named(wq, 'Wq'), named(wk, 'Wk'), named(wv, 'Wv'), named(o, 'options', 'scale', 'causal', 'scaled')];
    expectCall('selfAttention', args, () => qkv.selfAttention(x.value, wq.value, wk.value, wv.value, o.value), {
      allowed: [OVERFLOW],
      check: (r) => {
        const s = scale === true ? Math.sqrt(wq.cols) : scale === false ? 1 : Math.fround(scale);
        const e = ref.selfAttention(x.data, wq.data, wk.data, wv.data, x.rows, x.cols, wq.cols, wv.cols, s, causal);
        assert.ok(!e.overflow, 'Q, K or V beyond float32 should have been refused');
        for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
          checkMatrixResult(`selfAttention ${key}`, r[key], r[key].rows, r[key].cols, e[key]);
        }
      },
    });
  }), { seed: SEED, numRuns: 1500 * RUNS });
  assert.equal(canary(), 11);
});

test('positionalEncoding(n, d, options): the sinusoidal table or a named error', () => {
  const integerish = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 9 }) },
    { weight: 2, arbitrary: fc.constantFrom(0, -0, -1, 2.5, NaN, Infinity, 2 ** 20, 2 ** 20 + 1, 2 ** 24 + 1, 2 ** 32, 1e300) },
    { weight: 1, arbitrary: fc.anything().filter((x) => typeof x !== 'number') });
  const BASES = [
    [10000, null], [2, null], [1.5, null], [1 + 2 ** -52, null], [1e300, null], [Number.MAX_VALUE, null],
    [1, RangeError], [0.5, RangeError], [0, RangeError], [-0, RangeError], [-10000, RangeError], [NaN, RangeError],
    [Infinity, RangeError], [-Infinity, RangeError], ['10000', TypeError], [null, TypeError], [10000n, TypeError],
  ];
  const optionsArb = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...BASES).map(([base, error]) => ({ kind: error ? 'invalid' : 'valid', value: { base }, error, base })) },
    { weight: 2, arbitrary: fc.constantFrom({}, undefined, Object.create(null)).map((value) => ({ kind: 'valid', value, base: 10000 })) },
    { weight: 2, arbitrary: fc.constantFrom(null, [], new Date(0), { Base: 2 }, { base: 2, d: 4 }, { get base() { throw new Error('getter'); } },
      new Proxy({}, { ownKeys: throwing('keys') })).map((value) => ({ kind: 'invalid', value, error: TypeError })) },
  );
  fc.assert(fc.property(integerish, integerish, optionsArb, (n, d, o) => {
    const count = (v) => typeof v === 'number' && Number.isInteger(v) && v > 0;
    const arg = (v, name, max) => ({ kind: count(v) && v <= max ? 'valid' : 'invalid', names: [name], error: typeof v === 'number' ? RangeError : TypeError });
    const a = arg(n, 'n', 2 ** 20), b = arg(d, 'd', 2 ** 24);
    const args = [a, b, { ...o, names: ['options', 'base', 'option'] }];
    if (a.kind === 'valid' && b.kind === 'valid' && n * d > 2 ** 26) Object.assign(a, { kind: 'invalid', error: RangeError, names: ['n', 'the table'] });
    // within the entry limit but more work than one call may do (every entry a power and a sine or cosine)
    else if (a.kind === 'valid' && b.kind === 'valid' && workOf({ table: n * d, elements: n * d }) > MAX_WORK) Object.assign(a, { kind: 'invalid', error: RangeError, names: ['n', 'the table'] });
    expectCall('positionalEncoding', args, () => (o.value === undefined ? qkv.positionalEncoding(n, d) : qkv.positionalEncoding(n, d, o.value)), {
      check: (m) => checkMatrixResult('positionalEncoding', m, n, d, ref.positionalEncoding(n, d, o.base)),
    });
  }), { seed: SEED, numRuns: 1000 * RUNS });
  assert.equal(canary(), 11);
});

test('multiHeadAttention(X, { Wq, Wk, Wv, Wo }, options): the reference, head by head, or a named error', () => {
  // heads: usually a divisor of d_model, sometimes not, sometimes not a count at all
  const shapes = fc.record({ n: fc.integer({ min: 1, max: 4 }), d: fc.integer({ min: 1, max: 4 }), dk: fc.integer({ min: 1, max: 3 }),
    heads: fc.integer({ min: 1, max: 3 }), dout: fc.integer({ min: 1, max: 4 }) });
  const headsArb = (heads, dm) => fc.oneof({ weight: 8, arbitrary: fc.constant({ heads, error: null }) },
    { weight: 2, arbitrary: fc.constantFrom(
      [dm + 1, RangeError], [0, RangeError], [-1, RangeError], [1.5, RangeError], [NaN, RangeError], [Infinity, RangeError],
      ['2', TypeError], [undefined, TypeError], [null, TypeError],
    ).map(([h, error]) => ({ heads: h, error: h === 1 || (Number.isInteger(h) && h > 0 && h <= dm && dm % h === 0) ? null : error })) });
  // five matrices per call: each mostly valid, so that about half the calls compute
  const arg = (sides) => fc.oneof({ weight: 12, arbitrary: sides }, { weight: 1, arbitrary: invalidMatrix }, { weight: 1, arbitrary: anyValue });
  const weightsForm = fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'missing Wo', 'extra key', 'array', 'null', 'Map', 'a throwing getter');
  const call = shapes.chain(({ n, d, dk, heads, dout }) => {
    const dm = heads * dk;
    return fc.tuple(
      arg(validMatrix(fc.constant(n), fc.constant(d))),
      arg(validMatrix(fc.constant(d), fc.constant(dm))),
      arg(validMatrix(fc.constant(d), fc.constant(dm))),
      arg(validMatrix(fc.constant(d), fc.constant(dm))),
      arg(validMatrix(fc.constant(dm), fc.constant(dout))),
      weightsForm, headsArb(heads, dm), fc.oneof({ weight: 3, arbitrary: validOptionsArg }, { weight: 1, arbitrary: optionsArg }));
  });
  let computed = 0;
  fc.assert(fc.property(call, ([x, wq, wk, wv, wo, form, h, o]) => {
    const W = { Wq: wq.value, Wk: wk.value, Wv: wv.value, Wo: wo.value };
    const weights = { plain: W, 'missing Wo': { Wq: W.Wq, Wk: W.Wk, Wv: W.Wv }, 'extra key': { ...W, Wx: W.Wq }, array: [W.Wq, W.Wk, W.Wv, W.Wo],
      null: null, Map: new Map(Object.entries(W)), 'a throwing getter': { ...W, get Wo() { throw new Error('getter'); } } }[form];
    // the options: scale and causal as for selfAttention, with heads added (a plain object only)
    let options = o.value;
    if (o.kind === 'valid') options = { ...(o.value ?? {}), heads: h.heads };
    const opts = o.kind === 'valid' ? options : {};
    const scale = 'scale' in opts ? opts.scale : true;
    const causal = opts.causal === true;
    const args = [named(x, 'X'), named(wq, 'Wq'), named(wk, 'Wk'), named(wv, 'Wv'), named(wo, 'Wo'),
      { kind: form === 'plain' ? 'valid' : 'invalid', error: TypeError, names: ['weights', 'weight', 'Wo', 'Wx'], label: form },
      { kind: o.kind === 'valid' && h.error ? 'invalid' : 'valid', error: h.error, names: ['heads'], label: `heads ${String(h.heads)}` },
      named(o, 'options', 'scale', 'causal', 'scaled', 'heads')];
    expectCall('multiHeadAttention', args, () => qkv.multiHeadAttention(x.value, weights, options), {
      allowed: [OVERFLOW],
      check: (r) => {
        const dm = wq.cols, H = h.heads, dk = dm / H;
        const s = scale === true ? Math.sqrt(dk) : scale === false ? 1 : Math.fround(scale);
        const e = ref.multiHeadAttention(x.data, wq.data, wk.data, wv.data, x.rows, x.cols, dm, H, s, causal);
        assert.ok(!e.overflow, 'a head\'s Q, K or V beyond float32 should have been refused');
        assert.equal(r.heads.length, H);
        e.heads.forEach((eh, k) => {
          for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
            checkMatrixResult(`multiHeadAttention head ${k} ${key}`, r.heads[k][key], x.rows, ['scores', 'weights'].includes(key) ? x.rows : dk, eh[key]);
          }
        });
        checkMatrixResult('multiHeadAttention concat', r.concat, x.rows, dm, e.concat);
        checkMatrixResult('multiHeadAttention output', r.output, x.rows, wo.cols, ref.matmul(r.concat.data, wo.data, x.rows, dm, wo.cols));
        computed++;
      },
    });
  }), { seed: SEED, numRuns: 1000 * RUNS });
  console.log(`api-properties: multiHeadAttention computed ${computed} results`);
  assert.ok(computed >= 100 * RUNS, `only ${computed} calls computed a result`);
  assert.equal(canary(), 11);
});

test('rng(seed).randn(rows, cols): numpy\'s stream or a named error', () => {
  const integerish = fc.oneof(fc.integer({ min: -3, max: 8 }), fc.constantFrom(0, -0, 2.5, NaN, Infinity, 2 ** 24 + 1, 2 ** 13 + 1, 2 ** 32, -1, 1e300),
    fc.anything().filter((x) => typeof x !== 'number'));
  const seedArb = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), integerish);
  fc.assert(fc.property(seedArb, integerish, integerish, (seed, rows, cols) => {
    const seedOk = typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff;
    const g = expectCall('rng', [{ kind: seedOk ? 'valid' : 'invalid', names: ['seed'], error: typeof seed === 'number' ? RangeError : TypeError }],
      () => qkv.rng(seed));
    if (!g) return;
    const count = (v) => typeof v === 'number' && Number.isInteger(v) && v > 0;
    const sizeOk = count(rows) && count(cols) && rows <= 2 ** 24 && cols <= 2 ** 24 && rows * cols <= 2 ** 26;
    const a = { kind: count(rows) ? 'valid' : 'invalid', names: ['rows', '×'], error: typeof rows === 'number' ? RangeError : TypeError };
    const b = { kind: count(cols) ? 'valid' : 'invalid', names: ['cols', '×'], error: typeof cols === 'number' ? RangeError : TypeError };
    if (count(rows) && count(cols) && !sizeOk) Object.assign(a, { kind: 'invalid', error: RangeError });
    expectCall('randn', [a, b], () => g.randn(rows, cols), {
      check: (m) => {
        assert.equal(m.rows * m.cols, rows * cols);
        const again = qkv.rng(seed).randn(rows, cols);
        assert.deepEqual(again.data, m.data, 'the same seed gives the same numbers');
        assert.ok(m.data.every(Number.isFinite));
      },
    });
  }), { seed: SEED, numRuns: 1000 * RUNS });
  assert.equal(canary(), 11);
});

test('createModel(options) and the model\'s methods: a working model or a named error; dispose frees everything', () => {
  const SMALL_CORPORA = [['一只 猫 在 叫', '一只 狗 在 叫'], '我爱吃苹果\n我爱吃香蕉', [['a', 'b'], ['b', 'c', 'a']], ['x']];
  const optionValue = {
    corpus: fc.oneof(fc.constantFrom(...SMALL_CORPORA), fc.constantFrom([], '', [''], ['<s> 猫'], [42], ['猫', null], 'x'.repeat(300), [['a b']], new Proxy(['a'], { get: throwing('corpus') }))),
    dim: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constantFrom(0, -1, 1.5, NaN, 1025, '4', -0)),
    seed: fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(-1, 2 ** 32, 0.5, null)),
    optimizer: fc.constantFrom('sgd', 'adam', 'SGD', 'rmsprop', '', 1, null),
    lr: fc.oneof(fc.double({ min: 1e-4, max: 1, noNaN: true }), fc.constantFrom(0, -1, NaN, Infinity, 1e39, 1e-50, 3.4028235e38, '0.1')),
    batchSize: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constantFrom(0, 2.5, 1e7)),
    steps: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0, -5)),
    beta1: fc.oneof(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.constantFrom(1, 0.99999999999, -0.1, NaN, 1 - 2 ** -24)),
    beta2: fc.oneof(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.constantFrom(1, -0, 'x')),
    eps: fc.oneof(fc.double({ min: 1e-10, max: 1e-3, noNaN: true }), fc.constantFrom(0, 1e-50, -1e-8, Infinity)),
  };
  const optionsRecord = fc.oneof(
    { weight: 8, arbitrary: fc.record(optionValue, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.constantFrom(null, [], new Date(0), 'sgd', { learningRate: 1 }, new Proxy({}, { ownKeys: throwing('k') })) },
  );
  const method = fc.constantFrom('step', 'train', 'loss', 'similarity', 'nearest', 'analogy', 'predict', 'attention', 'project2d', 'embeddings', 'getParameter', 'setParameter');
  const argument = fc.oneof(fc.constantFrom('猫', '狗', 'a', 'x', '一只', '飞机', '', 3, -0, null, undefined, ['a', 'b'], 'a b', [], 2, 1e9, 'embedding', 'Wq', 'bout', [[0]]),
    fc.anything());
  fc.assert(fc.property(optionsRecord, method, argument, argument, (options, name, x, y) => {
    cases++;
    const before = qkv.heapUsed();
    let model;
    try {
      model = qkv.createModel(options);
    } catch (error) {
      assert.ok(error instanceof TypeError || error instanceof RangeError, `createModel threw ${error?.constructor?.name}: ${error?.message}`);
      assert.match(error.message, /^createModel: /);
      assert.ok(/options|corpus|sentence|dim|seed|optimizer|lr|batchSize|steps|beta1|beta2|eps|option "/.test(error.message), `createModel: no argument named in ${error.message}`);
      assert.equal(qkv.heapUsed(), before, 'a refused createModel left memory behind');
      return;
    }
    try {
      cases++;
      let result;
      try {
        result = ({
          step: () => model.step(), train: () => model.train(typeof x === 'number' ? x : 2), loss: () => model.loss(x),
          similarity: () => model.similarity(x, y), nearest: () => model.nearest(x, y), analogy: () => model.analogy(x, y, x, 2),
          predict: () => model.predict(x), attention: () => model.attention(x), project2d: () => model.project2d(),
          embeddings: () => model.embeddings(), getParameter: () => model.getParameter(x), setParameter: () => model.setParameter(x, y),
        })[name]();
      } catch (error) {
        const ok = error instanceof TypeError || error instanceof RangeError || error.name === 'DivergenceError';
        assert.ok(ok, `${name} threw ${error?.constructor?.name}: ${error?.message}`);
        if (error.name !== 'DivergenceError') {
          assert.ok(/^(step|train|loss|similarity|nearest|analogy|predict|attention|getParameter|setParameter|tokenize)/.test(error.message) &&
            /word|tokens|steps|k must|sentence|corpus|parameter|setParameter|context|must be|unknown|is empty|reading/.test(error.message), `${name}: ${error.message}`);
        }
        return;
      }
      if (name === 'similarity') assert.ok(result >= -1 - 1e-6 && result <= 1 + 1e-6, `similarity ${result}`);
      if (name === 'predict') {
        const sum = result.reduce((s, r) => s + r.p, 0);
        assert.ok(Math.abs(sum - 1) < 1e-4 && result.length === model.vocab.length, `predict: ${sum}`);
      }
      if (name === 'step') assert.ok(Number.isFinite(result.loss) && result.loss <= model.lossLimit);
      if (name === 'project2d' || name === 'embeddings') assert.ok(result.data.every(Number.isFinite));
    } finally {
      model.dispose();
      assert.equal(qkv.heapUsed(), before, `createModel + ${name} + dispose left memory behind`);
    }
  }), { seed: SEED, numRuns: 600 * RUNS });
  assert.equal(canary(), 11);
});

test('transformerBlock(X, weights, options): a block trace or a named error', () => {
  // small shapes: d = heads · dk, h the MLP width; every tensor mostly valid
  const shapes = fc.record({ n: fc.integer({ min: 1, max: 4 }), heads: fc.integer({ min: 1, max: 3 }), dk: fc.integer({ min: 1, max: 2 }),
    h: fc.integer({ min: 1, max: 5 }) });
  const arg = (sides) => fc.oneof({ weight: 60, arbitrary: sides }, { weight: 1, arbitrary: invalidMatrix }, { weight: 1, arbitrary: anyValue });
  const vec = (k) => validMatrix(fc.constant(1), fc.constant(k));
  const NAMES = [['ln1', 'gamma'], ['ln1', 'beta'], ['attn', 'Wq'], ['attn', 'Wk'], ['attn', 'Wv'], ['attn', 'bq'], ['attn', 'bk'],
    ['attn', 'bv'], ['attn', 'Wo'], ['attn', 'bo'], ['ln2', 'gamma'], ['ln2', 'beta'], ['mlp', 'W1'], ['mlp', 'b1'], ['mlp', 'W2'], ['mlp', 'b2']];
  const optionValues = fc.oneof({ weight: 6, arbitrary: fc.constantFrom([{}, null], [{ causal: false }, null], [{ eps: 1e-3 }, null]) },
    { weight: 1, arbitrary: fc.constantFrom([{ causal: 1 }, TypeError], [{ eps: 0 }, RangeError], [{ eps: -1 }, RangeError],
      [{ eps: 'x' }, TypeError], [{ dropout: 0 }, TypeError], [{ heads: 0 }, RangeError]) });
  const call = shapes.chain(({ n, heads, dk, h }) => {
    const d = heads * dk;
    const sides = { Wq: [d, d], Wk: [d, d], Wv: [d, d], Wo: [d, d], W1: [d, h], W2: [h, d], b1: [1, h] };
    return fc.tuple(fc.constant({ n, heads, d, h }), arg(validMatrix(fc.constant(n), fc.constant(d))),
      fc.tuple(...NAMES.map(([, name]) => arg(sides[name] ? validMatrix(fc.constant(sides[name][0]), fc.constant(sides[name][1])) : vec(d)))),
      optionValues, fc.oneof({ weight: 8, arbitrary: fc.constant(heads) }, { weight: 1, arbitrary: fc.constantFrom(heads + 1, 1.5, '1', 0) }));
  });
  let computed = 0;
  fc.assert(fc.property(call, ([shape, x, tensors, [extra, optionError], heads]) => {
    const weights = { ln1: {}, attn: {}, ln2: {}, mlp: {} };
    NAMES.forEach(([group, name], i) => { weights[group][name] = tensors[i].value; });
    const headsError = heads === shape.heads || (Number.isInteger(heads) && heads >= 1 && heads <= shape.d && shape.d % heads === 0) ? null
      : typeof heads === 'number' ? RangeError : TypeError;
    // a vector also takes a flat array of numbers, so an invalid matrix there may be a vector of
    // the wrong length (a RangeError): its class is not known in advance
    const isVector = (i) => !['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'W2'].includes(NAMES[i][1]);
    const args = [named(x, 'X'), ...tensors.map((t, i) => named(isVector(i) && t.kind === 'invalid' ? { ...t, error: null } : t,
      `weights.${NAMES[i][0]}.${NAMES[i][1]}`, 'W1')),
      { kind: optionError ? 'invalid' : 'valid', error: optionError, names: ['causal', 'eps', 'dropout', 'heads'], label: JSON.stringify(extra) },
      { kind: headsError ? 'invalid' : 'valid', error: headsError, names: ['heads'], label: `heads ${heads}` }];
    expectCall('transformerBlock', args, () => qkv.transformerBlock(x.value, weights, { heads, ...extra }), {
      allowed: [OVERFLOW],
      check: (r) => {
        const { n, d, h } = shape;
        for (const [key, cols] of [['ln1', d], ['resid1', d], ['ln2', d], ['hidden', h], ['gelu', h], ['mlp', d], ['output', d]]) {
          assert.ok(r[key] instanceof Matrix && r[key].rows === n && r[key].cols === cols, `transformerBlock ${key}: shape`);
          assert.ok(r[key].data.every(Number.isFinite), `transformerBlock ${key}: finite`);
        }
        const causal = extra.causal !== false;
        for (const head of r.attention.heads) {
          for (let i = 0; i < n; i++) {
            let sum = 0;
            for (let j = 0; j < n; j++) {
              sum += head.weights.get(i, j);
              if (causal && j > i) assert.equal(head.weights.get(i, j), 0, 'causal mask');
            }
            assert.ok(Math.abs(sum - 1) < 1e-5, `a weights row sums to ${sum}`);
          }
        }
        computed++;
      },
    });
  }), { seed: SEED, numRuns: 500 * RUNS });
  console.log(`api-properties: transformerBlock computed ${computed} results`);
  assert.ok(computed >= 50 * RUNS, `only ${computed} calls computed a result`);
  assert.equal(canary(), 11);
});

test('createGPT(options) and the GPT\'s methods: a working GPT or a named error; dispose frees everything', () => {
  const TEXT = Array.from({ length: 12 }, (_, i) => 'abcde fgh'.slice(i % 4, 5 + (i % 5))).join('\n');
  const optionValue = {
    text: fc.oneof({ weight: 6, arbitrary: fc.constant(TEXT) }, { weight: 1, arbitrary: fc.constantFrom('', 'a\nb', 42, null, ['a'], `${TEXT}\n${'字'.repeat(3)}`) }),
    layers: fc.oneof(fc.integer({ min: 1, max: 2 }), fc.constantFrom(0, 17, 1.5, '1', NaN)),
    heads: fc.oneof(fc.constantFrom(1, 2), fc.constantFrom(0, 3, -1, null)),
    dim: fc.oneof(fc.constantFrom(4, 8), fc.constantFrom(0, 513, 6.5, '8')),
    context: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(0, 257, 2.5, Infinity)),
    seed: fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(-1, 2 ** 32, 0.5)),
    lr: fc.oneof(fc.double({ min: 1e-4, max: 0.1, noNaN: true }), fc.constantFrom(0, -1, NaN, 1e39, '0.1')),
    batch: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 257, 1.5)),
    steps: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, -5, 1e7)),
  };
  const optionsRecord = fc.oneof(
    { weight: 8, arbitrary: fc.record(optionValue, { requiredKeys: ['text'] }) },
    { weight: 1, arbitrary: fc.constantFrom(null, [], new Date(0), 'text', { txt: TEXT }, new Proxy({}, { ownKeys: throwing('k') })) },
  );
  const method = fc.constantFrom('step', 'train', 'evaluate', 'forward', 'generate', 'gradients', 'save', 'parameters');
  const argument = fc.oneof(fc.constantFrom('', 'a', 'abc', 'z', 'ab cd', 3, null, undefined, {}, { temperature: 0 }, { topK: 2, seed: 1 },
    { topP: 0.5 }, { temperature: -1 }, { topP: 2 }, { maxTokens: 1 }, { cache: false }, { cache: 1 }, 'abcdefghij'), fc.anything());
  fc.assert(fc.property(optionsRecord, method, argument, argument, (options, name, x, y) => {
    cases++;
    const before = qkv.heapUsed();
    let gpt;
    try {
      gpt = qkv.createGPT(options);
    } catch (error) {
      assert.ok(error instanceof TypeError || error instanceof RangeError, `createGPT threw ${error?.constructor?.name}: ${error?.message}`);
      assert.match(error.message, /^createGPT: /);
      assert.ok(/options|text|lines|characters|layers|heads|dim|context|seed|lr|batch|steps|option "|window|reading/.test(error.message), `createGPT: no argument named in ${error.message}`);
      assert.equal(qkv.heapUsed(), before, 'a refused createGPT left memory behind');
      return;
    }
    try {
      cases++;
      let result;
      try {
        result = ({
          step: () => gpt.step(), train: () => gpt.train(typeof x === 'number' ? x : 1), evaluate: () => gpt.evaluate(),
          forward: () => gpt.forward(x), generate: () => gpt.generate(x, y), gradients: () => gpt.gradients(x),
          save: () => qkv.loadGPT(gpt.save()), parameters: () => gpt.parameters(),
        })[name]();
      } catch (error) {
        const ok = error instanceof TypeError || error instanceof RangeError || error.name === 'DivergenceError';
        assert.ok(ok, `${name} threw ${error?.constructor?.name}: ${error?.message}`);
        if (error.name !== 'DivergenceError') {
          assert.ok(/^(step|train|evaluate|forward|generate|gradients|save|loadGPT): /.test(error.message) &&
            /text|prompt|steps|options|option "|temperature|topK|topP|seed|maxTokens|cache|must be|reading|vocabulary|characters/.test(error.message), `${name}: ${error.message}`);
        }
        return;
      }
      if (name === 'step') assert.ok(Number.isFinite(result.loss));
      if (name === 'evaluate') assert.ok(Number.isFinite(result.train) && Number.isFinite(result.val));
      if (name === 'generate') {
        assert.equal(typeof result.text, 'string');
        assert.ok(result.steps.length >= 1 && [...result.text].every((ch) => gpt.vocab.includes(ch)));
      }
      if (name === 'forward') assert.ok(result.logits.data.every(Number.isFinite));
      if (name === 'save') {
        assert.deepEqual(result.vocab, gpt.vocab);
        result.dispose();
      }
    } finally {
      gpt.dispose();
      assert.equal(qkv.heapUsed(), before, `createGPT + ${name} + dispose left memory behind`);
    }
  }), { seed: SEED, numRuns: 400 * RUNS });
  assert.equal(canary(), 11);
});

test('load(options): a promise for anything; a TypeError rejection for bad options, never a throw', async () => {
  await fc.assert(fc.asyncProperty(fc.oneof(fc.constantFrom(undefined, {}, { fresh: false }, { simd: false }, { simd: 'no' }, Object.create(null)), fc.anything()), async (options) => {
    cases++;
    let promise;
    assert.doesNotThrow(() => { promise = load(options); });
    assert.ok(promise instanceof Promise);
    // valid: undefined, or a plain object whose only keys are fresh and simd, each a boolean or
    // undefined (simd: true needs SIMD128, which Node 20 has), or kernels, one of three names
    // (not with simd)
    const plain = options !== null && typeof options === 'object' &&
      [Object.prototype, null].includes(Object.getPrototypeOf(options));
    const valid = options === undefined || (plain && Reflect.ownKeys(options).every((k) => ['fresh', 'simd', 'kernels'].includes(k)) &&
      ['fresh', 'simd'].every((k) => options[k] === undefined || typeof options[k] === 'boolean') &&
      (options.kernels === undefined || (options.simd === undefined && ['relaxed-simd', 'simd128', 'scalar'].includes(options.kernels))));
    if (!valid) return assert.rejects(promise, (e) => e instanceof TypeError && /^load: /.test(e.message));
    const lab = await promise;
    assert.equal(typeof lab.matmul, 'function');
    const asked = !options ? qkv.kernels : options.kernels ?? (options.simd === undefined ? qkv.kernels : options.simd ? 'simd128' : 'scalar');
    if (!options || (!options.fresh && asked === qkv.kernels)) assert.equal(lab, qkv, 'the shared instance');
  }), { seed: SEED, numRuns: 300 * RUNS });
});

test('the module still works after all of the above, and heapUsed() is back at its baseline', () => {
  console.log(`api-properties: ${cases} calls checked`);
  assert.equal(canary(), 11);
  const r = qkv.rng(42);
  const W = r.randn(4, 3);
  assert.equal(qkv.selfAttention([[1, 0, 0, 0]], W, W, W).weights.data[0], 1);
});
