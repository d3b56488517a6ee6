// training/about.js: how the corpus was written, and what so small a corpus can and cannot show,
// with the ranges measured over seeds 0–29 with the default settings. Those numbers come from
// the model side's measurements (training-claims.js, checked by a test that measures again):
// none is typed into a sentence here.
//
//   const about = createAboutCorpus({ i18n, texts });   layout.slots.… .append(about.card);
import { h, fmt } from '../dom.js';
import { addStrings } from '../i18n.js';
import { TRAINING_CLAIMS } from '../training-standin.js';

addStrings({
  zh: {
    'training.about.title': '这份语料是怎么写的，它能说明什么',
    'training.about.written': '默认语料是为这个页面手写的几十句短话。动物共享一部分上下文（“一只 __ 在 叫”“__ 很 可爱”），每种动物也有只属于自己的句子；交通工具出现在别的上下文里（开、路上、加油）；国王和女王、男人和女人也是这样部分重叠。没有两句话只差一个词：词和词的相似只能来自上下文的重叠，不能来自一模一样的“双胞胎”句子。',
    'training.about.can': '它能说明的：只有被查到的行会得到梯度；出现在相似上下文里的词，会被推向相近的方向。',
    'training.about.cannot': '它说明不了的：词的“意思”。几十个词、几十句话，结果随种子变化很大；“最近的邻居”只是几十个词里最近的；类比的答案可能本来就是 A 的近邻（类比旁边有对照）。默认设置下，种子 {from}–{to} 的测量结果：',
    'training.about.range': '{what}：{min} 到 {max}（中位数 {median}）',
    'training.about.count': '{what}：{count} / {of} 个种子',
    'training.about.catDog': 'cos(猫, 狗)', 'training.about.catCar': 'cos(猫, 汽车)',
    'training.about.pFruit': 'p(果 | 我 爱 吃 苹)', 'training.about.finalLoss': '训练后的语料损失',
    'training.about.animalsCloser': '动物彼此比跟交通工具更近',
    'training.about.queenFirst': '国王 − 男人 + 女人 的第一名是 女王',
    'training.about.queenNearestKing': '女王 本来就是离 国王 最近的词',
    'training.about.source': '这些范围由 web/page/training-claims.js 记录，测试会重新测量核对。想看你自己的设置和语料，用下面的“训练种子 0–29”。',
  },
  en: {
    'training.about.title': 'How the corpus was written, and what it can show',
    'training.about.written': 'The default corpus is a few dozen short sentences written by hand for this page. The animals share some contexts (一只 __ 在 叫, a __ is barking; __ 很 可爱, __ is cute) and each also has sentences of its own; the vehicles live in other contexts (开 drive, 路上 on the road, 加油 refuel); king and queen, man and woman overlap in part the same way. No two sentences differ by one word only: a similarity between words has to come from overlapping contexts, not from identical twin sentences.',
    'training.about.can': 'What it can show: only the rows that were looked up receive a gradient; words used in similar contexts are pushed in similar directions.',
    'training.about.cannot': 'What it cannot show: meaning. With a few dozen words and sentences the results vary a lot from seed to seed; “nearest” means nearest among a few dozen words; an analogy’s answer may simply be A’s own neighbour (the analogy box shows that baseline). Measured with the default settings over seeds {from}–{to}:',
    'training.about.range': '{what}: {min} to {max} (median {median})',
    'training.about.count': '{what}: {count} of {of} seeds',
    'training.about.catDog': 'cos(猫 cat, 狗 dog)', 'training.about.catCar': 'cos(猫 cat, 汽车 car)',
    'training.about.pFruit': 'p(果 | 我 爱 吃 苹)', 'training.about.finalLoss': 'the corpus loss after training',
    'training.about.animalsCloser': 'the animals closer to each other than to the vehicles',
    'training.about.queenFirst': '女王 (queen) first for 国王 − 男人 + 女人',
    'training.about.queenNearestKing': '女王 already the nearest word to 国王 (king)',
    'training.about.source': 'These ranges are recorded in web/page/training-claims.js, and a test measures them again. For your own settings and corpus, use “Train seeds 0–29” below.',
  },
});

const RANGES = ['catDog', 'catCar', 'pFruit', 'finalLoss'];
const COUNTS = ['animalsCloser', 'queenFirst', 'queenNearestKing'];

export function createAboutCorpus({ i18n, texts }) {
  const claims = TRAINING_CLAIMS;
  const list = h('ul', { class: 'tr-claims', attrs: { 'data-role': 'claims' } });
  const card = h('div', { class: 'tr-card tr-about-card tr-wide', attrs: { 'data-role': 'about-corpus' } },
    texts.set(h('h3'), 'training.about.title'),
    texts.set(h('p'), 'training.about.written'),
    texts.set(h('p'), 'training.about.can'),
    texts.set(h('p'), 'training.about.cannot', { from: claims.seeds[0], to: claims.seeds[1] }),
    list,
    texts.set(h('p', { class: 'tr-note' }), 'training.about.source'));

  function draw() {
    const items = [];
    for (const key of RANGES) {
      const c = claims[key];
      if (c) items.push(h('li', { attrs: { 'data-claim': key }, text: i18n.t('training.about.range', { what: i18n.t(`training.about.${key}`), min: fmt(c.min), max: fmt(c.max), median: fmt(c.median) }) }));
    }
    for (const key of COUNTS) {
      const c = claims[key];
      if (c) items.push(h('li', { attrs: { 'data-claim': key }, text: i18n.t('training.about.count', { what: i18n.t(`training.about.${key}`), count: c.count, of: c.of }) }));
    }
    list.replaceChildren(...items);
  }
  draw();
  return { card, setLanguage: draw };
}
