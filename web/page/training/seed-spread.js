// training/seed-spread.js: "one seed is one draw", as a job of the training run: 30 models trained
// with the run's settings and corpus, seeds 0 to 29, and what the page talks about measured on
// each (measureModel: cos(猫, 狗), cos(猫, 汽车), whether the animals end closer to each other
// than to the vehicles, whether 国王 − 男人 + 女人 gives 女王 and whether 女王 was 国王's nearest
// word anyway, p(果 | 我 爱 吃 苹), the corpus loss). Measured at run time, so it is honest for
// whatever corpus and settings the reader chose. The work is cut into chunks of a few
// milliseconds, one per animation frame: the page stays responsive. No DOM here: the training
// section's card (sections/training/seed-spread.js) starts and stops the job and draws what it
// reports.
//
//   const spread = store.seedSpread;       // training/store.js makes one per store
//   const off = spread.subscribe((event) => …);
//   spread.start(store.options);  spread.stop();  spread.cancel();
// Events: { type: 'progress', seed, step, steps } after each chunk; { type: 'done', rows, steps,
// stopped } when the 30 seeds are measured or stop() ends the job early (rows: what was measured).
import { WORD_GROUPS, tokenize } from '../../corpus.js';

export const SPREAD_SEEDS = Object.freeze(Array.from({ length: 30 }, (_, i) => i));
const CHUNK_MS = 8;
export const EXAMPLE = tokenize('我 爱 吃 苹 果');

/** The median of a list of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function meanCosine(model, as, bs) {
  let sum = 0, n = 0;
  for (const a of as) for (const b of bs) if (a !== b) { sum += model.similarity(a, b); n++; }
  return n ? sum / n : NaN;
}

/** What the page reports about one trained model (NaN / null where the corpus lacks the words). */
export function measureModel(model) {
  const has = (...ws) => ws.every((w) => model.vocab.includes(w));
  const group = (id) => (WORD_GROUPS.find((g) => g.id === id)?.words || []).filter((w) => model.vocab.includes(w));
  const animals = group('animals'), vehicles = group('vehicles');
  const out = {
    loss: model.loss(),
    catDog: has('猫', '狗') ? model.similarity('猫', '狗') : NaN,
    catCar: has('猫', '汽车') ? model.similarity('猫', '汽车') : NaN,
    closer: animals.length > 1 && vehicles.length > 0 ? meanCosine(model, animals, animals) > meanCosine(model, animals, vehicles) : null,
    queen: has('国王', '男人', '女人', '女王') ? model.analogy('男人', '国王', '女人', 1)[0].word === '女王' : null,
    queenNear: has('国王', '女王') ? model.nearest('国王', 1)[0].word === '女王' : null,
    p: NaN,
  };
  if (has(...EXAMPLE) && EXAMPLE.length - 1 <= model.maxTokens) {
    const found = model.predict(EXAMPLE.slice(0, -1)).find((r) => r.word === EXAMPLE[EXAMPLE.length - 1]);
    out.p = found ? found.p : NaN;
  }
  return out;
}

const nextFrame = (fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(fn) : setTimeout(fn, 0));
const cancelFrame = (id) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id));
const now = () => (typeof performance === 'object' ? performance.now() : Date.now());
const DIVERGED = Object.freeze({ loss: NaN, catDog: NaN, catCar: NaN, closer: null, queen: null, queenNear: null, p: NaN });

/** The seed-spread job of one training store (qkv: the loaded API). */
export function createSeedSpread(qkv) {
  const watchers = new Set();
  let job = null;      // { seed, model, rows, options }
  let frameId = 0;

  const emit = (event) => { for (const fn of [...watchers]) fn(event); };

  function end(stopped) {
    if (frameId) cancelFrame(frameId);
    frameId = 0;
    if (!job) return;
    if (job.model) job.model.dispose();
    const { rows, options } = job;
    job = null;
    emit({ type: 'done', rows, steps: options.steps, stopped });
  }

  function chunk() {
    frameId = 0;
    if (!job) return;
    const until = now() + CHUNK_MS;
    while (now() < until) {
      if (!job.model) {
        if (job.seed >= SPREAD_SEEDS.length) { end(false); return; }
        job.model = qkv.createModel({ ...job.options, seed: SPREAD_SEEDS[job.seed] });
      }
      const model = job.model;
      if (model.steps < model.defaultSteps && !model.diverged) {
        // in parts when the chunk's time runs out (a large corpus's step is longer than a chunk)
        try { model.step({ deadline: until }); } catch { /* diverged: measured as it stands, NaN shows as — */ }
        continue;
      }
      job.rows.push(model.diverged ? DIVERGED : measureModel(model));
      model.dispose();
      job.model = null;
      job.seed++;
    }
    const m = job.model;
    emit({ type: 'progress', seed: SPREAD_SEEDS[Math.min(job.seed, SPREAD_SEEDS.length - 1)], step: m ? m.steps : 0, steps: job.options.steps });
    frameId = nextFrame(chunk);
  }

  return {
    get running() { return job !== null; },
    subscribe(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    /** Trains the 30 seeds with these createModel options (a job under way starts over); the first chunk runs now. */
    start(options) {
      cancelJob();
      job = { seed: 0, model: null, rows: [], options: { ...options } };
      chunk();
    },
    /** Ends the job now; 'done' reports the seeds measured so far (stopped: true). */
    stop() { end(true); },
    /** Ends the job without a report. */
    cancel: cancelJob,
    dispose() {
      cancelJob();
      watchers.clear();
    },
  };

  function cancelJob() {
    if (frameId) cancelFrame(frameId);
    frameId = 0;
    if (job && job.model) job.model.dispose();
    job = null;
  }
}
