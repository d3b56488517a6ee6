// measure-baselines.mjs: what counting gives on the pretraining text, and what the real poems
// score, in the numbers the pretrained GPT's targets are measured in (docs/pretrained.md,
// docs/poetry-metrics.md).
// Writes web/data/pretrained-baselines.json, which docs/poetry-metrics.md, the report tool and the
// tests read. A measurement of a few minutes, not a test (CI has no training text).
//
//   node tools/measure-baselines.mjs           # write web/data/pretrained-baselines.json
//   node tools/measure-baselines.mjs --check   # recompute, exit 1 when the committed file differs
//
// It needs .build/pretrain/train.txt (node tools/extract-poems.mjs writes it) and refuses a text
// whose checksum is not the one web/data/poems-val.js records. Everything is seeded: the same text
// gives the same file byte for byte.
//
// What it measures:
//   real       the held-out poems of web/data/poems-val.js, per form: rhyme (lines 2 and 4; all
//              even lines), 平 at the even lines' ends, novelty against the training poems, and
//              chance (two even-line ends drawn at random share a group); the committed 3,710
//              quatrains too, the figures docs/TOOLCHAIN quote (79 % rhyme, 10 % chance).
//   baselines  web/poetry/ngram.js's unigram, interpolated trigram and position-aware bigram,
//              trained on the whole training text (all four forms, as the GPT is): the weights
//              and their held-out loss, the validation loss (each poem once from its start, the
//              end-of-text token included) for the 五绝 split, each form and all forms together,
//              and 200 poems sampled at T = 0.8 for each of the seeds 1–5, read by the metrics.
//   perForm    the trigram and the positional bigram trained on one form's training poems only
//              (same vocabulary): the loss on that form's validation poems, and 200 samples per
//              seed. One form per model lets a position-aware model keep the form, so its samples
//              are well-formed often enough to read their rhyme.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fnv1a } from './extract-poems.mjs';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { FORM_NAMES, formOf, rhyme, summarize, chanceRhyme, trainingIndex } from '../web/poetry/metrics.js';
import { NGRAM_KINDS, createNgram, evaluate, fitWeights, samplePoems, vocabularyOf } from '../web/poetry/ngram.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TRAIN = join(ROOT, '.build', 'pretrain', 'train.txt');
const OUT = join(ROOT, 'web', 'data', 'pretrained-baselines.json');
const SEEDS = [1, 2, 3, 4, 5];
const SAMPLES = 200;
const TEMPERATURE = 0.8;
const check = process.argv.includes('--check');

if (!existsSync(TRAIN)) throw new Error(`${TRAIN} is missing: run node tools/extract-poems.mjs first`);
const text = readFileSync(TRAIN, 'utf8');
if (fnv1a(text) !== POEMS_VAL.train.checksum) {
  throw new Error(`${TRAIN} has checksum ${fnv1a(text)}, web/data/poems-val.js records ${POEMS_VAL.train.checksum}`);
}
const started = performance.now();
const log = (...a) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s]`, ...a);

const round = (x, digits = 4) => (x === null || x === undefined || Number.isNaN(x) ? null : Number(x.toFixed(digits)));
const roundDeep = (v) => (typeof v === 'number' ? round(v) : Array.isArray(v) ? v.map(roundDeep)
  : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, roundDeep(x)])) : v);
const range = (values) => {
  const xs = values.filter((x) => x !== null);
  return xs.length ? [round(Math.min(...xs)), round(Math.max(...xs))] : null;
};

const val = Object.fromEntries(FORM_NAMES.map((f) => [f, POEMS_VAL[f].split('\n').filter(Boolean)]));
const valAll = FORM_NAMES.flatMap((f) => val[f]);
const trainPoems = text.split('\n').filter(Boolean);
const trainByForm = Object.fromEntries(FORM_NAMES.map((f) => [f, trainPoems.filter((p) => formOf(p) === f)]));
const vocabulary = vocabularyOf(text);

log('indexing the training text');
const index = trainingIndex(text);

// ---- the real poems ----
log('the real poems');
const real = {};
for (const f of FORM_NAMES) {
  const s = summarize(val[f], { index });
  real[f] = { poems: val[f].length, lines24: s.rhyme[f].lines24, allEven: s.rhyme[f].allEven, level: s.level,
    chance: chanceRhyme(trainByForm[f]), novelty: s.novelty };
}
const quatrains = QUATRAINS.poems.split('\n');
const qs = summarize(quatrains);
// lines 1 and 2 need not rhyme: how often their ends share a group anyway
const lines12 = quatrains.filter((p) => rhyme(p).lines12).length / quatrains.length;
const quatrainFigures = { poems: quatrains.length, lines24: qs.rhyme.wujue.lines24, lines12, chance: chanceRhyme(quatrains) };

// ---- the baselines ----
function sampled(model) {
  const perSeed = SEEDS.map((seed) => {
    const poems = samplePoems(model, { count: SAMPLES, temperature: TEMPERATURE, seed });
    const s = summarize(poems, { index });
    return { seed, wellFormed: s.wellFormed, byForm: s.byForm, lines24: s.rhyme.all.lines24, allEven: s.rhyme.all.allEven,
      rhymedOf: s.rhyme.all.poems, lineShare: s.novelty.lineShare, copiedPoems: s.novelty.copiedPoems,
      meanLongest: s.novelty.meanLongest, examples: poems.slice(0, 3) };
  });
  const r = (key) => range(perSeed.map((p) => p[key]));
  return { count: SAMPLES, temperature: TEMPERATURE, seeds: SEEDS,
    ranges: { wellFormed: r('wellFormed'), lines24: r('lines24'), allEven: r('allEven'), lineShare: r('lineShare'),
      copiedPoems: r('copiedPoems'), meanLongest: r('meanLongest') },
    perSeed };
}

const baselines = {};
for (const kind of NGRAM_KINDS) {
  log(`${kind}: weights`);
  const fit = fitWeights(kind, text);
  const model = createNgram(kind, text, { weights: fit.weights });
  log(`${kind}: validation loss`);
  const loss = { all: evaluate(model, valAll) };
  for (const f of FORM_NAMES) loss[f] = evaluate(model, val[f]);
  log(`${kind}: ${loss.wujue.loss.toFixed(4)} on 五绝, ${loss.all.loss.toFixed(4)} on all; sampling`);
  baselines[kind] = { weights: fit.weights, heldOutLoss: fit.heldOutLoss, heldOutTokens: fit.heldOutTokens, val: loss, samples: sampled(model) };
}

const perForm = {};
for (const kind of ['trigram', 'positional']) {
  perForm[kind] = {};
  for (const f of FORM_NAMES) {
    log(`${kind} on ${f} only`);
    const formText = trainByForm[f].join('\n') + '\n';
    const fit = fitWeights(kind, formText, { vocabulary });
    const model = createNgram(kind, formText, { weights: fit.weights, vocabulary });
    perForm[kind][f] = { trainPoems: trainByForm[f].length, weights: fit.weights, heldOutLoss: fit.heldOutLoss,
      val: evaluate(model, val[f]), samples: sampled(model) };
  }
}

const best = (split) => {
  const candidates = NGRAM_KINDS.map((k) => ({ model: k, loss: baselines[k].val[split].loss }));
  if (split !== 'all') for (const k of Object.keys(perForm)) candidates.push({ model: `${k} (${split} only)`, loss: perForm[k][split].val.loss });
  return candidates.reduce((a, b) => (b.loss < a.loss ? b : a));
};

const out = roundDeep({
  about: 'Written by tools/measure-baselines.mjs (docs/poetry-metrics.md); do not edit.',
  train: { poems: trainPoems.length, checksum: POEMS_VAL.train.checksum, vocabulary: vocabulary.length },
  conventions: {
    loss: 'nats per token: each validation poem scored once from the end-of-text token, predicting every character and then the end-of-text token; poems with a character outside the training vocabulary left out (dropped)',
    sampling: `${SAMPLES} poems per seed at temperature ${TEMPERATURE} (p^(1/T) renormalised), from the end-of-text token to the next one (at most 80 characters), seeds ${SEEDS.join(', ')}`,
    rhyme: 'web/poetry/metrics.js: modern finals grouped roughly as 中华新韵 (web/data/rhyme-groups.js); lines24 and allEven among the well-formed poems',
  },
  real, quatrains: quatrainFigures, baselines, perForm,
  best: { wujue: best('wujue'), all: best('all'), ...Object.fromEntries(FORM_NAMES.slice(1).map((f) => [f, best(f)])) },
});
const json = JSON.stringify(out, null, 1) + '\n';
if (check) {
  const committed = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  if (committed !== json) { console.error(`${OUT} differs from what the tool computes now`); process.exitCode = 1; }
  else log(`${OUT} is what the tool computes`);
} else {
  writeFileSync(OUT, json);
  log(`wrote ${OUT}`);
}
