// training-standin.js: TEMPORARY. A thin local stand-in for the model side's half of issue 8
// (/work/wt/TRAINING-API.md: the corpus exports and training-claims.js), so that the page can be
// built before branch `trainmodel` lands them (model.inspect(), model.stepOn() and
// TRAINING_DEFAULTS have landed and are used for real). Deleted when the rest lands: the page
// then imports them from ../corpus.js and ./training-claims.js. Nothing here may ship.
import { DEFAULT_CORPUS, tokenize, BOUNDARY } from '../corpus.js';

export { DEFAULT_CORPUS };

export const CORPUS_PRESETS = Object.freeze([
  { id: 'default', name: { zh: '默认语料', en: 'The default corpus' }, description: { zh: '默认', en: 'default' }, sentences: [...DEFAULT_CORPUS] },
  {
    id: 'car-with-animals',
    name: { zh: '汽车混进动物', en: 'A car among the animals' },
    description: { zh: '默认语料，加上 一只 汽车 在 叫 和 我 养 了 一只 汽车。', en: 'The default corpus plus 一只 汽车 在 叫 and 我 养 了 一只 汽车.' },
    sentences: [...DEFAULT_CORPUS, '一只 汽车 在 叫', '我 养 了 一只 汽车'],
  },
]);

export const GLOSSES = Object.freeze({
  '一只': 'a (animal)', '猫': 'cat', '在': 'is / at', '叫': 'barks / calls', '狗': 'dog', '鸟': 'bird', '我': 'I',
  '养': 'keep', '了': '(done)', '兔': 'rabbit', '很': 'very', '可爱': 'cute', '睡觉': 'sleep', '喜欢': 'like',
  '开': 'drive', '汽车': 'car', '去': 'go', '上班': 'to work', '他': 'he', '卡车': 'truck', '需要': 'needs',
  '加油': 'refuel', '路上': 'on the road', '有': 'there is', '一辆': 'a (vehicle)', '给': 'give', '得': '(adv.)',
  '快': 'fast', '爱': 'love', '吃': 'eat', '苹': 'ap-', '果': '-ple', '香蕉': 'banana', '甜': 'sweet',
  '国王': 'king', '统治': 'rules', '国家': 'country', '女王': 'queen', '戴着': 'wears', '王冠': 'crown',
  '留着': 'has (a beard)', '胡子': 'beard', '男人': 'man', '穿着': 'wears (clothes)', '裙子': 'skirt', '女人': 'woman',
});

export const WORD_GROUPS = Object.freeze([
  { id: 'animals', words: ['猫', '狗', '兔', '鸟'] },
  { id: 'vehicles', words: ['汽车', '卡车'] },
  { id: 'people', words: ['国王', '女王', '男人', '女人'] },
]);

export const CORPUS_LIMITS = Object.freeze({ maxSentences: 400, maxTokensPerSentence: 12, maxChars: 20000 });

export const TRAINING_CLAIMS = Object.freeze({
  seeds: [0, 29],
  catDog: { min: 0.1, median: 0.5, max: 0.9 },
  catCar: { min: -0.5, median: 0, max: 0.3 },
  pFruit: { min: 0.1, median: 0.5, max: 0.9 },
  queenFirst: { count: 20, of: 30 },
  queenNearestKing: { count: 20, of: 30 },
  animalsCloser: { count: 25, of: 30 },
  finalLoss: { min: 0.8, median: 1, max: 1.2 },
});

/** corpus: string (a sentence per line) or string[] → { sentences: string[][], problems } */
export function checkCorpus(corpus) {
  const problems = [];
  const text = typeof corpus === 'string' ? corpus : Array.isArray(corpus) ? corpus.join('\n') : '';
  if (text.length > CORPUS_LIMITS.maxChars) {
    return { sentences: [], problems: [{ line: 0, kind: 'too-many-chars', message: `the corpus has ${text.length} characters; at most ${CORPUS_LIMITS.maxChars}` }] };
  }
  const lines = text.split(/\r?\n/u);
  const sentences = [];
  lines.forEach((line, i) => {
    const tokens = tokenize(line);
    if (tokens.length === 0) return;
    if (tokens.includes(BOUNDARY)) problems.push({ line: i + 1, kind: 'boundary', message: `line ${i + 1} contains ${BOUNDARY}` });
    else if (tokens.length > CORPUS_LIMITS.maxTokensPerSentence) problems.push({ line: i + 1, kind: 'too-long', message: `line ${i + 1} has ${tokens.length} tokens` });
    else if (tokens.length === 1) problems.push({ line: i + 1, kind: 'one-word', message: `line ${i + 1} has one word` });
    else sentences.push(tokens);
  });
  if (sentences.length > CORPUS_LIMITS.maxSentences) problems.push({ line: 0, kind: 'too-many', message: `${sentences.length} sentences` });
  if (sentences.length === 0 && problems.length === 0) problems.push({ line: 0, kind: 'empty', message: 'the corpus is empty' });
  return { sentences, problems };
}
