// Bad input to createModel and the model's methods: each is refused with an error naming the
// problem; divergence stops training instead of handing NaN on; a disposed model refuses work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';

const qkv = await load();

function withModel(options, fn) {
  const model = qkv.createModel(options);
  try {
    return fn(model);
  } finally {
    model.dispose();
  }
}

test('createModel refuses an empty corpus', () => {
  for (const corpus of [[], [''], ['  ', '\t'], '', '\n\n']) {
    assert.throws(() => qkv.createModel({ corpus }), { name: 'RangeError', message: /corpus is empty/ });
  }
  assert.throws(() => qkv.createModel({ corpus: 42 }), { name: 'TypeError', message: /corpus must be/ });
  assert.throws(() => qkv.createModel({ corpus: ['一只 猫', 7] }), { name: 'TypeError', message: /sentence 1/ });
  assert.throws(() => qkv.createModel({ corpus: ['<s> 猫'] }), { name: 'RangeError', message: /reserved/ });
});

test('createModel refuses a bad dim, seed, batchSize or steps', () => {
  for (const dim of [0, -3, 1.5, NaN, Infinity]) {
    assert.throws(() => qkv.createModel({ dim }), { name: 'RangeError', message: /dim must be an integer/ });
  }
  assert.throws(() => qkv.createModel({ dim: '16' }), { name: 'TypeError', message: /dim/ });
  assert.throws(() => qkv.createModel({ seed: -1 }), { name: 'RangeError', message: /seed/ });
  assert.throws(() => qkv.createModel({ seed: 2 ** 32 }), { name: 'RangeError', message: /seed/ });
  assert.throws(() => qkv.createModel({ batchSize: 0 }), { name: 'RangeError', message: /batchSize/ });
  assert.throws(() => qkv.createModel({ steps: 0 }), { name: 'RangeError', message: /steps/ });
});

test('createModel refuses a non-finite or non-positive lr and bad Adam settings', () => {
  for (const lr of [0, -0.1, NaN, Infinity, -Infinity]) {
    assert.throws(() => qkv.createModel({ lr }), { name: 'RangeError', message: /lr must be a positive finite number/ });
    assert.throws(() => qkv.createModel({ lr, optimizer: 'adam' }), { name: 'RangeError', message: /lr/ });
  }
  assert.throws(() => qkv.createModel({ lr: '0.1' }), { name: 'TypeError', message: /lr must be a number/ });
  assert.throws(() => qkv.createModel({ optimizer: 'adam', beta1: 1 }), { name: 'RangeError', message: /beta1/ });
  assert.throws(() => qkv.createModel({ optimizer: 'adam', beta2: -0.1 }), { name: 'RangeError', message: /beta2/ });
  assert.throws(() => qkv.createModel({ optimizer: 'adam', eps: 0 }), { name: 'RangeError', message: /eps/ });
});

test('createModel refuses an unknown optimizer and unknown option names', () => {
  for (const optimizer of ['rmsprop', 'SGD', '', 1]) {
    assert.throws(() => qkv.createModel({ optimizer }), { name: 'RangeError', message: /unknown optimizer.*'sgd' or 'adam'/ });
  }
  assert.throws(() => qkv.createModel({ learningRate: 0.1 }), { name: 'TypeError', message: /unknown option "learningRate"/ });
  assert.throws(() => qkv.createModel(null), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => qkv.createModel('sgd'), { name: 'TypeError' });
});

test('no memory is left behind by a refused createModel', () => {
  const start = qkv.heapUsed();
  assert.throws(() => qkv.createModel({ dim: 0 }));
  assert.throws(() => qkv.createModel({ corpus: [] }));
  assert.equal(qkv.heapUsed(), start);
});

test('unknown words in similarity, nearest, analogy, predict and attention are named', () => {
  withModel({ seed: 1 }, (model) => {
    const unknown = { name: 'RangeError', message: /unknown word "飞机".*not in the vocabulary/ };
    assert.throws(() => model.similarity('猫', '飞机'), unknown);
    assert.throws(() => model.similarity('飞机', '猫'), unknown);
    assert.throws(() => model.nearest('飞机'), unknown);
    assert.throws(() => model.analogy('男人', '飞机', '女人'), unknown);
    assert.throws(() => model.predict(['我', '飞机']), unknown);
    assert.throws(() => model.predict('我 飞机'), unknown);
    assert.throws(() => model.attention(['飞机']), unknown);
    assert.throws(() => model.loss(['一只 飞机']), unknown);
    assert.throws(() => model.similarity('猫', 3), { name: 'TypeError', message: /must be a string/ });
    assert.throws(() => model.nearest('猫', 0), { name: 'RangeError', message: /k must be/ });
    assert.throws(() => model.predict(42), { name: 'TypeError' });
    const long = Array(model.maxTokens + 1).fill('猫');
    assert.throws(() => model.predict(long), { name: 'RangeError', message: /at most/ });
    assert.throws(() => model.getParameter('W'), { name: 'RangeError', message: /unknown parameter/ });
    assert.throws(() => model.setParameter('Wq', [[1]]), { name: 'RangeError', message: /Wq is 16×16/ });
    assert.throws(() => model.train(-1), { name: 'RangeError', message: /steps/ });
  });
});

test('lr = 100 diverges: training stops with a DivergenceError, never a NaN loss', () => {
  withModel({ lr: 100, seed: 1 }, (model) => {
    let error;
    try {
      model.train();
    } catch (e) {
      error = e;
    }
    assert.ok(error, 'training with lr = 100 should diverge');
    assert.equal(error.name, 'DivergenceError');
    assert.equal(error.code, 'QKV_DIVERGED');
    assert.match(error.message, /diverged/);
    assert.match(error.message, /lr 100/);
    assert.ok(Array.isArray(error.losses) && error.losses.every(Number.isFinite));
    assert.ok(error.losses.length < model.defaultSteps);
    assert.equal(model.diverged, true);
    assert.equal(model.steps, error.losses.length);
    // the parameters are those before the diverging step: finite
    assert.ok(model.embeddings().data.every(Number.isFinite));
    assert.throws(() => model.step(), { name: 'DivergenceError', message: /diverged/ });
    assert.throws(() => model.train(1), { name: 'DivergenceError' });
  });
});

test('after dispose() every method throws, and dispose() again does nothing', () => {
  const model = qkv.createModel({ seed: 1 });
  model.dispose();
  assert.equal(model.disposed, true);
  model.dispose();
  const disposed = { message: /disposed/ };
  assert.throws(() => model.step(), disposed);
  assert.throws(() => model.train(1), disposed);
  assert.throws(() => model.train(), disposed);
  assert.throws(() => model.loss(), disposed);
  assert.throws(() => model.gradients(), disposed);
  assert.throws(() => model.embeddings(), disposed);
  assert.throws(() => model.similarity('猫', '狗'), disposed);
  assert.throws(() => model.nearest('猫'), disposed);
  assert.throws(() => model.analogy('男人', '国王', '女人'), disposed);
  assert.throws(() => model.project2d(), disposed);
  assert.throws(() => model.predict('我爱吃苹'), disposed);
  assert.throws(() => model.attention('一只 猫'), disposed);
  assert.throws(() => model.getParameter('Wq'), disposed);
  assert.throws(() => model.setParameter('bout', [[0]]), disposed);
});
