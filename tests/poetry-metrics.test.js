// web/poetry/metrics.js and web/poetry/ngram.js on fixed strings and a tiny corpus whose answers
// are computed by hand: the form of a poem, whether it rhymes, its tones, what it copies; the
// counting baselines' probabilities, losses, weights and samples. The measured figures on the real
// text live in web/data/pretrained-baselines.json (tools/measure-baselines.mjs, not a test: CI has no
// training text); the last test only checks that file's shape and internal consistency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  FORMS, FORM_NAMES, RHYME_GROUPS, formOf, linesOf, readingOf, rhymes, rhyme, tones, chanceRhyme,
  trainingIndex, longestCopied, novelty, summarize,
} from '../web/poetry/metrics.js';
import { READINGS } from '../web/data/rhyme-groups.js';
import {
  createNgram, evaluate, fitWeights, nextDistribution, samplePoems, vocabularyOf,
} from '../web/poetry/ngram.js';

const WUJUE = '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。';           // 流 liu, 楼 lou: ou
const QIJUE = '黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。'; // 山 shan, 关 guan: an
const WULV = '国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。';
const QILV = '昔人已乘黄鹤去，此地空余黄鹤楼。黄鹤一去不复返，白云千载空悠悠。晴川历历汉阳树，芳草萋萋鹦鹉洲。日暮乡关何处是，烟波江上使人愁。';
// WUJUE with characters moved between lines: still the form, and lines 2 and 4 end in 尽 (jin) and 目 (mu)
const SHUFFLED = '白日依山流，黄河入海尽。欲穷千里楼，更上一层目。';

test('formOf: the four forms, and near misses are none of them', () => {
  assert.equal(formOf(WUJUE), 'wujue');
  assert.equal(formOf(QIJUE), 'qijue');
  assert.equal(formOf(WULV), 'wulv');
  assert.equal(formOf(QILV), 'qilv');
  assert.equal(formOf(SHUFFLED), 'wujue');
  for (const bad of [
    WUJUE + '\n',                         // the end-of-text token is the caller's to strip
    WUJUE.replace('流。', '流，'),          // an even line closed by a comma
    WUJUE.replace('，', ','),              // ASCII comma
    WUJUE.slice(0, 12),                   // two lines
    WUJUE + WUJUE.slice(0, 12),           // six lines
    WUJUE.replace('白日', '白'),            // a line of 4
    QIJUE.replace('黄河远上', '黄河远上上'), // a line of 8
    WUJUE.slice(0, 12) + QIJUE.slice(16),  // 5 then 7 characters
    '',
  ]) assert.equal(formOf(bad), null, JSON.stringify(bad));
  assert.deepEqual(linesOf(WUJUE), ['白日依山尽', '黄河入海流', '欲穷千里目', '更上一层楼']);
  assert.equal(linesOf('no poem'), null);
  assert.deepEqual(FORM_NAMES, ['wujue', 'qijue', 'wulv', 'qilv']);
  assert.equal(FORMS.qilv.lines * FORMS.qilv.width, 56);
});

test('rhyme: real poems rhyme, the shuffled one does not; a 律诗 reports lines 2 and 4 and all even lines', () => {
  const r = rhyme(WUJUE);
  assert.equal(r.form, 'wujue');
  assert.equal(r.lines24, true);
  assert.equal(r.allEven, true);
  assert.deepEqual(r.ends, [
    { line: 2, char: '流', final: 'iu', group: 'ou' },
    { line: 4, char: '楼', final: 'ou', group: 'ou' },
  ]);
  assert.equal(rhyme(QIJUE).lines24, true);
  assert.deepEqual(rhyme(QIJUE).ends.map((e) => e.group), ['an', 'an']);
  assert.equal(rhyme(QILV).allEven, true);
  assert.deepEqual(rhyme(QILV).ends.map((e) => e.char), ['楼', '悠', '洲', '愁']);
  // 春望 rhymes in the Tang 侵 group; modern 簪 (zān) has left it: lines 2 and 4 rhyme, all four do not.
  // The proxy's caveat, in one poem (docs/poetry-metrics.md).
  const w = rhyme(WULV);
  assert.deepEqual(w.ends.map((e) => e.group), ['en', 'en', 'en', 'an']);
  assert.equal(w.lines24, true);
  assert.equal(w.allEven, false);
  const s = rhyme(SHUFFLED);
  assert.equal(s.lines24, false);
  assert.deepEqual(s.ends.map((e) => e.group), ['en', 'u']);
  assert.equal(rhyme('不是诗'), null);
});

test('readings: finals and groups as the table says, one group for every final in it', () => {
  assert.deepEqual(readingOf('月'), { char: '月', final: 'üe', tone: 4, group: 'ie', level: '仄' });
  assert.equal(readingOf('儿').group, 'i');
  assert.equal(readingOf('东').group, readingOf('风').group);  // ong and eng share a group
  assert.equal(readingOf('x'), null);
  assert.equal(rhymes('山', '关'), true);
  assert.equal(rhymes('山', '楼'), false);
  assert.equal(rhymes('山', 'x'), false);
  const finals = new Set(Object.keys(READINGS).map((k) => k.slice(0, -1)));
  const grouped = new Set(Object.values(RHYME_GROUPS).flat());
  for (const f of finals) assert.ok(grouped.has(f), `final ${f} has no rhyme group`);
  // every character once
  const seen = new Set();
  for (const chars of Object.values(READINGS)) for (const ch of chars) { assert.ok(!seen.has(ch), ch); seen.add(ch); }
});

test('tones: 平 and 仄 at the first line\'s end and the even lines\' ends', () => {
  const t = tones(WUJUE);
  assert.deepEqual(t.positions, [
    { line: 1, char: '尽', tone: 4, level: '仄' },
    { line: 2, char: '流', tone: 2, level: '平' },
    { line: 4, char: '楼', tone: 2, level: '平' },
  ]);
  assert.equal(t.levelShare, 1);
  assert.equal(tones(SHUFFLED).levelShare, 0);  // 尽 and 目 are both 仄
  assert.equal(tones(WULV).positions.length, 5);
  assert.equal(tones('x'), null);
});

test('chanceRhyme is Σ p² over the even lines\' end groups; summarize counts forms and rhymes', () => {
  // ends: 流 楼 (ou, ou) and 山 关 (an, an): p(ou) = p(an) = 1/2
  assert.equal(chanceRhyme([WUJUE, QIJUE]), 0.5);
  // ends 尽 目 流 楼: en, u, ou, ou → 1/16 + 1/16 + 1/4
  assert.equal(chanceRhyme([SHUFFLED, WUJUE]), 0.375);
  const s = summarize([WUJUE, SHUFFLED, QIJUE, WULV, QILV, 'no poem']);
  assert.deepEqual(s.byForm, { wujue: 2, qijue: 1, wulv: 1, qilv: 1, none: 1 });
  assert.equal(s.wellFormed, 5 / 6);
  assert.deepEqual(s.rhyme.wujue, { poems: 2, lines24: 0.5, allEven: 0.5 });
  assert.deepEqual(s.rhyme.wulv, { poems: 1, lines24: 1, allEven: 0 });
  assert.deepEqual(s.rhyme.all, { poems: 5, lines24: 0.8, allEven: 0.6 });
  assert.equal(s.novelty, undefined);
  assert.deepEqual(summarize([]).byForm, { wujue: 0, qijue: 0, wulv: 0, qilv: 0, none: 0 });
});

test('novelty: copied lines, copied poems and the longest copied substring on a constructed case', () => {
  const index = trainingIndex(`${WUJUE}\n${QIJUE}\n`);
  // a copy, a poem with one training line (黄河入海流), a poem sharing only 白云 + a pair across a mark
  const copy = WUJUE;
  const oneLine = '春来江水绿，黄河入海流。明月照高台，孤舟泊远洲。';
  const fresh = '白云生远树，细雨落寒窗。';
  const n = novelty([copy, oneLine, fresh], index);
  assert.equal(n.poems, 3);
  assert.equal(n.lines, 4 + 4 + 2);
  assert.equal(n.copiedLines, 4 + 1);
  assert.equal(n.lineShare, 0.5);
  assert.equal(n.copiedPoems, 1);
  assert.deepEqual(longestCopied(copy, index), { length: 24, text: WUJUE });
  // '，黄河入海流。' (7 code points, the marks included) occurs in WUJUE
  assert.deepEqual(longestCopied(oneLine, index), { length: 7, text: '，黄河入海流。' });
  assert.deepEqual(longestCopied(fresh, index), { length: 2, text: '白云' });
  assert.equal(n.meanLongest, (24 + 7 + 2) / 3);
  // a match never runs across two training poems: 楼。 ends WUJUE and 黄河远 starts QIJUE
  assert.equal(longestCopied('楼。黄河远', index).length, 3);
  assert.equal(longestCopied('xyz', index).length, 0);
  assert.deepEqual(summarize([copy], { index }).novelty, novelty([copy], index));
});

test('metrics refuse what is not a poem or an index, naming the operation and argument', () => {
  assert.throws(() => formOf(3), { name: 'TypeError', message: /formOf: poem must be a string, got number/ });
  assert.throws(() => rhyme(null), { name: 'TypeError', message: /rhyme: poem must be a string, got null/ });
  assert.throws(() => summarize('poem'), { name: 'TypeError', message: /summarize: poems must be an array/ });
  assert.throws(() => summarize([WUJUE, 7]), { name: 'TypeError', message: /summarize: poems\[1\] must be a string/ });
  assert.throws(() => novelty([WUJUE], {}), { name: 'TypeError', message: /novelty: index must be what trainingIndex/ });
});

// ---- the counting baselines on a corpus small enough to count by hand ----
// "AB", "AB", "AC": tokens A B \n A B \n A C \n (the end-of-text token \n after each poem).
const TINY = 'AB\nAB\nAC\n';

test('ngram: the vocabulary and the unigram loss, each poem scored once from its start', () => {
  assert.deepEqual(vocabularyOf(TINY), ['\n', 'A', 'B', 'C']);
  const uni = createNgram('unigram', TINY);
  // p(A) = 3/9, p(B) = 2/9, p(\n) = 3/9: "AB" costs -ln(3/9) - ln(2/9) - ln(3/9) over 3 tokens
  const r = evaluate(uni, ['AB']);
  assert.equal(r.tokens, 3);
  assert.equal(r.poems, 1);
  assert.ok(Math.abs(r.loss - (Math.log(3) + Math.log(4.5) + Math.log(3)) / 3) < 1e-12, r.loss);
  // a poem with a character outside the vocabulary is left out, and counted
  assert.deepEqual(evaluate(uni, ['AD', 'AB']), { ...r, dropped: 1 });
});

test('ngram: the interpolated trigram and the positional bigram with given weights, by hand', () => {
  const tri = createNgram('trigram', TINY, { weights: Array.from({ length: 13 }, () => [0.5, 0.25, 0.125, 0.125]) });
  // A after (\n, \n): p3 = 3/3, p2(A | \n) = 3/3, p1 = 3/9, uniform 1/4
  const pA = 0.5 + 0.25 + 0.125 / 3 + 0.125 / 4;
  // B after (\n, A): p3 = 2/3, p2(B | A) = 2/3, p1 = 2/9
  const pB = 0.5 * 2 / 3 + 0.25 * 2 / 3 + 0.125 * 2 / 9 + 0.125 / 4;
  // \n after (A, B): p3 = 1, p2 = 1, p1 = 3/9
  const pEnd = 0.5 + 0.25 + 0.125 / 3 + 0.125 / 4;
  const r = evaluate(tri, ['AB']);
  assert.ok(Math.abs(r.loss - -(Math.log(pA) + Math.log(pB) + Math.log(pEnd)) / 3) < 1e-12);

  const pos = createNgram('positional', TINY, { weights: Array.from({ length: 13 }, () => [0.2, 0.2, 0.2, 0.2, 0.2]) });
  // C at position 1 after A: p(C | A, 1) = 1/3, p(C | position 1) = 1/3, p(C | A) = 1/3, p(C) = 1/9, 1/4
  const dist = nextDistribution(pos, 0, 1, 1);
  assert.ok(Math.abs(dist[3] - 0.2 * (1 / 3 + 1 / 3 + 1 / 3 + 1 / 9 + 1 / 4)) < 1e-12);
  for (const model of [tri, pos, createNgram('unigram', TINY)]) {
    for (const [a, b, p] of [[0, 0, 0], [0, 1, 1], [1, 2, 2], [2, 3, 40]]) {
      const d = nextDistribution(model, a, b, p);
      assert.ok(Math.abs(d.reduce((s, x) => s + x, 0) - 1) < 1e-12, `${model.kind} (${a}, ${b}, ${p})`);
    }
  }
});

test('ngram: held-out weights put the mass where the held-out text is predictable', () => {
  // 20 copies of "AB": poems 10 and 20 are held out, the other 18 predict them exactly with the
  // trigram and the bigram (p = 1), so EM moves the unigram's and the uniform's weight to ~0
  const { weights, heldOutTokens } = fitWeights('trigram', 'AB\n'.repeat(20));
  assert.equal(heldOutTokens, 6);
  for (const w of weights) {
    assert.ok(Math.abs(w.reduce((s, x) => s + x, 0) - 1) < 1e-9);
    assert.ok(w.every((x) => x >= 0));
  }
  const b = Math.floor(Math.log2(1 + 18));  // every context was seen 18 times
  assert.ok(weights[b][0] + weights[b][1] > 0.999, String(weights[b]));
  assert.equal(fitWeights('unigram', TINY).weights, null);
});

test('ngram: sampling is seeded, stops at the end-of-text token, and follows a deterministic model', () => {
  const onlyTrigram = Array.from({ length: 13 }, () => [1, 0, 0, 0]);
  const det = createNgram('trigram', 'AB\nAB\n', { weights: onlyTrigram });
  assert.deepEqual(samplePoems(det, { count: 3, seed: 5 }), ['AB', 'AB', 'AB']);
  const uni = createNgram('unigram', TINY);
  const a = samplePoems(uni, { count: 20, seed: 7 });
  assert.deepEqual(samplePoems(uni, { count: 20, seed: 7 }), a);
  assert.notDeepEqual(samplePoems(uni, { count: 20, seed: 8 }), a);
  assert.ok(a.every((p) => !p.includes('\n') && [...p].length <= 80));
  assert.ok(samplePoems(uni, { count: 5, seed: 1, maxLength: 2 }).every((p) => p.length <= 2));
});

test('ngram: refusals name the operation and the value', () => {
  assert.throws(() => createNgram('bigram', TINY), { name: 'RangeError', message: /createNgram: kind must be one of unigram, trigram, positional, got bigram/ });
  assert.throws(() => createNgram('unigram', 5), { name: 'TypeError', message: /createNgram: text must be a string/ });
  assert.throws(() => createNgram('trigram', TINY, { weights: [[1]] }), { name: 'RangeError', message: /createNgram: options.weights/ });
  assert.throws(() => createNgram('unigram', TINY, { vocabulary: ['\n', 'A'] }), { name: 'RangeError', message: /"B" is not in options.vocabulary/ });
  assert.throws(() => evaluate({}, ['AB']), { name: 'TypeError', message: /evaluate: model must be what createNgram returns/ });
  const uni = createNgram('unigram', TINY);
  assert.throws(() => samplePoems(uni, { temperature: 0 }), { name: 'RangeError', message: /samplePoems: temperature must be a positive number, got 0/ });
  assert.throws(() => samplePoems(uni, { count: 1.5 }), { name: 'RangeError', message: /samplePoems: count/ });
});

test('pretrained-baselines.json: the measured figures the docs quote, consistent with each other', () => {
  const data = JSON.parse(readFileSync(new URL('../web/data/pretrained-baselines.json', import.meta.url), 'utf8'));
  for (const f of FORM_NAMES) {
    const real = data.real[f];
    assert.ok(real.lines24 > real.chance, `${f}: real poems rhyme above chance`);
    assert.equal(real.novelty.copiedPoems, 0, `${f}: the validation split shares no poem with training`);
    assert.equal(real.novelty.copiedLines, 0, `${f}: nor a line`);
  }
  for (const kind of ['unigram', 'trigram', 'positional']) {
    const b = data.baselines[kind];
    assert.ok(b.val.wujue.loss > 0 && b.val.all.loss > 0);
    assert.equal(b.samples.perSeed.length, b.samples.seeds.length);
    const [lo, hi] = b.samples.ranges.wellFormed;
    assert.ok(b.samples.perSeed.every((s) => s.wellFormed >= lo && s.wellFormed <= hi));
  }
  assert.ok(data.baselines.trigram.val.all.loss < data.baselines.unigram.val.all.loss);
  assert.ok(data.best.wujue.loss <= data.baselines.positional.val.wujue.loss);
});
