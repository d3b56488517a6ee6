// pretrained-section.test.js: the numbers of the 预训练 section (web/page/pretrained/): where a
// quatrain's line ends are, one head's reading of a hand-made attention row, the ranking, the
// table read from the measured data, and the committed rhyme-head report against the shipped
// model (the page's readPoem over gpt.forward, the public way to read attention weights).
// Drawing, the quiz in the page and axe: tests/browser/pretrained-section.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { quatrainPositions, headReading, rhymeReadings, rankHeads, mostWatchedLine } from '../web/page/pretrained/rhyme-head.js';
import { comparisonRows, comparisonFindings } from '../web/page/pretrained/comparison.js';
import { readPoem, RHYME_AVERAGE, EXAMPLES } from '../web/page/pretrained/poet.js';
import { PRETRAINED_PROPERTIES } from '../web/page/pretrained/settings.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import REPORT from '../web/data/pretrained-report.json' with { type: 'json' };
import BASELINES from '../web/data/pretrained-baselines.json' with { type: 'json' };
import WRITER from '../web/data/writer-reference.json' with { type: 'json' };

const DENG = '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。';

test('quatrainPositions: the tokens of the four line ends of a 五绝 and a 七绝 (token 0 is the start); anything else is null', () => {
  const five = quatrainPositions(DENG);
  assert.deepEqual(five.lineEnds, [5, 11, 17, 23]);
  const tokens = ['\n', ...DENG];
  assert.deepEqual(five.lineEnds.map((k) => tokens[k]), ['尽', '流', '目', '楼']);
  assert.equal(five.query, 23);
  assert.equal(five.rhyme, 11);
  const seven = quatrainPositions('朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。');
  assert.deepEqual(seven.lineEnds.map((k) => ['\n', ...'朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。'][k]), ['间', '还', '住', '山']);
  for (const bad of ['', '白日依山尽，黄河入海流。', `${DENG}${DENG}`, DENG.replace('。', '，'), DENG.replace('尽', 'a'), '白日依山，黄河入海流。欲穷千里目，更上一层楼。', 42]) {
    assert.equal(quatrainPositions(bad), null, String(bad));
  }
  // the URL property takes a quatrain or nothing (the first example)
  const prop = PRETRAINED_PROPERTIES.find((p) => p.name === 'ppoem');
  assert.equal(prop.validate(DENG), DENG);
  assert.equal(prop.validate(''), '');
  assert.equal(prop.validate('白日依山尽'), null);
});

test('headReading: the weight on line 2\'s end against the mean over the other earlier tokens, on a hand-made row', () => {
  // 6 tokens; query 4 (row 4), rhyme 2: others are tokens 0, 1, 3 → (0.1 + 0.1 + 0.2) / 3
  const row4 = [0.1, 0.1, 0.5, 0.2, 0.1, 0];
  const data = new Float32Array(36);
  data.set(row4, 24);
  const r = headReading({ rows: 6, cols: 6, data }, { query: 4, rhyme: 2, lineEnds: [1, 2, 3, 5] });
  assert.ok(Math.abs(r.toRhyme - 0.5) < 1e-7);
  assert.ok(Math.abs(r.others - 0.4 / 3) < 1e-7);
  assert.ok(Math.abs(r.ratio - 3.75) < 1e-6);
  assert.deepEqual(r.toLineEnds.map((x) => Number(x.toFixed(6))), [0.1, 0.5, 0.2]);
  assert.equal(mostWatchedLine(r), 2);
  assert.equal(mostWatchedLine({ toLineEnds: [0.3, 0.2, 0.1] }), 1);
  assert.equal(mostWatchedLine({ toLineEnds: [0.1, 0.2, 0.3] }), 3);
});

test('rankHeads: largest ratio first, ranks from 1, ties in layer-then-head order', () => {
  const ranked = rankHeads([[1, 5], [5, 0.5]]);
  assert.deepEqual(ranked.map((e) => [e.layer, e.head, e.rank]), [[0, 1, 1], [1, 0, 2], [0, 0, 3], [1, 1, 4]]);
});

test('the table reads every figure from the measured data, at one temperature, and the findings follow', () => {
  const rows = comparisonRows({ report: REPORT, baselines: BASELINES, writer: WRITER });
  const by = Object.fromEntries(rows.map((r) => [r.id, r]));
  assert.deepEqual(Object.keys(by), ['real', 'pretrained', 'writer', 'positionalOne', 'positional', 'trigram', 'chance']);
  assert.equal(by.pretrained.loss.value, REPORT.validation.shipped.wujue.loss);
  assert.equal(by.pretrained.lines24.value, REPORT.sampling.rhyme.wujue.lines24);
  assert.equal(by.real.lines24.value, BASELINES.real.wujue.lines24);
  assert.equal(by.chance.lines24.value, BASELINES.real.wujue.chance);
  assert.equal(by.positional.loss.value, BASELINES.baselines.positional.val.wujue.loss);
  assert.equal(by.trigram.loss.value, BASELINES.baselines.trigram.val.wujue.loss);
  const valLosses = WRITER.runs.map((r) => r.val.loss);
  assert.deepEqual(by.writer.loss.range, [Math.min(...valLosses), Math.max(...valLosses)]);
  // the same sampling temperature for every model whose poems are read
  const temperatures = new Set(rows.map((r) => r.of.temperature).filter((t) => t !== undefined));
  assert.deepEqual([...temperatures], [REPORT.sampling.temperature]);
  // the finding the section states: counting gets the form on one form, not the rhyme
  const f = comparisonFindings(rows);
  assert.ok(f.countingForm > 0.1 && f.countingRhyme < 2 * f.chance && f.poetRhyme > 3 * f.chance, JSON.stringify(f));
});

test('the shipped model: the page\'s reading is gpt.forward\'s attention, and the report\'s rhyme head is the best on held-out quatrains', async () => {
  const qkv = await load();
  const gpt = await qkv.loadPretrained();
  try {
    const poem = EXAMPLES[0];
    const read = readPoem(gpt, poem);
    const trace = gpt.forward(poem);
    const { layer, head } = RHYME_AVERAGE.best;
    const weights = trace.blocks[layer].attention.heads[head].weights;
    const q = read.positions.query, k = read.positions.rhyme;
    assert.equal(q, quatrainPositions(poem).query - 1, 'the row that chooses line 4\'s last character');
    assert.equal(read.readings[layer][head].toRhyme, weights.data[q * weights.cols + k]);
    assert.deepEqual(read.readings, rhymeReadings(trace, read.positions));
    assert.equal(read.bestRank, read.ranked.findIndex((e) => e.layer === layer && e.head === head) + 1);
    // its row sums to 1 over the causal positions and to 0 after them
    let sum = 0;
    for (let j = 0; j < weights.cols; j++) sum += weights.data[q * weights.cols + j];
    assert.ok(Math.abs(sum - 1) < 1e-5, `row sum ${sum}`);
    // the report's head wins on the first 12 held-out 七绝 as well (a fresh sample of its average)
    const poems = POEMS_VAL.qijue.split('\n').filter(Boolean).slice(0, 12).filter((p) => Array.from(p).every((ch) => gpt.vocab.includes(ch)));
    const sums = read.readings.map((row) => row.map(() => [0, 0]));
    for (const p of poems) {
      const r = readPoem(gpt, p);
      r.readings.forEach((row, l) => row.forEach((x, hh) => { sums[l][hh][0] += x.toRhyme; sums[l][hh][1] += x.others; }));
    }
    const ranked = rankHeads(sums.map((row) => row.map(([a, b]) => a / b)));
    assert.deepEqual([ranked[0].layer, ranked[0].head], [layer, head]);
    assert.equal(readPoem(gpt, '白日依山尽').error.key, 'pre.poemBad');
  } finally {
    gpt.dispose();
  }
});
