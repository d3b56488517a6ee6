// Soak and lifecycle tests, short enough for CI: 100,000 mixed calls (valid and refused, every
// operation, a long-lived model's methods) and 200 model lifecycles (create with varied options,
// train, query, dispose) on a fresh instance. What they guarantee: after warm-up, heapUsed()
// returns exactly to its baseline (no byte leaked, also on error paths) and WASM memory stops
// growing (it never shrinks: a leak would show as growth). The figures are printed; nothing is
// timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';

const qkv = await load({ fresh: true, model: true });
const memory = () => qkv._heap.memoryBytes();
const MiB = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

let refusals = 0;
function refused(fn) {
  try {
    fn();
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError || error.name === 'DivergenceError') {
      refusals++;
      return;
    }
    throw error;
  }
  throw new Error('a call that must be refused was accepted');
}

test('100,000 mixed calls: heapUsed() back to its baseline, WASM memory flat', () => {
  const r = qkv.rng(5);
  const X = r.randn(6, 8), W = r.randn(8, 4), Q = r.randn(5, 4);
  const model = qkv.createModel({ seed: 2 });
  const calls = [
    () => qkv.matmul(X, W),
    () => qkv.transpose(X),
    () => qkv.softmaxRows([[0, -Infinity, 1], [2, 2, 2]]),
    () => qkv.attend(Q, Q, Q, { causal: true }),
    () => qkv.selfAttention(X, W, W, W, { scale: false }),
    () => qkv.rng(7).randn(3, 3),
    () => refused(() => qkv.matmul(X, X)),
    () => refused(() => qkv.matmul([[NaN]], [[1]])),
    () => refused(() => qkv.attend(Q, Q, Q, { scale: 1e-50 })),
    () => refused(() => qkv.selfAttention([new DataView(new ArrayBuffer(4))], W, W, W)),
    () => refused(() => qkv.rng(1).randn(2 ** 24 + 1, 3)),
    () => refused(() => qkv.matmul({ get rows() { throw new Error('x'); } }, W)),
    () => refused(() => qkv.attend([[1e20, 1e20]], [[1e20, 1e20]], [[1]])),  // float32 overflow
    () => model.predict('我 爱 吃 苹'),
    () => model.similarity('猫', '狗'),
    () => model.loss(['一只 猫 在 叫']),
    () => refused(() => model.predict('我 飞机')),
  ];
  for (const call of calls) call();  // warm-up: the heap's free lists and WASM memory settle
  const heapBefore = qkv.heapUsed(), memoryBefore = memory();
  const N = 100000;
  refusals = 0;
  for (let i = 0; i < N; i++) calls[i % calls.length]();
  const heapAfter = qkv.heapUsed(), memoryAfter = memory();
  model.dispose();
  console.log(`soak: ${N} calls (${calls.length} kinds, ${refusals} of them refused); ` +
    `heapUsed ${heapBefore} → ${heapAfter} bytes (${heapAfter - heapBefore} leaked); WASM memory ${MiB(memoryBefore)} → ${MiB(memoryAfter)}`);
  assert.equal(heapAfter, heapBefore, 'bytes leaked over 100,000 calls');
  assert.equal(memoryAfter, memoryBefore, 'WASM memory grew over 100,000 calls');
});

test('200 model lifecycles: create, train, query, dispose; the heap returns to its baseline every time', () => {
  const corpora = [undefined, ['一只 猫 在 叫', '一只 狗 在 叫', '我 喜欢 猫'], '我爱吃苹果\n我爱吃香蕉\n苹果很甜', [['a', 'b', 'c'], ['c', 'b', 'a']]];
  const heapBefore = qkv.heapUsed();
  let memorySettled = 0, steps = 0, diverged = 0;
  for (let k = 0; k < 200; k++) {
    const options = {
      corpus: corpora[k % corpora.length], seed: k, dim: [4, 8, 16, 32][k % 4],
      optimizer: k % 3 === 0 ? 'adam' : 'sgd', batchSize: 1 + (k % 6),
      ...(k % 10 === 9 ? { lr: 100 } : {}),  // now and then one that diverges
    };
    const model = qkv.createModel(options);
    try {
      model.train(1 + (k % 5));
      steps += model.steps;
    } catch (error) {
      assert.equal(error.name, 'DivergenceError');
      diverged++;
      steps += model.steps;
    }
    const word = model.vocab[1];
    model.similarity(word, model.vocab[model.vocab.length - 1]);
    model.nearest(word, 3);
    model.predict([word]);
    model.attention([word]);
    model.project2d();
    model.gradients();
    model.dispose();
    assert.equal(qkv.heapUsed(), heapBefore, `lifecycle ${k} left memory behind`);
    if (k === 11) memorySettled = memory();  // every combination of options has run once
  }
  console.log(`lifecycles: 200 models (${steps} steps, ${diverged} stopped by DivergenceError); heapUsed back to ${heapBefore} bytes after each; ` +
    `WASM memory ${MiB(memorySettled)} after the first 12, ${MiB(memory())} after all 200`);
  assert.equal(memory(), memorySettled, 'WASM memory kept growing across lifecycles');
});
