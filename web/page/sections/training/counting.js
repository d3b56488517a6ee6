// sections/training/counting.js: the card "how far counting alone gets": the run's own measures at
// this step beside the two counting baselines of the corpus in use (training/counting.js, computed
// here at run time, once per corpus), and, on the default corpus with the default settings, the
// ranges training reached over seeds 0–29 (web/page/training/claims.js, which a test measures
// again). Below the table, the finding those ranges and the default corpus's counts support:
// counting already gives the headline results, training does worse on the strict test, and goes
// further than both counts on every seed only for cos(猫, 汽车); 国王 + 女人 alone finds 女王
// nearly as often as the analogy. Every sentence with a claim in it is shown only when the
// numbers it rests on (computed or measured) say it.
//
//   const counting = createCountingCard({ ctx, texts });   slot.append(counting.card);
//   counting.refresh();  (each step drawn)   counting.setLanguage();
import { h, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_COUNTING_STRINGS } from './counting.strings.js';
import { TRAINING_CLAIMS } from '../../training/claims.js';
import { countingOf, COUNTING_LIMITS, measureGeometry, tableGeometry } from '../../training/counting.js';
import { DEFAULT_CORPUS, TRAINING_DEFAULTS } from '../../../corpus.js';
import { glossed } from './glosses.js';

addStrings(TRAINING_COUNTING_STRINGS);

const REFRESH_MS = 200;  // while playing, the run's column refreshes at most this often
const DEFAULT_KEY = Symbol('default corpus');
/** What ppmiSvd keeps by default (fewer for a smaller vocabulary). */
const PPMI_DIMENSIONS = TRAINING_DEFAULTS.dim;

/** The rows of the table: the measure's key in counting.js's measures and how a cell shows it. */
const ROWS = Object.freeze([
  { id: 'catDog', kind: 'number' },
  { id: 'catCar', kind: 'number' },
  { id: 'gap', key: 'groupGap', kind: 'number' },
  { id: 'strict', key: 'animalsApart', kind: 'bool' },
  { id: 'analogy', key: 'analogyTop', rank: 'analogyRank', kind: 'word' },
  { id: 'sum', key: 'sumTop', rank: 'sumRank', kind: 'word' },
]);

/** Whether a table of measures gives the headline results (what the finding says counting does). */
export function givesHeadlines(m) {
  return Boolean(m) && m.catDog > m.catCar && m.groupGap > 0 && m.nearestIsAnimal === true && m.animalsApart === true
    && m.analogyTop === '女王';
}

/** Whether the run's settings (seed aside) are the ones claims.js was measured with. */
function defaultSettings(options) {
  return Object.keys(TRAINING_DEFAULTS).every((k) => options[k] === TRAINING_DEFAULTS[k]);
}

export function createCountingCard({ ctx, texts }) {
  const { i18n } = ctx;
  const store = ctx.training;
  const claims = TRAINING_CLAIMS;
  const table = h('table', { class: 'tr-counting-table', attrs: { 'data-role': 'counting-table' } });
  const notes = h('div', { attrs: { 'data-role': 'counting-notes' } });
  const now = h('p', { attrs: { 'data-role': 'counting-now' } });
  // its heading is known from the start (claims.js is data): never an empty heading while the run is built
  const findingTitle = texts.set(h('h4', { class: 'tr-finding-title' }), 'training.counting.findingTitle',
    () => ({ from: claims.seeds.from, to: claims.seeds.to, steps: claims.checkpoints.end }));
  const finding = h('p', { attrs: { 'data-role': 'counting-finding' } });
  const analogy = h('p', { attrs: { 'data-role': 'counting-analogy' } });
  const card = h('div', { class: 'tr-card tr-counting-card tr-wide', attrs: { 'data-role': 'counting' } },
    texts.set(h('h3'), 'training.counting.title'),
    texts.set(h('p', { class: 'tr-note' }), 'training.counting.what', { k: PPMI_DIMENSIONS }),
    table, now, notes,
    h('div', { class: 'tr-finding' }, findingTitle, finding, analogy));

  // the baselines of the corpus in use, computed when the card first draws it (the section is in
  // view and its run built: PPMI-SVD of the default corpus takes tens of milliseconds), and the
  // default corpus's, which the finding is about; kept for the last two corpora
  const counted = new Map();
  function countingFor(key, sentences) {
    if (!counted.has(key)) {
      if (counted.size > 1) counted.delete([...counted.keys()].find((k) => k !== DEFAULT_KEY));
      counted.set(key, countingOf(sentences));
    }
    return counted.get(key);
  }
  const countingNow = () => (store.corpus.id === 'default' ? countingFor(DEFAULT_KEY, DEFAULT_CORPUS) : countingFor(store.corpus.text, store.corpus.sentences));
  let lastRefresh = 0;
  let mine = null;

  const t = (key, vars) => i18n.t(`training.counting.${key}`, vars);
  const range = (r) => t('range', { min: r.min.toFixed(2), max: r.max.toFixed(2), median: r.median.toFixed(2) });
  const count = (c) => t('count', c);
  /** A word cell: the first word, with where 女王 ranks when it is not first. */
  const wordCell = (word, rank) => (word === null || word === undefined ? '—'
    : word === '女王' ? glossed(word, i18n.lang)
      : Number.isFinite(rank) ? t('wordNotQueen', { word: glossed(word, i18n.lang), rank }) : t('wordNoQueen', { word: glossed(word, i18n.lang) }));
  function cell(row, m) {
    if (!m) return '—';
    const v = m[row.key || row.id];
    if (v === null || v === undefined) return '—';
    if (row.kind === 'number') return fmt(v);
    if (row.kind === 'bool') return t(v ? 'yes' : 'no');
    return wordCell(v, m[row.rank]);
  }
  /** The seeds column: the measured range, count, or how often 女王 came first. */
  function seedCell(row) {
    const { ranges: r, counts: c } = claims;
    switch (row.id) {
      case 'catDog': return range(r.catDog.end);
      case 'catCar': return range(r.catCar.end);
      case 'gap': return range(r.groupGap.end);
      case 'strict': return count(c.animalsApart.end);
      case 'analogy': return t('queenOn', c.analogyQueen.end);
      case 'sum': return t('queenOn', c.sumQueen.end);
      default: return '—';
    }
  }

  function draw() {
    const run = store.run;
    if (!run) return;
    lastRefresh = performance.now();
    const base = countingNow();
    // the run's own table measured as the baselines are (kept for the step: the language may change)
    if (!mine || mine.run !== run || mine.step !== run.step) mine = { run, step: run.step, ...measureGeometry(tableGeometry(run.vocab, run.table)) };
    const onDefault = store.corpus.id === 'default';
    const settings = defaultSettings(run.options);
    const withSeeds = onDefault && settings;
    const seedHead = t('seeds', { from: claims.seeds.from, to: claims.seeds.to, steps: claims.checkpoints.end });
    const heads = [t('measure'), t('run', { step: run.step }), t('nextWord'), t('ppmi'), ...(withSeeds ? [seedHead] : [])];
    table.replaceChildren(
      h('thead', {}, h('tr', {}, heads.map((text) => h('th', { text, attrs: { scope: 'col' } })))),
      // each cell carries its column's name (data-label): a phone shows the table as one block a measure
      h('tbody', {}, ROWS.map((row) => h('tr', { attrs: { 'data-measure': row.id } },
        h('th', { text: t(`row.${row.id}`), attrs: { scope: 'row' } }),
        [['run', cell(row, mine)], ['next-word', cell(row, base.nextWord)], ['ppmi', cell(row, base.ppmi)],
          ...(withSeeds ? [['seeds', seedCell(row)]] : [])]
          .map(([column, text], i) => h('td', { text, dataset: { column, label: t('cellLabel', { column: heads[i + 1] }) } }))))));

    // the run against both counts, on the one measure where training goes further on every seed
    const counts = [base.nextWord, base.ppmi].filter(Boolean).map((m) => m.catCar);
    const carKnown = Number.isFinite(mine.catCar) && counts.length === 2 && counts.every(Number.isFinite);
    now.hidden = !carKnown;
    if (carKnown) {
      now.textContent = t(mine.catCar < Math.min(...counts) ? 'nowBelow' : 'nowNotBelow',
        { step: run.step, run: fmt(mine.catCar), next: fmt(counts[0]), ppmi: fmt(counts[1]) });
    }

    const shown = [];
    if (!withSeeds) shown.push(t('noRanges', { what: t(`what.${!onDefault && !settings ? 'both' : !onDefault ? 'corpus' : 'settings'}`) }));
    for (const [name, limit] of [['nextWord', COUNTING_LIMITS.nextWord], ['ppmi', COUNTING_LIMITS.ppmi]]) {
      if (!base[name]) shown.push(t('tooBig', { name: t(name), max: limit, words: base.words }));
    }
    const dashes = [mine, base.nextWord, base.ppmi].some((m) => m && ROWS.some((row) => m[row.key || row.id] === null));
    if (dashes) shown.push(t('dash'));
    notes.replaceChildren(...shown.map((text) => h('p', { class: 'tr-note', text })));

    drawFinding();
  }

  // the finding: measured on the default corpus with the default settings (claims.js), against
  // the default corpus's counts computed here; each sentence only where its numbers say it
  function drawFinding() {
    const { counts: c } = claims;
    const { nextWord, ppmi } = countingFor(DEFAULT_KEY, DEFAULT_CORPUS);
    const all = (x) => x.count === x.of;
    const holds = givesHeadlines(nextWord) && givesHeadlines(ppmi)
      && c.animalsApart.end.count < c.animalsApart.end.of && all(c.catCarBelowCounting.end)
      && c.catDogBelowCounting.end.count > c.catDogBelowCounting.end.of / 2 && !all(c.groupGapAboveCounting.end);
    finding.hidden = !holds;
    finding.textContent = holds ? t('finding', {
      strict: count(c.animalsApart.end), catDog: count(c.catDogBelowCounting.end),
      catCar: count(c.catCarBelowCounting.end), gap: count(c.groupGapAboveCounting.end),
    }) : '';
    // "almost as often": the sum finds 女王 on at least 80 % as many seeds as the analogy, and on
    // more than 国王's own nearest word does
    const almost = c.sumQueen.end.count >= 0.8 * c.analogyQueen.end.count && c.sumQueen.end.count > c.kingNearestQueen.end.count;
    analogy.hidden = !almost;
    analogy.textContent = almost ? t('analogy', {
      sum: count(c.sumQueen.end), analogy: count(c.analogyQueen.end),
      nextSum: wordCell(nextWord.sumTop, nextWord.sumRank), ppmiSum: wordCell(ppmi.sumTop, ppmi.sumRank),
    }) : '';
  }

  return {
    card,
    /** Redraws now (force) or when the last redraw is old enough (while training). */
    refresh(force) {
      // a new run (settings, corpus, reset) is drawn at once; a step while playing when due
      const fresh = store.run !== (mine && mine.run);
      if (store.run && !store.replaying && (force || fresh || performance.now() - lastRefresh > REFRESH_MS)) draw();
    },
    setLanguage() { if (store.run && !store.replaying) draw(); },
  };
}
