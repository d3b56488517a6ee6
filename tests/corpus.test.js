// web/corpus.js: the default corpus is written to teach (no twins, the article's contexts, each
// animal with contexts of its own), the presets and glosses are complete, and checkCorpus()
// reports bad input without throwing; every corpus it accepts, createModel accepts and trains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import {
  DEFAULT_CORPUS, CORPUS_PRESETS, GLOSSES, WORD_GROUPS, CORPUS_LIMITS, TRAINING_DEFAULTS, BOUNDARY,
  checkCorpus, tokenize, buildVocab,
} from '../web/corpus.js';
import { MODEL_DEFAULTS, DEFAULT_LR } from '../web/model.js';
import { nextWordCounts } from '../tools/training-measures.mjs';

const qkv = await load({ model: true });
const sentences = DEFAULT_CORPUS.map(tokenize);
const { vocab } = buildVocab(sentences);
const ANIMALS = ['猫', '狗', '兔', '鸟'];
const PEOPLE = ['国王', '女王', '男人', '女人'];

/** The frames a word appears in: its sentences with the word replaced by __. */
function frames(word) {
  return new Set(sentences.filter((s) => s.includes(word)).map((s) => s.map((w) => (w === word ? '__' : w)).join(' ')));
}

test('default corpus: 49 sentences and 75 words, as docs/api.md and web/corpus.js say', () => {
  assert.equal(DEFAULT_CORPUS.length, 49);
  assert.equal(vocab.length, 76);  // 75 words and <s>
});

test('default corpus: no sentence twice, and no word\'s sentences are another\'s with the name swapped', () => {
  assert.equal(new Set(DEFAULT_CORPUS).size, DEFAULT_CORPUS.length, 'a sentence appears twice');
  for (const group of [ANIMALS, PEOPLE, ['汽车', '卡车', '自行车']]) {
    for (const a of group) {
      for (const b of group) {
        if (a === b) continue;
        const fa = frames(a), fb = frames(b);
        const same = fa.size === fb.size && [...fa].every((f) => fb.has(f));
        assert.ok(!same, `${a} and ${b} appear in exactly the same frames`);
        // so their raw next-word counts differ too
        const counts = nextWordCounts(sentences);
        assert.ok(counts.similarity(a, b) < 0.999, `counting alone makes ${a} and ${b} identical`);
      }
    }
  }
});

test('default corpus: the animals share some frames and each has frames of its own; 鸟 and 兔 share none', () => {
  for (const a of ANIMALS) {
    const others = new Set(ANIMALS.filter((b) => b !== a).flatMap((b) => [...frames(b)]));
    const own = [...frames(a)].filter((f) => !others.has(f));
    const shared = [...frames(a)].filter((f) => others.has(f));
    assert.ok(own.length >= 1, `${a} has no frame of its own`);
    assert.ok(shared.length >= 1, `${a} shares no frame with another animal`);
  }
  for (const a of PEOPLE) {
    const others = new Set(PEOPLE.filter((b) => b !== a).flatMap((b) => [...frames(b)]));
    assert.ok([...frames(a)].some((f) => !others.has(f)), `${a} has no frame of its own`);
  }
  // as in the article, 鸟 (一只 __ 在 叫) and 兔 (我 养 了 一只 __, __ 很 可爱) never share one
  const bird = frames('鸟');
  assert.ok([...frames('兔')].every((f) => !bird.has(f)));
  // the 2 × 2: royal frames for 国王 and 女王, male ones for 国王 and 男人, and so on
  const shared = (a, b) => [...frames(a)].filter((f) => frames(b).has(f)).length;
  assert.equal(shared('国王', '女王'), 2);
  assert.equal(shared('男人', '女人'), 2);
  assert.equal(shared('国王', '男人'), 2);
  assert.equal(shared('女王', '女人'), 2);
  assert.equal(shared('国王', '女人'), 0);
  assert.equal(shared('女王', '男人'), 0);
});

test('default corpus: the second article\'s contexts and its 我 爱 吃 苹 → 果, and no context it lacks', () => {
  for (const s of ['一只 猫 在 叫', '一只 狗 在 叫', '一只 鸟 在 叫', '我 养 了 一只 猫', '我 养 了 一只 狗',
    '我 养 了 一只 兔', '猫 很 可爱', '狗 很 可爱', '兔 很 可爱', '我 爱 吃 苹 果']) {
    assert.ok(DEFAULT_CORPUS.includes(s), s);
  }
  assert.ok(!DEFAULT_CORPUS.includes('一只 兔 在 叫'));
  // 苹 is always followed by 果
  for (const s of sentences) s.forEach((w, i) => { if (w === '苹') assert.equal(s[i + 1], '果'); });
  // 汽车 is never in the animals' contexts (the car-with-animals preset puts it there)
  assert.ok(!frames('汽车').has('一只 __ 在 叫') && !frames('汽车').has('我 养 了 一只 __'));
});

test('presets: ids, names and descriptions in zh and en, clean sentences; car-with-animals is the default plus two', () => {
  const ids = CORPUS_PRESETS.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.includes('default') && ids.includes('car-with-animals'));
  for (const p of CORPUS_PRESETS) {
    for (const lang of ['zh', 'en']) {
      assert.ok(p.name[lang]?.length > 0 && p.description[lang]?.length > 0, `${p.id} ${lang}`);
    }
    const checked = checkCorpus(p.sentences);
    assert.deepEqual(checked.problems, [], p.id);
    assert.equal(checked.sentences.length, p.sentences.length);
  }
  assert.deepEqual([...CORPUS_PRESETS.find((p) => p.id === 'default').sentences], [...DEFAULT_CORPUS]);
  assert.deepEqual([...CORPUS_PRESETS.find((p) => p.id === 'car-with-animals').sentences],
    [...DEFAULT_CORPUS, '一只 汽车 在 叫', '我 养 了 一只 汽车']);
  // the twins preset is what its name says: counting alone makes 猫 and 狗 identical
  const twins = nextWordCounts(CORPUS_PRESETS.find((p) => p.id === 'twins').sentences.map(tokenize));
  assert.ok(Math.abs(twins.similarity('猫', '狗') - 1) < 1e-12);
});

test('GLOSSES: an English gloss for every token of every preset; WORD_GROUPS: disjoint words of the default vocabulary', () => {
  for (const p of CORPUS_PRESETS) {
    for (const token of buildVocab(p.sentences.map(tokenize)).vocab) {
      assert.ok(typeof GLOSSES[token] === 'string' && GLOSSES[token].trim() !== '', `${p.id}: no gloss for ${token}`);
    }
  }
  assert.ok(GLOSSES[BOUNDARY]);
  const seen = new Set();
  for (const { id, words } of WORD_GROUPS) {
    assert.match(id, /^[a-z]+$/);
    for (const w of words) {
      assert.ok(vocab.includes(w), `${id}: ${w} is not in the default vocabulary`);
      assert.ok(!seen.has(w), `${w} is in two groups`);
      seen.add(w);
    }
  }
  assert.deepEqual(WORD_GROUPS.find((g) => g.id === 'animals').words, ANIMALS);
});

test('TRAINING_DEFAULTS are createModel\'s defaults', () => {
  const model = qkv.createModel();
  try {
    assert.equal(model.batchSize, TRAINING_DEFAULTS.batchSize);
    assert.equal(model.lr, TRAINING_DEFAULTS.lr);
    assert.equal(model.defaultSteps, TRAINING_DEFAULTS.steps);
    assert.equal(model.dim, TRAINING_DEFAULTS.dim);
    assert.equal(model.optimizer, TRAINING_DEFAULTS.optimizer);
    assert.equal(MODEL_DEFAULTS.batchSize, TRAINING_DEFAULTS.batchSize);
    assert.equal(DEFAULT_LR.sgd, TRAINING_DEFAULTS.lr);
    assert.equal(model.vocab.length, vocab.length);
  } finally {
    model.dispose();
  }
});

test('checkCorpus: good text passes; bad text is reported by line and kind, never thrown', () => {
  const ok = checkCorpus('一只 猫 在 叫\n\n我爱吃苹果\r\n  汽车 需要 加油  ');
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.sentences, [['一只', '猫', '在', '叫'], ['我', '爱', '吃', '苹', '果'], ['汽车', '需要', '加油']]);

  const kinds = (text) => checkCorpus(text).problems.map(({ line, kind, severity }) => `${line}:${kind}:${severity}`);
  assert.deepEqual(kinds(''), ['0:empty:error']);
  assert.deepEqual(kinds('\n   \n'), ['0:empty:error']);
  assert.deepEqual(kinds([]), ['0:empty:error']);
  assert.deepEqual(kinds(42), ['0:type:error']);
  assert.deepEqual(kinds(null), ['0:type:error']);
  assert.deepEqual(kinds(['猫', 7]), ['0:type:error']);
  assert.deepEqual(kinds('猫 很 可爱\n猫'), ['2:one-word:warning']);
  assert.deepEqual(kinds('猫 很 可爱\n狗 叫\n猫  很 可爱'), ['3:duplicate:warning']);
  assert.deepEqual(kinds('一只 <s> 在 叫'), ['1:reserved:error']);
  assert.deepEqual(kinds('猫\n<b>猫</b> 很 可爱\n<script>alert(1)</script>'), ['1:one-word:warning', '2:markup:error', '3:markup:error']);
  assert.deepEqual(kinds('猫\u200b 很 可爱'), ['1:control:error']);
  const long = Array(CORPUS_LIMITS.maxTokensPerSentence + 1).fill('猫').join(' ');
  assert.deepEqual(kinds(`猫 很 可爱\n${long}`), ['2:too-long:error']);
  const many = Array(CORPUS_LIMITS.maxSentences + 5).fill(0).map((_, i) => `猫 ${i}`).join('\n');
  assert.deepEqual(kinds(many), [`${CORPUS_LIMITS.maxSentences + 1}:too-many-sentences:error`]);
  assert.equal(checkCorpus(many).sentences.length, CORPUS_LIMITS.maxSentences);
  // a megabyte is refused whole, before it is split
  const mega = '猫 很 可爱 '.repeat(100000);
  assert.deepEqual(kinds(mega), ['0:too-many-chars:error']);
  assert.deepEqual(kinds([mega]), ['0:too-many-chars:error']);
  for (const { message } of checkCorpus(`猫\n${long}\n<b>x</b>`).problems) assert.ok(message.length > 10 && !/undefined|NaN/.test(message));
});

test('checkCorpus: a corpus at each limit is accepted, and createModel trains it', () => {
  const { maxSentences, maxTokensPerSentence, maxChars } = CORPUS_LIMITS;
  const wide = Array.from({ length: maxTokensPerSentence }, (_, i) => `w${i}`).join(' ');
  const many = Array.from({ length: maxSentences }, (_, i) => `猫 ${i % 97} 叫`).join('\n');
  const big = Array.from({ length: 450 }, (_, i) => `词${i} 很 可爱 ${'长'.repeat(40)}`).join('\n').slice(0, maxChars);
  for (const [label, text] of [['longest sentence', wide], ['most sentences', many], ['most characters', big]]) {
    const checked = checkCorpus(text);
    assert.deepEqual(checked.problems.filter((p) => p.severity === 'error'), [], label);
    const model = qkv.createModel({ corpus: checked.sentences, seed: 1 });
    try {
      assert.ok(Number.isFinite(model.step().loss), label);
      assert.ok(Number.isFinite(model.inspect(checked.sentences[0]).loss), label);
    } finally {
      model.dispose();
    }
  }
  assert.equal(big.length, maxChars);
});
