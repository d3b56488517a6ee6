// training.js: the section "learning the embedding table": a real training run of the WASM model
// (web/model.js), animated, with the settings, the corpus and the measurements around it. This
// file only wires the parts, each in web/page/training/ and named for its job:
//   layout.js        the DOM                       view.js          draws the run into it
//   controller.js    Start / Pause / Step / Back / Reset, speed, keys, narration
//   controls.js      batch, learning rate, dimension, optimizer, seed (URL state)
//   corpus-panel.js  the open corpus and its presets   about.js   what the corpus can show
//   probes.js        nearest neighbours, analogy and its baselines
//   counting.js      the run beside counting alone (no training), and the finding
//   seed-spread.js   seeds 0–29 measured live       exports.js       PNG, TSV, corpus.txt
// The run itself is shared (ctx.training, training/store.js): the one-step walkthrough reads the
// same model. The run is built when the section first becomes visible, and the animation loop
// runs only while it is visible. It is reproducible: the URL's tseed, batch, lr, dim, opt,
// corpus and step are replayed from the seed.
//
// It follows the section contract with a frame of its own (defineSection, shell: false): its own
// heading, controls and keys instead of the shared stepper.
//
//   const section = trainingSection.create(ctx);   host.append(section.element);   section.destroy();
import { h, pendingLayout, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_TRAINING_STRINGS } from './quiz-training.strings.js';
import { defineSection } from '../shell/section-shell.js';
import { TRAINING_STRINGS } from './training.strings.js';
import { TRAINING_TIMELINE_STRINGS } from './training/timeline.strings.js';
import { createTrainingLayout } from './training/layout.js';
import { createTrainingView, batchCount } from './training/view.js';
import { createTrainingController } from './training/controller.js';
import { createTrainingControls } from './training/controls.js';
import { createTrainingProbes } from './training/probes.js';
import { createTrainingExports } from './training/exports.js';
import { createCorpusPanel } from './training/corpus-panel.js';
import { createAboutCorpus } from './training/about.js';
import { createSeedSpread } from './training/seed-spread.js';
import { createCountingCard } from './training/counting.js';
import { RUN_KEYS } from '../training/settings.js';
import { PROBES } from '../training/run.js';
import { ARTICLE_CONTEXTS, gapFillers } from '../training/contexts.js';
import { createCarReading } from './training/car-reading.js';
import { glossed } from './training/glosses.js';
import { DEFAULT_CORPUS } from '../../corpus.js';

addStrings(TRAINING_STRINGS);
addStrings(QUIZ_TRAINING_STRINGS);   // its questions' words travel with it
addStrings(TRAINING_TIMELINE_STRINGS);   // the timeline's summary line shows before its module loads

let instances = 0;

/**
 * The run has no stepper to hold: its question is about the run as it stands, read from the
 * run's own record of the probes' cosines (data: { step, catDog, catCar } of the store's run).
 */
const runNow = (store) => {
  const run = store.run;
  if (!run || store.replaying || !run.probes.near || !run.probes.far) return { status: 'waiting' };
  const last = run.history.length ? run.history[run.history.length - 1] : { step: 0, ...run.initialPoint() };
  return { status: 'ready', step: run.step, catDog: last.catDog, catCar: last.catCar };
};
export const TRAINING_QUIZ = [{
  id: 'nearer', when: (d) => d.status === 'ready',
  prompt: (d, t) => t('quiz.train.prompt'),
  choices: () => [{ value: PROBES.near, label: PROBES.near }, { value: PROBES.far, label: PROBES.far }],
  answer: (d) => (d.catDog >= d.catCar ? PROBES.near : PROBES.far),
  explain: (d, t) => t('quiz.train.explain', { step: d.step, dog: fmt(d.catDog), car: fmt(d.catCar) }),
}];

/** The registry's entry (sections/index.js). */
export const trainingSection = defineSection({ id: 'training', shell: false, quiz: TRAINING_QUIZ, setup: setupTraining });

function setupTraining(frame) {
  const { ctx, i18n, events, texts } = frame;
  const { state } = ctx;
  const store = ctx.training;
  const release = store.acquire();
  const uid = `qkv-training-${++instances}`;
  const media = (q) => (typeof matchMedia === 'function' ? matchMedia(q) : { matches: false });
  const reducedMotion = media('(prefers-reduced-motion: reduce)');

  const layout = createTrainingLayout({ texts, uid });
  const { element } = layout;
  const view = createTrainingView({ i18n, layout, element, reducedMotion });
  view.reserve(store.corpus.sentences);
  const probes = createTrainingProbes({ i18n, texts, events, uid });
  layout.slots.probes.append(...probes.elements);
  const exports = createTrainingExports({ texts, events, store, charts: () => view.charts });
  layout.slots.pngLoss.append(exports.png.loss);
  layout.slots.pngSimilarity.append(exports.png.similarity);
  layout.slots.pngScatter.append(exports.png.scatter);
  layout.slots.exports.append(exports.card);
  const counting = createCountingCard({ ctx, texts });
  layout.slots.counting.append(counting.card);
  const about = createAboutCorpus({ i18n, texts });
  const spread = createSeedSpread({ ctx, texts, events });
  layout.slots.seeds.append(about.card, spread.card);
  // the exercise (quiz setting), above the run's stage: asked about the run as it stands
  element.insertBefore(frame.quiz.element, layout.stage);
  const offQuizData = store.subscribe((event) => { if (event.type === 'ready' || event.type === 'run') frame.quiz.onNewData(); });

  // the timeline: a slider over the steps taken, loaded when the reader first opens it
  const timelineCard = h('details', { class: 'tr-card tr-timeline', attrs: { 'data-role': 'timeline' } },
    texts.set(h('summary', { attrs: { 'data-role': 'timeline-open' } }), 'timeline.summary'));
  element.insertBefore(timelineCard, layout.slots.corpus);
  let timeline = null;
  let timelineLoading = null;
  let destroyed = false;
  events.on(timelineCard, 'toggle', () => {
    if (!timelineCard.open || timelineLoading) return;
    timelineLoading = import('./training/timeline.js').then((m) => {
      if (destroyed) return;
      timeline = m.createTimelineView({ i18n, events, store, state });
      timelineCard.append(timeline.element);
    });
  });

  // progress: { section, kind: 'train', step, total, loss } whenever the run's step changes, at
  // most once per frame (a frame may take several steps: `step` is the last)
  let reportedStep;
  function reportProgress() {
    const run = store.run;
    if (!run || run.step === reportedStep) return;
    const first = reportedStep === undefined;
    reportedStep = run.step;
    if (first && run.step === 0) return;
    const record = run.history[run.history.length - 1];
    frame.progress({ section: 'training', kind: 'train', step: run.step, total: run.total, loss: record ? record.loss : null });
  }

  // built when first seen: until the run is drawn, the page must not move when it grows
  const settleLayout = store.run && !store.replaying ? () => {} : pendingLayout(element);
  const controller = createTrainingController({
    ctx, layout, view, texts, events, reportProgress,
    onRender(options = {}) {
      if (store.run) probes.setRun(store.run);
      if (store.run && !store.replaying) settleLayout();
      // while playing (a frame with a part), and when a large run is first drawn (spread), the
      // readings that go over the whole vocabulary (the neighbours, the counting table: 10-20 ms
      // each on 9,000 words) wait for the next frame, so that they never add up with the
      // scatter's projection and the page's layout in one task
      const readings = () => {
        probes.maybeRefresh(Boolean(options.probes));
        counting.refresh(Boolean(options.probes));
      };
      if (options.spread && options.part === 0) { /* the scatter's frame, next, asks for them */ }
      else if ((options.part >= 0 && !options.probes) || options.spread) options.later(readings);
      else readings();
      exports.update();
    },
  });
  const controls = createTrainingControls({
    ctx, texts, events, uid,
    onChange(name) {
      // the store starts the new run after the state settles (a microtask): narrate after it
      queueMicrotask(() => controller.narrateNew(name === 'tseed'
        ? i18n.t('training.what.seed', { seed: state.get('tseed') }) : controls.describe()));
    },
  });
  layout.slots.settings.append(controls.element);
  const corpus = createCorpusPanel({ ctx, texts, events, uid, corpusButton: exports.corpusButton() });
  layout.slots.corpus.append(corpus.element);

  // the intro's sentence on what a step changes follows the batch size and the optimizer: SGD
  // moves exactly the rows the batch used (<s> included), Adam's moments move rows seen before too
  const intro2 = () => {
    // read from the store's run: the view draws a run only once this section has been on screen,
    // and the walkthrough (opened by ?section=trainstep) builds the run before that
    const n = store.run ? batchCount(store.run) : state.get('batch');
    const adam = (store.run ? store.run.options.optimizer : state.get('opt')) === 'adam';
    const last = store.run?.last;
    const count = adam && last ? i18n.t('training.intro2.adamCount', { step: last.step, moved: last.updatedRows.length, V: store.run.vocab.length }) : '';
    texts.set(layout.intro2, `training.intro2.${adam ? 'adam.' : ''}${n === 1 ? 'one' : 'many'}`, { n, count });
    // the batch card's heading, before the run draws it: never an empty heading
    if (!store.run) layout.batch.title.textContent = i18n.t(n === 1 ? 'training.batch.one' : 'training.batch.many', { n });
  };
  // the intro's gaps and the words that fill them, counted from the default corpus it describes
  const intro3 = () => {
    const list = (words) => {
      const shown = words.map((w) => glossed(w, i18n.lang));
      return shown.length < 2 ? shown.join('') : `${shown.slice(0, -1).join(i18n.t('training.wordJoin'))}${i18n.t('training.wordLast')}${shown.at(-1)}`;
    };
    const gaps = ARTICLE_CONTEXTS.map((context, k) => i18n.t('training.gap', {
      context: context.join(''), gloss: i18n.t(`training.context.${k}`), words: list(gapFillers(DEFAULT_CORPUS, context)),
    }));
    layout.intro3.textContent = i18n.t('training.intro3', { gaps: gaps.join(i18n.t('training.gapJoin')) });
  };
  // the car experiment's reading, beside the similarity chart (shown on a corpus other than the default)
  const carReading = createCarReading({ i18n });
  layout.charts.similarity.closest('.tr-sim-card')?.append(carReading.element);
  intro2();
  intro3();
  const offStore = store.subscribe((event) => {
    // the probes ask the new run at once (a large one is drawn a frame or two later)
    if (event.type === 'run' && store.run) probes.setRun(store.run);
    if (event.type === 'ready' || event.type === 'step') intro2();
    if (event.type === 'ready' || event.type === 'step' || event.type === 'run') carReading.draw(store);
  });
  const offState = state.onChange((name) => { if (RUN_KEYS.includes(name)) intro2(); });

  // built after the run exists (another section built it first): draw it as it stands
  if (store.run && !store.replaying) {
    queueMicrotask(() => {
      if (!store.run) return;
      view.newRun(store.run);
      controller.refresh();
    });
  }

  let language = i18n.lang;
  function setLanguage() {
    // main.js calls this and i18n.onLanguageChange fires too: redraw once per change
    if (language === i18n.lang) return;
    language = i18n.lang;
    texts.refresh();
    intro2();
    intro3();
    carReading.draw(store);
    view.setLanguage();
    controls.setLanguage();
    corpus.setLanguage();
    about.setLanguage();
    counting.setLanguage();
    spread.setLanguage();
    timeline?.setLanguage();
    controller.refresh();
  }
  const offLanguage = i18n.onLanguageChange ? i18n.onLanguageChange(() => setLanguage()) : () => {};

  return {
    element,
    quizData: () => runNow(store),
    /** On screen or not: the run is built when first seen, and animates only while seen. */
    setVisible: (visible) => controller.setVisible(visible),
    setLanguage,
    destroy() {
      destroyed = true;
      timeline?.destroy();
      offQuizData();
      controller.destroy();
      offLanguage();
      offStore();
      offState();
      controls.destroy();
      corpus.destroy();
      spread.destroy();
      probes.destroy();
      view.destroy();
      release();
    },
  };
}
