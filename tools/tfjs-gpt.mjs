// tfjs-gpt.mjs: the GPT in TensorFlow.js (WebAssembly backend, one thread, as tools/tfjs.mjs
// loads it), trained with TF.js's autodiff and its Adam: the peer the C engine's training speed is
// measured against (bench/gpt.mjs). Independent of the engine's code; the same model as
// tests/gpt-reference.js (same formulas, same weight layout), which tests/gpt-tfjs.test.js checks
// against PyTorch. Here in tools/ because the benchmark and the tests both use it.
//
//   node tools/tfjs-gpt.mjs [--steps 20] [--warmup 3] [--layers 2] [--heads 4] [--dim 64]
//                           [--context 32] [--batch 16] [--positions learned|sinusoidal] [--seed 0]
//                           [--matmul-gradients autodiff|xnnpack]
//
// Dimensions: B batch, T context, d dim, H heads, dk = d / H, V vocabulary, L layers.
//
// The model (pre-LN GPT-2): x = wte[tokens] + pos; L × { r = x + Attn(LN1(x)); x = r + MLP(LN2(r)) };
// logits = LNf(x)·wteᵀ (the token table is the output layer); loss = mean cross-entropy of the
// next token over all B·T positions. Attn: Q, K, V = a·W + b; per head softmax(QKᵀ/√dk + causal
// mask)·V; heads side by side, ·Wo + bo. MLP: GELU_tanh(a·W1 + b1)·W2 + b2, W1 (d, 4d). LayerNorm
// with the biased variance, eps 1e-5.
//
// Training step: gradients by tf.variableGrads; clipped to global norm maxNorm as PyTorch's
// clip_grad_norm_ does (scaled by maxNorm / (norm + 1e-6) when that is below 1); then AdamW:
// TF.js 4.22 has no AdamW, so the decoupled weight decay is applied first (p ← p·(1 − lr·wd), on
// every 2-D tensor: wte, wpe, the W matrices, as nanoGPT does; decayEmbeddings: false leaves
// wte and wpe out; never on biases or LayerNorm gains) and
// tf.train.adam then applies m̂/(√v̂ + eps), which is PyTorch's torch.optim.AdamW update exactly
// (checked against it in tests/gpt-tfjs.test.js).
//
// Two choices made for TF.js's sake, neither changing the function computed:
// - the token lookup is tf.gather with its gradient written as tf.scatterND (which sums
//   repeated rows): tf.gather's own gradient needs UnsortedSegmentSum, which the WebAssembly
//   backend lacks (bench/tfjs.mjs's small model multiplies by a one-hot matrix instead, which
//   here would cost as much as the output layer);
// - Q, K and V come from one (d, 3d) matrix, as nanoGPT's c_attn: one matmul instead of three.
//   weights() and the constructor take and give the three d×d matrices of the reference layout.
//
// matmulGradients: 'autodiff' (the default; the peer of the ≥ 10× target in docs/gpt.md, "Speed")
// differentiates every matrix product by TF.js's autodiff. Its gradients are products with a
// transposed operand (dy·Wᵀ, aᵀ·dy), and the WASM backend's BatchMatMul runs those, and every batched (3-D) product, in its own loop at
// about 2.5 GFLOP/s, while an untransposed 2-D product goes to XNNPACK at 20-36 GFLOP/s (measured
// here, one thread): the tied output layer's two transposed products take 45% of a default step.
// 'xnnpack' writes the gradients of the linear layers and of the tied output by hand (tf.customGrad)
// as untransposed 2-D products of explicitly transposed small operands: the same numbers (the
// tests check both against PyTorch), about 2.5 times the speed. It is what a TF.js user tuning
// this model would do; it is no longer TF.js's autodiff for those products.
//
// Tokens: characters (code points), the vocabulary is the text's distinct characters other than
// '\n' in code-point order after token 0, the end of a poem. The text's lines are poems; the
// training stream is <end> poem <end> poem … <end>, and a step takes B windows of T + 1 tokens at
// seeded random offsets (inputs the first T, targets the last T).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadTf } from './tfjs.mjs';
import { mulberry32 as generator } from './random.mjs';  // a small seeded generator of floats in [0, 1)

let tf = null;
let instances = 0;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };

/** TF.js with the WebAssembly backend, one thread (tools/tfjs.mjs's loader), loaded once. */
export async function gptTf() {
  if (!tf) tf = (await loadTf()).tf;
  return tf;
}

/** text (poems, one a line) → { vocab: ['\n' (the end token), ...characters], stream: Int32Array }. */
export function tokenize(text) {
  if (typeof text !== 'string') throw new TypeError(`tokenize: text must be a string, not ${typeof text}`);
  const chars = [...new Set([...text.replace(/\n/g, '')])].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  const vocab = ['\n', ...chars], id = new Map(vocab.map((c, i) => [c, i]));
  const poems = text.split('\n').filter((line) => line.length > 0);
  const stream = [0];
  for (const poem of poems) { for (const c of poem) stream.push(id.get(c)); stream.push(0); }
  return { vocab, stream: Int32Array.from(stream) };
}

/** [[name, shape]] of the model's tensors, in tests/gpt-reference.js's order and names. */
export function gptParameterList({ vocab, dim: d, layers, context, positions = 'learned' }) {
  const list = [['wte', [vocab, d]]];
  if (positions === 'learned') list.push(['wpe', [context, d]]);
  for (let l = 0; l < layers; l++) {
    const p = `blocks.${l}.`;
    list.push([`${p}ln1.gamma`, [d]], [`${p}ln1.beta`, [d]]);
    for (const m of ['q', 'k', 'v']) list.push([`${p}attn.W${m}`, [d, d]], [`${p}attn.b${m}`, [d]]);
    list.push([`${p}attn.Wo`, [d, d]], [`${p}attn.bo`, [d]], [`${p}ln2.gamma`, [d]], [`${p}ln2.beta`, [d]]);
    list.push([`${p}mlp.W1`, [d, 4 * d]], [`${p}mlp.b1`, [4 * d]], [`${p}mlp.W2`, [4 * d, d]], [`${p}mlp.b2`, [d]]);
  }
  list.push(['lnf.gamma', [d]], ['lnf.beta', [d]]);
  return list;
}

/**
 * GPT-2's initialisation, seeded: matrices and tables normal(0, 0.02), the two projections back
 * into the residual stream (Wo, W2) normal(0, 0.02/√(2L)); biases 0, gains 1. → { name: Float32Array }.
 */
export function gptInitialWeights(config, seed = 0) {
  const random = generator(seed), out = {};
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  for (const [name, shape] of gptParameterList(config)) {
    const t = new Float32Array(shape.reduce((a, b) => a * b)), leaf = name.split('.').pop();
    if (leaf === 'gamma') t.fill(1);
    else if (shape.length === 2) {
      const std = leaf === 'Wo' || leaf === 'W2' ? 0.02 / Math.sqrt(2 * config.layers) : 0.02;
      for (let i = 0; i < t.length; i++) t[i] = std * normal();
    }
    out[name] = t;
  }
  return out;
}

/** The sinusoidal table (T, d), as tests/gpt-reference.js and positionalEncoding compute it. */
function sinusoids(n, d) {
  const out = new Float32Array(n * d);
  for (let t = 0; t < n; t++) for (let i = 0; i < d; i++) {
    const angle = t / 10000 ** ((i - (i % 2)) / d);
    out[t * d + i] = i % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
  }
  return out;
}

const DEFAULTS = { layers: 2, heads: 4, dim: 64, context: 32, positions: 'learned', eps: 1e-5,
  lr: 3e-3, beta1: 0.9, beta2: 0.99, adamEps: 1e-8, weightDecay: 0.1, decayEmbeddings: true, maxNorm: 1.0, matmulGradients: 'autodiff' };

/**
 * The GPT in TF.js. Call `await gptTf()` first. config: { vocab, layers, heads, dim, context,
 * positions, eps, lr, beta1, beta2, adamEps, weightDecay, decayEmbeddings, maxNorm,
 * matmulGradients } (defaults in DEFAULTS); weights: { name: array } in
 * the reference layout (flat names from gptParameterList), default gptInitialWeights(config, seed).
 */
export class TfGpt {
  constructor(config, weights = null, seed = 0) {
    if (!tf) throw new Error('TfGpt: call await gptTf() before constructing');
    const c = { ...DEFAULTS, ...config };
    if (!Number.isInteger(c.vocab) || c.vocab < 1) throw new RangeError(`TfGpt: vocab ${c.vocab} must be a positive integer`);
    if (!Number.isInteger(c.layers) || c.layers < 1) throw new RangeError(`TfGpt: layers ${c.layers} must be a positive integer`);
    if (!Number.isInteger(c.dim) || !Number.isInteger(c.heads) || c.heads < 1 || c.dim % c.heads !== 0) {
      throw new RangeError(`TfGpt: heads ${c.heads} must divide dim ${c.dim}`);
    }
    if (c.positions !== 'learned' && c.positions !== 'sinusoidal') throw new RangeError(`TfGpt: positions '${c.positions}' is not 'learned' or 'sinusoidal'`);
    if (c.matmulGradients !== 'autodiff' && c.matmulGradients !== 'xnnpack') throw new RangeError(`TfGpt: matmulGradients '${c.matmulGradients}' is not 'autodiff' or 'xnnpack'`);
    this.config = c;
    weights ??= gptInitialWeights(c, seed);
    const prefix = `gpt${++instances}/`, d = c.dim;
    // tidy frees the initial tensor (a variable is not freed by tidy)
    const variable = (name, values, shape) => tf.tidy(() => tf.variable(tf.tensor(values, shape, 'float32'), true, prefix + name));
    this.v = {};
    for (const [name, shape] of gptParameterList(c)) {
      if (/attn\.[Wb][kv]$/.test(name)) continue;  // folded into Wqkv / bqkv below
      if (!weights[name] || weights[name].length !== shape.reduce((a, b) => a * b)) {
        throw new RangeError(`TfGpt: weight ${name} must have ${shape.join('×')} values, has ${weights[name]?.length}`);
      }
      const m = name.match(/^(blocks\.\d+\.attn\.)([Wb])q$/);
      if (!m) { this.v[name] = variable(name, weights[name], shape); continue; }
      const [p, kind] = [m[1], m[2]], parts = ['q', 'k', 'v'].map((x) => weights[`${p}${kind}${x}`]);
      if (kind === 'b') this.v[`${p}bqkv`] = variable(`${p}bqkv`, [...parts[0], ...parts[1], ...parts[2]], [3 * d]);
      else {
        const packed = new Float32Array(d * 3 * d);  // (d, 3d): columns [Wq | Wk | Wv]
        for (let i = 0; i < d; i++) parts.forEach((W, k) => packed.set(W.subarray ? W.subarray(i * d, (i + 1) * d) : W.slice(i * d, (i + 1) * d), i * 3 * d + k * d));
        this.v[`${p}Wqkv`] = variable(`${p}Wqkv`, packed, [d, 3 * d]);
      }
    }
    this.decayed = Object.entries(this.v).filter(([name, t]) => t.rank === 2 && (c.decayEmbeddings || !/^wt|^wp/.test(name))).map(([, t]) => t);
    this.positions = c.positions === 'sinusoidal' ? tf.tensor2d(sinusoids(c.context, d), [c.context, d]) : null;
    const T = c.context, mask = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -1e9;  // exp(-1e9 − max) = 0 in float32
    this.mask = tf.tensor2d(mask, [T, T]);
    this.optimizer = tf.train.adam(c.lr, c.beta1, c.beta2, c.adamEps);
    if (c.matmulGradients === 'autodiff') {
      this.dense = (a, W, b) => tf.fused.matMul({ a, b: W, bias: b });
      this.tiedOutput = (h, E) => tf.matMul(h, E, false, true);
    } else {
      // every product of forward and backward an untransposed 2-D one (XNNPACK's); the
      // transposes are of the small operands (W, a; E once)
      this.dense = tf.customGrad((a, W, b, save) => {
        save([a, W]);
        return { value: tf.fused.matMul({ a, b: W, bias: b }),
          gradFunc: (dy, [sa, sW]) => [tf.matMul(dy, tf.transpose(sW)), tf.matMul(tf.transpose(sa), dy), tf.sum(dy, 0)] };
      });
      this.tiedOutput = tf.customGrad((h, E, save) => {
        save([h, E]);
        return { value: tf.matMul(h, tf.transpose(E)),
          gradFunc: (dy, [sh, sE]) => [tf.matMul(dy, sE), tf.transpose(tf.matMul(tf.transpose(sh), dy))] };
      });
    }
  }

  get parameterCount() {
    return Object.values(this.v).reduce((s, t) => s + t.size, 0);
  }

  /** The loss (a scalar tensor) of windows: inputs, targets as Int32Array (B·n), n ≤ context. */
  lossTensor(inputs, targets, B, n, keepLogits = null) {
    const { v, config: c } = this, d = c.dim, H = c.heads, dk = d / H;
    const ids = tf.tensor1d(inputs, 'int32'), rows = tf.reshape(ids, [B * n, 1]);
    // tf.gather's own gradient needs UnsortedSegmentSum (missing in the wasm backend)
    const lookup = tf.customGrad((table, save) => {
      save([rows]);  // kept for the backward pass, which runs after this scope's tensors are gone
      return { value: tf.gather(table, ids), gradFunc: (dy, [saved]) => tf.scatterND(saved, dy, table.shape) };
    });
    const pos = this.positions ? tf.slice(this.positions, [0, 0], [n, d]) : tf.slice(v.wpe, [0, 0], [n, d]);
    let x = tf.reshape(tf.add(tf.reshape(lookup(v.wte), [B, n, d]), pos), [B * n, d]);  // (B·n, d)
    const mask = n === c.context ? this.mask : tf.slice(this.mask, [0, 0], [n, n]);
    const norm = (t, p) => {
      const { mean, variance } = tf.moments(t, -1, true);  // biased variance
      return tf.add(tf.mul(tf.mul(tf.sub(t, mean), tf.rsqrt(tf.add(variance, c.eps))), v[`${p}.gamma`]), v[`${p}.beta`]);
    };
    const heads = (t) => tf.reshape(tf.transpose(tf.reshape(t, [B, n, H, dk]), [0, 2, 1, 3]), [B * H, n, dk]);
    for (let l = 0; l < c.layers; l++) {
      const p = `blocks.${l}.`;
      const qkv = this.dense(norm(x, `${p}ln1`), v[`${p}attn.Wqkv`], v[`${p}attn.bqkv`]);  // (B·n, 3d)
      const [q, k, vv] = tf.split(qkv, 3, 1).map(heads);  // (B·H, n, dk) each
      const weights = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dk)), mask));  // (B·H, n, n)
      const concat = tf.reshape(tf.transpose(tf.reshape(tf.matMul(weights, vv), [B, H, n, dk]), [0, 2, 1, 3]), [B * n, d]);
      const r = tf.add(x, this.dense(concat, v[`${p}attn.Wo`], v[`${p}attn.bo`]));
      const hidden = this.dense(norm(r, `${p}ln2`), v[`${p}mlp.W1`], v[`${p}mlp.b1`]);  // (B·n, 4d)
      const cube = tf.mul(tf.mul(hidden, hidden), hidden);
      const gelu = tf.mul(tf.mul(hidden, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(hidden, tf.mul(cube, 0.044715)), Math.sqrt(2 / Math.PI)))));
      x = tf.add(r, this.dense(gelu, v[`${p}mlp.W2`], v[`${p}mlp.b2`]));
    }
    const logits = this.tiedOutput(norm(x, 'lnf'), v.wte);  // (B·n, V): the token table is the output layer
    if (keepLogits) keepLogits.push(tf.keep(logits));
    // softmaxCrossEntropy's own gradient, softmax − one-hot, saves a pass over the (B·n, V) logits
    return tf.losses.softmaxCrossEntropy(tf.oneHot(tf.tensor1d(targets, 'int32'), c.vocab), logits, undefined, 0, tf.Reduction.MEAN);
  }

  /** → { loss, logits: Float32Array (B·n, V) } of windows [{ inputs, targets }] (one length n). */
  forward(windows) {
    const { inputs, targets, B, n } = pack(windows);
    const kept = [];
    const loss = tf.tidy(() => this.lossTensor(inputs, targets, B, n, kept));
    const out = { loss: loss.dataSync()[0], logits: kept[0].dataSync() };
    tf.dispose([loss, ...kept]);
    return out;
  }

  /** → { loss, gradients: { name: Float32Array } } in the reference layout (unclipped). */
  gradients(windows) {
    const { inputs, targets, B, n } = pack(windows);
    const { value, grads } = tf.variableGrads(() => this.lossTensor(inputs, targets, B, n));
    const byName = Object.fromEntries(Object.entries(this.v).map(([name, t]) => [name, grads[t.name].dataSync()]));
    const loss = value.dataSync()[0];
    tf.dispose([value, ...Object.values(grads)]);
    return { loss, gradients: this.unpack(byName) };
  }

  /** One training step (clipping, AdamW) on windows → { loss, gradNorm } (before clipping). */
  step(windows) {
    const { inputs, targets, B, n } = pack(windows);
    const { lr, weightDecay, maxNorm } = this.config;
    const { value, grads } = tf.variableGrads(() => this.lossTensor(inputs, targets, B, n));
    const norm = tf.tidy(() => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))));
    const gradNorm = norm.dataSync()[0], loss = value.dataSync()[0];
    tf.tidy(() => {
      const coef = maxNorm / (gradNorm + 1e-6);
      const clipped = coef < 1 ? Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, tf.mul(g, coef)])) : grads;
      if (weightDecay) for (const p of this.decayed) p.assign(tf.mul(p, 1 - lr * weightDecay));
      this.optimizer.applyGradients(clipped);
    });
    tf.dispose([value, norm, ...Object.values(grads)]);
    return { loss, gradNorm };
  }

  /** The current weights { name: Float32Array } in the reference layout. */
  weights() {
    return this.unpack(Object.fromEntries(Object.entries(this.v).map(([name, t]) => [name, t.dataSync()])));
  }

  unpack(byName) {
    const d = this.config.dim, out = {};
    for (const [name] of gptParameterList(this.config)) {
      const m = name.match(/^(blocks\.\d+\.attn\.)([Wb])([qkv])$/);
      if (!m) { out[name] = byName[name]; continue; }
      const k = 'qkv'.indexOf(m[3]), packed = byName[`${m[1]}${m[2]}qkv`];
      if (m[2] === 'b') out[name] = packed.slice(k * d, (k + 1) * d);
      else {
        const W = new Float32Array(d * d);
        for (let i = 0; i < d; i++) W.set(packed.subarray(i * 3 * d + k * d, i * 3 * d + (k + 1) * d), i * d);
        out[name] = W;
      }
    }
    return out;
  }

  /**
   * Generation with a KV cache, as a TF.js user would write it over these weights (learned
   * positions): each step runs one row through the blocks against the keys and values of the
   * earlier positions (kept as tensors, one step's row concatenated per layer), reads the logits
   * back (dataSync) and draws the token in JavaScript: softmax(logits / temperature), one uniform
   * draw from random() in [0, 1); temperature 0 takes the most likely token (ties to the lower id).
   * The output layer multiplies by wteᵀ transposed once here (an untransposed product: XNNPACK's;
   * see matmulGradients above). → { generate(prompt ids, { maxTokens, temperature, random }) →
   * the generated ids, ending after the end-of-text token 0 or when the context is full }.
   */
  decoder() {
    const { v, config: c } = this, d = c.dim, H = c.heads, dk = d / H, L = c.layers;
    if (!v.wpe) throw new RangeError('TfGpt.decoder: learned positions only');
    const wteT = tf.tidy(() => tf.transpose(v.wte));  // (d, V)
    const norm = (t, p) => {
      const { mean, variance } = tf.moments(t, -1, true);
      return tf.add(tf.mul(tf.mul(tf.sub(t, mean), tf.rsqrt(tf.add(variance, c.eps))), v[`${p}.gamma`]), v[`${p}.beta`]);
    };
    const dense = (a, W, b) => tf.fused.matMul({ a, b: W, bias: b });
    // one position: → { logits (1, V), ks, vs: the caches with this position's rows (H, pos + 1, dk) }
    const step = (token, pos, ks, vs) => tf.tidy(() => {
      let x = tf.add(tf.gather(v.wte, tf.tensor1d([token], 'int32')), tf.slice(v.wpe, [pos, 0], [1, d]));  // (1, d)
      const nks = [], nvs = [];
      for (let l = 0; l < L; l++) {
        const p = `blocks.${l}.`;
        const [q, k, vv] = tf.split(dense(norm(x, `${p}ln1`), v[`${p}attn.Wqkv`], v[`${p}attn.bqkv`]), 3, 1)
          .map((t) => tf.transpose(tf.reshape(t, [1, H, dk]), [1, 0, 2]));  // (H, 1, dk)
        const K = ks[l] ? tf.concat([ks[l], k], 1) : k, V = vs[l] ? tf.concat([vs[l], vv], 1) : vv;  // (H, pos + 1, dk)
        nks.push(K); nvs.push(V);
        const weights = tf.softmax(tf.mul(tf.matMul(q, K, false, true), 1 / Math.sqrt(dk)));  // (H, 1, pos + 1)
        const heads = tf.reshape(tf.matMul(weights, V), [1, d]);  // heads side by side
        const r = tf.add(x, dense(heads, v[`${p}attn.Wo`], v[`${p}attn.bo`]));
        const hidden = dense(norm(r, `${p}ln2`), v[`${p}mlp.W1`], v[`${p}mlp.b1`]);
        const cube = tf.mul(tf.mul(hidden, hidden), hidden);
        const gelu = tf.mul(tf.mul(hidden, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(hidden, tf.mul(cube, 0.044715)), Math.sqrt(2 / Math.PI)))));
        x = tf.add(r, dense(gelu, v[`${p}mlp.W2`], v[`${p}mlp.b2`]));
      }
      return { logits: tf.matMul(norm(x, 'lnf'), wteT), ks: nks, vs: nvs };
    });
    const draw = (z, temperature, random) => {
      let best = 0;
      for (let i = 1; i < z.length; i++) if (z[i] > z[best]) best = i;
      if (temperature === 0) return best;
      const w = new Float64Array(z.length);
      let sum = 0;
      for (let i = 0; i < z.length; i++) sum += (w[i] = Math.exp((z[i] - z[best]) / temperature));
      let u = random() * sum;
      for (let i = 0; i < z.length; i++) if ((u -= w[i]) < 0) return i;
      return best;
    };
    return {
      generate(prompt, { maxTokens = c.context - prompt.length, temperature = 1, random = Math.random } = {}) {
        let ks = [], vs = [], logits = null;
        const out = [];
        const advance = (token, pos) => {
          const r = step(token, pos, ks, vs);
          tf.dispose([...ks, ...vs, logits].filter(Boolean));
          ({ ks, vs, logits } = r);
        };
        prompt.forEach((token, pos) => advance(token, pos));
        try {
          for (let pos = prompt.length; pos < c.context && out.length < maxTokens; pos++) {
            const token = draw(logits.dataSync(), temperature, random);
            out.push(token);
            if (token === 0 || pos === c.context - 1 || out.length === maxTokens) break;
            advance(token, pos);
          }
        } finally {
          tf.dispose([...ks, ...vs, logits].filter(Boolean));
        }
        return out;
      },
      dispose() { wteT.dispose(); },
    };
  }

  dispose() {
    tf.dispose([...Object.values(this.v), this.mask, this.positions].filter(Boolean));
    this.optimizer.dispose();
  }
}

/** [{ inputs, targets }] (one length) → flat Int32Arrays and the sizes. */
function pack(windows) {
  const B = windows.length, n = windows[0]?.inputs.length;
  if (!B || !n) throw new RangeError('TfGpt: at least one window of at least one token');
  const inputs = new Int32Array(B * n), targets = new Int32Array(B * n);
  windows.forEach((w, b) => {
    if (w.inputs.length !== n || w.targets.length !== n) throw new RangeError(`TfGpt: window ${b} has ${w.inputs.length} inputs, ${w.targets.length} targets; expected ${n}`);
    inputs.set(w.inputs, b * n);
    targets.set(w.targets, b * n);
  });
  return { inputs, targets, B, n };
}

/** B windows of context + 1 tokens of the stream at random offsets. */
export function sampleWindows(stream, batch, context, random) {
  if (stream.length < context + 1) throw new RangeError(`sampleWindows: the text has ${stream.length} tokens; context ${context} needs at least ${context + 1}`);
  return Array.from({ length: batch }, () => {
    const o = Math.floor(random() * (stream.length - context));
    return { inputs: stream.subarray(o, o + context), targets: stream.subarray(o + 1, o + context + 1) };
  });
}

/**
 * Training throughput of the GPT in TF.js on `text`. Each step samples B windows, runs forward,
 * backward, clipping and AdamW, and reads the loss back. The first `warmup` steps are not timed.
 * → { charsPerSecond: predicted characters (batch·context) per second of the process's CPU time
 * (user + system, as bench/run.mjs reports), over the median step; msPerStep: CPU ms of each timed
 * step; wallMsPerStep; loss: [first step's, last step's]; losses: every step's; parameters;
 * vocab; backend }.
 */
export async function tfjsGptThroughput({ text, layers = 2, heads = 4, dim = 64, context = 32, batch = 16, steps = 20,
  warmup = 3, positions = 'learned', seed = 0, ...optimizer } = {}) {
  await gptTf();
  const { vocab, stream } = tokenize(text);
  const model = new TfGpt({ vocab: vocab.length, layers, heads, dim, context, positions, ...optimizer }, null, seed);
  const random = generator(seed + 1), losses = [], msPerStep = [], wallMsPerStep = [];
  try {
    for (let s = 0; s < warmup + steps; s++) {
      const c0 = cpuMs(), t0 = performance.now();
      losses.push(model.step(sampleWindows(stream, batch, context, random)).loss);
      if (s >= warmup) { msPerStep.push(cpuMs() - c0); wallMsPerStep.push(performance.now() - t0); }
    }
    return {
      charsPerSecond: (batch * context) / (median(msPerStep) / 1000), msPerStep, wallMsPerStep,
      loss: [losses[0], losses[losses.length - 1]], losses, parameters: model.parameterCount, vocab: vocab.length,
      backend: tf.getBackend(),
    };
  } finally {
    model.dispose();
  }
}

/**
 * The loss, logits and gradients of the TF.js model for given weights (the reference layout) and
 * windows: the check that it computes tests/gpt-reference.js's function.
 * → { loss, logits: Float32Array (B·n, V), gradients: { name: Float32Array } }
 */
export async function tfjsGptForwardCheck({ config, weights, windows }) {
  await gptTf();
  const model = new TfGpt(config, weights);
  try {
    const { loss, logits } = model.forward(windows);
    return { loss, logits, gradients: model.gradients(windows).gradients };
  } finally {
    model.dispose();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : fallback; };
  const int = (name, fallback) => {
    const x = Number(option(name, fallback));
    if (!Number.isInteger(x) || x < 0) throw new RangeError(`--${name} ${option(name)} must be a non-negative integer`);
    return x;
  };
  const { QUATRAINS } = await import('../web/data/quatrains.js');
  const settings = { layers: int('layers', 2), heads: int('heads', 4), dim: int('dim', 64), context: int('context', 32),
    batch: int('batch', 16), steps: int('steps', 20), warmup: int('warmup', 3), seed: int('seed', 0), positions: option('positions', 'learned'),
    matmulGradients: option('matmul-gradients', 'autodiff') };
  const r = await tfjsGptThroughput({ text: QUATRAINS.poems, ...settings });
  const fmt = (xs) => xs.map((x) => x.toFixed(1)).join(' ');
  console.log(`TF.js ${r.backend} GPT: layers ${settings.layers}, heads ${settings.heads}, dim ${settings.dim}, context ${settings.context}, ` +
    `batch ${settings.batch}, ${settings.positions} positions, ${settings.matmulGradients} matmul gradients; vocabulary ${r.vocab}, ${r.parameters} parameters`);
  console.log(`${Math.round(r.charsPerSecond)} characters/s (CPU time, median of ${r.msPerStep.length} steps after ${settings.warmup} warm-up)`);
  console.log(`ms per step, CPU: ${fmt(r.msPerStep)}`);
  console.log(`ms per step, wall: ${fmt(r.wallMsPerStep)}`);
  console.log(`loss by step: ${r.losses.map((x) => x.toFixed(3)).join(' ')}`);
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) await main();
