// mixing.strings.js: the words of the section "mixing", zh and en (web/page/sections/mixing.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const MIXING_STRINGS = {
  zh: {
    'mix.title': '按权重取 V：加权求和',
    'mix.intro1': '最后一步：O = A·V。输出的第 i 行是 V 各行的混合，混合的比例就是第 i 行的注意力权重。所以每个词的新表示里，都按比例掺进了全句其他词的内容。输出仍是 [n, d_k]：词的个数不变，只改写每个词的表示。',
    'mix.part': '{w} × V[{word}]',
    'mix.sum': '合计 = O[{word}]',
    'mix.step': 'O[{word}] = {terms} = [{out}]',
    'mix.partsTitle': 'O[{word}] 的各项',
    'mix.partsLabel': 'O[{word}] = Σⱼ A[{word}][j] · V[j]，逐项写出',
  },
  en: {
    'mix.title': 'Weighting V: the weighted sum',
    'mix.intro1': 'The last step: O = A·V. Row i of the output is a mix of V’s rows, and the mixing amounts are row i of the attention weights. So each token’s new representation carries a share of every other token’s content. The output is still [n, d_k]: as many tokens as before, each one rewritten.',
    'mix.part': '{w} × V[{word}]',
    'mix.sum': 'total = O[{word}]',
    'mix.step': 'O[{word}] = {terms} = [{out}]',
    'mix.partsTitle': 'terms of O[{word}]',
    'mix.partsLabel': 'O[{word}] = Σⱼ A[{word}][j] · V[j], term by term',
  },
};
