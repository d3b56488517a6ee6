// "A Transformer that writes": the reader trains a GPT (wasm/gpt.c through gpt.js) on the Tang
// quatrains, in a Web Worker (gpt/worker.js, through the shared run of gpt/store.js; on the page's
// own thread in chunks where a strict CSP refuses the worker, said in a notice), and
// watches it learn: batch, training and validation losses against the unigram baseline; a
// sample poem every SAMPLE_EVERY steps with the share of well-formed ones; the attention of
// every layer and head on a line the reader types. The reader can train on their own text,
// save the model as a file and load one. This file only draws the run's snapshots and passes
// the reader's commands to the store; the stepper walks through the samples. The run is a live
// process on the shell's ticker (shell/ticker.js, over store.process): Start / Pause, Step and
// the space key play, pause and step it, and the ticker follows the run when something else
// starts or stops it (a link's replay, generation's button, the end of its schedule).
import { h, clear, fmt, download, selectNumber } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { QUIZ_GPT_STRINGS } from './quiz-gpt.strings.js';
import { WRITER_STRINGS } from './writer.strings.js';
import { defineSection } from '../shell/section-shell.js';
import { createTicker } from '../shell/ticker.js';
import { gptSource, acquireGPTStore } from '../gpt/store.js';
import { GPT_CHOICES, RUN_KEYS, clampHeads } from '../gpt/settings.js';
import { SAMPLE_EVERY, SAMPLE_POEMS, SAMPLE_TEMPERATURE } from '../gpt/worker-constants.js';
import { createLossPlot } from '../views/loss-plot.js';
import { refusalText } from '../gpt/refusals.js';
import { runRefusal, quatrainVocabulary } from '../gpt/limits.js';
import { isWellFormedQuatrain } from '../../data/quatrain-form.js';
import { GPT_DEFAULTS } from '../../gpt-defaults.js';

addStrings(WRITER_STRINGS);
addStrings(QUIZ_GPT_STRINGS);   // its questions' words travel with it

const DEFAULT_LINE = '白日依山尽，黄河入海流。';

/** A poem as its lines (each ending at ，or 。), so that a quatrain shows as 4 lines of 5 characters. */
export const poemLines = (poem) => poem.split(/(?<=[，。])/u).filter(Boolean);

/** Asked before the run's second sample is shown: how many of its poems have the form. */
export const WRITER_QUIZ = [{
  id: 'good', atStep: 1, when: (d) => Boolean(d && d.samples && d.samples.length > 1),
  numeric: { tolerance: 0, digits: 0, integer: true },
  prompt: (d, t) => t('quiz.writer.goodPrompt', { n: d.samples[1].poems.length, step: d.samples[1].step }),
  answer: (d) => d.samples[1].good,
  explain: (d, t) => t('quiz.writer.goodExplain', { good: d.samples[1].good }),
}];

export const writerSection = defineSection({
  id: 'writer', quiz: WRITER_QUIZ, titleKey: 'writer.title',
  // the stack follows the run's layers (or the URL's, before the run exists)
  introKeys: [['writer.intro1', (snap, i18n) => {
    const n = snap.info ? snap.info.layers : snap.settings.glayers;
    return { stack: i18n.t(n === 1 ? 'writer.stack.one' : 'writer.stack', { n }) };
  }], 'writer.intro2', 'writer.intro3'],
  source: gptSource, live: true,
  // a link's step is the quatrain run's: the code trains to it again (gpt/store.js); a run on the
  // reader's text, from a file or with settings changed since it began cannot travel
  runStep: (snap) => (snap.source === 'quatrains' && !snap.stale ? snap.step : 0), settings: RUN_KEYS,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const { store, release } = acquireGPTStore(ctx);
    const snapNow = () => frame.snap;

    // ---- the run's settings (in the URL) ----
    const selects = [];
    const settingSelect = (key, choices) => {
      const el = h('select', { attrs: { 'data-setting': key } },
        choices.map((v) => h('option', { value: String(v), text: String(v) })));
      const pending = h('span', { class: 'pending', attrs: { 'data-role': 'pending' }, hidden: true });
      selects.push([key, el, pending]);
      events.on(el, 'change', () => ctx.setSetting(key, Number(el.value)));
      return h('label', { class: 'gpt-choice' }, texts.set(h('span'), `writer.${key}`), el, pending);
    };
    // the run's own value of each setting (a setting changed mid-run waits for "Start over")
    const RUN_VALUE = { glayers: 'layers', gheads: 'heads', gdim: 'dim', gctx: 'context', glr: 'lr', gseed: 'seed', gsteps: 'defaultSteps' };
    // the seed as text (styled like every text box, light and dark); what it cannot take is refused inline
    const seedInput = h('input', { attrs: { type: 'text', inputmode: 'numeric', maxlength: '12', 'data-setting': 'gseed', 'aria-describedby': `${frame.id}-seed-msg` } });
    seedInput.style.width = '7em';
    const seedMsg = h('span', { class: 'inline-message', attrs: { 'aria-live': 'polite', 'data-role': 'seed-msg' } });
    seedMsg.id = `${frame.id}-seed-msg`;
    events.on(seedInput, 'change', () => {
      const text = seedInput.value.trim();
      const ok = /^\d{1,10}$/.test(text) && ctx.setSetting('gseed', Number(text));
      seedMsg.textContent = ok ? '' : i18n.t('writer.seedBad', { seed: snapNow().settings.gseed });
      if (ok) seedInput.removeAttribute('aria-invalid');
      else { seedInput.setAttribute('aria-invalid', 'true'); seedInput.value = String(snapNow().settings.gseed); }
    });
    // why some choices are greyed out (shown while any is): the selects point here
    const refusedNote = texts.set(h('p', { class: 'note', attrs: { 'data-role': 'refused-choices' } }), 'writer.refusedChoices');
    refusedNote.id = `${frame.id}-refused-choices`;
    const settings = h('div', { class: 'writer-controls' },
      settingSelect('glayers', GPT_CHOICES.glayers), settingSelect('gheads', GPT_CHOICES.gheads),
      settingSelect('gdim', GPT_CHOICES.gdim), settingSelect('gctx', GPT_CHOICES.gctx), settingSelect('glr', GPT_CHOICES.glr), settingSelect('gsteps', GPT_CHOICES.gsteps),
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'writer.gseed'), seedInput), seedMsg);

    // choices the engine would refuse with the other settings as they are (its own work check,
    // gpt/limits.js, over the vocabulary of the text the next run trains on) are not offered
    const LIMITED = ['glayers', 'gheads', 'gdim', 'gctx'];   // the settings a step's work depends on
    function offerChoices(snap) {
      const vocab = snap.info && snap.source !== 'file' ? snap.info.vocab : quatrainVocabulary();
      let any = false;
      for (const [key, el] of selects) {
        if (!LIMITED.includes(key)) continue;
        let greyed = false;
        for (const option of el.options) {
          const refusal = runRefusal({ ...snap.settings, [key]: Number(option.value) }, vocab);
          option.disabled = refusal !== null;
          option.title = refusal === null ? '' : i18n.t('writer.choiceRefused', { message: refusalText(i18n, refusal) });
          greyed ||= refusal !== null;
        }
        if (greyed) el.setAttribute('aria-describedby', refusedNote.id);
        else el.removeAttribute('aria-describedby');
        any ||= greyed;
      }
      refusedNote.hidden = !any;
    }

    // ---- run controls ----
    const button = (key, role, fn) => {
      const b = texts.set(h('button', { attrs: { type: 'button', 'data-role': role } }), key);
      events.on(b, 'click', fn);
      return b;
    };
    // one clock for the run: the buttons and the stepper's space key all go through it
    const ticker = createTicker({ process: store.process });
    const play = button('writer.start', 'play', () => ticker.toggle());
    const stepBtn = button('writer.step', 'step', () => ticker.step());
    function showPlaying() {
      const info = snapNow().info;
      play.disabled = !info || snapNow().done || snapNow().source === 'file';
      texts.set(play, ticker.playing ? 'writer.pause' : 'writer.start');
      play.dataset.state = ticker.playing ? 'running' : 'paused';
      stepBtn.disabled = play.disabled || ticker.playing;
    }
    ticker.onChange(showPlaying);
    // the ticker follows the run when it starts or stops by itself or through another section
    let runWasRunning = false;
    const offRun = store.subscribe((snap) => {
      if (snap.running === runWasRunning) return;
      runWasRunning = snap.running;
      if (snap.running) ticker.play();
      else ticker.pause();
    });
    const restart = button('writer.restart', 'restart', () => guard(() => store.restart()));
    const save = button('writer.save', 'save', async () => {
      const bytes = await store.save();
      download(frame.element.ownerDocument, new Blob([bytes], { type: 'application/octet-stream' }), `qkv-gpt-step${snapNow().step}.qkvgpt`);
    });
    const fileInput = h('input', { attrs: { type: 'file', accept: '.qkvgpt,application/octet-stream', 'data-role': 'load' } });
    events.on(fileInput, 'change', () => {
      const file = fileInput.files && fileInput.files[0];
      if (!file) return;
      guard(() => file.arrayBuffer().then((buf) => store.load(new Uint8Array(buf))), () => { fileInput.value = ''; });
    });
    const loadLabel = h('label', { class: 'gpt-file' }, texts.set(h('span'), 'writer.load'), fileInput);
    const runRow = h('div', { class: 'writer-controls' }, play, stepBtn, restart, save, loadLabel);
    frame.controls.append(settings, refusedNote, runRow);

    // ask before a run with steps that no file holds is dropped
    const ask = h('div', { class: 'gpt-ask', attrs: { role: 'alertdialog', 'data-role': 'ask' } });
    ask.hidden = true;
    let askedAction = null, askedCancel = null;
    function guard(action, cancel = () => {}) {
      if (!store.unsaved()) { action(); return; }
      askedAction = action;
      askedCancel = cancel;
      const question = h('p', { text: i18n.t('writer.ask', { step: snapNow().step }) });
      question.id = `${frame.id}-ask`;
      ask.setAttribute('aria-labelledby', question.id);
      clear(ask).append(question, keepBtn, discardBtn);
      ask.hidden = false;
      keepBtn.focus();
    }
    const keepBtn = button('writer.keep', 'keep', () => { ask.hidden = true; askedCancel?.(); askedAction = null; });
    const discardBtn = button('writer.discard', 'discard', () => { ask.hidden = true; const a = askedAction; askedAction = null; a?.(); });

    const status = h('p', { class: 'writer-status num', attrs: { 'data-role': 'status' } });
    // where it trains, when not in the Web Worker: why, and how long the page's longest stretch was
    const threadNote = h('p', { class: 'note', attrs: { 'data-role': 'thread' } });
    const stale = h('p', { class: 'note', attrs: { 'data-role': 'stale' } });
    const replaying = h('p', { class: 'note', attrs: { 'data-role': 'replay' } });
    const errorBox = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'error' } });

    // ---- losses, samples ----
    const plot = createLossPlot();
    const legend = h('ul', { class: 'legend' },
      ['batch', 'trainEval', 'val', 'unigram', 'uniform'].map((k) => h('li', { class: `legend-${k}` },
        h('span', { class: 'swatch', attrs: { 'aria-hidden': 'true' } }), texts.set(h('span', { dataset: { legend: k } }), `writer.legend.${k}`))));
    const valLegend = legend.querySelector('[data-legend=val]');
    const share = h('p', { class: 'share', attrs: { 'data-role': 'share' } });
    const samples = h('ol', { class: 'samples', attrs: { 'data-role': 'samples', tabindex: '0' } });
    // the current sample's poems, every seed, each as its lines: the exercise's answer can be counted here
    const eightTitle = h('h3', { class: 'sub-title' });
    const eight = h('ol', { class: 'poem-set', attrs: { 'data-role': 'poems' } });
    eightTitle.id = `${frame.id}-poems-title`;
    eight.setAttribute('aria-labelledby', eightTitle.id);
    const samplesTitle = texts.set(h('h3', { class: 'sub-title' }), 'writer.samplesTitle');
    samplesTitle.id = `${frame.id}-samples-title`;
    samples.setAttribute('aria-labelledby', samplesTitle.id);
    const grid = h('div', { class: 'writer-grid' },
      h('div', {}, texts.set(h('h3', { class: 'sub-title' }), 'writer.lossTitle'), plot.element, legend, share),
      h('div', {}, samplesTitle, samples));
    const eightBox = h('div', { class: 'poem-set-box' }, eightTitle, eight);

    // ---- attention on the reader's line ----
    const lineInput = h('input', { attrs: { type: 'text', 'data-role': 'line', 'aria-describedby': `${frame.id}-line-note` }, value: DEFAULT_LINE });
    const lineNote = texts.set(h('p', { class: 'note' }), 'writer.lineNote');
    lineNote.id = `${frame.id}-line-note`;
    const lineError = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'line-error' } });
    const chars = h('div', { class: 'attn-chars', attrs: { role: 'group' } });
    const attnGrid = h('div', { class: 'attn-grid', attrs: { 'data-role': 'attention' } });
    let focusChar = null;   // the query character shown (null: the last)
    events.on(lineInput, 'input', () => { focusChar = null; store.watchLine(lineInput.value); });
    const attnBox = h('div', { class: 'attn-line' },
      texts.set(h('h3', { class: 'sub-title' }), 'writer.attnTitle'),
      h('label', { class: 'gpt-choice' }, texts.set(h('span'), 'writer.line'), lineInput), lineNote, lineError, chars, attnGrid);

    // ---- the reader's own text ----
    const textarea = h('textarea', { attrs: { 'data-role': 'own-text', rows: '6', spellcheck: 'false' } });
    const ownLabel = texts.set(h('label', { class: 'sub-title' }), 'writer.ownTitle');
    textarea.id = `${frame.id}-own-text`;
    ownLabel.htmlFor = textarea.id;
    const ownError = h('p', { class: 'gpt-error', attrs: { role: 'alert', 'data-role': 'own-error' } });
    let askedText = false;
    let sentText = null;   // the text of the last run asked for on the reader's text
    const trainOwn = button('writer.trainOwn', 'train-own', () => guard(() => { askedText = true; sentText = textarea.value; store.retrain(sentText); }));
    const backToPoems = button('writer.quatrains', 'quatrains', () => guard(() => { askedText = false; store.retrain(null); }));
    const own = h('div', { class: 'own-text' }, ownLabel, texts.set(h('p', { class: 'note' }), 'writer.ownNote'), textarea,
      h('div', { class: 'row' }, trainOwn, backToPoems), ownError);

    frame.stage.append(ask, status, threadNote, replaying, stale, errorBox, grid, eightBox, attnBox, own);
    store.watchLine(lineInput.value);

    // the typed line follows the text the run trains on: a line of the reader's text (its first,
    // which is trained on; cut to the context), or the default line of the quatrains. Only when
    // the text changes: a line the reader typed for this text stays.
    let lineText = null;
    function followText(snap) {
      if (!snap.info || snap.source === 'file') return;
      const key = snap.source === 'own' ? `own|${sentText}` : 'quatrains';
      if (key === lineText) return;
      lineText = key;
      const first = snap.source === 'own' ? (sentText || '').split(/\r?\n/).map((l) => l.trim()).find(Boolean) || '' : DEFAULT_LINE;
      lineInput.value = Array.from(first).slice(0, snap.info.context - 1).join('');
      focusChar = null;
      store.watchLine(lineInput.value);
    }

    let charsShown = null;   // the characters the buttons stand for (rebuilt only when they change)
    const shown = (ch) => (ch === '\n' ? '⏎' : ch);
    function drawAttention(snap) {
      const a = snap.attention;
      lineError.hidden = !snap.attentionError;
      lineError.textContent = snap.attentionError ? i18n.t('writer.lineRefused', { message: refusalText(i18n, snap.attentionError) }) : '';
      if (!a) { clear(chars); clear(attnGrid); charsShown = null; return; }
      const n = a.chars.length;
      const key = `${i18n.lang}|${a.chars.join('')}`;
      if (key !== charsShown) {
        charsShown = key;
        clear(chars);
        a.chars.forEach((ch, i) => {
          const b = h('button', { attrs: { type: 'button', 'aria-pressed': 'false', 'aria-label': i18n.t('writer.query', { ch: shown(ch), i: i + 1 }) }, text: shown(ch) });
          const pick = () => { focusChar = i; drawStrips(snapNow()); };
          b.addEventListener('mouseenter', pick);
          b.addEventListener('focus', pick);
          b.addEventListener('click', pick);
          chars.append(b);
        });
        chars.setAttribute('aria-label', i18n.t('writer.chars'));
      }
      drawStrips(snap);
    }

    function drawStrips(snap) {
      const a = snap.attention;
      if (!a) return;
      const n = a.chars.length;
      const q = focusChar === null || focusChar >= n ? n - 1 : focusChar;
      [...chars.children].forEach((b, i) => b.setAttribute('aria-pressed', String(i === q)));
      clear(attnGrid);
      a.layers.forEach((heads, l) => heads.forEach((w, k) => {
        const row = Array.from(w.data.subarray(q * w.n, q * w.n + q + 1));
        const label = i18n.t('writer.headLabel', { l: l + 1, k: k + 1 });
        const top = row.indexOf(Math.max(...row));
        // a row within 1.5 times an even share everywhere (an untrained model's) has no "most"
        const even = row[top] < 1.5 / row.length;
        attnGrid.append(h('div', { class: 'attn-head', dataset: { layer: String(l), head: String(k) } },
          h('p', { class: 'attn-head-title', text: `${label}: ${i18n.t(even ? 'writer.looksEven' : 'writer.looksAt', { ch: shown(a.chars[top]), p: fmt(row[top], 2) })}` }),
          h('div', { class: 'attn-strip', attrs: { role: 'img', 'aria-label': `${label}: ${row.map((p, j) => `${shown(a.chars[j])} ${fmt(p, 2)}`).join(', ')}` } },
            row.map((p, j) => h('span', { attrs: { title: fmt(p, 3) } }, h('span', { class: 'w', style: `opacity:${Math.min(1, p).toFixed(3)}` }),
              h('span', { class: 'c', text: shown(a.chars[j]) }))))));
      }));
    }

    const counted = (key, n) => i18n.t(n === 1 ? `${key}.one` : key, { n });   // "1 layer", "2 layers"
    let current = 0;
    let sampleCount = 1;   // samples the stepper had: a reader on the newest sample follows new ones
    function draw(snap) {
      const count = Math.max(1, snap.samples.length);
      if (count > sampleCount && current === sampleCount - 1) queueMicrotask(() => frame.stepper.setCount(count, count - 1));
      sampleCount = count;
      const info = snap.info;
      for (const [key, el, pending] of selects) {
        selectNumber(el, snap.settings[key]);
        // heads are clamped to divide the width (settings.js gptOptions): only a real difference is pending
        const runs = info ? info[RUN_VALUE[key]] : null;
        const wanted = key === 'gheads' ? clampHeads(snap.settings.gdim, snap.settings.gheads) : snap.settings[key];
        const waits = Boolean(snap.stale && info && snap.source !== 'file' && runs !== wanted);
        pending.hidden = !waits;
        pending.textContent = waits ? i18n.t('writer.pending', { value: String(runs) }) : '';
      }
      offerChoices(snap);
      if (seedInput.getRootNode().activeElement !== seedInput) seedInput.value = String(snap.settings.gseed);
      const total = info ? info.defaultSteps : 0;
      const onPage = snap.thread.where === 'page';
      threadNote.hidden = !onPage;
      threadNote.dataset.thread = snap.thread.where || '';
      const gap = i18n.lang === 'zh' ? '' : ' ';
      // a run made here learns from fewer windows a step than a worker's (gpt/local-run.js PAGE_BATCH)
      const smaller = info && !info.loaded && info.batch < GPT_DEFAULTS.batch;
      threadNote.textContent = !onPage ? '' : i18n.t(/Content Security Policy|Content-Security-Policy/i.test(snap.thread.reason) ? 'writer.onPageCSP' : 'writer.onPage',
        { reason: snap.thread.reason })
        + (smaller ? `${gap}${i18n.t('writer.pageBatch', { batch: info.batch, full: GPT_DEFAULTS.batch })}` : '')
        + (snap.longestChunkMs === null ? '' : `${gap}${i18n.t('writer.chunk', { ms: Math.round(snap.longestChunkMs) })}`);
      threadNote.title = onPage ? snap.thread.reason : '';
      showPlaying();
      save.disabled = !info;
      restart.disabled = !info;
      if (!info) {
        status.textContent = i18n.t(snap.status !== 'error' ? (onPage ? 'writer.startingHere' : 'writer.starting')
          : snap.error?.op === 'create' && !askedText ? 'writer.settingsNoRun' : 'writer.noWorker',
        { message: snap.error ? refusalText(i18n, snap.error.message) : '' });
      } else {
        status.textContent = i18n.t(snap.source === 'file' ? 'writer.statusFile' : 'writer.status', {
          step: snap.step, total, params: info.parameterCount.toLocaleString('en-US'), vocab: info.vocab.toLocaleString('en-US'),
          layers: counted('writer.nLayers', info.layers), heads: counted('writer.nHeads', info.heads), steps: counted('writer.nSteps', snap.step),
          dim: info.dim, context: info.context,
          loss: snap.losses.length ? fmt(snap.losses[snap.losses.length - 1].loss) : '—',
          rate: !snap.running ? i18n.t(snap.done ? 'writer.rateDone' : 'writer.ratePaused')
            : snap.rate ? i18n.t('writer.rate', { rate: snap.rate.toFixed(1) }) : i18n.t('writer.rateNone'),
        });
      }
      status.dataset.step = String(snap.step);
      status.dataset.done = String(snap.done);
      replaying.hidden = !snap.replay;
      replaying.textContent = !snap.replay ? '' : i18n.t(snap.replay.asked > snap.replay.to ? 'writer.replayClamped' : snap.replay.done ? 'writer.replayed' : 'writer.replaying',
        { to: snap.replay.to, asked: snap.replay.asked, seed: snap.settings.gseed });
      stale.hidden = !snap.stale;
      stale.textContent = snap.stale ? i18n.t('writer.stale') : '';
      const err = snap.error;
      const ownErr = err && err.op === 'create' && askedText;
      ownError.hidden = !ownErr;
      ownError.textContent = ownErr ? i18n.t('writer.refused', { message: refusalText(i18n, err.message) }) : '';
      errorBox.hidden = !err || ownErr || (!info && err.op === 'create');   // no run yet: the status says it
      // settings the engine refuses: the run there goes on with its own (the store keeps it)
      const errKey = err?.op === 'load' ? 'load' : err?.op === 'create' ? 'settings' : 'other';
      errorBox.textContent = err && !ownErr ? i18n.t(`writer.error.${errKey}`, { message: refusalText(i18n, err.message) }) : '';
      const baselines = info ? [{ value: info.unigram, cls: 'baseline' }, { value: info.uniform, cls: 'uniform' }] : [];
      const lastEval = snap.evals[snap.evals.length - 1];
      plot.update({
        losses: snap.losses, evals: snap.evals, baselines, steps: Math.max(total, snap.step),
        label: i18n.t('writer.plotLabel', {
          step: snap.step, val: lastEval ? fmt(lastEval.val) : '—', unigram: info && info.unigram !== null ? fmt(info.unigram) : '—',
          uniform: info ? fmt(info.uniform) : '—',
        }),
      });
      texts.set(valLegend, snap.source === 'own' ? 'writer.legend.valOwn' : 'writer.legend.val');
      texts.set(samplesTitle, snap.source === 'own' ? 'writer.samplesTitleOwn' : 'writer.samplesTitle');
      for (const li of legend.children) {
        if (li.classList.contains('legend-unigram')) li.hidden = !info || info.unigram === null;
      }
      drawShare(snap);
      clear(samples);
      [...snap.samples].reverse().forEach((sm) => {
        const index = snap.samples.indexOf(sm);
        samples.append(h('li', { class: index === current ? 'current' : '', dataset: { step: String(sm.step) } },
          h('span', { class: 'sample-step', text: i18n.t('writer.sampleStep', { step: sm.step }) }),
          poemBlock(sm.poems[0], 'sample-poem')));
      });
      followText(snap);
      drawAttention(snap);
    }

    // the share of the sample the stepper is on (the newest, while the reader follows them): a
    // question held before a sample does not find its answer here
    function poemBlock(poem, cls) {
      if (!poem) return h('span', { class: `${cls} empty`, text: i18n.t('writer.empty') });
      return h('span', { class: cls, attrs: { lang: 'zh' } }, poemLines(poem).map((l) => h('span', { class: 'poem-line', text: l })));
    }
    function drawShare(snap) {
      const sm = snap.samples[Math.min(current, snap.samples.length - 1)];
      clear(eight);
      eightBox.hidden = !sm;
      if (sm) {
        eightTitle.textContent = i18n.t('writer.poemsTitle', { step: sm.step, n: sm.poems.length, temp: String(SAMPLE_TEMPERATURE) });
        sm.poems.forEach((poem, seed) => {
          const good = sm.good === null ? null : isWellFormedQuatrain(poem);
          eight.append(h('li', { class: good === null ? '' : good ? 'good' : 'bad', dataset: { seed: String(seed), good: String(good) } },
            h('span', { class: 'poem-seed', text: i18n.t(good === null ? 'writer.poemSeed' : good ? 'writer.poemGood' : 'writer.poemBad', { seed }) }),
            poemBlock(poem, 'poem-grid')));
        });
      }
      share.textContent = !sm ? '' : sm.good === null
        ? i18n.t('writer.shareOwn', { step: sm.step })
        : i18n.t('writer.share', { good: sm.good, total: sm.poems.length, step: sm.step, temp: String(SAMPLE_TEMPERATURE) });
    }

    function render(i) {
      current = i;
      const snap = snapNow();
      drawShare(snap);
      for (const li of samples.children) li.classList.toggle('current', li.dataset.step === String(snap.samples[i]?.step));
      const sm = snap.samples[i];
      if (!sm) return i18n.t(snap.info ? 'writer.narrateNone' : snap.thread.where === 'page' ? 'writer.startingHere' : 'writer.starting');
      return i18n.t(sm.good === null ? 'writer.narrateOwn' : 'writer.narrate', {
        step: sm.step, poem: sm.poems[0] || i18n.t('writer.empty'), good: sm.good, total: sm.poems.length,
      });
    }

    // what the copied embed code cannot carry (section-tools.js shows it beside the code)
    function embedNote(snap) {
      if (snap.source === 'file') return i18n.t('writer.embedFile');
      if (snap.source === 'own') return i18n.t('writer.embedOwn');
      if (snap.stale) return i18n.t('writer.embedStale');
      return snap.step > 0 ? i18n.t('writer.embedReplay', { step: snap.step, seed: snap.settings.gseed }) : null;
    }

    return {
      count: (snap) => Math.max(1, snap.samples.length), positionKey: 'stepper.positionSample', draw, render, embedNote, ticker,
      stage: (i) => `sample-${i}`,
      setLanguage: () => draw(snapNow()),
      destroy() { offRun(); ticker.destroy(); release(); },
    };
  },
});

export { SAMPLE_EVERY, SAMPLE_POEMS };
