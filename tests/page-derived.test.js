// page-derived.test.js: the numbers the page's sections print beyond the snapshot's matrices
// (web/page/models/snapshot-derived.js), checked in Node against the same quantities computed another
// way, over many seeds and sentences, so that the page's sentences hold whatever the reader picks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { computeSnapshot, SENTENCES } from '../web/page/models/attention.js';
import { deriveSnapshot, PULL_VALUES } from '../web/page/models/snapshot-derived.js';

const qkv = await load();
const SEEDS = [0, 1, 2, 3, 7, 42, 123];

function snapshotFor(settings) {
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false, ...settings });
  snap.derived = deriveSnapshot(qkv, snap);
  return snap;
}

const argmax = (row) => row.reduce((best, x, j) => (x > row[best] ? j : best), 0);

test('learnable: the verdict names the token the pulled query favours, for every seed × sentence', () => {
  let notSelf = 0;
  for (const seed of SEEDS) {
    for (const sentence of SENTENCES) {
      const snap = snapshotFor({ seed, sentence });
      const v = snap.derived.pullVerdict;
      for (const pull of [0.5, 5, 10]) {
        const e = snap.derived.pull[PULL_VALUES.indexOf(pull)];
        // the pulled row computed independently: q = pull × k_0 against every key
        const q = [snap.K.row(0).map((x) => pull * x)];
        const { weights } = qkv.attend(q, snap.K, snap.V, { scale: false });
        assert.deepEqual(Array.from(e.unscaled), Array.from(weights.row(0)), `${seed} ${sentence} ${pull}`);
        assert.equal(argmax(e.unscaled), v.top, `${seed} “${sentence}” pull ${pull}: unscaled winner`);
        assert.equal(argmax(e.scaled), v.top, `${seed} “${sentence}” pull ${pull}: scaled winner`);
      }
      assert.equal(v.self, v.top === 0);
      if (!v.self) {
        notSelf += 1;
        // what the page says when another token wins: its key is longer and points close enough
        assert.ok(v.lengths[v.top] > v.lengths[0], `${seed} “${sentence}”: the winner's key is longer`);
        assert.ok(v.cos[v.top] > v.lengths[0] / v.lengths[v.top] - 1e-6, `${seed} “${sentence}”: close enough`);
        assert.ok(v.dots[v.top] > v.dots[0]);
      }
    }
  }
  // the case the page must not misdescribe happens, and is not the rule
  assert.ok(notSelf > 0 && notSelf < SEEDS.length * SENTENCES.length, `${notSelf} pairs where another token wins`);
});

test('learnable at seed 123, 我 开 汽车 很 快, pull 10: 快 wins, 我 keeps 0.165', () => {
  const snap = snapshotFor({ seed: 123, sentence: '我 开 汽车 很 快' });
  const v = snap.derived.pullVerdict;
  assert.equal(snap.words[v.top], '快');
  const e = snap.derived.pull[PULL_VALUES.indexOf(10)];
  assert.equal(e.unscaled[0].toFixed(3), '0.165');
  assert.equal(e.unscaled[v.top].toFixed(3), '0.749');
  assert.equal(snap.derived.article, false);
  assert.equal(snapshotFor({}).derived.article, true);
  assert.equal(snapshotFor({}).derived.pullVerdict.self, true);
});

test('d_k: 3 gives the article\'s numbers exactly; 2 and 4 reshape W, Q, K, V and the output, never X', () => {
  const article = snapshotFor({ dk: 3 });
  assert.deepEqual(Array.from(article.Q.row(0), (x) => x.toFixed(3)), ['0.149', '-0.041', '0.194']);
  assert.deepEqual(Array.from(article.weights.row(0), (x) => x.toFixed(3)), ['0.313', '0.337', '0.350']);
  const plain = snapshotFor({});
  for (const m of ['Wq', 'Wk', 'Wv', 'X', 'Q', 'K', 'V', 'scores', 'weights', 'output', 'table', 'positions']) {
    assert.deepEqual(article[m], plain[m], `${m}: the default is d_k = 3`);
  }
  for (const sentence of ['我 love 猫', '我 开 汽车 很 快']) {
    const base = snapshotFor({ sentence, pos: true });
    for (const dk of [2, 4]) {
      const snap = snapshotFor({ sentence, pos: true, dk });
      assert.equal(snap.dk, dk);
      for (const m of ['Wq', 'Wk', 'Wv']) assert.deepEqual([snap[m].rows, snap[m].cols], [4, dk], m);
      for (const m of ['Q', 'K', 'V', 'output']) assert.deepEqual([snap[m].rows, snap[m].cols], [snap.n, dk], m);
      assert.deepEqual([snap.scores.rows, snap.scores.cols], [snap.n, snap.n]);
      assert.deepEqual(snap.X, base.X, `X must not depend on d_k (${dk}, ${sentence})`);
      assert.deepEqual(snap.table, base.table);
      // W_Q is the article's own draw with d_k columns: np.random.seed(42); randn(4, d_k) × 0.3
      const rng = qkv.rng(42);
      assert.deepEqual(Array.from(snap.Wq.data), Array.from(rng.randn(4, dk).scale(0.3).data));
      assert.equal(snap.divisor, 1);
      assert.equal(snapshotFor({ dk, scale: true }).divisor, Math.sqrt(dk));
    }
  }
  // when n = d_k the shapes of Q × K fit, and the scores section shows a sentence of another length refused
  for (const dk of [2, 3, 4]) {
    const sentence = { 2: '我 很', 3: '我 love 猫', 4: '我 养了 一只 兔' }[dk];
    const tried = snapshotFor({ sentence, dk }).derived.qTimesK;
    assert.equal(tried.refused, false, `n = d_k = ${dk}`);
    assert.notEqual(tried.tokens, dk);
    assert.match(tried.message, new RegExp(`A is ${tried.tokens}×${dk} but B is ${tried.tokens}×${dk}`));
  }
});

test('scores: K·Qᵀ, computed as written, is Sᵀ entry for entry', () => {
  for (const sentence of SENTENCES) {
    const snap = snapshotFor({ sentence, seed: 5 });
    const { KQt } = snap.derived;
    for (let i = 0; i < snap.n; i++) {
      // the same products; 1e-6 allows a matmul kernel that adds them in another order (float32)
      for (let j = 0; j < snap.n; j++) assert.ok(Math.abs(KQt.get(j, i) - snap.scores.get(i, j)) <= 1e-6, `${sentence} [${i}][${j}]`);
    }
  }
});

test('softmax: softmax written out (exp, row total, weights) matches Math.exp in float64 at every temperature', async () => {
  const { TEMPERATURES } = await import('../web/page/models/snapshot-derived.js');
  for (const [sentence, scale, dk] of [['我 love 猫', false, 3], ['我 开 汽车 很 快', true, 4]]) {
    const snap = snapshotFor({ sentence, scale, dk, seed: 9 });
    snap.derived.softmaxWritten.forEach(({ t, rows }, k) => {
      assert.equal(t, TEMPERATURES[k]);
      rows.forEach(({ z, exps, total, weights }, i) => {
        const s = snap.scores.row(i).map((x) => x / (snap.divisor * t));
        const e = s.map(Math.exp);
        const sum = e.reduce((a, b) => a + b, 0);
        // float32 arithmetic against float64: relative 1e-5 (a few float32 roundings in a row)
        s.forEach((x, j) => assert.ok(Math.abs(z[j] - x) <= 1e-5 * Math.max(1, Math.abs(x)), `z ${t} ${i} ${j}`));
        e.forEach((x, j) => assert.ok(Math.abs(exps[j] - x) <= 1e-5 * x, `exp ${t} ${i} ${j}: ${exps[j]} vs ${x}`));
        assert.ok(Math.abs(total - sum) <= 1e-5 * sum, `Σ ${t} ${i}`);
        e.forEach((x, j) => assert.ok(Math.abs(weights[j] - x / sum) <= 1e-6, `w ${t} ${i} ${j}`));
      });
    });
    const one = snap.derived.softmaxWritten[TEMPERATURES.indexOf(1)].rows;
    one.forEach((r, i) => assert.deepEqual(r.weights, snap.weights.row(i)));
  }
});

test('the derived numbers survive the largest edits a reader can type (±1000 in every cell): no throw, no NaN', () => {
  const fill = (rows, cols, f) => Array.from({ length: rows * cols }, (_, k) => [Math.floor(k / cols), k % cols, f(k)]);
  for (const [x, w] of [[1000, 1000], [1000, -1000], [-1000, 7], [0, 0]]) {
    const overrides = { X: fill(3, 4, () => x), Wq: fill(4, 3, (k) => (k % 2 ? w : -w)), Wk: fill(4, 3, () => w), Wv: fill(4, 3, () => w) };
    const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false }, overrides);
    snap.derived = deriveSnapshot(qkv, snap);
    const seen = new Set();
    const walk = (v, path) => {
      if (typeof v === 'number') assert.ok(!Number.isNaN(v), `NaN at ${path} (X ${x}, W ${w})`);
      else if (ArrayBuffer.isView(v)) v.forEach((n, k) => walk(n, `${path}[${k}]`));
      else if (v && typeof v === 'object' && !seen.has(v)) {
        seen.add(v);
        for (const [k, child] of Object.entries(v)) walk(child, `${path}.${k}`);
      }
    };
    // the pull verdict's cosines are NaN by design when 我's key is the zero vector (W = 0): shown as —
    const { pullVerdict, ...rest } = snap.derived;
    walk(rest, 'derived');
    if (w !== 0) walk(pullVerdict, 'derived.pullVerdict');
  }
});
