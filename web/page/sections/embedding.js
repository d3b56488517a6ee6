// sections/embedding.js: where X comes from. token → id → one-hot row × embedding table (the one highlighted
// row is the result), plus the position vector when switched on. The reader picks a sentence.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { EMBEDDING_STRINGS } from './embedding.strings.js';
import { defineSection, toggle } from '../shell/section-shell.js';
import { SENTENCES, VOCABULARY } from '../models/attention.js';
import { editsNote } from '../views/edits-note.js';
import { codePanel } from '../views/code-panel.js';

addStrings(EMBEDDING_STRINGS);

export const EMBEDDING_QUIZ = [{
  id: 'row', atStep: 1, numeric: { tolerance: 0.005, digits: 3 },
  prompt: (snap, t) => t('quiz.emb.prompt', { r: 1, word: snap.words[1] }),
  answer: (snap) => snap.X.get(1, 0),
  explain: (snap, t) => t('quiz.emb.explain', { word: snap.words[1], id: snap.embedding.ids[1],
    plus: snap.pos ? t('quiz.emb.plus', { r: 1 }) : '', row: snap.X.row(1).map((x) => fmt(x)).join(', ') }),
}];

export const embeddingSection = defineSection({
  id: 'embedding', quiz: EMBEDDING_QUIZ, titleKey: 'emb.title', introKeys: ['emb.intro1', 'emb.intro2'],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const select = h('select', { class: 'sentence-select' });
    const posSwitch = toggle(texts, 'emb.pos', frame.snap.pos, (on) => ctx.setSetting('pos', on), events);
    const note = editsNote(frame, { matrices: ['X'], undo: true });
    frame.controls.append(h('label', { class: 'field' }, texts.set(h('span'), 'emb.sentence'), select), posSwitch.element, note.element);
    events.on(select, 'change', () => ctx.setSetting('sentence', select.value));

    const chips = h('div', { class: 'chips' });
    const hotView = frame.view({ name: 'one-hot', label: 'one-hot', csv: false, className: 'onehot' });
    const tableView = frame.view({ name: 'E', label: () => (i18n.lang === 'zh' ? 'Embedding 表 E' : 'Embedding table E') });
    const posView = frame.view({ name: 'P', label: () => (i18n.lang === 'zh' ? '位置向量 P' : 'Position vectors P') });
    const xView = frame.view({ name: 'X', label: 'X' });
    const posPart = h('span', { class: 'pos-part' }, h('span', { class: 'op', text: '+' }), posView.element);
    const code = codePanel(frame, 'embedding');
    frame.stage.append(chips, h('div', { class: 'equation' }, hotView.element, h('span', { class: 'op', text: '×' }), tableView.element),
      h('div', { class: 'equation' }, posPart, h('span', { class: 'op', text: '=' }), xView.element));

    return {
      count: (snap) => snap.n,
      draw(snap) {
        clear(select);
        const options = SENTENCES.includes(snap.words.join(' ')) ? SENTENCES : [snap.words.join(' '), ...SENTENCES];
        for (const s of options) select.append(h('option', { value: s, text: s, selected: s === snap.words.join(' ') }));
        posSwitch.input.checked = snap.pos;
        const vocabIds = VOCABULARY.map((_, k) => String(k));
        hotView.update(snap.embedding.hot, { rowLabels: snap.words, colLabels: vocabIds });
        tableView.update(snap.table, { rowLabels: VOCABULARY.map((w, k) => `${k} ${w}`), colLabels: ['0', '1', '2', '3'] });
        posView.update(snap.positions, { rowLabels: snap.positions.toArray().map((_, p) => `${p}`), colLabels: ['0', '1', '2', '3'] });
        xView.update(snap.X, { rowLabels: snap.words, colLabels: ['0', '1', '2', '3'] });
        posPart.hidden = !snap.pos;
        const edits = snap.edited.X || [];
        xView.setMarked(edits.length ? (i, j) => edits.some(([a, b]) => a === i && b === j) : null);
        note.draw(snap);
        code.draw(snap);
      },
      render(r) {
        const snap = frame.snap;
        const word = snap.words[r];
        const id = snap.embedding.ids[r];
        clear(chips);
        snap.words.forEach((w, k) => chips.append(h('span', { class: `chip${k === r ? ' active' : ''}` }, w, h('small', { text: `#${snap.embedding.ids[k]}` }))));
        hotView.highlight([[r, id, 'hl-one'], ...snap.words.map((_, k) => [k, snap.embedding.ids[k], 'hl-row'])]);
        tableView.highlight([0, 1, 2, 3].map((c) => [id, c, 'hl-cell']));
        posView.highlight(snap.pos ? [0, 1, 2, 3].map((c) => [r, c, 'hl-col']) : []);
        xView.highlight([0, 1, 2, 3].map((c) => [r, c, 'hl-cell']));
        xView.setHidden((i) => i > r);
        const edited = (snap.edited.X || []).some(([i]) => i === r);
        return i18n.t(edited ? 'emb.stepEdited' : 'emb.step', { word, id, r, plus: snap.pos ? i18n.t('emb.plus', { p: r }) : '' });
      },
      setLanguage: () => note.refresh(),
    };
  },
});
