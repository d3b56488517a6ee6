// The whole data flow, live (the page's last section). Each stage shows the current example's shape;
// hovering or focusing a stage (or stepping onto it) shows its tensor with its values below the
// strip, and clicking it jumps to the section that explains it. Positions (the sine table) and
// multi-head attention (at the number of heads the reader chose, the URL's heads) have stages of
// their own. The strip ends with the next-token prediction, softmax(O · W_out) of shape [n, V]
// (W_out untrained here: the training sections train one).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, indexLabels } from '../shell/section-shell.js';
import { VOCABULARY } from '../models/attention.js';
import { D_MODEL_HEADS } from '../models/heads-positions.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'flow.title': '完整数据流',
    'flow.intro1': '把所有环节串起来：文字 → 编号 → 查 embedding 表（加位置向量）得到 X → 乘 W_Q、W_K、W_V 得到 Q、K、V → Q·Kᵀ（/√d_k）得到打分 S → 按行 softmax 得到权重 A → A·V 得到输出 O（多头时，几个头的输出并排拼接，再乘 W_O）→ 残差、前馈网络、堆叠多层…… → 预测下一个词 → 与正确答案比较得到损失 → 反向传播，更新所有参数：embedding 表、W_Q、W_K、W_V……',
    'flow.intro2': '下面的形状和数值都来自当前这个例子的真实矩阵。把鼠标移到（或用 Tab 键走到）一个阶段上，下方显示它此刻的张量；点一下，跳到讲它的那一节。',
    'flow.ids': '词的编号', 'flow.X': 'X（embedding + 位置）', 'flow.PE': '正弦位置表 PE',
    'flow.heads': '{H} 个头：各 [n, {dk}]，拼接后乘 W_O', 'flow.QKV': 'Q、K、V', 'flow.S': '打分 S = Q·Kᵀ',
    'flow.A': '权重 A = softmax(S)', 'flow.O': '输出 O = A·V', 'flow.more': '残差、FFN、N 层……',
    'flow.P': '预测下一个词 softmax(O·W_out)',
    'flow.loss': '损失', 'flow.grad': '梯度回传，更新参数',
    'flow.step': '{name}：形状 {shape}。',
    'flow.stepP': '{name}：形状 [n, V] = {shape}，第 i 行是“第 i 个词后面是哪个词”在整个词表上的概率。这里的 W_out 是随机的、没训练过，所以这些概率只是噪声；训练那两节的模型会把它学出来。',
    'flow.stepLoss': '{name}：这里的例子只有一层注意力；训练一节里的模型会把它真正跑起来。',
    'flow.tensor': '此刻的张量：{name}，形状 {shape}',
    'flow.idsList': '编号',
    'flow.noTensor': '这个演示只有一层注意力，这一步没有计算；训练那两节的模型有残差，并真正训练。',
    'flow.trainOnly': '损失和梯度属于训练：见“走一遍训练的一步”那一节，那里的模型一个阶段一个阶段地把它们算出来。',
    'flow.top': '“{w}”之后最可能的词：“{next}”（p = {p}）',
    'flow.untrained': 'W_out 是随机的（没训练过），所以这些预测只是噪声：1/V = {u}，每个概率都在它附近。',
    'flow.stepPE': '{name}：形状 {shape}。原版 Transformer 把这张固定的表按位置加到词向量上（训练那两节的模型也是）；这里的 X 在第 2 节的开关打开时加的是随机的、“学出来”式的位置向量。',
    'flow.stepHeads': '多头：形状 {shape}。{H} 个头各用 Q、K、V 的 {dk} 列算自己的注意力，输出并排拼成 [n, 12]，再乘 W_O 回到 [n, 4]。头数在“多头注意力”一节里选。',
  },
  en: {
    'flow.title': 'The whole data flow',
    'flow.intro1': 'All the steps in a row: text → ids → look-up in the embedding table (plus position) gives X → times W_Q, W_K, W_V gives Q, K, V → Q·Kᵀ (/√d_k) gives the scores S → softmax by rows gives the weights A → A·V gives the output O (with several heads, their outputs side by side, times W_O) → residuals, feed-forward layers, N stacked layers… → a prediction of the next token → compared with the right answer gives the loss → backpropagation updates every parameter: the embedding table, W_Q, W_K, W_V…',
    'flow.intro2': 'The shapes and values below come from the real matrices of the current example. Hover over (or Tab to) a stage to see its tensor as it is now, below the strip; click it to jump to the section that explains it.',
    'flow.ids': 'token ids', 'flow.X': 'X (embedding + position)', 'flow.PE': 'sine positions PE',
    'flow.heads': '{H} heads: [n, {dk}] each, concatenated, times W_O', 'flow.QKV': 'Q, K, V', 'flow.S': 'scores S = Q·Kᵀ',
    'flow.A': 'weights A = softmax(S)', 'flow.O': 'output O = A·V', 'flow.more': 'residual, FFN, N layers…',
    'flow.P': 'predict the next token softmax(O·W_out)',
    'flow.loss': 'loss', 'flow.grad': 'gradients flow back, parameters update',
    'flow.step': '{name}: shape {shape}.',
    'flow.stepP': '{name}: shape [n, V] = {shape}; row i gives every word of the vocabulary a probability of coming after token i. W_out here is random, not trained, so these probabilities are noise; the training sections learn one.',
    'flow.stepLoss': '{name}: this example has a single attention layer; the training section runs a real model.',
    'flow.tensor': 'The tensor now: {name}, shape {shape}',
    'flow.idsList': 'ids',
    'flow.noTensor': 'This demo has one attention layer, so nothing is computed at this stage; the training sections’ model has a residual and is really trained.',
    'flow.trainOnly': 'The loss and the gradients belong to training: see “One training step, walked through”, where the model computes them stage by stage.',
    'flow.top': 'after “{w}” the most likely word: “{next}” (p = {p})',
    'flow.untrained': 'W_out is random (untrained), so these predictions are noise: every probability is near 1/V = {u}.',
    'flow.stepPE': '{name}: shape {shape}. The original Transformer adds this fixed table to the word vectors by position (so does the model of the training sections); this example’s X adds random, learned-style position vectors when section 2’s switch is on.',
    'flow.stepHeads': 'Multi-head: shape {shape}. Each of the {H} heads computes its own attention from {dk} columns of Q, K and V; their outputs side by side make [n, 12], and W_O brings them back to [n, 4]. The number of heads is chosen in the section “Multi-head attention”.',
  },
});

const shapeText = (m) => `[${m.rows}, ${m.cols}]`;

export const flowSection = defineSection({
  id: 'flow', titleKey: 'flow.title', introKeys: ['flow.intro1', 'flow.intro2'],
  setup(frame) {
    const { i18n, ctx, events } = frame;
    const heads = () => ctx.state.get('heads');
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
      show(index);
      const st = stages(frame.snap)[index];
      return i18n.t(st.narrate || 'flow.step', { name: name(st), shape: st.shape, H: heads(), dk: D_MODEL_HEADS / heads() });
    }

    // the heads stage follows the number of heads the reader picks in the multi-head section
    const offHeads = ctx.state.onChange((key) => {
      if (key !== 'heads') return;
      build(frame.snap);
      frame.stepper.refresh();
    });

    return {
      count: (snap) => stages(snap).length,
      draw: build,
      render,
      setLanguage: () => { label(); if (shown >= 0) show(shown); },
      destroy: () => { offHeads(); clear(list); },
    };
  },
});
