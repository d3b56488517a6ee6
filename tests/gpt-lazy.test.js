// The GPT engine loads on demand (build.sh build_gpt, web/qkv-lab.js attachGPT): an instance
// from load() has no GPT until load({ gpt: true }) or qkv.loadGPTEngine() attaches it, on the
// same instance and memory; before that its GPT calls throw an Error saying what to call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';

const X = [[1, 2], [3, 4]];
const TEXT = Array.from({ length: 20 }, (_, i) => `ab${'cd'[i % 2]}`).join('\n');

test('without the GPT engine: transformerBlock, createGPT and loadGPT throw an Error naming load({ gpt: true }) and loadGPTEngine()', async () => {
  const qkv = await load({ fresh: true });
  assert.equal(qkv.gptLoaded, false);
  for (const [op, call] of [['transformerBlock', () => qkv.transformerBlock(X, {}, { heads: 1 })],
    ['createGPT', () => qkv.createGPT({ text: TEXT })], ['loadGPT', () => qkv.loadGPT(new Uint8Array(8))]]) {
    assert.throws(call, (error) => error.constructor === Error &&
      error.message.startsWith(`${op}: the GPT engine is not loaded`) &&
      error.message.includes('await load({ gpt: true })') && error.message.includes('await qkv.loadGPTEngine()'), op);
  }
  // the rest of the API works without it
  assert.equal(qkv.matmul([[1, 2]], [[3], [4]]).data[0], 11);
});

test('loadGPTEngine() attaches the engine to the instance it is called on (one memory), once', async () => {
  const qkv = await load({ fresh: true });
  const before = qkv.heapUsed();
  const [a, b] = await Promise.all([qkv.loadGPTEngine(), qkv.loadGPTEngine()]);
  assert.equal(a, qkv);
  assert.equal(b, qkv);
  assert.equal(qkv.gptLoaded, true);
  const attached = qkv.heapUsed();
  assert.ok(attached > before, 'the engine\'s stack is allocated on the instance\'s heap');
  await qkv.loadGPTEngine();
  assert.equal(qkv.heapUsed(), attached, 'a second call attaches nothing more');
  const gpt = qkv.createGPT({ text: TEXT, layers: 1, dim: 8, heads: 2, context: 4, batch: 2, steps: 2 });
  assert.ok(Number.isFinite(gpt.step().loss));
  const copy = qkv.loadGPT(gpt.save());
  assert.deepEqual(copy.forward('ab').logits.data, gpt.forward('ab').logits.data);
  gpt.dispose();
  copy.dispose();
  assert.equal(qkv.heapUsed(), attached);
});

test('load({ gpt: true }) attaches the engine to the shared instance: widgets on a page share one instance', async () => {
  const plain = await load();
  const withGPT = await load({ gpt: true });
  assert.equal(withGPT, plain);
  assert.equal(plain.gptLoaded, true);
  assert.equal(await load(), plain);
  const out = plain.transformerBlock(X, {
    ln1: { gamma: [1, 1], beta: [0, 0] },
    attn: { Wq: [[1, 0], [0, 1]], Wk: [[1, 0], [0, 1]], Wv: [[1, 0], [0, 1]], bq: [0, 0], bk: [0, 0], bv: [0, 0], Wo: [[1, 0], [0, 1]], bo: [0, 0] },
    ln2: { gamma: [1, 1], beta: [0, 0] },
    mlp: { W1: [[1, 0], [0, 1]], b1: [0, 0], W2: [[1, 0], [0, 1]], b2: [0, 0] },
  }, { heads: 1 });
  assert.equal(out.output.rows, 2);
});

test('load({ gpt }) takes true or false only, rejecting the promise otherwise', async () => {
  for (const gpt of ['yes', 1, null]) {
    await assert.rejects(load({ gpt }), (error) => error instanceof TypeError && error.message.startsWith('load: gpt must be true or false'));
  }
  const qkv = await load({ fresh: true, gpt: false });
  assert.equal(qkv.gptLoaded, false);
});
