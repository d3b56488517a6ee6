// page-derived.test.js: the numbers the page's sections print beyond the snapshot's matrices
// (web/page/snapshot-derived.js), checked in Node against the same quantities computed another
// way, over many seeds and sentences, so that the page's sentences hold whatever the reader picks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { computeSnapshot, SENTENCES } from '../web/page/attention-model.js';
import { deriveSnapshot, PULL_VALUES } from '../web/page/snapshot-derived.js';

const qkv = await load();
const SEEDS = [0, 1, 2, 3, 7, 42, 123];

function snapshotFor(settings) {
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false, ...settings });
  snap.derived = deriveSnapshot(qkv, snap);
  return snap;
}

const argmax = (row) => row.reduce((best, x, j) => (x > row[best] ? j : best), 0);

test('section 7: the verdict names the token the pulled query favours, for every seed × sentence', () => {
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

test('section 7: the issue\'s case (seed 123, 我 开 汽车 很 快, pull 10): 快 wins, 我 keeps 0.165', () => {
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
