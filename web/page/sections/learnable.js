// Section 7: attention is learnable. The article's experiment: 我's query replaced by
// pull × 我's own key; a slider sets pull and 我's attention row reacts. At pull = 5 the article
// prints 0.695 / 0.169 / 0.136: those come from scores divided by √d_k; unscaled they are
// 0.873 / 0.076 / 0.052. Both are shown. Whether the pulled query really favours 我 depends on the
// keys (snapshot-derived.js, pullVerdict): a longer key close enough in direction can win, and
// then the text says so and why; "the article's numbers" labels only the article's own setting.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, bars } from '../shell/section-shell.js';
import { PULL_VALUES } from '../models/snapshot-derived.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'learn.title': '注意力是可学习的',
    'learn.intro1': 'Q 由 W_Q 算出，而 W_Q 是训练学出来的，所以“一个词爱看谁”也是学出来的。文章做了一个实验：把“{w}”的查询向量换成“{w}”自己的键向量乘 5，模拟“{w}想多看看自己”。拖动滑块改变这个倍数，看“{w}”这一行的注意力怎么变。',
    'learn.intro2': '说明：文章这一节印出的 0.695 / 0.169 / 0.136，其实是打分除以 √d_k 之后的结果；按文章本章不缩放的算法，同样的实验得到 0.873 / 0.076 / 0.052。下面两种都由 WASM 现算。',
    'learn.pull': '查询 = 键 × {pull}',
    'learn.before': '原来的 Q（未改动），不缩放',
    'learn.unscaled': '改动后，不缩放：softmax(打分)',
    'learn.scaled': '改动后，缩放：softmax(打分 / √d_k)',
    'learn.scaledArticle': '改动后，缩放：softmax(打分 / √d_k)（文章的数字）',
    'learn.query': 'q_{w} = {pull} × k_{w} = [{q}]',
    'learn.step': '倍数 {pull}：“{w}”对自己的权重，不缩放 {u}，缩放 {s}（原来是 {b}）。',
    'learn.stepOther': '得到最多的是“{t}”：{ut}。',
    'learn.zero': '倍数 0：查询是全零向量，所有打分都是 0，“{w}”把注意力平均分给每个词，各 {u}。',
    'learn.self': '“{w}”现在最关注自己：不缩放 {u}，缩放 {s}（原来是 {b}）。它的查询和自己的键方向相同，而别的键和它的点积都不更大：k_{w}·k_{w} = {dself} 是 k_{w}·k_j 里最大的。',
    'learn.other': '在这里，把查询拉向自己的键，并没有让“{w}”最关注自己：“{t}”得到 {ut}（缩放后 {st}），“{w}”自己只有 {u}（{s}）。打分是点积 q·k = |q| |k| cos θ，不只看方向，也看键的长度。“{t}”的键更长（|k_{t}| = {lt}，|k_{w}| = {lw}），方向也足够接近（cos θ = {c}），所以 k_{w}·k_{t} = {dt} 大过 k_{w}·k_{w} = {dself}。倍数越大，“{t}”占得越多。',
    'learn.flat': '“{w}”的键是零向量：把查询拉向它，所有打分仍然是 0，权重保持均匀。',
  },
  en: {
    'learn.title': 'Attention is learnable',
    'learn.intro1': 'Q comes from W_Q, and W_Q is learned in training, so whom a token attends to is learned too. The article’s experiment: replace “{w}”’s query by “{w}”’s own key times 5, as if “{w}” wanted to look at itself. Drag the slider to change that factor and watch “{w}”’s attention row.',
    'learn.intro2': 'A note: the 0.695 / 0.169 / 0.136 the article prints for this experiment are what you get after dividing the scores by √d_k; with the chapter’s own unscaled scores the same experiment gives 0.873 / 0.076 / 0.052. Both are computed below by the WASM module.',
    'learn.pull': 'query = key × {pull}',
    'learn.before': 'Original Q (unchanged), unscaled',
    'learn.unscaled': 'Pulled, unscaled: softmax(scores)',
    'learn.scaled': 'Pulled, scaled: softmax(scores / √d_k)',
    'learn.scaledArticle': 'Pulled, scaled: softmax(scores / √d_k) (the article’s numbers)',
    'learn.query': 'q_{w} = {pull} × k_{w} = [{q}]',
    'learn.step': 'Factor {pull}: “{w}” gives itself {u} unscaled, {s} scaled (it was {b}).',
    'learn.stepOther': 'The largest share goes to “{t}”: {ut}.',
    'learn.zero': 'Factor 0: the query is all zeros, so every score is 0 and “{w}” spreads its attention evenly, {u} to each token.',
    'learn.self': '“{w}” now looks at itself most: {u} unscaled, {s} scaled (it was {b}). Its query points along its own key, and no other key has a larger dot product with that key: k_{w}·k_{w} = {dself} is the largest of the k_{w}·k_j.',
    'learn.other': 'Here, pulling the query onto its own key does not make “{w}” look at itself most: “{t}” gets {ut} ({st} scaled) and “{w}” only {u} ({s}). A score is a dot product, q·k = |q| |k| cos θ, so it depends on the key’s length as well as its direction. “{t}”’s key is longer (|k_{t}| = {lt} against |k_{w}| = {lw}) and points close enough (cos θ = {c}) that k_{w}·k_{t} = {dt} beats k_{w}·k_{w} = {dself}. The larger the factor, the larger “{t}”’s share.',
    'learn.flat': '“{w}”’s key is the zero vector: pulling the query onto it leaves every score at 0, and the weights stay uniform.',
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
