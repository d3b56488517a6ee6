// finetune-moved.test.js: what a full fine-tune moved (ft.movedShare, ft.parameters), through the
// public API on a tiny configuration: the count is the number of parameters whose difference from
// the base's exceeds the threshold, computed here from parameters() and base.parameters().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';

const qkv = await load({ gpt: true });
const TEXT = ['abcab cabca', 'bca bcab', 'cab cab', 'aabbcc abc', 'abc abc', 'cba cba', 'acb acb',
  'bac bac', 'ccba abcc', 'bbac caab', 'aaa bbb ccc', 'dd ee dd'].join('\n');
const TUNE = ['cab cab', 'abc cba', 'bca acb', 'cab bac', 'abc abc', 'cba cba', 'bac cab', 'acb bca',
  'cab cab', 'abc cab', 'bca bca', 'cba abc'].join('\n');

/** Every float of a GPT.parameters() result, in one list. */
function flat(p) {
  const out = [];
  const walk = (v) => {
    if (v && v.data instanceof Float32Array) out.push(...v.data);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(p);
  return out;
}

test('movedShare counts the parameters a full fine-tune moved past the threshold; a LoRA run and bad thresholds are refused', () => {
  const baseline = qkv._heap.used();
  const gpt = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, steps: 20 });
  const full = gpt.finetune({ text: TUNE, method: 'full', lr: 1e-2, steps: 10 });
  assert.deepEqual(full.movedShare(0), { moved: 0, total: gpt.parameterCount, share: 0 }, 'nothing moved at step 0');
  full.train(3);
  const before = flat(gpt.parameters()), after = flat(full.parameters());
  assert.equal(after.length, gpt.parameterCount);
  for (const threshold of [0, 1e-4, 1e-2]) {
    // float32 differences, as the engine's own
    const expected = after.filter((w, i) => Math.abs(Math.fround(w) - Math.fround(before[i])) > threshold).length;
    const got = full.movedShare(threshold);
    assert.equal(got.moved, expected, `threshold ${threshold}`);
    assert.equal(got.share, expected / gpt.parameterCount);
  }
  assert.ok(full.movedShare(0).moved > full.movedShare(1e-2).moved, 'a larger threshold counts fewer');
  assert.throws(() => full.movedShare(-1), (e) => e instanceof RangeError && /movedShare: threshold .* -1/.test(e.message));
  assert.throws(() => full.movedShare('1'), (e) => e instanceof TypeError && /movedShare: threshold/.test(e.message));
  const lora = gpt.finetune({ text: TUNE, rank: 2, steps: 10 });
  assert.throws(() => lora.movedShare(), /LoRA fine-tune moves none/);
  assert.throws(() => lora.parameters(), /base\.parameters\(\)/);
  gpt.dispose();
  assert.equal(qkv._heap.used(), baseline, 'every byte returned');
});
