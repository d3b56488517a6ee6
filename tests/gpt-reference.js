// gpt-reference.js: the GPT of wasm/gpt.c written again, plainly, in float64 JavaScript, from
// the parameters gpt.parameters() returns (nested arrays of doubles). The gradient checks
// difference its loss; it is also checked against the C logits, so that it is the same model.
//   x = wte[token] + wpe[t]; per block: a = LN1(x); Q, K, V = a·W + b; per head
//   softmax(QKᵀ/√d_k, causal)·V; x += concat·Wo + bo; x += GELU(LN2(x)·W1 + b1)·W2 + b2;
//   logits = LNf(x)·wteᵀ; loss = mean −log softmax(logits)[target].

/** Matrix (rows×cols Float32Array) → nested double arrays; vectors (1×k) → flat arrays. */
export function toDouble(params) {
  const nested = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
  const flat = (m) => Array.from(m.data);
  const walk = (x) => {
    if (x && typeof x === 'object' && 'rows' in x && 'data' in x) return x.rows === 1 ? flat(x) : nested(x);
    if (Array.isArray(x)) return x.map(walk);
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
  };
  return walk(params);
}

function layernorm(x, gamma, beta, eps = 1e-5) {
  return x.map((row) => {
    const mean = row.reduce((s, v) => s + v, 0) / row.length;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / row.length;
    const r = 1 / Math.sqrt(variance + eps);
    return row.map((v, c) => (v - mean) * r * gamma[c] + beta[c]);
  });
}

function linear(x, W, b) {
  return x.map((row) => W[0].map((_, j) => {
    let s = b ? b[j] : 0;
    for (let k = 0; k < row.length; k++) s += row[k] * W[k][j];
    return s;
  }));
}

const gelu = (v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));

/** logits (n × V) of tokens under params (toDouble form) with `heads` heads */
export function referenceLogits(params, tokens, heads) {
  const { wte, wpe, blocks, lnf } = params;
  let x = tokens.map((tok, t) => wte[tok].map((v, c) => v + wpe[t][c]));
  const n = tokens.length, d = wte[0].length, dk = d / heads;
  for (const b of blocks) {
    const a = layernorm(x, b.ln1.gamma, b.ln1.beta);
    const Q = linear(a, b.attn.Wq, b.attn.bq), K = linear(a, b.attn.Wk, b.attn.bk), V = linear(a, b.attn.Wv, b.attn.bv);
    const concat = Array.from({ length: n }, () => new Array(d).fill(0));
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < n; i++) {
        const z = [];
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = h * dk; k < (h + 1) * dk; k++) s += Q[i][k] * K[j][k];
          z.push(s / Math.sqrt(dk));
        }
        const max = Math.max(...z);
        const e = z.map((v) => Math.exp(v - max));
        const sum = e.reduce((s, v) => s + v, 0);
        for (let j = 0; j <= i; j++) for (let k = h * dk; k < (h + 1) * dk; k++) concat[i][k] += (e[j] / sum) * V[j][k];
      }
    }
    const attn = linear(concat, b.attn.Wo, b.attn.bo);
    x = x.map((row, i) => row.map((v, c) => v + attn[i][c]));
    const hidden = linear(layernorm(x, b.ln2.gamma, b.ln2.beta), b.mlp.W1, b.mlp.b1).map((row) => row.map(gelu));
    const mlp = linear(hidden, b.mlp.W2, b.mlp.b2);
    x = x.map((row, i) => row.map((v, c) => v + mlp[i][c]));
  }
  const f = layernorm(x, lnf.gamma, lnf.beta);
  return f.map((row) => wte.map((e) => e.reduce((s, v, c) => s + v * row[c], 0)));
}

/** mean cross-entropy (nats) of targets under the reference logits */
export function referenceLoss(params, inputs, targets, heads) {
  const logits = referenceLogits(params, inputs, heads);
  let total = 0;
  logits.forEach((z, t) => {
    const max = Math.max(...z);
    const lse = max + Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0));
    total += lse - z[targets[t]];
  });
  return total / inputs.length;
}
