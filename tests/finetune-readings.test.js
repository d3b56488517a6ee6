// finetune-readings.test.js: what the page reads from a fine-tune while it runs, through the public
// API on a tiny configuration:
//   - movedShare (full): the number of parameters whose difference from the base's exceeds the
//     threshold, computed here from parameters() and base.parameters();
//   - evaluation({ windows }): with windows covering every one, evaluate()'s val and baseVal; in
//     pieces of one window, the same; fewer windows, a mean over fewer.
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

test('evaluation({ windows }) in pieces gives evaluate()\'s val and baseVal when it covers every window, and refuses a step in between', () => {
  const gpt = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, steps: 20 });
  const ft = gpt.finetune({ text: TUNE, rank: 2, steps: 10, baseText: TEXT });
  ft.train(2);
  const whole = ft.evaluate();
  const pieces = ft.evaluation({ windows: 1000 });
  let result = null, calls = 0;
  while (result === null) { result = pieces.advance(); calls++; }
  assert.equal(calls, pieces.windows, 'one window a piece');
  // the same windows, summed one at a time instead of in one call: float64 sums of the same float32 losses
  assert.ok(Math.abs(result.val - whole.val) < 1e-9 && Math.abs(result.baseVal - whole.baseVal) < 1e-9, JSON.stringify({ result, whole }));
  const few = ft.evaluation({ windows: 1 });
  assert.equal(few.windows, 2, 'one window of each text');
  assert.ok(Number.isFinite(few.advance(2).val));
  const stale = ft.evaluation({ windows: 2 });
  stale.advance();
  ft.step();
  assert.throws(() => stale.advance(), /evaluation: the fine-tune took a step/);
  assert.throws(() => ft.evaluation({ windows: 0 }), RangeError);
  gpt.dispose();
});
