// Section 10: the whole data flow, with the live shapes of the current example. Clicking a stage
// jumps to the section that explains it.
import { h, clear } from '../dom.js';
import { addStrings } from '../i18n.js';
import { defineSection } from '../section-shell.js';

addStrings({
  zh: {
    'flow.title': '完整数据流',
    'flow.intro1': '把所有环节串起来：文字 → 编号 → 查 embedding 表（加位置向量）得到 X → 乘 W_Q、W_K、W_V 得到 Q、K、V → Q·Kᵀ（/√d_k）得到打分 S → 按行 softmax 得到权重 A → A·V 得到输出 O → 残差、前馈网络、堆叠多层…… → 预测下一个词 → 与正确答案比较得到损失 → 反向传播，更新所有参数：embedding 表、W_Q、W_K、W_V……',
    'flow.intro2': '下面的形状来自当前这个例子的真实矩阵。点一个阶段，跳到讲它的那一节。',
    'flow.ids': '词的编号', 'flow.X': 'X（embedding + 位置）', 'flow.QKV': 'Q、K、V', 'flow.S': '打分 S = Q·Kᵀ',
    'flow.A': '权重 A = softmax(S)', 'flow.O': '输出 O = A·V', 'flow.more': '残差、FFN、N 层……',
    'flow.loss': '损失', 'flow.grad': '梯度回传，更新参数',
    'flow.step': '{name}：形状 {shape}。',
    'flow.stepLoss': '{name}：这里的例子只有一层注意力；训练一节里的模型会把它真正跑起来。',
  },
  en: {
    'flow.title': 'The whole data flow',
    'flow.intro1': 'All the steps in a row: text → ids → look-up in the embedding table (plus position) gives X → times W_Q, W_K, W_V gives Q, K, V → Q·Kᵀ (/√d_k) gives the scores S → softmax by rows gives the weights A → A·V gives the output O → residuals, feed-forward layers, N stacked layers… → a prediction of the next token → compared with the right answer gives the loss → backpropagation updates every parameter: the embedding table, W_Q, W_K, W_V…',
    'flow.intro2': 'The shapes below come from the real matrices of the current example. Click a stage to jump to the section that explains it.',
    'flow.ids': 'token ids', 'flow.X': 'X (embedding + position)', 'flow.QKV': 'Q, K, V', 'flow.S': 'scores S = Q·Kᵀ',
    'flow.A': 'weights A = softmax(S)', 'flow.O': 'output O = A·V', 'flow.more': 'residual, FFN, N layers…',
    'flow.loss': 'loss', 'flow.grad': 'gradients flow back, parameters update',
    'flow.step': '{name}: shape {shape}.',
    'flow.stepLoss': '{name}: this example has a single attention layer; the training section runs a real model.',
  },
});

export const flowSection = defineSection({
  id: 'flow', titleKey: 'flow.title', introKeys: ['flow.intro1', 'flow.intro2'],
  setup(frame) {
    const { i18n, ctx } = frame;
    const shape = (...dims) => `[${dims.join(', ')}]`;
    const stages = (snap) => [
      { key: 'flow.ids', shape: shape(snap.embedding.ids.length), target: 'embedding' },
      { key: 'flow.X', shape: shape(snap.X.rows, snap.X.cols), target: 'embedding' },
      { key: 'flow.QKV', shape: shape(snap.Q.rows, snap.Q.cols), target: 'projections' },
      { key: 'flow.S', shape: shape(snap.scores.rows, snap.scores.cols), target: 'scores' },
      { key: 'flow.A', shape: shape(snap.weights.rows, snap.weights.cols), target: 'softmax' },
      { key: 'flow.O', shape: shape(snap.output.rows, snap.output.cols), target: 'mixing' },
      { key: 'flow.more', shape: '…', target: null },
      { key: 'flow.loss', shape: '[1]', target: 'training' },
      { key: 'flow.grad', shape: '∇', target: 'training', back: true },
    ];
    const list = h('ol', { class: 'flow' });
    frame.stage.append(list);
    function draw(active) {
      clear(list);
      stages(frame.snap).forEach((st, k) => {
        const b = h('button', { class: `flow-stage${k === active ? ' active' : ''}${st.back ? ' back' : ''}`, attrs: { type: 'button' }, disabled: !st.target },
          h('span', { text: i18n.t(st.key) }), h('span', { class: 'shape num', text: st.shape }));
        if (st.target) b.addEventListener('click', () => ctx.goTo(st.target));
        list.append(h('li', {}, b));
      });
    }
    function render(index) {
      draw(index);
      const st = stages(frame.snap)[index];
      return i18n.t(index >= 7 ? 'flow.stepLoss' : 'flow.step', { name: i18n.t(st.key), shape: st.shape });
    }
    return { count: (snap) => stages(snap).length, render, destroy: () => clear(list) };
  },
});
