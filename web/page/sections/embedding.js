// Section 2: where X comes from. token → id → one-hot row × embedding table (the one highlighted
// row is the result), plus the position vector when switched on. The reader picks a sentence.
import { h, clear } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, toggle } from '../shell/section-shell.js';
import { SENTENCES, VOCABULARY } from '../models/attention.js';
import { editsNote } from '../views/edits-note.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'emb.title': 'X 从哪里来：embedding 表',
    'emb.intro1': '网络只认数字。每个词先换成一个编号（token id），再拿编号当行号，去 embedding 表里取出那一行。这个“查表”等价于用 one-hot 向量乘整张表：one-hot 里只有一个 1，乘出来正好是被选中的那一行。所以它可以求导，反向传播时也只有被选中的行会收到梯度。',
    'emb.intro2': '文章的例子直接给了 3 个 4 维向量：我 = [1, 0, 0, 0]，love = [0, 1, 0, 0]，猫 = [0, 0, 1, 0.2]，这里就把它们当作表里的三行；其他词的行由 rng(种子).randn × 0.5 生成。位置向量（由 rng × 0.1 生成，每个位置一行）告诉模型“我在第几个”，打开开关后加到 X 上。',
    'emb.sentence': '句子', 'emb.pos': '加上位置向量',
    'emb.tokens': '词 → 编号',
    'emb.step': '“{word}”的编号是 {id}：one-hot 第 {r} 行在第 {id} 列是 1，乘上表，取出表的第 {id} 行{plus}，成为 X 的第 {r} 行。',
    'emb.plus': '，再加上位置 {p} 的向量',
    'emb.stepEdited': '“{word}”的编号是 {id}：one-hot 乘上表，取出表的第 {id} 行{plus}。但 X 的第 {r} 行在第 3 节里被手动改过（标出的格子），所以它已不再是查表的结果，而是你输入的数。',
  },
  en: {
    'emb.title': 'Where X comes from: the embedding table',
    'emb.intro1': 'A network only reads numbers. Each word becomes an id, and the id picks a row of the embedding table. That look-up is the same as multiplying a one-hot vector by the whole table: the one-hot row has a single 1, so the product is exactly the chosen row. That is why it can be differentiated, and why only the chosen rows receive gradients.',
    'emb.intro2': 'The article gives its three 4-number vectors directly: 我 = [1, 0, 0, 0], love = [0, 1, 0, 0], 猫 = [0, 0, 1, 0.2]; here they are those three rows of the table, and the other words’ rows come from rng(seed).randn × 0.5. Position vectors (rng × 0.1, one row per position) tell the model where a token sits; switch them on to add them to X.',
    'emb.sentence': 'Sentence', 'emb.pos': 'Add position vectors',
    'emb.tokens': 'word → id',
    'emb.step': '“{word}” has id {id}: row {r} of the one-hot matrix has its 1 in column {id}; times the table, it picks row {id}{plus}, which becomes row {r} of X.',
    'emb.plus': ', plus the vector of position {p}',
    'emb.stepEdited': '“{word}” has id {id}: times the table, its one-hot row picks row {id}{plus}. But row {r} of X was edited by hand in section 3 (the marked cells), so it is no longer that look-up: it holds what you typed.',
  },
});

export const embeddingSection = defineSection({
  id: 'embedding', titleKey: 'emb.title', introKeys: ['emb.intro1', 'emb.intro2'],
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
