// Bad input to createModel and the model's methods: each is refused with an error naming the
// problem; divergence stops training instead of handing NaN on; a disposed model refuses work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';

const qkv = await load({ model: true });

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

// ---- large corpora, long sentences, oversized steps and models, float32-unsafe settings, divergence ----

test('createModel with 130,000 sentences works (no Math.max(...array) stack overflow); a 10 MB one-line corpus is refused with the limit', () => {
  const corpus = [];
  for (let i = 0; i < 130000; i++) corpus.push(`w${i % 500} 猫 在 叫`);
  const model = qkv.createModel({ corpus, seed: 1 });
  try {
    assert.equal(model.sentences.length, 130000);
    assert.equal(model.maxTokens, 4);
    assert.ok(Number.isFinite(model.step().loss));
    // the whole corpus at once would be more work than one call may do: refused by name
    assert.throws(() => model.loss(), { name: 'RangeError', message: /^loss: 130000 sentences \(520000 tokens\) would take [\d.e+]+ multiply-adds of work \(1\.75e\+10 multiply-adds \+ 3\.31e\+8 softmax entries × \d+\), more than the limit of 1073741824/ });
    assert.ok(Number.isFinite(model.loss(corpus.slice(0, 100))));
  } finally {
    model.dispose();
  }
  const text = '猫'.repeat(10 * 2 ** 20);  // 10 MB of text, no line break: one sentence of 10 Mi tokens
  assert.throws(() => qkv.createModel({ corpus: text }), { name: 'RangeError', message: /^createModel: sentence 0 has 10485760 tokens; a sentence may have at most 256 \(MAX_SENTENCE_TOKENS\)$/ });
});

test('sentences are bounded (256 tokens): a 4,000-word sentence is refused before any work', () => {
  const words = Array.from({ length: 4000 }, (_, i) => `w${i}`).join(' ');
  assert.throws(() => qkv.createModel({ corpus: ['一只 猫', words] }), { name: 'RangeError', message: /^createModel: sentence 1 has 4000 tokens; a sentence may have at most 256/ });
  withModel({ corpus: [Array.from({ length: 256 }, (_, i) => `w${i}`).join(' ')] }, (model) => {
    assert.equal(model.maxTokens, 256);
    assert.ok(Number.isFinite(model.step().loss));
  });
});

test('a training step that would take more than 2^30 multiply-adds is refused by createModel, naming its sizes', () => {
  const corpus = Array.from({ length: 64 }, (_, s) => Array.from({ length: 256 }, (_, i) => `w${(s * 7 + i) % 3000}`).join(' '));
  assert.throws(() => qkv.createModel({ corpus, dim: 512, batchSize: 64 }),
    { name: 'RangeError', message: /^createModel: one training step \(batchSize 64, sentences of up to 256 tokens, vocabulary \d+, dim 512\) would take [\d.e+]+ multiply-adds of work \([\d.e+]+ multiply-adds \+ [\d.e+]+ softmax entries × \d+ \+ [\d.e+]+ SGD parameter updates × \d+\), more than the limit of 1073741824 \(2\^30\)/ });
  // the optimizer's pass over every parameter counts too, Adam's more than SGD's
  assert.throws(() => qkv.createModel({ corpus, dim: 512, batchSize: 64, optimizer: 'adam' }),
    { name: 'RangeError', message: /^createModel: one training step .* \+ [\d.e+]+ Adam parameter updates × \d+\), more than the limit/ });
  // and so does creating the model: a draw and storage for every parameter (2,600 words × dim 512)
  const words = Array.from({ length: 2600 }, (_, i) => [`w${i}`]);
  assert.throws(() => qkv.createModel({ corpus: words, dim: 512 }),
    { name: 'RangeError', message: /^createModel: creating a model of vocabulary 2601 × dim 512 \(a random draw for each of its 3452457 parameters\) would take [\d.e+]+ multiply-adds of work \(3\.45e\+6 new parameters × \d+ \+ 1\.02e\+3 table entries × \d+\)/ });
  withModel({ corpus: words.slice(0, 2400), dim: 512, lr: 1e-3 }, (model) => assert.ok(Number.isFinite(model.step().loss)));
});

// The C model keeps its parameters, its activations and its backward buffers each in one block
// of at most 2^26 floats (wasm/model.c); createModel checks the same sizes first, so the error
// names the vocabulary, the dim and the sentence length instead of a C status.
test('a model too large for the C model\'s blocks is refused by createModel, naming vocabulary × dim, not a C status', () => {
  // 35,000 two-word sentences of new words: vocabulary 70,001; × dim 1024 is 2·V·d ≈ 1.43e8 parameters
  const pairs = Array.from({ length: 35000 }, (_, i) => `a${i} b${i}`);
  assert.throws(() => qkv.createModel({ corpus: pairs, dim: 1024 }), (error) => {
    assert.equal(error.name, 'RangeError');
    assert.match(error.message, /^createModel: a model of vocabulary 70001 × dim 1024 \(sentences of up to 2 tokens\) needs 146,577,777 floats of parameters \(2·V·d \+ 3·d² \+ V\), more than 67,108,864 \(2\^26\) in one block; /);
    assert.doesNotMatch(error.message, /status/);
    return true;
  });
  // activations: (n+1)·(6·d + 2·V) + 2·(n+1)² with a 256-token sentence over a 140,257-word vocabulary
  const long = Array.from({ length: 256 }, (_, i) => `w${i}`).join(' ');
  const many = [long, ...Array.from({ length: 70000 }, (_, i) => `x${i} y${i}`)];
  assert.throws(() => qkv.createModel({ corpus: many, dim: 1 }),
    { name: 'RangeError', message: /^createModel: a model of vocabulary 140257 × dim 1 \(sentences of up to 256 tokens\) needs [\d,]+ floats of activations \(n·\(6·d \+ 2·V\) \+ 2·n², n = 257\), more than 67,108,864 \(2\^26\) in one block; / });
  // fewer distinct words and a smaller dim fit (the message's advice), and train
  withModel({ corpus: pairs.slice(0, 500), dim: 512, lr: 1e-3 }, (model) => assert.ok(Number.isFinite(model.step().loss)));
});

test('lr, eps and the betas float32 cannot hold are refused by name, with the float32-safe range', () => {
  const positive = (name) => new RegExp(`^createModel: ${name} must be a positive finite number that float32 can hold \\(1\\.1754943508222875e-38 to 3\\.4028234663852886e\\+38\\), got `);
  assert.throws(() => qkv.createModel({ lr: 1e39 }), { name: 'RangeError', message: positive('lr') });
  assert.throws(() => qkv.createModel({ lr: 1e-50, optimizer: 'adam' }), { name: 'RangeError', message: positive('lr') });
  assert.throws(() => qkv.createModel({ optimizer: 'adam', eps: 1e-50 }), { name: 'RangeError', message: positive('eps') });
  for (const name of ['beta1', 'beta2']) {
    assert.throws(() => qkv.createModel({ optimizer: 'adam', [name]: 0.99999999999 }),
      { name: 'RangeError', message: new RegExp(`^createModel: ${name} must be a number in \\[0, 1\\) that stays below 1 in float32 \\(at most 0\\.999999940395355\\d*\\), got 0\\.99999999999$`) });
  }
  // the largest float32 below 1 is accepted; so is float32's max as an lr (it diverges at once)
  withModel({ optimizer: 'adam', beta1: 1 - 2 ** -24, beta2: 1 - 2 ** -24 }, (model) => assert.ok(Number.isFinite(model.step().loss)));
  withModel({ lr: 3.4028235e38 }, (model) => assert.throws(() => model.train(3), { name: 'DivergenceError' }));
});

/** Trains until it throws; checks the parameters are those the last accepted step wrote. */
function trainUntilDivergence(model, maxSteps) {
  const snapshot = () => PARAMETERS.map((name) => model.getParameter(name).data.slice());
  let before = snapshot();
  const losses = [];
  for (let i = 0; i < maxSteps; i++) {
    try {
      losses.push(model.step().loss);
    } catch (error) {
      PARAMETERS.forEach((name, k) => assert.deepEqual(model.getParameter(name).data, before[k], `${name} changed by the refused step`));
      return { error, losses };
    }
    before = snapshot();
  }
  return { error: null, losses };
}
const PARAMETERS = ['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout'];

test('divergence is caught early: Adam at lr 1, 50 and 1e6 and SGD at lr 2 and 10 stop at the first batch loss above 100 × ln V', () => {
  const runs = [];
  for (const [optimizer, lr, seeds] of [['adam', 1, [1, 2, 3]], ['adam', 50, [1, 2, 3]], ['adam', 1e6, [1, 2]], ['sgd', 2, [1, 2]], ['sgd', 10, [1, 2, 3]]]) {
    for (const seed of seeds) {
      withModel({ optimizer, lr, seed }, (model) => {
        const limit = 100 * Math.log(model.vocab.length);
        assert.equal(model.lossLimit, limit);
        const { error, losses } = trainUntilDivergence(model, model.defaultSteps);
        assert.ok(error, `${optimizer} lr ${lr} seed ${seed} trained ${losses.length} steps without a DivergenceError (largest loss ${Math.max(...losses)})`);
        assert.equal(error.name, 'DivergenceError');
        assert.ok(losses.every((l) => l <= limit), 'every accepted step is within the limit');
        assert.match(error.message, new RegExp(`^step ${losses.length + 1}: training diverged, (the batch loss [\\d.e+]+ is above 100 × ln V = ${limit.toPrecision(4).replace('.', '\\.')}|the loss is (NaN|Infinity)|its gradients)`));
        assert.equal(model.diverged, true);
        runs.push(`${optimizer} lr ${lr} seed ${seed}: stopped at step ${losses.length + 1}`);
      });
    }
  }
  // SGD at lr 2 used to reach batch losses of 4e36 first; Adam never stopped
  console.log(runs.join('\n'));
});

// (a sweep over seeds 1–8 put the largest batch loss of these at 1.21 × ln V for SGD at lr 0.5 and
// 2.83 × ln V for Adam at lr 0.03; runs that recovered never went above 53 × ln V)
test('the defaults and moderate settings train on: no false divergence over seeds 1–5', () => {
  for (const options of [{}, { optimizer: 'adam' }, { lr: 0.5 }, { optimizer: 'adam', lr: 0.03 }]) {
    for (let seed = 1; seed <= 5; seed++) {
      withModel({ ...options, seed }, (model) => {
        const losses = model.train();
        assert.equal(losses.length, model.defaultSteps, `${JSON.stringify(options)} seed ${seed}`);
      });
    }
  }
});
