// sections/training/seed-spread.js: "one seed is one draw". A button trains 30 runs with the current
// settings and corpus, seeds 0 to 29, here in the browser, and shows the spread of what the page
// talks about: cos(猫, 狗), cos(猫, 汽车), whether the animals end closer to each other than to
// the vehicles, whether 国王 − 男人 + 女人 gives 女王 and whether 女王 was 国王's nearest word
// anyway, p(果 | 我 爱 吃 苹), and the corpus loss. Measured at run time, so it is honest for
// whatever corpus and settings the reader chose. The work is cut into chunks of a few
// milliseconds per animation frame: the page stays responsive, and Stop stops it.
//
//   const spread = createSeedSpread({ ctx, texts, events });
//   layout.slots.seeds.append(spread.card);
import { h, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_SEED_SPREAD_STRINGS } from '../../strings/training-seed-spread.js';
import { WORD_GROUPS } from '../../../corpus.js';
import { tokenize } from '../../../corpus.js';

addStrings(TRAINING_SEED_SPREAD_STRINGS);

export const SPREAD_SEEDS = Object.freeze(Array.from({ length: 30 }, (_, i) => i));
const CHUNK_MS = 8;
const EXAMPLE = tokenize('我 爱 吃 苹 果');

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

export function createSeedSpread({ ctx, texts, events }) {
  const { i18n, qkv } = ctx;
  const store = ctx.training;
  const runButton = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'seeds-run' } }), 'training.seeds.run');
  const stopButton = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'seeds-stop' }, hidden: true }), 'training.seeds.stop');
  const note = h('p', { class: 'tr-note' });
  const progress = h('p', { class: 'tr-note', attrs: { 'aria-live': 'polite', 'data-role': 'seeds-progress' } });
  const results = h('div', { class: 'tr-seed-results', attrs: { 'data-role': 'seeds-results' } });
  const card = h('div', { class: 'tr-card tr-seeds-card tr-wide', attrs: { 'data-role': 'seeds' } },
    texts.set(h('h3'), 'training.seeds.title'), note, h('div', { class: 'tr-exports' }, runButton, stopButton), progress, results);

  let job = null;      // { token, seed, model, rows, options }
  let token = 0;
  let shown = null;    // the last results, redrawn on a language change
  let frameId = 0;

  const steps = () => store.options.steps;
  const drawNote = () => { note.textContent = i18n.t('training.seeds.note', { steps: steps() }); };

  function finish(stopped) {
    if (job && job.model) job.model.dispose();
    const rows = job ? job.rows : [];
    job = null;
    runButton.hidden = false;
    stopButton.hidden = true;
    progress.textContent = stopped ? i18n.t('training.seeds.stopped', { done: rows.length }) : '';
    if (rows.length) { shown = { rows, steps: steps() }; draw(); }
  }

  function chunk() {
    frameId = 0;
    if (!job || job.token !== token) return;
    const until = performance.now() + CHUNK_MS;
    while (performance.now() < until) {
      if (!job.model) {
        if (job.seed >= SPREAD_SEEDS.length) { finish(false); return; }
        job.model = qkv.createModel({ ...job.options, seed: SPREAD_SEEDS[job.seed] });
      }
      const model = job.model;
      if (model.steps < model.defaultSteps && !model.diverged) {
        try { model.step(); } catch { /* diverged: measured as it stands, NaN shows as — */ }
        continue;
      }
      job.rows.push(model.diverged ? { loss: NaN, catDog: NaN, catCar: NaN, closer: null, queen: null, queenNear: null, p: NaN } : measureModel(model));
      model.dispose();
      job.model = null;
      job.seed++;
    }
    const m = job.model;
    progress.textContent = i18n.t('training.seeds.progress', { seed: SPREAD_SEEDS[Math.min(job.seed, SPREAD_SEEDS.length - 1)], step: m ? m.steps : 0, steps: steps() });
    frameId = requestAnimationFrame(chunk);
  }

  function draw() {
    if (!shown) return;
    const { rows } = shown;
    const n = rows.length;
    const numeric = [
      ['cos(猫, 狗)', rows.map((r) => r.catDog)],
      ['cos(猫, 汽车)', rows.map((r) => r.catCar)],
      [i18n.t('training.seeds.p', { word: EXAMPLE[EXAMPLE.length - 1], context: EXAMPLE.slice(0, -1).join(' ') }), rows.map((r) => r.p)],
      [i18n.t('training.seeds.loss'), rows.map((r) => r.loss)],
    ].filter(([, vs]) => vs.some(Number.isFinite));
    const head = ['training.seeds.measure', 'training.seeds.min', 'training.seeds.median', 'training.seeds.max'];
    const table = h('table', { class: 'matrix tr-seed-table' },
      h('thead', {}, h('tr', {}, head.map((k) => h('th', { text: i18n.t(k), attrs: { scope: 'col' } })))),
      h('tbody', {}, numeric.map(([name, vs]) => {
        const finite = vs.filter(Number.isFinite);
        return h('tr', { attrs: { 'data-measure': name } }, h('th', { text: name, attrs: { scope: 'row' } }),
          [Math.min(...finite), median(finite), Math.max(...finite)].map((v) => h('td', { class: 'num', text: fmt(v) })));
      })));
    const counts = [['closer', 'training.seeds.closer'], ['queen', 'training.seeds.queen'], ['queenNear', 'training.seeds.queenNear']]
      .map(([field, key]) => {
        const known = rows.filter((r) => r[field] !== null);
        if (!known.length) return null;
        return h('li', { attrs: { 'data-count': field }, text: i18n.t(key, { k: known.filter((r) => r[field]).length, n: known.length }) });
      }).filter(Boolean);
    results.replaceChildren(
      h('p', { text: i18n.t('training.seeds.done', { n, last: n - 1, steps: shown.steps }) }),
      h('div', { class: 'matrix-scroll' }, table),
      h('ul', {}, counts));
  }

  events.on(runButton, 'click', () => {
    token++;
    job = { token, seed: 0, model: null, rows: [], options: { ...store.options } };
    runButton.hidden = true;
    stopButton.hidden = false;
    results.replaceChildren();
    shown = null;
    chunk();
  });
  events.on(stopButton, 'click', () => {
    token++;
    if (frameId) cancelAnimationFrame(frameId);
    frameId = 0;
    finish(true);
  });
  // new settings or corpus: old results describe another run
  const offStore = store.subscribe((event) => { if (event.type === 'run') drawNote(); });

  drawNote();
  return {
    card,
    setLanguage() { drawNote(); draw(); },
    destroy() {
      token++;
      if (frameId) cancelAnimationFrame(frameId);
      if (job && job.model) job.model.dispose();
      job = null;
      offStore();
    },
  };
}
