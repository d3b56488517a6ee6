// walkthrough.strings.js: the words of the section "walkthrough", zh and en (web/page/sections/walkthrough.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const WALKTHROUGH_STRINGS = {
  zh: {
    'walk.title': '自注意力：从 X 到输出',
    'walk.intro': '一句话“{sentence}”，五步算完一次自注意力。按 ▶ 播放，或用 ← → 单步。',
    'walk.step.X': '第 1 步 · X：每个词是一行 {d} 个数（它的 embedding），X 的形状是 [{n}, {d}]。',
    'walk.step.QKV': '第 2 步 · Q = X·W_Q，K = X·W_K，V = X·W_V：同一个 X 乘三个可学习矩阵，得到查询、键、值三种角色，各是 [{n}, {dk}]。',
    'walk.step.scores': '第 3 步 · 分数 S = Q·Kᵀ：第 i 行第 j 列是词 i 的查询和词 j 的键的点积。“{w}”这一行：{row}。',
    'walk.step.weights': '第 4 步 · 权重 A = softmax(S ÷ {s})，按行计算：每行都是非负数，加起来等于 1。“{w}”分给各词的注意力：{row}。',
    'walk.step.output': '第 5 步 · 输出 O = A·V：每个词的新向量是所有 V 行按权重的加权和。“{w}”的输出：{row}。',
  },
  en: {
    'walk.title': 'Self-attention, from X to the output',
    'walk.intro': 'One sentence, “{sentence}”, and one pass of self-attention in five steps. Press ▶ to play, or step with ← →.',
    'walk.step.X': 'Step 1 · X: each word is a row of {d} numbers (its embedding); X has shape [{n}, {d}].',
    'walk.step.QKV': 'Step 2 · Q = X·W_Q, K = X·W_K, V = X·W_V: one X times three learned matrices gives three roles (query, key, value), each [{n}, {dk}].',
    'walk.step.scores': 'Step 3 · scores S = Q·Kᵀ: row i, column j is the dot product of word i’s query with word j’s key. The row of “{w}”: {row}.',
    'walk.step.weights': 'Step 4 · weights A = softmax(S ÷ {s}), row by row: every row is non-negative and adds up to 1. How “{w}” spreads its attention: {row}.',
    'walk.step.output': 'Step 5 · output O = A·V: each word’s new vector is a weighted sum of all the rows of V. The output of “{w}”: {row}.',
  },
};
