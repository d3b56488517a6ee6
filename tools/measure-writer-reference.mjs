// measure-writer-reference.mjs: the writer's GPT (the page's section "A Transformer that writes",
// GPT_DEFAULTS on the committed 3,710 quatrains) measured in the pretrained report's terms, so
// that the 预训练 section can put it beside the pretrained poet and the counting baselines.
// Writes web/data/writer-reference.json. A measurement of a few minutes, not a test; everything
// is seeded, so the same code gives the same file.
//
//   node tools/measure-writer-reference.mjs [--seeds 0,1,2] [--samples 200]
//
// For each seed: createGPT with GPT_DEFAULTS (the writer's default run, 600 steps) trained to the
// end; then, as tools/pretrained-report.mjs measures the pretrained poet,
//   loss     gpt.evaluatePoems() on the validation 五绝 of web/data/poems-val.js, each poem once
//            from its start with the end-of-text token (nats per character), leaving out the
//            poems the writer trained on (the quatrains hold most of them: every 10th is its own
//            validation line, the rest it learns from) and those with a character outside its
//            vocabulary;
//   samples  `samples` poems at temperature 0.8 from the end-of-text token alone, seeds
//            0 … samples − 1 (as the report), read by web/poetry/metrics.js: well-formed share,
//            rhyme of lines 2 and 4 among the well-formed, novelty against its training poems.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { GPT_DEFAULTS } from '../web/gpt-defaults.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { summarize, trainingIndex } from '../web/poetry/metrics.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'web', 'data', 'writer-reference.json');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const SEEDS = arg('--seeds', '0,1,2').split(',').map(Number);
const SAMPLES = Number(arg('--samples', 200));
const TEMPERATURE = 0.8;
const round = (x, d = 4) => (x === null ? null : Number(x.toFixed(d)));
const started = performance.now();
const log = (...a) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s]`, ...a);

const qkv = await load({ gpt: true });
const lines = QUATRAINS.poems.split('\n').filter(Boolean);
// createGPT holds out every 10th line (lines 10, 20, …: docs/gpt.md); it learns from the rest
const trainedOn = lines.filter((_, i) => (i + 1) % 10 !== 0);
const trainedSet = new Set(trainedOn);
const index = trainingIndex(trainedOn.join('\n'));

const runs = [];
for (const seed of SEEDS) {
  const gpt = qkv.createGPT({ text: QUATRAINS.poems, ...GPT_DEFAULTS, seed });
  gpt.train();
  const vocab = new Set(gpt.vocab);
  const val = POEMS_VAL.wujue.split('\n').filter(Boolean);
  const scored = val.filter((p) => !trainedSet.has(p) && Array.from(p).every((ch) => vocab.has(ch)));
  const loss = gpt.evaluatePoems(scored).loss;
  const poems = Array.from({ length: SAMPLES }, (_, s) => gpt.generate('', { temperature: TEMPERATURE, seed: s }).text);
  const sum = summarize(poems, { index });
  runs.push({ seed, steps: gpt.steps, vocab: gpt.vocab.length, parameters: gpt.parameterCount,
    val: { poems: scored.length, of: val.length, trainedOn: val.filter((p) => trainedSet.has(p)).length, loss: round(loss, 5) },
    wellFormed: round(sum.wellFormed), byForm: sum.byForm, lines24: round(sum.rhyme.wujue.lines24),
    lineShare: round(sum.novelty.lineShare), copiedPoems: sum.novelty.copiedPoems, examples: poems.slice(0, 3) });
  log(`seed ${seed}: val ${loss.toFixed(3)} on ${scored.length} poems, form ${sum.wellFormed}, rhyme ${sum.rhyme.wujue.lines24}, lines copied ${sum.novelty.lineShare}`);
  gpt.dispose();
}
const range = (key) => {
  const values = runs.map((r) => key(r)).filter((v) => v !== null);
  return values.length ? [Math.min(...values), Math.max(...values)] : null;
};
const report = {
  about: 'Written by tools/measure-writer-reference.mjs; do not edit. The writer\'s default GPT measured as tools/pretrained-report.mjs measures the pretrained poet.',
  settings: { ...GPT_DEFAULTS, text: `web/data/quatrains.js (${lines.length} poems)` },
  sampling: { temperature: TEMPERATURE, prompt: '', samples: SAMPLES, seeds: [0, SAMPLES - 1] },
  ranges: { valLoss: range((r) => r.val.loss), wellFormed: range((r) => r.wellFormed), lines24: range((r) => r.lines24), lineShare: range((r) => r.lineShare) },
  runs,
};
writeFileSync(OUT, `${JSON.stringify(report, null, 1)}\n`);
log(`wrote ${OUT}`);
