// models/scaling.js: the numbers of the section "Why divide by √d_k", a pure function of the seed
// and d_k computed with the WebAssembly API, and the source (section-shell.js) that recomputes
// them when the reader moves the d_k slider or the seed changes. No DOM here.
//
//   const data = scalingModel(qkv, draws(qkv, 42), 64);
//
// Dimensions: N_Q = 32 random queries and N_K = 64 random keys, every entry from N(0, 1)
// (rng(seed).randn, numpy's stream), of width d_k = the first d_k of 512 columns drawn once: so a
// larger d_k adds components to the same vectors instead of drawing new ones. Every q·k of
// Q·Kᵀ (32 × 64 = 2048 of them) goes into the histogram; the softmax panel takes every query
// against the first ROW_KEYS keys, shows query 0's row and averages over the 32.
import { Matrix } from '../../matrix.js';

export const SCALING_QUERIES = 32;
export const SCALING_KEYS = 64;
export const SCALING_MAX_DK = 512;
/** The keys one softmax row is taken over (query 0 against keys 0 … 15). */
export const ROW_KEYS = 16;
/** The d_k slider's stops, 1 … 512: every width up to 16, then about 25% apart. */
export const SCALING_DKS = Object.freeze([...Array.from({ length: 16 }, (_, i) => i + 1),
  20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512]);
export const DEFAULT_SCALING_DK = 64;
/** The histogram's bins: width 2 from −70 to 70 (3 standard deviations of q·k at d_k = 512 is 68). */
export const HISTOGRAM = Object.freeze({ min: -70, max: 70, width: 2 });

/** The seed's draws, once: Q (32 × 512) then K (64 × 512) from one generator. */
export function draws(qkv, seed) {
  const rng = qkv.rng(seed);
  return { seed, Q: rng.randn(SCALING_QUERIES, SCALING_MAX_DK), K: rng.randn(SCALING_KEYS, SCALING_MAX_DK) };
}

/** The first `cols` columns of M (rows × cols), as a Matrix: a slice, no arithmetic. */
function firstColumns(M, cols, rows = M.rows) {
  const out = new Matrix(rows, cols);
  for (let i = 0; i < rows; i++) out.data.set(M.data.subarray(i * M.cols, i * M.cols + cols), i * cols);
  return out;
}

/** Counts of values per HISTOGRAM bin (values beyond the ends count in the end bins). */
function histogram(values) {
  const { min, max, width } = HISTOGRAM;
  const counts = new Array(Math.round((max - min) / width)).fill(0);
  for (const x of values) counts[Math.max(0, Math.min(counts.length - 1, Math.floor((x - min) / width)))]++;
  return counts;
}

/** Mean and standard deviation of the entries of S (float32 values, summed in float64 here). */
function spread(S) {
  let sum = 0, squares = 0;
  for (const x of S.data) { sum += x; squares += x * x; }
  const N = S.data.length, mean = sum / N;
  return { mean, std: Math.sqrt(Math.max(0, squares / N - mean * mean)) };
}

/** A row whose largest weight is above this is called collapsed (nearly one-hot). */
export const COLLAPSED = 0.99;

/**
 * One softmax row w (weights the core computed) and what it does to gradients: the largest
 * weight, the entropy −Σ w ln w (ln ROW_KEYS when uniform, 0 when one-hot), and the size
 * (Frobenius norm) of the softmax's Jacobian ∂w_i/∂z_j = w_i (δ_ij − w_j), through which every
 * gradient reaches the scores: 0 for a one-hot row, larger the more evenly the row is spread.
 * Summaries in float64, here.
 */
function rowStats(w) {
  let squares = 0;
  for (let i = 0; i < w.length; i++) {
    for (let j = 0; j < w.length; j++) squares += (w[i] * ((i === j ? 1 : 0) - w[j])) ** 2;
  }
  const entropy = w.reduce((sum, x) => (x > 0 ? sum - x * Math.log(x) : sum), 0);
  return { weights: w, max: Math.max(...w), entropy, jacobian: Math.sqrt(squares) };
}

/** rowStats of every row of W, their means, and how many rows collapsed. */
function rowsStats(W) {
  const rows = Array.from({ length: W.rows }, (_, i) => rowStats(W.row(i)));
  const mean = (key) => rows.reduce((sum, r) => sum + r[key], 0) / rows.length;
  return {
    first: rows[0],
    mean: { max: mean('max'), entropy: mean('entropy'), jacobian: mean('jacobian') },
    collapsed: rows.filter((r) => r.max > COLLAPSED).length,
  };
}

/** Everything the section shows for d_k (one of SCALING_DKS, or any 1 … 512). */
export function scalingModel(qkv, drawn, dk) {
  const Q = firstColumns(drawn.Q, dk), K = firstColumns(drawn.K, dk);
  const none = new Matrix(SCALING_KEYS, 1);
  const scores = qkv.attend(Q, K, none, { scale: false }).scores;          // (32, dk) × (dk, 64)
  const root = Math.sqrt(dk);
  const scaled = scores.scale(1 / root);
  // every query against keys 0 … 15, unscaled and divided by √d_k: row 0 is shown, all 32 averaged
  const k16 = firstColumns(K, dk, ROW_KEYS), none16 = new Matrix(ROW_KEYS, 1);
  const rowRaw = qkv.attend(Q, k16, none16, { scale: false });                // (32, dk) × (dk, 16)
  const rowScaled = qkv.attend(Q, k16, none16, { scale: true });
  const shown = Math.min(dk, 8);
  return {
    seed: drawn.seed, dk, root,
    /** the first entries of q_0 and k_0 (at most 8), and q_0 · k_0 */
    sample: { q: Array.from(Q.data.subarray(0, shown)), k: Array.from(K.data.subarray(0, shown)), dot: scores.data[0], more: dk - shown },
    count: scores.data.length,
    raw: { ...spread(scores), counts: histogram(scores.data) },
    scaled: { ...spread(scaled), counts: histogram(scaled.data) },
    /** the table the page shows: [[mean, std] of q·k, [mean, std] of q·k / √d_k] */
    get spread() {
      return new Matrix(2, 2, [this.raw.mean, this.raw.std, this.scaled.mean, this.scaled.std]);
    },
    /** softmax over keys 0 … 15: .first is query 0's row (shown), .mean the averages over the 32 */
    row: {
      unscaled: rowsStats(rowRaw.weights),
      scaled: rowsStats(rowScaled.weights),
      uniformEntropy: Math.log(ROW_KEYS),
    },
  };
}

/**
 * The section's source: get() → the numbers for the state's seed and sdk; subscribe(fn) → off;
 * recomputed when either changes (the draws only when the seed does).
 */
export function scalingSource(ctx) {
  const { qkv, state } = ctx;
  let drawn = draws(qkv, state.get('seed'));
  let data = scalingModel(qkv, drawn, state.get('sdk'));
  const subscribers = new Set();
  const off = state.onChange((name) => {
    if (name !== 'seed' && name !== 'sdk') return;
    if (drawn.seed !== state.get('seed')) drawn = draws(qkv, state.get('seed'));
    data = scalingModel(qkv, drawn, state.get('sdk'));
    for (const fn of [...subscribers]) fn(data);
  });
  return {
    get: () => data,
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    destroy() {
      off();
      subscribers.clear();
    },
  };
}
