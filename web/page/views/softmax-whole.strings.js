// softmax-whole.strings.js: the words of softmax-whole.js (a view), zh and en (web/page/views/softmax-whole.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const SOFTMAX_WHOLE_STRINGS = {
  zh: {
    'whole.title': '把“{word}”这一行的 softmax 完整写出来',
    'whole.temp': '温度 T = {t}',
    'whole.token': '词',
    'whole.total': '总和 Σ',
    'whole.z': '其中 {z}',
    'whole.note': '先把打分除以 T 再取 exp。T < 1 把打分拉开，最大的那个几乎拿走全部（T 趋于 0 时只剩最大值）；T > 1 把打分挤在一起，权重都趋向 1/n；T = 1 就是上面的 softmax。权重都接近 1/n 时，条形图几乎一样长，但 exp 那一列仍看得出谁的打分最高。',
    'whole.overflow': '有的 exp(z) 超出了 float32 能表示的范围（大于约 3.4×10³⁸，显示为 —）。库在做 softmax 时会先减去这一行最大的 z，得到同样的权重而不会溢出。',
  },
  en: {
    'whole.title': 'Softmax written out for the row of “{word}”',
    'whole.temp': 'temperature T = {t}',
    'whole.token': 'token',
    'whole.total': 'total Σ',
    'whole.z': 'where {z}',
    'whole.note': 'The scores are divided by T before exp. T < 1 pulls them apart and the largest takes nearly everything (as T goes to 0, only the maximum is left); T > 1 squeezes them together and every weight tends to 1/n; T = 1 is the softmax above. When every weight sits near 1/n the bars look alike, but the exp column still shows which score was largest.',
    'whole.overflow': 'Some exp(z) is beyond what a float32 can hold (above about 3.4×10³⁸, shown as —). The library subtracts the row’s largest z before its exp, which gives the same weights without overflowing.',
  },
};
