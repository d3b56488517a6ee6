// poetry/ngram.js: what counting gives, the baselines a pretrained GPT is measured against
// (docs/poetry-metrics.md). Pure JavaScript, no DOM, no WebAssembly.
//
//   const model = createNgram('trigram', trainText);     // one poem per line
//   evaluate(model, valPoems).loss                        // nats per character
//   samplePoems(model, { count: 200, temperature: 0.8, seed: 1 })
//
// The same conventions as the GPT (web/gpt.js, tools/pretrain.c):
//   - tokens are characters (code points); the vocabulary is '\n' (the end-of-text token, id 0)
//     then the training text's distinct characters in code-point order;
//   - a poem is scored once from its start: the history before it is the end-of-text token, and
//     the model predicts every character of the poem and then the end-of-text token; the loss is
//     the total of -ln p over those tokens divided by their number (pooled over the poems);
//   - a poem with a character outside the vocabulary is left out (evaluate() counts them).
//
// The models (each a mixture of maximum-likelihood estimates from counts):
//   unigram     p(c): the character's frequency in the training text (end-of-text tokens
//               included), nothing else. Every character of the vocabulary occurs, so no zeros.
//   trigram     λ3 p(c | a b) + λ2 p(c | b) + λ1 p(c) + λ0 / V, where a b are the two previous
//               tokens (before a poem's start: end-of-text tokens). The λ depend on how often
//               the context a b occurs (buckets ⌊log2(1 + count)⌋, at most 12).
//   positional  the next character given the previous one and the position p (0-based, the index
//               in the poem of the character predicted; the end token's position is the poem's
//               length): λ4 p(c | b, p) + λ3 p(c | p) + λ2 p(c | b) + λ1 p(c) + λ0 / V, the λ by
//               the count of (b, p) as above. Back-off, so that an unseen pair still gets p(c | p)
//               (where the marks go) and p(c | b) (what follows what).
// In a context the text never holds, a component's estimate is 0/0: it is left out and the other
// weights renormalised, so every distribution sums to 1.
// The λ are chosen on held-out text (fitWeights): the counts come from nine training poems in ten,
// every 10th poem is held out, and EM maximises its likelihood; then the counts are taken again from
// the whole training text with those λ (Jelinek–Mercer deleted interpolation, one held-out part).
//
// Sampling (samplePoems): from the end-of-text token, draw the next token from p^(1/T) renormalised
// (temperature T, as a GPT divides its logits, here ln p, by T), until the end-of-text token or
// maxLength characters; the poem is the characters before it. Seeded (mulberry32), so a seed gives
// the same poems everywhere.

const END = '\n';
const MAX_POSITION = 80;   // positions at or beyond this share one count (the longest form is 64)
const MAX_BUCKET = 12;
export const NGRAM_KINDS = Object.freeze(['unigram', 'trigram', 'positional']);

// ---- counts ----

/**
 * Counts of (context, token) pairs: contexts and tokens are integers, context * V + token < 2^53.
 * lookup(ctx) → [start, end, total] of the context's run (token ids ascending), or null.
 */
class CountTable {
  constructor(contexts, tokens, n, V) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = contexts[i] * V + tokens[i];
    keys.sort();
    const ctxKeys = [], ctxStart = [], ctxTotal = [], token = [], count = [];
    for (let i = 0; i < n;) {
      let j = i;
      while (j < n && keys[j] === keys[i]) j++;
      const ctx = Math.floor(keys[i] / V), tok = keys[i] - ctx * V;
      if (ctxKeys.length === 0 || ctxKeys[ctxKeys.length - 1] !== ctx) {
        ctxKeys.push(ctx); ctxStart.push(token.length); ctxTotal.push(0);
      }
      token.push(tok); count.push(j - i);
      ctxTotal[ctxTotal.length - 1] += j - i;
      i = j;
    }
    ctxStart.push(token.length);
    this.ctxKeys = Float64Array.from(ctxKeys);
    this.ctxStart = Int32Array.from(ctxStart);
    this.ctxTotal = Int32Array.from(ctxTotal);
    this.token = Int32Array.from(token);
    this.count = Int32Array.from(count);
  }

  lookup(ctx) {
    const keys = this.ctxKeys;
    let lo = 0, hi = keys.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (keys[mid] < ctx) lo = mid + 1; else hi = mid; }
    if (lo === keys.length || keys[lo] !== ctx) return null;
    return [this.ctxStart[lo], this.ctxStart[lo + 1], this.ctxTotal[lo]];
  }

  /** the maximum-likelihood p(tok | ctx), 0 for an unseen context */
  probability(ctx, tok) {
    const run = this.lookup(ctx);
    if (!run) return 0;
    let [lo, hi] = run;
    const t = this.token;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (t[mid] < tok) lo = mid + 1; else hi = mid; }
    return lo < run[1] && t[lo] === tok ? this.count[lo] / run[2] : 0;
  }

  contextCount(ctx) {
    const run = this.lookup(ctx);
    return run ? run[2] : 0;
  }
}

// ---- the vocabulary and the token stream ----

/** '\n' then the text's distinct characters in code-point order (as createGPT builds it). */
export function vocabularyOf(text) {
  const set = new Set();
  for (const ch of text) if (ch !== END) set.add(ch);
  return [END, ...[...set].sort((a, b) => a.codePointAt(0) - b.codePointAt(0))];
}

function poemsOf(text) {
  return text.split(END).filter((l) => l !== '');
}

/** The poems as id arrays; those with a character outside the vocabulary are dropped and counted. */
function encode(poems, idOf) {
  const out = [];
  let dropped = 0;
  for (const poem of poems) {
    const ids = [];
    let ok = true;
    for (const ch of poem) {
      const id = idOf.get(ch);
      if (id === undefined || id === 0) { ok = false; break; }
      ids.push(id);
    }
    if (ok) out.push(ids); else dropped++;
  }
  return { encoded: out, dropped };
}

/** Each predicted token with its history: visit(prev2, prev1, position, token). */
function eachEvent(encoded, visit) {
  for (const ids of encoded) {
    let a = 0, b = 0;
    for (let p = 0; p <= ids.length; p++) {
      const t = p < ids.length ? ids[p] : 0;
      visit(a, b, Math.min(p, MAX_POSITION), t);
      a = b; b = t;
    }
  }
}

// ---- the components of each kind ----

/**
 * A kind's components: the context of each (from prev2, prev1, position; null for the unigram),
 * highest order first. The bucket comes from the first component's context count.
 */
function contextsOf(kind, V) {
  const P = MAX_POSITION + 1;
  if (kind === 'unigram') return [() => 0];
  if (kind === 'trigram') return [(a, b) => a * V + b, (a, b) => b, () => 0];
  return [(a, b, p) => b * P + p, (a, b, p) => p, (a, b) => b, () => 0];
}

function countComponents(kind, encoded, V) {
  const ctxFns = contextsOf(kind, V);
  let n = 0;
  for (const ids of encoded) n += ids.length + 1;
  const ctx = ctxFns.map(() => new Float64Array(n));
  const tok = new Int32Array(n);
  let i = 0;
  eachEvent(encoded, (a, b, p, t) => {
    for (let k = 0; k < ctxFns.length; k++) ctx[k][i] = ctxFns[k](a, b, p);
    tok[i++] = t;
  });
  return { ctxFns, tables: ctx.map((c) => new CountTable(c, tok, n, V)) };
}

const bucketOf = (count) => Math.min(MAX_BUCKET, Math.floor(Math.log2(1 + count)));

/**
 * For each predicted token of `encoded`: the components' probabilities (the uniform last) and the
 * bucket. → { probs: Float64Array (N × K), buckets: Int32Array (N), K }
 */
function componentProbabilities(components, encoded, V) {
  const { ctxFns, tables } = components;
  const K = ctxFns.length + 1;
  let n = 0;
  for (const ids of encoded) n += ids.length + 1;
  const probs = new Float64Array(n * K);
  const buckets = new Int32Array(n);
  let i = 0;
  eachEvent(encoded, (a, b, p, t) => {
    for (let k = 0; k < ctxFns.length; k++) probs[i * K + k] = tables[k].probability(ctxFns[k](a, b, p), t);
    probs[i * K + K - 1] = 1 / V;
    buckets[i] = bucketOf(tables[0].contextCount(ctxFns[0](a, b, p)));
    i++;
  });
  return { probs, buckets, K, n };
}

// ---- weights ----

/**
 * The interpolation weights of `kind` chosen on held-out text: counts from every training poem
 * but each 10th, EM on the 10th poems (iterations until the held-out loss moves by < 1e-7 nats,
 * at most 200). → { weights: number[][] (bucket → λ per component, highest order first, uniform
 * last), heldOutLoss, heldOutTokens }. The unigram has no weights (null).
 * @param {'unigram'|'trigram'|'positional'} kind
 * @param {string} text training text, one poem per line
 */
export function fitWeights(kind, text, options = {}) {
  checkKind('fitWeights', kind);
  checkText('fitWeights', 'text', text);
  if (kind === 'unigram') return { weights: null, heldOutLoss: null, heldOutTokens: 0 };
  const vocab = checkVocabulary('fitWeights', options.vocabulary, text);
  const idOf = new Map(vocab.map((c, i) => [c, i]));
  const poems = poemsOf(text);
  const fit = encode(poems.filter((_, i) => i % 10 !== 9), idOf).encoded;
  const held = encode(poems.filter((_, i) => i % 10 === 9), idOf).encoded;
  const V = vocab.length;
  const { probs, buckets, K, n } = componentProbabilities(countComponents(kind, fit, V), held, V);
  const B = MAX_BUCKET + 1;
  const weights = Array.from({ length: B }, () => new Array(K).fill(1 / K));
  const seen = new Int32Array(B);
  for (let i = 0; i < n; i++) seen[buckets[i]]++;
  let last = Infinity, loss = 0;
  for (let iter = 0; iter < 200; iter++) {
    const acc = Array.from({ length: B }, () => new Float64Array(K));
    loss = 0;
    for (let i = 0; i < n; i++) {
      const w = weights[buckets[i]];
      let total = 0;
      for (let k = 0; k < K; k++) total += w[k] * probs[i * K + k];
      loss -= Math.log(total);
      const a = acc[buckets[i]];
      for (let k = 0; k < K; k++) a[k] += (w[k] * probs[i * K + k]) / total;
    }
    loss /= n;
    for (let b = 0; b < B; b++) {
      const sum = acc[b].reduce((s, x) => s + x, 0);
      if (sum > 0) for (let k = 0; k < K; k++) weights[b][k] = acc[b][k] / sum;
    }
    if (last - loss < 1e-7) break;
    last = loss;
  }
  // a bucket without held-out tokens takes the weights of the nearest one below it that has some
  // (above it when none below): EM would leave it at its starting guess
  for (let b = 0; b < B; b++) {
    if (seen[b]) continue;
    let from = b - 1;
    while (from >= 0 && !seen[from]) from--;
    if (from < 0) { from = b + 1; while (from < B && !seen[from]) from++; }
    if (from < B) weights[b] = weights[from];
  }
  return { weights: weights.map((w) => [...w]), heldOutLoss: loss, heldOutTokens: n };
}

// ---- models ----

/**
 * A counting model of `kind` on `text` (one poem per line). options.weights: the interpolation
 * weights (fitWeights(kind, text, options).weights when omitted; ignored for the unigram).
 * options.vocabulary: '\n' then characters, a superset of the text's (vocabularyOf(text) when
 * omitted): a model trained on one form's poems scores the same poems as one trained on all.
 * @param {'unigram'|'trigram'|'positional'} kind
 * @param {string} text
 * @param {{ weights?: number[][], vocabulary?: string[] }} [options]
 */
export function createNgram(kind, text, options = {}) {
  checkKind('createNgram', kind);
  checkText('createNgram', 'text', text);
  const vocab = checkVocabulary('createNgram', options.vocabulary, text);
  if (vocab.length < 2) throw new RangeError('createNgram: text must hold at least one poem (one character)');
  const V = vocab.length;
  const idOf = new Map(vocab.map((c, i) => [c, i]));
  let weights = null;
  if (kind !== 'unigram') {
    weights = options.weights ?? fitWeights(kind, text, { vocabulary: vocab }).weights;
    const K = contextsOf(kind, V).length + 1;
    if (!Array.isArray(weights) || weights.length !== MAX_BUCKET + 1 ||
        !weights.every((w) => Array.isArray(w) && w.length === K && w.every((x) => Number.isFinite(x) && x >= 0) &&
          Math.abs(w.reduce((s, x) => s + x, 0) - 1) < 1e-9)) {
      throw new RangeError(`createNgram: options.weights must be ${MAX_BUCKET + 1} rows of ${K} non-negative weights summing to 1 (fitWeights('${kind}', text).weights)`);
    }
  }
  const components = countComponents(kind, encode(poemsOf(text), idOf).encoded, V);
  return Object.freeze({ kind, vocab, idOf, V, weights, components });
}

function checkVocabulary(op, vocabulary, text) {
  if (vocabulary === undefined) return vocabularyOf(text);
  if (!Array.isArray(vocabulary) || vocabulary[0] !== END || new Set(vocabulary).size !== vocabulary.length ||
      !vocabulary.every((c) => typeof c === 'string' && [...c].length === 1)) {
    throw new RangeError(`${op}: options.vocabulary must be '\\n' then distinct single characters (vocabularyOf(text))`);
  }
  const known = new Set(vocabulary);
  for (const ch of text) {
    if (!known.has(ch)) throw new RangeError(`${op}: the text's character ${JSON.stringify(ch)} is not in options.vocabulary`);
  }
  return [...vocabulary];
}

function checkKind(op, kind) {
  if (!NGRAM_KINDS.includes(kind)) throw new RangeError(`${op}: kind must be one of ${NGRAM_KINDS.join(', ')}, got ${String(kind)}`);
}
function checkText(op, name, value) {
  if (typeof value !== 'string') throw new TypeError(`${op}: ${name} must be a string, got ${value === null ? 'null' : typeof value}`);
}
function checkModel(op, model) {
  if (!model || !NGRAM_KINDS.includes(model.kind) || !model.components) throw new TypeError(`${op}: model must be what createNgram returns`);
}

/**
 * The weight of each component in this context, the uniform last: the bucket's λ, with a component
 * whose context the text never holds left out and the others renormalised (its estimate would be
 * 0/0; the λ of bucket 0, an unseen top context, is ~0 for the top component anyway).
 */
function mixture(model, a, b, p) {
  const { ctxFns, tables } = model.components;
  const K = ctxFns.length;
  if (model.kind === 'unigram') return { w: [1, 0], runs: [tables[0].lookup(0)], norm: 1 };
  const w = model.weights[bucketOf(tables[0].contextCount(ctxFns[0](a, b, p)))];
  const runs = ctxFns.map((f, k) => tables[k].lookup(f(a, b, p)));
  let norm = w[K];
  for (let k = 0; k < K; k++) if (runs[k]) norm += w[k];
  return { w, runs, norm };
}

/** p(token | a, b, position) under the model. */
function probabilityOf(model, a, b, p, t) {
  const { w, runs, norm } = mixture(model, a, b, p);
  const { tables } = model.components;
  let total = w[runs.length] / model.V;
  for (let k = 0; k < runs.length; k++) {
    const run = runs[k];
    if (!run || w[k] === 0) continue;
    let [lo, hi] = run;
    const tok = tables[k].token;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (tok[mid] < t) lo = mid + 1; else hi = mid; }
    if (lo < run[1] && tok[lo] === t) total += (w[k] * tables[k].count[lo]) / run[2];
  }
  return total / norm;
}

/**
 * The model's loss on `poems`, each scored once from its start (see the header).
 * → { loss (nats per token), tokens, poems (scored), dropped (a character outside the vocabulary) }
 * @param {readonly string[]} poems
 */
export function evaluate(model, poems) {
  checkModel('evaluate', model);
  if (!Array.isArray(poems) || !poems.every((p) => typeof p === 'string')) throw new TypeError('evaluate: poems must be an array of strings');
  const { encoded, dropped } = encode(poems.filter((p) => p !== ''), model.idOf);
  let nats = 0, tokens = 0;
  eachEvent(encoded, (a, b, p, t) => { nats -= Math.log(probabilityOf(model, a, b, p, t)); tokens++; });
  return { loss: tokens ? nats / tokens : NaN, tokens, poems: encoded.length, dropped };
}

/**
 * The dense part of the next-token distribution (the unigram and uniform components) for each
 * bucket, computed once per model: a sampling step copies it and adds the sparse components.
 */
const denseParts = new WeakMap();
function densePart(model, bucket) {
  let parts = denseParts.get(model);
  if (!parts) { parts = []; denseParts.set(model, parts); }
  if (!parts[bucket]) {
    const { ctxFns, tables } = model.components;
    const K = ctxFns.length;  // the unigram is component K - 1, the uniform K
    const w = model.kind === 'unigram' ? [1, 0] : model.weights[bucket];
    const dense = new Float64Array(model.V).fill(w[K] / model.V);
    const [lo, hi, total] = tables[K - 1].lookup(0);
    for (let j = lo; j < hi; j++) dense[tables[K - 1].token[j]] += (w[K - 1] * tables[K - 1].count[j]) / total;
    parts[bucket] = dense;
  }
  return parts[bucket];
}

/** The next-token distribution after (a, b) at position p: a Float64Array over the vocabulary. */
export function nextDistribution(model, a, b, p) {
  checkModel('nextDistribution', model);
  const { tables } = model.components;
  const { w, runs, norm } = mixture(model, a, b, p);
  const bucket = model.kind === 'unigram' ? 0 : bucketOf(runs[0] ? runs[0][2] : 0);
  const dist = Float64Array.from(densePart(model, bucket));
  for (let k = 0; k < runs.length - 1; k++) {
    if (w[k] === 0 || !runs[k]) continue;
    const [lo, hi, total] = runs[k];
    for (let j = lo; j < hi; j++) dist[tables[k].token[j]] += (w[k] * tables[k].count[j]) / total;
  }
  if (norm !== 1) for (let i = 0; i < dist.length; i++) dist[i] /= norm;
  return dist;
}

/**
 * nextDistribution(model, a, b, p) with every entry raised to `power`, computed faster and to the
 * same bits: an entry no sparse component touches is the bucket's dense entry, whose power is
 * computed once per bucket; a touched one is summed in nextDistribution's order, then raised.
 * (When a component's context is unseen the weights are renormalised: then it is the plain path.)
 */
const densePowers = new WeakMap();
function temperedDistribution(model, a, b, p, power, scratch) {
  const { w, runs, norm } = mixture(model, a, b, p);
  if (norm !== 1 || power === 1) {
    const dist = nextDistribution(model, a, b, p);
    if (power !== 1) for (let i = 0; i < dist.length; i++) dist[i] **= power;
    return dist;
  }
  const { tables } = model.components;
  const bucket = model.kind === 'unigram' ? 0 : bucketOf(runs[0] ? runs[0][2] : 0);
  const dense = densePart(model, bucket);
  let byPower = densePowers.get(model);
  if (!byPower) { byPower = new Map(); densePowers.set(model, byPower); }
  const key = `${bucket} ${power}`;
  let densePow = byPower.get(key);
  if (!densePow) { densePow = dense.map((x) => x ** power); byPower.set(key, densePow); }
  const { dist, raw, touched, mark } = scratch;
  dist.set(densePow);
  let nTouched = 0;
  for (let k = 0; k < runs.length - 1; k++) {
    if (w[k] === 0 || !runs[k]) continue;
    const [lo, hi, total] = runs[k];
    for (let j = lo; j < hi; j++) {
      const i = tables[k].token[j];
      if (!mark[i]) { mark[i] = 1; raw[i] = dense[i]; touched[nTouched++] = i; }
      raw[i] += (w[k] * tables[k].count[j]) / total;
    }
  }
  for (let n = 0; n < nTouched; n++) { const i = touched[n]; dist[i] = raw[i] ** power; mark[i] = 0; }
  return dist;
}

/** mulberry32: a small seeded generator of uniform numbers in [0, 1). */
export function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` poems sampled from the model (see the header). → string[]
 * @param {{ count?: number, temperature?: number, seed?: number, maxLength?: number }} [options]
 */
export function samplePoems(model, { count = 200, temperature = 0.8, seed = 0, maxLength = 80 } = {}) {
  checkModel('samplePoems', model);
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`samplePoems: count must be a non-negative integer, got ${count}`);
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new RangeError(`samplePoems: temperature must be a positive number, got ${temperature}`);
  if (!Number.isInteger(seed)) throw new RangeError(`samplePoems: seed must be an integer, got ${seed}`);
  if (!Number.isInteger(maxLength) || maxLength < 1) throw new RangeError(`samplePoems: maxLength must be a positive integer, got ${maxLength}`);
  const random = mulberry32(seed);
  const power = 1 / temperature;
  const scratch = { dist: new Float64Array(model.V), raw: new Float64Array(model.V), touched: new Int32Array(model.V), mark: new Uint8Array(model.V) };
  const poems = [];
  for (let n = 0; n < count; n++) {
    let a = 0, b = 0, text = '';
    for (let p = 0; p < maxLength; p++) {
      const dist = temperedDistribution(model, a, b, Math.min(p, MAX_POSITION), power, scratch);
      let total = 0;
      for (let i = 0; i < dist.length; i++) total += dist[i];
      let u = random() * total, t = dist.length - 1;
      for (let i = 0; i < dist.length; i++) { u -= dist[i]; if (u < 0) { t = i; break; } }
      if (t === 0) break;
      text += model.vocab[t];
      a = b; b = t;
    }
    poems.push(text);
  }
  return poems;
}
