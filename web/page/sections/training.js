// training.js: section 9, "learning the embedding table": a real training run of the WASM model
// (web/model.js), animated. Start / pause / step / back / reset, speed and seed; live charts of the
// loss and of cos(猫, 狗) against cos(猫, 汽车); the embeddings' PCA scatter with trails; the table
// as a heat map whose updated rows flash; the step's batch; nearest neighbours; an analogy box;
// PNG and Embedding Projector (TSV) exports.
//
//   const section = createTrainingSection({ qkv, i18n, state, announce });
//   host.append(section.element);   …   section.destroy();
//
// Everything renders inside section.element (it may live in a shadow root). The model is built
// when the section first becomes visible, and the animation loop runs only while it is visible.
// The run is reproducible: state 'seed' + 'step' (in the URL) are replayed from the seed.
import { h, fmt, listeners, download } from '../dom.js';
import { addStrings } from '../i18n.js';
import {
  createLossChart, createSimilarityChart, EmbeddingScatter, THEMES, LOSS_SERIES, SIMILARITY_SERIES, styleSwatch,
} from '../charts.js';
import { EmbeddingHeatmap, divergingColour } from '../embedding-heatmap.js';
import { vectorsTSV, metadataTSV, dataURLToBlob } from '../embedding-export.js';
import { TrainingRun, PROBES } from '../training-run.js';
import { TRAINING_STRINGS } from './training-strings.js';

addStrings(TRAINING_STRINGS);

/** Speeds in training steps per second (a frame does as many steps as are due). */
export const SPEEDS = Object.freeze([2, 5, 10, 20, 50, 100]);
const DEFAULT_SPEED = 20;
const MAX_STEPS_PER_FRAME = 8;
const PROBE_REFRESH_MS = 200;  // while playing, neighbours and analogy refresh at most this often
const TRAIL = 10;

let instances = 0;

/** The registry's entry (sections/index.js). */
export const trainingSection = Object.freeze({ id: 'training', create: (ctx) => createTrainingSection(ctx) });

export function createTrainingSection(ctx) {
  const { qkv, i18n, state } = ctx;
  const announce = typeof ctx.announce === 'function' ? ctx.announce : () => {};
  const uid = `qkv-training-${++instances}`;
  const events = listeners();
  const bound = [];  // [element, key, vars(), property]
  const media = (q) => (typeof matchMedia === 'function' ? matchMedia(q) : { matches: false, addEventListener() {}, removeEventListener() {} });
  const reducedMotion = media('(prefers-reduced-motion: reduce)');
  const darkScheme = media('(prefers-color-scheme: dark)');

  function text(el, key, vars, prop = 'textContent') {
    bound.push([el, key, vars, prop]);
    write(el, key, vars, prop);
    return el;
  }
  function write(el, key, vars, prop) {
    const value = i18n.t(key, typeof vars === 'function' ? vars() : vars);
    if (prop === 'textContent') el.textContent = value;
    else el.setAttribute(prop, value);
  }
  const refreshTexts = () => bound.forEach(([el, key, vars, prop]) => write(el, key, vars, prop));

  // ---- the DOM ----
  const button = (role, key) => text(h('button', { attrs: { type: 'button', 'data-role': role } }), key);
  const playButton = h('button', { attrs: { type: 'button', 'data-role': 'play', 'aria-pressed': 'false' } });
  const stepButton = button('step', 'training.step');
  const backButton = button('back', 'training.back');
  const resetButton = button('reset', 'training.reset');
  const speedSelect = h('select', { attrs: { 'data-role': 'speed' } },
    SPEEDS.map((n) => text(h('option', { value: String(n), selected: n === DEFAULT_SPEED }), 'training.speedOption', { n })));
  const seedInput = h('input', { attrs: { type: 'number', 'data-role': 'seed', min: 0, max: 4294967295, step: 1, inputmode: 'numeric' } });
  const controls = h('div', { class: 'tr-controls', attrs: { role: 'group' } },
    playButton, stepButton, backButton, resetButton,
    h('label', {}, text(h('span'), 'training.speed'), speedSelect),
    h('label', {}, text(h('span'), 'training.seed'), seedInput));
  text(controls, 'training.keys', null, 'aria-label');

  const progress = h('span', { class: 'tr-progress', attrs: { 'data-role': 'progress' } });
  const lossNow = h('span', { class: 'tr-loss', attrs: { 'data-role': 'loss' } });
  const simNow = h('span', { class: 'tr-sim-now' });
  const narration = h('p', { class: 'tr-narration narration', attrs: { id: `${uid}-narration`, 'data-role': 'narration' } });
  const errorBox = h('div', { class: 'tr-error', attrs: { role: 'alert', 'data-role': 'error' }, hidden: true });

  const batchList = h('ol', { attrs: { 'data-role': 'batch' } });
  const batchEmpty = text(h('p', { class: 'tr-note' }), 'training.batchNone');
  const updatedLine = h('p', { class: 'tr-updated', attrs: { 'data-role': 'updated-words' } });

  const lossCanvas = h('canvas', { attrs: { role: 'img', 'data-chart': 'loss' } });
  const simCanvas = h('canvas', { attrs: { role: 'img', 'data-chart': 'similarity' } });
  const scatterCanvas = h('canvas', { attrs: { role: 'img', 'data-chart': 'scatter' } });
  text(lossCanvas, 'training.lossChart', null, 'aria-label');
  text(simCanvas, 'training.simChart', null, 'aria-label');
  text(scatterCanvas, 'training.scatterChart', null, 'aria-label');

  // the line charts' legends: HTML lists (read by screen readers, translated like the rest),
  // each swatch drawn like its series' line
  const lineSwatches = [];
  const lineLegend = (keys, specs) => h('ul', { class: 'tr-legend' }, keys.map((key, i) => {
    const swatch = h('span', { class: 'tr-line-swatch', attrs: { 'aria-hidden': 'true' } });
    lineSwatches.push([swatch, specs[i], i]);
    return h('li', {}, swatch, text(h('span'), key));
  }));
  const lossLegend = lineLegend(['training.lossRaw', 'training.lossAvg'], LOSS_SERIES);
  const simLegend = lineLegend(['training.simCatDog', 'training.simCatCar'], SIMILARITY_SERIES);

  const groupSwatches = [];
  const groupLegend = h('ul', { class: 'tr-group-legend' },
    ['training.groupAnimals', 'training.groupVehicles', 'training.groupPeople'].map((key) => {
      const swatch = h('span', { class: 'tr-swatch', attrs: { 'aria-hidden': 'true' } });
      groupSwatches.push(swatch);
      return h('li', {}, swatch, text(h('span'), key));
    }));
  const heatmap = new EmbeddingHeatmap({ reducedMotion: () => reducedMotion.matches });
  // the heat map's heading before the run exists (render() then gives the table's size): never empty
  const heatTitle = text(h('h3'), 'training.heatmapTitle');
  const heatNote = h('p', { class: 'tr-note' });
  const legendBar = h('span', { class: 'heat-legend-bar' });
  const legendMin = h('span', { class: 'tr-num' });
  const legendMax = h('span', { class: 'tr-num' });

  const nearestInput = h('input', { attrs: { type: 'text', 'data-role': 'nearest-word', list: `${uid}-words`, autocomplete: 'off', spellcheck: 'false' } });
  nearestInput.value = PROBES.anchor;
  const nearestK = h('select', { attrs: { 'data-role': 'nearest-k' } },
    [3, 5, 8].map((k) => h('option', { value: String(k), text: String(k), selected: k === 5 })));
  const nearestResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'nearest-results' } });
  const nearestError = h('p', { class: 'tr-inline-error', attrs: { 'data-role': 'nearest-error', 'aria-live': 'polite' }, hidden: true });

  const analogyInputs = ['国王', '男人', '女人'].map((word, i) => {
    const input = h('input', { attrs: { type: 'text', 'data-role': `analogy-${'abc'[i]}`, list: `${uid}-words`, autocomplete: 'off', spellcheck: 'false' } });
    input.value = word;
    return input;
  });
  const analogyResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'analogy-results' } });
  const analogyError = h('p', { class: 'tr-inline-error', attrs: { 'data-role': 'analogy-error', 'aria-live': 'polite' }, hidden: true });
  const datalist = h('datalist', { attrs: { id: `${uid}-words` } });

  const exportButton = (role, key) => text(h('button', { attrs: { type: 'button', 'data-export': role } }), key);
  const pngButtons = {
    loss: exportButton('loss-png', 'training.exportLossPNG'),
    similarity: exportButton('similarity-png', 'training.exportSimPNG'),
    scatter: exportButton('scatter-png', 'training.exportScatterPNG'),
  };
  const vectorsButton = exportButton('vectors', 'training.exportVectors');
  const metadataButton = exportButton('metadata', 'training.exportMetadata');

  const card = (cls, ...children) => h('div', { class: `tr-card ${cls}` }, ...children);
  const label = (key, control) => h('label', {}, text(h('span'), key), control);
  const element = h('section', { class: 'qkv-section qkv-training', attrs: { id: 'training', 'data-section': 'training', 'data-state': 'loading', 'aria-labelledby': `${uid}-title` } },
    text(h('h2', { class: 'section-title', attrs: { id: `${uid}-title` } }), 'training.title'),
    h('div', { class: 'tr-intro' },
      ['training.intro1', 'training.intro2', 'training.intro3', 'training.intro4'].map((k) => text(h('p'), k))),
    controls,
    text(h('p', { class: 'tr-keys keys-hint' }), 'training.keys'),
    // the stage: focusable, so the keys work after a click or Tab here (as in the other sections)
    h('div', { class: 'stage tr-stage', attrs: { tabindex: '0', 'aria-describedby': `${uid}-narration` } },
      h('div', { class: 'tr-status' }, progress, lossNow, simNow),
      narration),
    errorBox,
    h('div', { class: 'tr-grid' },
      card('tr-batch tr-wide', text(h('h3'), 'training.batch'), batchEmpty, batchList, updatedLine),
      h('div', { class: 'tr-stack' },
        card('tr-loss-card', text(h('h3'), 'training.lossChart'), lossLegend, h('div', { class: 'tr-chart' }, lossCanvas), pngButtons.loss),
        card('tr-sim-card', text(h('h3'), 'training.simChart'), simLegend, h('div', { class: 'tr-chart' }, simCanvas), pngButtons.similarity)),
      card('tr-scatter-card', text(h('h3'), 'training.scatterChart'), text(h('p', { class: 'tr-note' }), 'training.scatterNote'),
        h('div', { class: 'tr-chart tr-square' }, scatterCanvas), groupLegend, pngButtons.scatter),
      card('tr-heat-card', heatTitle, heatNote, heatmap.element,
        h('div', { class: 'heat-legend', attrs: { 'aria-hidden': 'true' } }, legendMin, legendBar, legendMax)),
      h('div', { class: 'tr-stack' },
        card('tr-nearest-card',
          text(h('h3'), 'training.nearest'),
          h('form', { attrs: { 'data-role': 'nearest-form' } }, label('training.nearestWord', nearestInput), label('training.nearestK', nearestK)),
          nearestError, nearestResults),
        card('tr-analogy-card',
          text(h('h3'), 'training.analogy'),
          text(h('p', { class: 'tr-note' }), 'training.analogyHelp'),
          h('form', { attrs: { 'data-role': 'analogy-form' } },
            analogyInputs[0], h('span', { class: 'tr-op', text: '−', attrs: { 'aria-hidden': 'true' } }),
            analogyInputs[1], h('span', { class: 'tr-op', text: '+', attrs: { 'aria-hidden': 'true' } }),
            analogyInputs[2]),
          analogyError, analogyResults),
        card('tr-export-card',
          text(h('h3'), 'training.export'),
          h('div', { class: 'tr-exports' }, vectorsButton, metadataButton),
          text(h('p', { class: 'tr-note' }), 'training.exportNote')))),
    datalist);
  analogyInputs.forEach((input, i) => text(input, ['training.analogyA', 'training.analogyB', 'training.analogyC'][i], null, 'aria-label'));

  // ---- the run and what draws it ----
  let run = null;
  let charts = null;
  let playing = false;
  let visible = typeof IntersectionObserver !== 'function';
  let frameId = 0;
  let lastFrameTime = 0;
  let due = 0;
  let lastProbeTime = 0;
  let frameCount = 0;
  let speed = DEFAULT_SPEED;
  let writingState = false;
  let theme = THEMES.light;
  // progress: { section, kind: 'train', step, total, loss } whenever the run's step changes,
  // at most once per frame (a frame may take several steps: `step` is the last)
  const progressWatchers = new Set();
  let reportedStep;
  function reportProgress() {
    if (!run || run.step === reportedStep) return;
    const first = reportedStep === undefined;
    reportedStep = run.step;
    if (first && run.step === 0) return;
    const record = run.history[run.history.length - 1];
    const detail = { section: 'training', kind: 'train', step: run.step, total: run.total, loss: record ? record.loss : null };
    for (const fn of [...progressWatchers]) fn(detail);
  }

  const seedNow = () => (state ? state.get('seed') : 42);

  function detectTheme() {
    // the page may set its scheme itself: judge by the text colour actually inherited
    const colour = getComputedStyle(element).color;
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/.exec(colour);
    const light = m ? (0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3]) > 140 : darkScheme.matches;
    return light ? THEMES.dark : THEMES.light;
  }

  function applyTheme() {
    theme = detectTheme();
    heatmap.setDark(theme.dark);
    const stops = [-1, -0.5, 0, 0.5, 1].map((v) => `rgb(${divergingColour(v, theme.dark).join(',')})`);
    groupSwatches.forEach((el, g) => { el.style.background = theme.series[g]; });
    lineSwatches.forEach(([el, spec, i]) => styleSwatch(el, theme, spec, i));
    legendBar.style.background = `linear-gradient(to right, ${stops.join(', ')})`;
    if (charts) for (const c of Object.values(charts)) c.setTheme(theme);
  }

  function chartTexts() {
    if (!charts) return;
    const step = i18n.t('training.stepAxis');
    charts.loss.setText({ labels: [i18n.t('training.lossRaw'), i18n.t('training.lossAvg')], xTitle: step, yTitle: '' });
    charts.similarity.setText({ labels: [i18n.t('training.simCatDog'), i18n.t('training.simCatCar')], xTitle: step, yTitle: '' });
  }

  function ensureCharts() {
    if (charts) return;
    theme = detectTheme();
    charts = {
      loss: createLossChart(lossCanvas, { theme, labels: ['', ''] }),
      similarity: createSimilarityChart(simCanvas, { theme, labels: ['', ''] }),
      scatter: new EmbeddingScatter(scatterCanvas, { theme, trail: TRAIL }),
    };
    chartTexts();
    applyTheme();
  }

  // ctx.modelOptions (optional): createModel options other than the seed, e.g. { lr, optimizer }
  // for a widget or a test; the page uses the model's defaults, so its schedule is train()'s.
  function modelOptions(seed) {
    return { ...(ctx.modelOptions || {}), seed };
  }

  /** Builds the run for the current seed at `step` (0 = fresh), replaying from the seed. */
  function startRun(step) {
    pause(false);
    if (run) run.dispose();
    run = null;
    ensureCharts();
    let replayed;
    try {
      replayed = TrainingRun.replay(qkv, modelOptions(seedNow()), step, {
        // keeps project2d's axis signs continuous, as during live play
        onProgress: (r) => r.model.project2d(),
      });
    } catch (error) {
      showError(error);
      return;
    }
    run = replayed;
    vocabChanged();
    charts.loss.update(run.history.map((r) => ({ step: r.step, values: [r.loss, r.average] })));
    charts.similarity.update([run.initialPoint(), ...run.history].map((r) => ({ step: r.step, values: [r.catDog, r.catCar] })));
    charts.scatter.reset();
    charts.loss.chart.options.scales.x.max = run.total;
    charts.similarity.chart.options.scales.x.max = run.total;
    render({ probes: true });
    if (run.error) showError(run.error);
  }

  function vocabChanged() {
    heatmap.setWords(run.vocab);
    charts.scatter.setWords(run.vocab, run.groups, [0]);
    datalist.replaceChildren(...run.vocab.slice(1).map((w) => h('option', { value: w })));
  }

  /**
   * Draws the run's current state. While playing, `part` is 0 or 1 on alternate frames: the
   * line charts redraw on one, the scatter on the other (each still 30 times a second), which
   * halves the Chart.js work in a frame; everything else redraws every frame.
   */
  function render({ probes = false, part = -1 } = {}) {
    const last = run.last;
    const step = run.step;
    element.dataset.step = String(step);
    element.dataset.loss = last ? String(last.loss) : '';
    progress.textContent = i18n.t('training.progress', { step, total: run.total });
    lossNow.textContent = last ? i18n.t('training.lossNow', { loss: fmt(last.loss) }) : '';
    const sims = last || run.initialPoint();
    simNow.textContent = i18n.t('training.simNow', { a: fmt(sims.catDog), b: fmt(sims.catCar) });

    const table = run.model.embeddings();
    const bound = heatmap.draw(table);
    heatmap.flash(step, last ? last.updatedRows : []);
    heatTitle.textContent = i18n.t('training.heatmap', { rows: table.rows, cols: table.cols });
    heatNote.textContent = i18n.t('training.heatmapNote', { max: fmt(bound) });
    legendMin.textContent = fmt(-bound);
    legendMax.textContent = fmt(bound);

    renderBatch(last);
    if (part !== 0) {
      charts.scatter.trailLength = reducedMotion.matches ? 0 : TRAIL;
      charts.scatter.update(run.model.project2d());
    }
    if (part !== 1) {
      charts.loss.update();
      charts.similarity.update();
    }
    lossCanvas.dataset.points = String(charts.loss.pointCount());  // for tests: the chart's points
    if (probes || performance.now() - lastProbeTime > PROBE_REFRESH_MS) {
      lastProbeTime = performance.now();
      renderNearest();
      renderAnalogy();
    }
    updateButtons();
    reportProgress();
  }

  function renderBatch(last) {
    batchEmpty.hidden = Boolean(last);
    batchList.replaceChildren(...(last ? last.batch.map((tokens) => h('li', { text: tokens.join(' ') })) : []));
    updatedLine.textContent = last
      ? `${i18n.t('training.updatedRows', { count: last.updatedRows.length })} ${last.updatedRows.map((r) => run.vocab[r]).join(' · ')}`
      : '';
  }

  function vocabList() {
    return run.vocab.slice(1).join(i18n.lang === 'zh' ? '、' : ', ');
  }

  /** The word typed in input, or null after showing why it cannot be used. */
  function readWord(input, errorEl) {
    const word = input.value.trim();
    let message = null;
    if (word === '') message = i18n.t('training.emptyWord');
    else if (!run.vocab.includes(word) || word === run.vocab[0]) {
      message = i18n.t('training.unknownWord', { word: word.length > 24 ? `${word.slice(0, 24)}…` : word, list: vocabList() });
    }
    input.setAttribute('aria-invalid', String(message !== null));
    if (message !== null) {
      errorEl.textContent = message;
      errorEl.hidden = false;
      return null;
    }
    return word;
  }

  function resultItems(list) {
    return list.map(({ word, score }) => h('li', {}, h('span', { text: word }), h('span', { class: 'tr-num', text: fmt(score) })));
  }

  function renderNearest() {
    if (!run) return;
    nearestError.hidden = true;
    const word = readWord(nearestInput, nearestError);
    if (word === null) { nearestResults.replaceChildren(); return; }
    nearestResults.replaceChildren(...resultItems(run.model.nearest(word, Number(nearestK.value))));
  }

  function renderAnalogy() {
    if (!run) return;
    analogyError.hidden = true;
    const words = [];
    for (const input of analogyInputs) {
      const w = readWord(input, analogyError);
      if (w === null) { analogyResults.replaceChildren(); return; }
      words.push(w);
    }
    const [a, b, c] = words;  // A − B + C is "B is to A as C is to ?": model.analogy(B, A, C)
    analogyResults.replaceChildren(...resultItems(run.model.analogy(b, a, c, 3)));
  }

  function updateButtons() {
    const ready = run !== null;
    const over = !ready || run.finished;
    playButton.textContent = i18n.t(playing ? 'training.pause' : (ready && run.step > 0 && !over ? 'training.resume' : 'training.play'));
    playButton.setAttribute('aria-pressed', String(playing));
    playButton.disabled = over && !playing;
    stepButton.disabled = over || playing;
    backButton.disabled = !ready || run.step === 0 || playing;
    resetButton.disabled = !ready;
    vectorsButton.disabled = metadataButton.disabled = !ready;
    element.dataset.state = !ready ? 'loading' : run.error ? 'diverged' : playing ? 'playing' : run.finished ? 'finished' : 'paused';
  }

  function showError(error) {
    const diverged = error && (error.code === 'QKV_DIVERGED' || error.name === 'DivergenceError');
    errorBox.textContent = diverged
      ? i18n.t('training.diverged', { step: run ? run.step + 1 : 0, message: error.message })
      : i18n.t('training.error', { message: error && error.message ? error.message : String(error) });
    errorBox.hidden = false;
    playing = false;
    updateButtons();
    announce(errorBox.textContent);
  }

  function narrate(key, extra = {}) {
    const last = run.last;
    const sentence = last ? last.batch.map((t) => t.join(' ')).join(' / ') : '';
    const message = i18n.t(key, {
      step: run.step, total: run.total, seed: seedNow(), n: speed, sentence,
      loss: fmt(last ? last.loss : NaN), count: last ? last.updatedRows.length : 0,
      a: fmt(last ? last.catDog : NaN), b: fmt(last ? last.catCar : NaN), ...extra,
    });
    narration.textContent = message;
    announce(message);
  }

  function saveStep() {
    if (!state || !run) return;
    writingState = true;
    try { state.set('step', run.step); } finally { writingState = false; }
  }

  // ---- actions ----
  function stepOnce() {
    if (!run || playing) return;
    const record = run.advance();
    if (record) {
      charts.loss.push({ step: record.step, values: [record.loss, record.average] });
      charts.similarity.push({ step: record.step, values: [record.catDog, record.catCar] });
      render({ probes: true });
      narrate('training.say.step');
      saveStep();
    }
    if (run.error) showError(run.error);
  }

  function back() {
    if (!run || run.step === 0) return;
    const target = run.step - 1;
    startRun(target);
    narrate('training.say.back');
    saveStep();
  }

  function reset() {
    startRun(0);
    errorBox.hidden = true;
    narration.textContent = '';
    narrate('training.say.reset');
    saveStep();
  }

  function play() {
    if (!run || run.finished || playing) return;
    playing = true;
    lastFrameTime = 0;
    due = 1;  // the first frame takes a step at once: pressing Start answers immediately
    updateButtons();
    narrate('training.say.play', { n: speed });
    schedule();
  }

  function pause(say = true) {
    const was = playing;
    playing = false;
    if (frameId) cancelAnimationFrame(frameId);
    frameId = 0;
    if (run) {
      updateButtons();
      if (was) {
        render({ probes: true });
        if (say) narrate('training.say.pause');
        saveStep();
      }
    }
  }

  function schedule() {
    if (playing && visible && !frameId) frameId = requestAnimationFrame(frame);
  }

  function frame(now) {
    frameId = 0;
    if (!playing || !visible || !run) return;
    const dt = lastFrameTime ? Math.min(now - lastFrameTime, 100) : 1000 / 60;
    lastFrameTime = now;
    due += (speed * dt) / 1000;
    const n = Math.min(Math.floor(due), MAX_STEPS_PER_FRAME);
    due = Math.min(due - n, 1);
    let any = false;
    for (let i = 0; i < n; i++) {
      const record = run.advance();
      if (!record) break;
      any = true;
      charts.loss.push({ step: record.step, values: [record.loss, record.average] });
      charts.similarity.push({ step: record.step, values: [record.catDog, record.catCar] });
    }
    if (any) render({ part: (frameCount++) % 2 });
    if (run.error) {
      showError(run.error);
      saveStep();
      return;
    }
    if (run.finished) {
      playing = false;
      render({ probes: true });
      narrate('training.say.done');
      saveStep();
      return;
    }
    schedule();
  }

  // ---- listeners ----
  events.on(playButton, 'click', () => (playing ? pause() : play()));
  events.on(stepButton, 'click', stepOnce);
  events.on(backButton, 'click', back);
  events.on(resetButton, 'click', reset);
  events.on(speedSelect, 'change', () => { speed = Number(speedSelect.value) || DEFAULT_SPEED; });
  events.on(seedInput, 'change', () => {
    const value = Number(seedInput.value);
    const set = ctx.setSetting ? ctx.setSetting : (name, v) => (state ? state.set(name, v) : false);
    if (!/^\d{1,10}$/.test(seedInput.value.trim()) || !set('seed', value)) {
      seedInput.value = String(seedNow());  // not a valid seed: keep the current one
      return;
    }
    if (run && run.options.seed !== seedNow()) reset();
  });
  events.on(nearestInput, 'input', renderNearest);
  events.on(nearestK, 'change', renderNearest);
  for (const input of analogyInputs) events.on(input, 'input', renderAnalogy);
  for (const form of element.querySelectorAll('form')) events.on(form, 'submit', (e) => e.preventDefault());
  events.on(element, 'keydown', (event) => {
    const target = event.target;
    if (target.closest && target.closest('input, textarea, select, [contenteditable="true"]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === ' ' && target.tagName !== 'BUTTON') {
      event.preventDefault();
      if (playing) pause(); else play();
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      if (playing) pause();
      stepOnce();
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      if (playing) pause();
      back();
    }
  });

  const exportPNG = (which, name) => () => {
    if (!charts) return;
    download(document, dataURLToBlob(charts[which].toPNG()), name);
  };
  events.on(pngButtons.loss, 'click', exportPNG('loss', 'qkv-lab-loss.png'));
  events.on(pngButtons.similarity, 'click', exportPNG('similarity', 'qkv-lab-similarity.png'));
  events.on(pngButtons.scatter, 'click', exportPNG('scatter', 'qkv-lab-embeddings-pca.png'));
  events.on(vectorsButton, 'click', () => {
    if (run) download(document, vectorsTSV(run.model.embeddings()), 'vectors.tsv');
  });
  events.on(metadataButton, 'click', () => {
    if (run) download(document, metadataTSV(run.vocab), 'metadata.tsv');
  });

  const onScheme = () => applyTheme();
  darkScheme.addEventListener('change', onScheme);
  const offState = state && state.onChange ? state.onChange((name, value) => {
    if (writingState || !run) return;
    if (name === 'seed') {
      seedInput.value = String(value);
      if (run.options.seed !== value) reset();
    } else if (name === 'step' && value !== run.step) {
      startRun(value);
    }
  }) : () => {};
  const offLanguage = i18n.onLanguageChange ? i18n.onLanguageChange(() => setLanguage()) : () => {};

  let language = i18n.lang;
  function setLanguage() {
    // main.js calls this and i18n.onLanguageChange fires too: draw once per change
    if (language === i18n.lang) return;
    language = i18n.lang;
    refreshTexts();
    chartTexts();
    if (run) render({ probes: true });
    else updateButtons();
  }

  let observer = null;
  function becameVisible() {
    if (!run) {
      startRun(state ? state.get('step') || 0 : 0);
      if (run && run.step > 0) narrate('training.say.back');
    }
    schedule();
  }
  if (typeof IntersectionObserver === 'function') {
    observer = new IntersectionObserver((entries) => {
      visible = entries.some((e) => e.isIntersecting);
      if (visible) becameVisible();
      else if (frameId) { cancelAnimationFrame(frameId); frameId = 0; lastFrameTime = 0; }
    });
    observer.observe(element);
  } else {
    queueMicrotask(becameVisible);
  }

  seedInput.value = String(seedNow());
  progress.textContent = i18n.t('training.loading');
  updateButtons();

  return {
    id: 'training',
    element,
    setLanguage,
    /** For tests and the widget: the live run (null until the section was first visible). */
    get run() { return run; },
    onProgress(fn) {
      progressWatchers.add(fn);
      return () => progressWatchers.delete(fn);
    },
    destroy() {
      progressWatchers.clear();
      playing = false;
      if (frameId) cancelAnimationFrame(frameId);
      frameId = 0;
      if (observer) observer.disconnect();
      events.off();
      darkScheme.removeEventListener('change', onScheme);
      offState();
      offLanguage();
      if (charts) for (const c of Object.values(charts)) c.destroy();
      charts = null;
      if (run) run.dispose();
      run = null;
    },
  };
}
