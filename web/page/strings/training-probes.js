// strings/training-probes.js: the words of the training section's the nearest-word and analogy probes, zh and en (web/page/sections/training/probes.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const TRAINING_PROBES_STRINGS = {
  zh: {
    'training.baseline': '对照：不做加减，离 {a} 本身最近的词',
    'training.baselineSame': '答案“{word}”本来就是 {a} 的近邻（第 {rank}）：这个类比说明的比看上去少。',
    'training.baselineNew': '答案“{word}”不在 {a} 自己最近的 {k} 个词里：是加减把它带过来的。',
  },
  en: {
    'training.baseline': 'Baseline, no arithmetic: the words nearest to {a} itself',
    'training.baselineSame': 'The answer, {word}, is already one of {a}’s own nearest words (number {rank}): the analogy shows less than it seems.',
    'training.baselineNew': 'The answer, {word}, is not among {a}’s own {k} nearest words: the arithmetic brought it there.',
  },
};
