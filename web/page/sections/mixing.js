// Section 6: weighting V. Each output row is a mix of V's rows, with that row's attention
// weights as the mixing amounts: O[i] = Σ_j A[i][j] · V[j].
import { h, clear, fmt, listeners } from '../dom.js';
import { addStrings } from '../i18n.js';
import { createShell } from '../section-shell.js';
import { createMatrixView } from '../matrix-view.js';
import { mixRow } from '../attention-model.js';

addStrings({
  zh: {
    'mix.title': '按权重取 V：加权求和',
    'mix.intro1': '最后一步：O = A·V。输出的第 i 行是 V 各行的混合，混合的比例就是第 i 行的注意力权重。所以每个词的新表示里，都按比例掺进了全句其他词的内容。输出仍是 [n, d_k]：词的个数不变，只改写每个词的表示。',
    'mix.part': '{w} × V[{word}]',
    'mix.sum': '合计 = O[{word}]',
    'mix.step': 'O[{word}] = {terms} = [{out}]',
  },
  en: {
    'mix.title': 'Weighting V: the weighted sum',
    'mix.intro1': 'The last step: O = A·V. Row i of the output is a mix of V’s rows, and the mixing amounts are row i of the attention weights. So each token’s new representation carries a share of every other token’s content. The output is still [n, d_k]: as many tokens as before, each one rewritten.',
    'mix.part': '{w} × V[{word}]',
    'mix.sum': 'total = O[{word}]',
    'mix.step': 'O[{word}] = {terms} = [{out}]',
  },
});

export function createMixingSection(ctx) {
  const { i18n, qkv } = ctx;
  const events = listeners();
  const shell = createShell({ id: 'mixing', i18n, titleKey: 'mix.title', introKeys: ['mix.intro1'] });
  const { texts } = shell;
  let snap = ctx.getSnapshot();
  const aView = createMatrixView({ i18n, name: 'A', label: 'A' });
  const vView = createMatrixView({ i18n, name: 'V', label: 'V' });
  const oView = createMatrixView({ i18n, name: 'O', label: 'O = A·V' });
  const partsView = createMatrixView({ i18n, name: 'mix', label: '', csv: false });
  shell.stage.append(h('div', { class: 'equation' }, aView.element, h('span', { class: 'op', text: '×' }), vView.element,
    h('span', { class: 'op', text: '=' }), oView.element), h('div', { class: 'equation' }, partsView.element));

  function render(index) {
    const i = index;
    const word = snap.words[i];
    const mix = mixRow(qkv, snap.weights, snap.V, i);
    // the contributions w_ij · V_j, then their sum (the output row) as a last line
    const rows = mix.contributions.rows;
    const table = { rows: rows + 1, cols: mix.contributions.cols, data: new Float32Array((rows + 1) * mix.contributions.cols) };
    table.data.set(mix.contributions.data);
    table.data.set(mix.output, rows * table.cols);
    table.get = (r, c) => table.data[r * table.cols + c];
    const labels = [...snap.words.map((wd, j) => i18n.t('mix.part', { w: fmt(mix.weights[j]), word: wd })), i18n.t('mix.sum', { word })];
    partsView.update(table, { rowLabels: labels, colLabels: ['0', '1', '2'] });
    partsView.highlight([0, 1, 2].map((c) => [rows, c, 'hl-cell']));
    aView.highlight(snap.words.map((_, j) => [i, j, 'hl-row']));
    vView.highlight([]);
    oView.highlight([0, 1, 2].map((c) => [i, c, 'hl-cell']));
    oView.setHidden((r) => r > i);
    const terms = snap.words.map((wd, j) => `${fmt(mix.weights[j])}·V[${wd}]`).join(' + ');
    return i18n.t('mix.step', { word, terms, out: mix.output.map((x) => fmt(x)).join(', ') });
  }
  function draw() {
    aView.update(snap.weights, { rowLabels: snap.words, colLabels: snap.words });
    aView.element.querySelector('caption').textContent = snap.scale ? 'A = softmax(S / √d_k)' : 'A = softmax(S)';
    vView.update(snap.V, { rowLabels: snap.words, colLabels: ['0', '1', '2'] });
    oView.update(snap.output, { rowLabels: snap.words, colLabels: ['0', '1', '2'] });
  }
  draw();
  const stepper = shell.addStepper({ count: snap.n, render });
  return {
    id: 'mixing', element: shell.element, stepper,
    update(next) { snap = next; draw(); stepper.setCount(snap.n, stepper.index); },
    setLanguage() { texts.refresh(); for (const v of [aView, vView, oView, partsView]) v.refresh(); draw(); stepper.refresh(); },
    destroy() { stepper.destroy(); for (const v of [aView, vView, oView, partsView]) v.destroy(); events.off(); },
  };
}
