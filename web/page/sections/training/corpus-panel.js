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
import { CORPUS_PRESETS, CORPUS_LIMITS, checkCorpus } from '../../../corpus.js';
import { corpusText, errorsOf, URL_CORPUS_CHARS } from '../../training/settings.js';

addStrings({
  zh: {
    'training.corpus.summary': '语料：{sentences} 句，{words} 个词（{name}）',
    'training.corpus.own': '你自己的语料',
    'training.corpus.preset': '预设',
    'training.corpus.label': '句子：一行一句，词之间用空格隔开（没有空格的一行按字切开）',
    'training.corpus.apply': '用这份语料重新训练',
    'training.corpus.revert': '撤销修改',
    'training.corpus.export': '下载 corpus.txt',
    'training.corpus.car': '试一试：把汽车放进动物的句子里',
    'training.corpus.carNote': '关键实验：这个预设在默认语料上加了“一只 汽车 在 叫”和“我 养 了 一只 汽车”。训练一遍，看 cos(猫, 汽车) 和散点图里汽车的位置：它会不会向动物靠过去？只有两句，效果有多大要看种子。',
    'training.corpus.chars': '{chars} 个字符，{lines} 行。链接最多带 {max} 个字符的语料；最多 {maxSentences} 句，每句最多 {maxTokens} 个词。',
    'training.corpus.applied': '开始用新语料训练：{sentences} 句，{words} 个词，从第 0 步开始。',
    'training.corpus.refused': '没有训练：有 {count} 处问题。你的文字还在编辑框里；训练继续用原来的语料。',
    'training.corpus.refusedOne': '没有训练：有 1 处问题。你的文字还在编辑框里；训练继续用原来的语料。',
    'training.corpus.more': '……还有 {count} 处。',
    'training.corpus.line': '第 {line} 行：',
    'training.corpus.problem.type': '语料必须是文字，一行一句。',
    'training.corpus.problem.empty': '语料是空的：至少写一句话，词之间用空格隔开。',
    'training.corpus.problem.too-many-chars': '文字太长：{chars} 个字符，最多 {maxChars} 个。',
    'training.corpus.problem.too-many-sentences': '这是第 {maxSentences1} 句：最多 {maxSentences} 句。',
    'training.corpus.problem.too-long': '词太多（每句最多 {maxTokens} 个）。',
    'training.corpus.problem.reserved': '含有 <s>：它是句子边界的记号，模型会自己加上。',
    'training.corpus.problem.markup': '看起来像网页标记（< 或 >）：请写普通的词，用空格隔开。',
    'training.corpus.problem.control': '含有看不见的控制字符。',
    'training.corpus.problem.one-word': '只有一个词：它只能教模型“句子可以在这个词后面结束”。',
    'training.corpus.problem.duplicate': '和前面的某一行重复：这句话会被训练两倍的次数。',
    'training.corpus.warned': '提醒（照样训练了）：',
    'training.corpus.linkYes': '当前语料在链接里。',
    'training.corpus.linkNo': '当前语料有 {chars} 个字符，超过链接能带的 {max} 个：链接里仍是默认语料。要分享，请下载 corpus.txt。',
  },
  en: {
    'training.corpus.summary': 'The corpus: {sentences} sentences, {words} words ({name})',
    'training.corpus.own': 'your own',
    'training.corpus.preset': 'Preset',
    'training.corpus.label': 'Sentences, one per line, words separated by spaces (a line without spaces is split into characters)',
    'training.corpus.apply': 'Retrain on this corpus',
    'training.corpus.revert': 'Undo changes',
    'training.corpus.export': 'Download corpus.txt',
    'training.corpus.car': 'Try it: put 汽车 (car) in the animals’ sentences',
    'training.corpus.carNote': 'The decisive experiment: this preset adds 一只 汽车 在 叫 (a car is barking) and 我 养 了 一只 汽车 (I keep a car) to the default corpus. Train, then watch cos(猫, 汽车) and the car’s place in the scatter plot: does it move toward the animals? Two sentences are not much; how far it moves depends on the seed.',
    'training.corpus.chars': '{chars} characters, {lines} lines. A link carries a corpus of up to {max} characters; at most {maxSentences} sentences of at most {maxTokens} words.',
    'training.corpus.applied': 'Training on the new corpus: {sentences} sentences, {words} words, from step 0.',
    'training.corpus.refused': 'Not trained: {count} problems. Your text is still in the editor; the run keeps the corpus it had.',
    'training.corpus.refusedOne': 'Not trained: 1 problem. Your text is still in the editor; the run keeps the corpus it had.',
    'training.corpus.more': '… and {count} more.',
    'training.corpus.line': 'line {line}: ',
    'training.corpus.problem.type': 'The corpus must be text, one sentence per line.',
    'training.corpus.problem.empty': 'The corpus is empty: write at least one sentence, words separated by spaces.',
    'training.corpus.problem.too-many-chars': 'Too long: {chars} characters, at most {maxChars}.',
    'training.corpus.problem.too-many-sentences': 'this is sentence {maxSentences1}: at most {maxSentences} sentences.',
    'training.corpus.problem.too-long': 'too many words (at most {maxTokens} a sentence).',
    'training.corpus.problem.reserved': 'contains <s>, which marks the sentence boundary; the model adds it itself.',
    'training.corpus.problem.markup': 'looks like markup (< or >): write plain words separated by spaces.',
    'training.corpus.problem.control': 'contains an invisible control character.',
    'training.corpus.problem.one-word': 'one word only: it teaches just that a sentence can end after it.',
    'training.corpus.problem.duplicate': 'repeats an earlier line: it will be trained twice as often.',
    'training.corpus.warned': 'Worth knowing (it trained all the same): ',
    'training.corpus.linkYes': 'The link holds this corpus.',
    'training.corpus.linkNo': 'This corpus has {chars} characters, more than a link carries ({max}): the link keeps the default corpus. To share it, download corpus.txt.',
  },
});

const SHOWN_PROBLEMS = 8;

/** Words of a list of token arrays, <s> not counted. */
const wordCount = (sentences) => new Set(sentences.flat()).size;

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
      editor.value = corpus.text;
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
      h('p', { text: i18n.t(list.length === 1 ? 'training.corpus.refusedOne' : 'training.corpus.refused', { count: list.length }) }),
      ...listOf(list, message.chars),
    ].filter(Boolean));
  }

  function applyText(text) {
    const checked = checkCorpus(text);
    const errors = errorsOf(checked.problems);
    editor.setAttribute('aria-invalid', String(errors.length > 0));
    if (errors.length || !checked.sentences.length) {
      say({ errors, chars: text.length });
      return false;
    }
    // train on what was checked, written back as the editor would show it (blank lines dropped)
    const clean = corpusText(checked.sentences);
    if (!store.setCorpus(clean)) return false;
    editor.value = clean;
    shownText = null;
    say({
      applied: ['training.corpus.applied', { sentences: checked.sentences.length, words: wordCount(checked.sentences) }],
      warnings: checkCorpus(clean).problems, chars: clean.length,
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
    destroy() { offStore(); },
  };
}
