// probes.strings.js: the words of the training section's the nearest-word and analogy probes (with the analogy's two baselines), zh and en (web/page/sections/training/probes.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const TRAINING_PROBES_STRINGS = {
  zh: {
    'training.baseline': '对照：不做加减，离 {a} 本身最近的词',
    'training.baselineSame': '答案“{word}”本来就是 {a} 的近邻（第 {rank}）：这个类比说明的比看上去少。',
    'training.baselineNew': '答案“{word}”不在 {a} 自己最近的 {k} 个词里：是加减把它带过来的。',
    'training.sumTitle': '对照：不减 {b}，离 {a} + {c} 最近的词',
    'training.sumSame': '不减 {b}，第一名也是“{word}”：这一步光是同时靠近 {a} 和 {c} 就足以找到它。',
    'training.sumOther': '不减 {b}，第一名是“{top}”：这一步是减去 {b} 才让“{word}”排到第一。',
  },
  en: {
    'training.baseline': 'Baseline, no arithmetic: the words nearest to {a} itself',
    'training.baselineSame': 'The answer, {word}, is already one of {a}’s own nearest words (number {rank}): the analogy shows less than it seems.',
    'training.baselineNew': 'The answer, {word}, is not among {a}’s own {k} nearest words: the arithmetic brought it there.',
    'training.sumTitle': 'Baseline, no − {b}: the words nearest to {a} + {c} alone',
    'training.sumSame': 'Without − {b}, {word} comes first too: at this step, being near {a} and {c} at once is enough to find it.',
    'training.sumOther': 'Without − {b}, {top} comes first: at this step the − {b} is what puts {word} first.',
  },
};
