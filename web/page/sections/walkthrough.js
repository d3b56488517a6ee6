// walkthrough.js: the whole computation in five steps, compact enough for a blog column:
// X → Q, K, V → scores Q·Kᵀ → weights softmax(scores / s) → output weights·V.
// The widget's default section and iframe mode's; not part of the page's story (the page tells
// the same thing at length in the sections embedding to mixing). Same contract as every section (section-shell.js).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { WALKTHROUGH_STRINGS } from './walkthrough.strings.js';
import { defineSection, indexLabels as dims } from '../shell/section-shell.js';
import { codePanel } from '../views/code-panel.js';
import { wordChoices, argmax } from '../shell/quiz.js';

addStrings(WALKTHROUGH_STRINGS);

export const WALK_STAGES = Object.freeze(['X', 'QKV', 'scores', 'weights', 'output']);

/** Which matrices each stage shows, as [input…] → [result…]. */
const LAYOUT = {
  X: [[], ['X']],
  QKV: [['X'], ['Q', 'K', 'V']],
  scores: [['Q', 'K'], ['scores']],
  weights: [['scores'], ['weights']],
  output: [['weights', 'V'], ['output']],
};

/** The last word's row (猫 in the article's sentence): whom does it attend to most? */
const rowOf = (snap) => snap.n - 1;
export const WALKTHROUGH_QUIZ = [{
  id: 'top', atStep: WALK_STAGES.indexOf('weights'),
  prompt: (snap, t) => t('quiz.walk.prompt', { w: snap.words[rowOf(snap)] }),
  choices: (snap) => wordChoices(snap.words),
  answer: (snap) => String(argmax(snap.weights.row(rowOf(snap)))),
  explain(snap, t) {
    const i = rowOf(snap), w = snap.weights.row(i), top = argmax(w);
    return t('quiz.walk.explain', { w: snap.words[i], top: snap.words[top], score: fmt(snap.scores.get(i, top)), weight: fmt(w[top]),
      row: snap.words.map((word, j) => `${word} ${fmt(w[j])}`).join(' · ') });
  },
}];

export const walkthroughSection = defineSection({
  id: 'walkthrough', titleKey: 'walk.title', className: 'qkv-walkthrough', quiz: WALKTHROUGH_QUIZ,
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
