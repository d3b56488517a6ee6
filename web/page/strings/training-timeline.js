// strings/training-timeline.js: the words of the training run's timeline, zh and en
// (web/page/sections/training/timeline.js uses them). Numbers come in through {placeholders}.
export const TRAINING_TIMELINE_STRINGS = {
  zh: {
    'timeline.summary': '时间轴：拖动回看训练中的任意一步',
    'timeline.slider': '回看第几步',
    'timeline.follow': '跟随训练',
    'timeline.following': '正在跟随训练（当前步）',
    'timeline.waiting': '训练开始后，这里可以回看每一步。',
    'timeline.step': '第 {step} / {total} 步：损失 {loss}（滑动平均 {average}）；cos(猫, 狗) = {dog}，cos(猫, 汽车) = {car}。',
    'timeline.step0': '第 0 / {total} 步（还没训练）：cos(猫, 狗) = {dog}，cos(猫, 汽车) = {car}。',
    'timeline.nearest': '离“{word}”最近的词',
    'timeline.attention': '“{sentence}”的注意力（第 {step} 步）',
    'timeline.scatter': '第 {step} 步的 embedding（PCA 投影到 2 维）',
    'timeline.memory': '每 {every} 步存一个检查点（完整的训练状态），现有 {count} 个，共 {kb} KB；回看任意一步最多从最近的检查点重放 {every} 步，数字和当时完全一样。',
  },
  en: {
    'timeline.summary': 'Timeline: scrub back to any step of the run',
    'timeline.slider': 'Step to look at',
    'timeline.follow': 'Follow the run',
    'timeline.following': 'Following the run (its current step)',
    'timeline.waiting': 'Once the run has started, every step it took can be looked at again here.',
    'timeline.step': 'Step {step} of {total}: loss {loss} (moving average {average}); cos(猫, 狗) = {dog}, cos(猫, 汽车) = {car}.',
    'timeline.step0': 'Step 0 of {total} (before training): cos(猫, 狗) = {dog}, cos(猫, 汽车) = {car}.',
    'timeline.nearest': 'Nearest words to “{word}”',
    'timeline.attention': 'Attention over “{sentence}” (step {step})',
    'timeline.scatter': 'The embeddings at step {step} (PCA, 2-D)',
    'timeline.memory': 'A checkpoint (the whole training state) every {every} steps: {count} so far, {kb} KB; any step is at most {every} steps of replay from the nearest, and shows exactly the numbers it had.',
  },
};
