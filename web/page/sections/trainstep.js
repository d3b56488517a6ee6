// Section trainstep: one training step, walked through on one sentence (the second article's
// 我 爱 吃 苹 → 果): look-up, positions, the head's attention, next-word probabilities, the loss,
// the gradient that reaches the embedding table (non-zero on exactly this sentence's rows) and the
// update, then the same sentence's loss again. Real numbers from the shared training run at its
// current step (training/step.js computes them; this file only draws), and beside them the
// attention and the prediction at step 0 and now.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection } from '../shell/section-shell.js';
import { createTrainStepSource } from '../training/step.js';
import { createHeatTable } from '../views/heat-table.js';
import { EmbeddingHeatmap } from '../views/embedding-heatmap.js';
import { glossed, glossedShort, glossedSentence } from '../strings/glosses.js';
import { themeOf } from '../views/charts/theme.js';

/** The stages, in order: the stepper's steps and the `stage` of its progress events. */
export const TRAINSTEP_STAGES = Object.freeze(['lookup', 'positions', 'attention', 'predict', 'loss', 'backward', 'update', 'after']);
const TOP = 5;  // next-word bars per position

/** fmt, except that a number too small for 3 decimals but not 0 reads as such (2.1e-5), never 0.000. */
function fmtSmall(x) {
  return x !== 0 && Math.abs(x) < 0.0005 ? x.toExponential(1) : fmt(x);
}

addStrings({
  zh: {
    'ts.title': '走一遍训练的一步：从“我 爱 吃 苹”到“果”',
    'ts.intro1': '第 2 节说过：查表等于 one-hot 乘整张表，所以梯度只会回到被取出的那几行。这一节把一次训练从头到尾走一遍，用的是文章里的句子“我 爱 吃 苹 果”，也可以换成语料里的任何一句。每一步都是真数字：来自下一节那个正在训练的模型，停在它此刻的训练步数上。',
    'ts.intro2': '句子按 <s> 我 爱 吃 苹 果 读入，每个位置都猜下一个词：<s> 之后猜“我”，“我”之后猜“爱”……“苹”之后猜“果”，“果”之后猜句子结束 <s>。所有位置的损失取平均，就是这句话的损失。更新是在当前参数的一份拷贝上做的：看的是“在这句话上走一步会怎样”，下一节的训练本身不受影响。',
    'ts.sentence': '句子',
    'ts.runAt': '训练停在第 {step} / {total} 步（种子 {seed}，{opt}，学习率 {lr}，{batch}）。',
    'ts.batchOne': '每步 1 句', 'ts.batchMany': '每步 {n} 句',
    'ts.toStart': '看未训练的模型（第 0 步）',
    'ts.toEnd': '看训练完的模型（第 {total} 步）',
    'ts.missing': '“{asked}”不是当前语料里的句子，改用第一句“{used}”。',
    'ts.waiting': '模型还没准备好：滚动到这里时才开始。',
    'ts.replaying': '正在重放训练：第 {done} / {target} 步……',
    'ts.error': '出错了：{message}',
    'ts.stage.lookup': '查表', 'ts.stage.positions': '加位置', 'ts.stage.attention': '注意力',
    'ts.stage.predict': '预测下一个词', 'ts.stage.loss': '损失', 'ts.stage.backward': '反向传播',
    'ts.stage.update': '更新', 'ts.stage.after': '再算一次',
    'ts.stages': '训练一步的各个阶段',
    'ts.lookupNote': 'one-hot 向量只在编号处是 1，其余 {rest} 个位置都是 0；它乘 E（{V} 行 × {d} 列），结果就是 E 的那一行。右边的表是整张 E，亮起来的是被取出的行。',
    'ts.idChip': '编号 {id}',
    'ts.rowsE': 'E[编号]：取出的 {n} 行',
    'ts.tableE': 'Embedding 表 E（{V} × {d}）', 'ts.tableEShort': 'Embedding 表 E',
    'ts.gradHeatShort': '∂损失/∂E', 'ts.compareShort': '第 0 步与现在',
    'ts.positionsNote': '位置向量是固定的正弦、余弦波，不参与训练；它让同一个词在不同位置有不同的 X。',
    'ts.attentionNote': '打分 Q·Kᵀ 先除以 √d = {sqrt}；对角线右上方的格子（后面的词）被遮住，不进 softmax：每个位置只能看自己和前面的词。',
    'ts.scores': '打分 Q·Kᵀ（未缩放）',
    'ts.weights': '权重 softmax(遮罩(Q·Kᵀ / √d))',
    'ts.predictNote': '每个位置：h = X + 注意力输出，logits = h·W_out + b，softmax 得到下一个词的概率。列出概率最高的 {k} 个词，✓ 标出正确答案。',
    'ts.after': '读到“{context}”之后',
    'ts.target': '正确答案：{word}，p = {p}（第 {rank} / {V}）',
    'ts.readOff': 'p({word} | {context}) = {p}',
    'ts.lossNote': '每个位置的损失是 −ln p(正确的下一个词)：猜得越准越接近 0。一句话的损失是 {n} 个位置的平均。',
    'ts.lossMean': '平均损失 = {loss}（全是均匀猜测时是 ln {V} = {uniform}）',
    'ts.backwardNote': '损失对 E 的梯度：只有这句话用到的行（包括 <s>）不是 0，E 的其他 {zero} 行的梯度都正好是 0，因为前向时它们根本没被取出来。下面是非零行的梯度长度和数值（模型在某个位置已经猜得很准时，那一行的梯度可能很小，但不是 0）。',
    'ts.gradTable': '∂损失/∂E 的非零行',
    'ts.gradHeat': '∂损失/∂E（{V} × {d}）：只有 {k} 行有颜色',
    'ts.zeroRows': '其余 {zero} 行：全是 0。',
    'ts.updateNoteSgd': '随机梯度下降：E 的行 ← E 的行 − 学习率 × 梯度，学习率 {lr}。只有这 {k} 行变了，E 的其余行一位都没变。',
    'ts.updateNoteAdam': '这次训练用的是 Adam：每一格的步长是 学习率 × m̂ / (√v̂ + ε)，m、v 是梯度的滑动平均。这里在一份拷贝上走一步，拷贝的 m、v 从 0 开始，所以每一格差不多移动 ±学习率（{lr}），方向与梯度相反。变了的是这 {k} 行。',
    'ts.before': '更新前', 'ts.step': '− 学习率 × 梯度', 'ts.adamStep': 'Adam 的一步（之后 − 之前）', 'ts.afterRows': '更新后',
    'ts.afterNote': '同一句话，用更新后的参数再算一次损失：',
    'ts.lower': '降低了 {diff}。',
    'ts.higher': '反而升高了 {diff}：学习率 {lr} 对这句话太大，一步迈过了头。',
    'ts.lossBefore': '更新前', 'ts.lossAfter': '更新后',
    'ts.compare': '第 0 步与第 {step} 步',
    'ts.compareNote': '同一句话，未训练时和现在。注意力越来越集中（分散程度从接近 1 往下降），正确答案的概率越来越高。',
    'ts.compareZero': '训练还停在第 0 步，两边一样。先训练（上面的按钮，或下一节），再回来看。',
    'ts.at0': '第 0 步', 'ts.atNow': '第 {step} 步',
    'ts.spread': '注意力的分散程度：{v}（1 = 完全平均，0 = 只看一个词）',
    'ts.pLast': 'p({word} | {context}) = {p}',
    'ts.say.lookup': '查表：{n} 个词的编号是 {ids}。one-hot({first}) × E 取出第 {id} 行；这一步只读了 E 的 {n} 行，其余 {rest} 行没有被读。',
    'ts.say.positions': '加上位置：X = E[编号] + P，{n} × {d}。',
    'ts.say.attention': '注意力：Q、K、V 都是 X 乘各自的矩阵；打分除以 √{d}，遮住后面的词，再按行 softmax。“{last}”这一行最关注“{top}”（{w}）。',
    'ts.say.predict': '预测：读到“{context}”之后，模型给“{word}”的概率是 {p}，在 {V} 个词里排第 {rank}。',
    'ts.say.loss': '损失：每个位置 −ln p(正确的下一个词)，{n} 个位置平均是 {loss}。',
    'ts.say.backward': '反向：到达 E 的梯度恰好在 {k} 行上不是 0（这句话的词和 <s>），其余 {zero} 行正好是 0。',
    'ts.say.update': '更新：这 {k} 行各自减去 学习率 × 梯度（学习率 {lr}）；E 的其他行不变。',
    'ts.say.updateAdam': '更新（Adam）：这 {k} 行各自移动约 ±{lr}；E 的其他行不变。',
    'ts.say.after': '再算一次：这句话的损失从 {before} 变成 {after}。',
    'ts.say.wait': '模型还没准备好。',
  },
  en: {
    'ts.title': 'One training step, walked through: from 我 爱 吃 苹 to 果',
    'ts.intro1': 'Section 2 showed that a look-up is a one-hot vector times the whole table, so gradients flow back only to the rows that were taken out. This section walks one training step from start to finish on the article’s sentence 我 爱 吃 苹 果 (I love eating ap-ple), or any corpus sentence you pick. Every number is real: it comes from the model the next section trains, at the step it has reached.',
    'ts.intro2': 'The sentence is read as <s> 我 爱 吃 苹 果, and every position guesses the next word: after <s> it should say 我, after 我 it should say 爱, … after 苹 it should say 果, and after 果 the end of the sentence, <s>. The sentence’s loss is the mean over those positions. The update is taken on a copy of the current parameters: it shows what one step on this sentence would do, and leaves the run in the next section as it is.',
    'ts.sentence': 'Sentence',
    'ts.runAt': 'The run is at step {step} of {total} (seed {seed}, {opt}, learning rate {lr}, {batch}).',
    'ts.batchOne': 'one sentence per step', 'ts.batchMany': '{n} sentences per step',
    'ts.toStart': 'Show the untrained model (step 0)',
    'ts.toEnd': 'Show the trained model (step {total})',
    'ts.missing': '“{asked}” is not a sentence of the current corpus; showing its first sentence, “{used}”, instead.',
    'ts.waiting': 'The model is not ready yet: it is built when this section comes into view.',
    'ts.replaying': 'Replaying the run: step {done} of {target}…',
    'ts.error': 'Something went wrong: {message}',
    'ts.stage.lookup': 'Look-up', 'ts.stage.positions': 'Positions', 'ts.stage.attention': 'Attention',
    'ts.stage.predict': 'Next word', 'ts.stage.loss': 'Loss', 'ts.stage.backward': 'Backward',
    'ts.stage.update': 'Update', 'ts.stage.after': 'Loss again',
    'ts.stages': 'The stages of one training step',
    'ts.lookupNote': 'A one-hot vector is 1 at the word’s id and 0 in the other {rest} places; times E ({V} rows × {d} columns) it gives exactly that row of E. The table on the right is all of E, with the rows taken out lit.',
    'ts.idChip': 'id {id}',
    'ts.rowsE': 'E[ids]: the {n} rows taken out',
    'ts.tableE': 'The embedding table E ({V} × {d})', 'ts.tableEShort': 'The embedding table E',
    'ts.gradHeatShort': '∂loss/∂E', 'ts.compareShort': 'Step 0 and now',
    'ts.positionsNote': 'The position vectors are fixed sine and cosine waves, not trained; they give the same word a different X at a different place.',
    'ts.attentionNote': 'The scores Q·Kᵀ are divided by √d = {sqrt}; the cells above the diagonal (later words) are masked out of the softmax: each position sees only itself and the words before it.',
    'ts.scores': 'Scores Q·Kᵀ (unscaled)',
    'ts.weights': 'Weights softmax(mask(Q·Kᵀ / √d))',
    'ts.predictNote': 'At each position: h = X + the attention output, logits = h·W_out + b, and softmax gives the next word’s probabilities. The {k} most likely words are listed; ✓ marks the right answer.',
    'ts.after': 'After “{context}”',
    'ts.target': 'right answer: {word}, p = {p} (rank {rank} of {V})',
    'ts.readOff': 'p({word} | {context}) = {p}',
    'ts.lossNote': 'The loss at each position is −ln p(the right next word): the surer the model is of the right word, the closer to 0. The sentence’s loss is the mean over its {n} positions.',
    'ts.lossMean': 'mean loss = {loss} (even guessing over all words would give ln {V} = {uniform})',
    'ts.backwardNote': 'The gradient of the loss with respect to E: only the rows this sentence used (<s> included) are non-zero; the other {zero} rows of E get a gradient of exactly 0, because the forward pass never took them out. Below: the non-zero rows’ lengths and values (where the model already predicts well, a row’s gradient can be tiny, but it is not 0).',
    'ts.gradTable': 'The non-zero rows of ∂loss/∂E',
    'ts.gradHeat': '∂loss/∂E ({V} × {d}): only {k} rows are coloured',
    'ts.zeroRows': 'The other {zero} rows: all 0.',
    'ts.updateNoteSgd': 'Stochastic gradient descent: E_row ← E_row − learning rate × gradient, with learning rate {lr}. Only these {k} rows change; every other row of E keeps every digit.',
    'ts.updateNoteAdam': 'This run uses Adam: each entry moves by learning rate × m̂ / (√v̂ + ε), where m and v are running averages of its gradients. The step here is taken on a copy whose m and v start at 0, so each entry moves by about ±learning rate ({lr}), against its gradient. These {k} rows changed.',
    'ts.before': 'before', 'ts.step': '− learning rate × gradient', 'ts.adamStep': 'Adam’s step (after − before)', 'ts.afterRows': 'after',
    'ts.afterNote': 'The same sentence, its loss computed again with the updated parameters:',
    'ts.lower': 'lower by {diff}.',
    'ts.higher': 'higher by {diff}: learning rate {lr} is too large for this sentence, and the step overshot.',
    'ts.lossBefore': 'before', 'ts.lossAfter': 'after',
    'ts.compare': 'Step 0 and step {step}',
    'ts.compareNote': 'The same sentence, untrained and now. Attention concentrates (its spread falls from nearly 1) and the right word becomes more likely.',
    'ts.compareZero': 'The run is still at step 0, so both sides are the same. Train it (the button above, or the next section) and come back.',
    'ts.at0': 'step 0', 'ts.atNow': 'step {step}',
    'ts.spread': 'spread of attention: {v} (1 = perfectly even, 0 = one word)',
    'ts.pLast': 'p({word} | {context}) = {p}',
    'ts.say.lookup': 'Look-up: the {n} tokens have ids {ids}. one-hot({first}) × E picks row {id}; this step reads {n} rows of E and leaves the other {rest} unread.',
    'ts.say.positions': 'Positions added: X = E[ids] + P, {n} × {d}.',
    'ts.say.attention': 'Attention: Q, K and V are X times their own matrices; the scores are divided by √{d}, later words masked, then softmax by rows. The row of {last} attends most to {top} ({w}).',
    'ts.say.predict': 'Prediction: after “{context}” the model gives {word} a probability of {p}, rank {rank} of {V}.',
    'ts.say.loss': 'Loss: −ln p(the right next word) at each position; the mean over {n} positions is {loss}.',
    'ts.say.backward': 'Backward: the gradient reaching E is non-zero on exactly {k} rows (this sentence’s words and <s>) and exactly 0 on the other {zero}.',
    'ts.say.update': 'Update: each of these {k} rows moves by − learning rate × gradient (learning rate {lr}); the other rows of E stay as they were.',
    'ts.say.updateAdam': 'Update (Adam): each of these {k} rows moves by about ±{lr} per entry; the other rows of E stay as they were.',
    'ts.say.after': 'Again: this sentence’s loss went from {before} to {after}.',
    'ts.say.wait': 'The model is not ready yet.',
  },
});

export const trainstepSection = defineSection({
  id: 'trainstep', titleKey: 'ts.title', introKeys: ['ts.intro1', 'ts.intro2'], className: 'qkv-trainstep',
  source: createTrainStepSource,
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const lang = () => i18n.lang;
    const store = ctx.training;

    // ---- controls: the sentence, where the run is, and two jumps of the run ----
    const select = h('select', { class: 'ts-sentence', attrs: { 'data-role': 'ts-sentence' } });
    const gloss = h('p', { class: 'note ts-gloss' });
    const runAt = h('p', { class: 'note ts-run', attrs: { 'data-role': 'ts-run' } });
    const missing = h('p', { class: 'inline-message', attrs: { 'aria-live': 'polite', 'data-role': 'ts-missing' }, hidden: true });
    const toStart = texts.set(h('button', { attrs: { type: 'button', 'data-role': 'ts-start' } }), 'ts.toStart');
    const toEnd = h('button', { attrs: { type: 'button', 'data-role': 'ts-end' } });
    frame.controls.append(
      h('label', { class: 'field' }, texts.set(h('span'), 'ts.sentence'), select),
      toStart, toEnd, runAt, missing, gloss);
    events.on(select, 'change', () => ctx.state.set('example', select.value));
    events.on(toStart, 'click', () => store.goTo(0).then(() => store.saveStep()));
    events.on(toEnd, 'click', () => store.run && store.goTo(store.run.total).then(() => store.saveStep()));

    // ---- the stage: a strip of stage buttons, one panel per stage, and the then-and-now panel ----
    const stageButtons = TRAINSTEP_STAGES.map((name, i) => {
      const b = texts.set(h('button', { class: 'flow-stage', attrs: { type: 'button', 'data-stage': name } }), `ts.stage.${name}`);
      events.on(b, 'click', () => frame.stepper.go(i));
      return b;
    });
    const strip = h('ol', { class: 'flow ts-flow' }, stageButtons.map((b) => h('li', {}, b)));
    texts.attr(strip, 'aria-label', 'ts.stages');
    const status = h('p', { class: 'note ts-status', attrs: { 'data-role': 'ts-status' } });
    const panels = Object.fromEntries(TRAINSTEP_STAGES.map((name) => [name, h('div', { class: 'ts-panel', attrs: { 'data-panel': name }, hidden: true })]));
    const compare = h('aside', { class: 'ts-compare card', attrs: { 'data-role': 'ts-compare' } });
    frame.stage.append(strip, status, h('div', { class: 'ts-body' }, h('div', { class: 'ts-panels' }, Object.values(panels)), compare));

    // look-up
    const chips = h('div', { class: 'chips ts-chips' });
    const lookupNote = h('p', { class: 'note' });
    const oneHot = h('p', { class: 'num ts-onehot', attrs: { 'data-role': 'ts-onehot' } });
    const rowsView = frame.view({ name: 'E[ids]', label: () => i18n.t('ts.rowsE', { n: snapNow()?.now?.tokens.length ?? 0 }), csv: false });
    const tableE = new EmbeddingHeatmap({ reducedMotion: () => true });
    const tableETitle = texts.set(h('h3', { class: 'sub-title' }), 'ts.tableEShort');  // never an empty heading
    panels.lookup.append(chips, lookupNote, oneHot, h('div', { class: 'ts-row' },
      rowsView.element, h('div', { class: 'ts-table' }, tableETitle, tableE.element)));
    // positions
    const eView = frame.view({ name: 'E[ids]', label: 'E[ids]', csv: false });
    const pView = frame.view({ name: 'P', label: 'P', csv: false });
    const xView = frame.view({ name: 'X', label: 'X', csv: false });
    panels.positions.append(texts.set(h('p', { class: 'note' }), 'ts.positionsNote'),
      h('div', { class: 'equation' }, eView.element, h('span', { class: 'op', text: '+' }), pView.element, h('span', { class: 'op', text: '=' }), xView.element));
    // attention
    const qView = frame.view({ name: 'Q', label: 'Q = X·W_Q', csv: false });
    const kView = frame.view({ name: 'K', label: 'K = X·W_K', csv: false });
    const vView = frame.view({ name: 'V', label: 'V = X·W_V', csv: false });
    const sView = frame.view({ name: 'S', label: () => i18n.t('ts.scores'), csv: false });
    const wTable = createHeatTable({ caption: () => i18n.t('ts.weights') });
    const attentionNote = h('p', { class: 'note' });
    panels.attention.append(attentionNote, h('div', { class: 'ts-row' }, qView.element, kView.element, vView.element),
      h('div', { class: 'ts-row' }, sView.element, wTable.element));
    // prediction
    const predictNote = h('p', { class: 'note' });
    const readOff = h('p', { class: 'ts-readoff', attrs: { 'data-role': 'ts-readoff' } });
    const predictCards = h('div', { class: 'cards ts-cards' });
    const hView = frame.view({ name: 'h', label: 'h = X + A·V', csv: false });
    panels.predict.append(predictNote, readOff, predictCards, h('div', { class: 'ts-row' }, hView.element));
    // loss
    const lossNote = h('p', { class: 'note' });
    const lossBars = h('div', { class: 'bars ts-bars' });
    const lossMean = h('p', { class: 'ts-mean', attrs: { 'data-role': 'ts-loss' } });
    panels.loss.append(lossNote, lossBars, lossMean);
    // backward
    const backwardNote = h('p', { class: 'note' });
    const normBars = h('div', { class: 'bars ts-bars', attrs: { 'data-role': 'ts-grad-rows' } });
    const zeroLine = h('p', { class: 'ts-zero', attrs: { 'data-role': 'ts-zero' } });
    const gView = frame.view({ name: '∂loss/∂E', label: () => i18n.t('ts.gradTable'), csv: false });
    const gradHeat = new EmbeddingHeatmap({ reducedMotion: () => true });
    const gradHeatTitle = texts.set(h('h3', { class: 'sub-title' }), 'ts.gradHeatShort');
    panels.backward.append(backwardNote, normBars, zeroLine, h('div', { class: 'ts-row' },
      gView.element, h('div', { class: 'ts-table' }, gradHeatTitle, gradHeat.element)));
    // update
    const updateNote = h('p', { class: 'note' });
    const beforeView = frame.view({ name: 'E', label: () => i18n.t('ts.before'), csv: false });
    const deltaView = frame.view({ name: 'Δ', label: () => i18n.t(snapNow()?.optimizer === 'adam' ? 'ts.adamStep' : 'ts.step'), csv: false });
    const afterView = frame.view({ name: 'E′', label: () => i18n.t('ts.afterRows'), csv: false });
    panels.update.append(updateNote, h('div', { class: 'equation' }, beforeView.element, h('span', { class: 'op', text: '+' }),
      deltaView.element, h('span', { class: 'op', text: '=' }), afterView.element));
    // after
    const afterNote = texts.set(h('p', { class: 'note' }), 'ts.afterNote');
    const afterLine = h('p', { class: 'ts-mean', attrs: { 'data-role': 'ts-after' } });
    const afterBars = h('div', { class: 'ts-pairs' });
    panels.after.append(afterNote, afterLine, afterBars);

    const snapNow = () => (frame.snap && frame.snap.status === 'ready' ? frame.snap : null);
    const word = (w) => glossed(w, lang());

    /** bar rows: [{ label, value, text, mark }] with values 0 … 1 of the track */
    function barRows(rows, cls = '') {
      return rows.map(({ label, value, text, mark }) => h('div', { class: `bar-row${mark ? ' ts-mark' : ''} ${cls}` },
        h('span', { class: 'bar-label', text: label, attrs: { title: label } }),
        h('span', { class: 'bar-track', attrs: { 'aria-hidden': 'true' } }, h('span', { class: 'bar-fill', style: `width:${Math.max(0, Math.min(1, value)) * 100}%` })),
        h('span', { class: 'bar-value num', text })));
    }

    const context = (snap, t) => snap.now.tokens.slice(1, t + 1).join(' ') || '<s>';
    const rowLabels = (snap) => snap.now.tokens.map((w, t) => `${t} ${w}`);
    const rankOf = (probs, t, id) => {
      const row = probs.data.subarray(t * probs.cols, (t + 1) * probs.cols);
      let rank = 1;
      for (let v = 0; v < row.length; v++) if (row[v] > row[id]) rank++;
      return rank;
    };
    const pOf = (ins, t) => ins.probs.data[t * ins.probs.cols + ins.targetIds[t]];
    // the position whose right answer is the sentence's last word: p(果 | 我 爱 吃 苹)
    const lastWordAt = (snap) => snap.now.tokens.length - 2;

    function drawControls(snap) {
      const data = frame.snap;
      if (snap) {
        const texts2 = snap.sentences.map((s) => s.join(' '));
        if (select.options.length !== texts2.length || [...select.options].some((o, i) => o.value !== texts2[i])) {
          select.replaceChildren(...texts2.map((t) => h('option', { value: t, text: t })));
        }
        select.value = texts2[snap.sentenceIndex];
        gloss.textContent = lang() === 'en' ? glossedSentence(snap.tokens, 'en') : '';
        gloss.hidden = lang() !== 'en';
        runAt.textContent = i18n.t('ts.runAt', {
          step: snap.step, total: snap.total, seed: snap.seed, opt: snap.optimizer === 'adam' ? 'Adam' : 'SGD', lr: snap.lr,
          batch: snap.batchSize === 1 ? i18n.t('ts.batchOne') : i18n.t('ts.batchMany', { n: snap.batchSize }),
        });
        toEnd.textContent = i18n.t('ts.toEnd', { total: snap.total });
        toStart.disabled = snap.step === 0;
        toEnd.disabled = snap.step >= snap.total;
        missing.hidden = !snap.missing;
        missing.textContent = snap.missing ? i18n.t('ts.missing', { asked: snap.missing, used: snap.tokens.join(' ') }) : '';
      } else {
        toStart.disabled = toEnd.disabled = true;
        toEnd.textContent = i18n.t('ts.toEnd', { total: store.run ? store.run.total : '…' });
      }
      frame.element.dataset.state = data.status;
      status.hidden = data.status === 'ready';
      status.textContent = data.status === 'replaying' ? i18n.t('ts.replaying', data)
        : data.status === 'error' ? i18n.t('ts.error', data)
          : data.status === 'waiting' ? i18n.t('ts.waiting') : '';
    }

    function draw() {
      const snap = snapNow();
      drawControls(snap);
      for (const p of Object.values(panels)) p.classList.toggle('dim', !snap);
      if (!snap) return;
      const { now, update, vocab } = snap;
      const n = now.tokens.length, d = snap.dim, V = vocab.length;
      frame.element.dataset.step = String(snap.step);
      // the heat maps' colours follow the text colour the section inherits (light or dark)
      const dark = themeOf(frame.element, typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches).dark;
      tableE.setDark(dark);
      gradHeat.setDark(dark);
      const labels = rowLabels(snap);
      const dims = Array.from({ length: d }, (_, j) => String(j));

      // look-up
      chips.replaceChildren(...now.tokens.map((w, t) => h('span', { class: 'chip', attrs: { 'data-id': now.ids[t] } },
        word(w), h('small', { text: i18n.t('ts.idChip', { id: now.ids[t] }) }))));
      lookupNote.textContent = i18n.t('ts.lookupNote', { rest: V - 1, V, d });
      // one-hot of the first word, written out: a 1 at its id, 0 everywhere else
      const id = now.ids[1];
      const shown = Math.min(V, Math.max(id + 3, 10));
      const places = Array.from({ length: shown }, (_, v) => (v === id ? '1' : '0')).join(' ');
      oneHot.textContent = `one-hot(${now.tokens[1]}) = [${places}${shown < V ? ' …' : ''}]  (${V})  × E = E[${id}]`;
      rowsView.update(now.embeddingRows, { rowLabels: labels, colLabels: dims });
      tableE.setWords(vocab, vocab.map((w) => glossedShort(w, lang())));
      tableE.draw(snap.table);
      tableE.flash(snap.step, [...new Set(now.ids)]);
      tableETitle.textContent = i18n.t('ts.tableE', { V, d });

      // positions
      eView.update(now.embeddingRows, { rowLabels: labels, colLabels: dims });
      pView.update(now.positions, { rowLabels: labels, colLabels: dims });
      xView.update(now.X, { rowLabels: labels, colLabels: dims });

      // attention
      attentionNote.textContent = i18n.t('ts.attentionNote', { sqrt: fmt(Math.sqrt(d)) });
      qView.update(now.Q, { rowLabels: labels, colLabels: dims });
      kView.update(now.K, { rowLabels: labels, colLabels: dims });
      vView.update(now.V, { rowLabels: labels, colLabels: dims });
      sView.update(now.scores, { rowLabels: labels, colLabels: now.tokens });
      sView.setHidden((i, j) => j > i);
      wTable.update(now.weights, labels, now.tokens);

      // prediction: the top words at each position, the right one marked
      predictNote.textContent = i18n.t('ts.predictNote', { k: TOP });
      hView.update(now.h, { rowLabels: labels, colLabels: dims });
      const last = lastWordAt(snap);
      readOff.textContent = i18n.t('ts.readOff', { word: now.targets[last], context: context(snap, last), p: fmt(pOf(now, last)) });
      predictCards.replaceChildren(...now.tokens.map((_, t) => {
        const row = Array.from(now.probs.data.subarray(t * V, (t + 1) * V), (p, v) => ({ p, v }));
        row.sort((a, b) => b.p - a.p || a.v - b.v);
        const top = row.slice(0, TOP);
        const target = now.targetIds[t];
        const rows = top.map(({ p, v }) => ({ label: word(vocab[v]), value: p, text: fmt(p), mark: v === target }));
        if (!top.some(({ v }) => v === target)) rows.push({ label: word(vocab[target]), value: pOf(now, t), text: fmt(pOf(now, t)), mark: true });
        for (const r of rows) if (r.mark) r.label = `✓ ${r.label}`;
        return h('div', { class: `card ts-card${t === last ? ' active' : ''}`, attrs: { 'data-position': t } },
          h('h3', { text: i18n.t('ts.after', { context: context(snap, t) }) }),
          h('div', { class: 'bars' }, barRows(rows)),
          h('p', { class: 'sum', text: i18n.t('ts.target', { word: word(now.targets[t]), p: fmt(pOf(now, t)), rank: rankOf(now.probs, t, target), V }) }));
      }));

      // loss per position and the mean
      lossNote.textContent = i18n.t('ts.lossNote', { n });
      const maxLoss = Math.max(Math.log(V), ...now.losses);
      lossBars.replaceChildren(...barRows(now.losses.map((l, t) => ({
        label: `${context(snap, t)} → ${now.targets[t]}`, value: l / maxLoss, text: fmt(l) }))));
      lossMean.textContent = i18n.t('ts.lossMean', { loss: fmt(now.loss), V, uniform: fmt(Math.log(V)) });

      // backward: the gradient's non-zero rows, and the count of rows that are exactly 0
      backwardNote.textContent = i18n.t('ts.backwardNote', { zero: snap.zeroRows });
      const maxNorm = Math.max(...now.gradientRows.map((r) => r.norm), 1e-12);
      normBars.replaceChildren(...barRows(now.gradientRows.map((r) => ({
        label: `${r.row} ${word(r.word)}`, value: r.norm / maxNorm, text: fmtSmall(r.norm) }))));
      zeroLine.textContent = i18n.t('ts.zeroRows', { zero: snap.zeroRows });
      const gRows = now.gradientRows.map((r) => r.row);
      gView.update(snap.gradNonZero, { rowLabels: now.gradientRows.map((r) => `${r.row} ${r.word}`), colLabels: dims });
      gradHeat.setWords(vocab, vocab.map((w) => glossedShort(w, lang())));
      gradHeat.draw(now.gradients.embedding);
      gradHeat.flash(snap.step, gRows);
      gradHeatTitle.textContent = i18n.t('ts.gradHeat', { V, d, k: gRows.length });

      // update: before, the step, after (for the rows that changed)
      const k = update.updatedRows.length;
      const upLabels = update.updatedRows.map((r) => `${r} ${vocab[r]}`);
      updateNote.textContent = i18n.t(snap.optimizer === 'adam' ? 'ts.updateNoteAdam' : 'ts.updateNoteSgd', { lr: snap.lr, k });
      beforeView.update(update.rowsBefore, { rowLabels: upLabels, colLabels: dims });
      deltaView.update(update.delta, { rowLabels: upLabels, colLabels: dims });
      afterView.update(update.rowsAfter, { rowLabels: upLabels, colLabels: dims });

      // the loss again
      const diff = update.lossAfter - update.loss;
      afterLine.textContent = `${fmt(update.loss)} → ${fmt(update.lossAfter)}: ${diff <= 0
        ? i18n.t('ts.lower', { diff: fmt(-diff) }) : i18n.t('ts.higher', { diff: fmt(diff), lr: snap.lr })}`;
      afterLine.classList.toggle('good', diff <= 0);
      const maxPair = Math.max(...now.losses, ...update.after.losses, 1e-12);
      afterBars.replaceChildren(...now.losses.map((l, t) => h('div', { class: 'ts-pair' },
        h('p', { class: 'ts-pair-title', text: `${context(snap, t)} → ${word(now.targets[t])}` }),
        h('div', { class: 'bars' }, barRows([
          { label: i18n.t('ts.lossBefore'), value: l / maxPair, text: fmt(l) },
          { label: i18n.t('ts.lossAfter'), value: update.after.losses[t] / maxPair, text: fmt(update.after.losses[t]) },
        ])))));

      drawCompare(snap);
    }

    // then and now: the same sentence's attention and prediction at step 0 and at the run's step
    const compareTitle = texts.set(h('h3'), 'ts.compareShort');
    const compareNote = h('p', { class: 'note' });
    const sides = ['start', 'now'].map((which) => {
      const table = createHeatTable({ caption: () => (which === 'start' ? i18n.t('ts.at0') : i18n.t('ts.atNow', { step: snapNow()?.step ?? 0 })) });
      const p = h('p', { attrs: { 'data-role': 'ts-p' } });
      const spread = h('p', { attrs: { 'data-role': 'ts-spread' } });
      return { which, table, p, spread, element: h('div', { class: 'ts-side', attrs: { 'data-side': which } }, table.element, p, spread) };
    });
    compare.append(compareTitle, compareNote, h('div', { class: 'ts-sides' }, sides.map((s) => s.element)));

    function drawCompare(snap) {
      const last = lastWordAt(snap);
      const labels = snap.now.tokens;
      compareTitle.textContent = i18n.t('ts.compare', { step: snap.step });
      compareNote.textContent = snap.step === 0 ? i18n.t('ts.compareZero') : i18n.t('ts.compareNote');
      for (const side of sides) {
        const ins = snap[side.which];
        side.table.update(ins.weights, labels, labels);
        side.p.textContent = i18n.t('ts.pLast', { word: word(ins.targets[last]), context: context(snap, last), p: fmt(pOf(ins, last)) });
        side.spread.textContent = i18n.t('ts.spread', { v: fmt(snap.spread[side.which]) });
      }
    }

    function render(index) {
      TRAINSTEP_STAGES.forEach((name, i) => {
        panels[name].hidden = i !== index;
        stageButtons[i].classList.toggle('active', i === index);
        stageButtons[i].setAttribute('aria-current', i === index ? 'step' : 'false');
      });
      const snap = snapNow();
      if (!snap) return i18n.t('ts.say.wait');
      const { now, update, vocab } = snap;
      const n = now.tokens.length;
      const last = lastWordAt(snap);
      switch (TRAINSTEP_STAGES[index]) {
        case 'lookup':
          return i18n.t('ts.say.lookup', { n, ids: now.ids.join(', '), first: now.tokens[1], id: now.ids[1], rest: vocab.length - new Set(now.ids).size });
        case 'positions':
          return i18n.t('ts.say.positions', { n, d: snap.dim });
        case 'attention': {
          const row = now.weights.row(n - 1);
          const top = row.indexOf(Math.max(...row));
          return i18n.t('ts.say.attention', { d: snap.dim, last: now.tokens[n - 1], top: now.tokens[top], w: fmt(row[top]) });
        }
        case 'predict':
          return i18n.t('ts.say.predict', { context: context(snap, last), word: now.targets[last], p: fmt(pOf(now, last)), rank: rankOf(now.probs, last, now.targetIds[last]), V: vocab.length });
        case 'loss':
          return i18n.t('ts.say.loss', { n, loss: fmt(now.loss) });
        case 'backward':
          return i18n.t('ts.say.backward', { k: now.gradientRows.length, zero: snap.zeroRows });
        case 'update':
          return i18n.t(snap.optimizer === 'adam' ? 'ts.say.updateAdam' : 'ts.say.update', { k: update.updatedRows.length, lr: snap.lr });
        default:
          return i18n.t('ts.say.after', { before: fmt(update.loss), after: fmt(update.lossAfter) });
      }
    }

    return {
      count: () => TRAINSTEP_STAGES.length,
      draw, render,
      stage: (index) => TRAINSTEP_STAGES[index],
      setLanguage: () => draw(),
      destroy() {
        wTable.destroy();
        for (const side of sides) side.table.destroy();
      },
    };
  },
});
