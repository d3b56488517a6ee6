// quiz-gpt.strings.js: the exercises' words for the three GPT sections (block, writer, generate), zh and en. They
// travel with those sections (an add-on of the classic widget), not with the script every post
// loads; the shared words are in ../shell/quiz.strings.js.
export const QUIZ_GPT_STRINGS = {
  zh: {
    'quiz.block.meanPrompt': 'LayerNorm 先求这个字那一行的平均值。它是多少？（两位小数）',
    'quiz.block.meanExplain': '这一行 {d} 个数的平均值是 {mean}；方差 {variance}。归一化就是减去平均值、再除以 √(方差 + ε)。',
    'quiz.gen.kvPrompt': '选下一个字的时候，K 缓存里会有多少行？',
    'quiz.gen.kvExplain': '提示加上开头的记号占 {n0} 行，每生成一个字再加一行：这时是 {k} 行。',
    'quiz.writer.goodPrompt': '第 {step} 步写出的 {n} 首诗里，有几首格律正确（四行，每行 5 个字，第一、三行后逗号，第二、四行后句号）？下面列出了这八首。',
    'quiz.writer.goodExplain': '{good} 首格式正确。',
  },
  en: {
    'quiz.block.meanPrompt': 'LayerNorm starts with the mean of this character\'s row. What is it (two decimals)?',
    'quiz.block.meanExplain': 'The {d} numbers of the row average {mean}; their variance is {variance}. Normalising subtracts the mean and divides by √(variance + ε).',
    'quiz.gen.kvPrompt': 'When the next character is chosen, how many rows will the K cache hold?',
    'quiz.gen.kvExplain': 'The prompt and the start token fill {n0} rows, and every generated character adds one: {k} rows now.',
    'quiz.writer.goodPrompt': 'Of the {n} poems written at step {step}, how many are well formed (four lines of 5 characters, a comma after the first and third, a full stop after the second and fourth)? All eight are shown below.',
    'quiz.writer.goodExplain': '{good} of them are well formed.',
  },
};
