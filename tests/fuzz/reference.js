// reference.js: float64 references for every computing entry point, with a bound on how far a
// correct float32 result may be from them. Used by the WASM fuzzer (tests/fuzz/wasm-harness.js)
// and the property tests of the JavaScript API (tests/api-properties.test.js).
//
// Inputs are flat row-major arrays of float32 values (what the C side sees). Every function
// returns { value, tol, absMax }: value the float64 result, tol a per-entry bound on
// |float32 − value|, absMax the largest Σ|term| of any entry: where it nears float32's max, a
// float32 partial sum may overflow although the exact result is finite.
//
// Why these bounds: a float32 dot product of k terms computed in any order is within
// γ_k·Σ|a_i b_i| of the exact one, γ_k = k·u/(1 − k·u), u = 2^-24 (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1); storing the result adds u·|c|; products of
// subnormals can lose up to 2^-149 each. Softmax is 2-Lipschitz from scores (∞-norm) to each
// weight, so an error Δz in the scaled scores moves a weight by at most 2·Δz, plus the few ulps
// of expf and the normalisation. Bounds are doubled for margin: they are meant to catch wrong
// results (a transposed index, a missing term, uninitialised memory), never ulp differences
// between summation orders (the SIMD build sums in another order than the scalar one).

const U = 2 ** -24;
const TINY = 2 ** -149;
const gamma = (k) => (k * U) / (1 - k * U);

/** out (n×m) = A (n×k) · B (k×m) */
export function matmul(A, B, n, k, m) {
  const value = new Float64Array(n * m), tol = new Float64Array(n * m);
  let absMax = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let sum = 0, abs = 0;
      for (let p = 0; p < k; p++) {
        const t = A[i * k + p] * B[p * m + j];
        sum += t;
        abs += Math.abs(t);
      }
      value[i * m + j] = sum;
      tol[i * m + j] = 2 * (gamma(k) * abs + U * Math.abs(sum) + k * TINY);
      absMax = Math.max(absMax, abs);
    }
  }
  return { value, tol, absMax };
}

/** out (cols×rows) = Aᵀ: exact */
export function transpose(A, rows, cols) {
  const value = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) value[j * rows + i] = A[i * cols + j];
  return { value, tol: new Float64Array(rows * cols), absMax: 0 };
}

/**
 * Row softmax of Z, with a per-entry bound dz on the error already in Z (0 for exact inputs).
 * -Infinity entries get weight 0. Returns null for a row with no finite entry.
 */
export function softmaxRows(Z, rows, cols, dz = null) {
  const value = new Float64Array(rows * cols), tol = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let max = -Infinity, dzMax = 0;
    for (let j = 0; j < cols; j++) {
      max = Math.max(max, Z[i * cols + j]);
      if (dz) dzMax = Math.max(dzMax, dz[i * cols + j]);
    }
    if (!Number.isFinite(max)) return null;
    let sum = 0;
    for (let j = 0; j < cols; j++) {
      const z = Z[i * cols + j];
      const e = z === -Infinity ? 0 : Math.exp(z - max);
      value[i * cols + j] = e;
      sum += e;
    }
    for (let j = 0; j < cols; j++) {
      const w = (value[i * cols + j] /= sum);
      // expf, the float32 subtraction z − max and the normalisation: a few ulps of w, plus the
      // absolute error of entries that underflow; the error carried in from Z
      tol[i * cols + j] = 2 * (16 * U * w + 1e-7 + 2 * dzMax);
    }
  }
  return { value, tol, absMax: 1 };
}

/**
 * Attention: scores (n_q×n_k) = Q·Kᵀ, weights = softmax(mask(scores / scale)),
 * output (n_q×d_v) = weights·V. Returns { scores, weights, output } of { value, tol }.
 */
export function attention(Q, K, V, nq, nk, dk, dv, scale, causal) {
  const scores = { value: new Float64Array(nq * nk), tol: new Float64Array(nq * nk), absMax: 0 };
  const z = new Float64Array(nq * nk), dz = new Float64Array(nq * nk);
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nk; j++) {
      let sum = 0, abs = 0;
      for (let p = 0; p < dk; p++) {
        const t = Q[i * dk + p] * K[j * dk + p];
        sum += t;
        abs += Math.abs(t);
      }
      const at = i * nk + j;
      scores.value[at] = sum;
      scores.tol[at] = 2 * (gamma(dk) * abs + U * Math.abs(sum) + dk * TINY);
      scores.absMax = Math.max(scores.absMax, abs, abs / scale);  // the scaled score must fit too
      z[at] = causal && j > i ? -Infinity : sum / scale;
      // the division by a float32 scale rounds once more
      dz[at] = scores.tol[at] / scale + 2 * U * Math.abs(sum / scale);
    }
  }
  const weights = softmaxRows(z, nq, nk, dz);
  const output = { value: new Float64Array(nq * dv), tol: new Float64Array(nq * dv), absMax: 0 };
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < dv; j++) {
      let sum = 0, abs = 0, carried = 0;
      for (let p = 0; p < nk; p++) {
        const w = weights.value[i * nk + p], v = V[p * dv + j];
        sum += w * v;
        abs += Math.abs(w * v);
        carried += weights.tol[i * nk + p] * Math.abs(v);
      }
      output.value[i * dv + j] = sum;
      output.tol[i * dv + j] = 2 * (gamma(nk) * abs + U * Math.abs(sum) + carried + nk * TINY);
      output.absMax = Math.max(output.absMax, abs);
    }
  }
  return { scores, weights, output };
}

/**
 * Reverses attention given its weights W (as the C side takes them) and d output:
 * dV += Wᵀ·dO, dW = dO·Vᵀ, dZ = W ⊙ (dW − rowsum(dW ⊙ W)), dS = dZ / scale (written),
 * dQ += dS·K, dK += dSᵀ·Q. dQ0, dK0, dV0 are the buffers' values before the call.
 */
export function attentionBackward(dO, Q, K, V, W, nq, nk, dk, dv, scale, dQ0, dK0, dV0) {
  const dW = new Float64Array(nq * nk), dWabs = new Float64Array(nq * nk);
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nk; j++) {
      let sum = 0, abs = 0;
      for (let p = 0; p < dv; p++) {
        const t = dO[i * dv + p] * V[j * dv + p];
        sum += t;
        abs += Math.abs(t);
      }
      dW[i * nk + j] = sum;
      dWabs[i * nk + j] = abs;
    }
  }
  const dS = { value: new Float64Array(nq * nk), tol: new Float64Array(nq * nk), absMax: 0 };
  // error of each float32 dW entry: rounding of its d_v-term sum, and products that underflow
  const dWerr = (at) => gamma(dv) * dWabs[at] + U * Math.abs(dW[at]) + dv * TINY;
  for (let i = 0; i < nq; i++) {
    let dot = 0, dotAbs = 0, dotCarried = 0;
    for (let j = 0; j < nk; j++) {
      const at = i * nk + j;
      dot += dW[at] * W[at];
      dotAbs += Math.abs(dW[at] * W[at]);
      dotCarried += Math.abs(W[at]) * dWerr(at);  // dW's own errors, carried into the dot
    }
    const dotErr = gamma(nk) * dotAbs + dotCarried + nk * TINY;
    for (let j = 0; j < nk; j++) {
      const at = i * nk + j;
      const w = W[at];
      const inner = dW[at] - dot;
      dS.value[at] = (w * inner) / scale;
      const innerErr = dWerr(at) + dotErr + U * (Math.abs(dW[at]) + Math.abs(dot));
      // w·inner (which may round to a subnormal, absolutely), then · (1/scale): 1/scale is
      // rounded to float32, only to 2^-149 when it is subnormal (scale > 2^126), and the result
      // itself may be subnormal (or round to 0)
      dS.tol[at] = 2 * ((Math.abs(w) * innerErr + 4 * U * Math.abs(w * inner) + 4 * TINY) / scale +
        Math.abs(w * inner) * TINY + TINY);
      // w·inner is formed before the division: it may overflow although dS would not
      const product = Math.abs(w) * (dWabs[at] + dotAbs);
      dS.absMax = Math.max(dS.absMax, dWabs[at], dotAbs, product, product / scale);
    }
  }
  const acc = (initial, rows, cols, term) => {
    const value = new Float64Array(rows * cols), tol = new Float64Array(rows * cols);
    let absMax = 0;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const { sum, abs, carried, k } = term(r, c);
        const at = r * cols + c;
        value[at] = initial[at] + sum;
        tol[at] = 2 * (gamma(k + 1) * (abs + Math.abs(initial[at])) + carried + U * Math.abs(value[at]) + k * TINY);
        absMax = Math.max(absMax, abs + Math.abs(initial[at]));
      }
    }
    return { value, tol, absMax };
  };
  const dV = acc(dV0, nk, dv, (j, c) => {
    let sum = 0, abs = 0;
    for (let i = 0; i < nq; i++) {
      sum += W[i * nk + j] * dO[i * dv + c];
      abs += Math.abs(W[i * nk + j] * dO[i * dv + c]);
    }
    return { sum, abs, carried: 0, k: nq };
  });
  const dQ = acc(dQ0, nq, dk, (i, c) => {
    let sum = 0, abs = 0, carried = 0;
    for (let j = 0; j < nk; j++) {
      sum += dS.value[i * nk + j] * K[j * dk + c];
      abs += Math.abs(dS.value[i * nk + j] * K[j * dk + c]);
      carried += dS.tol[i * nk + j] * Math.abs(K[j * dk + c]);
    }
    return { sum, abs, carried, k: nk };
  });
  const dK = acc(dK0, nk, dk, (j, c) => {
    let sum = 0, abs = 0, carried = 0;
    for (let i = 0; i < nq; i++) {
      sum += dS.value[i * nk + j] * Q[i * dk + c];
      abs += Math.abs(dS.value[i * nk + j] * Q[i * dk + c]);
      carried += dS.tol[i * nk + j] * Math.abs(Q[i * dk + c]);
    }
    return { sum, abs, carried, k: nq };
  });
  return { dQ, dK, dV, dscores: dS };
}

/**
 * Self-attention: Q = X·Wq, K = X·Wk, V = X·Wv (float32-rounded, as the C side stores them), then
 * attention. { overflow: true } when Q, K or V is beyond float32's range.
 */
export function selfAttention(X, Wq, Wk, Wv, n, d, dk, dv, scale, causal) {
  const Q = matmul(X, Wq, n, d, dk), K = matmul(X, Wk, n, d, dk), V = matmul(X, Wv, n, d, dv);
  // attention then runs on the stored float32 Q, K, V; their own rounding is in their tol
  const f32 = (m) => Float32Array.from(m.value);
  const q = f32(Q), k = f32(K), v = f32(V);
  if (![q, k, v].every((m) => m.every(Number.isFinite))) return { Q, K, V, overflow: true };
  const att = attention(q, k, v, n, n, dk, dv, scale, causal);
  // Q and K's errors move the scores by at most Σ (|ΔQ||K| + |Q||ΔK|): add it to the scores'
  // tolerance and carry it through softmax and the output, as attention() does for its own
  const widen = (i, j) => {
    let e = 0;
    for (let p = 0; p < dk; p++) {
      e += Q.tol[i * dk + p] * Math.abs(K.value[j * dk + p]) + Math.abs(Q.value[i * dk + p]) * K.tol[j * dk + p];
    }
    return e;
  };
  let extra = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const e = widen(i, j);
      att.scores.tol[i * n + j] += 2 * e;
      extra = Math.max(extra, e / scale);
    }
  }
  for (let at = 0; at < att.weights.tol.length; at++) att.weights.tol[at] += 4 * extra;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dv; j++) {
      let carried = 0;
      for (let p = 0; p < n; p++) {
        carried += 4 * extra * Math.abs(V.value[p * dv + j]) + att.weights.value[i * n + p] * V.tol[p * dv + j];
      }
      att.output.tol[i * dv + j] += 2 * carried;
    }
  }
  return { Q, K, V, ...att };
}

/**
 * Sinusoidal positional encoding (n×d): PE[p][2i] = sin(p / base^(2i/d)), PE[p][2i+1] =
 * cos(p / base^(2i/d)). The C side computes in double and rounds once to float32; its angles
 * p·base^(-2i/d) (p < 2^20) may differ from these in the last bits of a double, which moves an
 * entry by at most p·freq·|ln freq|·2^-50 < 2^-31: tol is a float32 rounding plus 2^-26.
 */
export function positionalEncoding(n, d, base) {
  const value = new Float64Array(n * d), tol = new Float64Array(n * d);
  const logBase = Math.log(base);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < d; i++) {
      const freq = Math.exp((-(i - (i % 2)) / d) * logBase);
      const v = i % 2 ? Math.cos(p * freq) : Math.sin(p * freq);
      value[p * d + i] = v;
      tol[p * d + i] = 2 * U * Math.abs(v) + 2 ** -26;
    }
  }
  return { value, tol, absMax: 1 };
}

/**
 * Multi-head self-attention: Wq, Wk, Wv (d×d_model), heads dividing d_model, d_k = d_model/heads.
 * Head h is selfAttention() on columns [h·d_k, (h+1)·d_k) of the weights (X·W's columns are X
 * times W's columns), and concat (n×d_model) their outputs side by side. { heads, concat }, or
 * { heads, overflow: true } when a head's Q, K or V is beyond float32. The output (concat·Wo)
 * is matmul() of the float32 concat the C side returned, to check it on its own.
 */
export function multiHeadAttention(X, Wq, Wk, Wv, n, d, dm, heads, scale, causal) {
  const dk = dm / heads;
  const slice = (W, h) => {
    const out = new Float32Array(d * dk);
    for (let r = 0; r < d; r++) for (let c = 0; c < dk; c++) out[r * dk + c] = W[r * dm + h * dk + c];
    return out;
  };
  const each = [];
  for (let h = 0; h < heads; h++) {
    const e = selfAttention(X, slice(Wq, h), slice(Wk, h), slice(Wv, h), n, d, dk, dk, scale, causal);
    each.push(e);
    if (e.overflow) return { heads: each, overflow: true };
  }
  const concat = { value: new Float64Array(n * dm), tol: new Float64Array(n * dm), absMax: 0 };
  each.forEach((e, h) => {
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < dk; c++) {
        concat.value[i * dm + h * dk + c] = e.output.value[i * dk + c];
        concat.tol[i * dm + h * dk + c] = e.output.tol[i * dk + c];
      }
    }
    concat.absMax = Math.max(concat.absMax, e.output.absMax);
  });
  return { heads: each, concat };
}

/**
 * The worst entry of actual against { value, tol }: null when every entry is within tol, else
 * { at, actual, expected, tol }. NaN and ±Infinity in actual always fail.
 */
export function compare(actual, { value, tol }) {
  for (let at = 0; at < value.length; at++) {
    const a = actual[at];
    if (!Number.isFinite(a) || !(Math.abs(a - value[at]) <= tol[at])) {
      return { at, actual: a, expected: value[at], tol: tol[at] };
    }
  }
  return null;
}
