// sections/training/corpus-panel.js: the corpus, open. The sentences the run trains on, in a collapsible
// panel: edit, add or remove lines and retrain, pick a preset, or run the decisive experiment in
// one click (the 'car-with-animals' preset: 汽车 in the animals' contexts). Input is checked by
// checkCorpus() before anything is trained: an empty corpus, one-word lines, too many sentences,
// megabyte strings, the reserved <s> each get a clear inline message, the reader's text stays in
// the editor, and the run keeps the corpus it had. Text only: nothing typed becomes markup.
//
//   const panel = createCorpusPanel({ ctx, texts, events, uid, corpusButton, onApplied });
//   layout.slots.corpus.append(panel.element);   panel.refresh();
import { h } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_CORPUS_PANEL_STRINGS } from './corpus-panel.strings.js';
import { CORPUS_PRESETS, CORPUS_LIMITS } from '../../../corpus.js';
import { corpusText, errorsOf, checkedCorpus, URL_CORPUS_CHARS } from '../../training/settings.js';
import { createFrameScheduler } from '../../shell/frames.js';

addStrings(TRAINING_CORPUS_PANEL_STRINGS);

const SHOWN_PROBLEMS = 8;
/** A paste longer than two of these goes into the editor a piece (of at most this many characters) a frame. */
export const PASTE_PIECE = 600;

const counted = new WeakMap();
/**
 * Distinct words of a list of token arrays, <s> not counted; counted once per list (the summary
 * says it after every run, and a 9,000-word corpus takes milliseconds to count).
 */
function wordCount(sentences) {
  let n = counted.get(sentences);
  if (n === undefined) {
    const seen = new Set();
    for (const tokens of sentences) for (const w of tokens) seen.add(w);
    counted.set(sentences, n = seen.size);
  }
  return n;
}

export function createCorpusPanel({ ctx, texts, events, uid, corpusButton, onApplied = () => {} }) {
  const { i18n } = ctx;
  const store = ctx.training;
  const summary = h('summary', { attrs: { 'data-role': 'corpus-summary' } });
  const presets = h('select', { attrs: { 'data-role': 'corpus-preset' } });
  const presetNote = h('p', { class: 'tr-note', attrs: { 'data-role': 'corpus-preset-note' } });
  const car = texts.set(h('button', { class: 'tr-car', attrs: { type: 'button', 'data-role': 'corpus-car' } }), 'training.corpus.car');
  const carNote = texts.set(h('p', { class: 'tr-note' }), 'training.corpus.carNote');
  const editor = h('textarea', { attrs: { id: `${uid}-corpus`, rows: '12', spellcheck: 'false', 'data-role': 'corpus-text', 'aria-describedby': `${uid}-corpus-count ${uid}-corpus-problems` } });
  const count = h('p', { class: 'tr-note', attrs: { id: `${uid}-corpus-count`, 'data-role': 'corpus-count' } });
  const apply = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'corpus-apply' } }), 'training.corpus.apply');
  const revert = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'corpus-revert' } }), 'training.corpus.revert');
  const problems = h('div', { class: 'tr-problems', attrs: { id: `${uid}-corpus-problems`, 'aria-live': 'polite', 'data-role': 'corpus-problems' } });
  const link = h('p', { class: 'tr-note', attrs: { 'data-role': 'corpus-link' } });
  const details = h('details', { class: 'tr-corpus', attrs: { 'data-role': 'corpus' } },
    summary,
    h('div', { class: 'tr-corpus-body' },
      h('div', { class: 'tr-corpus-row' }, h('label', {}, texts.set(h('span'), 'training.corpus.preset'), presets)),
      presetNote,
      h('label', { class: 'tr-corpus-label', attrs: { for: `${uid}-corpus` } }, texts.set(h('span'), 'training.corpus.label')),
      editor, count,
      h('div', { class: 'tr-corpus-row' }, apply, revert, corpusButton),
      problems, link));

  let shownText = null;   // the corpus text the editor was last filled with
  let lastMessage = null; // what say() last showed: shown again in a new language

  function presetName(id) {
    const preset = CORPUS_PRESETS.find((p) => p.id === id);
    return preset ? preset.name[i18n.lang] : i18n.t('training.corpus.own');
  }

  function refresh() {
    const corpus = store.corpus;
    summary.textContent = i18n.t('training.corpus.summary', {
      sentences: corpus.sentences.length, words: wordCount(corpus.sentences), name: presetName(corpus.id),
    });
    presets.replaceChildren(
      ...CORPUS_PRESETS.map((p) => h('option', { value: p.id, text: p.name[i18n.lang], selected: p.id === corpus.id })),
      h('option', { value: '', text: i18n.t('training.corpus.own'), selected: corpus.id === null }));
    const preset = CORPUS_PRESETS.find((p) => p.id === corpus.id);
    presetNote.textContent = preset ? preset.description[i18n.lang] : '';
    // the editor follows the run's corpus, unless the reader has unsaved edits in it
    if (shownText === null || editor.value === shownText) {
      // (assigned only when it differs: the browser lays out a textarea's whole text on every assignment)
      if (editor.value !== corpus.text) editor.value = corpus.text;
      shownText = corpus.text;
    }
    counter();
    link.textContent = store.linkable ? i18n.t('training.corpus.linkYes')
      : i18n.t('training.corpus.linkNo', { chars: corpus.text.length, max: URL_CORPUS_CHARS });
    revert.disabled = editor.value === shownText;
    if (lastMessage) say(lastMessage);
  }

  function counter() {
    const text = editor.value;
    let lines = 1;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
    count.textContent = i18n.t('training.corpus.chars', {
      chars: text.length, lines, max: URL_CORPUS_CHARS,
      maxSentences: CORPUS_LIMITS.maxSentences, maxTokens: CORPUS_LIMITS.maxTokensPerSentence,
    });
  }

  const limits = (extra) => ({ ...extra, maxSentences: CORPUS_LIMITS.maxSentences, maxSentences1: CORPUS_LIMITS.maxSentences + 1,
    maxTokens: CORPUS_LIMITS.maxTokensPerSentence, maxChars: CORPUS_LIMITS.maxChars });

  /** The words for one checkCorpus problem, its line first. */
  function problemText(p, chars) {
    const key = `training.corpus.problem.${p.kind}`;
    let text = i18n.t(key, limits({ chars }));
    if (text === key) text = p.message;  // a kind this page has no words for: the library's own
    return p.line > 0 ? `${i18n.t('training.corpus.line', { line: p.line })}${text}` : text;
  }

  const listOf = (list, chars) => [
    h('ul', {}, list.slice(0, SHOWN_PROBLEMS).map((p) => h('li', { text: problemText(p, chars) }))),
    list.length > SHOWN_PROBLEMS ? h('p', { text: i18n.t('training.corpus.more', { count: list.length - SHOWN_PROBLEMS }) }) : null,
  ];

  /**
   * Shows a message: { applied: [key, vars], warnings } after training on a corpus (its warnings
   * listed), or { errors, chars } when it was refused.
   */
  function say(message) {
    lastMessage = message;
    if (message.applied) {
      problems.classList.remove('bad');
      problems.replaceChildren(...[
        h('p', { text: i18n.t(message.applied[0], message.applied[1]) }),
        message.warnings.length ? h('p', { text: i18n.t('training.corpus.warned') }) : null,
        ...(message.warnings.length ? listOf(message.warnings, message.chars) : []),
      ].filter(Boolean));
      return;
    }
    const list = message.errors;
    problems.classList.add('bad');
    problems.replaceChildren(...[
      h('p', { text: message.pasted ? i18n.t('training.corpus.pasteRefused')
        : i18n.t(list.length === 1 ? 'training.corpus.refusedOne' : 'training.corpus.refused', { count: list.length }) }),
      ...listOf(list, message.chars),
    ].filter(Boolean));
  }

  function applyText(text) {
    const checked = checkedCorpus(text);
    const errors = errorsOf(checked.problems);
    editor.setAttribute('aria-invalid', String(errors.length > 0));
    if (errors.length || !checked.sentences.length) {
      say({ errors, chars: text.length });
      return false;
    }
    // train on what was checked, written back as the editor would show it (blank lines dropped)
    const clean = corpusText(checked.sentences);
    if (!store.setCorpus(clean)) {
      // refused by the engine (not by checkCorpus): say why, keep the text and the run
      editor.setAttribute('aria-invalid', 'true');
      if (store.refusal) {
        lastMessage = null;
        problems.classList.add('bad');
        problems.replaceChildren(h('p', { text: i18n.t('training.corpus.engineRefused', { message: store.refusal.message }) }));
      }
      return false;
    }
    if (editor.value !== clean) editor.value = clean;
    shownText = null;
    // the store's corpus is now `clean`, checked: its sentences and problems are clean's
    const { sentences, problems: warnings } = store.corpus;
    say({
      applied: ['training.corpus.applied', { sentences: sentences.length, words: wordCount(sentences) }],
      warnings, chars: clean.length,
    });
    refresh();
    onApplied();
    return true;
  }

  events.on(apply, 'click', () => applyText(editor.value));
  events.on(revert, 'click', () => {
    editor.value = store.corpus.text;
    shownText = editor.value;
    editor.removeAttribute('aria-invalid');
    lastMessage = null;
    problems.replaceChildren();
    refresh();
  });
  events.on(editor, 'input', () => { counter(); revert.disabled = editor.value === shownText; });
  // text that would make the editor longer than any corpus can be is refused before it goes in:
  // a megabyte in a textarea costs the browser seconds of layout before anything could check it
  // (true when refused)
  const refuseLong = (event, transfer) => {
    const added = transfer ? transfer.getData('text/plain').length : 0;
    // (a long paste still going in counts whole)
    const kept = editor.value.length - Math.abs((editor.selectionEnd ?? 0) - (editor.selectionStart ?? 0)) +
      pasting.pieces.reduce((n, piece) => n + piece.length, 0);
    if (kept + added <= CORPUS_LIMITS.maxChars) return false;
    event.preventDefault();
    editor.setAttribute('aria-invalid', 'true');
    say({ errors: [{ line: 0, kind: 'too-many-chars', severity: 'error', message: '' }], chars: kept + added, pasted: true });
    return true;
  };
  // A long paste goes in a piece a frame: the browser lays out all of a textarea's text when it
  // changes, and 19,000 characters at once (a 9,000-word corpus) is one task of 110-250 ms here,
  // in a bare textarea too. As "insert text" edits, the pieces are one paste to undo (Ctrl+Z),
  // and each fires the editor's input event as typing does; Apply waits until the last is in.
  const pasting = { pieces: [], frames: createFrameScheduler() };
  function pasteNext() {
    const piece = pasting.pieces.shift();
    if (piece !== undefined && !document.execCommand('insertText', false, piece)) {
      editor.setRangeText(piece, editor.selectionStart, editor.selectionEnd, 'end');   // no execCommand: not undoable, still in pieces
      editor.dispatchEvent(new Event('input', { bubbles: true }));
    }
    if (pasting.pieces.length) { pasting.frames.request('paste', pasteNext); return; }
    delete editor.dataset.pasting;
    apply.disabled = false;
  }
  events.on(editor, 'paste', (event) => {
    if (refuseLong(event, event.clipboardData) || !event.clipboardData) return;
    const text = event.clipboardData.getData('text/plain');
    if (text.length <= 2 * PASTE_PIECE) return;   // the browser's own paste
    event.preventDefault();
    const going = pasting.pieces.length > 0;   // a paste while one is still going in follows it
    for (let at = 0; at < text.length;) {
      // a piece ends at a line's end where one is near, so that no piece splits a word
      let end = Math.min(text.length, at + PASTE_PIECE);
      const newline = text.lastIndexOf('\n', end - 1);
      if (end < text.length && newline >= at + PASTE_PIECE / 2) end = newline + 1;
      pasting.pieces.push(text.slice(at, end));
      at = end;
    }
    editor.dataset.pasting = 'true';
    apply.disabled = true;
    if (!going) pasteNext();
  });
  events.on(editor, 'drop', (event) => refuseLong(event, event.dataTransfer));
  events.on(presets, 'change', () => {
    const preset = CORPUS_PRESETS.find((p) => p.id === presets.value);
    if (preset) applyText(corpusText(preset.sentences));
  });
  events.on(car, 'click', () => {
    const preset = CORPUS_PRESETS.find((p) => p.id === 'car-with-animals');
    applyText(corpusText(preset.sentences));
  });
  const offStore = store.subscribe((event) => { if (event.type === 'run' || event.type === 'ready') refresh(); });

  refresh();
  // the decisive experiment stays one click away, outside the collapsed panel
  const element = h('div', { class: 'tr-corpus-panel' }, h('div', { class: 'tr-car-row' }, car, carNote), details);
  return {
    element,
    refresh,
    setLanguage() { refresh(); },
    destroy() { offStore(); pasting.frames.destroy(); },
  };
}
