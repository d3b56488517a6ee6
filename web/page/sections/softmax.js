// sections/softmax.js: softmax by rows. Each row of scores becomes a row of weights (a bar chart per row)
// that sums to 1. A switch divides the scores by √d_k first; why that matters as d_k grows is the
// section "Why divide by √d_k" (scaling.js).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { SOFTMAX_STRINGS } from './softmax.strings.js';
import { defineSection, toggle, bars } from '../shell/section-shell.js';
import { createSoftmaxWhole } from '../views/softmax-whole.js';
import { codePanel } from '../views/code-panel.js';

addStrings(SOFTMAX_STRINGS);

/**
 * The last row (猫's in the article's sentence), asked before step n converts it: the compare note
 * shows row 1 and the written-out softmax the row before, so nothing on screen gives it away.
 */
const last = (snap) => snap.n - 1;
export const SOFTMAX_QUIZ = [{
  id: 'cell', atStep: (snap) => snap.n, numeric: { tolerance: 0.01, digits: 2 },
  prompt: (snap, t) => t('quiz.softmax.prompt', { a: snap.words[last(snap)], b: snap.words[0] }),
  answer: (snap) => snap.weights.get(last(snap), 0),
  explain: (snap, t) => t('quiz.softmax.explain', { a: snap.words[last(snap)], b: snap.words[0],
    z: fmt(snap.scores.get(last(snap), 0) / snap.divisor), value: fmt(snap.weights.get(last(snap), 0)),
    div: snap.divisor === 1 ? '1' : `√${snap.dk}`, row: snap.weights.row(last(snap)).map((x) => fmt(x)).join(' ') }),
}];

export const softmaxSection = defineSection({
  id: 'softmax', quiz: SOFTMAX_QUIZ, titleKey: 'softmax.title',
  properties: [{ name: 'temp', type: 'number', min: 0.1, max: 10, default: 1 }],   // the softmax temperature T
  introKeys: ['softmax.intro1', ['softmax.intro2', (snap) => ({ dk: snap.dk, root: Math.sqrt(snap.dk).toFixed(3) })]],
  choices: ['temp'],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const scaleSwitch = toggle(texts, 'softmax.scale', snapNow().scale, (on) => ctx.setSetting('scale', on), events);
    scaleSwitch.input.classList.add('scale-switch');
    frame.controls.append(scaleSwitch.element);

    const sView = frame.view({ name: 'S', label: 'S = Q·Kᵀ' });
    const wView = frame.view({ name: 'A', label: () => (snapNow().scale ? 'A = softmax(S / √d_k)' : 'A = softmax(S)') });
    const cards = h('div', { class: 'cards' });
    const compare = h('p', { class: 'note compare num' });
    // the softmax of the current row, written out (exp, total, division), with a temperature
    const whole = createSoftmaxWhole({ i18n, events, onTemperature: (t) => ctx.setSetting('temp', t) });
    frame.stage.append(h('div', { class: 'equation' }, sView.element, h('span', { class: 'op', text: '→' }), wView.element), cards, compare, whole.element);

    const code = codePanel(frame, 'softmax');

    function draw(snap) {
      sView.update(snap.scores, { rowLabels: snap.words, colLabels: snap.words });
      wView.update(snap.weights, { rowLabels: snap.words, colLabels: snap.words });
      scaleSwitch.input.checked = snap.scale;
      compare.textContent = i18n.t('softmax.compare', {
        a: snap.weightsUnscaled.row(0).map((x) => fmt(x)).join(' '),
        b: snap.weightsScaled.row(0).map((x) => fmt(x)).join(' '),
      });
      code.draw(snap);
    }

    function render(index, { animate }) {
      const snap = snapNow();
      const sums = snap.derived.rowSums;
      const shown = index;              // rows 0 … shown-1 converted
      wView.setHidden((i) => i >= shown);
      clear(cards);
      snap.words.forEach((word, i) => {
        const done = i < shown;
        const w = snap.weights.row(i);
        cards.append(h('div', { class: `card${i === shown - 1 ? ' active' : ''}${done ? '' : ' pending'}` },
          h('h3', { text: i18n.t('softmax.rowTitle', { word }) }),
          bars(snap.words, done ? w : w.map(() => 0), { fmt: done ? fmt : () => '·', cls: animate ? 'grow' : '' }),
          h('p', { class: 'sum num', text: done ? i18n.t('softmax.sum', { sum: fmt(sums[i]) }) : '' })));
      });
      whole.draw(snap, Math.max(0, index - 1));
      sView.highlight(index > 0 ? snap.words.map((_, j) => [index - 1, j, 'hl-row']) : []);
      wView.highlight(index > 0 ? snap.words.map((_, j) => [index - 1, j, 'hl-row']) : []);
      if (index === 0) return i18n.t('softmax.step0');
      const i = index - 1;
      const w = snap.weights.row(i);
      const top = w.indexOf(Math.max(...w));
      return i18n.t('softmax.stepRow', { r: index, word: snap.words[i], div: i18n.t(snap.scale ? 'softmax.divScaled' : 'softmax.divNone', { dk: snap.dk }),
        weights: w.map((x) => fmt(x)).join(' '), sum: fmt(sums[i]), top: snap.words[top] });
    }

    return {
      count: (snap) => 1 + snap.n, draw, render,
      setLanguage: () => draw(snapNow()),
    };
  },
});
