// sections/training/about.js: how the default corpus was written, and what so small a corpus can and
// cannot show, with the ranges measured over seeds 0–29 with the default settings. Every number
// comes from web/page/training/claims.js (written by tools/measure-training.mjs, checked by
// tests/training-claims.test.js, which measures again) or is counted from the corpus itself:
// none is typed into a sentence here.
//
//   const about = createAboutCorpus({ i18n, texts });   layout.slots.seeds.append(about.card);
import { h } from '../../shell/dom.js';
import { addStrings } from '../../shell/i18n.js';
import { TRAINING_ABOUT_STRINGS } from './about.strings.js';
import { DEFAULT_CORPUS, tokenize } from '../../../corpus.js';
import { TRAINING_CLAIMS } from '../../training/claims.js';
import { glossed } from './glosses.js';

addStrings(TRAINING_ABOUT_STRINGS);

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
      ['analogy', { count: count(c.analogyQueen.end), sum: count(c.sumQueen.end), near: count(c.kingNearestQueen.end), control: count(c.controlQueen.end) }],
      ['car', { count: count(c.carMoved) }],
      ['loss', { start: range(r.loss.start), end: range(r.loss.end) }],
    ];
    list.replaceChildren(...items.map(([key, vars]) => h('li', { attrs: { 'data-claim': key }, text: i18n.t(`training.about.${key}`, vars) })));
  }
  draw();
  return { card, setLanguage: draw };
}
