// sections/symmetry.js: why three different matrices. A switch shares one projection, Q = K = X·W_Q: the
// score matrix Q·Qᵀ is symmetric (S[i][j] = S[j][i]) with real values (X·Xᵀ was nearly the
// identity for the article's one-hot X), and its diagonal dominates. Steps walk the mirror pairs.
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { SYMMETRY_STRINGS } from './symmetry.strings.js';
import { defineSection, toggle } from '../shell/section-shell.js';
import { yesNo } from '../shell/quiz.js';
import { codePanel } from '../views/code-panel.js';

addStrings(SYMMETRY_STRINGS);

/** Step 1 is the pair (0, 2): the first and third words (a sentence of three words or more). */
const pairOf = () => [0, 2];
const sameShown = (snap) => { const [a, b] = pairOf(); return fmt(snap.scores.get(a, b)) === fmt(snap.scores.get(b, a)); };
export const SYMMETRY_QUIZ = [{
  id: 'mirror', atStep: 1, when: (snap) => snap.n >= 3,
  prompt: (snap, t) => t('quiz.sym.prompt', { a: snap.words[0], b: snap.words[2] }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (sameShown(snap) ? 'yes' : 'no'),
  explain: (snap, t) => t(sameShown(snap) ? 'quiz.sym.explainEq' : 'quiz.sym.explainNe',
    { a: snap.words[0], b: snap.words[2], x: fmt(snap.scores.get(0, 2)), y: fmt(snap.scores.get(2, 0)) }),
}];

export const symmetrySection = defineSection({
  id: 'symmetry', quiz: SYMMETRY_QUIZ, titleKey: 'sym.title', introKeys: ['sym.intro1', 'sym.intro2'],
  choices: ['qk'],
  properties: [{ name: 'qk', type: 'bool', default: false }],   // one shared projection: Q = K = X
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const same = () => snapNow().choices.qk;
    const shown = () => (same() ? snapNow().derived.symmetric : { scores: snapNow().scores, weights: snapNow().weightsUnscaled });

    // the switch's setting comes back as a new snapshot, which draw() takes
    const sw = toggle(texts, 'sym.switch', same(), (on) => ctx.setSetting('qk', on), events);
    sw.input.classList.add('qk-switch');
    frame.controls.append(sw.element);
    const sView = frame.view({ name: 'S', label: () => i18n.t(same() ? 'sym.same' : 'sym.real'), onCell: (i, j) => mirror(i, j) });
    const aView = frame.view({ name: 'A', label: () => i18n.t('sym.weights') });
    const diagonal = h('p', { class: 'verdict diagonal' });
    frame.stage.append(h('div', { class: 'equation' }, sView.element, h('span', { class: 'op', text: '→' }), aView.element),
      diagonal, texts.set(h('p', { class: 'note' }), 'sym.note'));

    // where each row peaks: on the diagonal or not, said for exactly these numbers
    function drawDiagonal(snap) {
      const sym = snap.derived.symmetric;
      const tops = same() ? sym.rowTop : sym.realRowTop;
      sView.setMarked((i, j) => tops[i] === j, 'row-max');
      const k = tops.filter((j, i) => j === i).length;
      if (!same()) {
        diagonal.textContent = i18n.t('sym.realTop', { k, n: snap.n });
        return;
      }
      const S = sym.scores;
      const others = tops.flatMap((j, i) => (j === i ? [] : [i18n.t('sym.diagOther', {
        a: snap.words[i], b: snap.words[j], aa: fmt(S.get(i, i)), bb: fmt(S.get(j, j)),
      })]));
      const self = 2 * k > snap.n ? i18n.t('sym.diagSelf') : '';
      diagonal.textContent = i18n.t('sym.diag', { k, n: snap.n, self, others: others.join(i18n.lang === 'zh' ? '' : ' ') }).trim();
    }

    const code = codePanel(frame, 'symmetry');
    const pairs = (snap) => {
      const out = [];
      for (let i = 0; i < snap.n; i++) for (let j = i + 1; j < snap.n; j++) out.push([i, j]);
      return out;
    };
    function mirror(i, j) {
      if (i === null) { frame.stepper.refresh(); return; }
      sView.highlight([[i, j, 'hl-cell'], [j, i, 'hl-pair']]);
    }
    function draw(snap) {
      const { scores, weights } = shown();
      sView.update(scores, { rowLabels: snap.words, colLabels: snap.words });
      aView.update(weights, { rowLabels: snap.words, colLabels: snap.words });
      sw.input.checked = same();
      drawDiagonal(snap);
      code.draw(snap);
    }
    function render(index) {
      const snap = snapNow();
      const [i, j] = pairs(snap)[index];
      // the quiz asks whether the pair (0, 2) mirrors before step 1 shows it: its two cells wait
      const [a, b] = pairOf();
      sView.setHidden(frame.quizHides('mirror') ? (r, c) => (r === a && c === b) || (r === b && c === a) : null);
      sView.highlight([[i, j, 'hl-cell'], [j, i, 'hl-pair']]);
      const { scores } = shown();
      const x = scores.get(i, j), y = scores.get(j, i);
      const equal = fmt(x) === fmt(y);
      return i18n.t(equal ? 'sym.stepEq' : 'sym.stepNe', { a: snap.words[i], b: snap.words[j], x: fmt(x), y: fmt(y) });
    }
    return { count: (snap) => pairs(snap).length, draw, render, setLanguage: () => drawDiagonal(snapNow()) };
  },
});
