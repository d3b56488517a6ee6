// gpt/block-model.js: the numbers of the block section, one pre-LN GPT-2 block on a short line,
// computed by the WebAssembly API (qkv.rng, qkv.transformerBlock) once per change of its
// settings. No DOM here.
//
// Dimensions: n tokens (the characters of BLOCK_LINE), d the block's width, H heads of
// d_k = d / H, h = 4d the feed-forward width.
//
// The weights are random draws from one seeded stream, at scales that keep every stage readable
// (an untrained block: the point is the path, not what it has learned). The two intermediate rows
// LayerNorm does not hand back, x̂ = (x − μ)·rstd before γ and β, come from the same block run
// again with that LayerNorm's γ = 1 and β = 0: the core computes them too.
import { Matrix } from '../../matrix.js';
import { BLOCK_LINE, BLOCK_KEYS } from './settings.js';

const GELU_POINTS = 81;
const GELU_RANGE = 4;   // the curve from −4 to 4

/** The parameters of each part of a block of width d (and h = 4d), as GPT-2 counts them. */
export function blockParameterCounts(d, hidden = 4 * d) {
  const ln = 2 * d;                      // γ, β
  const attn = 4 * d * d + 4 * d;        // Wq, Wk, Wv, Wo (d×d) and their biases
  const mlp = 2 * d * hidden + hidden + d;  // W1 (d×h), b1, W2 (h×d), b2
  return { ln1: ln, attn, ln2: ln, mlp, total: 2 * ln + attn + mlp };
}

/** Block weights for width d: { ln1, attn, ln2, mlp } in transformerBlock's form. */
function drawWeights(rng, d, hidden) {
  const m = (rows, cols, k) => rng.randn(rows, cols).scale(k);
  const ones = (k) => new Matrix(1, k, new Float32Array(k).fill(1));
  // γ = 1 + 0.2·N(0, 1), β = 0.1·N(0, 1): not the identity, so that the γβ step shows something
  const gammaOf = (k) => { const g = m(1, k, 0.2); for (let j = 0; j < k; j++) g.data[j] += 1; return g; };
  const s = 1 / Math.sqrt(d);
  return {
    ln1: { gamma: gammaOf(d), beta: m(1, d, 0.1) },
    attn: {
      Wq: m(d, d, s), Wk: m(d, d, s), Wv: m(d, d, s), bq: m(1, d, 0.1), bk: m(1, d, 0.1), bv: m(1, d, 0.1),
      Wo: m(d, d, s), bo: m(1, d, 0.1),
    },
    ln2: { gamma: gammaOf(d), beta: m(1, d, 0.1) },
    mlp: { W1: m(d, hidden, s), b1: m(1, hidden, 0.1), W2: m(hidden, d, 1 / Math.sqrt(hidden)), b2: m(1, d, 0.1) },
    _ones: ones,
  };
}

/**
 * The GELU curve as the core computes it: a block whose second LayerNorm has γ = β = 0, so that
 * its FFN input is 0 and hidden = b1 = the grid; its gelu row is then GELU(grid).
 */
function geluCurve(qkv) {
  const d = 1, hidden = GELU_POINTS;
  const grid = new Float32Array(hidden);
  for (let j = 0; j < hidden; j++) grid[j] = -GELU_RANGE + (2 * GELU_RANGE * j) / (hidden - 1);
  const zero = (r, c) => new Matrix(r, c);
  const one = new Matrix(1, 1, new Float32Array([1]));
  const trace = qkv.transformerBlock(zero(1, d), {
    ln1: { gamma: one, beta: zero(1, 1) },
    attn: { Wq: zero(1, 1), Wk: zero(1, 1), Wv: zero(1, 1), bq: zero(1, 1), bk: zero(1, 1), bv: zero(1, 1), Wo: zero(1, 1), bo: zero(1, 1) },
    ln2: { gamma: zero(1, 1), beta: zero(1, 1) },
    mlp: { W1: zero(1, hidden), b1: new Matrix(1, hidden, grid), W2: zero(hidden, 1), b2: zero(1, 1) },
  }, { heads: 1 });
  return { x: Array.from(trace.hidden.data), y: Array.from(trace.gelu.data) };
}

let curveCache = null;

/**
 * computeBlock(qkv, { d, heads, token, seed }) → the block snapshot:
 * { chars, n, d, heads, dk, hidden, token, X, weights, trace, hat1, hat2, ln1, ln2 (row stats
 * { mean, rstd, variance } of the followed token), curve, counts }.
 */
export function computeBlock(qkv, { d, heads, token, seed }) {
  const chars = Array.from(BLOCK_LINE);
  const n = chars.length, hidden = 4 * d;
  const rng = qkv.rng(seed);
  const X = rng.randn(n, d);   // (n, d): random draws standing in for embedding + position rows (the page says so)
  const { _ones: ones, ...weights } = drawWeights(rng, d, hidden);
  const plain = { gamma: ones(d), beta: new Matrix(1, d) };
  const trace = qkv.transformerBlock(X, weights, { heads });
  const hat1 = qkv.transformerBlock(X, { ...weights, ln1: plain }, { heads }).ln1;   // x̂ of LN1
  const hat2 = qkv.transformerBlock(X, { ...weights, ln2: plain }, { heads }).ln2;   // x̂ of LN2
  const stats = (s) => {
    const mean = s.mean.data[token], rstd = s.rstd.data[token];
    // rstd = 1/√(σ² + ε): the variance the core used, read back from its rstd
    return { mean, rstd, variance: 1 / (rstd * rstd) - 1e-5 };
  };
  curveCache ||= geluCurve(qkv);
  return Object.freeze({
    chars, n, d, heads, dk: d / heads, hidden, token, X, weights, trace, hat1, hat2,
    ln1: stats(trace.ln1Stats), ln2: stats(trace.ln2Stats), curve: curveCache,
    counts: blockParameterCounts(d, hidden),
  });
}

/** A 1×k matrix: row i of m. */
export function rowOf(m, i) {
  return new Matrix(1, m.cols, m.data.slice(i * m.cols, (i + 1) * m.cols));
}

/**
 * The block section's data source (section-shell.js, defineSection's source): the snapshot for
 * the current settings, computed again when one of them changes.
 */
export function blockSource(ctx) {
  const settings = () => {
    const d = ctx.state.get('bdim');
    let heads = ctx.state.get('bheads');
    while (d % heads) heads--;
    return { d, heads, token: ctx.state.get('btok'), seed: ctx.state.get('seed') };
  };
  let snap = computeBlock(ctx.qkv, settings());
  const watchers = new Set();
  const off = ctx.state.onChange((name) => {
    if (!BLOCK_KEYS.includes(name)) return;
    snap = computeBlock(ctx.qkv, settings());
    for (const fn of [...watchers]) fn(snap);
  });
  return {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    destroy() { off(); watchers.clear(); },
  };
}
