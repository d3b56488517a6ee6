// "Fine-tuning": the reader adapts the pretrained Tang poet (qkv.loadPretrained(), loaded only
// when this section is first seen) to 浣溪沙, to 李白's quatrains or to their own text, by LoRA
// or by every parameter, in a Web Worker (finetune/store.js; on the page's thread where a strict
// CSP refuses the worker, said in a notice). It draws the run's snapshots: the losses on the new
// text and on Tang poems (forgetting) on one Chart.js chart; samples every SAMPLE_EVERY steps
// with their form and rhyme (finetune/poems.js over web/poetry/metrics.js), walked by the stepper;
// what changed (trainable parameters, adapter bytes, one adapted matrix as W beside (α/r)·A·B, or
// the share of parameters moved for full fine-tuning); the base and the fine-tuned model on one
// beginning, merged or not. Start / Pause / Step go through the shell's ticker (shell/ticker.js).
import { h, clear, fmt, download } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { FINETUNE_STRINGS } from './finetune.strings.js';
import { defineSection, toggle } from '../shell/section-shell.js';
import { createTicker } from '../shell/ticker.js';
import { acquireFineTuneStore } from '../finetune/store.js';
import { FINETUNE_PROPERTIES, FINETUNE_CHOICES, FINETUNE_PRESETS, FINETUNE_TARGETS, FT_KEYS, parseTargets } from '../finetune/settings.js';
import { SAMPLE_EVERY, SAMPLE_TEMPERATURE, EVAL_WINDOWS, MOVED_THRESHOLD, BASE_SHAPE } from '../finetune/constants.js';
import { FORM_LABELS } from '../finetune/poems.js';
import { createAdapterView } from '../finetune/adapter-view.js';
import { fineTuneRefusal, ownTextProblem } from '../finetune/refusals.js';
import { createFineTuneChart } from '../views/charts/step-chart.js';
import { THEMES, FINETUNE_SERIES, styleSwatch, themeOf } from '../views/charts/theme.js';
import { prefersDarkText } from '../views/signed-heatmap.js';
import { CORPUS_LIMITS } from '../../corpus.js';

addStrings(FINETUNE_STRINGS);

const kib = (bytes) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);
const percent = (x, digits = 2) => `${(100 * x).toFixed(digits)}%`;
const grouped = (n) => n.toLocaleString('en-US');
/** The form a sample is held to: 浣溪沙 for its preset; for 李白's a 绝句; for the reader's text, any Tang form. */
const TARGET_FORMS = { huanxisha: ['huanxisha'], poet: ['wujue', 'qijue'], own: ['wujue', 'qijue', 'wulv', 'qilv', 'huanxisha'] };
/** What the run's samples are read against: its own preset's form (not a preset chosen since), or a Tang form. */
const targetOf = (snap) => (snap.source === 'own' ? 'own' : snap.preset ?? snap.settings.ftset);
/** The schedule's default length, which the introduction quotes. */
const DEFAULT_STEPS = FINETUNE_PROPERTIES.find((p) => p.name === 'ftsteps').default;

/** Asked before the second sample is shown: the trainable share, from the run's own counts (hidden until answered). */
export const FINETUNE_QUIZ = [{
  id: 'share', atStep: 1, when: (d) => Boolean(d && d.info && d.info.method === 'lora'),
  numeric: { tolerance: 0.05, digits: 1 },
  prompt: (d, t) => t('finetune.quiz.sharePrompt'),
  answer: (d) => Math.round(1000 * d.info.trainableCount / d.info.parameterCount) / 10,
  explain: (d, t) => t('finetune.quiz.shareExplain', { trainable: grouped(d.info.trainableCount), total: grouped(d.info.parameterCount),
    share: (100 * d.info.trainableCount / d.info.parameterCount).toFixed(2) }),
}];

/** The section's data: the store's snapshots; seen for the first time, it loads the base and starts. */
function fineTuneSource(ctx) {
  const { store, release } = acquireFineTuneStore(ctx);
  return {
    get: () => store.get(),
    subscribe: (fn) => store.subscribe(fn),
    setVisible: (visible) => { if (visible) store.ensure(); store.setVisible(visible); },
    destroy: release,
  };
}

export const finetuneSection = defineSection({
  id: 'finetune', linkScene: false, quiz: FINETUNE_QUIZ, titleKey: 'finetune.title', properties: FINETUNE_PROPERTIES, settings: FT_KEYS,
  introKeys: [['finetune.intro1', (snap) => ({ layers: snap.base?.layers ?? BASE_SHAPE.layers, dim: snap.base?.dim ?? BASE_SHAPE.dim,
    params: grouped(snap.base?.parameterCount ?? BASE_SHAPE.parameters), steps: DEFAULT_STEPS })],
    ['finetune.intro2', (snap) => ({ dim: snap.base?.dim ?? BASE_SHAPE.dim })], 'finetune.intro3'],
  source: fineTuneSource,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const { store, release } = acquireFineTuneStore(ctx);
    const snapNow = () => frame.snap;

    // ---- settings (in the URL) ----
    let askedOwn = false, ownProblem = null;   // the reader asked for their own text (and what the page refused in it)
    const select = (key, options) => {
      const el = h('select', { attrs: { 'data-setting': key } }, options.map(([value, textKey]) => texts.set(h('option', { value: String(value) }), textKey)));
      events.on(el, 'change', () => ctx.setSetting(key, typeof options[0][0] === 'number' ? Number(el.value) : el.value));
      return { el, label: h('label', { class: 'gpt-choice' }, texts.set(h('span'), `finetune.${key}`), el) };
    };
    const setSel = select('ftset', [...FINETUNE_PRESETS.map((p) => [p, `finetune.set.${p}`]), ['own', 'finetune.set.own']]);
    // a preset chosen while the reader's own text trains, or is still being built: back to the
    // presets (the text stays in its box)
    events.on(setSel.el, 'change', () => { if (snapNow().source === 'own' || store.asksOwnText()) { askedOwn = false; ticker.pause(); store.useText(null); } });
    setSel.el.querySelector('option[value=own]').disabled = true;
    const methodSel = select('ftmethod', [['lora', 'finetune.method.lora'], ['full', 'finetune.method.full']]);
    const rankSel = h('select', { attrs: { 'data-setting': 'ftrank' } }, FINETUNE_CHOICES.ftrank.map((r) => h('option', { value: String(r), text: String(r) })));
    events.on(rankSel, 'change', () => ctx.setSetting('ftrank', Number(rankSel.value)));
    const stepsSel = h('select', { attrs: { 'data-setting': 'ftsteps' } }, FINETUNE_CHOICES.ftsteps.map((r) => h('option', { value: String(r), text: String(r) })));
    events.on(stepsSel, 'change', () => ctx.setSetting('ftsteps', Number(stepsSel.value)));
    const targetBoxes = FINETUNE_TARGETS.map((t) => {
      const box = h('input', { attrs: { type: 'checkbox', 'data-target': t } });
      events.on(box, 'change', () => {
        const chosen = FINETUNE_TARGETS.filter((name) => targets.querySelector(`[data-target=${name}]`).checked).join(',');
        if (!parseTargets(chosen)) { box.checked = true; return; }   // at least one target
        ctx.setSetting('fttargets', chosen);
      });
      return h('label', { class: 'ft-target' }, box, h('span', { text: t }));
    });
    const targetsLegend = texts.set(h('legend'), 'finetune.fttargets');
    const targets = h('fieldset', { class: 'ft-targets', attrs: { 'data-setting': 'fttargets' } }, targetsLegend, ...targetBoxes);
    const seedInput = h('input', { attrs: { type: 'text', inputmode: 'numeric', maxlength: '12', 'data-setting': 'ftseed', 'aria-describedby': `${frame.id}-seed-msg` } });
    seedInput.style.width = '7em';
    const seedMsg = h('span', { class: 'inline-message', attrs: { 'aria-live': 'polite' } });
    seedMsg.id = `${frame.id}-seed-msg`;
    events.on(seedInput, 'change', () => {
      const text = seedInput.value.trim();
      const ok = /^\d{1,10}$/.test(text) && ctx.setSetting('ftseed', Number(text));
      seedMsg.textContent = ok ? '' : i18n.t('finetune.seedBad', { seed: snapNow().settings.ftseed });
      if (ok) seedInput.removeAttribute('aria-invalid');
      else { seedInput.setAttribute('aria-invalid', 'true'); seedInput.value = String(snapNow().settings.ftseed); }
    });
    const rankLabel = h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.ftrank'), rankSel);
    const settingsRow = h('div', { class: 'writer-controls' }, setSel.label, methodSel.label, rankLabel,
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.ftsteps'), stepsSel),
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.ftseed'), seedInput), seedMsg);

    // ---- run controls: the shell's ticker plays the store's process ----
    const ticker = createTicker({ process: store.process, speed: 60 });
    const offVisible = store.onVisible((v) => ticker.setVisible(v));
    const button = (key, role, fn) => {
      const b = texts.set(h('button', { attrs: { type: 'button', 'data-role': role } }), key);
      events.on(b, 'click', fn);
      return b;
    };
    const play = button('finetune.start', 'play', () => ticker.toggle());
    const stepBtn = button('finetune.step', 'step', () => ticker.step());
    const restart = button('finetune.restart', 'restart', () => { askedOwn = false; ticker.pause(); store.restart(); });
    const save = button('finetune.save', 'save', async () => {
      const bytes = await store.saveAdapter();
      download(frame.element.ownerDocument, new Blob([bytes], { type: 'application/octet-stream' }), `qkv-lora-${targetOf(snapNow())}-step${snapNow().step}.qkvlora`);
    });
    const offTicker = ticker.onChange(() => draw(snapNow()));
    frame.controls.append(settingsRow, targets, h('div', { class: 'writer-controls' }, play, stepBtn, restart, save));

    const status = h('p', { class: 'writer-status num', attrs: { 'data-role': 'status', 'aria-live': 'polite' } });
    const threadNote = h('p', { class: 'note', attrs: { 'data-role': 'thread' } });
    const keptNote = h('p', { class: 'note', attrs: { 'data-role': 'kept' } });
    const staleNote = h('p', { class: 'note', attrs: { 'data-role': 'stale' } });
    const errorBox = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'error' } });

    // ---- the chart: both held-out losses and the step losses ----
    const canvas = h('canvas', { attrs: { role: 'img', 'data-role': 'loss-chart' } });
    const chartBox = h('div', { class: 'ft-chart' }, canvas);
    let chart = null, theme = THEMES.light, drawnPoints = '', chartLang = null;
    const legendItems = FINETUNE_SERIES.map((spec, i) => {
      const swatch = h('span', { class: 'swatch', attrs: { 'aria-hidden': 'true' } });
      return { swatch, spec, i, li: h('li', {}, swatch, texts.set(h('span'), `finetune.legend.${['batch', 'val', 'baseVal'][i]}`)) };
    });
    const legend = h('ul', { class: 'legend ft-legend' }, legendItems.map((x) => x.li));
    const forgetting = h('p', { class: 'note num', attrs: { 'data-role': 'forgetting' } });

    // ---- samples: the stepper walks them ----
    const samplesTitle = h('h3', { class: 'sub-title' });
    samplesTitle.id = `${frame.id}-samples-title`;
    const poems = h('ol', { class: 'poem-set ft-poems', attrs: { 'data-role': 'poems', 'aria-labelledby': samplesTitle.id } });

    // ---- what changed ----
    const counts = h('p', { class: 'num', attrs: { 'data-role': 'counts' } });
    const moved = h('p', { class: 'num', attrs: { 'data-role': 'moved' } });
    const matrixSel = h('select', { attrs: { 'data-role': 'matrix' } });
    const layerSel = h('select', { attrs: { 'data-role': 'layer' } });
    const pick = () => store.watch(matrixSel.value, Number(layerSel.value));
    events.on(matrixSel, 'change', pick);
    events.on(layerSel, 'change', pick);
    const adapterView = createAdapterView();
    const rankNote = h('p', { class: 'note num', attrs: { 'data-role': 'rank-note' } });
    const changeBox = h('div', { class: 'ft-change' }, texts.set(h('h3', { class: 'sub-title' }), 'finetune.changeTitle'), counts, moved,
      h('div', { class: 'writer-controls' }, h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.matrix'), matrixSel),
        h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.layer'), layerSel)),
      adapterView.element, rankNote);

    // ---- compare ----
    const promptInput = h('input', { attrs: { type: 'text', maxlength: '20', 'data-setting': 'ftprompt', lang: 'zh' } });
    events.on(promptInput, 'change', () => ctx.setSetting('ftprompt', promptInput.value.replace(/[\r\n]/g, '')));
    let compareSeed = 0;
    const compareBtn = button('finetune.compareRun', 'compare', () => { compareSeed = 0; store.compare(compareSeed); });
    const againBtn = button('finetune.compareAgain', 'compare-again', () => { compareSeed++; store.compare(compareSeed); });
    const mergeSwitch = toggle(texts, 'finetune.mergeSwitch', false, (on) => store.setMerged(on), events);
    mergeSwitch.input.dataset.role = 'merge';
    const baseCol = h('div', { class: 'ft-col', attrs: { 'data-role': 'compare-base' } });
    const tunedCol = h('div', { class: 'ft-col', attrs: { 'data-role': 'compare-tuned' } });
    const compareNote = h('p', { class: 'note num', attrs: { 'data-role': 'compare-note', 'aria-live': 'polite' } });
    const compareBox = h('div', { class: 'ft-compare' }, texts.set(h('h3', { class: 'sub-title' }), 'finetune.compareTitle'),
      h('div', { class: 'writer-controls' }, h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'finetune.ftprompt'), promptInput), compareBtn, againBtn, mergeSwitch.element),
      h('div', { class: 'ft-columns' }, baseCol, tunedCol), compareNote);

    // ---- the reader's own text ----
    const textarea = h('textarea', { attrs: { 'data-role': 'own-text', rows: '5', spellcheck: 'false', lang: 'zh' } });
    const ownLabel = texts.set(h('label', { class: 'sub-title' }), 'finetune.ownTitle');
    textarea.id = `${frame.id}-own-text`;
    ownLabel.htmlFor = textarea.id;
    const ownNote = h('p', { class: 'note' });
    const ownError = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'own-error' } });
    const trainOwn = button('finetune.trainOwn', 'train-own', () => {
      ownProblem = ownTextProblem(textarea.value);
      askedOwn = true;
      if (!ownProblem) { ticker.pause(); store.useText(textarea.value); }
      draw(snapNow());
    });
    const backBtn = button('finetune.backToPreset', 'preset', () => { askedOwn = false; ownProblem = null; ticker.pause(); store.useText(null); });
    const own = h('div', { class: 'own-text' }, ownLabel, ownNote, textarea, h('div', { class: 'row' }, trainOwn, backBtn), ownError);

    frame.stage.append(status, threadNote, keptNote, staleNote, errorBox,
      h('div', { class: 'writer-grid ft-grid' }, h('div', {}, texts.set(h('h3', { class: 'sub-title' }), 'finetune.chartTitle'), chartBox, legend, forgetting),
        h('div', {}, samplesTitle, poems, texts.set(h('p', { class: 'note' }), 'finetune.rhymeKey'))),
      changeBox, compareBox, own);

    function ensureChart() {
      if (chart || !canvas.isConnected) return;
      theme = themeOf(frame.element, false);
      chart = createFineTuneChart(canvas, { theme, labels: ['', '', ''], xTitle: '', yTitle: '' });
    }
    function drawChart(snap) {
      ensureChart();
      for (const x of legendItems) styleSwatch(x.swatch, theme, x.spec, x.i);
      const base0 = snap.evals.find((e) => e.step === 0);
      const last = snap.evals[snap.evals.length - 1];
      canvas.setAttribute('aria-label', i18n.t('finetune.chartLabel', { step: snap.step, val: fmt(last?.val), baseVal: fmt(last?.baseVal), baseVal0: fmt(base0?.baseVal) }));
      if (!chart) return;
      if (chartLang !== i18n.lang) {
        chartLang = i18n.lang;
        chart.setText({ labels: ['batch', 'val', 'baseVal'].map((k) => i18n.t(`finetune.legend.${k}`)), xTitle: i18n.t('finetune.xTitle'), yTitle: i18n.t('finetune.yTitle') });
      }
      const points = `${snap.losses.length}|${snap.evals.length}|${snap.info?.defaultSteps}`;
      if (points === drawnPoints) return;
      drawnPoints = points;
      const byStep = new Map();
      for (const p of snap.losses) byStep.set(p.step, [p.loss, NaN, NaN]);
      for (const e of snap.evals) { const v = byStep.get(e.step) || [NaN, NaN, NaN]; v[1] = e.val; v[2] = e.baseVal ?? NaN; byStep.set(e.step, v); }
      chart.setXMax(snap.info ? snap.info.defaultSteps : 1);
      chart.update([...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, values })));
    }

    function poemItem(poem, seed, target) {
      const r = poem.reading;
      const good = r.form !== null && target.includes(r.form);
      const endLines = new Map(r.ends.map((e) => [e.line, e]));
      const lines = poem.text ? poem.text.split(/(?<=[，。])/u).filter(Boolean) : [];
      const body = h('span', { class: 'poem-grid', attrs: { lang: 'zh' } }, lines.map((line, i) => {
        const end = endLines.get(i + 1);
        if (!end) return h('span', { class: 'poem-line', text: line });
        const chars = [...line];
        const k = chars.lastIndexOf(end.char);
        return h('span', { class: 'poem-line' }, chars.slice(0, k).join(''),
          h('mark', { class: end.rhymes ? 'rhyme' : 'no-rhyme', attrs: { title: `${end.char}: ${end.final ?? '?'}` }, text: end.char }), chars.slice(k + 1).join(''));
      }));
      const formText = r.form ? FORM_LABELS[r.form] : i18n.t('finetune.form.none');
      const rhymeText = r.form ? i18n.t('finetune.rhyme', { rhymed: r.rhymed, of: r.of }) : i18n.t('finetune.rhymeNone');
      return h('li', { class: good ? 'good' : 'bad', dataset: { seed: String(seed), form: r.form ?? '', good: String(good) } },
        h('span', { class: 'poem-seed', text: `${i18n.t('finetune.poemSeed', { seed })} · ${formText} · ${rhymeText}` }), poem.text ? body : h('span', { class: 'poem-grid empty', text: '—' }));
    }

    let current = 0, sampleCount = 1;
    function drawSample(snap) {
      const sm = snap.samples[Math.min(current, snap.samples.length - 1)];
      clear(poems);
      samplesTitle.textContent = sm ? i18n.t('finetune.samplesTitle', { step: sm.step, n: sm.poems.length, temp: String(SAMPLE_TEMPERATURE) }) : i18n.t('finetune.narrateNone');
      if (sm) sm.poems.forEach((p, seed) => poems.append(poemItem(p, seed, TARGET_FORMS[targetOf(snap)])));
    }

    let matrixKey = '';
    let darkText = null;
    function drawChange(snap) {
      const info = snap.info;
      if (!info) { clear(counts); return; }
      counts.hidden = frame.quizHides('share');   // it states the answer
      counts.textContent = info.method === 'lora'
        ? i18n.t('finetune.counts', { trainable: grouped(info.trainableCount), total: grouped(info.parameterCount), share: percent(info.trainableCount / info.parameterCount), bytes: kib(info.adapterBytes), memory: kib(info.memoryBytes) })
        : i18n.t('finetune.countsFull', { total: grouped(info.parameterCount), bytes: kib(info.adapterBytes), memory: kib(info.memoryBytes) });
      const c = snap.change;
      moved.hidden = info.method !== 'full';
      if (info.method === 'full') {
        moved.textContent = c && c.moved ? i18n.t('finetune.moved', { step: c.step, moved: grouped(c.moved.moved), share: percent(c.moved.share, 1), threshold: String(MOVED_THRESHOLD) }) : i18n.t('finetune.movedNone');
      }
      const names = info.method === 'lora' ? info.targets : FINETUNE_TARGETS;
      const key = `${i18n.lang}|${names.join(',')}|${info.layers}`;
      if (key !== matrixKey) {
        matrixKey = key;
        clear(matrixSel).append(...names.map((t) => h('option', { value: t, text: t })));
        clear(layerSel).append(...Array.from({ length: info.layers }, (_, l) => h('option', { value: String(l), text: i18n.t('finetune.layerN', { n: l + 1 }) })));
      }
      if (!c) return;
      matrixSel.value = c.target;
      layerSel.value = String(c.layer);
      const r = c.A ? c.A.cols : 0;
      if (darkText === null) darkText = prefersDarkText(frame.element);   // read once: it makes the browser compute styles
      const dark = darkText;
      const names2 = { W: i18n.t('finetune.frozen', { rows: c.W.rows, cols: c.W.cols }), A: c.A ? i18n.t('finetune.A', { rows: c.A.rows, r }) : '',
        B: c.B ? i18n.t('finetune.B', { r, cols: c.B.cols }) : '', delta: i18n.t(c.A ? 'finetune.delta' : 'finetune.deltaFull', { rows: c.W.rows, cols: c.W.cols, r }) };
      const bounds = adapterView.draw(c, { dark, labels: (part, bound) => ({ caption: `${c.target}: ${names2[part]}`,
        label: i18n.t('finetune.mapLabel', { name: `${c.target} ${i18n.t('finetune.layerN', { n: c.layer + 1 })}, ${names2[part]}`, rows: c[part].rows, cols: c[part].cols, bound: bound.toPrecision(2) }) }) });
      rankNote.textContent = c.A ? i18n.t('finetune.rankNote', { r, target: c.target, max: bounds.deltaMax.toPrecision(2), wmax: bounds.wMax.toPrecision(2) })
        : i18n.t('finetune.rankNoteFull', { max: bounds.deltaMax.toPrecision(2), wmax: bounds.wMax.toPrecision(2) });
    }

    function drawCompare(snap) {
      const c = snap.compare;
      const lora = snap.info?.method === 'lora';
      mergeSwitch.element.hidden = !lora;
      mergeSwitch.input.checked = snap.merged;
      mergeSwitch.input.disabled = !snap.info || snap.busy || ticker.playing;
      compareBtn.disabled = againBtn.disabled = !snap.info || snap.busy || ticker.playing;
      if (promptInput.getRootNode().activeElement !== promptInput) promptInput.value = snap.settings.ftprompt;
      clear(baseCol); clear(tunedCol);
      if (!c) { compareNote.textContent = i18n.t('finetune.compareNone'); return; }
      const col = (el, title, text, reading) => el.append(h('h4', { class: 'ft-col-title', text: title }),
        poemItem({ text, reading }, c.seed, TARGET_FORMS[targetOf(snap)]));
      col(baseCol, i18n.t('finetune.baseModel'), c.base, c.baseReading);
      col(tunedCol, i18n.t('finetune.tunedModel', { step: c.step }), c.tuned, c.tunedReading);
      const ms = { base: c.msPerChar.base.toFixed(2), tuned: c.msPerChar.tuned.toFixed(2) };
      compareNote.textContent = c.merged
        ? i18n.t('finetune.mergeNote', ms)
        : i18n.t('finetune.compareMs', { ...ms, state: i18n.t(lora ? 'finetune.stateUnmerged' : 'finetune.method.full') });
    }

    function draw(snap) {
      const count = Math.max(1, snap.samples.length);
      if (count > sampleCount && current === sampleCount - 1) queueMicrotask(() => frame.stepper.setCount(count, count - 1));
      sampleCount = count;
      const st = snap.settings, info = snap.info;
      setSel.el.value = snap.source === 'own' ? 'own' : st.ftset;
      methodSel.el.value = st.ftmethod;
      rankSel.value = String(st.ftrank);
      rankSel.disabled = st.ftmethod !== 'lora';
      stepsSel.value = String(st.ftsteps);
      targets.disabled = st.ftmethod !== 'lora';
      const chosen = st.fttargets.split(',');
      for (const box of targets.querySelectorAll('input')) box.checked = chosen.includes(box.dataset.target);
      if (seedInput.getRootNode().activeElement !== seedInput) seedInput.value = String(st.ftseed);
      const onPage = snap.thread.where === 'page';
      threadNote.hidden = !onPage;
      threadNote.dataset.thread = snap.thread.where || '';
      threadNote.textContent = onPage ? i18n.t(/Content.Security.Policy/i.test(snap.thread.reason) ? 'finetune.onPageCSP' : 'finetune.onPage', { reason: snap.thread.reason }) : '';
      const finished = store.process.finished;
      play.disabled = !info || (finished && !ticker.playing);
      texts.set(play, ticker.playing ? 'finetune.pause' : 'finetune.start');
      play.dataset.state = ticker.playing ? 'running' : 'paused';
      stepBtn.disabled = play.disabled || ticker.playing;
      restart.disabled = !snap.base;
      save.disabled = !info || info.method !== 'lora';
      texts.set(save, info && info.method !== 'lora' ? 'finetune.saveFull' : 'finetune.save');
      if (!info) {
        status.textContent = snap.status === 'error' && snap.error
          ? i18n.t('finetune.noBase', { message: fineTuneRefusal(i18n, snap.error.message) })
          : i18n.t(snap.base || snap.thread.where ? 'finetune.starting' : 'finetune.loading');
      } else {
        const method = info.method === 'lora'
          ? i18n.t('finetune.statusMethodLora', { rank: info.rank, alpha: info.alpha, targets: info.targets.join(', '), lr: String(info.lr) })
          : i18n.t('finetune.statusMethodFull', { lr: String(info.lr) });
        status.textContent = i18n.t('finetune.status', { step: snap.step, total: info.defaultSteps, lines: grouped(info.lines),
          loss: snap.losses.length ? fmt(snap.losses[snap.losses.length - 1].loss) : '—', method });
      }
      status.dataset.step = String(snap.step);
      status.dataset.done = String(snap.done);
      keptNote.hidden = !(info && info.kept !== null && info.kept < info.total);
      keptNote.textContent = keptNote.hidden ? '' : i18n.t('finetune.kept', { total: grouped(info.total), dropped: grouped(info.total - info.kept) });
      staleNote.hidden = !snap.stale && !snap.merged;
      staleNote.textContent = snap.merged ? i18n.t('finetune.merged') : snap.stale ? i18n.t('finetune.stale') : '';
      const err = snap.error;
      const ownErr = Boolean(askedOwn && (ownProblem || (err && err.op === 'create')));
      ownError.hidden = !ownErr;
      ownError.textContent = !ownErr ? '' : ownProblem ? i18n.t('finetune.refused', { message: i18n.t(ownProblem.key, ownProblem.vars) })
        : i18n.t('finetune.refused', { message: fineTuneRefusal(i18n, err.message) });
      errorBox.hidden = !err || ownErr || !info;
      errorBox.textContent = errorBox.hidden ? '' : i18n.t(err.op === 'create' ? 'finetune.error.create' : 'finetune.error.other', { message: fineTuneRefusal(i18n, err.message) });
      ownNote.textContent = i18n.t('finetune.ownNote', { vocab: snap.base ? grouped(snap.base.vocab) : '6,509', max: grouped(CORPUS_LIMITS.maxChars) });
      const e0 = snap.evals.find((e) => e.step === 0), eN = snap.evals[snap.evals.length - 1];
      forgetting.textContent = e0 && eN && eN.step > 0 && e0.baseVal !== null
        ? i18n.t('finetune.forgetting', { from: fmt(e0.baseVal), to: fmt(eN.baseVal), delta: `${eN.baseVal >= e0.baseVal ? '+' : ''}${fmt(eN.baseVal - e0.baseVal)}`, vFrom: fmt(e0.val), vTo: fmt(eN.val), windows: EVAL_WINDOWS })
        : '';
      drawChart(snap);
      once('sample', [snap.samples.length, current, snap.source, targetOf(snap)], () => drawSample(snap));
      once('change', [snap.change, snap.info, frame.quizHides('share')], () => drawChange(snap));
      once('compare', [snap.compare, snap.merged, snap.busy, snap.info, ticker.playing, snap.settings.ftprompt], () => drawCompare(snap));
    }
    // a part is drawn again only when what it shows changed (the snapshots come four times a second)
    const drawn = new Map();
    function once(part, keys, fn) {
      const before = drawn.get(part);
      if (before && before.length === keys.length && before.every((k, i) => k === keys[i])) return;
      drawn.set(part, keys);
      fn();
    }

    function render(i) {
      current = i;
      const snap = snapNow();
      drawSample(snap);
      counts.hidden = frame.quizHides('share');
      const sm = snap.samples[i];
      if (!sm) return i18n.t(snap.info ? 'finetune.narrateNone' : snap.base ? 'finetune.starting' : snap.status === 'error' ? 'finetune.narrateNoBase' : 'finetune.loading');
      const target = TARGET_FORMS[targetOf(snap)];
      return i18n.t('finetune.narrate', { step: sm.step, n: sm.poems.length, good: sm.poems.filter((p) => target.includes(p.reading.form)).length,
        target: i18n.t(`finetune.target.${targetOf(snap)}`), poem: sm.poems[0]?.text || '—' });
    }

    return {
      count: (snap) => Math.max(1, snap.samples.length), positionKey: 'stepper.positionSample', draw, render,
      stage: (i) => `sample-${i}`,
      embedNote: (snap) => i18n.t(snap.source === 'own' ? 'finetune.embedOwn' : 'finetune.embedNote'),
      setLanguage: () => { matrixKey = ''; drawnPoints = ''; darkText = null; drawn.clear(); draw(snapNow()); },
      destroy() { offTicker(); offVisible(); ticker.destroy(); chart?.destroy(); release(); },
    };
  },
});

export { SAMPLE_EVERY };
