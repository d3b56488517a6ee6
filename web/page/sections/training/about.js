// sections/training/about.js: how the default corpus was written, and what so small a corpus can and
// cannot show, with the ranges measured over seeds 0–29 with the default settings. Every number
// comes from web/page/training/claims.js (written by tools/measure-training.mjs, checked by
// tests/training-claims.test.js, which measures again) or is counted from the corpus itself:
// none is typed into a sentence here.
//
//   const about = createAboutCorpus({ i18n, texts });   layout.slots.seeds.append(about.card);
import { h } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { DEFAULT_CORPUS, tokenize } from '../../../corpus.js';
import { TRAINING_CLAIMS } from '../../training/claims.js';
import { glossed } from '../../strings/glosses.js';

addStrings({
  zh: {
    'training.about.title': '这份语料是怎么写的，它能说明什么',
    'training.about.written': '默认语料是为这个页面手写的 {sentences} 句短话，共 {words} 个词。文章里的上下文照文章原样写进去了（一只 __ 在 叫、我 养 了 一只 __、__ 很 可爱），还有它的例子 我 爱 吃 苹 果。没有哪种动物的句子是把另一种动物的句子换个名字：动物共享一部分上下文，每种也有只属于自己的（猫 会 抓 老鼠、狗 会 看 门、鸟 会 飞、兔 爱 吃 萝卜）。交通工具（汽车、卡车、自行车）在另一些上下文里。',
    'training.about.design': '国王、女王、男人、女人是按“王室/日常 × 男/女”有意写成 2 × 2 的。这是设计出来的，所以类比有一部分是写进语料里的：完全不训练，只数每个词后面跟什么词，国王 − 男人 + 女人 就已经得到“{answer}”，cos(猫, 狗) 已经是 {catDog}。',
    'training.about.can': '它能说明的：只有被查到的行会得到梯度；出现在相同上下文里的词会被推到一起；“我 爱 吃 苹 果”上的注意力从几乎平均变得集中。',
    'training.about.cannot': '它说明不了的：这几十句话之外的意思。结果随种子变化。默认设置下，种子 {from}–{to}，训练 {steps} 步后：',
    'training.about.range': '{min} 到 {max}，中位数 {median}',
    'training.about.count': '{count} / {of} 个种子',
    'training.about.cos': 'cos(猫, 狗)：{a}；cos(猫, 汽车)：{b}；前者更大：{count}。',
    'training.about.groups': '动物彼此的平均余弦大于动物和交通工具之间的：{count}。',
    'training.about.apple': 'p(果 | 我 爱 吃 苹)：训练前 {start}，训练后 {end}。',
    'training.about.attention': '“我 爱 吃 苹 果”上注意力的分散程度（1 = 完全平均，0 = 只看一个词）：训练前 {start}，训练后 {end}。',
    'training.about.analogy': '国王 − 男人 + 女人 的第一名是 女王：{count}。但 女王 本来就是离 国王 最近的词：{near}；毫无道理的 国王 − 猫 + 狗 也得到 女王：{control}。',
    'training.about.car': '关键实验（预设“汽车进了动物的句子”）：汽车 比用默认语料时离动物更近：{count}。',
    'training.about.loss': '语料的损失：训练前 {start}，训练后 {end}。',
    'training.about.source': '这些范围记录在 web/page/training/claims.js 里，由 tools/measure-training.mjs 测出，测试会重新测量核对。想看你自己的设置和语料，用下面的“训练种子 0–29”。',
  },
  en: {
    'training.about.title': 'How the corpus was written, and what it can show',
    'training.about.written': 'The default corpus is {sentences} short sentences written by hand for this page, {words} words in all. It holds the article’s contexts as the article gives them (一只 __ 在 叫, a __ is calling; 我 养 了 一只 __, I keep a __; __ 很 可爱, __ is cute) and its example 我 爱 吃 苹 果. No animal’s sentences are another’s with the name swapped: the animals share some contexts, and each has some of its own (猫 会 抓 老鼠, cats catch mice; 狗 会 看 门, dogs guard the door; 鸟 会 飞, birds fly; 兔 爱 吃 萝卜, rabbits love carrots). The vehicles (汽车 car, 卡车 truck, 自行车 bicycle) live in other contexts.',
    'training.about.design': '国王, 女王, 男人 and 女人 (king, queen, man, woman) are written on purpose as a 2 × 2 of royal or everyday, male or female. That is a design, so the analogy is partly written into the corpus: with no training at all, counting which words follow each word already gives {answer} for 国王 − 男人 + 女人, and cos(猫, 狗) = {catDog}.',
    'training.about.can': 'What it can show: only the rows that were looked up receive a gradient; words used in the same contexts are pushed together; attention on 我 爱 吃 苹 果 goes from nearly even to concentrated.',
    'training.about.cannot': 'What it cannot show: meaning beyond these few dozen sentences. Results vary from seed to seed. With the default settings, over seeds {from}–{to}, after {steps} steps:',
    'training.about.range': '{min} to {max}, median {median}',
    'training.about.count': '{count} of {of} seeds',
    'training.about.cos': 'cos(猫 cat, 狗 dog): {a}; cos(猫 cat, 汽车 car): {b}; the first larger on {count}.',
    'training.about.groups': 'the animals closer to each other than to the vehicles (mean cosine): {count}.',
    'training.about.apple': 'p(果 | 我 爱 吃 苹): {start} untrained, {end} trained.',
    'training.about.attention': 'how spread out attention is on 我 爱 吃 苹 果 (1 = perfectly even, 0 = one word): {start} untrained, {end} trained.',
    'training.about.analogy': '女王 (queen) first for 国王 − 男人 + 女人: {count}. But 女王 is already 国王’s own nearest word on {near}, and the nonsense 国王 − 猫 + 狗 (king − cat + dog) gives 女王 too on {control}.',
    'training.about.car': 'The decisive experiment (the preset with 汽车 in the animals’ sentences): 汽车 ends closer to the animals than on the default corpus on {count}.',
    'training.about.loss': 'The corpus loss: {start} untrained, {end} trained.',
    'training.about.source': 'These ranges are recorded in web/page/training/claims.js, measured by tools/measure-training.mjs, and a test measures them again. For your own settings and corpus, use “Train seeds 0–29” below.',
  },
});

export function createAboutCorpus({ i18n, texts }) {
  const claims = TRAINING_CLAIMS;
  const sentences = DEFAULT_CORPUS.length;
  const words = new Set(DEFAULT_CORPUS.flatMap((s) => tokenize(s))).size;
  const written = texts.set(h('p'), 'training.about.written', { sentences, words });
  const design = h('p');
  const cannot = texts.set(h('p'), 'training.about.cannot', { from: claims.seeds.from, to: claims.seeds.to, steps: claims.checkpoints.end });
  const list = h('ul', { class: 'tr-claims', attrs: { 'data-role': 'claims' } });
  const card = h('div', { class: 'tr-card tr-about-card tr-wide', attrs: { 'data-role': 'about-corpus' } },
    texts.set(h('h3'), 'training.about.title'), written, design,
    texts.set(h('p'), 'training.about.can'), cannot, list,
    texts.set(h('p', { class: 'tr-note' }), 'training.about.source'));

  const num = (x) => x.toFixed(2);
  const range = (r) => i18n.t('training.about.range', { min: num(r.min), max: num(r.max), median: num(r.median) });
  const count = (c) => i18n.t('training.about.count', c);

  function draw() {
    const { ranges: r, counts: c, counting } = claims;
    design.textContent = i18n.t('training.about.design', {
      answer: glossed(counting.default.analogy[0].word, i18n.lang), catDog: counting.default.catDog.toFixed(2),
    });
    const items = [
      ['cos', { a: range(r.catDog.end), b: range(r.catCar.end), count: count(c.catNearerDog.end) }],
      ['groups', { count: count(c.groupGapPositive.end) }],
      ['apple', { start: range(r.pApple.start), end: range(r.pApple.end) }],
      ['attention', { start: range(r.attentionSpread.start), end: range(r.attentionSpread.end) }],
      ['analogy', { count: count(c.analogyQueen.end), near: count(c.kingNearestQueen.end), control: count(c.controlQueen.end) }],
      ['car', { count: count(c.carMoved) }],
      ['loss', { start: range(r.loss.start), end: range(r.loss.end) }],
    ];
    list.replaceChildren(...items.map(([key, vars]) => h('li', { attrs: { 'data-claim': key }, text: i18n.t(`training.about.${key}`, vars) })));
  }
  draw();
  return { card, setLanguage: draw };
}
