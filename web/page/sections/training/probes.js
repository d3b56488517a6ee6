// sections/training/probes.js: what the trained table can be asked: a word's nearest neighbours, and the
// analogy A − B + C beside its baseline, A's own nearest neighbours (if the analogy's answer is
// already A's neighbour, the arithmetic shows less than it seems) and A + C alone, with no − B
// (if A + C finds the same answer, closeness to A and C did it, not the offset). Words are glossed on the
// English page; an unknown or empty word gets an inline message listing the vocabulary.
//
//   const probes = createTrainingProbes({ i18n, texts, events, uid });
//   probes.setRun(run);  probes.refresh();
import { h, fmt } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_PROBES_STRINGS } from './probes.strings.js';
import { PROBES } from '../../training/run.js';
import { glossed } from './glosses.js';
import { tableGeometry } from '../../training/counting.js';
import { createFrameScheduler } from '../../shell/frames.js';

addStrings(TRAINING_PROBES_STRINGS);

const PROBE_REFRESH_MS = 200;  // while playing, neighbours and analogy refresh at most this often
const BASELINE_K = 3;
/** An unknown word's message lists the vocabulary up to this many words (then says how many there are). */
export const LISTED_WORDS = 60;
/** The word list (a <datalist>) is filled this many options a frame: a 9,000-word corpus never blocks the page. */
const OPTIONS_PER_FRAME = 500;

export function createTrainingProbes({ i18n, texts, events, uid }) {
  let run = null;
  let lastRefresh = 0;
  const frames = createFrameScheduler();
  const wordInput = (role, value) => {
    const input = h('input', { attrs: { type: 'text', 'data-role': role, list: `${uid}-words`, autocomplete: 'off', spellcheck: 'false' } });
    input.value = value;
    return input;
  };
  const nearestInput = wordInput('nearest-word', PROBES.anchor);
  const nearestK = h('select', { attrs: { 'data-role': 'nearest-k' } },
    [3, 5, 8].map((k) => h('option', { value: String(k), text: String(k), selected: k === 5 })));
  const nearestResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'nearest-results' } });
  const nearestError = h('p', { class: 'tr-inline-error', attrs: { id: `${uid}-nearest-error`, 'data-role': 'nearest-error', 'aria-live': 'polite' }, hidden: true });

  const analogyInputs = ['国王', '男人', '女人'].map((w, i) => wordInput(`analogy-${'abc'[i]}`, w));
  analogyInputs.forEach((input, i) => texts.attr(input, 'aria-label', ['training.analogyA', 'training.analogyB', 'training.analogyC'][i]));
  const analogyResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'analogy-results' } });
  const analogyError = h('p', { class: 'tr-inline-error', attrs: { id: `${uid}-analogy-error`, 'data-role': 'analogy-error', 'aria-live': 'polite' }, hidden: true });
  const baselineTitle = h('p', { class: 'tr-note tr-baseline-title' });
  const baselineResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'baseline-results' } });
  const baselineVerdict = h('p', { class: 'tr-note', attrs: { 'data-role': 'baseline-verdict' } });
  const sumTitle = h('p', { class: 'tr-note tr-sum-title', attrs: { 'data-role': 'sum-title' } });
  const sumResults = h('ol', { class: 'tr-results', attrs: { 'data-role': 'sum-results' } });
  const sumVerdict = h('p', { class: 'tr-note', attrs: { 'data-role': 'sum-verdict' } });
  const datalist = h('datalist', { attrs: { id: `${uid}-words` } });

  const label = (key, control) => h('label', {}, texts.set(h('span'), key), control);
  const card = (cls, ...children) => h('div', { class: `tr-card ${cls}` }, ...children);
  const nearestCard = card('tr-nearest-card',
    texts.set(h('h3'), 'training.nearest'),
    h('form', { attrs: { 'data-role': 'nearest-form' } }, label('training.nearestWord', nearestInput), label('training.nearestK', nearestK)),
    nearestError, nearestResults);
  const analogyCard = card('tr-analogy-card',
    texts.set(h('h3'), 'training.analogy'),
    texts.set(h('p', { class: 'tr-note' }), 'training.analogyHelp'),
    h('form', { attrs: { 'data-role': 'analogy-form' } },
      analogyInputs[0], h('span', { class: 'tr-op', text: '−', attrs: { 'aria-hidden': 'true' } }),
      analogyInputs[1], h('span', { class: 'tr-op', text: '+', attrs: { 'aria-hidden': 'true' } }),
      analogyInputs[2]),
    analogyError, analogyResults,
    h('div', { class: 'tr-baseline', attrs: { 'data-role': 'baseline' } }, baselineTitle, baselineResults, baselineVerdict),
    h('div', { class: 'tr-baseline', attrs: { 'data-role': 'sum' } }, sumTitle, sumResults, sumVerdict));

  const vocabList = (words) => words.join(i18n.lang === 'zh' ? '、' : ', ');

  function unknownMessage(word) {
    const words = run.vocab.slice(1);
    const shown = word.length > 24 ? `${word.slice(0, 24)}…` : word;
    return words.length <= LISTED_WORDS ? i18n.t('training.unknownWord', { word: shown, list: vocabList(words) })
      : i18n.t('training.unknownWordMany', { word: shown, count: words.length, shown: LISTED_WORDS, list: vocabList(words.slice(0, LISTED_WORDS)) });
  }

  /** Fills the word list with the vocabulary, OPTIONS_PER_FRAME options a frame. */
  function fillWords(words, from = 0) {
    datalist.append(...words.slice(from, from + OPTIONS_PER_FRAME).map((w) => h('option', { value: w })));
    if (from + OPTIONS_PER_FRAME < words.length) frames.request('fill', () => fillWords(words, from + OPTIONS_PER_FRAME));
  }

  /** The word typed in input, or null after showing why it cannot be used. */
  function readWord(input, errorEl) {
    const word = input.value.trim();
    let message = null;
    if (word === '') message = i18n.t('training.emptyWord');
    else if (!run.vocab.includes(word) || word === run.vocab[0]) {
      message = unknownMessage(word);
    }
    input.setAttribute('aria-invalid', String(message !== null));
    if (message !== null) input.setAttribute('aria-describedby', errorEl.id);
    else input.removeAttribute('aria-describedby');
    if (message !== null) {
      errorEl.textContent = message;
      errorEl.hidden = false;
      return null;
    }
    return word;
  }

  const resultItems = (list) => list.map(({ word, score }) => h('li', { attrs: { 'data-word': word } },
    h('span', { text: glossed(word, i18n.lang) }), h('span', { class: 'tr-num', text: fmt(score) })));

  function renderNearest() {
    if (!run) return;
    nearestError.hidden = true;
    const word = readWord(nearestInput, nearestError);
    if (word === null) { nearestResults.replaceChildren(); return; }
    nearestResults.replaceChildren(...resultItems(run.nearest(word, Number(nearestK.value))));
  }

  function renderAnalogy() {
    if (!run) return;
    analogyError.hidden = true;
    const words = [];
    for (const input of analogyInputs) {
      const w = readWord(input, analogyError);
      if (w === null) {
        analogyResults.replaceChildren();
        baselineResults.replaceChildren();
        sumResults.replaceChildren();
        baselineTitle.textContent = baselineVerdict.textContent = sumTitle.textContent = sumVerdict.textContent = '';
        return;
      }
      words.push(w);
    }
    const [a, b, c] = words;  // A − B + C is "B is to A as C is to ?": run.analogy(B, A, C)
    const answers = run.analogy(b, a, c, 3);
    analogyResults.replaceChildren(...resultItems(answers));
    // the baseline: A's own neighbours, leaving out B and C as the analogy does
    const own = run.nearest(a, BASELINE_K + 2).filter((r) => r.word !== b && r.word !== c).slice(0, BASELINE_K);
    baselineTitle.textContent = i18n.t('training.baseline', { a: glossed(a, i18n.lang) });
    baselineResults.replaceChildren(...resultItems(own));
    const answer = answers[0] && answers[0].word;
    const rank = own.findIndex((r) => r.word === answer) + 1;
    baselineVerdict.textContent = !answer ? '' : rank > 0
      ? i18n.t('training.baselineSame', { word: glossed(answer, i18n.lang), a: glossed(a, i18n.lang), rank })
      : i18n.t('training.baselineNew', { word: glossed(answer, i18n.lang), a: glossed(a, i18n.lang), k: BASELINE_K });
    // the analogy without its offset: A + C alone, the same three words left out (the same cosine
    // over this step's table as model.analogy)
    const sum = tableGeometry(run.vocab, run.table).sum(b, a, c).slice(0, BASELINE_K);
    const names = { a: glossed(a, i18n.lang), b: glossed(b, i18n.lang), c: glossed(c, i18n.lang) };
    sumTitle.textContent = i18n.t('training.sumTitle', names);
    sumResults.replaceChildren(...resultItems(sum));
    sumVerdict.textContent = !answer || !sum.length ? '' : sum[0].word === answer
      ? i18n.t('training.sumSame', { ...names, word: glossed(answer, i18n.lang) })
      : i18n.t('training.sumOther', { ...names, word: glossed(answer, i18n.lang), top: glossed(sum[0].word, i18n.lang) });
  }

  function refresh() {
    lastRefresh = performance.now();
    renderNearest();
    renderAnalogy();
  }

  events.on(nearestInput, 'input', renderNearest);
  events.on(nearestK, 'change', renderNearest);
  for (const input of analogyInputs) events.on(input, 'input', renderAnalogy);
  for (const form of [nearestCard, analogyCard].map((c) => c.querySelector('form'))) events.on(form, 'submit', (e) => e.preventDefault());

  return {
    elements: [nearestCard, analogyCard, datalist],
    /** The run to ask (a new run may bring a new vocabulary: the word list follows it). */
    setRun(next) {
      if (next === run) return;
      const sameWords = run && (run.vocab === next.vocab || (run.vocab.length === next.vocab.length && run.vocab.every((w, i) => w === next.vocab[i])));
      run = next;
      if (!sameWords) {
        frames.cancel('fill');
        datalist.replaceChildren();
        fillWords(run.vocab.slice(1));
      }
    },
    /** Refreshes now (force) or when the last refresh is old enough (while training). */
    maybeRefresh(force) {
      if (run && (force || performance.now() - lastRefresh > PROBE_REFRESH_MS)) refresh();
    },
    refresh,
    destroy() {
      frames.destroy();
    },
  };
}
