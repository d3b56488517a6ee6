// A float64 reference of the GPT's forward pass (the model of docs/gpt.md), written from the
// model's formulas (below) and nothing else, for tests: the TF.js peer in tools/tfjs-gpt.mjs is
// checked against it, and the C engine's tests can be. Checked itself against PyTorch
// (nn.TransformerEncoderLayer) in tests/gpt-reference.test.js, with fixtures from tests/fixtures/make_gpt_fixtures.py.
//
// Dimensions: V vocabulary, d model width, H heads, dk = d / H head width, T context (the longest
// sequence), n tokens in this sequence (n ≤ T), L blocks.
//
//   x0      (n, d) = wte[tokens] + pos[0..n)         pos: wpe (learned) or sinusoids(T, d)
//   per block (pre-LN GPT-2):
//     a     (n, d) = LN1(x)
//     Q,K,V (n, d) = a·Wq + bq, a·Wk + bk, a·Wv + bv   head h: columns [h·dk, (h+1)·dk)
//     head  (n, dk) = softmax(Q_h K_hᵀ / √dk + mask)·V_h   mask: -∞ above the diagonal (causal)
//     attn  (n, d) = [head_0 … head_H-1]·Wo + bo
//     r     (n, d) = x + attn
//     out   (n, d) = r + GELU(LN2(r)·W1 + b1)·W2 + b2       W1 (d, 4d), W2 (4d, d)
//   h       (n, d) = LNf(x_L)
//   logits  (n, V) = h·wteᵀ                          the token table is the output layer (tied)
//   loss           = mean over predicted positions of logsumexp(logits_t) − logits_t[target_t]
// LN(x) = (x − mean) / √(var + eps)·gamma + beta per row, var the biased (1/d) variance, eps 1e-5.
// GELU(x) = ½x(1 + tanh(√(2/π)(x + 0.044715x³))), the tanh form GPT-2 uses.
//
// The weights: one object of named tensors, each a flat row-major Float64Array or Float32Array
// (any array of numbers is read; everything is computed in double). Matrices act as X·W.
//
//   weights = {
//     wte: (V, d)            row t is token t's vector; also the output layer (logits = h·wteᵀ)
//     wpe: (T, d)            learned positions (not read when config.positions is 'sinusoidal')
//     blocks: [ L × {
//       ln1:  { gamma: (d), beta: (d) },
//       attn: { Wq: (d, d), bq: (d), Wk: (d, d), bk: (d), Wv: (d, d), bv: (d), Wo: (d, d), bo: (d) },
//       ln2:  { gamma: (d), beta: (d) },
//       mlp:  { W1: (d, 4d), b1: (4d), W2: (4d, d), b2: (d) },
//     } ],
//     lnf: { gamma: (d), beta: (d) },
//   }
//   config = { vocab: V, dim: d, heads: H, layers: L, context: T, positions: 'learned' | 'sinusoidal', eps = 1e-5 }
//
// parameterList(config) names every tensor with its shape, in this order ('blocks.0.attn.Wq'):
// fixtures and optimizers iterate over it; tensorAt(weights, name) reads one.

/** [[name, shape], ...] for every tensor of the model, in a fixed order. */
export function parameterList({ vocab, dim, layers, context, positions = 'learned' }) {
  const d = dim, list = [['wte', [vocab, d]]];
  if (positions === 'learned') list.push(['wpe', [context, d]]);
  for (let l = 0; l < layers; l++) {
    const p = `blocks.${l}.`;
    list.push([`${p}ln1.gamma`, [d]], [`${p}ln1.beta`, [d]]);
    for (const m of ['q', 'k', 'v']) list.push([`${p}attn.W${m}`, [d, d]], [`${p}attn.b${m}`, [d]]);
    list.push([`${p}attn.Wo`, [d, d]], [`${p}attn.bo`, [d]]);
    list.push([`${p}ln2.gamma`, [d]], [`${p}ln2.beta`, [d]]);
    list.push([`${p}mlp.W1`, [d, 4 * d]], [`${p}mlp.b1`, [4 * d]], [`${p}mlp.W2`, [4 * d, d]], [`${p}mlp.b2`, [d]]);
  }
  list.push(['lnf.gamma', [d]], ['lnf.beta', [d]]);
  return list;
}

/** The tensor named 'blocks.1.mlp.W1' (etc.) of a weights object. */
export function tensorAt(weights, name) {
  return name.split('.').reduce((o, key) => (o === undefined ? o : o[key]), weights);
}

/** Builds a weights object from a function (name, shape) → tensor, over parameterList(config). */
export function buildWeights(config, make) {
  const weights = { blocks: Array.from({ length: config.layers }, () => ({ ln1: {}, attn: {}, ln2: {}, mlp: {} })), lnf: {} };
  for (const [name, shape] of parameterList(config)) {
    const keys = name.split('.'), last = keys.pop();
    keys.reduce((o, key) => o[key], weights)[last] = make(name, shape);
  }
  return weights;
}

/** The sinusoidal position table (n, d): column 2i sin(t / 10000^(2i/d)), column 2i+1 cos of the same (positionalEncoding's). */
export function sinusoids(n, d) {
  const out = new Float64Array(n * d);
  for (let t = 0; t < n; t++) {
    for (let i = 0; i < d; i++) {
      const angle = t / 10000 ** ((i - (i % 2)) / d);
      out[t * d + i] = i % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }
  }
  return out;
}

/** (n, k)·(k, m) + bias (m, optional) → (n, m) */
export function matmul(A, B, n, k, m, bias = null) {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const row = out.subarray(i * m, (i + 1) * m);
    if (bias) for (let j = 0; j < m; j++) row[j] = bias[j];
    for (let p = 0; p < k; p++) {
      const a = A[i * k + p];
      for (let j = 0; j < m; j++) row[j] += a * B[p * m + j];
    }
  }
  return out;
}

/** Row-wise LayerNorm of (n, d) with the biased variance. */
export function layerNorm(X, n, d, gamma, beta, eps = 1e-5) {
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    let mean = 0, variance = 0;
    for (let j = 0; j < d; j++) mean += X[i * d + j];
    mean /= d;
    for (let j = 0; j < d; j++) variance += (X[i * d + j] - mean) ** 2;
    variance /= d;
    const inv = 1 / Math.sqrt(variance + eps);
    for (let j = 0; j < d; j++) out[i * d + j] = (X[i * d + j] - mean) * inv * gamma[j] + beta[j];
  }
  return out;
}

/** GELU, tanh approximation. */
export const gelu = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));

const addInto = (A, B) => A.map((a, i) => a + B[i]);

/**
 * One pre-LN block on X (n, d), every intermediate kept, named as web/gpt.js's transformerBlock
 * names them. attention.heads[h].scores are the raw dot products Q_h K_hᵀ (n, n): not scaled,
 * not masked (as qkv-lab's attention API returns them); weights = softmax(scores/√dk + mask).
 */
export function transformerBlock(X, n, d, block, { heads, causal = true, eps = 1e-5 }) {
  const dk = d / heads, { attn, mlp } = block;
  const ln1 = layerNorm(X, n, d, block.ln1.gamma, block.ln1.beta, eps);
  const Q = matmul(ln1, attn.Wq, n, d, d, attn.bq), K = matmul(ln1, attn.Wk, n, d, d, attn.bk), Vm = matmul(ln1, attn.Wv, n, d, d, attn.bv);
  const concat = new Float64Array(n * d), headTraces = [];
  for (let h = 0; h < heads; h++) {
    const cut = (M) => { const o = new Float64Array(n * dk); for (let i = 0; i < n; i++) for (let c = 0; c < dk; c++) o[i * dk + c] = M[i * d + h * dk + c]; return o; };
    const q = cut(Q), k = cut(K), v = cut(Vm);
    const scores = new Float64Array(n * n), weights = new Float64Array(n * n), output = new Float64Array(n * dk);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) { let s = 0; for (let c = 0; c < dk; c++) s += q[i * dk + c] * k[j * dk + c]; scores[i * n + j] = s; }
      const last = causal ? i : n - 1;
      let max = -Infinity;
      for (let j = 0; j <= last; j++) max = Math.max(max, scores[i * n + j] / Math.sqrt(dk));
      let sum = 0;
      for (let j = 0; j <= last; j++) { weights[i * n + j] = Math.exp(scores[i * n + j] / Math.sqrt(dk) - max); sum += weights[i * n + j]; }
      for (let j = 0; j <= last; j++) weights[i * n + j] /= sum;
      for (let j = 0; j <= last; j++) for (let c = 0; c < dk; c++) output[i * dk + c] += weights[i * n + j] * v[j * dk + c];
      for (let c = 0; c < dk; c++) concat[i * d + h * dk + c] = output[i * dk + c];
    }
    headTraces.push({ Q: q, K: k, V: v, scores, weights, output });
  }
  const attnOut = matmul(concat, attn.Wo, n, d, d, attn.bo);
  const resid1 = addInto(X, attnOut);
  const ln2 = layerNorm(resid1, n, d, block.ln2.gamma, block.ln2.beta, eps);
  const hidden = matmul(ln2, mlp.W1, n, d, 4 * d, mlp.b1);
  const g = hidden.map(gelu);
  const mlpOut = matmul(g, mlp.W2, n, 4 * d, d, mlp.b2);
  return { ln1, attention: { heads: headTraces, concat, output: attnOut }, resid1, ln2, hidden, gelu: g, mlp: mlpOut, output: addInto(resid1, mlpOut) };
}

/**
 * The forward pass of one sequence of token ids (length n ≤ context) → { x0 (n, d), blocks:
 * [transformerBlock traces], final (n, d) = LNf output, logits (n, V) }, all Float64Array.
 */
export function gptForward(config, weights, tokens) {
  const { vocab: V, dim: d, heads, context, positions = 'learned', eps = 1e-5 } = config;
  const n = tokens.length;
  if (n < 1 || n > context) throw new RangeError(`gptForward: ${n} tokens; expected 1 to context = ${context}`);
  const pos = positions === 'learned' ? weights.wpe : sinusoids(context, d);
  const x0 = new Float64Array(n * d);
  tokens.forEach((token, t) => {
    if (!Number.isInteger(token) || token < 0 || token >= V) throw new RangeError(`gptForward: token ${token} at ${t} is not in 0..${V - 1}`);
    for (let j = 0; j < d; j++) x0[t * d + j] = weights.wte[token * d + j] + pos[t * d + j];
  });
  let x = x0;
  const blocks = weights.blocks.map((block) => {
    const trace = transformerBlock(x, n, d, block, { heads, causal: true, eps });
    x = trace.output;
    return trace;
  });
  const final = layerNorm(x, n, d, weights.lnf.gamma, weights.lnf.beta, eps);
  const logits = new Float64Array(n * V);
  for (let t = 0; t < n; t++) {
    for (let v = 0; v < V; v++) { let s = 0; for (let j = 0; j < d; j++) s += final[t * d + j] * weights.wte[v * d + j]; logits[t * V + v] = s; }
  }
  return { x0, blocks, final, logits };
}

/** −log softmax(logits row)[target] for each row of logits (n, V) → Float64Array (n). */
export function crossEntropy(logits, V, targets) {
  return Float64Array.from(targets, (target, t) => {
    const row = logits.subarray(t * V, (t + 1) * V);
    const max = row.reduce((a, b) => Math.max(a, b), -Infinity);
    return max + Math.log(row.reduce((s, z) => s + Math.exp(z - max), 0)) - row[target];
  });
}

/**
 * The training loss of a batch: windows = [{ inputs, targets }] (token arrays of one length n ≤
 * context; targets[t] is the token after inputs[t]) → { loss: mean over all batch·n predictions,
 * logits: [Float64Array (n, V) per window] }.
 */
export function gptLoss(config, weights, windows) {
  let total = 0, count = 0;
  const logits = windows.map(({ inputs, targets }) => {
    const out = gptForward(config, weights, inputs).logits;
    for (const l of crossEntropy(out, config.vocab, targets)) { total += l; count++; }
    return out;
  });
  return { loss: total / count, logits };
}
