// tests/gpt-reference.js, the float64 GPT forward pass the engine and the TF.js peer are checked
// against, checked itself: against PyTorch's nn.TransformerEncoderLayer model
// (tests/fixtures/gpt-torch.json from make_gpt_fixtures.py), against known values, and its
// function against PyTorch's gradients by central differences (which also proves the fixture's
// gradients are laid out as the weights are, transposes included).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkMatrix } from './helpers.js';
import {
  parameterList, tensorAt, buildWeights, sinusoids, layerNorm, gelu, transformerBlock, gptForward, gptLoss, crossEntropy,
} from './gpt-reference.js';
import { sinusoids as modelSinusoids } from './model-reference.js';

const FIXTURES = JSON.parse(readFileSync(new URL('./fixtures/gpt-torch.json', import.meta.url), 'utf8'));
const row = (a) => [Array.from(a)];
const weightsOf = (c) => buildWeights(c.config, (name) => Float64Array.from(c.weights[name]));
const windowsOf = (c) => c.inputs.map((inputs, b) => ({ inputs, targets: c.targets[b] }));

// Both sides compute in float64 from the same float32-exact inputs; the two differ only in the
// order of their sums (about 1e-16 relative per operation, over a few hundred operations).
const TOL = { abs: 1e-12, rel: 1e-12 };

test('the fixture names and shapes every tensor as parameterList does', () => {
  for (const c of FIXTURES.cases) {
    assert.deepEqual(Object.keys(c.weights), parameterList(c.config).map(([name]) => name), c.name);
    for (const [name, shape] of parameterList(c.config)) {
      assert.equal(c.weights[name].length, shape.reduce((a, b) => a * b), `${c.name}: ${name}`);
      assert.equal(c.gradients[name].length, c.weights[name].length, `${c.name}: gradient of ${name}`);
    }
  }
});

for (const c of FIXTURES.cases) {
  test(`gptForward equals PyTorch: ${c.name}`, () => {
    const w = weightsOf(c);
    c.inputs.forEach((inputs, b) => {
      const out = gptForward(c.config, w, inputs);
      out.blocks.forEach((trace, l) => checkMatrix(row(trace.output), row(c.blockOutputs[b][l]), TOL, `window ${b} block ${l} output`));
      checkMatrix(row(out.logits), row(c.logits[b]), TOL, `window ${b} logits`);
    });
    const { loss } = gptLoss(c.config, w, windowsOf(c));
    assert.ok(Math.abs(loss - c.loss) <= 1e-12 * c.loss, `loss ${loss} vs PyTorch ${c.loss}`);
  });
}

for (const b of FIXTURES.blocks) {
  test(`transformerBlock equals nn.TransformerEncoderLayer: ${b.name}`, () => {
    const trace = transformerBlock(b.X, b.n, b.dim, b.block, { heads: b.heads, causal: b.causal });
    checkMatrix(row(trace.output), row(b.output), TOL, 'output');
    // the trace is self-consistent: the output is resid1 + mlp, and each head's weights are a
    // (causally masked) distribution
    checkMatrix(row(trace.output), row(trace.resid1.map((r, i) => r + trace.mlp[i])), 0, 'resid1 + mlp');
    for (const [h, head] of trace.attention.heads.entries()) {
      for (let i = 0; i < b.n; i++) {
        const weights = head.weights.subarray(i * b.n, (i + 1) * b.n);
        assert.ok(Math.abs(weights.reduce((s, x) => s + x, 0) - 1) < 1e-15, `head ${h} row ${i} sums to 1`);
        if (b.causal) for (let j = i + 1; j < b.n; j++) assert.equal(weights[j], 0, `head ${h}: weight [${i}][${j}] above the diagonal`);
      }
    }
  });
}

test('gradients: central differences of gptLoss equal PyTorch autograd, every entry', () => {
  // the two smallest cases (285 and 473 parameters); h = 1e-5 leaves a truncation error of
  // about h²·|f'''| ~ 1e-10 and a rounding error of about 1e-16/h ~ 1e-11
  for (const c of FIXTURES.cases.slice(1)) {
    const w = weightsOf(c), windows = windowsOf(c), h = 1e-5;
    for (const [name] of parameterList(c.config)) {
      const t = tensorAt(w, name), numeric = new Float64Array(t.length);
      for (let i = 0; i < t.length; i++) {
        const keep = t[i];
        t[i] = keep + h; const up = gptLoss(c.config, w, windows).loss;
        t[i] = keep - h; const down = gptLoss(c.config, w, windows).loss;
        t[i] = keep;
        numeric[i] = (up - down) / (2 * h);
      }
      checkMatrix(row(numeric), row(c.gradients[name]), { abs: 1e-8, rel: 1e-6 }, `${c.name}: d loss / d ${name}`);
    }
  }
});

test('known values: GELU, LayerNorm, sinusoids, cross-entropy', () => {
  // GELU_tanh(1) = ½(1 + tanh(√(2/π)·1.044715)), by hand: tanh(0.833554) = 0.682371...
  assert.ok(Math.abs(gelu(1) - 0.8411919906082768) < 1e-15, `gelu(1) = ${gelu(1)}`);
  assert.equal(gelu(0), 0);
  assert.ok(Math.abs(gelu(-10)) < 1e-15 && Math.abs(gelu(10) - 10) < 1e-15);
  // [1, 2, 3, 4]: mean 2.5, biased variance 1.25; (x − 2.5)/√1.25000001
  const ln = layerNorm([1, 2, 3, 4], 1, 4, [1, 1, 1, 1], [0, 0, 0, 0], 1e-5);
  const s = Math.sqrt(1.25 + 1e-5);
  checkMatrix(row(ln), [[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]], 1e-15, 'layerNorm');
  checkMatrix(row(layerNorm([1, 2, 3, 4], 1, 4, [2, 2, 2, 2], [1, 1, 1, 1])), [Array.from(ln, (x) => 2 * x + 1)], 1e-15, 'gamma, beta');
  // the small model's table computes t·10000^(−2i/d), ours t / 10000^(2i/d): one rounding apart
  checkMatrix(row(sinusoids(7, 6)), [modelSinusoids(7, 6).flat()], 1e-15, 'sinusoids = the small model\'s table');
  // uniform logits over V: the loss is ln V whatever the target
  assert.ok(Math.abs(crossEntropy(new Float64Array(10).fill(3), 5, [0, 4])[1] - Math.log(5)) < 1e-15);
});

test('a model with all-zero weights predicts uniformly: loss = ln V exactly in double', () => {
  // every matrix zero, gains one: LN of a constant row is 0, so h = LNf(·) = beta = 0 and the
  // logits are 0
  const config = { vocab: 11, dim: 8, heads: 2, layers: 2, context: 4, positions: 'learned' };
  const w = buildWeights(config, (name, shape) => new Float64Array(shape.reduce((a, b) => a * b)).fill(name.endsWith('gamma') ? 1 : 0));
  const { loss } = gptLoss(config, w, [{ inputs: [1, 2, 3, 4], targets: [2, 3, 4, 5] }]);
  assert.ok(Math.abs(loss - Math.log(11)) < 1e-15, `loss ${loss} vs ln 11 = ${Math.log(11)}`);
});

test('bad tokens and lengths are refused with the value and the limit', () => {
  const c = FIXTURES.cases[0], w = weightsOf(c);
  assert.throws(() => gptForward(c.config, w, [0, 7]), /token 7 at 1 is not in 0\.\.6/);
  assert.throws(() => gptForward(c.config, w, [0, 1, 2, 3, 4, 5]), /6 tokens; expected 1 to context = 5/);
  assert.throws(() => gptForward(c.config, w, []), RangeError);
});
