// plain.mjs: the benchmark's cases in plain JavaScript on Float32Array, written the way one
// would without WebAssembly: straightforward loops in a cache-friendly order (i-p-j products,
// K's rows read as stored for Q·Kᵀ), float32 storage, fresh result arrays per call like the API.

/** { scores, weights, output } of attention with n_q = n_k = n rows, widths d (scaled by s). */
export function attend(Q, K, V, n, d, s) {
  const scores = new Float32Array(n * n), weights = new Float32Array(n * n), output = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      let dot = 0;
      for (let p = 0; p < d; p++) dot += Q[i * d + p] * K[j * d + p];
      scores[i * n + j] = dot;
      const z = dot / s;
      weights[i * n + j] = z;
      if (z > max) max = z;
    }
    let sum = 0;
    for (let j = 0; j < n; j++) sum += (weights[i * n + j] = Math.exp(weights[i * n + j] - max));
    for (let j = 0; j < n; j++) weights[i * n + j] /= sum;
    for (let j = 0; j < n; j++) {
      const w = weights[i * n + j];
      for (let p = 0; p < d; p++) output[i * d + p] += w * V[j * d + p];
    }
  }
  return { scores, weights, output };
}

/** A (n×k) · B (k×m), i-p-j order. */
export function matmul(A, B, n, k, m, out = new Float32Array(n * m)) {
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < k; p++) {
      const a = A[i * k + p];
      if (a === 0) continue;
      for (let j = 0; j < m; j++) out[i * m + j] += a * B[p * m + j];
    }
  }
  return out;
}

/** The article's self-attention: X (n×d) with Wq, Wk, Wv (d×dk), unscaled. Every intermediate. */
export function selfAttention(X, Wq, Wk, Wv, n, d, dk) {
  const Q = matmul(X, Wq, n, d, dk), K = matmul(X, Wk, n, d, dk), V = matmul(X, Wv, n, d, dk);
  return { Q, K, V, ...attend(Q, K, V, n, dk, 1) };
}

/**
 * wasm/model.c in JavaScript: embedding + sinusoidal positions -> one causal head with a residual
 * -> logits -> softmax cross-entropy; hand-written backward; plain SGD. Parameters start as the
 * given copies (from a qkv-lab model, so that the first losses can be compared).
 */
export class PlainModel {
  constructor({ V, d, L, lr, params, positions }) {
    Object.assign(this, { V, d, L, lr });
    this.p = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Float32Array.from(v)]));
    this.g = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, new Float32Array(v.length)]));
    this.pos = Float32Array.from(positions);
    const f = (n) => new Float32Array(n);
    this.a = { X: f(L * d), Q: f(L * d), K: f(L * d), Vv: f(L * d), W: f(L * L), att: f(L * d), h: f(L * d), probs: f(L * V) };
    this.b = { dlogits: f(L * V), dh: f(L * d), dX: f(L * d), dQ: f(L * d), dK: f(L * d), dV: f(L * d), dW: f(L * L) };
  }

  /** One SGD step on a batch of sentences (arrays of token ids, without <s>); returns the mean loss. */
  step(batch) {
    for (const g of Object.values(this.g)) g.fill(0);
    const predicted = batch.reduce((s, x) => s + x.length + 1, 0);
    let total = 0;
    for (const sentence of batch) total += this.sentence([0, ...sentence], [...sentence, 0], 1 / predicted);
    for (const [k, p] of Object.entries(this.p)) {
      const g = this.g[k];
      for (let i = 0; i < p.length; i++) p[i] -= this.lr * g[i];
    }
    return total / predicted;
  }

  sentence(inputs, targets, weight) {
    const { V, d } = this, n = inputs.length, { p, g, a, b } = this;
    const s = Math.sqrt(d);
    // X = wte[inputs] + pos; Q, K, Vv = X·W
    for (let t = 0; t < n; t++) for (let i = 0; i < d; i++) a.X[t * d + i] = p.wte[inputs[t] * d + i] + this.pos[t * d + i];
    for (const [out, W] of [[a.Q, p.Wq], [a.K, p.Wk], [a.Vv, p.Wv]]) {
      out.fill(0, 0, n * d);
      matmul(a.X, W, n, d, d, out);
    }
    // causal attention, h = X + att, logits = h·Wout + bout, probs, loss
    a.att.fill(0, 0, n * d);
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let q = 0; q < d; q++) dot += a.Q[i * d + q] * a.K[j * d + q];
        a.W[i * n + j] = dot / s;
        if (a.W[i * n + j] > max) max = a.W[i * n + j];
      }
      let sum = 0;
      for (let j = 0; j <= i; j++) sum += (a.W[i * n + j] = Math.exp(a.W[i * n + j] - max));
      for (let j = 0; j < n; j++) a.W[i * n + j] = j <= i ? a.W[i * n + j] / sum : 0;
      for (let j = 0; j <= i; j++) for (let q = 0; q < d; q++) a.att[i * d + q] += a.W[i * n + j] * a.Vv[j * d + q];
    }
    for (let i = 0; i < n * d; i++) a.h[i] = a.X[i] + a.att[i];
    let loss = 0;
    for (let t = 0; t < n; t++) {
      const row = a.probs.subarray(t * V, (t + 1) * V);
      row.set(p.bout);
      for (let q = 0; q < d; q++) {
        const x = a.h[t * d + q];
        for (let j = 0; j < V; j++) row[j] += x * p.Wout[q * V + j];
      }
      let max = -Infinity;
      for (let j = 0; j < V; j++) if (row[j] > max) max = row[j];
      let sum = 0;
      for (let j = 0; j < V; j++) sum += Math.exp(row[j] - max);
      loss += max + Math.log(sum) - row[targets[t]];
      for (let j = 0; j < V; j++) row[j] = Math.exp(row[j] - max) / sum;
    }
    // backward: dlogits = weight (probs - onehot)
    for (let t = 0; t < n; t++) {
      for (let j = 0; j < V; j++) b.dlogits[t * V + j] = weight * (a.probs[t * V + j] - (j === targets[t] ? 1 : 0));
    }
    // logits = h·Wout + bout: dWout += hᵀ·dlogits, dbout += Σ dlogits, dh = dlogits·Woutᵀ
    b.dh.fill(0, 0, n * d);
    for (let t = 0; t < n; t++) {
      for (let q = 0; q < d; q++) {
        const x = a.h[t * d + q];
        let sum = 0;
        for (let j = 0; j < V; j++) {
          const dl = b.dlogits[t * V + j];
          g.Wout[q * V + j] += x * dl;
          sum += dl * p.Wout[q * V + j];
        }
        b.dh[t * d + q] = sum;
      }
      for (let j = 0; j < V; j++) g.bout[j] += b.dlogits[t * V + j];
    }
    // h = X + att; att = attention(Q, K, Vv)
    b.dX.set(b.dh.subarray(0, n * d));
    b.dQ.fill(0, 0, n * d); b.dK.fill(0, 0, n * d); b.dV.fill(0, 0, n * d);
    for (let i = 0; i < n; i++) {
      let dot = 0;
      for (let j = 0; j <= i; j++) {
        let dw = 0;
        for (let q = 0; q < d; q++) {
          dw += b.dh[i * d + q] * a.Vv[j * d + q];
          b.dV[j * d + q] += a.W[i * n + j] * b.dh[i * d + q];
        }
        b.dW[i * n + j] = dw;
        dot += dw * a.W[i * n + j];
      }
      for (let j = 0; j <= i; j++) {
        const dz = a.W[i * n + j] * (b.dW[i * n + j] - dot) / s;
        for (let q = 0; q < d; q++) {
          b.dQ[i * d + q] += dz * a.K[j * d + q];
          b.dK[j * d + q] += dz * a.Q[i * d + q];
        }
      }
    }
    // Q = X·Wq etc.: dW += Xᵀ·dQ, dX += dQ·Wᵀ
    for (const [dY, W, dWt] of [[b.dQ, p.Wq, g.Wq], [b.dK, p.Wk, g.Wk], [b.dV, p.Wv, g.Wv]]) {
      for (let t = 0; t < n; t++) {
        for (let r = 0; r < d; r++) {
          const x = a.X[t * d + r];
          let sum = 0;
          for (let c = 0; c < d; c++) {
            dWt[r * d + c] += x * dY[t * d + c];
            sum += dY[t * d + c] * W[r * d + c];
          }
          b.dX[t * d + r] += sum;
        }
      }
    }
    for (let t = 0; t < n; t++) for (let q = 0; q < d; q++) g.wte[inputs[t] * d + q] += b.dX[t * d + q];
    return loss;
  }
}
