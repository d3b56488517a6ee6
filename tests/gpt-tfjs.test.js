// tools/tfjs-gpt.mjs, the TF.js peer of the GPT engine in the benchmark (bench/gpt.mjs), is the same model: its
// logits and loss equal tests/gpt-reference.js's float64 forward pass, its autodiff gradients
// equal PyTorch's, and three of its training steps (clipping, AdamW emulated on tf.train.adam)
// equal torch.optim.AdamW's, on the fixtures of tests/fixtures/make_gpt_fixtures.py. No timing is
// asserted: speed is the benchmark's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BENCH } from '../tools/tfjs.mjs';
import { checkMatrix } from './helpers.js';
import { requirePeers } from './helpers.js';
import { buildWeights, gptLoss, parameterList } from './gpt-reference.js';

// TF.js is the benchmark's peer, installed into bench/node_modules by `./build.sh setup` and
// `./build.sh test` (never by a test: two would race in bench/), and resolved from there as
// tools/tfjs.mjs resolves it. It must be there: a test skipped for want of it would pass without
// checking anything.
requirePeers();
const peersRequire = createRequire(path.join(BENCH, 'package.json'));
peersRequire.resolve('@tensorflow/tfjs-core');
peersRequire.resolve('@tensorflow/tfjs-backend-wasm');
const gpt = await import('../tools/tfjs-gpt.mjs');
const tf = await gpt.gptTf();

const FIXTURES = JSON.parse(readFileSync(new URL('./fixtures/gpt-torch.json', import.meta.url), 'utf8'));
const row = (a) => [Array.from(a)];
const windowsOf = (c) => c.inputs.map((inputs, b) => ({ inputs, targets: c.targets[b] }));
const f32Weights = (weights) => Object.fromEntries(Object.entries(weights).map(([k, v]) => [k, Float32Array.from(v)]));
const configOf = (c, extra = {}) => ({ ...c.config, ...extra });

// Tolerances. TF.js computes in float32 (unit roundoff 6e-8) from the same float32-exact weights;
// the largest differences measured on these fixtures (relative to max(1, |expected|)): logits
// 1.0e-6, gradients 1.0e-6, weights after 3 steps 1.7e-6. 1e-5 is 6-10 times that and below what a
// different model makes: erf GELU instead of tanh moves the logits by 3.8e-4 to 4.8e-4, LayerNorm
// eps 1e-6 instead of 1e-5 by 3.8e-5 to 3.9e-4 (measured by changing tools/tfjs-gpt.mjs).
const LOGITS = { abs: 1e-5, rel: 1e-5 };

for (const c of FIXTURES.cases) {
  test(`TF.js GPT logits and loss equal the float64 reference: ${c.name}`, async () => {
    const windows = windowsOf(c), reference = gptLoss(c.config, buildWeights(c.config, (name) => c.weights[name]), windows);
    const out = await gpt.tfjsGptForwardCheck({ config: configOf(c), weights: f32Weights(c.weights), windows });
    checkMatrix(row(out.logits), row(reference.logits.flatMap((l) => Array.from(l))), LOGITS, 'logits');
    assert.ok(Math.abs(out.loss - reference.loss) <= 1e-5 * reference.loss, `loss ${out.loss} vs reference ${reference.loss}`);
    assert.ok(Math.abs(reference.loss - c.loss) <= 1e-12 * c.loss, 'the reference is PyTorch\'s loss');
  });

  // both ways of differentiating the matrix products: TF.js's autodiff, and the hand-written
  // untransposed form (matmulGradients: 'xnnpack') the benchmark also reports
  for (const matmulGradients of ['autodiff', 'xnnpack']) {
    test(`TF.js GPT gradients (${matmulGradients}) equal PyTorch autograd: ${c.name}`, async () => {
      const out = await gpt.tfjsGptForwardCheck({ config: configOf(c, { matmulGradients }), weights: f32Weights(c.weights), windows: windowsOf(c) });
      for (const [name] of parameterList(c.config)) {
        checkMatrix(row(out.gradients[name]), row(c.gradients[name]), { abs: 1e-5, rel: 1e-5 }, `d loss / d ${name}`);
      }
    });
  }

  test(`TF.js GPT training steps (clipping, AdamW) equal PyTorch's: ${c.name}`, () => {
    const t = c.training;
    const model = new gpt.TfGpt(configOf(c, { lr: t.lr, beta1: t.betas[0], beta2: t.betas[1], adamEps: t.eps,
      weightDecay: t.weightDecay, maxNorm: t.maxNorm }), f32Weights(c.weights));
    try {
      const steps = Array.from({ length: t.steps }, () => model.step(windowsOf(c)));
      checkMatrix(row(steps.map((s) => s.loss)), row(t.losses), { abs: 1e-5, rel: 1e-5 }, 'loss of each step');
      checkMatrix(row(steps.map((s) => s.gradNorm)), row(t.gradNorms), { abs: 1e-5, rel: 1e-5 }, 'gradient norm of each step');
      const after = model.weights();
      for (const [name] of parameterList(c.config)) {
        if (name.endsWith('attn.bk')) {
          // The key bias adds q·bk to every score of a row, which softmax ignores: its gradient is
          // 0 up to rounding (at most 1.1e-16 in PyTorch's float64 here, 4.5e-8 in TF.js's
          // float32), and Adam scales that noise to a step of about ±lr whatever its size. So
          // bk's values are not comparable; what holds is that its gradient is ~0 and that it
          // moved by at most lr per step.
          assert.ok(c.gradients[name].every((g) => Math.abs(g) < 1e-12), `PyTorch's d loss / d ${name} is 0`);
          after[name].forEach((x, i) => assert.ok(Math.abs(x - c.weights[name][i]) <= t.lr * t.steps * 1.001, `${name}[${i}] moved ${x - c.weights[name][i]}`));
          continue;
        }
        checkMatrix(row(after[name]), row(t.weights[name]), { abs: 1e-5, rel: 1e-5 }, `${name} after ${t.steps} steps`);
      }
    } finally {
      model.dispose();
    }
  });
}

test('clipping is what the fixtures need: without it the first two cases would differ', () => {
  // guards the test above: if clipping were a no-op there, a missing clip would pass unseen
  const c = FIXTURES.cases[0], t = c.training;
  const model = new gpt.TfGpt(configOf(c, { lr: t.lr, beta1: t.betas[0], beta2: t.betas[1], adamEps: t.eps,
    weightDecay: t.weightDecay, maxNorm: Infinity }), f32Weights(c.weights));
  try {
    for (let s = 0; s < t.steps; s++) model.step(windowsOf(c));
    const after = model.weights();
    assert.throws(() => checkMatrix(row(after.wte), row(t.weights.wte), { abs: 1e-5, rel: 1e-5 }, 'wte'), /max diff/);
  } finally {
    model.dispose();
  }
});

test('decayEmbeddings: false leaves the tables out of the weight decay, and only them', () => {
  // one step from the same weights: Adam's update is the same in both, so the difference is the
  // decay term lr·wd·p0 on the tables and nothing elsewhere
  const c = FIXTURES.cases[0], lr = 0.01, weightDecay = 0.5;
  const [withDecay, without] = [true, false].map((decayEmbeddings) => {
    const model = new gpt.TfGpt(configOf(c, { lr, weightDecay, decayEmbeddings }), f32Weights(c.weights));
    model.step(windowsOf(c));
    const w = model.weights();
    model.dispose();
    return w;
  });
  for (const [name] of parameterList(c.config)) {
    const table = name === 'wte' || name === 'wpe';
    const expected = c.weights[name].map((p0) => (table ? lr * weightDecay * p0 : 0));
    checkMatrix(row(without[name].map((x, i) => x - withDecay[name][i])), row(expected), 1e-6, `${name}: without − with decay`);
  }
});

for (const matmulGradients of ['autodiff', 'xnnpack']) test(`a training step leaves no tensor behind, and dispose() frees the model (${matmulGradients})`, () => {
  const before = tf.memory().numTensors;
  const c = FIXTURES.cases[0], model = new gpt.TfGpt(configOf(c, { matmulGradients }), f32Weights(c.weights));
  model.step(windowsOf(c));  // the first step creates Adam's moments
  const held = tf.memory().numTensors;
  for (let s = 0; s < 3; s++) model.step(windowsOf(c));
  model.forward(windowsOf(c));
  model.gradients(windowsOf(c));
  assert.equal(tf.memory().numTensors, held, 'tensors after more steps');
  model.dispose();
  assert.equal(tf.memory().numTensors, before, 'tensors after dispose()');
});

test('tokenize: characters by code point after the end token; poems end with it', () => {
  const { vocab, stream } = gpt.tokenize('ab𠀋\nba\n');
  assert.deepEqual(vocab, ['\n', 'a', 'b', '𠀋']);  // 𠀋 (U+2000B) is one token, not two UTF-16 units
  assert.deepEqual(Array.from(stream), [0, 1, 2, 3, 0, 2, 1, 0]);
});

test('tfjsGptThroughput trains the default-shaped model on a small text and reports each step', async () => {
  const text = '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n床前明月光，疑是地上霜。举头望明月，低头思故乡。\n';
  const r = await gpt.tfjsGptThroughput({ text, layers: 1, heads: 2, dim: 8, context: 8, batch: 4, steps: 6, warmup: 1, lr: 1e-2 });
  assert.equal(r.msPerStep.length, 6);
  assert.equal(r.losses.length, 7);
  // the report's shape only (numbers, one per timed step); how fast is the benchmark's business
  assert.ok(r.msPerStep.every(Number.isFinite) && Number.isFinite(r.charsPerSecond), JSON.stringify(r.msPerStep));
  assert.equal(r.vocab, 1 + new Set(text.replace(/\n/g, '')).size);
  // the initial loss is about ln V (weights of size 0.02 give near-uniform predictions)
  assert.ok(Math.abs(r.loss[0] - Math.log(r.vocab)) < 0.05, `first loss ${r.loss[0]} vs ln V = ${Math.log(r.vocab)}`);
  assert.ok(r.losses.every(Number.isFinite), r.losses.join(' '));
});

test('bad configurations are refused naming the value and the limit', () => {
  assert.throws(() => new gpt.TfGpt({ vocab: 5, dim: 6, heads: 4 }), /heads 4 must divide dim 6/);
  assert.throws(() => new gpt.TfGpt({ vocab: 5, layers: 0 }), /layers 0 must be a positive integer/);
  assert.throws(() => new gpt.TfGpt({ vocab: 5, positions: 'rotary' }), /positions 'rotary'/);
  assert.throws(() => new gpt.TfGpt({ vocab: 5, matmulGradients: 'fast' }), /matmulGradients 'fast' is not 'autodiff' or 'xnnpack'/);
  assert.throws(() => new gpt.TfGpt({ vocab: 5, dim: 8, heads: 2, layers: 1, context: 4 }, { wte: new Float32Array(3) }), /weight wte must have 5×8 values, has 3/);
  assert.throws(() => gpt.sampleWindows(new Int32Array(4), 1, 8, Math.random), /4 tokens; context 8 needs at least 9/);
});
