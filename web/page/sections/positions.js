// "Positional encoding" (the series' chapter 5). First the problem: self-attention without
// positions, on the sentence and on the sentence reordered (我 love 猫 → 猫 love 我), gives the
// same output rows, only reordered. Then the sinusoidal table as a heat map (its width in the URL
// as ped), and PE(p)·PE(p+k), which depends on the offset k only. Then X = E + PE: the outputs no
// longer merely move. The numbers come from the snapshot (heads-positions.js, positions: the API's
// positionalEncoding and selfAttention); this file lays them out and draws the two pictures.
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { createSignedHeatmap, prefersDarkText } from '../views/signed-heatmap.js';
import { PE_WIDTHS, PE_POSITIONS, PE_OFFSETS, PE_STARTS, PE_BASE } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'pe.title': '位置编码',
    'pe.intro1': '注意力本身不知道词序。打分 qᵢ·kⱼ 只看两个向量，不看它们排在第几；softmax 和加权求和也一样。所以把句子里的词换个顺序，每个词算出来的输出一模一样，只是跟着换了行。先看这个问题，再看原版 Transformer 的解法：给每个位置一个固定的向量 PE(p)，加到词向量上。',
    'pe.intro2': 'PE(p) 的第 2i 和 2i+1 个分量是 sin(p / {base}^(2i/d)) 和 cos(p / {base}^(2i/d))：每一对分量是一个以不同速度转动的指针，前面的转得快，后面的转得慢，所以每个位置都有自己的一组读数。（第 2 节的位置开关加的是随机的、“学出来”式的位置向量，GPT-2 就用这种；这一节用的是原版的正弦表，也就是训练那两节模型里的位置。）',
    'pe.original': '原句：{words}',
    'pe.reordered': '换序：{words}',
    'pe.E': 'E（词向量，不含位置）',
    'pe.Ere': 'E，换序后',
    'pe.O': '输出，不加位置',
    'pe.Ore': '输出，换序后，不加位置',
    'pe.gapPlain': '把换序后的输出按词对回去，最大相差 {gap}：同样的数，只是换了行。',
    'pe.gapPE': '加上位置后，按词对回去最大相差 {gap}：不再只是换行了，同一个词放在不同位置，得到不同的输出。',
    'pe.trivial': '这句话的每个词都一样，换顺序改变不了什么；换一句话看看。',
    'pe.width': '图中位置向量的宽度 d',
    'pe.tableTitle': '正弦位置表：{p} 个位置 × {d} 维（底 {base}）',
    'pe.axes': '每一行是一个位置 p（从上往下 0 到 {last}），每一列是一个维度（从左往右 0 到 {lastDim}）；蓝色为负，橙色为正，白色是 0。',
    'pe.tableLabel': '位置编码表的热力图：{p} 行（位置 0 到 {last}），{d} 列；蓝色为负，橙色为正。左边的列变化快，右边的列几乎不变。',
    'pe.gramTitle': 'PE(p)·PE(q)：{p} × {p}',
    'pe.gramLabel': '位置向量两两点积的热力图：同一条对角线上（q − p 相同）颜色相同。',
    'pe.offsetsLabel': 'PE(p)·PE(p+k)：行是起点 p，列是间隔 k',
    'pe.offsetsNote': '每一列从上到下都一样：PE(p)·PE(p+k) = Σᵢ cos(k / {base}^(2i/d)) 只取决于间隔 k，和起点 p 无关。所以模型能从两个位置向量的点积里读出“相隔多远”。',
    'pe.PE': 'PE（{n} 个位置 × 4）',
    'pe.X': 'X = E + PE',
    'pe.Xre': '换序后的 X = E + PE',
    'pe.Opos': '输出，加了位置',
    'pe.Opos_re': '输出，换序后，加了位置',
    'pe.step0': '原句“{a}”和换了序的“{b}”：两张表是同样的词向量，只是行的顺序不同。',
    'pe.step1': '不加位置时，两句的输出也是同样的几行，只是顺序跟着换了：O[{w}] 在两边都是 [{row}]。{gap}',
    'pe.step2': '正弦位置表：第 p 行是 PE(p)。左边几列像快速旋转的指针，每个位置都不同；越往右转得越慢。',
    'pe.step3': '任意两个位置向量的点积：沿着每条对角线都是同一个值，例如 PE(0)·PE(3) = {a}，PE(11)·PE(14) = {b}。只和间隔 k 有关。',
    'pe.step4': '把 PE 按位置加到词向量上：X = E + PE。换了序以后，“{w}”在第 {p} 位，加上的是 PE({p})，不再是 PE({q})。',
    'pe.step5': '{gap}',
  },
  en: {
    'pe.title': 'Positional encoding',
    'pe.intro1': 'Attention by itself does not know word order. A score qᵢ·kⱼ looks at two vectors, not at where they stand; so do softmax and the weighted sum. Reorder the words of a sentence and every word gets exactly the same output as before, only in another row. First the problem, then the original Transformer’s answer: give every position p a fixed vector PE(p) and add it to the word’s vector.',
    'pe.intro2': 'Components 2i and 2i+1 of PE(p) are sin(p / {base}^(2i/d)) and cos(p / {base}^(2i/d)): each pair is a hand turning at its own speed, the first pairs fast and the last ones slowly, so every position gets its own set of readings. (Section 2’s position switch adds random, “learned-style” position vectors, as GPT-2 does; this section uses the original sine table, which is also what the model in the training sections adds.)',
    'pe.original': 'the sentence: {words}',
    'pe.reordered': 'reordered: {words}',
    'pe.E': 'E (word vectors, no position)',
    'pe.Ere': 'E, reordered',
    'pe.O': 'output, no positions',
    'pe.Ore': 'output, reordered, no positions',
    'pe.gapPlain': 'Matched word for word, the reordered outputs differ by at most {gap}: the same numbers in other rows.',
    'pe.gapPE': 'With positions, matched word for word, they differ by up to {gap}: no longer a reordering; the same word in another place gets another output.',
    'pe.trivial': 'Every word of this sentence is the same, so reordering changes nothing; try another sentence.',
    'pe.width': 'width d of the pictured table',
    'pe.tableTitle': 'The sine table: {p} positions × {d} dimensions (base {base})',
    'pe.axes': 'Each row is a position p (0 to {last}, top to bottom), each column a dimension (0 to {lastDim}, left to right); blue below 0, orange above, white at 0.',
    'pe.tableLabel': 'Heat map of the positional encoding table: {p} rows (positions 0 to {last}), {d} columns; blue below 0, orange above. The columns on the left change fast, those on the right hardly at all.',
    'pe.gramTitle': 'PE(p)·PE(q): {p} × {p}',
    'pe.gramLabel': 'Heat map of the dot products of every two position vectors: every diagonal (the same q − p) has one colour.',
    'pe.offsetsLabel': 'PE(p)·PE(p+k): rows are start positions p, columns offsets k',
    'pe.offsetsNote': 'Every column reads the same from top to bottom: PE(p)·PE(p+k) = Σᵢ cos(k / {base}^(2i/d)) depends on the offset k only, not on where it starts. So a model can read “how far apart” from the dot product of two position vectors.',
    'pe.PE': 'PE ({n} positions × 4)',
    'pe.X': 'X = E + PE',
    'pe.Xre': 'X = E + PE, reordered',
    'pe.Opos': 'output, with positions',
    'pe.Opos_re': 'output, reordered, with positions',
    'pe.step0': '“{a}” and the reordered “{b}”: both tables hold the same word vectors, in a different order of rows.',
    'pe.step1': 'Without positions the two outputs are the same rows too, only reordered: O[{w}] is [{row}] in both. {gap}',
    'pe.step2': 'The sine table: row p is PE(p). The left columns turn like fast hands, different for every position; further right they turn ever more slowly.',
    'pe.step3': 'The dot product of every two position vectors: one value along each diagonal, PE(0)·PE(3) = {a} and PE(11)·PE(14) = {b} for instance. It depends on the offset k only.',
    'pe.step4': 'PE added to the word vectors by position: X = E + PE. Reordered, “{w}” stands at position {p} and gets PE({p}), no longer PE({q}).',
    'pe.step5': '{gap}',
  },
});

const STAGES = ['reorder', 'outputs', 'table', 'offsets', 'add', 'positioned'];

export const positionsSection = defineSection({
  id: 'positions', titleKey: 'pe.title',
  introKeys: ['pe.intro1', ['pe.intro2', () => ({ base: PE_BASE })]],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    let width = ctx.state.get('ped');

    const select = h('select', { class: 'ped-select' }, PE_WIDTHS.map((d) => h('option', { value: String(d), text: String(d), selected: d === width })));
    frame.controls.append(h('label', { class: 'field' }, texts.set(h('span'), 'pe.width'), select));
    events.on(select, 'change', () => {
      width = Number(select.value);
      ctx.setSetting('ped', width);
      drawPictures(snapNow());
    });

    const v = (name, key) => frame.view({ name, label: () => i18n.t(key, { n: snapNow().n }), title: name });
    const E = v('E_words', 'pe.E'), Ere = v('E_re', 'pe.Ere'), O = v('O_plain', 'pe.O'), Ore = v('O_plain_re', 'pe.Ore');
    const PE = v('PE', 'pe.PE'), X = v('X_pos', 'pe.X'), Xre = v('X_pos_re', 'pe.Xre'), Op = v('O_pos', 'pe.Opos'), Opre = v('O_pos_re', 'pe.Opos_re');
    const offsets = frame.view({ name: 'offsets', csv: false, label: () => i18n.t('pe.offsetsLabel'), title: 'PE(p)·PE(p+k)' });
    const head = (cls) => h('h3', { class: `sub-title ${cls}` });
    const originalTitle = head('pe-original'), reorderedTitle = head('pe-reordered');
    const gapPlain = h('p', { class: 'verdict pe-gap-plain' }), gapPE = h('p', { class: 'verdict pe-gap-pe' });
    const problem = h('div', { class: 'pe-part pe-problem' },
      h('div', { class: 'pe-pair' },
        h('div', {}, originalTitle, E.element, O.element),
        h('div', {}, reorderedTitle, Ere.element, Ore.element)),
      gapPlain);
    const table = createSignedHeatmap({ className: 'pe-table' });
    const gram = createSignedHeatmap({ className: 'pe-gram' });
    const tableTitle = head('pe-table-title'), gramTitle = head('pe-gram-title');
    const offsetsNote = h('p', { class: 'note' });
    const axes = h('p', { class: 'note pe-axes' });
    const picture = h('div', { class: 'pe-part pe-picture' }, tableTitle, h('div', { class: 'pe-map-frame' }, table.element), axes);
    const offsetPart = h('div', { class: 'pe-part pe-offsets' }, gramTitle, h('div', { class: 'pe-map-frame square' }, gram.element), offsets.element, offsetsNote);
    const added = h('div', { class: 'pe-part pe-added' }, PE.element,
      h('div', { class: 'pe-pair' }, h('div', {}, X.element, Op.element), h('div', {}, Xre.element, Opre.element)), gapPE);
    frame.stage.append(problem, picture, offsetPart, added);
    const code = codePanel(frame, 'positions');
    const parts = { reorder: problem, outputs: problem, table: picture, offsets: offsetPart, add: added, positioned: added };

    function drawPictures(snap) {
      const { tables } = snap.derived.positions;
      const t = tables[width];
      select.value = String(width);
      const dark = prefersDarkText(frame.element);
      tableTitle.textContent = i18n.t('pe.tableTitle', { p: PE_POSITIONS, d: width, base: PE_BASE });
      table.draw(t.table, { bound: 1, dark, label: i18n.t('pe.tableLabel', { p: PE_POSITIONS, last: PE_POSITIONS - 1, d: width }) });
      axes.textContent = i18n.t('pe.axes', { last: PE_POSITIONS - 1, lastDim: width - 1 });
      gramTitle.textContent = i18n.t('pe.gramTitle', { p: PE_POSITIONS });
      gram.draw(t.gram, { bound: width / 2, dark, label: i18n.t('pe.gramLabel') });
      offsets.update(t.offsets, { rowLabels: PE_STARTS.map((p) => `p = ${p}`), colLabels: PE_OFFSETS.map((k) => `k = ${k}`) });
      offsetsNote.textContent = i18n.t('pe.offsetsNote', { base: PE_BASE });
    }

    function draw(snap) {
      const p = snap.derived.positions;
      originalTitle.textContent = i18n.t('pe.original', { words: snap.words.join(' ') });
      reorderedTitle.textContent = i18n.t('pe.reordered', { words: p.words.join(' ') });
      for (const [view, M, words] of [[E, p.E, snap.words], [Ere, p.Eo, p.words], [O, p.plain, snap.words], [Ore, p.plainOrdered, p.words],
        [X, p.X, snap.words], [Xre, p.Xo, p.words], [Op, p.withPE, snap.words], [Opre, p.withPEOrdered, p.words]]) {
        view.update(M, { rowLabels: words, colLabels: indexLabels(M.cols) });
      }
      PE.update(p.PE, { rowLabels: indexLabels(snap.n).map((k) => `p = ${k}`), colLabels: indexLabels(p.PE.cols) });
      gapPlain.textContent = p.trivial ? i18n.t('pe.trivial') : i18n.t('pe.gapPlain', { gap: p.gapPlain.toFixed(6) });
      gapPE.textContent = p.trivial ? i18n.t('pe.trivial') : i18n.t('pe.gapPE', { gap: fmt(p.gapPE) });
      drawPictures(snap);
      code.draw(snap);
    }

    function render(index) {
      const snap = snapNow();
      const p = snap.derived.positions;
      const stage = STAGES[index];
      for (const el of new Set(Object.values(parts))) el.classList.add('dim');
      parts[stage].classList.remove('dim');
      for (const view of [O, Ore]) view.setHidden(index < 1 ? () => true : null);
      for (const view of [Op, Opre]) view.setHidden(index < 5 ? () => true : null);
      gapPlain.hidden = index < 1;
      gapPE.hidden = index < 5;
      // the word that moved furthest, to say what changes for it
      const moved = p.order.reduce((best, i, q) => (Math.abs(i - q) > Math.abs(p.order[best] - best) ? q : best), 0);
      const w = p.words[moved];
      const t = snap.derived.positions.tables[width];
      const row = p.plain.row(p.order[moved]).map((x) => fmt(x)).join(', ');
      const vars = {
        a: snap.words.join(' '), b: p.words.join(' '), w, row, p: moved, q: p.order[moved],
        gap: index === 1 ? gapPlain.textContent : gapPE.textContent,
      };
      if (stage === 'offsets') Object.assign(vars, { a: fmt(t.gram.get(0, 3)), b: fmt(t.gram.get(11, 14)) });
      return i18n.t(`pe.step${index}`, vars);
    }

    const dark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
    if (dark) events.on(dark, 'change', () => drawPictures(snapNow()));

    return {
      count: () => STAGES.length, initial: STAGES.length - 1, draw, render,
      stage: (index) => STAGES[index],
      setLanguage: () => draw(snapNow()),
    };
  },
});
