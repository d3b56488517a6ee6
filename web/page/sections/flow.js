// The whole data flow, live (the page's last section). Each stage shows the current example's shape;
// hovering or focusing a stage (or stepping onto it) shows its tensor with its values below the
// strip, and clicking it jumps to the section that explains it. Positions (the sine table) and
// multi-head attention (at the number of heads the reader chose, the URL's heads) have stages of
// their own. The strip ends with the next-token prediction, softmax(O · W_out) of shape [n, V]
// (W_out untrained here: the training sections train one).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { FLOW_STRINGS } from './flow.strings.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { VOCABULARY } from '../models/attention.js';
import { D_MODEL_HEADS } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings(FLOW_STRINGS);

const shapeText = (m) => `[${m.rows}, ${m.cols}]`;

const shapeOf = (rows, cols) => `[${rows}, ${cols}]`;
/** Asked before stage A (the sixth); the choices: its shape, Q's, one row's and the prediction's (n ≥ 2 keeps three apart). */
export const FLOW_QUIZ = [{
  id: 'shapeA', atStep: 5,
  prompt: (snap, t) => t('quiz.flow.prompt'),
  choices: (snap) => [...new Set([shapeOf(snap.n, snap.n), shapeOf(snap.n, snap.dk), shapeOf(1, snap.n), shapeOf(snap.n, snap.Wout.cols)])]
    .map((s) => ({ value: s, label: s })),
  answer: (snap) => shapeOf(snap.weights.rows, snap.weights.cols),
  explain: (snap, t) => t('quiz.flow.explain', { shape: shapeOf(snap.weights.rows, snap.weights.cols) }),
}];

export const flowSection = defineSection({
  id: 'flow', quiz: FLOW_QUIZ, titleKey: 'flow.title', introKeys: ['flow.intro1', 'flow.intro2'],
  choices: ['heads'],
  setup(frame) {
    const { i18n, ctx, events } = frame;
    const heads = () => frame.snap.choices.heads;
    const multi = (snap) => snap.derived.multiHead.byHeads[heads()];
    const stages = (snap) => [
      { key: 'flow.ids', shape: `[${snap.n}]`, target: 'embedding', tensors: [] },
      { key: 'flow.PE', shape: shapeText(snap.derived.positions.PE), target: 'positions', tensors: ['PE'], narrate: 'flow.stepPE' },
      { key: 'flow.X', shape: shapeText(snap.X), target: 'embedding', tensors: ['X'] },
      { key: 'flow.QKV', shape: shapeText(snap.Q), target: 'projections', tensors: ['Q', 'K', 'V'] },
      { key: 'flow.S', shape: shapeText(snap.scores), target: 'scores', tensors: ['S'] },
      { key: 'flow.A', shape: shapeText(snap.weights), target: 'softmax', tensors: ['A'] },
      { key: 'flow.O', shape: shapeText(snap.output), target: 'mixing', tensors: ['O'] },
      { key: 'flow.heads', shape: `${heads()} × [${snap.n}, ${D_MODEL_HEADS / heads()}] → ${shapeText(multi(snap).concat)} → ${shapeText(multi(snap).output)}`,
        target: 'multihead', tensors: ['concat', 'Y'], narrate: 'flow.stepHeads' },
      { key: 'flow.more', shape: '…', target: null, tensors: [], none: 'flow.noTensor' },
      { key: 'flow.P', shape: shapeText(snap.derived.prediction.probs), target: 'trainstep', tensors: ['P'], narrate: 'flow.stepP' },
      { key: 'flow.loss', shape: '[1]', target: 'trainstep', tensors: [], none: 'flow.trainOnly', narrate: 'flow.stepLoss' },
      { key: 'flow.grad', shape: '∇', target: 'trainstep', back: true, tensors: [], none: 'flow.trainOnly', narrate: 'flow.stepLoss' },
    ];
    // every tensor a stage can show, each a table of its own (names as the sections use them)
    const matrices = {
      X: (snap) => [snap.X, snap.words, indexLabels(snap.d)],
      Q: (snap) => [snap.Q, snap.words, indexLabels(snap.dk)],
      K: (snap) => [snap.K, snap.words, indexLabels(snap.dk)],
      V: (snap) => [snap.V, snap.words, indexLabels(snap.dk)],
      S: (snap) => [snap.scores, snap.words, snap.words],
      A: (snap) => [snap.weights, snap.words, snap.words],
      O: (snap) => [snap.output, snap.words, indexLabels(snap.dk)],
      P: (snap) => [snap.derived.prediction.probs, snap.words, VOCABULARY],
      PE: (snap) => [snap.derived.positions.PE, indexLabels(snap.n).map((p) => `p = ${p}`), indexLabels(snap.d)],
      concat: (snap) => [multi(snap).concat, snap.words, indexLabels(D_MODEL_HEADS)],
      Y: (snap) => [multi(snap).output, snap.words, indexLabels(snap.d)],
    };
    const views = Object.fromEntries(Object.keys(matrices).map((name) => [name, frame.view({ name, csv: false, className: 'tensor-table' })]));

    const list = h('ol', { class: 'flow' });
    const heading = h('h3', { class: 'sub-title tensor-heading' });
    const body = h('div', { class: 'tensor-body' });
    const extra = h('div', { class: 'tensor-extra' });
    heading.id = `${frame.id}-tensor-heading`;
    const preview = h('div', { class: 'tensor-preview', attrs: { role: 'region', 'aria-labelledby': heading.id } }, heading, body, extra);
    frame.stage.append(list, preview);
    let buttons = [];
    let active = 0;     // the stepper's stage
    let shown = -1;     // the stage whose tensor is in the preview

    const code = codePanel(frame, 'flow');
    function build(snap) {
      code.draw(snap);
      // a redraw replaces the buttons: the one a reader is on keeps the focus (and its preview)
      const focused = focusedOr(-1);
      clear(list);
      buttons = stages(snap).map((st, k) => {
        const b = h('button', { class: `flow-stage${st.back ? ' back' : ''}`, attrs: { type: 'button' }, disabled: !st.target },
          h('span', { class: 'stage-name' }), h('span', { class: 'shape num', text: st.shape }));
        b.dataset.stage = st.key.slice('flow.'.length);
        if (st.target) events.on(b, 'click', () => ctx.goTo(st.target));
        // hover or focus: this stage's tensor; leaving: back to the stepper's
        events.on(b, 'mouseenter', () => show(k));
        events.on(b, 'focus', () => show(k));
        // leaving with the pointer goes back to the focused stage if there is one, else the stepper's
        events.on(b, 'mouseleave', () => show(focusedOr(active)));
        events.on(b, 'blur', () => show(active));
        list.append(h('li', {}, b));
        return b;
      });
      label();
      if (focused >= 0 && buttons[focused]) buttons[focused].focus({ preventScroll: true });
    }
    function focusedOr(fallback) {
      const k = buttons.indexOf(list.getRootNode().activeElement);
      return k >= 0 ? k : fallback;
    }
    function label() {
      stages(frame.snap).forEach((st, k) => { buttons[k].firstChild.textContent = name(st); });
    }

    const name = (st) => i18n.t(st.key, { H: heads(), dk: D_MODEL_HEADS / heads() });
    function show(k) {
      const snap = frame.snap;
      const st = stages(snap)[k];
      shown = k;
      buttons.forEach((b, j) => b.classList.toggle('previewed', j === k));
      heading.textContent = i18n.t('flow.tensor', { name: name(st), shape: st.shape });
      clear(body);
      clear(extra);
      if (st.key === 'flow.ids') {
        body.append(h('p', { class: 'chips' }, snap.words.map((w, i) => h('span', { class: 'chip' }, w, h('small', { text: `#${snap.embedding.ids[i]}` })))));
      }
      for (const name of st.tensors) {
        const [m, rows, cols] = matrices[name](snap);
        views[name].update(m, { rowLabels: rows, colLabels: cols });
        body.append(views[name].element);
      }
      if (st.none) extra.append(h('p', { class: 'note', text: i18n.t(st.none) }));
      if (st.key === 'flow.P') {
        const { probs, top } = snap.derived.prediction;
        extra.append(h('ul', { class: 'tops' }, snap.words.map((w, i) => h('li', { text: i18n.t('flow.top', { w, next: VOCABULARY[top[i]], p: fmt(probs.get(i, top[i])) }) }))),
          h('p', { class: 'note', text: i18n.t('flow.untrained', { u: fmt(snap.derived.prediction.uniform) }) }));
      }
    }

    function render(index) {
      active = index;
      buttons.forEach((b, k) => {
        b.classList.toggle('active', k === index);
        if (k === index) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
      });
      show(focusedOr(index));
      const st = stages(frame.snap)[index];
      return i18n.t(st.narrate || 'flow.step', { name: name(st), shape: st.shape, H: heads(), dk: D_MODEL_HEADS / heads() });
    }

    return {
      count: (snap) => stages(snap).length,
      draw: build,
      render,
      setLanguage: () => { label(); if (shown >= 0) show(shown); },
      destroy: () => { clear(list); },
    };
  },
});
