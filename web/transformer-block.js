// transformer-block.js: one pre-LN GPT-2 block on given weights (QkvLab.transformerBlock in
// qkv-lab.js calls transformerBlock; docs/api.md), and the trace a block's activations give, which
// gpt.js's GPT.forward reads for each of its layers (blockTrace, blockTraceFloats). Part of the GPT
// engine: imported by gpt.js, loaded with it on demand.
import {
  readInput, readOptions, argumentError, checkPositiveFloat32, checkShape, checkWork, describe, guard,
} from './matrix.js';
import { BLOCK_PARAMETERS, BLOCK_ACTIVATIONS } from './heap.js';

const BLOCK_WEIGHTS = {
  ln1: ['gamma', 'beta'], attn: ['Wq', 'Wk', 'Wv', 'bq', 'bk', 'bv', 'Wo', 'bo'],
  ln2: ['gamma', 'beta'], mlp: ['W1', 'b1', 'W2', 'b2'],
};

/**
 * One pre-LN GPT-2 block on X (n×d) — see QkvLab.transformerBlock in qkv-lab.js, which calls
 * this. weights: { ln1: { gamma, beta }, attn: { Wq, Wk, Wv, bq, bk, bv, Wo, bo },
 * ln2: { gamma, beta }, mlp: { W1, b1, W2, b2 } }.
 */
export function transformerBlock(lab, X, weights, options = {}) {
  const op = 'transformerBlock';
  const { heads, causal = true, eps = 1e-5 } = readOptions(op, options, ['heads', 'causal', 'eps'],
    '{ heads: 2, causal: true, eps: 1e-5 }');
  const x = readInput(X, op, 'X');
  const n = x.rows, d = x.cols;
  const w = readOptions(op, weights, Object.keys(BLOCK_WEIGHTS), '{ ln1, attn, ln2, mlp }', 'weight');
  const parts = {};
  for (const [group, names] of Object.entries(BLOCK_WEIGHTS)) {
    if (w[group] === undefined) throw argumentError(TypeError, `${op}: weights.${group} is missing; it holds ${names.join(', ')}`);
    const g = readOptions(op, w[group], names, `{ ${names.join(', ')} }`, `weights.${group} entry`);
    for (const name of names) {
      if (g[name] === undefined) throw argumentError(TypeError, `${op}: weights.${group}.${name} is missing`);
    }
    parts[group] = g;
  }
  const W1 = readInput(parts.mlp.W1, op, 'weights.mlp.W1');
  const hidden = W1.cols;
  const matrix = (group, name, rows, cols) => {
    const m = group === 'mlp' && name === 'W1' ? W1 : readInput(parts[group][name], op, `weights.${group}.${name}`);
    if (m.rows !== rows || m.cols !== cols) {
      throw argumentError(RangeError, `${op}: weights.${group}.${name} is ${m.rows}×${m.cols}, but X is ${n}×${d} ` +
        `and W1 is ${W1.rows}×${hidden}: it must be ${rows}×${cols}`);
    }
    return m.data;
  };
  const vector = (group, name, length) => readVector(op, `weights.${group}.${name}`, parts[group][name], length);
  if (typeof heads !== 'number' || !Number.isInteger(heads) || heads < 1 || heads > d) {
    const Err = typeof heads === 'number' ? RangeError : TypeError;
    throw argumentError(Err, `${op}: heads must be an integer from 1 to d = ${d} (X's columns), got ${describe(heads)}`);
  }
  if (d % heads) throw argumentError(RangeError, `${op}: heads is ${heads}, which does not divide d = ${d} (X is ${n}×${d})`);
  if (typeof causal !== 'boolean') throw argumentError(TypeError, `${op}: causal must be true or false, got ${describe(causal)}`);
  checkPositiveFloat32(op, 'eps', eps);
  // the flat layout of wasm/qkv.h: ln1w ln1b qkvw qkvb attprojw attprojb ln2w ln2b fcw fcb fcprojw fcprojb
  const qkvw = new Float32Array(d * 3 * d);
  const [wq, wk, wv] = ['Wq', 'Wk', 'Wv'].map((name) => matrix('attn', name, d, d));
  for (let i = 0; i < d; i++) {
    qkvw.set(wq.subarray(i * d, (i + 1) * d), i * 3 * d);
    qkvw.set(wk.subarray(i * d, (i + 1) * d), i * 3 * d + d);
    qkvw.set(wv.subarray(i * d, (i + 1) * d), i * 3 * d + 2 * d);
  }
  const qkvb = new Float32Array(3 * d);
  ['bq', 'bk', 'bv'].forEach((name, m) => qkvb.set(vector('attn', name, d), m * d));
  const tensors = [
    vector('ln1', 'gamma', d), vector('ln1', 'beta', d), qkvw, qkvb,
    matrix('attn', 'Wo', d, d), vector('attn', 'bo', d), vector('ln2', 'gamma', d), vector('ln2', 'beta', d),
    matrix('mlp', 'W1', d, hidden), vector('mlp', 'b1', hidden),
    matrix('mlp', 'W2', hidden, d), vector('mlp', 'b2', d),
  ];
  checkShape(op, 'the score matrices', heads * n, n);
  checkShape(op, 'Q, K and V together', n, 3 * d);
  const paramFloats = tensors.reduce((sum, t) => sum + t.length, 0);
  checkWork(op, {
    multiplyAdds: n * d * (4 * d + 2 * hidden) + 2 * n * n * d,
    exps: heads * n * n,
    // in: the parameters and X; out: the trace (blockTraceFloats)
    elements: paramFloats + n * d + blockTraceFloats(n, d, hidden, heads),
  }, `a Transformer block over ${n} tokens of width ${d}`);
  const heap = lab._heap;
  const layout = blockLayout(lab, op, n, d, hidden, heads);
  const { params: po, acts: ao } = layout;
  return heap.frame(po[po.length - 1] + ao[ao.length - 1] + n * d, (frame) => {
    const params = frame.floats(po[po.length - 1]);
    const acts = frame.floats(ao[ao.length - 1]);
    const xp = frame.floats(n * d);
    tensors.forEach((t, i) => heap.writeFloats(params + 4 * po[i], t));
    heap.writeFloats(xp, x.data);
    lab._check(op, heap.call('qkv_transformer_block_forward', acts, params, xp, n, d, hidden, heads, causal ? 1 : 0, eps),
      [[x, 'X']]);
    return blockTrace(heap, (which) => acts + 4 * ao[which], n, d, hidden, heads);
  });
}

/** { params, acts }: the offsets (floats) of qkv_transformer_block_layout, the totals last. */
function blockLayout(lab, op, n, d, hidden, heads) {
  const heap = lab._heap;
  return heap.frame(BLOCK_PARAMETERS.length + BLOCK_ACTIVATIONS.length + 2, (frame) => {
    const po = frame.bytes(4 * (BLOCK_PARAMETERS.length + 1));
    const ao = frame.bytes(4 * (BLOCK_ACTIVATIONS.length + 1));
    lab._check(op, heap.call('qkv_transformer_block_layout', po, ao, n, d, hidden, heads));
    return { params: heap.readInts(po, BLOCK_PARAMETERS.length + 1), acts: heap.readInts(ao, BLOCK_ACTIVATIONS.length + 1) };
  });
}

/** Floats one block's trace copies out: ln1, Q K V and the heads' outputs, concat, attn, resid1,
 * ln2, mlp, out (11 n d), hidden and gelu (2 n h), each head's scores and weights (2 H n²). */
export function blockTraceFloats(n, d, hidden, heads) {
  return 11 * n * d + 2 * n * hidden + 2 * heads * n * n;
}

/** The trace transformerBlock returns, read from one block's activations (address(which)). */
export function blockTrace(heap, address, n, d, hidden, heads) {
  const at = (name) => address(BLOCK_ACTIVATIONS.indexOf(name));
  const read = (name, rows, cols, offset = 0) => heap.readMatrix(at(name) + 4 * offset, rows, cols);
  const dk = d / heads;
  return {
    ln1: read('ln1', n, d),
    // LayerNorm's row statistics: the mean and 1/√(biased variance + eps) of each row of its input
    ln1Stats: { mean: read('ln1_mean', n, 1), rstd: read('ln1_rstd', n, 1) },
    attention: {
      heads: Array.from({ length: heads }, (_, h) => ({
        Q: read('q', n, dk, h * n * dk), K: read('k', n, dk, h * n * dk), V: read('v', n, dk, h * n * dk),
        scores: read('scores', n, n, h * n * n), weights: read('weights', n, n, h * n * n),
        output: read('head_out', n, dk, h * n * dk),
      })),
      concat: read('concat', n, d),
      output: read('attn', n, d),
    },
    resid1: read('resid1', n, d),
    ln2: read('ln2', n, d),
    ln2Stats: { mean: read('ln2_mean', n, 1), rstd: read('ln2_rstd', n, 1) },
    hidden: read('hidden', n, hidden),
    gelu: read('gelu', n, hidden),
    mlp: read('mlp', n, d),
    output: read('out', n, d),
  };
}

/** A vector of `length` finite numbers: an array, a typed array, or a 1×length / length×1 matrix. */
function readVector(op, name, value, length) {
  return guard(op, name, () => {
    let data;
    if (Array.isArray(value) && value.every((v) => typeof v === 'number')) data = value;
    else if (ArrayBuffer.isView(value) && !(value instanceof DataView) && typeof value[0] !== 'bigint') data = Array.from(value);
    else {
      const m = readInput(value, op, name);
      if (m.rows !== 1 && m.cols !== 1) {
        throw argumentError(RangeError, `${op}: ${name} is ${m.rows}×${m.cols}; a vector is an array or a 1×${length} matrix`);
      }
      data = m.data;
    }
    if (data.length !== length) {
      throw argumentError(RangeError, `${op}: ${name} has ${data.length} entries; it must have ${length}`);
    }
    const out = new Float32Array(length);
    for (let i = 0; i < length; i++) {
      const v = data[i];
      if (typeof v !== 'number') throw argumentError(TypeError, `${op}: ${name}[${i}] is ${describe(v)}, not a number`);
      if (!Number.isFinite(v) || !Number.isFinite(Math.fround(v))) {
        throw argumentError(RangeError, `${op}: ${name}[${i}] is ${v}; every entry must be a finite number float32 can hold`);
      }
      out[i] = v;
    }
    return out;
  });
}
