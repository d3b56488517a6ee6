// finetune-run.test.js: the page's fine-tuning run (web/page/finetune/run.js, what the worker
// runs) through its messages, on a tiny base in Node: the drawing it sends is the frozen W and
// (α/r)·A·B computed from the adapters it reports (LoRA), or W now − W before with the moved share
// (full); steps, samples and evaluations arrive as the section expects; Compare writes the same
// text merged and unmerged, a merged run takes no step; Save gives the adapter file; stop() frees the heap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { createFineTuneRun } from '../web/page/finetune/run.js';
import { SAMPLE_POEMS } from '../web/page/finetune/constants.js';

const qkv = await load({ gpt: true });
const TEXT = ['abcab cabca', 'bca bcab', 'cab cab', 'aabbcc abc', 'abc abc', 'cba cba', 'acb acb',
  'bac bac', 'ccba abcc', 'bbac caab', 'aaa bbb ccc', 'dd ee dd'].join('\n');
const TUNE = ['cab cab', 'abc cba', 'bca acb', 'cab bac', 'abc abc', 'cba cba', 'bac cab', 'acb bca',
  'cab cab', 'abc cab', 'bca bca', 'cba abc'].join('\n');

/** A run with its messages collected; until(type, test) waits for one. */
function harness() {
  const messages = [];
  const waiters = [];
  const run = createFineTuneRun({
    api: async () => qkv,
    post: (m) => { messages.push(m); for (const w of [...waiters]) if (w.match(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); } },
  });
  const until = (type, test = () => true) => {
    const found = messages.find((m) => m.type === type && test(m));
    return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match: (m) => m.type === type && test(m), resolve }));
  };
  return { run, messages, until };
}

test('LoRA: (α/r)·A·B drawn from the adapters, steps and samples reported, and the heap freed by stop()', async () => {
  const baseline = qkv._heap.used();
  const base = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, steps: 20 });
  const bytes = base.save();
  base.dispose();
  const { run, until } = harness();
  run.receive({ type: 'base', bytes });
  await until('based');
  run.receive({ type: 'create', options: { method: 'lora', rank: 2, targets: ['Wq', 'Wv'], steps: 10, seed: 1 }, text: TUNE, preset: false, baseText: TEXT });
  const created = await until('created');
  assert.equal(created.info.trainableCount, 1 * 2 * 2 * (8 + 8));
  const zero = await until('change', (m) => m.step === 0);
  assert.ok(zero.delta.data.every((v) => v === 0), 'B starts at zero');
  await until('sample', (m) => m.step === 0);
  await until('eval', (m) => m.step === 0);
  for (let k = 1; k <= 3; k++) { run.receive({ type: 'advance' }); await until('progress', (m) => m.step === k); }
  const change = await until('change', (m) => m.step === 3);
  const { A, B, delta, W } = change;
  assert.deepEqual([A.rows, A.cols, B.rows, B.cols, W.rows, W.cols], [8, 2, 2, 8, 8, 8]);
  let worst = 0;
  for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) {
    let sum = 0;
    for (let k = 0; k < 2; k++) sum += A.data[i * 2 + k] * B.data[k * 8 + j];
    worst = Math.max(worst, Math.abs((8 / 2) * sum - delta.data[i * 8 + j]));
  }
  assert.ok(worst < 1e-6, `(α/r)·A·B within 1e-6 (float32 sums): ${worst}`);
  assert.ok(delta.data.some((v) => v !== 0));
  const sample = await until('sample', (m) => m.step === 0);
  assert.equal(sample.poems.length, SAMPLE_POEMS);
  // Compare, unmerged and merged: the same seed writes the same text; merged, a step is refused
  run.receive({ type: 'compare', prompt: 'ca', seed: 2 });
  const apart = await until('compare', (m) => !m.merged);
  run.receive({ type: 'merge', merged: true });
  await until('merged', (m) => m.merged);
  run.receive({ type: 'compare', prompt: 'ca', seed: 2 });
  const merged = await until('compare', (m) => m.merged);
  assert.equal(merged.tuned, apart.tuned, 'merged writes what unmerged wrote');
  assert.equal(merged.base, apart.base);
  run.receive({ type: 'advance' });
  run.receive({ type: 'merge', merged: false });
  await until('merged', (m) => !m.merged);
  run.receive({ type: 'advance' });
  const next = await until('progress', (m) => m.step === 4);
  assert.ok(Number.isFinite(next.loss), 'unmerged, it steps on (the step asked while merged was not taken)');
  run.receive({ type: 'save' });
  const saved = await until('saved');
  assert.equal(Buffer.from(saved.bytes.subarray(0, 8)).toString('latin1'), 'QKVLORA\n');
  run.stop();
  assert.equal(qkv._heap.used(), baseline, 'every byte returned');
});

test('full: W now − W before and the share of parameters moved', async () => {
  const base = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, steps: 20 });
  const bytes = base.save();
  base.dispose();
  const { run, until } = harness();
  run.receive({ type: 'base', bytes });
  run.receive({ type: 'create', options: { method: 'full', steps: 10, seed: 1 }, text: TUNE, preset: false, baseText: TEXT });
  await until('created');
  const zero = await until('change', (m) => m.step === 0);
  assert.equal(zero.A, null);
  assert.deepEqual(zero.moved, { moved: 0, total: zero.moved.total, share: 0 });
  for (let k = 1; k <= 5; k++) { run.receive({ type: 'advance' }); await until('progress', (m) => m.step === k); }
  const fifth = await until('change', (m) => m.step === 5);
  assert.ok(fifth.moved.moved > 0 && fifth.moved.share > 0, JSON.stringify(fifth.moved));
  assert.ok(fifth.delta.data.some((v) => v !== 0), 'W moved');
  run.stop();
});

test('the end: done is said once, last, after the end\'s sample and evaluation (the end\'s step says not yet)', async () => {
  const base = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, steps: 20 });
  const bytes = base.save();
  base.dispose();
  const { run, messages, until } = harness();
  try {
    run.receive({ type: 'base', bytes });
    run.receive({ type: 'create', options: { method: 'lora', rank: 2, targets: ['Wq'], steps: 3, seed: 1 }, text: TUNE, preset: false, baseText: TEXT });
    await until('created');
    for (let k = 1; k <= 3; k++) { run.receive({ type: 'advance' }); await until('progress', (m) => m.step === k && m.loss !== null); }
    run.receive({ type: 'advance' });   // the ticker may ask once more before it hears the end: nothing happens
    await until('progress', (m) => m.done);
    const progress = messages.filter((m) => m.type === 'progress');
    assert.deepEqual(progress.filter((m) => m.loss !== null).map((m) => [m.step, m.done]), [[1, false], [2, false], [3, false]]);
    assert.deepEqual(progress.filter((m) => m.done).map((m) => m.step), [3], 'done once, at the end');
    const last = messages.at(-1);
    assert.ok(last.type === 'progress' && last.done && last.loss === null, `the last message is ${JSON.stringify(last).slice(0, 80)}`);
    for (const type of ['sample', 'eval']) assert.equal(messages.filter((m) => m.type === type).at(-1).step, 3, `the end's ${type} came before done`);
  } finally {
    run.stop();   // a failed assertion must not leave the run's channel holding the process open
  }
});
