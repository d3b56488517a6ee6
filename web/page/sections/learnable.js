// sections/learnable.js: attention is learnable. The article's experiment: 我's query replaced by
// pull × 我's own key; a slider sets pull and 我's attention row reacts. At pull = 5 the article
// prints 0.695 / 0.169 / 0.136: those come from scores divided by √d_k; unscaled they are
// 0.873 / 0.076 / 0.052. Both are shown. Whether the pulled query really favours 我 depends on the
// keys (snapshot-derived.js, pullVerdict): a longer key close enough in direction can win, and
// then the text says so and why; "the article's numbers" labels only the article's own setting.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { LEARNABLE_STRINGS } from './learnable.strings.js';
import { defineSection, bars } from '../shell/section-shell.js';
import { wordChoices, argmax } from '../shell/quiz.js';
import { PULL_VALUES } from '../models/snapshot-derived.js';
import { codePanel } from '../views/code-panel.js';

addStrings(LEARNABLE_STRINGS);

/** Step 1 (pull 0.5) is the first with q pulled; whom it favours is the same for every pull > 0. */
export const LEARNABLE_QUIZ = [{
  id: 'top', atStep: 1, when: (snap) => !snap.derived.pullVerdict.flat,
  prompt: (snap, t) => t('quiz.learn.prompt', { w: snap.words[0] }),
  choices: (snap) => wordChoices(snap.words),
  answer: (snap) => String(argmax(snap.derived.pull[1].unscaled)),
  explain(snap, t) {
    const v = snap.derived.pullVerdict;
    return t('quiz.learn.explain', { w: snap.words[0], t: snap.words[v.top], dt: fmt(v.dots[v.top]), dself: fmt(v.dots[0]) });
  },
}];

export const learnableSection = defineSection({
  id: 'learnable', quiz: LEARNABLE_QUIZ, titleKey: 'learn.title', introKeys: [],
  properties: [{ name: 'pull', type: 'number', min: 0, max: 10, default: 5 }],   // q_我 = pull × k_我 (the stepper's position)
  setup(frame) {
    const { i18n, ctx, events } = frame;
    const snapNow = () => frame.snap;
    const w = () => snapNow().words[0];
    const p1 = h('p'), p2 = h('p');
    frame.intro.append(p1, p2);
    // pull is the stepper's position: the link's value places it at first (snap.choices.pull);
    // after that the stepper is the one place it lives, and onStep writes it back to the link
    const initial = PULL_VALUES.indexOf(frame.snap.choices.pull);
    const slider = h('input', { class: 'pull-slider', attrs: { type: 'range', min: '0', max: String(PULL_VALUES.at(-1)), step: '0.5' }, value: String(frame.snap.choices.pull) });
    const sliderLabel = h('span', { class: 'num' });
    frame.controls.append(h('label', { class: 'range' }, slider, sliderLabel));
    const query = h('p', { class: 'num dot' });
    const cards = h('div', { class: 'cards' });
    const verdict = h('p', { class: 'verdict' });
    frame.stage.append(query, cards, verdict);
    const code = codePanel(frame, 'learnable');
    events.on(slider, 'input', () => { frame.stepper.pause(); frame.stepper.go(Math.round(Number(slider.value) * 2)); });

    function render(index) {
      const snap = snapNow();
      const e = snap.derived.pull[index];
      const pull = e.pull;
      slider.value = String(pull);
      sliderLabel.textContent = i18n.t('learn.pull', { pull: pull.toFixed(1) });
      query.textContent = i18n.t('learn.query', { w: w(), pull: pull.toFixed(1), q: e.query.map((x) => fmt(x)).join(', ') });
      clear(cards);
      const before = snap.weightsUnscaled.row(0);
      // "the article's numbers" only where they are: its setting, at its factor 5
      const scaledKey = snap.derived.article && pull === 5 ? 'learn.scaledArticle' : 'learn.scaled';
      for (const [key, values] of [['learn.before', before], ['learn.unscaled', e.unscaled], [scaledKey, e.scaled]]) {
        cards.append(h('div', { class: `card${key === 'learn.before' ? '' : ' active'}` }, h('h3', { text: i18n.t(key) }),
          bars(snap.words, values, { fmt, cls: key === 'learn.before' ? 'k' : 'q' })));
      }
      const v = snap.derived.pullVerdict;
      const vars = { pull: pull.toFixed(1), w: w(), u: fmt(e.unscaled[0]), s: fmt(e.scaled[0]), b: fmt(before[0]) };
      const t = v.top;
      Object.assign(vars, {
        t: snap.words[t], ut: fmt(e.unscaled[t]), st: fmt(e.scaled[t]), lt: fmt(v.lengths[t]), lw: fmt(v.lengths[0]),
        c: fmt(v.cos[t]), dt: fmt(v.dots[t]), dself: fmt(v.dots[0]),
      });
      // the text follows the numbers: whom the pulled query favours is decided by k_0 · k_j
      let why;
      if (pull === 0) why = 'learn.zero';
      else if (v.flat) why = 'learn.flat';
      else why = v.self ? 'learn.self' : 'learn.other';
      verdict.textContent = i18n.t(why, vars);
      code.draw(snap, { pull });
      verdict.dataset.verdict = why.slice('learn.'.length);
      const step = i18n.t('learn.step', vars);
      return why === 'learn.other' ? `${step} ${i18n.t('learn.stepOther', vars)}` : step;
    }
    function intro() {
      p1.textContent = i18n.t('learn.intro1', { w: w() });
      p2.textContent = i18n.t('learn.intro2');
    }
    return {
      count: () => PULL_VALUES.length,
      initial: initial < 0 ? 10 : initial,
      draw: intro,
      render,
      // the reader moved the stepper or the slider: that, not drawing, writes the link's state
      onStep: (index) => ctx.setSetting('pull', PULL_VALUES[index]),
      setLanguage: intro,
    };
  },
});
