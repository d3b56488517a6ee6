// qkv.rng(seed).randn(rows, cols) must reproduce numpy's legacy generator
// (np.random.seed(seed); np.random.randn(rows, cols)), call after call, gauss cache included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { loadFixtures, checkMatrix, assertMatrix, flatten } from './helpers.js';

const qkv = await load();
const fx = loadFixtures();

// Tolerance: numpy draws a double; qkv-lab computes the same double and stores it as float32.
// Rounding a double to float32 moves it by at most half a float32 ulp, i.e. <= 2^-24 * |x|.
// We allow one full float32 ulp (<= 2^-23 * |x| ~ 1.2e-7 relative) so that a last-bit
// difference in the double (e.g. musl's log() vs glibc's, both < 1 ulp accurate) that flips the
// float32 rounding still passes. A wrong stream, a lost/extra cached gaussian, or a polar method
// evaluated in float32 (ln(r2) near r2 = 1 loses digits) all miss by far more than this.
const RNG_TOL = { abs: 0, rel: 2 ** -23 };

test('rng: every numpy fixture sequence is reproduced, call after call', () => {
  assert.ok(fx.rng.length >= 5);
  for (const { seed, shapes, arrays } of fx.rng) {
    const g = qkv.rng(seed);
    shapes.forEach(([r, c], k) => {
      const label = `seed ${seed}, call ${k}: randn(${r}, ${c})`;
      const m = g.randn(r, c);
      assertMatrix(m, r, c, label);
      checkMatrix(m, arrays[k], RNG_TOL, label);
    });
  }
});

test('rng: the article stream, seed 42 -> randn(4,3) three times', () => {
  const f = fx.rng.find((s) => s.seed === 42);
  assert.deepEqual(f.shapes, [[4, 3], [4, 3], [4, 3]]);
  const g = qkv.rng(42);
  for (let k = 0; k < 3; k++) checkMatrix(g.randn(4, 3), f.arrays[k], RNG_TOL, `seed 42 call ${k}`);
});

test('rng: two generators with the same seed are identical and independent', () => {
  // seed 1 fixture: randn(1,1), randn(2,3), randn(1,1) -> 8 values of one stream
  const f = fx.rng.find((s) => s.seed === 1);
  const stream = f.arrays.flatMap(flatten);
  assert.equal(stream.length, 8);
  const a = qkv.rng(1);
  const b = qkv.rng(1);
  // Interleave calls of different (odd) sizes: each generator must keep its own MT state AND
  // its own cached second gaussian.
  const fromA = [];
  const fromB = [];
  fromA.push(...a.randn(1, 1).data); // a: value 0 (value 1 cached in a)
  fromB.push(...b.randn(1, 3).data); // b: values 0..2
  const c = qkv.rng(1); //             a third generator created mid-way must not disturb a or b
  fromA.push(...a.randn(1, 1).data); // a: value 1 (from a's cache)
  fromB.push(...b.randn(1, 1).data); // b: value 3 (from b's cache)
  fromA.push(...a.randn(2, 3).data); // a: values 2..7
  fromB.push(...b.randn(1, 4).data); // b: values 4..7
  const fromC = Array.from(c.randn(2, 4).data);
  const tol = RNG_TOL;
  checkMatrix([fromA], [stream], tol, 'generator a (interleaved)');
  checkMatrix([fromB], [stream], tol, 'generator b (interleaved)');
  checkMatrix([fromC], [stream], tol, 'generator c (created mid-way)');
  assert.deepEqual(fromA, fromB, 'same seed must give bit-identical streams');
});

test('rng: different seeds give different streams', () => {
  const x = Array.from(qkv.rng(0).randn(1, 4).data);
  const y = Array.from(qkv.rng(1).randn(1, 4).data);
  assert.notDeepEqual(x, y);
});

test('rng: seeds 0 and 2**32-1 are accepted', () => {
  for (const seed of [0, 2 ** 32 - 1]) {
    const f = fx.rng.find((s) => s.seed === seed);
    assert.ok(f, `fixture for seed ${seed}`);
    const g = qkv.rng(seed);
    checkMatrix(g.randn(...f.shapes[0]), f.arrays[0], RNG_TOL, `seed ${seed}`);
  }
});

test('rng: invalid seeds are rejected with RangeError or TypeError', () => {
  for (const bad of [-1, 2 ** 32, 1.5, NaN, '42', Infinity]) {
    assert.throws(
      () => qkv.rng(bad),
      (err) => err instanceof RangeError || err instanceof TypeError,
      `seed ${typeof bad === 'string' ? `'${bad}'` : bad} must be rejected`,
    );
  }
});

test('rng: generators keep their streams when more of them draw in turn than WASM has state slots', () => {
  // qkv-lab keeps a few generator states in WASM memory and moves the least recently used one
  // out to JavaScript when another generator needs its slot: interleaving must not matter.
  const seeds = [0, 1, 2, 3, 4, 5, 6];
  const alone = seeds.map((s) => qkv.rng(s).randn(1, 120).data);
  const gens = seeds.map((s) => qkv.rng(s));
  const drawn = seeds.map(() => []);
  for (let round = 0; round < 7; round++) {
    seeds.forEach((s, i) => { if ((round + i) % 3 !== 2) drawn[i].push(...gens[i].randn(1, 5).data); });
    seeds.forEach((s, i) => { if ((round + i) % 3 === 2) drawn[i].push(...gens[i].randn(1, 15).data); });
  }
  seeds.forEach((s, i) => assert.deepEqual(Float32Array.from(drawn[i]), alone[i].subarray(0, drawn[i].length), `seed ${s}`));
});

test('rng: generator state needs no freeing: 20,000 generators leave heapUsed() flat', () => {
  qkv.rng(9).randn(2, 2);
  const before = qkv.heapUsed();
  for (let i = 0; i < 20000; i++) qkv.rng(i).randn(1, 3);
  assert.equal(qkv.heapUsed(), before);
});
