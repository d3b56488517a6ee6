// models/attention.js: the page's model layer. Pure functions from settings (seed, sentence,
// switches, edited cells) to the numbers every section draws. All arithmetic goes through the
// WebAssembly API (qkv.rng, matmul, transpose, softmaxRows, attend, selfAttention); no DOM here.
//
// Dimensions: n tokens, d = 4 model width, d_k head width (3 as in the article; 2 to 4 with the
// `dk` setting), V vocabulary size.
import { Matrix } from '../../matrix.js';

/** The vocabulary sentences are built from. The first three rows are the article's example. */
export const VOCABULARY = ['我', 'love', '猫', '狗', '兔', '汽车', '爱', '养了', '一只', '在', '叫', '很', '可爱', '开', '快'];
export const DEFAULT_SENTENCE = '我 love 猫';
export const MAX_TOKENS = 6;
/** Sentences offered in the picker (any words from VOCABULARY work through the URL too). */
export const SENTENCES = ['我 love 猫', '我 爱 猫', '我 养了 一只 兔', '一只 狗 在 叫', '猫 很 可爱', '我 开 汽车 很 快'];

export const D_MODEL = 4;
export const D_K = 3;              // the article's head width (the `dk` setting's default)
export const D_K_CHOICES = Object.freeze([2, 3, 4]);
export const WEIGHT_SCALE = 0.3;   // Wq, Wk, Wv = randn(4, 3) × 0.3, as in the article
export const TABLE_SCALE = 0.5;    // the other words' embedding rows = randn × 0.5
export const POSITION_SCALE = 0.1; // learned-style position vectors = randn × 0.1

/** The article's X rows, kept as the embedding rows of 我, love and 猫. */
const ARTICLE_ROWS = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];

/** Stage-by-stage shapes of the data flow (the flow section). */
export function flowShapes(n, d = D_MODEL, dk = D_K) {
  return { ids: [n], X: [n, d], QKV: [n, dk], S: [n, n], A: [n, n], O: [n, dk] };
}

/**
 * The random numbers for a seed, in a fixed order on one numpy-compatible stream:
 * Wq, Wk, Wv (the article's three draws, so seed 42 gives its numbers), then the embedding rows
 * of the words beyond the article's three, then the position vectors, then W_out (d_k × V). With d_k ≠ 3 the three W
 * are randn(4, d_k), and the table and positions come from the same stream restarted and moved on
 * past three 4×3 draws, where they are for d_k = 3: a word's embedding does not depend on d_k.
 * One randn call draws each stream's numbers at once (numpy's stream is the same whether drawn
 * at once or in pieces): two WebAssembly calls for d_k = 3, four otherwise.
 */
export function drawParameters(qkv, seed, dk = D_K) {
  const others = VOCABULARY.length - ARTICLE_ROWS.length;
  const w = 3 * D_MODEL * dk, skip = dk === D_K ? 0 : 3 * D_MODEL * D_K;
  const restCount = others * D_MODEL + MAX_TOKENS * D_MODEL + dk * VOCABULARY.length;
  const all = qkv.rng(seed).randn(1, dk === D_K ? w + restCount : w);
  const rest = dk === D_K ? all : qkv.rng(seed).randn(1, skip + restCount);
  let at = 0, restAt = dk === D_K ? w : skip;
  const take = (rows, cols, k) => new Matrix(rows, cols, all.data.subarray(at, at += rows * cols)).scale(k);
  const takeRest = (rows, cols, k) =>
    new Matrix(rows, cols, rest.data.subarray(restAt, restAt += rows * cols)).scale(k);
  const Wq = take(D_MODEL, dk, WEIGHT_SCALE);
  const Wk = take(D_MODEL, dk, WEIGHT_SCALE);
  const Wv = take(D_MODEL, dk, WEIGHT_SCALE);
  const table = new Matrix(VOCABULARY.length, D_MODEL);
  table.data.set(ARTICLE_ROWS.flat(), 0);
  table.data.set(takeRest(others, D_MODEL, TABLE_SCALE).data, ARTICLE_ROWS.length * D_MODEL);
  const positions = takeRest(MAX_TOKENS, D_MODEL, POSITION_SCALE);
  // an output projection for the flow section's last stage (untrained; drawn last, so nothing moves)
  const Wout = takeRest(dk, VOCABULARY.length, WEIGHT_SCALE);
  return { Wq, Wk, Wv, table, positions, Wout };
}

export function oneHot(indices, size) {
  const m = new Matrix(indices.length, size);
  indices.forEach((k, i) => { m.data[i * size + k] = 1; });
  return m;
}

/**
 * Token ids → X: one-hot(ids) · table (+ one-hot(positions) · position table when pos is on).
 * The look-up written as a matrix product, as the article explains it: one product of stacked
 * one-hot rows with the stacked tables gives the word rows, the position rows and their sum.
 */
export function embed(qkv, words, params, pos) {
  const ids = words.map((w) => VOCABULARY.indexOf(w));
  const n = words.length, V = VOCABULARY.length;
  const hot = oneHot(ids, V);                                        // (n, V)
  // [hot 0; 0 posHot; hot posHot] (2n or 3n, V + P) × [table; positions] (V + P, d)
  const blocks = pos ? 3 : 2;
  const stacked = new Matrix(blocks * n, V + MAX_TOKENS);
  for (let i = 0; i < n; i++) {
    stacked.data[i * (V + MAX_TOKENS) + ids[i]] = 1;                 // word rows
    stacked.data[(n + i) * (V + MAX_TOKENS) + V + i] = 1;            // position rows
    if (pos) {
      stacked.data[(2 * n + i) * (V + MAX_TOKENS) + ids[i]] = 1;     // their sum
      stacked.data[(2 * n + i) * (V + MAX_TOKENS) + V + i] = 1;
    }
  }
  const tables = new Matrix(V + MAX_TOKENS, D_MODEL);
  tables.data.set(params.table.data, 0);
  tables.data.set(params.positions.data, V * D_MODEL);
  const product = qkv.matmul(stacked, tables);                       // (blocks·n, d)
  const block = (b) => new Matrix(n, D_MODEL, product.data.subarray(b * n * D_MODEL, (b + 1) * n * D_MODEL)).clone();
  const rows = block(0);
  const posRows = block(1);
  const X = pos ? block(2) : rows;
  return { ids, hot, rows, posRows, X };
}

/** m with the reader's edited cells [[i, j, value], …] written over a copy (or m itself, replaced). */
function withEdits(m, cells) {
  if (!cells) return m;
  if (!Array.isArray(cells)) return cells;   // a whole Matrix
  if (!cells.length) return m;
  const out = m.clone();
  for (const [i, j, value] of cells) if (i < out.rows && j < out.cols) out.data[i * out.cols + j] = value;
  return out;
}

/**
 * Everything the sections draw for one setting. overrides holds what the reader edited:
 * { X, Wq, Wk, Wv }, each a list of cells [[i, j, value], …] written over the drawn values
 * (or a whole Matrix that replaces them). Five WebAssembly calls for the article's d_k (seed,
 * randn, the embedding product, self-attention, the scaled attention; seven for another d_k), all
 * within the API's reused scratch memory: nothing is allocated on the WASM heap.
 */
export function computeSnapshot(qkv, settings, overrides = {}) {
  const { seed, sentence, scale, pos, dk = D_K } = settings;
  const words = sentence.split(' ');
  const params = drawParameters(qkv, seed, dk);
  const embedding = embed(qkv, words, params, pos);
  const X = withEdits(embedding.X, overrides.X);
  const Wq = withEdits(params.Wq, overrides.Wq);
  const Wk = withEdits(params.Wk, overrides.Wk);
  const Wv = withEdits(params.Wv, overrides.Wv);
  const edited = Object.fromEntries(Object.entries(overrides).filter(([, cells]) => cells && (!Array.isArray(cells) || cells.length)));
  const unscaled = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  const scaled = qkv.attend(unscaled.Q, unscaled.K, unscaled.V, { scale: true });
  const chosen = scale ? scaled : unscaled;
  return {
    seed, words, scale, pos, n: words.length, d: D_MODEL, dk,
    table: params.table, positions: params.positions, Wout: params.Wout, embedding,
    X, Wq, Wk, Wv, edited,
    Q: unscaled.Q, K: unscaled.K, V: unscaled.V,
    scores: unscaled.scores,                 // raw Q·Kᵀ
    weights: chosen.weights,                 // softmax(scores / s), s = √d_k or 1
    output: chosen.output,
    weightsUnscaled: unscaled.weights, weightsScaled: scaled.weights,
    divisor: scale ? Math.sqrt(dk) : 1,
  };
}

/** a·b written out: each product a_k·b_k and the running sums, both from WASM products. */
export function dotTerms(qkv, a, b) {
  const k = a.length;
  const diag = new Matrix(k, k);
  a.forEach((x, i) => { diag.data[i * k + i] = x; });
  const products = qkv.matmul(diag, new Matrix(k, 1, b));           // (k,k) × (k,1): a_i·b_i
  const lower = new Matrix(k, k);
  for (let i = 0; i < k; i++) for (let j = 0; j <= i; j++) lower.data[i * k + j] = 1;
  const running = qkv.matmul(lower, products);                      // cumulative sums
  return { a: [...a], b: [...b], products: Array.from(products.data), running: Array.from(running.data) };
}

export function column(M, j) {
  const out = [];
  for (let i = 0; i < M.rows; i++) out.push(M.data[i * M.cols + j]);
  return out;
}

/** Row sums of M (each softmax row should give 1): M · 1. */
export function rowSums(qkv, M) {
  return Array.from(qkv.matmul(M, new Matrix(M.cols, 1, new Float32Array(M.cols).fill(1))).data);
}

/**
 * Output row i as a mix of V's rows: contributions[j] = w_ij · V_j (diag(w_i) · V), and their
 * sum, the output row (w_i · V).
 */
export function mixRow(qkv, weights, V, i) {
  const w = weights.row(i);
  const n = w.length;
  const diag = new Matrix(n, n);
  w.forEach((x, j) => { diag.data[j * n + j] = x; });
  const contributions = qkv.matmul(diag, V);                          // (n,n) × (n,d_k)
  const output = qkv.matmul(new Matrix(1, n, w), V);                  // (1,n) × (n,d_k)
  return { weights: w, contributions, output: output.row(0) };
}

/**
 * The article's experiment: 我's query replaced by pull × 我's key. Returns 我's attention row
 * unscaled and scaled by √d_k (the article's 0.695 / 0.169 / 0.136 is the scaled one at pull 5).
 */
export function pullExperiment(qkv, snap, pull, row = 0) {
  const { Q, K, V } = snap;
  const pulledRow = qkv.matmul(new Matrix(1, 1, [pull]), new Matrix(1, K.cols, K.row(row)));
  const Qp = Q.clone();
  Qp.data.set(pulledRow.data, row * Q.cols);
  const unscaled = qkv.attend(Qp, K, V, { scale: false });
  const scaled = qkv.attend(Qp, K, V, { scale: true });
  return {
    query: pulledRow.row(0),
    scores: unscaled.scores.row(row),
    unscaled: unscaled.weights.row(row),
    scaled: scaled.weights.row(row),
  };
}

/** symmetry: the scores when Q = K = X (symmetric) next to the real ones. */
export function symmetricScores(qkv, snap) {
  const scores = qkv.matmul(snap.X, qkv.transpose(snap.X));            // (n,d) × (d,n)
  const weights = qkv.softmaxRows(scores);
  return { scores, weights };
}

/** What Q × K (no transpose) gives: the API's own error, or the product when shapes happen to fit. */
export function tryQTimesK(qkv, Q, K) {
  try {
    return { ok: true, product: qkv.matmul(Q, K) };
  } catch (error) {
    return { ok: false, message: error.message };
  }
}
