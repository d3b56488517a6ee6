// Section 7: attention is learnable. The article's experiment: 我's query replaced by
// pull × 我's own key; a slider sets pull and 我's attention row reacts. At pull = 5 the article
// prints 0.695 / 0.169 / 0.136: those come from scores divided by √d_k; unscaled they are
// 0.873 / 0.076 / 0.052. Both are shown.
import { h, clear, fmt } from '../dom.js';
import { addStrings } from '../i18n.js';
import { defineSection, bars } from '../section-shell.js';
import { PULL_VALUES } from '../snapshot-derived.js';

addStrings({
  zh: {
    'learn.title': '注意力是可学习的',
    'learn.intro1': 'Q 由 W_Q 算出，而 W_Q 是训练学出来的，所以“一个词爱看谁”也是学出来的。文章做了一个实验：把“{w}”的查询向量换成“{w}”自己的键向量乘 5，模拟“{w}想多看看自己”。拖动滑块改变这个倍数，看“{w}”这一行的注意力怎么变。',
    'learn.intro2': '说明：文章这一节印出的 0.695 / 0.169 / 0.136，其实是打分除以 √d_k 之后的结果；按文章本章不缩放的算法，同样的实验得到 0.873 / 0.076 / 0.052。下面两种都由 WASM 现算。',
    'learn.pull': '查询 = 键 × {pull}',
    'learn.before': '原来的 Q（未改动），不缩放',
    'learn.unscaled': '改动后，不缩放：softmax(打分)',
    'learn.scaled': '改动后，缩放：softmax(打分 / √d_k)（文章的数字）',
    'learn.query': 'q_{w} = {pull} × k_{w} = [{q}]',
    'learn.step': '倍数 {pull}：“{w}”对自己的权重，不缩放 {u}，缩放 {s}（原来是 {b}）。',
  },
  en: {
    'learn.title': 'Attention is learnable',
    'learn.intro1': 'Q comes from W_Q, and W_Q is learned in training, so whom a token attends to is learned too. The article’s experiment: replace “{w}”’s query by “{w}”’s own key times 5, as if “{w}” wanted to look at itself. Drag the slider to change that factor and watch “{w}”’s attention row.',
    'learn.intro2': 'A note: the 0.695 / 0.169 / 0.136 the article prints for this experiment are what you get after dividing the scores by √d_k; with the chapter’s own unscaled scores the same experiment gives 0.873 / 0.076 / 0.052. Both are computed below by the WASM module.',
    'learn.pull': 'query = key × {pull}',
    'learn.before': 'Original Q (unchanged), unscaled',
    'learn.unscaled': 'Pulled, unscaled: softmax(scores)',
    'learn.scaled': 'Pulled, scaled: softmax(scores / √d_k) (the article’s numbers)',
    'learn.query': 'q_{w} = {pull} × k_{w} = [{q}]',
    'learn.step': 'Factor {pull}: “{w}” gives itself {u} unscaled, {s} scaled (it was {b}).',
  },
});

export const learnableSection = defineSection({
  id: 'learnable', titleKey: 'learn.title', introKeys: [],
  setup(frame) {
    const { i18n, ctx, events } = frame;
    const snapNow = () => frame.snap;
    const w = () => snapNow().words[0];
    const p1 = h('p'), p2 = h('p');
    frame.intro.append(p1, p2);
    const initial = PULL_VALUES.indexOf(ctx.state.get('pull'));
    const slider = h('input', { class: 'pull-slider', attrs: { type: 'range', min: '0', max: String(PULL_VALUES.at(-1)), step: '0.5' }, value: String(ctx.state.get('pull')) });
    const sliderLabel = h('span', { class: 'num' });
    frame.controls.append(h('label', { class: 'range' }, slider, sliderLabel));
    const query = h('p', { class: 'num dot' });
    const cards = h('div', { class: 'cards' });
    frame.stage.append(query, cards);
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
      for (const [key, values] of [['learn.before', before], ['learn.unscaled', e.unscaled], ['learn.scaled', e.scaled]]) {
        cards.append(h('div', { class: `card${key === 'learn.before' ? '' : ' active'}` }, h('h3', { text: i18n.t(key) }),
          bars(snap.words, values, { fmt, cls: key === 'learn.before' ? 'k' : 'q' })));
      }
      return i18n.t('learn.step', { pull: pull.toFixed(1), w: w(), u: fmt(e.unscaled[0]), s: fmt(e.scaled[0]), b: fmt(before[0]) });
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
