// gpt-evaluate-poems.test.js: per-poem evaluation (gpt.evaluatePoems): each poem scored once from
// its start equals the cross-entropy computed here from forward()'s logits (double log-sum-exp);
// the default is the GPT's validation lines (every 10th); batching changes nothing (a loaded copy
// scores one poem per call); over-long poems are scored on their first context targets and
// counted; bad input is refused naming the poem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { POEMS_VAL } from '../web/data/poems-val.js';

const qkv = await load({ gpt: true });
const POEMS = [...POEMS_VAL.wujue.split('\n').slice(0, 30), ...POEMS_VAL.qijue.split('\n').slice(0, 10)];
const gpt = qkv.createGPT({ text: POEMS.join('\n'), layers: 1, heads: 2, dim: 16, context: 30, batch: 4, steps: 20, seed: 2, lr: 1e-2 });
gpt.train();

/** Σ −log p(target) over '\n' + poem → poem + '\n' (its first context targets), from forward() */
function lossOf(model, poem) {
  const all = Array.from(poem);
  const n = Math.min(all.length + 1, model.context);
  const { logits } = model.forward(all.slice(0, n - 1).join(''));
  const targets = [...all.map((ch) => model.vocab.indexOf(ch)), 0];
  const V = logits.cols;
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const row = logits.data.subarray(t * V, (t + 1) * V);
    let max = -Infinity;
    for (const z of row) max = Math.max(max, z);
    let s = 0;
    for (const z of row) s += Math.exp(z - max);
    sum += max + Math.log(s) - row[targets[t]];
  }
  return { sum, count: n };
}

test('each poem once, from its start: the cross-entropy of forward()\'s logits', () => {
  const some = POEMS.slice(0, 7);
  const r = gpt.evaluatePoems(some);
  let sum = 0, count = 0;
  for (const poem of some) { const l = lossOf(gpt, poem); sum += l.sum; count += l.count; }
  assert.equal(r.poems, 7);
  assert.equal(r.targets, count);
  assert.equal(r.cut, 0);
  // float32 logits on both sides; the engine sums in double: agreement to float32 rounding
  assert.ok(Math.abs(r.loss - sum / count) < 1e-5, `${r.loss} vs ${sum / count}`);
  assert.deepEqual(gpt.evaluatePoems(some.join('\n') + '\n\n'), r, 'a string with one poem per line is the same');
});

test('the default is the validation lines; a loaded copy (one poem per call) agrees; over-long poems are cut and counted', () => {
  const val = POEMS.filter((_, i) => i % 10 === 9);
  const r = gpt.evaluatePoems();
  assert.equal(r.poems, val.length);
  const copy = qkv.loadGPT(gpt.save());
  const again = copy.evaluatePoems(val);
  assert.equal(again.targets, r.targets);
  assert.ok(Math.abs(again.loss - r.loss) < 1e-6, `${again.loss} vs ${r.loss}`);
  assert.throws(() => copy.evaluatePoems(), /evaluatePoems: this GPT was loaded from bytes, which hold no validation poems/);
  copy.dispose();
  // 七绝 (32 characters) in a context of 30: the first 30 targets of each
  const long = POEMS.slice(30, 33);
  const cut = gpt.evaluatePoems(long);
  assert.equal(cut.cut, 3);
  assert.equal(cut.targets, 3 * 30);
  let sum = 0;
  for (const poem of long) sum += lossOf(gpt, poem).sum;
  assert.ok(Math.abs(cut.loss - sum / 90) < 1e-5);
});

test('bad poems are refused, naming them', () => {
  assert.throws(() => gpt.evaluatePoems(['白日依山尽', 'abc']), (e) => e instanceof RangeError && /evaluatePoems: poem 2 has a character not in the vocabulary: "a"/.test(e.message));
  assert.throws(() => gpt.evaluatePoems([7]), (e) => e instanceof TypeError && /poems\[0\] must be a non-empty string/.test(e.message));
  assert.throws(() => gpt.evaluatePoems(''), (e) => e instanceof RangeError && /no poems to score/.test(e.message));
  assert.throws(() => gpt.evaluatePoems(5), (e) => e instanceof TypeError && /poems must be a string/.test(e.message));
});
