// models/heads-positions.js: the numbers of the sections "Multi-head attention" and "Positional
// encoding", derived from the attention snapshot with the WebAssembly API (snapshot-derived.js
// calls these once per snapshot). No DOM here.
//
// Dimensions: n tokens, d = 4 model width (X's columns), D_MODEL_HEADS = 12 the projections'
// width shared by the heads, H heads (1 … 4, all dividing 12), d_k = 12 / H, d_out = 4; P = 32
// positions and a chosen width for the sinusoidal table's picture.
import { Matrix } from '../../matrix.js';
import { D_MODEL } from './attention.js';

/** Multi-head: the projections' width (Q = X·W_Q is n × 12) and the head counts offered. */
export const D_MODEL_HEADS = 12;
export const HEAD_COUNTS = Object.freeze([1, 2, 3, 4]);
export const DEFAULT_HEADS = 2;
export const HEAD_WEIGHT_SCALE = 1;     // W_Q, W_K, W_V = randn(4, 12): scores of about ±1 after √d_k
export const OUT_WEIGHT_SCALE = 0.3;    // W_O = randn(12, 4) × 0.3

/** Positional encoding: the picture's rows, its widths, and the base (the model's, the paper's). */
export const PE_POSITIONS = 32;
export const PE_WIDTHS = Object.freeze([4, 8, 16, 32, 64, 128]);
export const DEFAULT_PE_WIDTH = 64;
export const PE_BASE = 10000;
/** The offsets k and start positions p the section lists PE(p)·PE(p+k) for. */
export const PE_OFFSETS = Object.freeze([0, 1, 2, 3, 5, 8]);
export const PE_STARTS = Object.freeze([0, 4, 11, 20]);

/**
 * The heads' weights, from their own generator on the page's seed: W_Q, W_K, W_V (4 × 12) and
 * W_O (12 × 4), drawn in that order (np.random.seed(seed) then four randn calls).
 */
export function headWeights(qkv, seed) {
  const rng = qkv.rng(seed);
  const w = () => (HEAD_WEIGHT_SCALE === 1 ? rng.randn(D_MODEL, D_MODEL_HEADS) : rng.randn(D_MODEL, D_MODEL_HEADS).scale(HEAD_WEIGHT_SCALE));
  const Wq = w(), Wk = w(), Wv = w();
  return { Wq, Wk, Wv, Wo: rng.randn(D_MODEL_HEADS, D_MODEL).scale(OUT_WEIGHT_SCALE) };
}

/**
 * Multi-head attention of the snapshot's X for every head count: byHeads[H] is the API's result
 * { heads: [{ Q, K, V, scores, weights, output }], concat, output }, each head scaled by √d_k of its
 * own width. Q, K, V (n × 12) are the projections the heads cut up.
 */
export function multiHead(qkv, snap) {
  const W = headWeights(qkv, snap.seed);
  const byHeads = Object.fromEntries(HEAD_COUNTS.map((H) => [H, qkv.multiHeadAttention(snap.X, W, { heads: H })]));
  const d = snap.X.cols;
  return {
    W, byHeads,
    Q: qkv.matmul(snap.X, W.Wq), K: qkv.matmul(snap.X, W.Wk), V: qkv.matmul(snap.X, W.Wv),   // (n, 4) × (4, 12)
    /** the parameters, whatever the number of heads: W_Q, W_K, W_V (d × 12) and W_O (12 × d_out) */
    params: { projections: 3 * d * D_MODEL_HEADS, output: D_MODEL_HEADS * W.Wo.cols },
  };
}

/** The order the sentence is reordered to: reversed, or moved round by one if that reads the same. */
export function reordering(words) {
  const n = words.length;
  const reversed = Array.from({ length: n }, (_, p) => n - 1 - p);
  const same = (order) => order.every((i, p) => words[i] === words[p]);
  if (!same(reversed)) return reversed;
  const rotated = Array.from({ length: n }, (_, p) => (p + 1) % n);
  return rotated;
}

/** Rows of M in the given order (a reordering, no arithmetic). */
function rowsInOrder(M, order) {
  const out = new Matrix(order.length, M.cols);
  order.forEach((i, p) => out.data.set(M.data.subarray(i * M.cols, (i + 1) * M.cols), p * M.cols));
  return out;
}

/**
 * How far B is from A's rows reordered: max over p, j of |A[order[p]][j] − B[p][j]| (0 when
 * reordering the input only reordered the output).
 */
function reorderGap(A, B, order) {
  let gap = 0;
  order.forEach((i, p) => {
    for (let j = 0; j < A.cols; j++) gap = Math.max(gap, Math.abs(A.data[i * A.cols + j] - B.data[p * B.cols + j]));
  });
  return gap;
}

/**
 * The positional-encoding section. The sentence's word rows E (the embedding table's rows, no
 * position, no edits of X) and the same words in another order; self-attention of each with the
 * page's W_Q, W_K, W_V and √d_k switch, without positions and with X = E + PE (PE the sinusoidal
 * table for n positions and width 4, added by position: the reordered sentence's first word gets
 * PE(0) wherever it stood before). E + PE is one product: [E | PE] · [I; I].
 */
export function positions(qkv, snap) {
  const { n } = snap;
  const order = reordering(snap.words);
  const E = snap.embedding.rows, Eo = rowsInOrder(E, order);
  const PE = qkv.positionalEncoding(n, D_MODEL, { base: PE_BASE });
  const stack = new Matrix(2 * D_MODEL, D_MODEL);
  for (let j = 0; j < D_MODEL; j++) { stack.data[j * D_MODEL + j] = 1; stack.data[(D_MODEL + j) * D_MODEL + j] = 1; }
  const plus = (M) => {
    const side = new Matrix(n, 2 * D_MODEL);
    for (let i = 0; i < n; i++) {
      side.data.set(M.data.subarray(i * D_MODEL, (i + 1) * D_MODEL), i * 2 * D_MODEL);
      side.data.set(PE.data.subarray(i * D_MODEL, (i + 1) * D_MODEL), i * 2 * D_MODEL + D_MODEL);
    }
    return qkv.matmul(side, stack);                                       // (n, 8) × (8, 4)
  };
  const attend = (X) => qkv.selfAttention(X, snap.Wq, snap.Wk, snap.Wv, { scale: snap.scale }).output;
  const X = plus(E), Xo = plus(Eo);
  const plain = attend(E), plainOrdered = attend(Eo), withPE = attend(X), withPEOrdered = attend(Xo);
  // the picture: PE for 32 positions at each width, and PE·PEᵀ, whose (p, q) entry is PE(p)·PE(q)
  const tables = Object.fromEntries(PE_WIDTHS.map((d) => {
    const table = qkv.positionalEncoding(PE_POSITIONS, d, { base: PE_BASE });
    const gram = qkv.matmul(table, qkv.transpose(table));                // (32, d) × (d, 32)
    return [d, {
      table, gram,
      /** PE(p)·PE(p+k) for p in PE_STARTS (rows) and k in PE_OFFSETS (columns): read off gram */
      offsets: new Matrix(PE_STARTS.length, PE_OFFSETS.length, PE_STARTS.flatMap((p) => PE_OFFSETS.map((k) => gram.get(p, p + k)))),
    }];
  }));
  return {
    order, words: order.map((i) => snap.words[i]),
    E, Eo, PE, X, Xo,
    plain, plainOrdered, withPE, withPEOrdered,
    gapPlain: reorderGap(plain, plainOrdered, order),
    gapPE: reorderGap(withPE, withPEOrdered, order),
    /** every word the same (a reordering cannot change the sentence) */
    trivial: order.every((i, p) => snap.words[i] === snap.words[p]),
    tables,
  };
}
