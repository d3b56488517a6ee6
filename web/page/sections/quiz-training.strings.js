// quiz-training.strings.js: the exercises' words for the two training sections (trainstep, training), zh and en. They
// travel with those sections (an add-on of the classic widget), not with the script every post
// loads; the shared words are in ../shell/quiz.strings.js.
export const QUIZ_TRAINING_STRINGS = {
  zh: {
    'quiz.ts.rowsPrompt': '这一步更新会改动 embedding 表的多少行？',
    'quiz.ts.rowsExplain': '优化器改动的行：{rows}（共 {k} 行）。SGD 只改这句话查到的词的行（包括 <s>）。',
    'quiz.ts.lossPrompt': '更新之后，“{sentence}”上的损失会上升还是下降？',
    'quiz.ts.lossExplain': '更新前 {before}，更新后 {after}：这一步顺着这个损失的负梯度移动了这些行，步子不太大时损失就会下降。',
    'quiz.train.prompt': '训练到现在这一步，哪个词的 embedding 离“猫”更近？',
    'quiz.train.explain': '第 {step} 步：cos(猫, 狗) = {dog}，cos(猫, 汽车) = {car}。余弦越大，两个向量方向越接近。',
  },
  en: {
    'quiz.ts.rowsPrompt': 'How many rows of the embedding table will this update change?',
    'quiz.ts.rowsExplain': 'The rows the optimizer changed: {rows} ({k} rows). With SGD, only the rows this sentence looked up (<s> included).',
    'quiz.ts.lossPrompt': 'After the update, will the loss on “{sentence}” go up or down?',
    'quiz.ts.lossExplain': 'Before, {before}; after, {after}: the step moved these rows against this loss’s gradient, and a small enough step lowers it.',
    'quiz.train.prompt': 'At the run’s current step, which word’s embedding is closer to 猫’s?',
    'quiz.train.explain': 'At step {step}: cos(猫, 狗) = {dog}, cos(猫, 汽车) = {car}. The larger the cosine, the closer the two directions.',
  },
};
