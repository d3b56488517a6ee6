// corpus.js: the built-in training sentences and their presets, English glosses, word groups,
// the limits of a corpus the page accepts and its checker, tokenization and the vocabulary, and
// the training defaults. Pure JavaScript, no WebAssembly: the page can show and check a corpus
// without loading the model.
//
// How the default corpus was written. It is meant to teach the distributional idea, not to
// stage its answers:
//   - It holds the second article's contexts as the article gives them: 一只 __ 在 叫 (猫, 狗,
//     鸟), 我 养 了 一只 __ (猫, 狗, 兔), __ 很 可爱 (猫, 狗, 兔), and its example 我 爱 吃 苹 果
//     (苹 and 果 are separate tokens, as in the article; 苹 is always followed by 果).
//   - No animal's sentences are another's with the name swapped. The animals share some contexts
//     and each has some of its own (猫 会 抓 老鼠, 狗 会 看 门, 鸟 会 飞, 兔 爱 吃 萝卜), so
//     whatever similarity training finds comes from overlap, not identity. The vehicles (汽车,
//     卡车, 自行车) share other contexts (需要 加油, 路上 有 一辆 __) and have their own too.
//   - 国王, 女王, 男人, 女人 are written as a 2 × 2: royal contexts (统治 国家, 戴着 王冠) for
//     国王 and 女王, everyday ones (去 上班, 每天 工作) for 男人 and 女人, male ones (留着 胡子,
//     娶 了 妻子) for 国王 and 男人, female ones (穿着 裙子, 生 了 孩子) for 女王 and 女人, and one
//     context of each word's own. That is a design, and it is said so: on it, counting next words
//     alone already answers 国王 − 男人 + 女人 (tools/measure-training.mjs measures how often
//     training does, against 国王's own nearest neighbour and a nonsense control).
//   - Contexts cross the groups where Chinese does: 我 开 汽车 去 上班 shares 去 with 男人 去
//     上班, 兔 爱 吃 萝卜 shares 爱 吃 with 我 爱 吃 苹 果.
// What so small a corpus can and cannot show: with 49 sentences and 75 words, a word's
// vector can only reflect the handful of contexts written here. It shows the mechanism (shared
// contexts → similar gradients → nearby rows); it cannot show meaning beyond these sentences,
// and results vary from seed to seed (web/page/training/claims.js gives the ranges).
//
// Tokens are space-separated. Each sentence is trained as <s> w1 … wn → w1 … wn <s>.
// The data is frozen in calls annotated as pure (a block comment before each call: the only
// place bundlers read that annotation; Rollup warns about one anywhere else, this comment
// included, if it spelled the annotation out), so a bundle that uses none of it (the widget
// uses only DEFAULT_CORPUS today) can leave it out.

/** The sentence-boundary token: vocab[0], the first input and the last target of every sentence. */
export const BOUNDARY = '<s>';

export const DEFAULT_CORPUS = /* @__PURE__ */ Object.freeze([
  // animals: the article's three contexts, shared by some animals and not others
  '一只 猫 在 叫',
  '一只 狗 在 叫',
  '一只 鸟 在 叫',
  '我 养 了 一只 猫',
  '我 养 了 一只 狗',
  '我 养 了 一只 兔',
  '猫 很 可爱',
  '狗 很 可爱',
  '兔 很 可爱',
  // animals: contexts some share, and each one's own
  '猫 在 睡觉',
  '兔 在 睡觉',
  '猫 会 抓 老鼠',
  '狗 会 看 门',
  '鸟 会 飞',
  '猫 爱 吃 鱼',
  '兔 爱 吃 萝卜',
  '树 上 有 一只 鸟',
  // vehicles
  '我 开 汽车 去 上班',
  '汽车 需要 加油',
  '卡车 需要 加油',
  '路上 有 一辆 汽车',
  '路上 有 一辆 卡车',
  '汽车 开 得 很 快',
  '卡车 拉 着 货物',
  '我 骑 自行车 去 上学',
  '自行车 不 需要 加油',
  // food, with the article's example
  '我 爱 吃 苹 果',
  '我 爱 吃 香蕉',
  '苹 果 很 甜',
  // people: royal / everyday × male / female, and one context of each word's own
  '国王 统治 国家',
  '女王 统治 国家',
  '国王 戴着 王冠',
  '女王 戴着 王冠',
  '男人 去 上班',
  '女人 去 上班',
  '男人 每天 工作',
  '女人 每天 工作',
  '国王 留着 胡子',
  '男人 留着 胡子',
  '国王 娶 了 妻子',
  '男人 娶 了 妻子',
  '女王 穿着 裙子',
  '女人 穿着 裙子',
  '女王 生 了 孩子',
  '女人 生 了 孩子',
  '国王 住 在 王宫',
  '女王 访问 了 邻国',
  '男人 修 好 了 汽车',
  '女人 写 了 一本 书',
]);

/** The corpus this project used earlier (the 'twins' preset): every animal sentence has an identical twin. */
const TWINS_CORPUS = /* @__PURE__ */ Object.freeze([
  '一只 猫 在 叫', '一只 狗 在 叫', '一只 鸟 在 叫',
  '我 养 了 一只 猫', '我 养 了 一只 狗', '我 养 了 一只 兔',
  '猫 很 可爱', '狗 很 可爱', '兔 很 可爱',
  '猫 在 睡觉', '狗 在 睡觉', '兔 在 睡觉',
  '我 喜欢 猫', '我 喜欢 狗', '我 喜欢 兔',
  '我 开 汽车 去 上班', '他 开 卡车 去 上班', '汽车 需要 加油', '卡车 需要 加油',
  '路上 有 一辆 汽车', '路上 有 一辆 卡车', '我 给 汽车 加油', '汽车 开 得 很 快',
  '我 爱 吃 苹 果', '我 爱 吃 香蕉', '苹 果 很 甜',
  '国王 统治 国家', '女王 统治 国家', '国王 戴着 王冠', '女王 戴着 王冠',
  '国王 留着 胡子', '男人 留着 胡子', '女王 穿着 裙子', '女人 穿着 裙子',
  '男人 去 上班', '女人 去 上班',
]);

/** Only the article's own sentences: its three contexts, a car that is never in them, and 苹 → 果. */
const ARTICLE_CORPUS = /* @__PURE__ */ Object.freeze([
  '一只 猫 在 叫', '一只 狗 在 叫', '一只 鸟 在 叫',
  '我 养 了 一只 猫', '我 养 了 一只 狗', '我 养 了 一只 兔',
  '猫 很 可爱', '狗 很 可爱', '兔 很 可爱',
  '我 开 汽车 去 上班', '汽车 需要 加油', '路上 有 一辆 汽车',
  '我 爱 吃 苹 果', '苹 果 很 甜',
]);

// (a call, not a spread in place, so that bundlers can drop the presets when nothing uses them)
function frozenConcat(a, b) {
  return Object.freeze([...a, ...b]);
}

/**
 * Corpora the page offers, one click each: { id, name: { zh, en }, description: { zh, en },
 * sentences }. 'default' is DEFAULT_CORPUS; 'car-with-animals' adds 汽车 to the animals'
 * contexts, the decisive experiment: does 汽车 move toward them?
 */
export const CORPUS_PRESETS = /* @__PURE__ */ Object.freeze([
  {
    id: 'default',
    name: { zh: '默认语料', en: 'Default corpus' },
    description: {
      zh: '动物共享一部分上下文，各自也有自己的；交通工具在别的上下文里；国王、女王、男人、女人按“王室/日常 × 男/女”写成 2 × 2。',
      en: 'The animals share some contexts and each has its own; the vehicles live in other contexts; 国王, 女王, 男人, 女人 are written as a 2 × 2 of royal/everyday × male/female.',
    },
    sentences: DEFAULT_CORPUS,
  },
  {
    id: 'car-with-animals',
    name: { zh: '汽车进了动物的句子', en: 'A car in the animals’ sentences' },
    description: {
      zh: '默认语料，再加上“一只 汽车 在 叫”和“我 养 了 一只 汽车”：汽车会不会向动物靠拢？',
      en: 'The default corpus plus 一只 汽车 在 叫 (a car is barking) and 我 养 了 一只 汽车 (I keep a car): does 汽车 move toward the animals?',
    },
    sentences: /* @__PURE__ */ frozenConcat(DEFAULT_CORPUS, ['一只 汽车 在 叫', '我 养 了 一只 汽车']),
  },
  {
    id: 'twins',
    name: { zh: '双胞胎句子（旧语料）', en: 'Twin sentences (the old corpus)' },
    description: {
      zh: '本项目以前的语料：每个猫的句子都有一个一模一样的狗的句子。只数下一个词，猫和狗就已经完全相同。',
      en: 'This project’s earlier corpus: every 猫 sentence has an identical 狗 twin, so counting next words alone already makes 猫 and 狗 identical.',
    },
    sentences: TWINS_CORPUS,
  },
  {
    id: 'article',
    name: { zh: '只有文章里的句子', en: 'Only the article’s sentences' },
    description: {
      zh: '文章的三个上下文、从不出现在其中的汽车，以及 我 爱 吃 苹 果。',
      en: 'The article’s three contexts, a car that never appears in them, and 我 爱 吃 苹 果.',
    },
    sentences: ARTICLE_CORPUS,
  },
]);

/** An English gloss for every token of every preset (and the boundary). */
export const GLOSSES = /* @__PURE__ */ Object.freeze({
  '<s>': 'sentence boundary',
  一只: 'a (one, for animals)', 猫: 'cat', 狗: 'dog', 鸟: 'bird', 兔: 'rabbit', 在: 'is (-ing) / at',
  叫: 'call, bark', 我: 'I', 养: 'keep, raise', 了: '(done)', 很: 'very', 可爱: 'cute',
  睡觉: 'sleep', 会: 'can', 抓: 'catch', 老鼠: 'mouse', 看: 'watch', 门: 'door', 飞: 'fly',
  爱: 'love', 吃: 'eat', 鱼: 'fish', 萝卜: 'carrot', 树: 'tree', 上: 'on', 有: 'there is, have',
  开: 'drive', 汽车: 'car', 去: 'go', 上班: 'go to work', 需要: 'need', 加油: 'refuel',
  卡车: 'truck', 路上: 'on the road', 一辆: 'a (one, for vehicles)', 得: '(so that)', 快: 'fast',
  拉: 'pull, haul', 着: '(-ing)', 货物: 'goods', 骑: 'ride', 自行车: 'bicycle', 上学: 'go to school',
  不: 'not', 苹: 'ap- (苹果 = apple)', 果: '-ple (苹果 = apple)', 香蕉: 'banana', 甜: 'sweet',
  国王: 'king', 统治: 'rule', 国家: 'country', 女王: 'queen', 戴着: 'wearing (on the head)',
  王冠: 'crown', 男人: 'man', 女人: 'woman', 每天: 'every day', 工作: 'work', 留着: 'wearing (hair)',
  胡子: 'beard', 娶: 'marry (a wife)', 妻子: 'wife', 穿着: 'wearing (clothes)', 裙子: 'skirt',
  生: 'give birth to', 孩子: 'child', 住: 'live', 王宫: 'palace', 访问: 'visit',
  邻国: 'neighbouring country', 修: 'repair', 好: 'good (done well)', 写: 'write', 一本: 'a (one, for books)',
  书: 'book', 喜欢: 'like', 他: 'he', 给: 'give, for',
});

/** Word groups the page colours alike (words a corpus lacks are simply absent from it). */
export const WORD_GROUPS = /* @__PURE__ */ Object.freeze([
  /* @__PURE__ */ Object.freeze({ id: 'animals', words: /* @__PURE__ */ Object.freeze(['猫', '狗', '兔', '鸟']) }),
  /* @__PURE__ */ Object.freeze({ id: 'vehicles', words: /* @__PURE__ */ Object.freeze(['汽车', '卡车', '自行车']) }),
  /* @__PURE__ */ Object.freeze({ id: 'people', words: /* @__PURE__ */ Object.freeze(['国王', '女王', '男人', '女人']) }),
  /* @__PURE__ */ Object.freeze({ id: 'food', words: /* @__PURE__ */ Object.freeze(['苹', '果', '香蕉', '萝卜', '鱼']) }),
]);

/**
 * What the page's corpus editor accepts. Every corpus within these limits is one createModel
 * accepts and trains (tests/corpus.test.js trains one at each limit); createModel itself takes
 * larger ones, up to the limits web/model.js states.
 */
export const CORPUS_LIMITS = /* @__PURE__ */ Object.freeze({ maxSentences: 500, maxTokensPerSentence: 32, maxChars: 20000 });

/**
 * The training defaults the page starts from, and createModel's defaults (web/model.js):
 * chosen from measurements over seeds 0–29 (tools/measure-training.mjs; the ranges are in
 * web/page/training/claims.js).
 */
export const TRAINING_DEFAULTS = /* @__PURE__ */ Object.freeze({ batchSize: 1, lr: 0.3, steps: 1500, dim: 16, optimizer: 'sgd' });

/** createModel's learning rate when none is given, by optimizer (model.js re-exports it). */
export const DEFAULT_LR = /* @__PURE__ */ Object.freeze({ sgd: TRAINING_DEFAULTS.lr, adam: 0.01 });

/**
 * Defaults of createModel's options (lr depends on the optimizer: DEFAULT_LR). Here rather than in
 * model.js, which re-exports them, so that what only reads them (the page's URL settings) does
 * not bring the model with it: the classic widget's core leaves model.js to its training add-on.
 */
export const MODEL_DEFAULTS = /* @__PURE__ */ Object.freeze({
  dim: TRAINING_DEFAULTS.dim, seed: 1, optimizer: TRAINING_DEFAULTS.optimizer,
  batchSize: TRAINING_DEFAULTS.batchSize, steps: TRAINING_DEFAULTS.steps,
  beta1: 0.9, beta2: 0.999, eps: 1e-8,
});

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
 * Checks a corpus as the page's editor holds it (one string, a sentence per line, or an array
 * of sentence strings), never throwing. Returns
 *   { sentences: string[][], problems: [{ line, kind, severity, message }] }
 * sentences: the tokenized sentences that can be trained (blank lines skipped); line: 1-based
 * (0: the corpus as a whole). severity 'error': the corpus cannot be used as it is (kinds
 * 'type', 'empty', 'too-many-chars', 'too-many-sentences', 'too-long', 'reserved', 'markup',
 * 'control'); 'warning': it trains, but the reader may not mean it ('one-word', 'duplicate').
 * When there is no error, createModel({ corpus: sentences }) accepts the sentences.
 */
export function checkCorpus(corpus) {
  const problems = [];
  const error = (line, kind, message) => problems.push({ line, kind, severity: 'error', message });
  const warning = (line, kind, message) => problems.push({ line, kind, severity: 'warning', message });
  const { maxSentences, maxTokensPerSentence, maxChars } = CORPUS_LIMITS;
  let lines;
  if (typeof corpus === 'string') {
    lines = corpus;
  } else if (Array.isArray(corpus) && corpus.every((s) => typeof s === 'string')) {
    lines = corpus;
  } else {
    error(0, 'type', 'The corpus must be text, one sentence per line.');
    return { sentences: [], problems };
  }
  // a megabyte of text is refused before it is split or tokenized
  const chars = typeof lines === 'string' ? lines.length : lines.reduce((n, s) => n + s.length + 1, 0);
  if (chars > maxChars) {
    error(0, 'too-many-chars', `The corpus has ${chars} characters; at most ${maxChars} are accepted.`);
    return { sentences: [], problems };
  }
  if (typeof lines === 'string') lines = lines.split(/\r?\n/u);
  const sentences = [];
  const seen = new Map();
  let count = 0;
  lines.forEach((text, i) => {
    const line = i + 1;
    const tokens = tokenize(text);
    if (tokens.length === 0) return;
    count++;
    if (count === maxSentences + 1) {
      error(line, 'too-many-sentences', `Line ${line} is sentence ${count}; at most ${maxSentences} sentences are accepted.`);
    }
    if (count > maxSentences) return;
    let ok = true;
    if (tokens.length > maxTokensPerSentence) {
      error(line, 'too-long', `Line ${line} has ${tokens.length} words; a sentence may have at most ${maxTokensPerSentence}.`);
      ok = false;
    }
    if (tokens.includes(BOUNDARY)) {
      error(line, 'reserved', `Line ${line} contains ${BOUNDARY}, which marks the sentence boundary; the model adds it itself.`);
      ok = false;
    } else if (tokens.some((t) => /[<>]/u.test(t))) {
      error(line, 'markup', `Line ${line} looks like markup (< or >); write plain words separated by spaces.`);
      ok = false;
    }
    if (tokens.some((t) => /\p{Cc}|\p{Cf}/u.test(t))) {
      error(line, 'control', `Line ${line} contains an invisible control character.`);
      ok = false;
    }
    if (!ok) return;
    if (tokens.length === 1) {
      warning(line, 'one-word', `Line ${line} has one word: it only teaches that a sentence can end after it.`);
    }
    const key = tokens.join(' ');
    if (seen.has(key)) {
      warning(line, 'duplicate', `Line ${line} repeats line ${seen.get(key)}: it will be trained twice as often.`);
    } else {
      seen.set(key, line);
    }
    sentences.push(tokens);
  });
  if (count === 0) error(0, 'empty', 'The corpus is empty: write at least one sentence, words separated by spaces.');
  return { sentences, problems };
}
