// measure-training.mjs: trains the default model on seeds 0–29 with TRAINING_DEFAULTS and
// prints, per seed and as ranges, what the page and README claim about training; the same
// measures for counting alone (no training) beside them.
//
//   node tools/measure-training.mjs           # print the table
//   node tools/measure-training.mjs --write   # also write web/page/training/claims.js and the
//                                             # README's table between its training-claims markers
//   node tools/measure-training.mjs --defaults  # the measurements TRAINING_DEFAULTS were chosen
//                                             # from (a few minutes): divergence by lr, and the
//                                             # measures along a 2×-long schedule
//
// tests/training-claims.test.js measures again and fails when a stated range no longer holds:
// after changing the corpus, the defaults or the model's arithmetic, run this with --write and
// read what changed before committing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { TRAINING_DEFAULTS } from '../web/corpus.js';
import { SEEDS, measureSeed, measureModel, range, summarize, readmeTable, claimsModule, README_MARKERS } from './training-measures.mjs';

const write = process.argv.includes('--write');
const qkv = await load();

if (process.argv.includes('--defaults')) {
  chooseDefaults();
  process.exit(0);
}

/**
 * What the defaults were chosen from. Batch size 1 (one sentence per step, the article's
 * sparse-row point) whenever it learns; lr: half the smallest lr of this list at which a seed
 * diverges within twice the schedule; steps: the first checkpoint where the median corpus loss
 * is within 10 % of its value at twice the schedule (with p(果 | 我 爱 吃 苹) reported beside it).
 */
function chooseDefaults() {
  const long = 2 * TRAINING_DEFAULTS.steps;
  console.log(`divergence within ${long} steps, batch 1, dim ${TRAINING_DEFAULTS.dim}, sgd, seeds 0–29:`);
  for (const lr of [0.3, 0.4, 0.5, 0.6, 0.7, 1.0]) {
    const diverged = [];
    for (const seed of SEEDS) {
      const model = qkv.createModel({ ...TRAINING_DEFAULTS, lr, seed, steps: long });
      try { model.train(); } catch { diverged.push(`${seed}@${model.steps + 1}`); }
      model.dispose();
    }
    console.log(`  lr ${lr}: ${diverged.length} of ${SEEDS.length} seeds diverged ${diverged.join(' ')}`);
  }
  const points = [250, 500, 750, 1000, 1500, 2000, long].filter((p) => p <= long);
  const at = points.map(() => []);
  for (const seed of SEEDS) {
    const model = qkv.createModel({ ...TRAINING_DEFAULTS, seed, steps: long });
    points.forEach((p, k) => { model.train(p - model.steps); at[k].push(measureModel(model)); });
    model.dispose();
  }
  console.log(`\nlr ${TRAINING_DEFAULTS.lr}, batch ${TRAINING_DEFAULTS.batchSize}: medians over seeds (counts of 30)`);
  console.log(' step  loss  p(果)  cos(猫,狗) cos(猫,汽车)  animals apart (strict)  nearest is an animal  国王−男人+女人→女王');
  points.forEach((p, k) => {
    const ms = at[k];
    const med = (key) => range(ms.map((m) => m[key])).median;
    console.log([String(p).padStart(5), med('loss').toFixed(3), med('pApple').toFixed(3).padStart(6),
      med('catDog').toFixed(3).padStart(9), med('catCar').toFixed(3).padStart(11),
      String(ms.filter((m) => m.animalsApart).length).padStart(12), String(ms.filter((m) => m.nearestIsAnimal).length).padStart(20),
      String(ms.filter((m) => m.analogyRank === 1).length).padStart(18)].join(' '));
  });
}
const t0 = performance.now();
const results = SEEDS.map((seed) => measureSeed(qkv, seed));
const seconds = (performance.now() - t0) / 1000;

const f = (x, d = 3) => (x >= 0 ? ' ' : '') + x.toFixed(d);
console.log(`defaults ${JSON.stringify(TRAINING_DEFAULTS)}; ${SEEDS.length} seeds in ${seconds.toFixed(1)} s`);
console.log('seed  loss0  loss   cos(猫,狗) cos(猫,汽车) gap    apart nnAnimal  p(果)  attn   国王−男人+女人  国王−猫+狗  国王 nearest  car preset: cos(汽车,animals)');
for (const r of results) {
  const e = r.end;
  console.log([
    String(r.seed).padStart(4), r.start.loss.toFixed(2).padStart(6), e.loss.toFixed(2).padStart(6),
    f(e.catDog).padStart(9), f(e.catCar).padStart(10), f(e.groupGap, 2).padStart(6),
    (e.animalsApart ? 'yes' : 'no').padStart(5), (e.nearestIsAnimal ? 'yes' : 'no').padStart(8),
    e.pApple.toFixed(3).padStart(6), e.attentionSpread.toFixed(2).padStart(6),
    `${e.analogyTop} (#${e.analogyRank} 女王)`.padStart(14), `${e.controlTop}`.padStart(8), e.kingNearest.padStart(10),
    `${f(e.carToAnimals, 2)} → ${f(r.carPreset.carToAnimals, 2)}`.padStart(16),
  ].join(' '));
}

const claims = summarize(results);
console.log('\n' + readmeTable(claims));
console.log('\ncounting only (no training):', JSON.stringify(claims.counting, null, 1));

if (write) {
  const claimsPath = fileURLToPath(new URL('../web/page/training/claims.js', import.meta.url));
  writeFileSync(claimsPath, claimsModule(claims));
  const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
  const readme = readFileSync(readmePath, 'utf8');
  const [begin, end] = README_MARKERS;
  const a = readme.indexOf(begin), b = readme.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README.md has no ${begin} … ${end} block to write the table into`);
  writeFileSync(readmePath, readme.slice(0, a + begin.length) + '\n' + readmeTable(claims) + '\n' + readme.slice(b));
  console.log(`\nwrote web/page/training/claims.js and README.md's table`);
}
