// corpus.js: the built-in training sentences, tokenization and the vocabulary.
// Pure JavaScript, no WebAssembly: the page can show the corpus without loading the model.
//
// The default corpus is written for the second article's claims (sections 6–8):
//   - 猫, 狗, 兔 are used in the same contexts (一只 __ 在 叫, 我 养 了 一只 __, __ 很 可爱, ...),
//     so training pushes their embeddings together;
//   - 汽车 (and 卡车) live in other contexts (开, 路上, 加油, 一辆 ...) and never follow 一只;
//   - "我 爱 吃 苹 果" holds the article's example: after 我爱吃苹 the model predicts 果
//     (苹 and 果 are separate tokens on purpose, as in the article);
//   - parallel sentences for 国王 / 女王 / 男人 / 女人: kings and queens share 统治 and 戴着 王冠,
//     men and kings share 留着 胡子, women and queens share 穿着 裙子, men and women share
//     去 上班 — so that 国王 − 男人 + 女人 lands near 女王.
// Tokens are space-separated. Each sentence is trained as <s> w1 … wn → w1 … wn <s>.

/** The sentence-boundary token: vocab[0], the first input and the last target of every sentence. */
export const BOUNDARY = '<s>';

export const DEFAULT_CORPUS = Object.freeze([
  // animals: shared contexts
  '一只 猫 在 叫',
  '一只 狗 在 叫',
  '一只 鸟 在 叫',
  '我 养 了 一只 猫',
  '我 养 了 一只 狗',
  '我 养 了 一只 兔',
  '猫 很 可爱',
  '狗 很 可爱',
  '兔 很 可爱',
  '猫 在 睡觉',
  '狗 在 睡觉',
  '兔 在 睡觉',
  '我 喜欢 猫',
  '我 喜欢 狗',
  '我 喜欢 兔',
  // vehicles: other contexts
  '我 开 汽车 去 上班',
  '他 开 卡车 去 上班',
  '汽车 需要 加油',
  '卡车 需要 加油',
  '路上 有 一辆 汽车',
  '路上 有 一辆 卡车',
  '我 给 汽车 加油',
  '汽车 开 得 很 快',
  // food, with the article's example
  '我 爱 吃 苹 果',
  '我 爱 吃 香蕉',
  '苹 果 很 甜',
  // people and royalty, for the analogy
  '国王 统治 国家',
  '女王 统治 国家',
  '国王 戴着 王冠',
  '女王 戴着 王冠',
  '国王 留着 胡子',
  '男人 留着 胡子',
  '女王 穿着 裙子',
  '女人 穿着 裙子',
  '男人 去 上班',
  '女人 去 上班',
]);

/**
 * Splits one sentence into tokens: on whitespace when it contains any ('一只 猫 在 叫'),
 * otherwise one token per character ('我爱吃苹果' → 我 爱 吃 苹 果).
 */
export function tokenize(sentence) {
  if (typeof sentence !== 'string') {
    throw new TypeError(`tokenize: a sentence must be a string, got ${sentence === null ? 'null' : typeof sentence}`);
  }
  const text = sentence.trim();
  if (text === '') return [];
  if (/\s/u.test(text)) return text.split(/\s+/u);
  return Array.from(text);  // per code point, so characters outside the BMP stay whole
}

/**
 * The vocabulary of tokenized sentences: BOUNDARY first (id 0), then every token in order of
 * first appearance. Returns { vocab: string[], ids: Map<string, number> }.
 */
export function buildVocab(sentences) {
  const vocab = [BOUNDARY];
  const ids = new Map([[BOUNDARY, 0]]);
  for (const tokens of sentences) {
    for (const token of tokens) {
      if (!ids.has(token)) {
        ids.set(token, vocab.length);
        vocab.push(token);
      }
    }
  }
  return { vocab, ids };
}

/**
 * The training defaults the page starts from, and createModel's defaults (web/model.js):
 * measured over seeds 0–29 by tools/measure-training.mjs (see web/page/training-claims.js).
 */
export const TRAINING_DEFAULTS = Object.freeze({ batchSize: 6, lr: 0.5, steps: 300, dim: 16, optimizer: 'sgd' });
