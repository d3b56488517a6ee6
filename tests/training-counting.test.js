// training-counting.test.js: the counting baselines the training section computes in the page
// (web/page/training/counting.js): checked on corpora counted by hand, against what
// tools/training-measures.mjs's countingBaseline and web/page/training/claims.js give for every
// preset, on a corpus that lacks the words (null, never a throw or NaN), past the size limits;
// and the conditions the card's finding rests on, so that the page shows it (the browser test
// tests/browser/training-counting.test.js reads it on the page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { CORPUS_PRESETS, DEFAULT_CORPUS, TRAINING_DEFAULTS, tokenize } from '../web/corpus.js';
import { TRAINING_CLAIMS } from '../web/page/training/claims.js';
import {
  countingOf, nextWordCounts, ppmiSvd, measureGeometry, tableGeometry, COUNTING_LIMITS,
} from '../web/page/training/counting.js';
import { givesHeadlines } from '../web/page/sections/training/counting.js';
import { countingBaseline } from '../tools/training-measures.mjs';

const close = (a, b, tol, label) => assert.ok(Math.abs(a - b) <= tol, `${label}: ${a} vs ${b} (tolerance ${tol})`);

test('next-word counts of a corpus counted by hand', () => {
  // a b / a c / d b: rows (columns <s> a b c d): <s> → a 2, d 1; a → b 1, c 1; b → <s> 2; c → <s> 1; d → b 1
  const g = nextWordCounts([['a', 'b'], ['a', 'c'], ['d', 'b']]);
  assert.deepEqual(g.vocab, ['<s>', 'a', 'b', 'c', 'd']);
  assert.deepEqual([...g.row('<s>')], [0, 2, 0, 0, 1]);
  assert.deepEqual([...g.row('a')], [0, 0, 1, 1, 0]);
  assert.deepEqual([...g.row('b')], [2, 0, 0, 0, 0]);
  close(g.similarity('a', 'd'), 1 / Math.SQRT2, 1e-15, 'cos(a, d) = 1/√2');
  assert.equal(g.similarity('b', 'c'), 1);   // both end sentences, nothing else
  assert.equal(g.similarity('a', 'b'), 0);
  // b + c, with a, b, c and <s> left out: only d is ranked; b + c = (3, 0, 0, 0, 0) and d's row
  // (0, 0, 1, 0, 0) are orthogonal. And d + c, a and b left out: c itself is left out too
  assert.deepEqual(g.sum('a', 'b', 'c'), [{ word: 'd', score: 0 }]);
  // d + b (a, d, b left out): c, whose row (1, 0, 0, 0, 0) against (2, 0, 1, 0, 0): 2/√5
  const [only] = g.sum('a', 'd', 'b');
  assert.equal(only.word, 'c');
  close(only.score, 2 / Math.sqrt(5), 1e-15, 'cos(c, d + b)');
});

test('PPMI-SVD keeping every dimension has the cosines of the PPMI rows themselves, computed by hand', () => {
  // with k = V the SVD loses nothing: rows of U·Σ have the Gram matrix M·Mᵀ of the PPMI rows M
  const sentences = [['x', 'y'], ['x', 'z'], ['w', 'y'], ['w', 'z'], ['x', 'y', 'z']];
  const g = ppmiSvd(sentences, 5);
  // the counts by hand: each word with the word before and after (<s> at both ends)
  const vocab = ['<s>', 'x', 'y', 'z', 'w'];
  const at = Object.fromEntries(vocab.map((w, i) => [w, i]));
  const C = vocab.map(() => new Array(5).fill(0));
  for (const s of sentences) {
    const t = ['<s>', ...s, '<s>'];
    for (let i = 1; i < t.length - 1; i++) { C[at[t[i]]][at[t[i - 1]]]++; C[at[t[i]]][at[t[i + 1]]]++; }
  }
  const rowSum = C.map((r) => r.reduce((a, b) => a + b, 0));
  const colSum = vocab.map((_, j) => C.reduce((a, r) => a + r[j], 0));
  const N = rowSum.reduce((a, b) => a + b, 0);
  const M = C.map((r, i) => r.map((x, j) => (x ? Math.max(0, Math.log((x * N) / (rowSum[i] * colSum[j]))) : 0)));
  const cos = (a, b) => {
    const d = a.reduce((s, x, j) => s + x * b[j], 0);
    return d / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
  };
  for (const [a, b] of [['x', 'w'], ['y', 'z'], ['x', 'y'], ['w', 'z']]) {
    // the Jacobi solver stops at 1e-22 of the total off-diagonal mass: far below 1e-9 in a cosine
    close(g.similarity(a, b), cos(M[at[a]], M[at[b]]), 1e-9, `cos(${a}, ${b})`);
  }
});

test('the page\'s baselines are the tools\' (countingBaseline) and claims.js\'s for every preset that has the words', () => {
  const keys = ['catDog', 'catCar', 'groupGap', 'animalsApart', 'nearestIsAnimal', 'analogyTop', 'analogyRank', 'sumTop', 'sumRank', 'controlTop', 'kingNearest'];
  for (const preset of CORPUS_PRESETS.filter((p) => p.id !== 'article')) {
    const page = countingOf(preset.sentences);
    const tools = countingBaseline(preset.sentences);
    for (const k of keys) assert.equal(page.nextWord[k], tools[k], `${preset.id}: nextWord.${k}`);
    assert.equal(page.words, nextWordCounts(preset.sentences.map(tokenize)).vocab.length);
  }
  const { nextWord, ppmi } = countingOf(DEFAULT_CORPUS);
  const stated = TRAINING_CLAIMS.counting;
  for (const k of ['catDog', 'catCar', 'groupGap']) {
    assert.equal(Math.round(nextWord[k] * 1000) / 1000, stated.default[k], `nextWord.${k}`);
    assert.equal(Math.round(ppmi[k] * 1000) / 1000, stated.ppmi[k], `ppmi.${k}`);
  }
  assert.deepEqual([ppmi.analogyTop, ppmi.sumTop, ppmi.sumRank, ppmi.animalsApart], [stated.ppmi.analogyTop, stated.ppmi.sumTop, stated.ppmi.sumRank, stated.ppmi.animalsApart]);
  assert.equal(nextWord.sumTop, stated.default.sumTop);
});

test('a corpus without the words gives null measures, never a throw or NaN; past the limits a baseline is left out', () => {
  const article = countingOf(CORPUS_PRESETS.find((p) => p.id === 'article').sentences);
  for (const m of [article.nextWord, article.ppmi]) {
    assert.equal(m.analogyTop, null, 'the article preset has no 男人');
    for (const [k, v] of Object.entries(m)) assert.ok(v === null || typeof v === 'boolean' || typeof v === 'string' || Number.isFinite(v), `${k}: ${v}`);
  }
  const few = countingOf(['一只 猫 在 叫', '一只 狗 在 叫']);
  assert.equal(few.nextWord.catCar, null);
  assert.equal(few.nextWord.groupGap, null);
  assert.equal(few.nextWord.animalsApart, null);
  assert.equal(few.nextWord.catDog, 1);
  const words = Array.from({ length: COUNTING_LIMITS.ppmi + 10 }, (_, i) => `w${i}`);
  const big = countingOf([words.join(' ')]);
  assert.equal(big.words, words.length + 1);
  assert.equal(big.ppmi, null);
  assert.ok(big.nextWord);
  assert.equal(countingOf([words.join(' ')], { nextWord: 10, ppmi: 10 }).nextWord, null);
});

test('the run\'s column: the measures of the trained table agree with the model\'s own similarity and analogy', async () => {
  const qkv = await load({ model: true });
  const model = qkv.createModel({ ...TRAINING_DEFAULTS, seed: 4 });
  try {
    model.train(400);
    const g = tableGeometry(model.vocab, model.embeddings());
    const m = measureGeometry(g);
    close(m.catDog, model.similarity('猫', '狗'), 1e-12, 'cos(猫, 狗)');
    close(m.catCar, model.similarity('猫', '汽车'), 1e-12, 'cos(猫, 汽车)');
    assert.equal(m.analogyTop, model.analogy('男人', '国王', '女人', 1)[0].word);
    // 国王 + 女人 alone is 国王 − 男人 + 女人 with 男人's row zeroed: the model's analogy on a copy
    const e = model.embeddings();
    const man = model.vocab.indexOf('男人');
    e.data.fill(0, man * e.cols, (man + 1) * e.cols);
    const zeroed = tableGeometry(model.vocab, e);
    assert.deepEqual(g.sum('男人', '国王', '女人').slice(0, 5).map((x) => x.word), zeroed.analogy('男人', '国王', '女人').slice(0, 5).map((x) => x.word));
  } finally {
    model.dispose();
  }
});

test('what the finding says holds for claims.js and the default corpus\'s counts, so the page shows it', () => {
  const { counts: c } = TRAINING_CLAIMS;
  const { nextWord, ppmi } = countingOf(DEFAULT_CORPUS);
  // "Counting alone ... already gives the headline results": both counts
  assert.ok(givesHeadlines(nextWord), JSON.stringify(nextWord));
  assert.ok(givesHeadlines(ppmi), JSON.stringify(ppmi));
  // "On the strict test training does worse"
  assert.ok(c.animalsApart.end.count < c.animalsApart.end.of);
  // "less alike than both counts do, on N of 30 seeds" (most)
  assert.ok(c.catDogBelowCounting.end.count > c.catDogBelowCounting.end.of / 2);
  // "The one measure where training goes further than both counts on every seed is the car"
  assert.equal(c.catCarBelowCounting.end.count, c.catCarBelowCounting.end.of);
  assert.ok(c.groupGapAboveCounting.end.count < c.groupGapAboveCounting.end.of);
  // "国王 + 女人 alone ... finds 女王 almost as often" as the analogy, and more often than
  // 女王 is 国王's own nearest word
  assert.ok(c.sumQueen.end.count >= 0.8 * c.analogyQueen.end.count);
  assert.ok(c.sumQueen.end.count > c.kingNearestQueen.end.count);
});
