// training-standin.js: TEMPORARY. A thin local stand-in for the model side's half of issue 8
// (/work/wt/TRAINING-API.md: model.inspect(), model.stepOn(), the corpus exports, TRAINING_DEFAULTS,
// training-claims.js), so that the page can be built before branch `trainmodel` lands. Deleted
// when it does: the page then imports the real ones from ../corpus.js, ../model.js and
// ./training-claims.js. Nothing here may ship.
import { Model } from '../model.js';
import { Matrix } from '../matrix.js';
import { DEFAULT_CORPUS, tokenize, BOUNDARY } from '../corpus.js';

export { DEFAULT_CORPUS };

export const CORPUS_PRESETS = Object.freeze([
  { id: 'default', name: { zh: '默认语料', en: 'The default corpus' }, description: { zh: '默认', en: 'default' }, sentences: [...DEFAULT_CORPUS] },
  {
    id: 'car-with-animals',
    name: { zh: '汽车混进动物', en: 'A car among the animals' },
    description: { zh: '默认语料，加上 一只 汽车 在 叫 和 我 养 了 一只 汽车。', en: 'The default corpus plus 一只 汽车 在 叫 and 我 养 了 一只 汽车.' },
    sentences: [...DEFAULT_CORPUS, '一只 汽车 在 叫', '我 养 了 一只 汽车'],
  },
]);

export const GLOSSES = Object.freeze({
  '一只': 'a (animal)', '猫': 'cat', '在': 'is / at', '叫': 'barks / calls', '狗': 'dog', '鸟': 'bird', '我': 'I',
  '养': 'keep', '了': '(done)', '兔': 'rabbit', '很': 'very', '可爱': 'cute', '睡觉': 'sleep', '喜欢': 'like',
  '开': 'drive', '汽车': 'car', '去': 'go', '上班': 'to work', '他': 'he', '卡车': 'truck', '需要': 'needs',
  '加油': 'refuel', '路上': 'on the road', '有': 'there is', '一辆': 'a (vehicle)', '给': 'give', '得': '(adv.)',
  '快': 'fast', '爱': 'love', '吃': 'eat', '苹': 'ap-', '果': '-ple', '香蕉': 'banana', '甜': 'sweet',
  '国王': 'king', '统治': 'rules', '国家': 'country', '女王': 'queen', '戴着': 'wears', '王冠': 'crown',
  '留着': 'has (a beard)', '胡子': 'beard', '男人': 'man', '穿着': 'wears (clothes)', '裙子': 'skirt', '女人': 'woman',
});

export const WORD_GROUPS = Object.freeze([
  { id: 'animals', words: ['猫', '狗', '兔', '鸟'] },
  { id: 'vehicles', words: ['汽车', '卡车'] },
  { id: 'people', words: ['国王', '女王', '男人', '女人'] },
]);

export const CORPUS_LIMITS = Object.freeze({ maxSentences: 400, maxTokensPerSentence: 12, maxChars: 20000 });

export const TRAINING_DEFAULTS = Object.freeze({ batchSize: 1, lr: 0.5, steps: 600, dim: 16, optimizer: 'sgd' });

export const TRAINING_CLAIMS = Object.freeze({
  seeds: [0, 29],
  catDog: { min: 0.1, median: 0.5, max: 0.9 },
  catCar: { min: -0.5, median: 0, max: 0.3 },
  pFruit: { min: 0.1, median: 0.5, max: 0.9 },
  queenFirst: { count: 20, of: 30 },
  queenNearestKing: { count: 20, of: 30 },
  animalsCloser: { count: 25, of: 30 },
  finalLoss: { min: 0.8, median: 1, max: 1.2 },
});

/** corpus: string (a sentence per line) or string[] → { sentences: string[][], problems } */
export function checkCorpus(corpus) {
  const problems = [];
  const text = typeof corpus === 'string' ? corpus : Array.isArray(corpus) ? corpus.join('\n') : '';
  if (text.length > CORPUS_LIMITS.maxChars) {
    return { sentences: [], problems: [{ line: 0, kind: 'too-many-chars', message: `the corpus has ${text.length} characters; at most ${CORPUS_LIMITS.maxChars}` }] };
  }
  const lines = text.split(/\r?\n/u);
  const sentences = [];
  lines.forEach((line, i) => {
    const tokens = tokenize(line);
    if (tokens.length === 0) return;
    if (tokens.includes(BOUNDARY)) problems.push({ line: i + 1, kind: 'boundary', message: `line ${i + 1} contains ${BOUNDARY}` });
    else if (tokens.length > CORPUS_LIMITS.maxTokensPerSentence) problems.push({ line: i + 1, kind: 'too-long', message: `line ${i + 1} has ${tokens.length} tokens` });
    else if (tokens.length === 1) problems.push({ line: i + 1, kind: 'one-word', message: `line ${i + 1} has one word` });
    else sentences.push(tokens);
  });
  if (sentences.length > CORPUS_LIMITS.maxSentences) problems.push({ line: 0, kind: 'too-many', message: `${sentences.length} sentences` });
  if (sentences.length === 0 && problems.length === 0) problems.push({ line: 0, kind: 'empty', message: 'the corpus is empty' });
  return { sentences, problems };
}

// ---- model.inspect / model.stepOn, computed in float64 from the parameters (stand-in only) ----

function positions(n, d) {
  const out = new Float64Array(n * d);
  for (let t = 0; t < n; t++) {
    for (let i = 0; i < d; i++) {
      const freq = 10000 ** (-(i - (i % 2)) / d);
      out[t * d + i] = Math.fround(i % 2 === 0 ? Math.sin(t * freq) : Math.cos(t * freq));
    }
  }
  return out;
}
const mat = (rows, cols, data) => new Matrix(rows, cols, Float32Array.from(data));
function mm(A, ar, ac, B, bc) {
  const out = new Float64Array(ar * bc);
  for (let i = 0; i < ar; i++) for (let k = 0; k < ac; k++) {
    const a = A[i * ac + k];
    for (let j = 0; j < bc; j++) out[i * bc + j] += a * B[k * bc + j];
  }
  return out;
}

if (!Model.prototype.inspect) {
  Model.prototype.inspect = function inspect(sentence) {
    const words = typeof sentence === 'string' ? tokenize(sentence) : [...sentence];
    if (words.length < 1 || words.length > this.maxTokens) throw new RangeError(`inspect: the sentence has ${words.length} tokens; 1 to ${this.maxTokens}`);
    const ids = [0, ...words.map((w) => this._id('inspect', w))];
    const targetIds = [...ids.slice(1), 0];
    const n = ids.length, d = this.dim, V = this.vocab.length;
    const P = Object.fromEntries(['embedding', 'Wq', 'Wk', 'Wv', 'Wout', 'bout'].map((k) => [k, Float64Array.from(this.getParameter(k).data)]));
    const E = new Float64Array(n * d);
    ids.forEach((id, t) => { for (let j = 0; j < d; j++) E[t * d + j] = P.embedding[id * d + j]; });
    const pos = positions(n, d);
    const X = E.map((v, i) => v + pos[i]);
    const Q = mm(X, n, d, P.Wq, d), K = mm(X, n, d, P.Wk, d), Vv = mm(X, n, d, P.Wv, d);
    const scores = new Float64Array(n * n), weights = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) { let s = 0; for (let k = 0; k < d; k++) s += Q[i * d + k] * K[j * d + k]; scores[i * n + j] = s; }
      let max = -Infinity;
      for (let j = 0; j <= i; j++) max = Math.max(max, scores[i * n + j] / Math.sqrt(d));
      let sum = 0;
      for (let j = 0; j <= i; j++) { weights[i * n + j] = Math.exp(scores[i * n + j] / Math.sqrt(d) - max); sum += weights[i * n + j]; }
      for (let j = 0; j <= i; j++) weights[i * n + j] /= sum;
    }
    const att = mm(weights, n, n, Vv, d);
    const hh = X.map((v, i) => v + att[i]);
    const logits = mm(hh, n, d, P.Wout, V);
    const probs = new Float64Array(n * V), losses = [];
    for (let t = 0; t < n; t++) {
      for (let v = 0; v < V; v++) logits[t * V + v] += P.bout[v];
      let max = -Infinity;
      for (let v = 0; v < V; v++) max = Math.max(max, logits[t * V + v]);
      let sum = 0;
      for (let v = 0; v < V; v++) sum += Math.exp(logits[t * V + v] - max);
      for (let v = 0; v < V; v++) probs[t * V + v] = Math.exp(logits[t * V + v] - max) / sum;
      losses.push(-(logits[t * V + targetIds[t]] - max - Math.log(sum)));
    }
    const grads = this.gradients([words]);
    const g = grads.grads.embedding;
    const gradientRows = [];
    for (let r = 0; r < V; r++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += g.data[r * d + j] ** 2;
      if (s > 0) gradientRows.push({ row: r, word: this.vocab[r], norm: Math.sqrt(s) });
    }
    return {
      tokens: ids.map((i) => this.vocab[i]), targets: targetIds.map((i) => this.vocab[i]), ids, targetIds,
      embeddingRows: mat(n, d, E), positions: mat(n, d, pos), X: mat(n, d, X), Q: mat(n, d, Q), K: mat(n, d, K), V: mat(n, d, Vv),
      scores: mat(n, n, scores), weights: mat(n, n, weights), attention: mat(n, d, att), h: mat(n, d, hh),
      logits: mat(n, V, logits), probs: mat(n, V, probs), losses, loss: losses.reduce((a, b) => a + b, 0) / n,
      gradients: grads.grads, gradientRows,
    };
  };
  Model.prototype.stepOn = function stepOn(sentence) {
    const words = typeof sentence === 'string' ? tokenize(sentence) : [...sentence];
    const ids = words.map((w) => this._id('stepOn', w));
    const before = this.embeddings();
    const loss = this._lossAndGrad('stepOn', [ids]);
    const core = this._core;
    this._lab._check('stepOn', core._qkv_model_update(this._model, this._updated, this._count));
    const count = core.HEAP32[this._count >> 2];
    const updatedRows = Array.from(core.HEAP32.subarray(this._updated >> 2, (this._updated >> 2) + count));
    const grad = this._tensor(1, 0);
    const rowGradNorms = updatedRows.map((r) => {
      let s = 0;
      for (let j = 0; j < this.dim; j++) s += core.HEAPF32[grad.offset + r * this.dim + j] ** 2;
      return Math.sqrt(s);
    });
    this.steps++;
    const after = this.embeddings();
    const pick = (m) => new Matrix(updatedRows.length, this.dim, Float32Array.from(updatedRows.flatMap((r) => Array.from(m.data.subarray(r * this.dim, (r + 1) * this.dim)))));
    return { loss, lossAfter: this.loss([words]), batch: [words], updatedRows, rowGradNorms, step: this.steps, rowsBefore: pick(before), rowsAfter: pick(after) };
  };
}
