// sections/training/timeline.js: the training run's timeline, a slider over the steps taken: at
// any past step k, the loss, the probes' cosines, the anchor's nearest words, the attention over
// the walkthrough's sentence and the scatter, together (training/timeline.js computes them from
// the run's checkpoints). Loaded on demand: training.js imports it when the reader opens the
// timeline, so neither the widget's script nor the page's first paint pays for it.
//
//   const timeline = createTimelineView({ i18n, texts, events, store, state });
//   host.append(timeline.element);   timeline.refresh();   timeline.destroy();
import { h, s, clear, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_TIMELINE_STRINGS } from './timeline.strings.js';
import { timelineAt, catchUp } from '../../training/timeline.js';
import { createFrameScheduler } from '../../shell/frames.js';
import { CHECKPOINT_EVERY } from '../../training/run.js';
import { createHeatTable } from '../../views/heat-table.js';
import { CORPUS_PRESETS, WORD_GROUPS } from '../../../corpus.js';
import { placeLabels, nearestOnBox } from '../../views/label-placement.js';
import { glossed, glossedShort } from './glosses.js';

addStrings(TRAINING_TIMELINE_STRINGS);

const SIZE = 240, PAD = 14;   // the scatter's square, in SVG units
const DOT_R = 2.5, GREY_R = 1.5, LABEL_EM = 7;   // the grouped words' dots, the others', the labels' size
const GROUPED = new Set(WORD_GROUPS.flatMap((g) => g.words));
const CATCH_UP_MS = 8;        // a pinned run behind the slider trains on this long a frame

/** One run's view at a step: its summary, nearest words, attention and scatter. */
function createColumn({ i18n, role }) {
  const title = h('h4', { class: 'tl-run-title', attrs: { 'data-role': `${role}-title` } });
  const summary = h('p', { class: 'tl-summary num', attrs: { 'data-role': `${role}-step` } });
  const nearestTitle = h('h5');
  const nearest = h('ol', { class: 'tr-results', attrs: { 'data-role': `${role}-nearest` } });
  let attentionCaption = '';
  const attention = createHeatTable({ caption: () => attentionCaption, className: 'tl-attention', i18n });
  const scatterTitle = h('h5');
  const scatter = s('svg', { class: 'tl-scatter', viewBox: `0 0 ${SIZE} ${SIZE}`, role: 'img', 'data-role': `${role}-scatter` });
  const element = h('div', { class: 'tl-run', attrs: { 'data-role': role } }, title, summary,
    h('div', { class: 'tl-grid' }, h('div', {}, nearestTitle, nearest), h('div', {}, attention.element), h('div', {}, scatterTitle, scatter)));

  function drawScatter({ vocab, xy, shown }) {
    clear(scatter);
    const words = shown.map((i) => vocab[i]);
    scatter.setAttribute('aria-label', `${scatterTitle.textContent}: ${words.join(' ')}${shown.length < vocab.length - 1 ? ' …' : ''}`);
    let lo = Infinity, hi = -Infinity;
    for (const x of xy.data) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    const span = hi - lo || 1;
    const at = (x) => PAD + ((x - lo) / span) * (SIZE - 2 * PAD);
    // the grouped words (animals, vehicles, people, food) are labelled where a label points at its
    // own dot alone (views/label-placement.js, as the run's scatter does), glossed on the English
    // page as in the section's own lists; the rest are grey dots, named on hover (their <title>)
    const dots = shown.map((i) => ({ i, x: at(xy.get(i, 0)), y: SIZE - at(xy.get(i, 1)), grouped: GROUPED.has(vocab[i]) }));
    const labelled = dots.filter((d) => d.grouped);
    const labels = labelled.map((d) => glossedShort(vocab[d.i], i18n.lang));
    // a Chinese character is about 1 em wide, a Latin letter about half
    const labelWidth = (text) => [...text].reduce((w, c) => w + (c.charCodeAt(0) > 0x2e80 ? LABEL_EM : LABEL_EM * 0.55), 1);
    const placed = placeLabels(labelled.map((d, k) => ({ x: d.x, y: d.y, r: DOT_R, w: labelWidth(labels[k]), h: LABEL_EM + 1 })),
      { width: SIZE, height: SIZE, others: dots.filter((d) => !d.grouped).map((d) => ({ x: d.x, y: d.y, r: GREY_R })) });
    for (const d of dots) {
      if (!d.grouped) scatter.append(s('circle', { class: 'tl-grey', cx: d.x.toFixed(1), cy: d.y.toFixed(1), r: GREY_R }, s('title', { text: glossed(vocab[d.i], i18n.lang) })));
    }
    labelled.forEach((d, k) => {
      scatter.append(s('circle', { cx: d.x.toFixed(1), cy: d.y.toFixed(1), r: DOT_R }, s('title', { text: glossed(vocab[d.i], i18n.lang) })));
      const box = placed[k];
      if (!box) return;
      if (box.leader) {
        const end = nearestOnBox(box, d.x, d.y);
        scatter.append(s('line', { class: 'tl-leader', x1: d.x.toFixed(1), y1: d.y.toFixed(1), x2: end.x.toFixed(1), y2: end.y.toFixed(1) }));
      }
      scatter.append(s('text', { x: box.x.toFixed(1), y: (box.y + LABEL_EM).toFixed(1), text: labels[k] }));
    });
  }

  return {
    element,
    /** v: timelineAt's view; heading: what this run is (its settings). */
    draw(v, heading) {
      title.textContent = heading;
      const vars = { step: v.step, total: v.total, loss: fmt(v.loss), average: fmt(v.average), dog: fmt(v.catDog), car: fmt(v.catCar) };
      summary.textContent = i18n.t(v.step === 0 ? 'timeline.step0' : 'timeline.step', vars);
      nearestTitle.textContent = i18n.t('timeline.nearest', { word: glossed(v.anchor, i18n.lang) });
      nearest.replaceChildren(...v.nearest.map((r) => h('li', {}, h('span', { text: glossed(r.word, i18n.lang) }), ' ', h('span', { class: 'num', text: fmt(r.score) }))));
      const words = v.attention.tokens;
      attentionCaption = i18n.t('timeline.attention', { sentence: words.slice(1).join(' '), step: v.step });
      attention.update(v.attention.weights, words, words);
      scatterTitle.textContent = i18n.t('timeline.scatter', { step: v.step });
      drawScatter(v.points);
    },
    destroy() { attention.destroy(); },
  };
}

/** A run's settings in a line: seed, batch, lr, dim, optimizer, corpus. */
function describeRun(i18n, options, corpus) {
  const preset = CORPUS_PRESETS.find((p) => p.id === corpus.id);
  return i18n.t('timeline.settings', { seed: options.seed, batch: options.batchSize, lr: options.lr, dim: options.dim, opt: options.optimizer,
    corpus: preset ? preset.name[i18n.lang] : i18n.t('timeline.ownCorpus') });
}

export function createTimelineView({ i18n, events, store, state }) {
  const slider = h('input', { class: 'tl-slider', attrs: { type: 'range', min: '0', max: '0', step: '1', 'data-role': 'timeline-slider' }, value: '0' });
  const sliderLabel = h('span');
  const follow = h('button', { attrs: { type: 'button', 'data-role': 'timeline-follow', 'aria-pressed': 'true' } });
  const pin = h('button', { attrs: { type: 'button', 'data-role': 'timeline-pin' } });
  const unpin = h('button', { attrs: { type: 'button', 'data-role': 'timeline-unpin' }, hidden: true });
  const live = h('p', { class: 'visually-hidden', attrs: { 'aria-live': 'polite', 'data-role': 'timeline-live' } });
  const pinNote = h('p', { class: 'tr-note', attrs: { 'data-role': 'timeline-pin-note' }, hidden: true });
  const replayNote = h('p', { class: 'tr-note', attrs: { 'data-role': 'timeline-replaying' }, hidden: true });
  const current = createColumn({ i18n, role: 'timeline-current' });
  const other = createColumn({ i18n, role: 'timeline-pinned' });
  other.element.hidden = true;
  const memory = h('p', { class: 'tr-note', attrs: { 'data-role': 'timeline-memory' } });
  const element = h('div', { class: 'tl-body' },
    h('div', { class: 'tl-controls' }, h('label', { class: 'range' }, sliderLabel, slider), follow, pin, unpin),
    pinNote, replayNote, live,
    h('div', { class: 'tl-runs' }, other.element, current.element),
    memory);

  let following = true;
  let shown = null;   // the step drawn
  // one scheduler for every "next frame": a redraw of the step shown (a replay or a pinned run's
  // catch-up still under way) and a refresh after the run moved, each at most once a frame
  const frames = createFrameScheduler();
  const redrawShownSoon = () => frames.request('redraw', () => { if (shown !== null) draw(shown); });

  /**
   * The pinned run at step k: a pinned run that is not the current one trains on to k when asked
   * (deterministic), a few milliseconds a frame so that the page keeps answering; until it gets
   * there it is shown at the step it has reached, and it says so (view.behind = k).
   */
  function pinnedAt(k) {
    const p = store.pinned;
    if (!p || p.run === store.run) return null;
    const until = performance.now() + CATCH_UP_MS;
    const more = catchUp(p.run, k, until);
    const view = timelineAt(p.run, Math.min(k, p.run.step), { sentence: state.get('example'), deadline: until });
    if (!view) {
      redrawShownSoon();
      return { behind: k, pending: true };
    }
    if (p.run.step < k && more) {
      view.behind = k;
      redrawShownSoon();
    }
    return view;
  }

  function draw(k) {
    const run = store.run;
    if (!run || store.replaying) {
      live.textContent = i18n.t('timeline.waiting');
      return;
    }
    shown = k;
    // a step far from its checkpoint on a large corpus replays over several frames: the page answers meanwhile
    const v = timelineAt(run, k, { sentence: state.get('example'), deadline: performance.now() + CATCH_UP_MS });
    replayNote.hidden = Boolean(v);
    if (!v) {
      replayNote.textContent = i18n.t('timeline.replaying', { step: k });
      redrawShownSoon();
      return;
    }
    current.draw(v, describeRun(i18n, run.options, store.corpus));
    const p = store.pinned;
    const pinnedView = pinnedAt(k);
    const w = pinnedView?.pending ? null : pinnedView;
    other.element.hidden = !w;
    if (w) other.draw(w, `${i18n.t('timeline.pinned')} ${describeRun(i18n, p.options, p.corpus)}${w.behind ? ` ${i18n.t('timeline.catching', { step: w.step, k: w.behind })}` : ''}`);
    pinNote.hidden = !p || Boolean(w);
    pinNote.textContent = i18n.t('timeline.pinSame');
    unpin.hidden = !p;
    element.classList.toggle('tl-two', Boolean(w));
    live.textContent = w && !w.behind ? i18n.t('timeline.both', { step: k, car: fmt(v.catCar), pcar: fmt(w.catCar) }) : i18n.t(k === 0 ? 'timeline.step0' : 'timeline.step',
      { step: v.step, total: v.total, loss: fmt(v.loss), average: fmt(v.average), dog: fmt(v.catDog), car: fmt(v.catCar) });
    let bytes = run.checkpointBytes, count = run.checkpoints.size;
    if (w) { bytes += p.run.checkpointBytes; count += p.run.checkpoints.size; }
    memory.textContent = i18n.t('timeline.memory', { every: CHECKPOINT_EVERY, count, kb: (bytes / 1000).toFixed(1) });
  }

  function label() {
    sliderLabel.textContent = i18n.t('timeline.slider');
    follow.textContent = i18n.t(following ? 'timeline.following' : 'timeline.follow');
    follow.setAttribute('aria-pressed', String(following));
    pin.textContent = i18n.t('timeline.pin');
    unpin.textContent = i18n.t('timeline.unpin');
  }

  /** The run moved (or a new one began): the slider's range follows; a following view moves on. */
  function refresh() {
    const run = store.run;
    const last = run ? run.step : 0;
    slider.max = String(last);
    if (following || Number(slider.value) > last) slider.value = String(last);
    slider.setAttribute('aria-valuetext', `${slider.value} / ${last}`);
    label();
    const k = Number(slider.value);
    if (k !== shown || following) draw(k);
  }

  events.on(slider, 'input', () => {
    const run = store.run;
    following = run ? Number(slider.value) === run.step : true;
    slider.setAttribute('aria-valuetext', `${slider.value} / ${slider.max}`);
    label();
    draw(Number(slider.value));
  });
  events.on(follow, 'click', () => {
    following = true;
    refresh();
  });
  events.on(pin, 'click', () => store.pin());
  events.on(unpin, 'click', () => store.unpin());

  // while following, redraw at most once per frame as the run trains
  const offStore = store.subscribe((event) => {
    if (event.type === 'run') { shown = null; following = true; }
    if (event.type === 'ready') shown = null;
    frames.request('refresh', refresh);
  });

  refresh();
  return {
    element,
    refresh,
    setLanguage() { shown = null; refresh(); },
    destroy() { offStore(); frames.destroy(); current.destroy(); other.destroy(); },
  };
}
