// sections/mixing.js: weighting V. Each output row is a mix of V's rows, with that row's attention
// weights as the mixing amounts: O[i] = Σ_j A[i][j] · V[j].
import { h, fmt, fmtTerm } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { MIXING_STRINGS } from './mixing.strings.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { yesNo } from '../shell/quiz.js';
import { codePanel } from '../views/code-panel.js';

addStrings(MIXING_STRINGS);

export const MIXING_QUIZ = [{
  id: 'sign', atStep: 1,
  prompt: (snap, t) => t('quiz.mix.prompt', { w: snap.words[1] }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (snap.output.get(1, 0) > 0 ? 'yes' : 'no'),
  explain: (snap, t) => t('quiz.mix.explain', { w: snap.words[1], value: fmt(snap.output.get(1, 0)),
    terms: snap.words.map((_, j) => `${fmt(snap.derived.mix[1].weights[j])}×${fmtTerm(snap.V.get(j, 0))}`).join(' + ') }),
}];

export const mixingSection = defineSection({
  id: 'mixing', quiz: MIXING_QUIZ, titleKey: 'mix.title', introKeys: ['mix.intro1'],
  setup(frame) {
    const { i18n } = frame;
    const snapNow = () => frame.snap;
    const aView = frame.view({ name: 'A', label: () => (snapNow().scale ? 'A = softmax(S / √d_k)' : 'A = softmax(S)') });
    const vView = frame.view({ name: 'V', label: 'V' });
    const oView = frame.view({ name: 'O', label: 'O = A·V' });
    let shownRow = 0;   // the output row whose terms the last table shows
    const partsView = frame.view({ name: 'mix', csv: false,
      title: () => i18n.t('mix.partsTitle', { word: snapNow().words[shownRow] }),
      label: () => i18n.t('mix.partsLabel', { word: snapNow().words[shownRow] }) });
    frame.stage.append(h('div', { class: 'equation' }, aView.element, h('span', { class: 'op', text: '×' }), vView.element,
      h('span', { class: 'op', text: '=' }), oView.element), h('div', { class: 'equation' }, partsView.element));
    const code = codePanel(frame, 'mixing');

    function render(i) {
      const snap = snapNow();
      const word = snap.words[i];
      const mix = snap.derived.mix[i];
      shownRow = i;
      // the contributions w_ij · V_j, then their sum (the output row) as a last line
      const rows = mix.contributions.rows;
      const table = { rows: rows + 1, cols: mix.contributions.cols, data: new Float32Array((rows + 1) * mix.contributions.cols) };
      table.data.set(mix.contributions.data);
      table.data.set(mix.output, rows * table.cols);
      table.get = (r, c) => table.data[r * table.cols + c];
      const labels = [...snap.words.map((wd, j) => i18n.t('mix.part', { w: fmt(mix.weights[j]), word: wd })), i18n.t('mix.sum', { word })];
      const cols = indexLabels(snap.dk);
      partsView.update(table, { rowLabels: labels, colLabels: cols });
      partsView.highlight(cols.map((_, c) => [rows, c, 'hl-cell']));
      aView.highlight(snap.words.map((_, j) => [i, j, 'hl-row']));
      vView.highlight([]);
      oView.highlight(cols.map((_, c) => [i, c, 'hl-cell']));
      oView.setHidden((r) => r > i);
      const terms = snap.words.map((wd, j) => `${fmt(mix.weights[j])}·V[${wd}]`).join(' + ');
      return i18n.t('mix.step', { word, terms, out: mix.output.map((x) => fmt(x)).join(', ') });
    }
    function draw(snap) {
      aView.update(snap.weights, { rowLabels: snap.words, colLabels: snap.words });
      vView.update(snap.V, { rowLabels: snap.words, colLabels: indexLabels(snap.dk) });
      oView.update(snap.output, { rowLabels: snap.words, colLabels: indexLabels(snap.dk) });
      code.draw(snap);
    }
    return { count: (snap) => snap.n, draw, render };
  },
});
