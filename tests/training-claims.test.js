// The claims about training (web/page/training/claims.js, written by
// `node tools/measure-training.mjs --write`) measured again: seeds 0–29 with TRAINING_DEFAULTS,
// and the counting-only baseline. A changed corpus, default or model arithmetic that moves any
// stated range, count or baseline fails here; rerun the script, read the new numbers, and check
// that the page's and the docs' words still hold for them. The findings docs/api.md states beside
// the claims (the divergence sweep, training against counting) are data too,
// docs/data/training-findings.json, measured again here. No timing is asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'qkv-lab';
import { TRAINING_DEFAULTS } from '../web/corpus.js';
import { TRAINING_CLAIMS } from '../web/page/training/claims.js';
import {
  SEEDS, Geometry, measureSeed, summarize, divergenceByLr,
  measureGeometry, nextWordCounts, ppmiSvd,
} from '../tools/training-measures.mjs';
import { DEFAULT_CORPUS, tokenize } from '../web/corpus.js';

const qkv = await load({ model: true });
const FINDINGS = JSON.parse(readFileSync(new URL('../docs/data/training-findings.json', import.meta.url), 'utf8'));
/** Seeds 0–29 trained and measured once, for every test here that reads them. */
let perSeed = null;
const measured = () => (perSeed ??= SEEDS.map((seed) => measureSeed(qkv, seed)));

/** Paths where `actual` and `expected` differ (notes included: they are written with the data). */
function differences(actual, expected, path = 'claims') {
  if (typeof expected !== 'object' || expected === null) {
    return Object.is(actual, expected) ? [] : [`${path}: stated ${JSON.stringify(expected)}, measured ${JSON.stringify(actual)}`];
  }
  if (typeof actual !== 'object' || actual === null) return [`${path}: stated an object, measured ${JSON.stringify(actual)}`];
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...keys].flatMap((k) => differences(actual[k], expected[k], `${path}.${k}`));
}

test('the claims were measured with today\'s defaults over seeds 0–29', () => {
  assert.deepEqual({ ...TRAINING_CLAIMS.defaults }, { ...TRAINING_DEFAULTS });
  assert.deepEqual({ ...TRAINING_CLAIMS.seeds }, { from: SEEDS[0], to: SEEDS[SEEDS.length - 1], count: 30 });
});

test('every stated range, count and counting baseline holds when measured again', (t) => {
  const summary = summarize(measured());
  const diff = differences(summary, TRAINING_CLAIMS);
  t.diagnostic(`cos(猫, 狗) at the end: ${JSON.stringify(summary.ranges.catDog.end)}; ` +
    `animals nearer each other than vehicles on average: ${summary.counts.groupGapPositive.end.count} of 30`);
  assert.deepEqual(diff, [], `web/page/training/claims.js no longer holds; run node tools/measure-training.mjs --write:\n${diff.join('\n')}`);
});

test('the measures use the model\'s own definitions of similarity, nearest and analogy', () => {
  const model = qkv.createModel({ ...TRAINING_DEFAULTS, seed: 0 });
  try {
    model.train(300);
    const e = model.embeddings();
    const g = new Geometry(model.vocab, model.vocab.map((_, i) => Float64Array.from(e.data.subarray(i * e.cols, (i + 1) * e.cols))));
    for (const [a, b] of [['猫', '狗'], ['猫', '汽车'], ['国王', '女王']]) {
      assert.ok(Math.abs(g.similarity(a, b) - model.similarity(a, b)) < 1e-12, `cos(${a}, ${b})`);
    }
    assert.deepEqual(g.nearest('国王').slice(0, 5).map((x) => x.word), model.nearest('国王', 5).map((x) => x.word));
    assert.deepEqual(g.analogy('男人', '国王', '女人').slice(0, 5).map((x) => x.word),
      model.analogy('男人', '国王', '女人', 5).map((x) => x.word));
    assert.deepEqual(g.analogy('猫', '国王', '狗').slice(0, 5).map((x) => x.word), model.analogy('猫', '国王', '狗', 5).map((x) => x.word));
  } finally {
    model.dispose();
  }
});

// (docs/api.md's table is written from the claims by tools/docs-tables.mjs; tests/docs.test.js
// keeps it so.) The sentences around it, checked against the claims:
test('docs/api.md: its words about the claims hold', () => {
  const { counts: C, counting: K, ranges: R } = TRAINING_CLAIMS;
  const all = (c) => c.count === c.of;
  // "Counting alone ... already puts 猫 near 狗 and answers 国王 − 男人 + 女人 → 女王 here"
  assert.ok(K.default.catDog > 0.8 && K.default.analogy[0].word === '女王');
  // "the twins corpus ... counting alone gave cos(猫, 狗) = 1.000"
  assert.equal(K.twins.catDog, 1);
  // "early in training every animal is nearer every other animal than any vehicle on most
  // seeds, but ... this strict test holds on fewer, while the animals stay nearer each other
  // than the vehicles on average on every seed"
  assert.ok(C.animalsApart.middle.count > C.animalsApart.middle.of / 2);
  assert.ok(C.animalsApart.end.count < C.animalsApart.middle.count);
  assert.ok(all(C.groupGapPositive.end));
  // "Read against counting": training leaves 猫 and 狗 less alike than the raw counts, and puts
  // 汽车 further from 猫 than counting does on every seed (counted per seed in the test below)
  assert.ok(R.catDog.end.median < K.default.catDog);
  assert.ok(R.catCar.end.max < K.default.catCar);
  // the analogy gives 女王 on far more seeds than 女王 is simply 国王's nearest word, or than the
  // nonsense 国王 − 猫 + 狗 gives it (the paragraph's other counts: the test after the next)
  assert.ok(C.analogyQueen.end.count >= 2 * Math.max(C.kingNearestQueen.end.count, C.controlQueen.end.count));
  // "The head's attention ... starts nearly uniform ... and sharpens with training"
  assert.ok(R.attentionSpread.start.min > 0.9 && R.attentionSpread.end.max < 0.7);
  // "With the car-with-animals preset, 汽车 ends nearer the animals ... on every seed"
  assert.ok(all(C.carMoved));
  // "鸟 and 兔 never share a context" is checked on the corpus in tests/corpus.test.js
  // the snippet's comment: "one.lossAfter < one.loss" is tests/model-inspect.test.js's
  assert.ok(R.loss.end.max < R.loss.start.min);
});

// docs/api.md, "Training defaults": "within 3,000 steps (twice the schedule) no seed diverged at
// 0.3 or 0.4, 1 of 30 at 0.5 (seed 11, at step 2,959), …", written from
// docs/data/training-findings.json. Every lr it names is trained again over seeds 0–29 and must
// give the count (and, where it names them, the seeds and steps) it states.
test('docs/data/training-findings.json: the divergence counts by learning rate hold when measured again over seeds 0–29', (t) => {
  const { steps, seeds, byLr } = FINDINGS.divergence;
  assert.equal(steps, 2 * TRAINING_DEFAULTS.steps);
  assert.equal(seeds, SEEDS.length);
  const stated = new Map(byLr.map((r) => [r.lr, r]));
  assert.ok(stated.size >= 5, `the sentence names ${stated.size} learning rates`);
  assert.ok(stated.has(TRAINING_DEFAULTS.lr), 'the sentence covers the default lr');
  const measured = divergenceByLr(qkv, [...stated.keys()], TRAINING_DEFAULTS, steps);
  for (const { lr, diverged } of measured) {
    const said = stated.get(lr);
    t.diagnostic(`lr ${lr}: ${diverged.length} of 30 diverged ${diverged.map((d) => `${d.seed}@${d.step}`).join(' ')}`);
    assert.equal(diverged.length, said.count, `lr ${lr}: the findings say ${said.count} of 30 diverged, measured ${diverged.length} (${diverged.map((d) => `seed ${d.seed} at step ${d.step}`).join(', ')})`);
    if (said.diverged !== undefined) assert.deepEqual(diverged, said.diverged, `lr ${lr}`);
  }
  assert.equal(stated.get(TRAINING_DEFAULTS.lr).count, 0, 'the default lr diverges on no seed');
});


// docs/api.md, "Read against counting": every count it states (docs/data/training-findings.json)
// measured again over seeds 0–29, and what it says of the two counting baselines (next-word
// counts; PPMI-SVD of the words beside each word, 16 dimensions) computed.
test('docs/data/training-findings.json: what the docs say of training against counting holds, 国王 + 女人 alone included', (t) => {
  const said = FINDINGS.counting;
  const sentences = DEFAULT_CORPUS.map(tokenize);
  const counting = { nextWord: measureGeometry(nextWordCounts(sentences)), ppmi: measureGeometry(ppmiSvd(sentences)) };
  const ends = measured().map((r) => r.end);
  const count = (f) => ends.filter(f).length;
  const got = {
    sum: count((m) => m.sumRank === 1), analogy: count((m) => m.analogyRank === 1), strict: count((m) => m.animalsApart),
    catDogBelow: [count((m) => m.catDog < counting.nextWord.catDog), count((m) => m.catDog < counting.ppmi.catDog)],
    catCarBelowBoth: count((m) => m.catCar < Math.min(counting.nextWord.catCar, counting.ppmi.catCar)),
  };
  t.diagnostic(`measured: ${JSON.stringify(got)}; counting: ${JSON.stringify(counting)}`);
  // "both … already give every headline result: … and answer 国王 − 男人 + 女人 → 女王"
  for (const [name, c] of Object.entries(counting)) {
    assert.ok(c.catDog > c.catCar && c.groupGap > 0 && c.nearestIsAnimal && c.animalsApart && c.analogyTop === '女王', `${name}: ${JSON.stringify(c)}`);
  }
  assert.equal(said.strictPasses, got.strict, 'training passes the strict test on N of 30 seeds');
  assert.deepEqual([said.catDogBelowNextWord, said.catDogBelowPpmi], got.catDogBelow, '猫 and 狗 less alike than either count');
  assert.equal(said.catCarBelowBoth, got.catCarBelowBoth, '汽车 further from 猫 than under either count');
  assert.deepEqual([said.analogyQueen, said.sumQueen], [got.analogy, got.sum], '国王 − 男人 + 女人, and 国王 + 女人 alone');
  // "both beat 国王's own nearest word and the nonsense 国王 − 猫 + 狗, which give 女王 on N and M of 30 seeds"
  assert.equal(count((m) => m.kingNearest === '女王'), said.kingNearestQueen);
  assert.equal(count((m) => m.controlRank === 1), said.controlQueen);
  assert.ok(got.sum > Math.max(said.kingNearestQueen, said.controlQueen) && got.analogy > Math.max(said.kingNearestQueen, said.controlQueen));
  // "With PPMI-SVD the offset does matter: 国王 + 女人 alone puts 裙子 first and 女王 second"
  assert.equal(counting.ppmi.sumTop, said.ppmiSumTop);
  assert.equal(counting.ppmi.sumRank, 2);
  assert.ok(counting.ppmi.analogyRank === 1);
  // "next-word counts answer even 国王 + 女人 alone and the nonsense 国王 − 猫 + 狗 with 女王"
  assert.ok(counting.nextWord.sumTop === '女王' && counting.nextWord.controlTop === '女王');
});
