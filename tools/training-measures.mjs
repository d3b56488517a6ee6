// training-measures.mjs: what the page and docs say about training, measured. Used by
// tools/measure-training.mjs (which prints the table and writes web/page/training/claims.js)
// and by tests/training-claims.test.js (which measures again and compares).
//
// Every measure is computed the same way (web/page/training/counting.js) for the trained embedding
// table and for the two counting-only baselines (each word's raw next-word count vector over the
// vocabulary, <s> standing for "the sentence ends"; PPMI-SVD of the words beside each word), so
// the three can be compared honestly.
import { DEFAULT_CORPUS, CORPUS_PRESETS, TRAINING_DEFAULTS, tokenize } from '../web/corpus.js';
import { ANIMALS, VEHICLES, Geometry, measureGeometry, nextWordCounts, ppmiSvd, tableGeometry } from '../web/page/training/counting.js';

/** The seeds every claim is measured over. */
export const SEEDS = Object.freeze(Array.from({ length: 30 }, (_, i) => i));

/** The article's example: the context and the word it should predict. */
export const APPLE = Object.freeze({ context: Object.freeze(['我', '爱', '吃', '苹']), next: '果', sentence: '我 爱 吃 苹 果' });

// ---- geometry over any table of row vectors, and the two counting baselines ----
// (web/page/training/counting.js: the page computes the baselines of the reader's corpus with the
// same functions)
export { ANIMALS, VEHICLES, Geometry, measureGeometry, nextWordCounts, ppmiSvd };

// ---- the counting-only baseline ----

/** What counting alone gives on a corpus (no training, no seed). */
export function countingBaseline(corpus = DEFAULT_CORPUS) {
  const sentences = corpus.map(tokenize);
  const g = nextWordCounts(sentences);
  const after = g.row(APPLE.context[APPLE.context.length - 1]);
  const total = after.reduce((s, x) => s + x, 0);
  const carToAnimals = ANIMALS.reduce((s, a) => s + g.similarity('汽车', a), 0) / ANIMALS.length;
  // 国王's nearest words with their cosines: counting often ties, and a tie is worth saying
  const top3 = (list) => list.slice(0, 3).map(({ word, score }) => ({ word, score: Math.round(score * 1000) / 1000 }));
  return {
    ...measureGeometry(g), pApple: after[g.ids.get(APPLE.next)] / total, carToAnimals,
    kingNeighbours: top3(g.nearest('国王')),
    analogyList: top3(g.analogy('男人', '国王', '女人')),
    controlList: top3(g.analogy('猫', '国王', '狗')),
  };
}

// ---- the trained model ----

/** Mean normalised entropy of the causal attention rows 1 … n−1 (1 = uniform, 0 = one-hot). */
function attentionSpread(model, sentence) {
  const { weights } = model.attention(sentence);
  let sum = 0;
  for (let i = 1; i < weights.rows; i++) {
    let h = 0;
    for (let j = 0; j <= i; j++) {
      const p = weights.get(i, j);
      if (p > 0) h -= p * Math.log(p);
    }
    sum += h / Math.log(i + 1);
  }
  return sum / (weights.rows - 1);
}

function tableOf(model) {
  return tableGeometry(model.vocab, model.embeddings());
}

/** Everything measured about a model at one point of its training. */
export function measureModel(model) {
  const g = tableOf(model);
  return {
    loss: model.loss(),
    pApple: model.predict(APPLE.context).find((x) => x.word === APPLE.next).p,
    attentionSpread: attentionSpread(model, APPLE.sentence),
    ...measureGeometry(g),
    carToAnimals: ANIMALS.reduce((s, a) => s + g.similarity('汽车', a), 0) / ANIMALS.length,
  };
}

/** The points of training measured: step 0, a third of the schedule, the end. */
export function checkpoints(defaults = TRAINING_DEFAULTS) {
  return { start: 0, middle: Math.round(defaults.steps / 3), end: defaults.steps };
}

/**
 * One seed with the training defaults: the default corpus measured at the checkpoints, and the
 * car-with-animals preset (the default corpus plus 一只 汽车 在 叫 and 我 养 了 一只 汽车)
 * measured at the end, where 汽车 should have moved toward the animals.
 */
export function measureSeed(qkv, seed, defaults = TRAINING_DEFAULTS) {
  const points = checkpoints(defaults);
  const out = { seed };
  const model = qkv.createModel({ ...defaults, corpus: DEFAULT_CORPUS, seed });
  try {
    for (const [name, step] of Object.entries(points)) {
      model.train(step - model.steps);
      out[name] = measureModel(model);
    }
  } finally {
    model.dispose();
  }
  const preset = CORPUS_PRESETS.find((p) => p.id === 'car-with-animals');
  const car = qkv.createModel({ ...defaults, corpus: preset.sentences, seed });
  try {
    car.train();
    out.carPreset = measureModel(car);
  } finally {
    car.dispose();
  }
  return out;
}

/** The learning rates the divergence sweep tries (tools/measure-training.mjs --defaults). */
export const DIVERGENCE_LRS = Object.freeze([0.3, 0.4, 0.5, 0.6, 0.7, 1.0]);

/**
 * For each lr, the seeds whose run with the training defaults at that lr diverged within
 * `steps` steps (default: twice the schedule), with the step at which each stopped:
 * [{ lr, steps, diverged: [{ seed, step }] }].
 */
export function divergenceByLr(qkv, lrs = DIVERGENCE_LRS, defaults = TRAINING_DEFAULTS, steps = 2 * defaults.steps) {
  return lrs.map((lr) => {
    const diverged = [];
    for (const seed of SEEDS) {
      const model = qkv.createModel({ ...defaults, lr, seed, steps });
      try {
        model.train();
      } catch (error) {
        if (error.name !== 'DivergenceError') throw error;
        diverged.push({ seed, step: model.steps + 1 });
      } finally {
        model.dispose();
      }
    }
    return { lr, steps, diverged };
  });
}

// ---- summaries ----

export function range(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { min: sorted[0], median, max: sorted[n - 1] };
}

export function count(values, predicate) {
  return { count: values.filter(predicate).length, of: values.length };
}

/** A range as claims state it: min rounded down and max up to 2 decimals, the median to 2. */
export function statedRange(values) {
  const r = range(values);
  return { min: Math.floor(r.min * 100 + 1e-9) / 100, median: Math.round(r.median * 100) / 100, max: Math.ceil(r.max * 100 - 1e-9) / 100 };
}

const round3 = (x) => Math.round(x * 1000) / 1000;

/**
 * What the claims module holds, from the per-seed results: ranges { min, median, max } and
 * counts { count, of }, each with a note saying what it measures; and the counting baseline.
 */
export function summarize(results, defaults = TRAINING_DEFAULTS) {
  const points = checkpoints(defaults);
  const at = (names, f) => Object.fromEntries(names.map((n) => [n, f(results.map((r) => r[n]))]));
  const all = ['start', 'middle', 'end'];
  const rangeOf = (key, names = all) => at(names, (ms) => statedRange(ms.map((m) => m[key])));
  const countOf = (pred, names = all) => at(names, (ms) => count(ms, pred));
  const counting = countingBaseline();
  const twins = countingBaseline(CORPUS_PRESETS.find((p) => p.id === 'twins').sentences);
  const carCounting = countingBaseline(CORPUS_PRESETS.find((p) => p.id === 'car-with-animals').sentences);
  const ppmi = measureGeometry(ppmiSvd(DEFAULT_CORPUS.map(tokenize)));
  // the trained table against both counts: below (or above) the lower (or higher) of the two
  const low = (key) => Math.min(counting[key], ppmi[key]), high = (key) => Math.max(counting[key], ppmi[key]);
  return {
    seeds: { from: SEEDS[0], to: SEEDS[SEEDS.length - 1], count: SEEDS.length },
    defaults: { ...defaults },
    checkpoints: points,
    ranges: {
      loss: { note: 'mean next-word loss over the default corpus (a uniform guess is ln V)', ...rangeOf('loss', ['start', 'end']) },
      catDog: { note: 'cos(猫, 狗): cosine of the two embedding rows', ...rangeOf('catDog') },
      catCar: { note: 'cos(猫, 汽车)', ...rangeOf('catCar') },
      groupGap: { note: 'mean cosine between two animals minus mean cosine between an animal and a vehicle', ...rangeOf('groupGap') },
      pApple: { note: 'p(果 | 我 爱 吃 苹): the model\'s probability of 果 after 我 爱 吃 苹', ...rangeOf('pApple') },
      attentionSpread: { note: 'attention on 我 爱 吃 苹 果: mean entropy of rows 1–5 over its uniform maximum (1 = uniform, 0 = one word)', ...rangeOf('attentionSpread', ['start', 'end']) },
      analogyRank: { note: 'rank of 女王 among the words nearest 国王 − 男人 + 女人 (1 = first)', ...rangeOf('analogyRank', ['end']) },
      carToAnimals: {
        note: 'mean cos(汽车, animal) after the schedule, on the default corpus and on the car-with-animals preset',
        end: statedRange(results.map((r) => r.end.carToAnimals)),
        carPreset: statedRange(results.map((r) => r.carPreset.carToAnimals)),
      },
      carPresetCatCar: { note: 'cos(猫, 汽车) after the schedule on the car-with-animals preset', end: statedRange(results.map((r) => r.carPreset.catCar)) },
    },
    counts: {
      catNearerDog: { note: 'seeds where cos(猫, 狗) > cos(猫, 汽车)', ...countOf((m) => m.catDog > m.catCar) },
      groupGapPositive: { note: 'seeds where the animals are closer to each other than to the vehicles on average (groupGap > 0)', ...countOf((m) => m.groupGap > 0) },
      nearestIsAnimal: { note: 'seeds where every animal\'s nearest word among the animals and vehicles is an animal', ...countOf((m) => m.nearestIsAnimal) },
      animalsApart: { note: 'seeds where every animal is closer to every other animal than to any vehicle (strict)', ...countOf((m) => m.animalsApart) },
      analogyQueen: { note: 'seeds where 国王 − 男人 + 女人 gives 女王 first', ...countOf((m) => m.analogyRank === 1, ['end']) },
      kingNearestQueen: { note: 'baseline the analogy must beat: seeds where 女王 is 国王\'s own nearest word', ...countOf((m) => m.kingNearest === '女王', ['end']) },
      analogyBeyondNeighbour: { note: 'seeds where the analogy gives 女王 although 国王\'s nearest word is another', ...countOf((m) => m.analogyRank === 1 && m.kingNearest !== '女王', ['end']) },
      controlQueen: { note: 'nonsense control: seeds where 国王 − 猫 + 狗 gives 女王 first', ...countOf((m) => m.controlRank === 1, ['end']) },
      sumQueen: { note: 'seeds where 国王 + 女人 alone (the analogy without − 男人) gives 女王 first', ...countOf((m) => m.sumRank === 1, ['end']) },
      catDogBelowCounting: { note: 'seeds where cos(猫, 狗) ends below both counting baselines (next-word counts and PPMI-SVD)', ...countOf((m) => m.catDog < low('catDog'), ['end']) },
      catCarBelowCounting: { note: 'seeds where cos(猫, 汽车) ends below both counting baselines', ...countOf((m) => m.catCar < low('catCar'), ['end']) },
      groupGapAboveCounting: { note: 'seeds where the animals–vehicles gap (groupGap) ends above both counting baselines', ...countOf((m) => m.groupGap > high('groupGap'), ['end']) },
      carMoved: {
        note: 'seeds where 汽车 ends closer to the animals (mean cosine) with the car-with-animals preset than with the default corpus',
        ...count(results, (r) => r.carPreset.carToAnimals > r.end.carToAnimals),
      },
    },
    counting: {
      note: 'no training: each word\'s raw next-word count vector over the vocabulary (<s> = the sentence ends), with the same measures',
      default: countingSummary(counting),
      carPreset: countingSummary(carCounting),
      twins: countingSummary(twins),
      ppmi: {
        note: 'no training: PPMI with the word before and the word after, cut to the model\'s dim by an SVD (default corpus)',
        catDog: round3(ppmi.catDog), catCar: round3(ppmi.catCar), groupGap: round3(ppmi.groupGap),
        nearestIsAnimal: ppmi.nearestIsAnimal, animalsApart: ppmi.animalsApart,
        analogyTop: ppmi.analogyTop, sumTop: ppmi.sumTop, sumRank: ppmi.sumRank,
      },
    },
  };
}

function countingSummary(c) {
  return {
    catDog: round3(c.catDog), catCar: round3(c.catCar), groupGap: round3(c.groupGap),
    nearestIsAnimal: c.nearestIsAnimal, animalsApart: c.animalsApart,
    analogy: c.analogyList, sumTop: c.sumTop, control: c.controlList, kingNeighbours: c.kingNeighbours,
    pApple: round3(c.pApple), carToAnimals: round3(c.carToAnimals),
  };
}

// ---- the claims module and the docs' table (tools/docs-tables.mjs), both written from the summary ----


export function formatRange(r, digits = 2) {
  return `${r.min.toFixed(digits)} to ${r.max.toFixed(digits)} (median ${r.median.toFixed(digits)})`;
}
export function formatCount(c) {
  return `${c.count} of ${c.of}`;
}

/** The docs' table (Markdown) of a summary: docs/api.md, through tools/docs-tables.mjs. */
export function readmeTable(claims) {
  const { ranges: R, counts: C, counting: K, checkpoints: P, seeds: S } = claims;
  const cell = (x, digits) => (x === undefined ? '—' : x.min !== undefined ? formatRange(x, digits) : formatCount(x));
  const yes = (b) => (b ? 'yes' : 'no');
  const list = (xs) => xs.map((x) => `${x.word} ${x.score.toFixed(3)}`).join(', ');
  const row = (label, m, counting, digits = 2) =>
    `| ${label} | ${cell(m.start, digits)} | ${cell(m.middle, digits)} | ${cell(m.end, digits)} | ${counting} |`;
  return [
    `| seeds ${S.from}–${S.to} (${S.count} runs) | step ${P.start} | step ${P.middle} | step ${P.end} (end) | counting only |`,
    '| --- | --- | --- | --- | --- |',
    row('corpus loss', R.loss, '—'),
    row('cos(猫, 狗)', R.catDog, K.default.catDog.toFixed(3)),
    row('cos(猫, 汽车)', R.catCar, K.default.catCar.toFixed(3)),
    row('mean cos between animals − mean cos animal–vehicle', R.groupGap, K.default.groupGap.toFixed(3)),
    row('seeds with cos(猫, 狗) > cos(猫, 汽车)', C.catNearerDog, 'yes'),
    row('seeds where the animals are closer to each other than to the vehicles on average', C.groupGapPositive, yes(K.default.groupGap > 0)),
    row('seeds where every animal\'s nearest word among animals and vehicles is an animal', C.nearestIsAnimal, yes(K.default.nearestIsAnimal)),
    row('seeds where every animal is closer to every other animal than to any vehicle', C.animalsApart, yes(K.default.animalsApart)),
    row('p(果 \\| 我 爱 吃 苹)', R.pApple, `${K.default.pApple.toFixed(3)} (苹 is always followed by 果)`),
    row('attention on 我 爱 吃 苹 果: entropy / uniform (1 = uniform)', R.attentionSpread, '—'),
    row('seeds where 国王 − 男人 + 女人 gives 女王 first', C.analogyQueen, list(K.default.analogy)),
    row('rank of 女王 for 国王 − 男人 + 女人', R.analogyRank, '—', 0),
    row('seeds where 女王 is 国王\'s own nearest word (the baseline)', C.kingNearestQueen, list(K.default.kingNeighbours)),
    row('seeds where the analogy gives 女王 and 国王\'s nearest word is another', C.analogyBeyondNeighbour, '—'),
    row('seeds where the nonsense 国王 − 猫 + 狗 gives 女王 first', C.controlQueen, list(K.default.control)),
    `| car-with-animals preset: mean cos(汽车, animal) | — | — | ${formatRange(R.carToAnimals.carPreset)}; default corpus ${formatRange(R.carToAnimals.end)}; higher with the preset on ${formatCount(C.carMoved)} seeds | ${K.carPreset.carToAnimals.toFixed(3)}; default corpus ${K.default.carToAnimals.toFixed(3)} |`,
  ].join('\n');
}

/** The text of web/page/training/claims.js for a summary. */
export function claimsModule(claims) {
  return `// training/claims.js: every range the page and README state about training, as data.
// Measured over seeds ${claims.seeds.from}–${claims.seeds.to} with TRAINING_DEFAULTS on the default corpus (web/corpus.js) by
// \`node tools/measure-training.mjs --write\`, which wrote this file: do not edit it by hand.
// tests/training-claims.test.js measures again and fails when a stated range no longer holds.
//
//   ranges.<id>: { note, start?, middle?, end?, … }, each a { min, median, max } over the seeds
//                (min rounded down, max up, median to 2 decimals); checkpoints: the steps measured
//   counts.<id>: { note, start?, middle?, end? }, each { count, of }: on how many seeds it held
//   counting:    the same measures with no training at all (raw next-word count vectors; ppmi: PPMI-SVD)

/** The measured claims (frozen). */
export const TRAINING_CLAIMS = deepFreeze(${JSON.stringify(claims, null, 2)});

/** '0.59 to 0.90 (median 0.75)' */
export function formatRange(r, digits = 2) {
  return \`\${r.min.toFixed(digits)} to \${r.max.toFixed(digits)} (median \${r.median.toFixed(digits)})\`;
}

/** '27 of 30' */
export function formatCount(c) {
  return \`\${c.count} of \${c.of}\`;
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
`;
}
