// sections/projections.js: Q, K, V from X. X·W_Q → Q built cell by cell: the row of X and the column of W_Q
// light up, the products and their running sum appear, the cell fills; then K, then V.
// The reader can change the seed or edit any cell of X or W; everything downstream recomputes.
import { h, clear, fmt, fmtTerm } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { PROJECTIONS_STRINGS } from './projections.strings.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { yesNo } from '../shell/quiz.js';
import { column, D_K_CHOICES } from '../models/attention.js';
import { editsNote } from '../views/edits-note.js';
import { codePanel } from '../views/code-panel.js';

addStrings(PROJECTIONS_STRINGS);

const TARGETS = [
  { M: 'Q', W: 'Wq', label: 'W_Q' },
  { M: 'K', W: 'Wk', label: 'W_K' },
  { M: 'V', W: 'Wv', label: 'W_V' },
];

/** x_i · W[:, c] written out, from the snapshot's term-by-term products. */
const termsOf = (cell) => cell.a.map((a, k) => `${fmtTerm(a)}×${fmtTerm(cell.b[k])}`).join(' + ');
export const PROJECTIONS_QUIZ = [{
  id: 'sign', atStep: 1,
  prompt: (snap, t) => t('quiz.proj.prompt', { w: snap.words[0] }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (snap.Q.get(0, 0) > 0 ? 'yes' : 'no'),
  explain: (snap, t) => t('quiz.proj.explain', { w: snap.words[0], terms: termsOf(snap.derived.projections[0].rows[0].cell(0)), value: fmt(snap.Q.get(0, 0)) }),
}];

export const projectionsSection = defineSection({
  id: 'projections', quiz: PROJECTIONS_QUIZ, titleKey: 'proj.title', introKeys: ['proj.intro1', ['proj.intro2', (snap) => ({ dk: snap.dk })]],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;

    // controls: seed, new seed, undo edits
    const seedInput = h('input', { class: 'seed-input', attrs: { type: 'text', inputmode: 'numeric', 'aria-describedby': 'proj-seed-msg', maxlength: '12' }, value: String(snapNow().seed) });
    const seedMsg = h('span', { class: 'inline-message', attrs: { 'aria-live': 'polite' } });
    seedMsg.id = 'proj-seed-msg';
    const newSeed = texts.set(h('button', { attrs: { type: 'button' } }), 'proj.newSeed');
    const resetEdits = texts.set(h('button', { attrs: { type: 'button' } }), 'proj.resetEdits');
    frame.controls.append(
      h('label', { class: 'field' }, texts.set(h('span'), 'proj.seed'), seedInput), newSeed, resetEdits, seedMsg);
    events.on(seedInput, 'change', () => {
      const text = seedInput.value.trim();
      const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
      if (!ctx.setSetting('seed', n)) {
        seedMsg.textContent = i18n.t('proj.seedBad', { seed: snapNow().seed });
        seedInput.setAttribute('aria-invalid', 'true');
        seedInput.value = String(snapNow().seed);
      } else {
        seedMsg.textContent = '';
        seedInput.removeAttribute('aria-invalid');
      }
    });
    events.on(newSeed, 'click', () => { seedMsg.textContent = ''; seedInput.removeAttribute('aria-invalid'); ctx.setSetting('seed', Math.floor(Math.random() * 100000)); });
    events.on(resetEdits, 'click', () => ctx.resetEdits());
    // d_k: the width of every W, so of Q, K, V and the output; a snapshot setting (the link keeps it)
    const dkSelect = h('select', { class: 'dk-choice' }, D_K_CHOICES.map((v) => h('option', { value: String(v), text: String(v) })));
    dkSelect.value = String(snapNow().dk);
    events.on(dkSelect, 'change', () => ctx.setSetting('dk', Number(dkSelect.value)));
    frame.controls.append(h('label', { class: 'field' }, texts.set(h('span'), 'proj.dk'), dkSelect),
      texts.set(h('p', { class: 'note dk-note' }), 'proj.dkNote'));
    const note = editsNote(frame);
    const code = codePanel(frame, 'projections');
    frame.controls.append(note.element);

    // the equation: X · W = M, with tabs choosing which of the three
    const cellsPer = () => snapNow().n * snapNow().dk;
    const tabs = h('div', { class: 'tabs', attrs: { role: 'group' } });
    const tabButtons = TARGETS.map((target, m) => {
      const b = h('button', { class: 'tab', attrs: { type: 'button' }, text: `${target.M} = X·${target.label}` });
      events.on(b, 'click', () => frame.stepper.go(1 + m * cellsPer()));
      tabs.append(b);
      return b;
    });
    const xView = frame.view({ name: 'X', label: 'X', editable: true, onEdit: (i, j, v) => ctx.edit('X', i, j, v) });
    const wViews = TARGETS.map((t) => frame.view({ name: t.label, label: t.label, editable: true, onEdit: (i, j, v) => ctx.edit(t.W, i, j, v) }));
    const mViews = TARGETS.map((t) => frame.view({ name: t.M, label: t.M }));
    const wSlot = h('div', { class: 'slot' });
    const mSlot = h('div', { class: 'slot' });
    const terms = h('div', { class: 'terms', attrs: { 'aria-hidden': 'true' } });
    const oneHotNote = h('p', { class: 'note one-hot-note' });
    frame.stage.append(tabs,
      h('div', { class: 'equation' }, xView.element, h('span', { class: 'op', text: '×' }), wSlot, h('span', { class: 'op', text: '=' }), mSlot),
      terms, oneHotNote);

    // with one-hot rows, X·W just copies rows of W: say it, for exactly the rows where it holds
    function drawOneHotNote(snap) {
      const picks = snap.derived.oneHot;
      const words = (list) => `“${list.join(i18n.lang === 'zh' ? '”、“' : '”, “')}”`;
      const hot = snap.words.filter((_, i) => picks[i] >= 0);
      const cold = snap.words.filter((_, i) => picks[i] < 0);
      if (!hot.length) {
        oneHotNote.textContent = i18n.t('proj.noOneHot', { why: i18n.t(snap.pos ? 'proj.noOneHotPos' : 'proj.noOneHotWords') });
        return;
      }
      const list = snap.words.flatMap((word, i) => (picks[i] >= 0 ? [i18n.t('proj.pick', { word, k: picks[i] })] : []));
      oneHotNote.textContent = i18n.t('proj.oneHot', {
        rows: words(hot), picks: list.join(i18n.lang === 'zh' ? '，' : ', '),
        others: cold.length ? i18n.t('proj.oneHotOthers', { rows: words(cold) }) : '',
      }).trim();
    }

    let shownTarget = -1;
    function render(index, { animate }) {
      const snap = snapNow();
      const per = cellsPer();
      const m = index === 0 ? 0 : Math.min(2, Math.floor((index - 1) / per));
      const k = index === 0 ? -1 : (index - 1) - m * per;     // cell within matrix m, -1 = none yet
      if (m !== shownTarget) {
        clear(wSlot).append(wViews[m].element);
        clear(mSlot).append(mViews[m].element);
        shownTarget = m;
      }
      tabButtons.forEach((b, t) => b.setAttribute('aria-pressed', String(t === m)));
      const target = TARGETS[m];
      mViews[m].setHidden((i, j) => i * snap.dk + j > k);
      clear(terms);
      if (k < 0) {
        xView.highlight([]); wViews[m].highlight([]); mViews[m].highlight([]);
        return i18n.t('proj.start', { n: snap.n, dk: snap.dk });
      }
      const i = Math.floor(k / snap.dk), j = k % snap.dk;
      xView.highlight(snap.X.row(i).map((_, c) => [i, c, 'hl-row']));
      wViews[m].highlight(column(snap[target.W], j).map((_, r) => [r, j, 'hl-col']));
      mViews[m].highlight([[i, j, 'hl-cell']]);
      const dot = snap.derived.projections[m].rows[i].cell(j);
      const value = snap[target.M].get(i, j);
      terms.append(h('p', { class: 'terms-head', text: i18n.t('proj.termsHead') }));
      const list = h('ol', { class: `term-list${animate ? ' animate' : ''}` });
      dot.products.forEach((p, c) => {
        list.append(h('li', { style: `--i:${c}` },
          h('span', { class: 'num', text: `${fmtTerm(dot.a[c])} × ${fmtTerm(dot.b[c])} = ${fmt(p)}` }),
          h('span', { class: 'running num', text: `${i18n.t('proj.running')} ${fmt(dot.running[c])}` })));
      });
      terms.append(list, h('p', { class: 'terms-result num', text: `${target.M}[${snap.words[i]}][${j}] = ${fmt(value)}` }));
      const last = m === 2 && k === per - 1;
      const hot = snap.derived.oneHot[i];
      const sentence = i18n.t('proj.cell', { M: target.M, row: snap.words[i], col: j, W: target.label, sum: fmt(value) }) +
        (hot >= 0 ? i18n.t('proj.cellOneHot', { W: target.label, k: hot, col: j }) : '');
      return last ? `${sentence} ${i18n.t('proj.doneAll')}` : sentence;
    }

    function draw(snap) {
      const labels = { rowLabels: snap.words, colLabels: indexLabels(snap.d) };
      xView.update(snap.X, labels);
      TARGETS.forEach((t, m) => {
        wViews[m].update(snap[t.W], { rowLabels: indexLabels(snap.d), colLabels: indexLabels(snap.dk) });
        mViews[m].update(snap[t.M], { rowLabels: snap.words, colLabels: indexLabels(snap.dk) });
      });
      seedInput.value = String(snap.seed);
      dkSelect.value = String(snap.dk);
      resetEdits.disabled = Object.keys(snap.edited).length === 0;
      const marks = (m) => {
        const cells = snap.edited[m] || [];
        return cells.length ? (i, j) => cells.some(([a, b]) => a === i && b === j) : null;
      };
      xView.setMarked(marks('X'));
      TARGETS.forEach((t, m) => wViews[m].setMarked(marks(t.W)));
      note.draw(snap);
      drawOneHotNote(snap);
      code.draw(snap);
    }

    return {
      count: (snap) => 1 + 3 * snap.n * snap.dk, draw, render,
      setLanguage: () => { note.refresh(); drawOneHotNote(snapNow()); },
    };
  },
});
