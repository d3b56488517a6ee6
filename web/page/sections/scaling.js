// "Why divide by √d_k" (the series' chapter 3): random q and k with unit-variance components; a
// d_k slider (1 … 512, in the URL as sdk); the histogram of all 2048 q·k, whose spread grows like
// √d_k, beside q·k/√d_k, whose spread stays near 1; one row's softmax unscaled and scaled, with
// its largest weight and entropy; and the softmax's Jacobian, which is what starves the gradients
// when the row collapses. The numbers come from models/scaling.js (the section's source: the
// seed's draws and the slider's d_k through the WebAssembly API); this file only lays them out.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, bars } from '../shell/section-shell.js';
import { scalingSource, SCALING_DKS, SCALING_QUERIES, SCALING_KEYS, ROW_KEYS, HISTOGRAM } from '../models/scaling.js';
import { createHistogram } from '../views/histogram.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'scaling.title': '为什么要除以 √d_k',
    'scaling.intro1': '文章这一章没有缩放打分。向量只有 3 维时这无伤大雅；真正的模型里 d_k 是 64 甚至更大，问题就来了。这里的 q 和 k 是随机的，每个分量都取自标准正态分布 N(0, 1)：d_k 个乘积 q_i·k_i 各自均值为 0、方差为 1，加起来的 q·k 方差就是 d_k，分散程度（标准差）按 √d_k 增长。拖动滑块，看打分怎样越摊越开。',
    'scaling.intro2': '打分摊得越开，softmax 越像“只挑最大的那个”：指数会把差距放大。除以 √d_k 正好把标准差拉回 1 左右，不管一个头有多宽。',
    'scaling.dk': 'd_k = {dk}（√d_k = {root}）',
    'scaling.dkLabel': '向量宽度 d_k',
    'scaling.sample': 'q₀ = [{q}{more}]，k₀ = [{k}{more}]，q₀·k₀ = {dot}',
    'scaling.moreAfter': '，…（共 {n} 个分量）',
    'scaling.histTitle': '{count} 个点积的分布',
    'scaling.legendRaw': 'q·k（不缩放）',
    'scaling.legendScaled': 'q·k / √d_k',
    'scaling.histLabel': '{count} 个点积 q·k 的直方图，d_k = {dk}：不缩放时标准差 {std}，除以 √d_k 后 {std2}。横轴从 {min} 到 {max}。',
    'scaling.spreadLabel': '点积的均值和标准差',
    'scaling.spreadRaw': 'q·k', 'scaling.spreadScaled': 'q·k / √d_k',
    'scaling.mean': '均值', 'scaling.std': '标准差',
    'scaling.rowRaw': '不缩放：softmax(q₀·k)',
    'scaling.rowScaled': '缩放：softmax(q₀·k / √d_k)',
    'scaling.rowStats': '这一行：最大权重 {max}，熵 {h}（均匀时 {hu}），‖∂w/∂z‖ = {j}',
    'scaling.rowMean': '{nq} 个查询里有 {c} 行塌缩（最大权重 > 0.99）；平均最大权重 {max}，熵 {h}，‖∂w/∂z‖ = {j}',
    'scaling.key': 'k{j}',
    'scaling.why': '为什么这会“饿死”梯度：softmax 把梯度传回打分，靠的是 ∂wᵢ/∂zⱼ = wᵢ(δᵢⱼ − wⱼ)。一行权重几乎是独热（一个接近 1、其余接近 0）时，每一项都接近 0，不论那个 1 在哪里。于是打分几乎收不到梯度，W_Q 和 W_K 也就几乎学不动。除以 √d_k 让打分保持在 1 左右的尺度，softmax 留在梯度还能流过的区间。',
    'scaling.step0': 'q₀ 和 k₀ 是 {nq} 个查询、{nk} 个键里的第一个，各有 {dk} 个分量，都来自 rng({seed}).randn。它们的点积 q₀·k₀ = {dot}，是 {dk} 个乘积之和。',
    'scaling.step1': '全部 {nq} × {nk} = {count} 个点积 q·k：标准差 {std}，而 √d_k = {root}。d_k = {dk} 时，打分常常相差 ±{std} 左右，softmax 要对这样的差距取指数。',
    'scaling.step2': '除以 √d_k 之后：标准差 {std2}，不管 d_k 是多少都在 1 左右。这就是全部的窍门：打分的尺度不再取决于头的宽度。',
    'scaling.step3': '每个查询对前 {keys} 个键做 softmax（图中是 q₀ 这一行）。{nq} 个查询平均：不缩放时最大权重 {max1}、熵 {h1}，{c1} 行塌成了几乎独热（最大权重 > 0.99）；缩放后 {max2}、{h2}，{c2} 行（均匀分布的熵是 {hu}）。{verdict}',
    'scaling.collapsed': '不缩放时，不少行已经是一个键拿走几乎全部权重。',
    'scaling.notCollapsed': 'd_k 还小，不缩放的行也还没有塌成独热；把 d_k 调大试试。',
    'scaling.step4': '梯度要经过 softmax 的雅可比矩阵 ∂wᵢ/∂zⱼ = wᵢ(δᵢⱼ − wⱼ) 才能回到打分。它的大小 ‖∂w/∂z‖，{nq} 个查询平均：不缩放 {j1}，缩放 {j2}；独热的行是 0。{verdict}',
    'scaling.starved': '不缩放时只有缩放后的 1/{ratio}：塌缩的那些行，打分几乎收不到梯度。',
    'scaling.notStarved': '这里两者相差不大；d_k 大时差距才显出来。',
  },
  en: {
    'scaling.title': 'Why divide by √d_k',
    'scaling.intro1': 'The article’s chapter leaves the scores unscaled. With 3-wide vectors that does no harm; real models use d_k = 64 or more, and then it does. Here q and k are random, every component drawn from the standard normal N(0, 1): each of the d_k products q_i·k_i has mean 0 and variance 1, so their sum q·k has variance d_k, and its spread (standard deviation) grows like √d_k. Drag the slider and watch the scores spread out.',
    'scaling.intro2': 'The wider the scores spread, the more softmax behaves like “pick the largest”: the exponential magnifies every gap. Dividing by √d_k brings the standard deviation back to about 1, however wide a head is.',
    'scaling.dk': 'd_k = {dk} (√d_k = {root})',
    'scaling.dkLabel': 'vector width d_k',
    'scaling.sample': 'q₀ = [{q}{more}], k₀ = [{k}{more}], q₀·k₀ = {dot}',
    'scaling.moreAfter': ', … ({n} components)',
    'scaling.histTitle': 'How {count} dot products are spread',
    'scaling.legendRaw': 'q·k (unscaled)',
    'scaling.legendScaled': 'q·k / √d_k',
    'scaling.histLabel': 'Histogram of {count} dot products q·k at d_k = {dk}: standard deviation {std} unscaled, {std2} divided by √d_k. The axis runs from {min} to {max}.',
    'scaling.spreadLabel': 'mean and standard deviation of the dot products',
    'scaling.spreadRaw': 'q·k', 'scaling.spreadScaled': 'q·k / √d_k',
    'scaling.mean': 'mean', 'scaling.std': 'std',
    'scaling.rowRaw': 'Unscaled: softmax(q₀·k)',
    'scaling.rowScaled': 'Scaled: softmax(q₀·k / √d_k)',
    'scaling.rowStats': 'this row: largest weight {max}, entropy {h} (uniform: {hu}), ‖∂w/∂z‖ = {j}',
    'scaling.rowMean': '{c} of the {nq} queries’ rows collapsed (largest weight above 0.99); on average largest weight {max}, entropy {h}, ‖∂w/∂z‖ = {j}',
    'scaling.key': 'k{j}',
    'scaling.why': 'Why that starves the gradients: softmax passes the gradient back to the scores through ∂wᵢ/∂zⱼ = wᵢ(δᵢⱼ − wⱼ). When a row of weights is nearly one-hot (one near 1, the rest near 0), every one of those terms is near 0, wherever the 1 sits. The scores then receive almost no gradient, and W_Q and W_K almost stop learning. Dividing by √d_k keeps the scores on a scale of about 1, where softmax still lets gradients through.',
    'scaling.step0': 'q₀ and k₀ are the first of {nq} queries and {nk} keys, {dk} components each, all from rng({seed}).randn. Their dot product q₀·k₀ = {dot} is a sum of {dk} products.',
    'scaling.step1': 'All {nq} × {nk} = {count} dot products q·k: standard deviation {std}, against √d_k = {root}. At d_k = {dk}, scores often differ by about ±{std}, and softmax exponentiates differences that size.',
    'scaling.step2': 'Divided by √d_k: standard deviation {std2}, about 1 whatever d_k is. That is the whole trick: the scale of the scores no longer depends on how wide the head is.',
    'scaling.step3': 'Softmax of every query against the first {keys} keys (q₀’s row is drawn). Averaged over the {nq} queries: unscaled, largest weight {max1} and entropy {h1}, with {c1} rows collapsed to nearly one-hot (largest weight above 0.99); scaled, {max2} and {h2}, {c2} rows collapsed (a uniform row has entropy {hu}). {verdict}',
    'scaling.collapsed': 'Unscaled, many rows already give one key almost all the weight.',
    'scaling.notCollapsed': 'At this small d_k the unscaled rows have not collapsed yet; try a larger d_k.',
    'scaling.step4': 'A gradient reaches the scores only through softmax’s Jacobian ∂wᵢ/∂zⱼ = wᵢ(δᵢⱼ − wⱼ). Its size ‖∂w/∂z‖, averaged over the {nq} queries: {j1} unscaled, {j2} scaled; a one-hot row’s is 0. {verdict}',
    'scaling.starved': 'Unscaled it is {ratio} times smaller: through the collapsed rows the scores receive almost no gradient.',
    'scaling.notStarved': 'Here the two are close; the gap opens as d_k grows.',
  },
});

const STAGES = ['sample', 'raw', 'scaled', 'softmax', 'gradient'];
const TICKS = [-60, -40, -20, 0, 20, 40, 60];

export const scalingSection = defineSection({
  id: 'scaling', titleKey: 'scaling.title', introKeys: ['scaling.intro1', 'scaling.intro2'],
  source: scalingSource,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const data = () => frame.snap;

    // the d_k slider: one stop per entry of SCALING_DKS; the reader's choice goes to the URL
    const slider = h('input', { class: 'sdk-slider', attrs: { type: 'range', min: '0', max: String(SCALING_DKS.length - 1), step: '1' },
      value: String(Math.max(0, SCALING_DKS.indexOf(data().dk))) });
    const sliderLabel = h('span', { class: 'num' });
    frame.controls.append(h('label', { class: 'range' }, texts.set(h('span', { class: 'visually-hidden' }), 'scaling.dkLabel'), slider, sliderLabel));
    events.on(slider, 'input', () => ctx.setSetting('sdk', SCALING_DKS[Number(slider.value)]));

    const sample = h('p', { class: 'num scaling-sample' });
    const histTitle = h('h3', { class: 'sub-title' });
    const histogram = createHistogram();
    // the legend names the series drawn: q·k / √d_k only from the step that divides
    const legendScaled = h('span', { class: 'legend-item' },
      h('span', { class: 'swatch scaled', attrs: { 'aria-hidden': 'true' } }), texts.set(h('span'), 'scaling.legendScaled'));
    const legend = h('p', { class: 'hist-legend' },
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch raw', attrs: { 'aria-hidden': 'true' } }), texts.set(h('span'), 'scaling.legendRaw')),
      legendScaled);
    const spreadView = frame.view({ name: 'spread', csv: false, label: () => i18n.t('scaling.spreadLabel'), title: () => i18n.t('scaling.spreadLabel') });
    const histPanel = h('div', { class: 'scaling-hist' }, histTitle, histogram.element, legend, spreadView.element);
    const cards = h('div', { class: 'cards scaling-cards' });
    const why = texts.set(h('p', { class: 'note scaling-why' }), 'scaling.why');
    frame.stage.append(sample, histPanel, cards, why);
    const code = codePanel(frame, 'scaling');
    const parts = { sample, raw: histPanel, scaled: histPanel, softmax: cards, gradient: why };

    function rowCard(key, cls, stats, d) {
      const row = stats.first, mean = stats.mean;
      const labels = row.weights.map((_, j) => i18n.t('scaling.key', { j }));
      return h('div', { class: `card ${cls}` }, h('h3', { text: i18n.t(key) }), bars(labels, row.weights, { fmt, cls: cls === 'raw' ? 'q' : 'k' }),
        h('p', { class: 'sum num', text: i18n.t('scaling.rowStats', { max: fmt(row.max), h: fmt(row.entropy), hu: fmt(d.row.uniformEntropy), j: fmt(row.jacobian) }) }),
        h('p', { class: 'sum num', text: i18n.t('scaling.rowMean', { nq: SCALING_QUERIES, c: stats.collapsed, max: fmt(mean.max), h: fmt(mean.entropy), j: fmt(mean.jacobian) }) }));
    }

    let index = STAGES.length - 1;
    function draw(d) {
      slider.value = String(Math.max(0, SCALING_DKS.indexOf(d.dk)));
      const dkText = i18n.t('scaling.dk', { dk: d.dk, root: fmt(d.root) });
      sliderLabel.textContent = dkText;
      slider.setAttribute('aria-valuetext', dkText);
      const more = d.sample.more > 0 ? i18n.t('scaling.moreAfter', { n: d.dk }) : '';
      sample.textContent = i18n.t('scaling.sample', { q: d.sample.q.map((x) => fmt(x, 2)).join(', '), k: d.sample.k.map((x) => fmt(x, 2)).join(', '), more, dot: fmt(d.sample.dot) });
      histTitle.textContent = i18n.t('scaling.histTitle', { count: d.count });
      spreadView.update(d.spread,
        { rowLabels: [i18n.t('scaling.spreadRaw'), i18n.t('scaling.spreadScaled')], colLabels: [i18n.t('scaling.mean'), i18n.t('scaling.std')] });
      clear(cards).append(rowCard('scaling.rowRaw', 'raw', d.row.unscaled, d), rowCard('scaling.rowScaled', 'scaled', d.row.scaled, d));
      code.draw(d);
      drawHistogram(d);
    }
    function drawHistogram(d) {
      const series = [{ counts: d.raw.counts, cls: 'raw' }];
      if (index >= 2) series.push({ counts: d.scaled.counts, cls: 'scaled' });
      legendScaled.hidden = index < 2;
      histogram.draw({ ...HISTOGRAM, series, ticks: TICKS,
        label: i18n.t('scaling.histLabel', { count: d.count, dk: d.dk, std: fmt(d.raw.std, 2), std2: fmt(d.scaled.std, 2), min: HISTOGRAM.min, max: HISTOGRAM.max }) });
    }

    function render(i) {
      index = i;
      const d = data();
      for (const [k, stage] of STAGES.entries()) parts[stage].classList.toggle('dim', k > i);
      parts[STAGES[i]].classList.remove('dim');
      drawHistogram(d);
      const r = d.row, vars = {
        nq: SCALING_QUERIES, nk: SCALING_KEYS, count: d.count, dk: d.dk, seed: d.seed, dot: fmt(d.sample.dot), root: fmt(d.root),
        std: fmt(d.raw.std, 2), std2: fmt(d.scaled.std, 2), keys: ROW_KEYS, hu: fmt(r.uniformEntropy),
        max1: fmt(r.unscaled.mean.max), h1: fmt(r.unscaled.mean.entropy), max2: fmt(r.scaled.mean.max), h2: fmt(r.scaled.mean.entropy),
        j1: fmt(r.unscaled.mean.jacobian), j2: fmt(r.scaled.mean.jacobian), c1: r.unscaled.collapsed, c2: r.scaled.collapsed,
      };
      if (i === 3) vars.verdict = i18n.t(r.unscaled.collapsed >= 4 ? 'scaling.collapsed' : 'scaling.notCollapsed');
      if (i === 4) {
        const ratio = r.scaled.mean.jacobian / Math.max(r.unscaled.mean.jacobian, 1e-12);
        vars.verdict = ratio >= 1.5 ? i18n.t('scaling.starved', { ratio: ratio >= 1000 ? ratio.toExponential(1) : ratio.toFixed(1) }) : i18n.t('scaling.notStarved');
      }
      return i18n.t(`scaling.step${i}`, vars);
    }

    return {
      count: () => STAGES.length, initial: STAGES.length - 1, draw, render,
      stage: (i) => STAGES[i],
      setLanguage: () => draw(data()),
    };
  },
});
