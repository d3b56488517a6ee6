// The trainable model's JavaScript (web/model.js with corpus.js and pca.js) loads on demand
// (web/qkv-lab.js loadModelEngine): no attention call needs it, so a bundler splits it off and an
// app that only attends never loads it. Until load({ model: true }) or qkv.loadModelEngine() has
// loaded it, createModel throws an Error saying what to call; once loaded it serves every instance.
// This file must not load the model before its first test: each test file runs in its own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, Model } from '../web/qkv-lab.js';

test('before it is loaded: createModel throws an Error naming load({ model: true }) and loadModelEngine(); the rest of the API works', async () => {
  const qkv = await load({ fresh: true });
  assert.equal(qkv.modelLoaded, false);
  assert.throws(() => qkv.createModel({ seed: 1 }), (error) => error.constructor === Error &&
    error.message.startsWith('createModel: the trainable model is not loaded') &&
    error.message.includes('await load({ model: true })') && error.message.includes('await qkv.loadModelEngine()'));
  assert.equal({} instanceof Model, false);
  assert.equal(qkv.attend([[1, 0]], [[1, 0]], [[2, 3]], { outputs: ['output'] }).output.data[1], 3);
});

test('loadModelEngine() loads it once → the instance; then createModel works on every instance, and its models are instanceof Model', async () => {
  const qkv = await load({ fresh: true });
  const before = qkv.heapUsed();
  const [a, b] = await Promise.all([qkv.loadModelEngine(), qkv.loadModelEngine()]);
  assert.equal(a, qkv);
  assert.equal(b, qkv);
  assert.equal(qkv.heapUsed(), before, 'loading the code allocates nothing');
  assert.equal(qkv.modelLoaded, true);
  const other = await load({ fresh: true });
  assert.equal(other.modelLoaded, true, 'the code serves every instance');
  for (const lab of [qkv, other]) {
    const model = lab.createModel({ seed: 1, steps: 2 });
    assert.ok(model instanceof Model);
    assert.ok(Number.isFinite(model.step().loss));
    model.dispose();
    // new Model(qkv, options) is createModel(options), as before
    const made = new Model(lab, { seed: 1 });
    assert.ok(made instanceof Model);
    made.dispose();
  }
  assert.equal(qkv.heapUsed(), before);
  assert.equal({} instanceof Model, false);
});

test('load({ model: true }) gives the shared instance; load({ model }) takes true or false only', async () => {
  const plain = await load();
  assert.equal(await load({ model: true }), plain);
  assert.equal(await load({ model: true, gpt: true }), plain);
  assert.equal(plain.gptLoaded, true);
  for (const model of ['yes', 1, null]) {
    await assert.rejects(load({ model }), (error) => error instanceof TypeError && error.message.startsWith('load: model must be true or false'));
  }
});
