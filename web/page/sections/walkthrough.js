// walkthrough.js: the whole computation in five steps, compact enough for a blog column:
// X → Q, K, V → scores Q·Kᵀ → weights softmax(scores / s) → output weights·V.
// The widget's default section and iframe mode's; not part of the page's story (the page tells
// the same thing at length in sections 2–6). Same contract as every section (section-shell.js).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, indexLabels as dims } from '../shell/section-shell.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'walk.title': '自注意力：从 X 到输出',
    'walk.intro': '一句话“{sentence}”，五步算完一次自注意力。按 ▶ 播放，或用 ← → 单步。',
    'walk.step.X': '第 1 步 · X：每个词是一行 {d} 个数（它的 embedding），X 的形状是 [{n}, {d}]。',
    'walk.step.QKV': '第 2 步 · Q = X·W_Q，K = X·W_K，V = X·W_V：同一个 X 乘三个可学习矩阵，得到查询、键、值三种角色，各是 [{n}, {dk}]。',
    'walk.step.scores': '第 3 步 · 分数 S = Q·Kᵀ：第 i 行第 j 列是词 i 的查询和词 j 的键的点积。“{w}”这一行：{row}。',
    'walk.step.weights': '第 4 步 · 权重 A = softmax(S ÷ {s})，按行计算：每行都是非负数，加起来等于 1。“{w}”分给各词的注意力：{row}。',
    'walk.step.output': '第 5 步 · 输出 O = A·V：每个词的新向量是所有 V 行按权重的加权和。“{w}”的输出：{row}。',
  },
  en: {
    'walk.title': 'Self-attention, from X to the output',
    'walk.intro': 'One sentence, “{sentence}”, and one pass of self-attention in five steps. Press ▶ to play, or step with ← →.',
    'walk.step.X': 'Step 1 · X: each word is a row of {d} numbers (its embedding); X has shape [{n}, {d}].',
    'walk.step.QKV': 'Step 2 · Q = X·W_Q, K = X·W_K, V = X·W_V: one X times three learned matrices gives three roles (query, key, value), each [{n}, {dk}].',
    'walk.step.scores': 'Step 3 · scores S = Q·Kᵀ: row i, column j is the dot product of word i’s query with word j’s key. The row of “{w}”: {row}.',
    'walk.step.weights': 'Step 4 · weights A = softmax(S ÷ {s}), row by row: every row is non-negative and adds up to 1. How “{w}” spreads its attention: {row}.',
    'walk.step.output': 'Step 5 · output O = A·V: each word’s new vector is a weighted sum of all the rows of V. The output of “{w}”: {row}.',
  },
});

export const WALK_STAGES = Object.freeze(['X', 'QKV', 'scores', 'weights', 'output']);

/** Which matrices each stage shows, as [input…] → [result…]. */
const LAYOUT = {
  X: [[], ['X']],
  QKV: [['X'], ['Q', 'K', 'V']],
  scores: [['Q', 'K'], ['scores']],
  weights: [['scores'], ['weights']],
  output: [['weights', 'V'], ['output']],
};

export const walkthroughSection = defineSection({
  id: 'walkthrough', titleKey: 'walk.title', className: 'qkv-walkthrough',
  setup(frame) {
    const { texts } = frame;
    const snapNow = () => frame.snap;
    const intro = texts.set(h('p'), 'walk.intro', () => ({ sentence: snapNow().words.join(' ') }));
    frame.intro.append(intro);

    const labels = {
      X: 'X', Q: 'Q', K: 'K', V: 'V', scores: 'S = Q·Kᵀ',
      weights: () => (snapNow().divisor === 1 ? 'A = softmax(S)' : 'A = softmax(S / √d_k)'), output: 'O = A·V',
    };
    const titles = { scores: 'S', weights: 'A', output: 'O' };   // the letters the page uses
    const views = {};
    for (const name of Object.keys(labels)) {
      views[name] = frame.view({ name, title: titles[name] || name, label: labels[name], csv: false, className: `walk-${name}` });
    }
    const code = codePanel(frame, 'walkthrough');
    const flow = h('div', { class: 'walk-flow' });
    const arrow = h('span', { class: 'op walk-arrow', attrs: { 'aria-hidden': 'true' } });
    frame.stage.append(flow);

    // Inputs → results side by side when both fit the column, else stacked with ↓ between them.
    // Decided from the tables' own widths, which do not depend on the choice, so it never flips.
    const GAP = 14;
    function layout() {
      const groups = [...flow.querySelectorAll('.walk-group')];
      let stacked = false;
      if (groups.length === 2) {
        const widths = groups.map((g) => [...g.children].reduce((sum, el) => sum + el.offsetWidth, 0) + 12 * (g.children.length - 1));
        stacked = widths[0] + widths[1] + arrow.offsetWidth + 2 * GAP > flow.clientWidth;
      }
      flow.classList.toggle('stacked', stacked);
      arrow.textContent = stacked ? '↓' : '→';
    }
    const resizes = typeof ResizeObserver === 'function' ? new ResizeObserver(() => layout()) : null;
    if (resizes) resizes.observe(flow);

    function draw(snap) {
      const words = snap.words;
      views.X.update(snap.X, { rowLabels: words, colLabels: dims(snap.d) });
      for (const m of ['Q', 'K', 'V']) views[m].update(snap[m], { rowLabels: words, colLabels: dims(snap.dk) });
      for (const m of ['scores', 'weights']) views[m].update(snap[m], { rowLabels: words, colLabels: words });
      views.output.update(snap.output, { rowLabels: words, colLabels: dims(snap.dk) });
      code.draw(snap);
      texts.refresh();
    }

    function render(index) {
      const snap = snapNow();
      const stage = WALK_STAGES[index];
      const [inputs, results] = LAYOUT[stage];
      clear(flow);
      const group = (names, cls) => h('div', { class: `walk-group ${cls}` }, names.map((n) => views[n].element));
      if (inputs.length) flow.append(group(inputs, 'walk-inputs dim'), arrow);
      flow.append(group(results, 'walk-results'));
      layout();
      frame.element.dataset.stage = stage;
      const first = (m) => snap.words.map((w, j) => `${w} ${fmt(m.get(0, j))}`).join(' · ');
      const vars = { n: snap.n, d: snap.d, dk: snap.dk, w: snap.words[0], s: snap.divisor === 1 ? '1' : `√${snap.dk}` };
      if (stage === 'scores') vars.row = first(snap.scores);
      if (stage === 'weights') vars.row = first(snap.weights);
      if (stage === 'output') vars.row = snap.output.row(0).map((x) => fmt(x)).join(', ');
      return frame.i18n.t(`walk.step.${stage}`, vars);
    }

    return {
      count: () => WALK_STAGES.length, draw, render, stage: (index) => WALK_STAGES[index],
      destroy: () => resizes && resizes.disconnect(),
    };
  },
});
