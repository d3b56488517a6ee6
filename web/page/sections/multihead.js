// "Multi-head attention" (the series' chapter 4): the sentence's X projected to Q, K, V of width
// 12, cut into H heads (the reader picks 1 … 4; heads in the URL), each head's own Q, K and V
// slice and its attention as a heat map, side by side; then the heads' outputs side by side
// (concat) and W_O. The parameter count is the same for every H. The numbers come from the
// snapshot (heads-positions.js, multiHead: the API's multiHeadAttention for each H).
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { MULTIHEAD_STRINGS } from './multihead.strings.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { createHeatTable } from '../views/heat-table.js';
import { HEAD_COUNTS, DEFAULT_HEADS, D_MODEL_HEADS } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings(MULTIHEAD_STRINGS);

/** Each head's strongest attention for every token: [[row, column], …]. */
function tops(weights) {
  return Array.from({ length: weights.rows }, (_, i) => {
    const row = weights.row(i);
    return row.indexOf(Math.max(...row));
  });
}

/** Asked before the concatenation (step H + 1); H is the reader's choice of heads. */
const headsChosen = (snap) => snap.choices.heads;
export const MULTIHEAD_QUIZ = [{
  id: 'concat', atStep: (snap) => headsChosen(snap) + 1, numeric: { tolerance: 0, digits: 0, integer: true },
  prompt: (snap, t) => t('quiz.mh.prompt', { H: headsChosen(snap) }),
  answer: (snap) => snap.derived.multiHead.byHeads[headsChosen(snap)].concat.cols,
  explain(snap, t) {
    const H = headsChosen(snap), r = snap.derived.multiHead.byHeads[H];
    return t('quiz.mh.explain', { H, w: r.heads[0].output.cols, cols: r.concat.cols });
  },
}];

export const multiheadSection = defineSection({
  id: 'multihead', quiz: MULTIHEAD_QUIZ, titleKey: 'mh.title',
  properties: [{ name: 'heads', type: 'int', min: 1, max: 4, values: HEAD_COUNTS, default: DEFAULT_HEADS }],   // H (the data flow shows it too)
  introKeys: ['mh.intro1', ['mh.intro2', (snap) => ({ n: snap.n, seed: snap.seed })]],
  choices: ['heads'],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const headsOf = (snap) => snap.choices.heads;

    // the head count: radio buttons (one Tab stop, arrows move), in the URL as heads
    const name = `${frame.id}-heads`;
    const radios = HEAD_COUNTS.map((count) => {
      const input = h('input', { attrs: { type: 'radio', name, value: String(count) }, checked: count === headsOf(snapNow()) });
      const label = h('span');
      // the choice comes back as a new snapshot: draw() and stepAfter() below take it from there
      events.on(input, 'change', () => { if (input.checked) ctx.setSetting('heads', count); });
      return { input, label, element: h('label', { class: 'heads-choice' }, input, label) };
    });
    const legend = texts.set(h('legend'), 'mh.heads');
    frame.controls.append(h('fieldset', { class: 'heads-picker' }, legend, radios.map((r) => r.element)));

    const qkvViews = ['Q', 'K', 'V'].map((m) => frame.view({ name: `${m}h`, title: m, label: () => i18n.t(`mh.${m}`) }));
    const projections = h('div', { class: 'equation mh-projections' }, qkvViews.map((v) => v.element));
    const headsRow = h('div', { class: 'mh-heads' });
    const concatView = frame.view({ name: 'concat', label: () => i18n.t('mh.concat') });
    const yView = frame.view({ name: 'Y', label: () => i18n.t('mh.Y') });
    const merge = h('div', { class: 'equation mh-merge' }, concatView.element, h('span', { class: 'op', text: '·W_O →' }), yView.element);
    const params = h('p', { class: 'note mh-params' });
    const verdict = h('p', { class: 'verdict mh-verdict' });
    frame.stage.append(projections, headsRow, verdict, merge, params);
    const code = codePanel(frame, 'multihead');

    const result = (snap) => snap.derived.multiHead.byHeads[headsOf(snap)];
    const dk = () => D_MODEL_HEADS / headsOf(snapNow());
    const columnTint = (rows) => {
      const list = [];
      for (let i = 0; i < rows; i++) for (let j = 0; j < D_MODEL_HEADS; j++) list.push([i, j, `head-${Math.floor(j / dk())}`]);
      return list;
    };
    // a card per head, as many as the most heads offered; the first H are in the document
    const headParts = Array.from({ length: Math.max(...HEAD_COUNTS) }, (_, k) => {
      const views = ['Q', 'K', 'V'].map((m) => frame.view({ name: `${m}${k}`, title: `${m}_${k}`, label: `${m}_${k}`, csv: false }));
      const heat = createHeatTable({ caption: () => i18n.t('mh.headWeights', { h: k, dk: dk() }), causal: false, className: `head-${k}` });
      heat.element.dataset.matrix = `A${k}`;
      const title = h('h3');
      const card = h('div', { class: `card mh-head head-${k}` }, title, h('div', { class: 'mh-slices' }, views.map((v) => v.element)), heat.element);
      return { card, title, views, heat };
    });

    function draw(snap) {
      const res = result(snap);
      const H = headsOf(snap);
      radios.forEach((r, k) => {
        r.input.checked = HEAD_COUNTS[k] === H;
        r.label.textContent = i18n.t(HEAD_COUNTS[k] === 1 ? 'mh.headsOne' : 'mh.headsOption', { h: HEAD_COUNTS[k], dk: D_MODEL_HEADS / HEAD_COUNTS[k] });
      });
      const mh = snap.derived.multiHead;
      [mh.Q, mh.K, mh.V].forEach((M, m) => {
        qkvViews[m].update(M, { rowLabels: snap.words, colLabels: indexLabels(D_MODEL_HEADS) });
        qkvViews[m].highlight(columnTint(snap.n));
      });
      // only the first H cards are in the document (the others would be empty tables)
      headsRow.replaceChildren(...headParts.slice(0, H).map((part) => part.card));
      res.heads.forEach((head, k) => {
        const part = headParts[k];
        part.title.textContent = i18n.t('mh.headTitle', { h: k, a: k * dk(), b: (k + 1) * dk() - 1, dk: dk() });
        const cols = indexLabels(dk()).map((c) => String(k * dk() + Number(c)));
        part.views.forEach((v, m) => v.update([head.Q, head.K, head.V][m], { rowLabels: snap.words, colLabels: cols }));
        part.heat.update(head.weights, snap.words, snap.words);
      });
      concatView.update(res.concat, { rowLabels: snap.words, colLabels: indexLabels(D_MODEL_HEADS) });
      concatView.highlight(columnTint(snap.n));
      yView.update(res.output, { rowLabels: snap.words, colLabels: indexLabels(res.output.cols) });
      const { projections: proj, output: out } = mh.params;
      params.textContent = i18n.t('mh.params', { proj, out, total: proj + out });
      // in how many rows the heads' largest weights fall on different tokens (untrained: chance, and said so)
      const top = res.heads.map((head) => tops(head.weights));
      const differ = top[0].filter((_, i) => new Set(top.map((t) => t[i])).size > 1).length;
      verdict.textContent = H > 1 ? i18n.t(differ ? 'mh.differ' : 'mh.same', { d: differ, n: top[0].length }) : '';
      code.draw(snap, { heads: H });
    }

    function render(index) {
      const snap = snapNow();
      const res = result(snap);
      const H = headsOf(snap);
      const stage = index === 0 ? 'project' : index <= H ? 'head' : index === H + 1 ? 'concat' : 'output';
      projections.classList.toggle('dim', index !== 0);
      headParts.forEach((part, k) => part.card.classList.toggle('pending', stage === 'head' ? k !== index - 1 : stage === 'project'));
      merge.classList.toggle('dim', index <= H);
      // the quiz asks for the concatenation's width before its step: its table (and Y's) wait
      merge.classList.toggle('quiz-waits', frame.quizHides('concat'));
      yView.setHidden(index <= H + 1 ? () => true : null);
      params.classList.toggle('dim', index !== H + 2);
      const vars = { n: snap.n, H, dk: dk() };
      if (stage === 'project') return i18n.t(H === 1 ? 'mh.step0one' : 'mh.step0', vars);
      if (stage === 'head') {
        const k = index - 1;
        const list = tops(res.heads[k].weights).map((j, i) => `${snap.words[i]} → ${snap.words[j]} (${fmt(res.heads[k].weights.get(i, j))})`).join(', ');
        return i18n.t('mh.stepHead', { h: k, a: k * dk(), b: (k + 1) * dk() - 1, dk: dk(), tops: i18n.t('mh.tops', { list }) });
      }
      if (stage === 'concat') return i18n.t('mh.stepConcat', vars);
      const { projections: proj, output: out } = snapNow().derived.multiHead.params;
      return i18n.t('mh.stepY', { ...vars, params: i18n.t('mh.params', { proj, out, total: proj + out }) });
    }

    // H + 3 steps (projections, each head, concat, output); a new head count shows the last
    return {
      count: (snap) => headsOf(snap) + 3, draw, render,
      stepAfter: (snap, previous, index) => (headsOf(snap) !== headsOf(previous) ? headsOf(snap) + 2 : index),
      stage: (index) => {
        const H = headsOf(snapNow());
        return index === 0 ? 'project' : index <= H ? `head-${index - 1}` : index === H + 1 ? 'concat' : 'output';
      },
      setLanguage: () => draw(snapNow()),
      destroy() { for (const part of headParts) part.heat.destroy(); },
    };
  },
});
