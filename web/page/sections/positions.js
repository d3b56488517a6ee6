// "Positional encoding" (the series' chapter 5). First the problem: self-attention without
// positions, on the sentence and on the sentence reordered (我 love 猫 → 猫 love 我), gives the
// same output rows, only reordered. Then the sinusoidal table as a heat map (its width in the URL
// as ped), and PE(p)·PE(p+k), which depends on the offset k only. Then X = E + PE: the outputs no
// longer merely move. The numbers come from the snapshot (heads-positions.js, positions: the API's
// positionalEncoding and selfAttention); this file lays them out and draws the two pictures.
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { POSITIONS_STRINGS } from './positions.strings.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { yesNo } from '../shell/quiz.js';
import { createSignedHeatmap, prefersDarkText } from '../views/signed-heatmap.js';
import { PE_WIDTHS, DEFAULT_PE_WIDTH, PE_POSITIONS, PE_OFFSETS, PE_STARTS, PE_BASE } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings(POSITIONS_STRINGS);

const STAGES = ['reorder', 'outputs', 'table', 'offsets', 'add', 'positioned'];

/** A difference below this is float32 rounding (the same sums in another order), not a change. */
const CHANGED = 1e-5;
const gapText = (x) => (x === 0 ? '0' : x.toExponential(1));
export const POSITIONS_QUIZ = [{
  id: 'plain', atStep: STAGES.indexOf('outputs'), when: (snap) => !snap.derived.positions.trivial,
  prompt: (snap, t) => t('quiz.pos.prompt', { order: snap.derived.positions.words.join(' ') }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (snap.derived.positions.gapPlain > CHANGED ? 'yes' : 'no'),
  explain: (snap, t) => t('quiz.pos.explain', { gap: gapText(snap.derived.positions.gapPlain) }),
}, {
  id: 'positioned', atStep: STAGES.indexOf('positioned'), when: (snap) => !snap.derived.positions.trivial,
  prompt: (snap, t) => t('quiz.pos.prompt2', { order: snap.derived.positions.words.join(' ') }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (snap.derived.positions.gapPE > CHANGED ? 'yes' : 'no'),
  explain: (snap, t) => t('quiz.pos.explain2', { gap: fmt(snap.derived.positions.gapPE) }),
}];

export const positionsSection = defineSection({
  id: 'positions', quiz: POSITIONS_QUIZ, titleKey: 'pe.title',
  properties: [{ name: 'ped', type: 'int', min: 4, max: 128, values: PE_WIDTHS, default: DEFAULT_PE_WIDTH }],   // the sine table's width
  introKeys: ['pe.intro1', ['pe.intro2', () => ({ base: PE_BASE })]],
  choices: ['ped'],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const widthOf = (snap) => snap.choices.ped;

    const select = h('select', { class: 'ped-select' }, PE_WIDTHS.map((d) => h('option', { value: String(d), text: String(d), selected: d === widthOf(snapNow()) })));
    frame.controls.append(h('label', { class: 'field' }, texts.set(h('span'), 'pe.width'), select));
    // the width comes back as a new snapshot, which draw() takes
    events.on(select, 'change', () => ctx.setSetting('ped', Number(select.value)));

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
      const width = widthOf(snap);
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
      const t = snap.derived.positions.tables[widthOf(snap)];
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
      count: () => STAGES.length, draw, render,
      stage: (index) => STAGES[index],
      setLanguage: () => draw(snapNow()),
    };
  },
});
