// training/counting.js: what counting alone gives, with no training: the same measures taken on
// a table of word vectors, whether the vectors are a trained embedding table or one of two
// counting baselines. No DOM here. The page computes both baselines for the corpus in use (the
// training section's card, sections/training/counting.js); tools/training-measures.mjs uses the
// same functions for web/page/training/claims.js, and tests/training-counting.test.js checks them
// on a corpus counted by hand.
//
//   nextWordCounts(sentences)  each word's row: how often each word follows it (<s> = the sentence ends)
//   ppmiSvd(sentences, k)      positive PMI with the word before and after, cut to k dimensions by an SVD
//   tableGeometry(vocab, e)    the same Geometry over an embedding table (model.embeddings())
//   measureGeometry(g)         cos(猫, 狗), cos(猫, 汽车), the animals–vehicles gap, the strict test,
//                              国王 − 男人 + 女人, 国王 + 女人 alone, …; null where the words are missing
//
// Sizes: V the vocabulary. nextWordCounts is V × V (dense), ppmiSvd costs about 100·V³ (the
// eigen-solver): countingOf() leaves out what is past COUNTING_LIMITS.
import { BOUNDARY, TRAINING_DEFAULTS, buildVocab, tokenize } from '../../corpus.js';
import { topEigenvectors } from '../../pca.js';

export const ANIMALS = Object.freeze(['猫', '狗', '兔', '鸟']);
export const VEHICLES = Object.freeze(['汽车', '卡车', '自行车']);

/**
 * The largest vocabulary each baseline is computed for on the page (V words, <s> included), so
 * that counting a corpus holds the page up for a fraction of a second at most: next-word counts
 * are V × V, and PPMI-SVD's eigen-solver takes about 0.1 s at 77 words and 1 s at 160 in Node.
 */
export const COUNTING_LIMITS = Object.freeze({ nextWord: 1000, ppmi: 100 });

function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let j = 0; j < a.length; j++) { ab += a[j] * b[j]; aa += a[j] * a[j]; bb += b[j] * b[j]; }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** rows: one vector per vocabulary id; the same definitions as model.similarity / nearest / analogy. */
export class Geometry {
  constructor(vocab, rows) {
    this.vocab = vocab;
    this.rows = rows;
    this.ids = new Map(vocab.map((w, i) => [w, i]));
  }

  has(...words) {
    return words.every((w) => this.ids.has(w) && w !== BOUNDARY);
  }

  row(word) {
    const id = this.ids.get(word);
    if (id === undefined) throw new RangeError(`measure: ${word} is not in the vocabulary`);
    return this.rows[id];
  }

  similarity(a, b) {
    return cosine(this.row(a), this.row(b));
  }

  /** Every word but the excluded ones and <s>, most cosine-similar to `target` first. */
  ranked(target, exclude) {
    const out = [];
    this.vocab.forEach((w, i) => {
      if (i !== 0 && !exclude.includes(w)) out.push({ word: w, score: cosine(this.rows[i], target) });
    });
    return out.sort((x, y) => y.score - x.score);
  }

  nearest(word) {
    return this.ranked(this.row(word), [word]);
  }

  /** b − a + c, the inputs excluded: analogy('男人', '国王', '女人') asks 国王 − 男人 + 女人. */
  analogy(a, b, c) {
    const ra = this.row(a), rb = this.row(b), rc = this.row(c);
    return this.ranked(ra.map((x, j) => rb[j] - x + rc[j]), [a, b, c]);
  }

  /** b + c with no − a (the analogy without its offset), the same three words excluded. */
  sum(a, b, c) {
    const rb = this.row(b), rc = this.row(c);
    return this.ranked(rb.map((x, j) => x + rc[j]), [a, b, c]);
  }

  /** 1-based rank of `word` in a ranked list (Infinity when absent). */
  static rank(list, word) {
    const i = list.findIndex((x) => x.word === word);
    return i < 0 ? Infinity : i + 1;
  }
}

/** The Geometry of an embedding table ({ rows, cols, data }, model.embeddings()) over its vocabulary. */
export function tableGeometry(vocab, e) {
  return new Geometry(vocab, vocab.map((_, i) => Float64Array.from(e.data.subarray(i * e.cols, (i + 1) * e.cols))));
}

/**
 * The measures of one table: cosines, the group separation, the analogy, the analogy without its
 * offset, and the baselines the analogy must beat. A measure whose words the vocabulary lacks is
 * null (a reader's own corpus may have no 猫).
 */
export function measureGeometry(g) {
  const animals = ANIMALS.filter((w) => g.has(w)), vehicles = VEHICLES.filter((w) => g.has(w));  // the twins preset has no 自行车
  const groups = animals.length > 1 && vehicles.length > 0;
  const pairs = (xs) => xs.flatMap((a, i) => xs.slice(i + 1).map((b) => [a, b]));
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const others = (a) => animals.filter((b) => b !== a).map((b) => g.similarity(a, b));
  const toVehicles = (a) => vehicles.map((v) => g.similarity(a, v));
  const people = g.has('国王', '男人', '女人');
  const analogy = people ? g.analogy('男人', '国王', '女人') : null;
  const sum = people ? g.sum('男人', '国王', '女人') : null;
  const control = g.has('国王', '猫', '狗') ? g.analogy('猫', '国王', '狗') : null;
  const kingNearest = g.has('国王') ? g.nearest('国王') : null;
  const top = (list) => (list && list.length ? list[0].word : null);
  const queen = (list) => (list ? Geometry.rank(list, '女王') : null);
  return {
    catDog: g.has('猫', '狗') ? g.similarity('猫', '狗') : null,
    catCar: g.has('猫', '汽车') ? g.similarity('猫', '汽车') : null,
    // strict: every animal is closer to every other animal than to any vehicle
    animalsApart: groups ? animals.every((a) => Math.min(...others(a)) > Math.max(...toVehicles(a))) : null,
    // softer: every animal's nearest word among the other animals and the vehicles is an animal
    nearestIsAnimal: groups ? animals.every((a) => Math.max(...others(a)) > Math.max(...toVehicles(a))) : null,
    groupGap: groups ? mean(pairs(animals).map(([a, b]) => g.similarity(a, b))) - mean(animals.flatMap(toVehicles)) : null,
    analogyTop: top(analogy),
    analogyRank: queen(analogy),
    sumTop: top(sum),
    sumRank: queen(sum),
    controlTop: top(control),
    controlRank: queen(control),
    kingNearest: top(kingNearest),
    queenRankNearKing: queen(kingNearest),
  };
}

/** Each word's raw next-word counts (the word after it, <s> when the sentence ends there). */
export function nextWordCounts(sentences) {
  const { vocab, ids } = buildVocab(sentences);
  const rows = vocab.map(() => new Float64Array(vocab.length));
  for (const s of sentences) {
    const inputs = [BOUNDARY, ...s];
    const targets = [...s, BOUNDARY];
    inputs.forEach((w, t) => { rows[ids.get(w)][ids.get(targets[t])] += 1; });
  }
  return new Geometry(vocab, rows);
}

/**
 * A second counting baseline, the classic one: positive pointwise mutual information between a
 * word and the words beside it (one before, one after; <s> at both ends of a sentence), reduced
 * by a truncated SVD to k dimensions (each word's row of U·Σ). k defaults to the model's dim.
 */
export function ppmiSvd(sentences, k = TRAINING_DEFAULTS.dim) {
  const { vocab, ids } = buildVocab(sentences);
  const V = vocab.length;
  const counts = vocab.map(() => new Float64Array(V));
  for (const s of sentences) {
    const w = [BOUNDARY, ...s, BOUNDARY].map((t) => ids.get(t));
    for (let t = 1; t < w.length - 1; t++) { counts[w[t]][w[t - 1]] += 1; counts[w[t]][w[t + 1]] += 1; }
  }
  const rowSum = counts.map((r) => r.reduce((a, b) => a + b, 0));
  const colSum = new Float64Array(V);
  counts.forEach((r) => r.forEach((x, j) => { colSum[j] += x; }));
  const total = rowSum.reduce((a, b) => a + b, 0);
  const ppmi = counts.map((r, i) => r.map((x, j) => (x > 0 ? Math.max(0, Math.log((x * total) / (rowSum[i] * colSum[j]))) : 0)));
  // M·Mᵀ = U Σ² Uᵀ: its top k eigenvectors and eigenvalues give U·Σ
  const gram = new Float64Array(V * V);
  for (let a = 0; a < V; a++) for (let b = a; b < V; b++) {
    let dot = 0;
    for (let j = 0; j < V; j++) dot += ppmi[a][j] * ppmi[b][j];
    gram[a * V + b] = gram[b * V + a] = dot;
  }
  // the top k eigenvectors u of M·Mᵀ (pca.js's solver, which project2d uses), λ = uᵀ(M·Mᵀ)u
  const axes = topEigenvectors(gram, V, Math.min(k, V)).map((u) => {
    let lambda = 0;
    for (let a = 0; a < V; a++) for (let b = 0; b < V; b++) lambda += u[a] * gram[a * V + b] * u[b];
    return { u, sigma: Math.sqrt(Math.max(0, lambda)) };
  });
  const rows = vocab.map((_, i) => Float64Array.from(axes, ({ u, sigma }) => u[i] * sigma));
  return new Geometry(vocab, rows);
}

/**
 * Both baselines' measures for a corpus (sentences as strings or token arrays):
 * { words: V, nextWord: measures | null, ppmi: measures | null }, null past COUNTING_LIMITS.
 */
export function countingOf(corpus, limits = COUNTING_LIMITS) {
  const sentences = corpus.map((s) => (Array.isArray(s) ? s : tokenize(s))).filter((s) => s.length > 0);
  const words = buildVocab(sentences).vocab.length;
  return {
    words,
    nextWord: words <= limits.nextWord ? measureGeometry(nextWordCounts(sentences)) : null,
    ppmi: words <= limits.ppmi ? measureGeometry(ppmiSvd(sentences)) : null,
  };
}
