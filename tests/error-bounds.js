// error-bounds.js: the float32 rounding error bound of attention's formulas against float64
// references, entry by entry, that every kernel build must meet (tests/simd.test.js in Node,
// tests/browser/api-csp.test.js for the relaxed-SIMD build in Chromium). The README's
// "Performance" states it.
import assert from 'node:assert/strict';

// With u = 2^-24 (float32's unit roundoff) and γ(k) = k·u / (1 − k·u), a float32 dot product of
// k terms, in any order of additions, with or without fused multiply-adds, is within
// γ(k)·Σ|a_p·b_p| of the exact one (Higham, "Accuracy and Stability of Numerical Algorithms",
// §3.1). The references are float64 computations from the same float32 inputs, exact to far
// below these bounds. For attention, entry by entry:
//   scores  |ŝ − s| ≤ Es = γ(d_k)·Σ_p |q_p·k_p|
//   z = s/scale, its row max m: |ẑ − z| ≤ Es/scale + u·|z| (the quotient's rounding), Δ = the row's largest
//   weights  w = exp(z − m) / Σ exp(z − m): relative error ≤ r_j/(1 − R) ... with
//            r_j = exp(2Δ + u·|z_j − m|)·(1 + ε_exp) − 1 (the shift by the max, itself off by Δ, and its
//            rounding), R the row's largest r, ε_exp = 4u for the polynomial exp (about 1 ulp, the README
//            says; 4 leaves room for its rounding steps), and (1 + u)² for 1/sum and the product,
//            plus 2^-125 absolute (exp flushes what is below 2^-126 to 0)
//   output  |ô − o| ≤ Σ_j |ŵ_j − w_j|·|v_j| + γ(n_k)·Σ_j |ŵ_j|·|v_j|
// Two builds that each meet the bound are within the sum of the two bounds of each other.
export const U = 2 ** -24;
export const gamma = (k) => (k * U) / (1 - k * U);

/** float64 attention from float32 inputs, with each entry's error bound. */
export function attentionBounds(Q, K, V, scale, causal) {
  const nq = Q.rows, nk = K.rows, dk = Q.cols, dv = V.cols;
  const s = new Float64Array(nq * nk), Es = new Float64Array(nq * nk), w = new Float64Array(nq * nk);
  const Ew = new Float64Array(nq * nk), o = new Float64Array(nq * dv), Eo = new Float64Array(nq * dv);
  for (let i = 0; i < nq; i++) {
    const width = causal ? Math.min(i + 1, nk) : nk;
    let m = -Infinity, delta = 0;
    for (let j = 0; j < nk; j++) {
      let dot = 0, abs = 0;
      for (let p = 0; p < dk; p++) {
        const x = Q.data[i * dk + p] * K.data[j * dk + p];
        dot += x;
        abs += Math.abs(x);
      }
      s[i * nk + j] = dot;
      Es[i * nk + j] = gamma(dk) * abs;
      if (j < width) {
        m = Math.max(m, dot / scale);
        delta = Math.max(delta, Es[i * nk + j] / scale + U * Math.abs(dot / scale));
      }
    }
    let sum = 0, R = 0;
    const r = new Float64Array(width);
    for (let j = 0; j < width; j++) {
      const z = s[i * nk + j] / scale;
      w[i * nk + j] = Math.exp(z - m);
      sum += w[i * nk + j];
      r[j] = Math.exp(2 * delta + U * Math.abs(z - m)) * (1 + 4 * U) - 1;
      R = Math.max(R, r[j]);
    }
    for (let j = 0; j < width; j++) {
      w[i * nk + j] /= sum;
      // + 2^-125: exp() flushes below 2^-126 to 0 (simd.h), and w may round to a subnormal
      Ew[i * nk + j] = w[i * nk + j] * ((1 + r[j]) / (1 - R) * (1 + U) ** 2 - 1) + 2 ** -125;
    }
    for (let c = 0; c < dv; c++) {
      let out = 0, spread = 0, abs = 0;
      for (let j = 0; j < width; j++) {
        const v = Math.abs(V.data[j * dv + c]);
        out += w[i * nk + j] * V.data[j * dv + c];
        spread += Ew[i * nk + j] * v;
        abs += (w[i * nk + j] + Ew[i * nk + j]) * v;
      }
      o[i * dv + c] = out;
      Eo[i * dv + c] = spread + gamma(nk) * abs;
    }
  }
  return { scores: [s, Es], weights: [w, Ew], output: [o, Eo] };
}

/** The largest |actual − reference| / bound (≤ 1: within the bound); masked weights must be 0. */
export function worstRatio(actual, [reference, bound], label, factor = 1) {
  let worst = 0;
  for (let i = 0; i < reference.length; i++) {
    const error = Math.abs(actual.data[i] - reference[i]);
    if (bound[i] === 0 && reference[i] === 0) {
      assert.equal(actual.data[i], 0, `${label}: entry ${i} must be exactly 0`);
      continue;
    }
    const ratio = error / (factor * bound[i]);
    if (!(ratio <= 1)) {
      assert.fail(`${label}: entry [${Math.floor(i / actual.cols)}][${i % actual.cols}] is ${actual.data[i]}, ` +
        `the float64 reference ${reference[i]}: off by ${error.toExponential(3)}, beyond the bound ${(factor * bound[i]).toExponential(3)}`);
    }
    worst = Math.max(worst, ratio);
  }
  return worst;
}

