// softmax.strings.js: the words of the section "softmax", zh and en (web/page/sections/softmax.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const SOFTMAX_STRINGS = {
  zh: {
    'softmax.title': 'softmax：按行把打分变成权重',
    'softmax.intro1': '打分可正可负，还不能直接当比例用。softmax 对每一行做 exp 再除以这一行的总和：结果都不小于 0，而且每行加起来正好是 1——一个词把自己 100% 的注意力分给全句。注意是按行（每个提问的词）做，不是按列。',
    'softmax.intro2': '文章这一章还没有除以 √d_k，所以默认关闭缩放，数字和文章一致。打开开关，打分先除以 √d_k（这里 d_k = {dk}，√{dk} ≈ {root}），权重会更平均一些。d_k 大的时候为什么非除不可，见后面“为什么要除以 √d_k”一节。',
    'softmax.scale': '先除以 √d_k',
    'softmax.rowTitle': '“{word}”的注意力分配',
    'softmax.sum': '这一行的和 = {sum}',
    'softmax.step0': '打分表 S（原始的 Q·Kᵀ）。下一步开始逐行做 softmax。',
    'softmax.stepRow': '第 {r} 行（{word}）：softmax({div}) = {weights}，和为 {sum}。最大的权重给了“{top}”。',
    'softmax.divNone': '打分', 'softmax.divScaled': '打分 / √{dk}',
    'softmax.compare': '对比：不缩放时第一行权重 {a}；除以 √d_k 后 {b}。',
  },
  en: {
    'softmax.title': 'Softmax turns each row of scores into weights',
    'softmax.intro1': 'Scores can be positive or negative, so they are not proportions yet. Softmax takes exp of each entry in a row and divides by the row’s total: every weight is at least 0 and each row adds up to exactly 1 — one token sharing out 100% of its attention over the sentence. It works along rows (one per asking token), not columns.',
    'softmax.intro2': 'The article’s chapter does not divide by √d_k yet, so scaling starts off and the numbers match it. Switch it on and the scores are divided by √d_k first (here d_k = {dk}, √{dk} ≈ {root}): the weights become a little more even. Why it becomes necessary when d_k is large is the section “Why divide by √d_k”, further on.',
    'softmax.scale': 'Divide by √d_k first',
    'softmax.rowTitle': 'How “{word}” shares its attention',
    'softmax.sum': 'row sum = {sum}',
    'softmax.step0': 'The score table S (raw Q·Kᵀ). Next, softmax row by row.',
    'softmax.stepRow': 'Row {r} ({word}): softmax({div}) = {weights}, summing to {sum}. The largest weight goes to “{top}”.',
    'softmax.divNone': 'scores', 'softmax.divScaled': 'scores / √{dk}',
    'softmax.compare': 'Compare: row 1 unscaled gives {a}; divided by √d_k it gives {b}.',
  },
};
