// models/snapshot-derived.js: everything the sections show beyond the snapshot's own matrices, computed
// once per snapshot with the WebAssembly API (batched, a few calls each), so that a section turns
// numbers into DOM and nothing else. Data flows one way: WASM → snapshot → section → DOM.
//
//   const derived = deriveSnapshot(qkv, snapshot);   // context.js attaches it as snapshot.derived
//
// Dimensions: n tokens, d model width, d_k head width, P the pull factors of the learnable section.
// The multi-head and positional-encoding sections' numbers are computed in heads-positions.js.
import { Matrix } from '../../matrix.js';
import { computeSnapshot, DEFAULT_SENTENCE, SENTENCES, D_K } from './attention.js';
import { multiHead, positions } from './heads-positions.js';

/** The learnable section's slider: q_我 = pull × k_我 for pull = 0, 0.5, …, 10 (21 stops). */
export const PULL_VALUES = Object.freeze(Array.from({ length: 21 }, (_, i) => i / 2));
const FLOAT32_MAX = 3.4028234663852886e38;

/** The softmax section's temperature slider: softmax(scores / (s · T)) for each T (s = √d_k or 1). */
export const TEMPERATURES = Object.freeze([0.1, 0.2, 0.5, 1, 2, 5, 10]);
/** When n happens to equal d_k, Q × K has matching shapes; a sentence of another length shows the refusal. */
export const otherLengthSentence = (dk) => SENTENCES.find((s) => s.split(' ').length !== dk);

/**
 * a · B[:, j] for every column j, written out: products[k][j] = a_k · B[k][j] (diag(a) · B) and
 * running[k][j] = Σ_{p ≤ k} products[p][j] (lower-triangular ones · products), two WASM products.
 * cell(j) → { a, b, products, running } as arrays, the shape the projections and scores sections print.
 */
export function rowTerms(qkv, a, B) {
  const d = a.length;
  const diag = new Matrix(d, d);
  a.forEach((x, k) => { diag.data[k * d + k] = x; });
  const products = qkv.matmul(diag, B);                  // (d, d) × (d, m) → (d, m)
  const lower = new Matrix(d, d);
  for (let i = 0; i < d; i++) for (let j = 0; j <= i; j++) lower.data[i * d + j] = 1;
  const running = qkv.matmul(lower, products);           // (d, d) × (d, m): cumulative sums
  const col = (M, j) => Array.from({ length: d }, (_, k) => M.data[k * M.cols + j]);
  return {
    cell: (j) => ({ a: [...a], b: col(B, j), products: col(products, j), running: col(running, j) }),
  };
}

/**
 * The learnable section for every pull at once: row p of Qp is PULL_VALUES[p] × k_0 (one product), and
 * attend(Qp, K, V) gives, in row p, 我's attention row with its query pulled by that factor.
 */
function pullExperiments(qkv, snap) {
  const P = PULL_VALUES.length;
  const pulls = new Matrix(P, 1, PULL_VALUES);
  const k0 = new Matrix(1, snap.K.cols, snap.K.row(0));
  const Qp = qkv.matmul(pulls, k0);                                   // (P, 1) × (1, d_k)
  const unscaled = qkv.attend(Qp, snap.K, snap.V, { scale: false });  // (P, n)
  const scaled = qkv.attend(Qp, snap.K, snap.V, { scale: true });
  return PULL_VALUES.map((pull, p) => ({
    pull, query: Qp.row(p), unscaled: unscaled.weights.row(p), scaled: scaled.weights.row(p),
  }));
}

/**
 * The learnable section's verdict. With q = pull × k_0, token j scores pull × (k_0 · k_j) = pull × |k_0| |k_j| cos θ_j,
 * so for every pull > 0 the winner is the key with the largest k_0 · k_j: that is k_0 itself only
 * when no other key is long enough, and close enough in direction, to beat |k_0|². One product
 * K·Kᵀ gives every k_0 · k_j and every |k_j|² (its diagonal).
 */
function pullVerdict(qkv, snap, Kt) {
  const gram = qkv.matmul(snap.K, Kt);                                // (n, d_k) × (d_k, n)
  const dots = gram.row(0);
  const lengths = Array.from({ length: snap.n }, (_, j) => Math.sqrt(Math.max(0, gram.get(j, j))));
  const cos = dots.map((x, j) => x / (lengths[0] * lengths[j]));
  const top = argmax(dots);
  // every pulled score is 0 when 我's key is the zero vector: the weights stay uniform
  const flat = dots.every((x) => x === dots[0]);
  return { dots, lengths, cos, top, self: !flat && top === 0, flat };
}

/**
 * The scores section's dot-product picture, for two 2-D vectors the reader drags (not a snapshot value:
 * it runs on the reader's input, through the same WASM API). [a; b]·[a; b]ᵀ gives a·a, a·b, b·b;
 * diag(a)·b gives the two products a_x b_x and a_y b_y that add up to a·b.
 */
export function dotGeometry(qkv, a, b) {
  const pair = new Matrix(2, 2, [a[0], a[1], b[0], b[1]]);
  const gram = qkv.matmul(pair, qkv.transpose(pair));                 // (2, 2) × (2, 2)
  const products = qkv.matmul(new Matrix(2, 2, [a[0], 0, 0, a[1]]), new Matrix(2, 1, b));
  const lengths = [Math.sqrt(gram.get(0, 0)), Math.sqrt(gram.get(1, 1))];
  const dot = gram.get(0, 1);
  const cos = lengths[0] > 0 && lengths[1] > 0 ? Math.max(-1, Math.min(1, dot / (lengths[0] * lengths[1]))) : NaN;
  return {
    a: [...a], b: [...b], products: Array.from(products.data), dot, lengths, cos,
    degrees: Math.acos(cos) * 180 / Math.PI,
    /** |a| |b|: the largest a·b these lengths allow; |a| |b| cos θ, which is a·b again */
    maxDot: lengths[0] * lengths[1],
    polar: lengths[0] * lengths[1] * cos,
    /** b's shadow on a's direction: a·b = |a| × shadow */
    shadow: lengths[0] > 0 ? dot / lengths[0] : NaN,
  };
}

/**
 * The softmax section, softmax written out for every row and every temperature: z = scores / (s · T), the
 * exponentials exp(z), their row total Σ exp(z) before the division, and the weights exp(z) / Σ.
 * The WASM API has softmax but no bare exp, and softmax supplies it: with one more column of 0,
 * softmax([z, 0]) = [exp(z), 1] / (Σ exp(z) + 1), so exp(z_j) = w_j / w_last (max-subtracted
 * inside, so it is exact to float32 rounding wherever exp(z) itself fits in a float32). Per T:
 * one product [z | 0] = scores · [I / (s·T) | 0]; then one softmax over every row of every T, one
 * for the weights, and products with a column of ones for the totals.
 */
function softmaxWritten(qkv, snap) {
  const { n, scores, divisor } = snap;
  const T = TEMPERATURES.length;
  const stacked = new Matrix(T * n, n + 1);
  const plain = new Matrix(T * n, n);
  TEMPERATURES.forEach((t, k) => {
    const scale = new Matrix(n, n + 1);
    for (let j = 0; j < n; j++) scale.data[j * (n + 1) + j] = 1 / (divisor * t);
    const z = qkv.matmul(scores, scale);                                 // (n, n) × (n, n+1) = [z | 0]
    stacked.data.set(z.data, k * n * (n + 1));
    for (let i = 0; i < n; i++) plain.data.set(z.data.subarray(i * (n + 1), i * (n + 1) + n), (k * n + i) * n);
  });
  const extended = qkv.softmaxRows(stacked);                             // [exp(z), 1] / (Σ + 1)
  const weights = qkv.softmaxRows(plain);                                // exp(z) / Σ
  // exp(z) beyond float32 (z above about 88.7) makes w_last 0: that exp is +∞ and so is its row's
  // total; such rows are left out of the product (the API refuses non-finite input) and shown as —
  const exps = new Matrix(T * n, n);
  const fits = new Matrix(T * n, n);
  const overflowed = [];
  for (let r = 0; r < T * n; r++) {
    const last = extended.get(r, n);
    let big = false;
    for (let j = 0; j < n; j++) {
      const e = last > 0 ? extended.get(r, j) / last : (extended.get(r, j) > 0 ? Infinity : 0);
      exps.data[r * n + j] = e;
      if (!(e < FLOAT32_MAX / n)) big = true;
    }
    overflowed.push(big);
    if (!big) fits.data.set(exps.data.subarray(r * n, (r + 1) * n), r * n);
  }
  const ones = new Matrix(n, 1, new Float32Array(n).fill(1));
  const totals = qkv.matmul(fits, ones);                                 // (T·n, n) × (n, 1)
  const weightTotals = qkv.matmul(weights, ones);
  return TEMPERATURES.map((t, k) => ({
    t,
    rows: Array.from({ length: n }, (_, i) => {
      const r = k * n + i;
      return {
        z: plain.row(r), exps: exps.row(r), total: overflowed[r] ? Infinity : totals.data[r], weightTotal: weightTotals.data[r],
        // at T = 1 the weights are the page's A itself, digit for digit
        weights: t === 1 ? snap.weights.row(i) : weights.row(r),
      };
    }),
  }));
}

/** Output row i as a mix of V's rows: contributions diag(w_i) · V and their sum w_i · V. */
function mixRows(qkv, snap) {
  const { weights, V, n } = snap;
  const all = qkv.matmul(weights, V);                                  // (n, n) × (n, d_k): O
  return Array.from({ length: n }, (_, i) => {
    const w = weights.row(i);
    const diag = new Matrix(n, n);
    w.forEach((x, j) => { diag.data[j * n + j] = x; });
    return { weights: w, contributions: qkv.matmul(diag, V), output: all.row(i) };
  });
}

/** Q × K: the API's own refusal (its message, and the two shapes, for a translation of it). */
function qTimesK(qkv, snap) {
  const shapes = (Q, K) => ({ a: [Q.rows, Q.cols], b: [K.rows, K.cols] });
  try {
    qkv.matmul(snap.Q, snap.K);
  } catch (error) {
    return { refused: true, message: error.message, ...shapes(snap.Q, snap.K) };
  }
  // the shapes happen to fit (n = d_k): the refusal a sentence of another length gets, same seed
  const sentence = otherLengthSentence(snap.dk);
  const other = computeSnapshot(qkv, { seed: snap.seed, sentence, scale: false, pos: false, dk: snap.dk });
  let message = '';
  try { qkv.matmul(other.Q, other.K); } catch (error) { message = error.message; }
  return { refused: false, sentence, tokens: other.n, message, ...shapes(other.Q, other.K) };
}

/** For each row of X: the column of its single 1 when the row is one-hot, else -1. */
function oneHotColumns(X) {
  return Array.from({ length: X.rows }, (_, i) => {
    const row = X.row(i);
    const ones = row.flatMap((x, k) => (x === 1 ? [k] : []));
    return ones.length === 1 && row.every((x, k) => x === 0 || k === ones[0]) ? ones[0] : -1;
  });
}

function predictNext(qkv, snap) {
  const logits = qkv.matmul(snap.output, snap.Wout);                   // (n, d_k) × (d_k, V)
  const probs = qkv.softmaxRows(logits);
  return {
    logits, probs, top: Array.from({ length: snap.n }, (_, i) => argmax(probs.row(i))),
    uniform: 1 / snap.Wout.cols,   // 1/V: what an untrained prediction stays near
  };
}

function argmax(row) {
  let top = 0;
  row.forEach((x, j) => { if (x > row[top]) top = j; });
  return top;
}

function isArticleSetting(snap) {
  return snap.seed === 42 && snap.dk === D_K && snap.words.join(' ') === DEFAULT_SENTENCE && !snap.pos &&
    Object.keys(snap.edited).length === 0;
}

/** Every value the sections read beyond the snapshot's matrices. */
export function deriveSnapshot(qkv, snap) {
  const Kt = qkv.transpose(snap.K);
  const ones = new Matrix(snap.n, 1, new Float32Array(snap.n).fill(1));
  // symmetry: one shared projection, Q = K = X·W_Q, so S = Q·Qᵀ
  const symmetricScores = qkv.matmul(snap.Q, qkv.transpose(snap.Q));   // (n, d_k) × (d_k, n)
  return {
    Kt,
    /** scores: K·Qᵀ, computed as written (it equals Sᵀ) */
    KQt: qkv.matmul(snap.K, qkv.transpose(snap.Q)),                    // (n, d_k) × (d_k, n)
    /** projections: projections[m].rows[i].cell(j), m = 0 Q (W_Q), 1 K (W_K), 2 V (W_V) */
    projections: [snap.Wq, snap.Wk, snap.Wv].map((W) => ({
      rows: Array.from({ length: snap.n }, (_, i) => rowTerms(qkv, snap.X.row(i), W)),
    })),
    /** projections: X's one-hot rows pick rows of W as they are (oneHot[i] = k, or -1) */
    oneHot: oneHotColumns(snap.X),
    /** scores: scoreTerms[i].cell(j) = q_i · k_j written out */
    scoreTerms: Array.from({ length: snap.n }, (_, i) => rowTerms(qkv, snap.Q.row(i), Kt)),
    qTimesK: qTimesK(qkv, snap),
    /** softmax: each weight row's sum (A · 1) */
    rowSums: Array.from(qkv.matmul(snap.weights, ones).data),
    /** softmax: softmaxWritten[k].rows[i] = { z, exps, total, weights } at TEMPERATURES[k] */
    softmaxWritten: softmaxWritten(qkv, snap),
    /** the mixing section */
    mix: mixRows(qkv, snap),
    /** learnable: pull[p] for PULL_VALUES[p]; the verdict holds for every pull > 0 */
    pull: pullExperiments(qkv, snap),
    pullVerdict: pullVerdict(qkv, snap, Kt),
    /** the article's own setting: its seed, sentence and X, nothing edited */
    article: isArticleSetting(snap),
    /** multi-head attention of X for 1 … 4 heads (heads-positions.js) */
    multiHead: multiHead(qkv, snap),
    /** positional encoding: the sentence reordered, without and with positions, and the table */
    positions: positions(qkv, snap),
    /** flow: the next-token prediction softmax(O · W_out), [n, V], and each row's top word */
    prediction: predictNext(qkv, snap),
    /** symmetry: Q = K = X·W_Q; rowTop[i] is the column of row i's largest score */
    symmetric: {
      scores: symmetricScores, weights: qkv.softmaxRows(symmetricScores),
      rowTop: Array.from({ length: snap.n }, (_, i) => argmax(symmetricScores.row(i))),
      realRowTop: Array.from({ length: snap.n }, (_, i) => argmax(snap.scores.row(i))),
    },
  };
}
