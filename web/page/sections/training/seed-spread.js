// sections/training/seed-spread.js: the card of "one seed is one draw": a button starts the training
// store's seed-spread job (training/seed-spread.js: seeds 0 to 29 with the run's settings and
// corpus, in chunks that yield to the page), Stop stops it, and the card draws what the job
// reports: its progress, then the spread of each measure (min, median, max) and the counts.
//
//   const spread = createSeedSpread({ ctx, texts, events });
//   layout.slots.seeds.append(spread.card);
import { h, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_SEED_SPREAD_STRINGS } from './seed-spread.strings.js';
import { EXAMPLE, median } from '../../training/seed-spread.js';

addStrings(TRAINING_SEED_SPREAD_STRINGS);

export function createSeedSpread({ ctx, texts, events }) {
  const { i18n } = ctx;
  const store = ctx.training;
  const runButton = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'seeds-run' } }), 'training.seeds.run');
  const stopButton = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'seeds-stop' }, hidden: true }), 'training.seeds.stop');
  const note = h('p', { class: 'tr-note' });
  const progress = h('p', { class: 'tr-note', attrs: { 'aria-live': 'polite', 'data-role': 'seeds-progress' } });
  const results = h('div', { class: 'tr-seed-results', attrs: { 'data-role': 'seeds-results' } });
  const card = h('div', { class: 'tr-card tr-seeds-card tr-wide', attrs: { 'data-role': 'seeds' } },
    texts.set(h('h3'), 'training.seeds.title'), note, h('div', { class: 'tr-exports' }, runButton, stopButton), progress, results);

  const spread = store.seedSpread;
  let shown = null;    // the last results, redrawn on a language change

  const steps = () => store.options.steps;
  const drawNote = () => { note.textContent = i18n.t('training.seeds.note', { steps: steps() }); };

  // what the job reports, drawn; nothing here trains or measures
  const offSpread = spread.subscribe((event) => {
    if (event.type === 'progress') {
      progress.textContent = i18n.t('training.seeds.progress', { seed: event.seed, step: event.step, steps: event.steps });
      return;
    }
    runButton.hidden = false;
    stopButton.hidden = true;
    progress.textContent = event.stopped ? i18n.t('training.seeds.stopped', { done: event.rows.length }) : '';
    if (event.rows.length) { shown = { rows: event.rows, steps: event.steps }; draw(); }
  });

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
    runButton.hidden = true;
    stopButton.hidden = false;
    results.replaceChildren();
    shown = null;
    spread.start(store.options);
  });
  events.on(stopButton, 'click', () => spread.stop());
  // new settings or corpus: old results describe another run
  const offStore = store.subscribe((event) => { if (event.type === 'run') drawNote(); });

  drawNote();
  return {
    card,
    setLanguage() { drawNote(); draw(); },
    destroy() {
      offSpread();
      spread.cancel();
      offStore();
    },
  };
}
