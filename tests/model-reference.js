// A float64 reference of the model's forward pass, written from the formulas in wasm/model.c's
// header comment and nothing else, reading the parameters through the public API
// (model.getParameter). Used by tests/model-inspect.test.js to check every field of
// model.inspect(); kept apart so the reference stays readable on its own.
//
//   X      (n, d) = wte[tokens] + pos[0..n)          pos: the fixed sinusoids below
//   Q,K,V  (n, d) = X.Wq, X.Wk, X.Wv
//   att    (n, d) = causal attention(Q, K, V), scores divided by sqrt(d)
//   h      (n, d) = X + att
//   logits (n, V) = h.Wout + bout
//   probs  (n, V) = softmax_rows(logits)
//   loss          = mean over positions of -log probs[t][target[t]]
// A sentence w1..wm runs as inputs [<s>, w1..wm] and targets [w1..wm, <s>]; <s> is token 0.

/** Matrix (float32) → nested arrays of doubles (the float32 values, exactly). */
function nested(m) {
  const out = [];
  for (let i = 0; i < m.rows; i++) out.push(Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
  return out;
}

function matmul(A, B) {
  const n = A.length, k = B.length, m = B[0].length;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = new Array(m).fill(0);
    for (let p = 0; p < k; p++) {
      const a = A[i][p], b = B[p];
      for (let j = 0; j < m; j++) row[j] += a * b[j];
    }
    out.push(row);
  }
  return out;
}

const transpose = (A) => A[0].map((_, j) => A.map((row) => row[j]));
const add = (A, B) => A.map((row, i) => row.map((x, j) => x + B[i][j]));

/** softmax of each row; -Infinity entries get weight 0 */
function softmaxRows(S) {
  return S.map((row) => {
    const max = Math.max(...row);
    const e = row.map((x) => (x === -Infinity ? 0 : Math.exp(x - max)));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
}

/** The sinusoidal position rows: even column i sin(t·f), odd cos(t·f), f = 10000^(−(i − i mod 2)/d). */
export function sinusoids(n, d) {
  return Array.from({ length: n }, (_, t) => Array.from({ length: d }, (_, i) => {
    const freq = 10000 ** (-(i - (i % 2)) / d);
    return i % 2 === 0 ? Math.sin(t * freq) : Math.cos(t * freq);
  }));
}

/** The model's parameters as nested arrays of doubles: { embedding, Wq, Wk, Wv, Wout, bout }. */
export function readParameters(model) {
  const out = {};
  for (const name of ['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout']) out[name] = nested(model.getParameter(name));
  return out;
}

/**
 * The forward pass of `words` (an array of vocabulary words, without <s>) in double, from
 * `params` (default: the model's current parameters; pass readParameters(model), perturbed, for
 * finite differences in double). Returns nested arrays named as model.inspect() names its fields.
 */
export function referenceForward(model, words, params = readParameters(model)) {
  const ids = [0, ...words.map((w) => model.vocab.indexOf(w))];
  const targetIds = [...ids.slice(1), 0];
  const d = model.dim;
  const n = ids.length;
  const { embedding: E, Wq, Wk, Wv, Wout } = params;
  const bout = params.bout[0];
  const embeddingRows = ids.map((id) => E[id].slice());
  const positions = sinusoids(n, d);
  const X = add(embeddingRows, positions);
  const Q = matmul(X, Wq), K = matmul(X, Wk), V = matmul(X, Wv);
  const scores = matmul(Q, transpose(K));
  const masked = scores.map((row, i) => row.map((s, j) => (j > i ? -Infinity : s / Math.sqrt(d))));
  const weights = softmaxRows(masked);
  const attention = matmul(weights, V);
  const h = add(X, attention);
  const logits = matmul(h, Wout).map((row) => row.map((z, j) => z + bout[j]));
  const probs = softmaxRows(logits);
  const losses = logits.map((row, t) => {
    const max = Math.max(...row);
    const lse = max + Math.log(row.reduce((s, z) => s + Math.exp(z - max), 0));
    return lse - row[targetIds[t]];
  });
  const loss = losses.reduce((a, b) => a + b, 0) / n;
  return { ids, targetIds, embeddingRows, positions, X, Q, K, V, scores, weights, attention, h, logits, probs, losses, loss };
}
