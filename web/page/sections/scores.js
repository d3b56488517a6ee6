// sections/scores.js: why Q×Kᵀ and not Q×K. Q×K is refused by the API (or, when n happens to equal d_k,
// computes something meaningless); K becomes Kᵀ; the score table fills one dot product per
// cell. Hovering or focusing any score cell writes its dot product out term by term.
import { h, clear, fmt, fmtTerm } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { SCORES_STRINGS } from './scores.strings.js';
import { defineSection, indexLabels, toggle } from '../shell/section-shell.js';
import { yesNo } from '../shell/quiz.js';
import { createDotGeometry } from '../views/dot-geometry.js';
import { codePanel } from '../views/code-panel.js';

addStrings(SCORES_STRINGS);

/** The score of the first word's query with the last word's key: step 2 + (n − 1) fills it. */
export const SCORES_QUIZ = [{
  id: 'sign', atStep: (snap) => 2 + snap.n - 1,
  prompt: (snap, t) => t('quiz.scores.prompt', { a: snap.words[0], b: snap.words[snap.n - 1] }),
  choices: (snap, t) => yesNo(t),
  answer: (snap) => (snap.scores.get(0, snap.n - 1) > 0 ? 'yes' : 'no'),
  explain(snap, t) {
    const d = snap.derived.scoreTerms[0].cell(snap.n - 1);
    return t('quiz.scores.explain', { a: snap.words[0], b: snap.words[snap.n - 1],
      terms: d.a.map((a, c) => `${fmtTerm(a)}×${fmtTerm(d.b[c])}`).join(' + '), value: fmt(snap.scores.get(0, snap.n - 1)) });
  },
}];

export const scoresSection = defineSection({
  id: 'scores', quiz: SCORES_QUIZ, titleKey: 'scores.title', introKeys: ['scores.intro1', 'scores.intro2'],
  choices: ['kq'],
  properties: [{ name: 'kq', type: 'bool', default: false }],   // show K·Qᵀ = Sᵀ
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const showKQ = () => frame.snap.choices.kq;
    // the dot product as geometry, between the intro's two paragraphs (before S is built)
    const geometry = createDotGeometry({ i18n, events, measure: ctx.measureDot });
    frame.intro.insertBefore(geometry.element, frame.intro.children[1] || null);
    const attempt = h('div', { class: 'error-box', attrs: { role: 'note' } });
    const qView = frame.view({ name: 'Q', label: 'Q' });
    const kView = frame.view({ name: 'K', label: 'K' });
    const ktView = frame.view({ name: 'Kt', title: 'Kᵀ', label: 'Kᵀ' });
    const sView = frame.view({ name: 'S', label: 'S = Q·Kᵀ', onCell: (i, j) => showDot(i, j) });
    const dot = h('p', { class: 'dot num', attrs: { 'aria-live': 'polite' } });
    const transposeRow = h('div', { class: 'equation' }, kView.element, h('span', { class: 'op', text: 'ᵀ ↘' }));
    const mainRow = h('div', { class: 'equation' }, qView.element, h('span', { class: 'op', text: '×' }),
      ktView.element, h('span', { class: 'op', text: '=' }), sView.element);
    // the article's misconception 3: K·Qᵀ is not a different computation, it is Sᵀ
    // the switch's setting comes back as a new snapshot, which draw() takes
    const kqSwitch = toggle(texts, 'scores.kq', showKQ(), (on) => ctx.setSetting('kq', on), events);
    kqSwitch.input.classList.add('kq-switch');
    frame.controls.append(kqSwitch.element);
    const kqView = frame.view({ name: 'KQt', title: 'K·Qᵀ', label: 'K·Qᵀ = Sᵀ', onCell: (j, i) => showDot(i, j) });
    const kqRow = h('div', { class: 'equation kq-row' }, kqView.element, texts.set(h('p', { class: 'note' }), 'scores.kqNote'));
    kqRow.hidden = !showKQ();
    frame.stage.append(attempt, transposeRow, mainRow, kqRow, dot);
    const code = codePanel(frame, 'scores');
    let currentCell = null; // [i, j] the animation is on

    function drawAttempt(snap) {
      clear(attempt);
      const tried = snap.derived.qTimesK;
      // the library's own words (English), then what they mean in the page's language
      const message = h('code', { text: tried.message, attrs: { lang: 'en' } });
      const meaning = i18n.t('scores.refusalMeaning', { ar: tried.a[0], ac: tried.a[1], br: tried.b[0], bc: tried.b[1] });
      if (tried.refused) {
        attempt.append(h('span', { text: i18n.t('scores.tryFail') + ' ' }), message);
      } else {
        // shapes happen to fit: show why it is still wrong, then the refusal for 4 tokens
        attempt.append(h('span', { text: i18n.t('scores.tryFits', { n: snap.n, m: tried.tokens, sentence: tried.sentence }) + ' ' }), message);
      }
      if (meaning) attempt.append(h('span', { class: 'meaning', text: ` ${meaning}` }));
    }

    function dotSentence(i, j) {
      const snap = snapNow();
      const d = snap.derived.scoreTerms[i].cell(j);
      const terms = d.a.map((a, c) => `${fmtTerm(a)}×${fmtTerm(d.b[c])}`).join(' + ');
      return i18n.t('scores.cell', { a: snap.words[i], b: snap.words[j], terms, value: fmt(snap.scores.get(i, j)) });
    }

    function showDot(i, j) {
      const snap = snapNow();
      if (i === null) {
        // back to what the step itself shows: no readout or highlight outlives the pointer
        frame.stepper.refresh();
        return;
      }
      dot.textContent = dotSentence(i, j) + (showKQ() ? i18n.t('scores.kqPair', { a: snap.words[i], b: snap.words[j] }) : '');
      sView.highlight([[i, j, 'hl-cell']]);
      kqView.highlight([[j, i, 'hl-pair']]);
      qView.highlight(snap.Q.row(i).map((_, c) => [i, c, 'hl-row']));
      ktView.highlight(snap.K.row(j).map((_, c) => [c, j, 'hl-col']));
    }

    function render(index) {
      const snap = snapNow();
      const n = snap.n;
      const refused = snap.derived.qTimesK.refused;
      attempt.classList.toggle('dim', index > 0);
      transposeRow.classList.toggle('dim', index === 0);
      mainRow.classList.toggle('dim', index < 1);
      kView.highlight([]); ktView.highlight([]); qView.highlight([]); sView.highlight([]); kqView.highlight([]);
      currentCell = null;
      if (index === 0) {
        sView.setHidden(() => true);
        kqView.setHidden(() => true);
        dot.textContent = i18n.t('scores.hover');
        return refused ? i18n.t('scores.step0', { n, dk: snap.dk }) : i18n.t('scores.step0fits');
      }
      if (index === 1) {
        sView.setHidden(() => true);
        kqView.setHidden(() => true);
        const j = 0;
        kView.highlight(snap.K.row(j).map((_, c) => [j, c, 'hl-row']));
        ktView.highlight(snap.K.row(j).map((_, c) => [c, j, 'hl-row']));
        dot.textContent = i18n.t('scores.hover');
        return i18n.t('scores.step1', { n, dk: snap.dk });
      }
      const k = index - 2;
      const i = Math.floor(k / n), j = k % n;
      sView.setHidden((r, c) => r * n + c > k);
      kqView.setHidden((r, c) => c * n + r > k);   // the same cells, transposed
      currentCell = [i, j];
      showDot(i, j);
      const sentence = dotSentence(i, j);
      return k === n * n - 1 ? `${sentence} ${i18n.t('scores.done')}` : sentence;
    }

    function draw(snap) {
      const cols = indexLabels(snap.dk);
      qView.update(snap.Q, { rowLabels: snap.words, colLabels: cols });
      kView.update(snap.K, { rowLabels: snap.words, colLabels: cols });
      ktView.update(snap.derived.Kt, { rowLabels: cols, colLabels: snap.words });
      sView.update(snap.scores, { rowLabels: snap.words, colLabels: snap.words });
      kqView.update(snap.derived.KQt, { rowLabels: snap.words, colLabels: snap.words });
      kqSwitch.input.checked = showKQ();
      kqRow.hidden = !showKQ();
      drawAttempt(snap);
      code.draw(snap);
    }

    return {
      count: (snap) => 2 + snap.n * snap.n, draw, render,
      setLanguage: () => { drawAttempt(snapNow()); geometry.refresh(); },
    };
  },
});
