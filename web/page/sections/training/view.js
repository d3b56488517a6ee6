// sections/training/view.js: draws the training run into the section's layout: the status line, the loss
// and similarity charts, the scatter (labels that never overlap, the analogy's parallelogram),
// the heat map whose changed rows flash, and the step's batch. Reads the run (its table and
// projection, computed once per step in training/run.js); never changes it and never calls the model.
//
//   const view = createTrainingView({ i18n, layout, element });
//   view.newRun(run);  view.push(records);  view.render(run, { part });  view.setLanguage();
import { h, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_VIEW_STRINGS } from './view.strings.js';
import { createLossChart, createSimilarityChart } from '../../views/charts/step-chart.js';
import { EmbeddingScatter } from '../../views/charts/embedding-scatter.js';
import { THEMES, LOSS_SERIES, SIMILARITY_SERIES, styleSwatch, themeOf } from '../../views/charts/theme.js';
import { EmbeddingHeatmap, divergingColour, HEATMAP_ROWS } from '../../views/embedding-heatmap.js';
import { PROBES } from '../../training/run.js';
import { WORD_GROUPS, buildVocab } from '../../../corpus.js';
import { glossed, glossedShort } from './glosses.js';

addStrings(TRAINING_VIEW_STRINGS);

const TRAIL = 10;
/** The analogy's parallelogram on the scatter: two arrows that should be parallel. */
export const PARALLELOGRAM = Object.freeze([['男人', '女人'], ['国王', '女王']]);

export { SCATTER_WORDS } from '../../training/run.js';


const sameWords = (a, b) => a === b || (a.length === b.length && a.every((w, i) => w === b[i]));

/** How many sentences a step of `run` takes: its last step's real count, else the model's batch size. */
export function batchCount(run) {
  return run.last ? run.last.batch.length : run.batchSize;
}

/** The most words the "rows updated by this step" line names (then "… and N more"). */
export const UPDATED_WORDS_SHOWN = 120;

export function createTrainingView({ i18n, layout, element, reducedMotion }) {
  const media = (q) => (typeof matchMedia === 'function' ? matchMedia(q) : { matches: false, addEventListener() {}, removeEventListener() {} });
  const darkScheme = media('(prefers-color-scheme: dark)');
  const heatmap = new EmbeddingHeatmap({ reducedMotion: () => reducedMotion.matches, maxRows: HEATMAP_ROWS });
  layout.heat.slot.append(heatmap.element);
  let charts = null;
  let theme = THEMES.light;
  let run = null;
  let groupsShown = [];
  let wordsShown = null;   // the vocabulary the words' texts were last set for
  let held = false;        // a new run waits to be drawn (newRun): the one shown may be disposed already

  const colourGroupSwatches = () => {
    for (const { swatch, g } of groupsShown) swatch.style.background = theme.series[g % theme.series.length];
  };
  function applyTheme() {
    theme = themeOf(element, darkScheme.matches);
    heatmap.setDark(theme.dark);
    const stops = [-1, -0.5, 0, 0.5, 1].map((v) => `rgb(${divergingColour(v, theme.dark).join(',')})`);
    layout.heat.legendBar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    for (const { swatch, kind, i } of layout.lineSwatches) styleSwatch(swatch, theme, (kind === 'loss' ? LOSS_SERIES : SIMILARITY_SERIES)[i], i);
    colourGroupSwatches();
    if (charts) for (const c of Object.values(charts)) c.setTheme(theme);
  }
  const onScheme = () => applyTheme();
  darkScheme.addEventListener('change', onScheme);

  function chartTexts() {
    if (!charts) return;
    const step = i18n.t('training.stepAxis');
    charts.loss.setText({ labels: [i18n.t('training.lossRaw'), i18n.t('training.lossAvg')], xTitle: step, yTitle: '' });
    charts.similarity.setText({ labels: [i18n.t('training.simCatDog'), i18n.t('training.simCatCar')], xTitle: step, yTitle: '' });
  }

  function ensureCharts() {
    if (charts) return charts;
    theme = themeOf(element, darkScheme.matches);
    charts = {
      loss: createLossChart(layout.charts.loss, { theme, labels: ['', ''] }),
      similarity: createSimilarityChart(layout.charts.similarity, { theme, labels: ['', ''] }),
      scatter: new EmbeddingScatter(layout.charts.scatter, { theme, trail: TRAIL }),
    };
    chartTexts();
    applyTheme();
    return charts;
  }

  /** The words' labels (on the English page, each word with its gloss), made once per vocabulary and language. */
  function wordLabels() {
    if (!wordsShown || wordsShown.lang !== i18n.lang || !sameWords(wordsShown.vocab, run.vocab)) {
      wordsShown = { vocab: run.vocab, lang: i18n.lang, labels: run.vocab.map((w) => glossedShort(w, i18n.lang)), drawn: false };
    }
    return wordsShown;
  }

  /** The texts that depend on the words (and the language): skipped for a run on the words already shown. */
  function wordTexts({ force = true, draw = true } = {}) {
    if (!run) return;
    const plain = run.groups.filter((g, i) => i > 0 && !g).length;
    const plainShown = run.scatterWords.filter((i) => !run.groups[i]).length;
    layout.scatterNote.textContent = i18n.t('training.scatterNote2', { d: run.dim }) +
      (plainShown < plain ? ` ${i18n.t('training.scatterCapped', { plain, shown: plainShown })}` : '');
    const words = wordLabels();
    if (words.drawn && !force) return;
    words.drawn = true;
    heatmap.setWords(run.vocab, words.labels);
    charts.scatter.setLabels(words.labels, { draw });
    groupsShown = [];
    layout.groupLegend.replaceChildren(...WORD_GROUPS.map((group, g) => {
      if (!group.words.some((w) => run.vocab.includes(w))) return null;
      const swatch = h('span', { class: 'tr-swatch', attrs: { 'aria-hidden': 'true' } });
      groupsShown.push({ swatch, g });
      const key = `training.group.${group.id}`;
      const name = i18n.t(key);
      return h('li', {}, swatch, name === key ? group.id : name);
    }).filter(Boolean));
    const missing = [PROBES.anchor, PROBES.near, PROBES.far].filter((w) => !run.vocab.includes(w));
    layout.simMissing.hidden = missing.length === 0;
    layout.simMissing.textContent = missing.length ? i18n.t('training.simMissing', { words: missing.join(' ') }) : '';
    // the new legend's swatches in the theme the view already has (applyTheme keeps it current);
    // the whole theme again would redraw every chart
    colourGroupSwatches();
  }

  /** A run that is new to the view (built, reset, replayed from the seed): everything from its history. */
  function newRun(next) {
    run = next;
    held = false;
    ensureCharts();
    const index = (w) => run.vocab.indexOf(w);
    // the scatter draws at most SCATTER_WORDS plain words (every grouped word always): a
    // 9,000-word corpus would cost Chart.js seconds a frame; the hover names any word shown
    const drawn = new Set(run.scatterWords);
    const hidden = run.vocab.map((_, i) => i).filter((i) => !drawn.has(i));
    charts.scatter.setWords(run.vocab, run.groups, hidden, wordLabels().labels);
    // each chart drawn once here (the scatter by the render that follows): on a 9,000-word corpus
    // every Chart.js update is 10-20 ms
    charts.scatter.setArrows(PARALLELOGRAM.map(([a, b]) => [index(a), index(b)]), { draw: false });
    // a run on the same words (a setting changed, a reset, a replay) keeps the rows and labels drawn for them
    wordTexts({ force: false, draw: false });
    charts.loss.setXMax(run.total, { draw: false });
    charts.similarity.setXMax(run.total, { draw: false });
    charts.loss.update(run.history.map((r) => ({ step: r.step, values: [r.loss, r.average] })));
    charts.similarity.update([run.initialPoint(), ...run.history].map((r) => ({ step: r.step, values: [r.catDog, r.catCar] })));
    charts.scatter.reset();
  }

  function push(records) {
    for (const record of records) {
      charts.loss.push({ step: record.step, values: [record.loss, record.average] });
      charts.similarity.push({ step: record.step, values: [record.catDog, record.catCar] });
    }
  }


  function renderBatch() {
    const last = run.last;
    const n = batchCount(run);
    layout.batch.title.textContent = n === 1 ? i18n.t('training.batch.one') : i18n.t('training.batch.many', { n });
    layout.batch.empty.hidden = Boolean(last);
    layout.batch.list.replaceChildren(...(last ? last.batch.map((tokens) => h('li', { text: tokens.map((w) => glossed(w, i18n.lang)).join(' '), dataset: { sentence: tokens.join(' ') } })) : []));
    if (!last) { layout.batch.updated.textContent = ''; return; }
    // a large batch on a large vocabulary updates a thousand rows: the list names the first
    // UPDATED_WORDS_SHOWN (the count says how many), a line a reader can still read
    const words = (rows) => rows.slice(0, UPDATED_WORDS_SHOWN).map((r) => glossed(run.vocab[r], i18n.lang)).join(' · ') +
      (rows.length > UPDATED_WORDS_SHOWN ? ` ${i18n.t('training.moreWords', { n: rows.length - UPDATED_WORDS_SHOWN })}` : '');
    const own = new Set(last.batchRows);
    const others = last.updatedRows.filter((r) => !own.has(r));
    layout.batch.updated.textContent = others.length === 0
      ? `${i18n.t('training.updatedRows', { count: last.updatedRows.length })} ${words(last.updatedRows)}`
      : i18n.t('training.updatedRowsAdam', {
        count: last.updatedRows.length, own: last.updatedRows.length - others.length,
        words: words(last.updatedRows.filter((r) => own.has(r))), others: others.length,
      });
  }

  /**
   * Draws the run's current state. While playing, `part` is 0 or 1 on alternate frames: the line
   * charts redraw on one, the scatter on the other (each still 30 times a second), which halves
   * the Chart.js work in a frame; everything else redraws every frame. figures: false draws only
   * the status line and the batch (the heat map, scatter and charts follow with the next render).
   */
  function render({ part = -1, figures = true } = {}) {
    const last = run.last;
    const step = run.step;
    element.dataset.step = String(step);
    element.dataset.loss = last ? String(last.loss) : '';
    layout.status.progress.textContent = i18n.t('training.progress', { step, total: run.total });
    layout.status.loss.textContent = last ? i18n.t('training.lossNow', { loss: fmt(last.loss) }) : '';
    const sims = last || run.initialPoint();
    layout.status.sims.textContent = i18n.t('training.simNow', { a: fmt(sims.catDog), b: fmt(sims.catCar) });
    renderBatch();
    if (!figures) return;

    const table = run.table;
    const bound = heatmap.draw(table);
    const own = new Set(last ? last.batchRows : []);
    heatmap.flash(step, last ? last.updatedRows : [], { quiet: last ? last.updatedRows.filter((r) => !own.has(r)) : [] });
    layout.heat.title.textContent = i18n.t('training.heatmap', { rows: table.rows, cols: table.cols });
    layout.heat.note.textContent = i18n.t('training.heatmapNote', { max: fmt(bound) }) +
      (heatmap.shownRows < table.rows ? ` ${i18n.t('training.heatmapShown', { shown: heatmap.shownRows, rows: table.rows })}` : '');
    layout.heat.legendMin.textContent = fmt(-bound);
    layout.heat.legendMax.textContent = fmt(bound);

    if (part !== 0) {
      charts.scatter.trailLength = reducedMotion.matches ? 0 : TRAIL;
      charts.scatter.update(run.projection);
    }
    if (part !== 1) {
      charts.loss.update();
      charts.similarity.update();
    }
    layout.charts.loss.dataset.points = String(charts.loss.pointCount());  // for tests: the chart's points
  }

  return {
    get charts() { return charts; },
    heatmap,
    newRun, push, render,
    /** Before the run exists: the layout takes the size the run will give it (corpus: tokenized sentences). */
    reserve(sentences) {
      if (!run) heatmap.reserveRows(buildVocab(sentences).vocab.length);
    },
    setLanguage() {
      chartTexts();
      if (run && !held) { wordTexts(); render({}); }
    },
    /** A new run is on its way (newRun follows): until then, nothing redraws from the run shown. */
    hold() {
      held = true;
    },
    destroy() {
      darkScheme.removeEventListener('change', onScheme);
      if (charts) for (const c of Object.values(charts)) c.destroy();
      charts = null;
      run = null;
    },
  };
}
