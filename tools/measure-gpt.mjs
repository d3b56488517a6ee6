// measure-gpt.mjs: does the GPT learn to write quatrains? A measurement, not a test (it takes
// minutes): for each seed, createGPT on the Tang quatrains with the given settings (default:
// GPT_DEFAULTS), then at step 0 and at each checkpoint
//   - the validation and training loss (gpt.evaluate(), nats per character),
//   - the share of 50 poems generated at temperature 0.8 (generation seeds 0..49) that are
//     well-formed 五言绝句 (web/data/quatrain-form.js),
//   - the seconds of training so far: CPU seconds of this process (one core's time, whatever
//     else runs on the machine) and wall-clock seconds;
// and the two baselines: ln V (a uniform guess) and the unigram cross-entropy of the validation
// text under the training text's character frequencies. Prints one line per measurement and the
// ranges over the seeds at the end; --json FILE writes everything.
//
//   node tools/measure-gpt.mjs [--seeds 0-4] [--steps N] [--batch B] [--lr X] [--layers L]
//        [--dim C] [--heads H] [--context T] [--checkpoints 250,500,...] [--poems 50] [--json out.json]
//   (QKV_LAB_SIMD=0 measures the scalar build)
import { writeFileSync } from 'node:fs';
import { load } from '../web/qkv-lab.js';
import { GPT_DEFAULTS } from '../web/gpt.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { isWellFormedQuatrain } from '../web/data/quatrain-form.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const [s0, s1] = opt('seeds', '0-4').split('-').map(Number);
const seeds = Array.from({ length: (s1 ?? s0) - s0 + 1 }, (_, i) => s0 + i);
const settings = { ...GPT_DEFAULTS };
for (const key of ['steps', 'batch', 'lr', 'layers', 'dim', 'heads', 'context']) {
  if (opt(key) !== undefined) settings[key] = Number(opt(key));
}
const poems = Number(opt('poems', 50));
const checkpoints = (opt('checkpoints') ?? [0.25, 0.5, 0.75, 1].map((f) => Math.round(f * settings.steps)).join(','))
  .split(',').map(Number);
const text = QUATRAINS.poems;

// the baselines, from the text alone (the same split createGPT makes: every 10th line held out)
const lines = text.split('\n').filter((l) => l !== '');
const counts = new Map();
let trainChars = 0;
lines.forEach((line, i) => {
  if (i % 10 === 9) return;
  for (const ch of [...line, '\n']) { counts.set(ch, (counts.get(ch) ?? 0) + 1); trainChars++; }
});
let valLoss = 0, valChars = 0;
const distinct = new Set([...text.replace(/\n/g, '')]).size + 1;
lines.forEach((line, i) => {
  if (i % 10 !== 9) return;
  for (const ch of [...line, '\n']) {
    // add-one smoothing over the vocabulary, so that an unseen character costs a finite amount
    valLoss -= Math.log(((counts.get(ch) ?? 0) + 1) / (trainChars + distinct));
    valChars++;
  }
});
const unigram = valLoss / valChars;

const qkv = await load({ gpt: true });
console.log(`GPT ${JSON.stringify(settings)}, ${qkv.simd ? 'SIMD128' : 'scalar'} kernels, seeds ${seeds.join(', ')}`);
console.log(`baselines: ln V = ${Math.log(distinct).toFixed(3)} nats (V = ${distinct}); unigram (add-one) on the validation text = ${unigram.toFixed(3)} nats`);

function formShare(gpt) {
  let good = 0;
  for (let s = 0; s < poems; s++) {
    const { text: poem } = gpt.generate('', { temperature: 0.8, seed: s });
    if (isWellFormedQuatrain(poem)) good++;
  }
  return good / poems;
}

const runs = [];
for (const seed of seeds) {
  const gpt = qkv.createGPT({ text, ...settings, seed });
  const run = { seed, points: [] };
  let seconds = 0, wall = 0;
  const measure = () => {
    const { train, val } = gpt.evaluate();
    const share = formShare(gpt);
    const example = gpt.generate('', { temperature: 0.8, seed: 0 }).text;
    run.points.push({ step: gpt.steps, seconds, wall, train, val, form: share, example });
    console.log(`seed ${seed} step ${String(gpt.steps).padStart(5)}  ${seconds.toFixed(1).padStart(6)} s CPU ${wall.toFixed(1).padStart(6)} s wall  ` +
      `train ${train.toFixed(3)}  val ${val.toFixed(3)}  form ${(100 * share).toFixed(0).padStart(3)}%  ${example}`);
  };
  measure();
  for (const target of checkpoints) {
    const t0 = performance.now(), c0 = process.cpuUsage();
    gpt.train(target - gpt.steps);
    const c = process.cpuUsage(c0);
    seconds += (c.user + c.system) / 1e6;
    wall += (performance.now() - t0) / 1000;
    measure();
  }
  gpt.dispose();
  runs.push(run);
}

const range = (values, digits, scale = 1) => {
  const lo = Math.min(...values) * scale, hi = Math.max(...values) * scale;
  return lo.toFixed(digits) === hi.toFixed(digits) ? lo.toFixed(digits) : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`;
};
console.log(`\nranges over seeds ${seeds.join(', ')}:`);
for (let k = 0; k < runs[0].points.length; k++) {
  const at = runs.map((r) => r.points[k]);
  console.log(`  step ${String(at[0].step).padStart(5)}: ${range(at.map((p) => p.seconds), 0)} s CPU ` +
    `(${range(at.map((p) => p.wall), 0)} s wall), val ${range(at.map((p) => p.val), 2)}, ` +
    `train ${range(at.map((p) => p.train), 2)}, well formed ${range(at.map((p) => p.form), 0, 100)}%`);
}
const out = opt('json');
if (out) writeFileSync(out, JSON.stringify({ settings, simd: qkv.simd, lnV: Math.log(distinct), unigram, runs }, null, 1));
