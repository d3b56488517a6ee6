// measure-training.mjs: trains the default model on seeds 0–29 with TRAINING_DEFAULTS and
// prints, per seed and as ranges, what the page and docs claim about training; the same
// measures for counting alone (no training) beside them.
//
//   node tools/measure-training.mjs           # print the table
//   node tools/measure-training.mjs --write   # also write web/page/training/claims.js and the
//                                             # docs/api.md's table (tools/docs-tables.mjs writes it)
//   node tools/measure-training.mjs --defaults  # the measurements TRAINING_DEFAULTS were chosen
//                                             # from (a few minutes): divergence by lr, and the
//                                             # measures along a 2×-long schedule
//
// tests/training-claims.test.js measures again and fails when a stated range no longer holds:
// after changing the corpus, the defaults or the model's arithmetic, run this with --write and
// read what changed before committing it.
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { TRAINING_DEFAULTS, DEFAULT_CORPUS, tokenize } from '../web/corpus.js';
import { SEEDS, divergenceByLr, measureSeed, measureGeometry, ppmiSvd, measureModel, range, summarize, readmeTable, claimsModule } from './training-measures.mjs';

const write = process.argv.includes('--write');
const qkv = await load({ model: true });

if (process.argv.includes('--defaults')) {
  chooseDefaults();
  process.exit(0);
}

/**
 * What the defaults were chosen from. Batch size 1 (one sentence per step, the article's
 * sparse-row point) whenever it learns; lr: below the smallest lr of DIVERGENCE_LRS at which a
 * seed diverges within twice the schedule, with one lr of the list between them as a margin;
 * steps: the first checkpoint where the median corpus loss is within 10 % of its value at twice
 * the schedule (with p(果 | 我 爱 吃 苹) reported beside it). docs/data/training-findings.json states the divergence
 * counts; tests/training-claims.test.js measures them again.
 */
function chooseDefaults() {
  const long = 2 * TRAINING_DEFAULTS.steps;
  console.log(`divergence within ${long} steps, batch 1, dim ${TRAINING_DEFAULTS.dim}, sgd, seeds 0–29:`);
  for (const { lr, diverged } of divergenceByLr(qkv)) {
    console.log(`  lr ${lr}: ${diverged.length} of ${SEEDS.length} seeds diverged ${diverged.map((d) => `${d.seed}@${d.step}`).join(' ')}`);
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
// what docs/api.md's "Read against counting" states beside the table (docs/data/training-findings.json) (tests/training-claims.test.js)
const ppmi = measureGeometry(ppmiSvd(DEFAULT_CORPUS.map(tokenize)));
console.log(`PPMI-SVD (±1 word, ${TRAINING_DEFAULTS.dim} dimensions): ${JSON.stringify(ppmi)}`);
const ends = results.map((r) => r.end);
console.log(`国王 + 女人 alone gives 女王 first on ${ends.filter((m) => m.sumRank === 1).length} of ${ends.length} seeds ` +
  `(国王 − 男人 + 女人: ${ends.filter((m) => m.analogyRank === 1).length}); cos(猫, 汽车) below both counts on ` +
  `${ends.filter((m) => m.catCar < Math.min(ppmi.catCar, claims.counting.default.catCar)).length}`);

if (write) {
  const claimsPath = fileURLToPath(new URL('../web/page/training/claims.js', import.meta.url));
  writeFileSync(claimsPath, claimsModule(claims));
  // the docs' table is written from claims.js by tools/docs-tables.mjs, in a process of its own
  // (this one imported the claims as they were)
  execFileSync(process.execPath, [fileURLToPath(new URL('./docs-tables.mjs', import.meta.url))], { stdio: 'inherit' });
  console.log('\nwrote web/page/training/claims.js and, from it, the docs\' table (tools/docs-tables.mjs)');
}
