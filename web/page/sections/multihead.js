// "Multi-head attention" (the series' chapter 4): the sentence's X projected to Q, K, V of width
// 12, cut into H heads (the reader picks 1 … 4; heads in the URL), each head's own Q, K and V
// slice and its attention as a heat map, side by side; then the heads' outputs side by side
// (concat) and W_O. The parameter count is the same for every H. The numbers come from the
// snapshot (heads-positions.js, multiHead: the API's multiHeadAttention for each H).
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { createHeatTable } from '../views/heat-table.js';
import { HEAD_COUNTS, D_MODEL_HEADS } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'mh.title': '多头注意力',
    'mh.intro1': '一个头只有一张权重表：每个词只能按一种标准去分配注意力，最后得到一种混合。可是一句话里的关系不止一种：谁做了什么、谁修饰谁、指代的是谁……多头注意力的做法很简单：把 Q、K、V 按列切成 H 份，每一份是一个“头”，各自算打分、各自 softmax、各自加权求和，最后把各头的输出并排拼起来，再乘一个 W_O 融合。',
    'mh.intro2': '这里 X 还是上面那句话（{n} 个词，每个 4 维），W_Q、W_K、W_V 把它投影到 12 维，W_O 再投回 4 维；这四个矩阵由种子 {seed} 的随机数生成（没有训练过）。每个头的打分都除以它自己的 √d_k。选几个头：',
    'mh.heads': '头数',
    'mh.headsOne': '1 个头（d_k = {dk}）', 'mh.headsOption': '{h} 个头（d_k = {dk}）',
    'mh.Q': 'Q = X·W_Q', 'mh.K': 'K = X·W_K', 'mh.V': 'V = X·W_V',
    'mh.headTitle': '头 {h}：第 {a}–{b} 列，d_k = {dk}',
    'mh.headWeights': '头 {h} 的权重 softmax(Q_{h}·K_{h}ᵀ / √{dk})',
    'mh.concat': '拼接：concat = [头 0 | 头 1 | …]',
    'mh.Y': 'Y = concat·W_O',
    'mh.params': 'W_Q、W_K、W_V 各 4 × 12，共 {proj} 个数；W_O 是 12 × 4，{out} 个；一共 {total} 个参数——1、2、3、4 个头都一样，也和一个 12 维的大头完全一样。多头并没有多花参数，只是把同样的 Q、K、V 切成更窄的几份，每份有自己的 softmax。',
    'mh.tops': '每个词最关注的词：{list}',
    'mh.step0': '先照常投影：Q、K、V 都是 {n} × 12。{H} 个头把这 12 列分成 {H} 段（不同底色），每段 d_k = {dk} 列。',
    'mh.step0one': '先照常投影：Q、K、V 都是 {n} × 12。只有 1 个头时，这就是一个 12 维的大头，和前面各节的单头注意力一样。',
    'mh.stepHead': '头 {h} 只用第 {a}–{b} 列：它自己的 Q、K、V，打分除以 √{dk}，再按行 softmax。{tops}',
    'mh.stepConcat': '各头的输出（每个 {n} × {dk}）并排拼起来：concat 又是 {n} × 12，每段来自一个头。',
    'mh.stepY': '最后乘 W_O（12 × 4），把各头的结果融合回 4 维：Y 是 {n} × 4，和 X 一样宽，可以接着做残差、进入下一层。{params}',
    'mh.differ': '各头关注的对象不一样：这正是多头的用处。',
    'mh.same': '这里各头恰好关注同样的词；换个种子或句子看看。',
  },
  en: {
    'mh.title': 'Multi-head attention',
    'mh.intro1': 'One head has one table of weights: every token shares out its attention by one criterion and ends up with one mix. But a sentence holds more than one kind of relation: who did what, what describes what, what refers to what… Multi-head attention does something simple: it cuts Q, K and V by columns into H parts, each part a “head” with its own scores, its own softmax and its own weighted sum, then puts the heads’ outputs side by side and blends them with one more matrix, W_O.',
    'mh.intro2': 'Here X is the sentence above again ({n} tokens, 4 numbers each); W_Q, W_K and W_V project it to 12 columns and W_O back to 4; all four come from the random generator seeded with {seed} (untrained). Each head divides its scores by its own √d_k. Choose how many heads:',
    'mh.heads': 'heads',
    'mh.headsOne': '1 head (d_k = {dk})', 'mh.headsOption': '{h} heads (d_k = {dk})',
    'mh.Q': 'Q = X·W_Q', 'mh.K': 'K = X·W_K', 'mh.V': 'V = X·W_V',
    'mh.headTitle': 'head {h}: columns {a}–{b}, d_k = {dk}',
    'mh.headWeights': 'head {h}’s weights softmax(Q_{h}·K_{h}ᵀ / √{dk})',
    'mh.concat': 'concat = [head 0 | head 1 | …]',
    'mh.Y': 'Y = concat·W_O',
    'mh.params': 'W_Q, W_K and W_V are 4 × 12 each, {proj} numbers; W_O is 12 × 4, {out}; {total} parameters in all, for 1, 2, 3 or 4 heads alike, exactly as many as one big head of width 12. Heads cost no extra parameters: they cut the same Q, K and V into narrower slices, each with a softmax of its own.',
    'mh.tops': 'Each token’s strongest attention: {list}',
    'mh.step0': 'First the usual projections: Q, K and V are {n} × 12. The {H} heads split those 12 columns into {H} blocks (tinted), d_k = {dk} columns each.',
    'mh.step0one': 'First the usual projections: Q, K and V are {n} × 12. With 1 head this is one big head of width 12, the single-head attention of the sections above.',
    'mh.stepHead': 'Head {h} uses only columns {a}–{b}: its own Q, K and V, scores divided by √{dk}, softmax by rows. {tops}',
    'mh.stepConcat': 'The heads’ outputs ({n} × {dk} each) side by side: concat is {n} × 12 again, each block from one head.',
    'mh.stepY': 'Last, W_O (12 × 4) blends the heads back into 4 columns: Y is {n} × 4, as wide as X, ready for the residual and the next layer. {params}',
    'mh.differ': 'The heads attend to different tokens: that is what several heads are for.',
    'mh.same': 'Here the heads happen to attend to the same tokens; try another seed or sentence.',
  },
});

/** Each head's strongest attention for every token: [[row, column], …]. */
function tops(weights) {
  return Array.from({ length: weights.rows }, (_, i) => {
    const row = weights.row(i);
    return row.indexOf(Math.max(...row));
  });
}

export const multiheadSection = defineSection({
  id: 'multihead', titleKey: 'mh.title',
  introKeys: ['mh.intro1', ['mh.intro2', (snap) => ({ n: snap.n, seed: snap.seed })]],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    let H = ctx.state.get('heads');

    // the head count: radio buttons (one Tab stop, arrows move), in the URL as heads
    const name = `${frame.id}-heads`;
    const radios = HEAD_COUNTS.map((count) => {
      const input = h('input', { attrs: { type: 'radio', name, value: String(count) }, checked: count === H });
      const label = h('span');
      events.on(input, 'change', () => {
        if (!input.checked) return;
        H = count;
        ctx.setSetting('heads', count);
        draw(snapNow());
        frame.stepper.setCount(H + 3, H + 2);
      });
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

    const result = (snap) => snap.derived.multiHead.byHeads[H];
    const dk = () => D_MODEL_HEADS / H;
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
      const patterns = res.heads.map((head) => tops(head.weights).join(','));
      verdict.textContent = H > 1 ? i18n.t(new Set(patterns).size > 1 ? 'mh.differ' : 'mh.same') : '';
      code.draw(snap, { heads: H });
    }

    function render(index) {
      const snap = snapNow();
      const res = result(snap);
      const stage = index === 0 ? 'project' : index <= H ? 'head' : index === H + 1 ? 'concat' : 'output';
      projections.classList.toggle('dim', index !== 0);
      headParts.forEach((part, k) => part.card.classList.toggle('pending', stage === 'head' ? k !== index - 1 : stage === 'project'));
      merge.classList.toggle('dim', index <= H);
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

    return {
      count: () => H + 3, initial: H + 2, draw, render,
      stage: (index) => (index === 0 ? 'project' : index <= H ? `head-${index - 1}` : index === H + 1 ? 'concat' : 'output'),
      setLanguage: () => draw(snapNow()),
      destroy() { for (const part of headParts) part.heat.destroy(); },
    };
  },
});
