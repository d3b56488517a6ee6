// The work rule of web/matrix.js (MAX_WORK) applied to the GPT engine: transformerBlock and
// createGPT (one training step) count their softmax entries, the floats they copy and AdamW's
// updates with WORK_WEIGHTS (web/matrix.js), not only multiply-adds, and refuse before allocating
// a call whose multiply-adds alone fit the limit but whose whole work does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { MAX_WORK, WORK_WEIGHTS as W } from '../web/matrix.js';

const qkv = await load({ gpt: true });
const e = (x) => x.toExponential(2).replace(/[.+]/g, '\\$&');

function refused(call, pattern) {
  const heap = qkv.heapUsed(), bytes = qkv._heap.memoryBytes();
  assert.throws(call, (error) => error instanceof RangeError && pattern.test(error.message), String(pattern));
  assert.equal(qkv.heapUsed(), heap);
  assert.equal(qkv._heap.memoryBytes(), bytes, 'WASM memory grew for a call that was refused');
}

test('transformerBlock counts the attention softmax and the trace it copies out: 4096 tokens of width 4, 4 heads', () => {
  const n = 4096, d = 4, h = 4, H = 4;
  const M = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });
  const v = (k) => new Float32Array(k);
  const weights = {
    ln1: { gamma: v(d), beta: v(d) },
    attn: { Wq: M(d, d), Wk: M(d, d), Wv: M(d, d), bq: v(d), bk: v(d), bv: v(d), Wo: M(d, d), bo: v(d) },
    ln2: { gamma: v(d), beta: v(d) },
    mlp: { W1: M(d, h), b1: v(h), W2: M(h, d), b2: v(d) },
  };
  const multiplyAdds = n * d * (4 * d + 2 * h) + 2 * n * n * d;
  const exps = H * n * n;
  const params = 4 * d * d + d * h + h * d + 9 * d + h;
  const trace = 11 * n * d + 2 * n * h + 2 * H * n * n;
  const elements = params + n * d + trace;
  assert.ok(multiplyAdds < MAX_WORK, 'the multiply-adds alone fit the limit (the rule before this test)');
  const total = multiplyAdds + W.exps * exps + W.elements * elements;
  refused(() => qkv.transformerBlock(M(n, d), weights, { heads: H }), new RegExp(
    `^transformerBlock: a Transformer block over ${n} tokens of width ${d} would take ${e(total)} multiply-adds of work ` +
    `\\(${e(multiplyAdds)} multiply-adds \\+ ${e(exps)} softmax entries × ${W.exps} \\+ ${e(elements)} floats copied or written × ${W.elements}\\), more than the limit of 1073741824`));
});

test('createGPT counts a training step\'s softmax entries (attention and the vocabulary, forward and backward) and its AdamW updates', () => {
  // 300 tokens: '\n' and 299 distinct characters, ten lines
  const chars = Array.from({ length: 299 }, (_, i) => String.fromCodePoint(0x4e00 + i));
  const text = Array.from({ length: 10 }, (_, l) => chars.filter((_, i) => i % 10 === l).join('')).join('\n');
  const c = { layers: 1, heads: 1, dim: 8, context: 256, batch: 64 }, V = 300;
  const perToken = c.layers * (12 * c.dim * c.dim + 2 * c.context * c.dim) + c.dim * V;
  const multiplyAdds = 3 * c.batch * c.context * perToken;
  const exps = 2 * c.batch * c.context * (c.layers * c.heads * c.context + V);
  const adam = V * c.dim + c.context * c.dim + c.layers * (12 * c.dim * c.dim + 13 * c.dim) + 2 * c.dim;
  assert.ok(multiplyAdds < MAX_WORK, 'the multiply-adds alone fit the limit (the rule before this test)');
  const total = multiplyAdds + W.exps * exps + W.adam * adam;
  refused(() => qkv.createGPT({ text, ...c }), new RegExp(
    `^createGPT: one training step \\(batch 64 × context 256, 1 layers of width 8, vocabulary 300\\) would take ${e(total)} multiply-adds of work ` +
    `\\(${e(multiplyAdds)} multiply-adds \\+ ${e(exps)} softmax entries × ${W.exps} \\+ ${e(adam)} Adam parameter updates × ${W.adam}\\), more than the limit of 1073741824`));
  // the same model with a batch of 16 fits, and a step runs
  const gpt = qkv.createGPT({ text, ...c, batch: 16, context: 16 });
  assert.ok(Number.isFinite(gpt.step().loss));
  gpt.dispose();
});
