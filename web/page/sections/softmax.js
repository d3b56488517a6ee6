// Section 5: softmax by rows. Each row of scores becomes a row of weights (a bar chart per row)
// that sums to 1. A switch divides the scores by √d_k first; why that matters as d_k grows is the
// section "Why divide by √d_k" (scaling.js).
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { defineSection, toggle, bars } from '../shell/section-shell.js';
import { createSoftmaxWhole } from '../views/softmax-whole.js';
import { codePanel } from '../views/code-panel.js';

addStrings({
  zh: {
    'softmax.title': 'softmax：按行把打分变成权重',
    'softmax.intro1': '打分可正可负，还不能直接当比例用。softmax 对每一行做 exp 再除以这一行的总和：结果都不小于 0，而且每行加起来正好是 1——一个词把自己 100% 的注意力分给全句。注意是按行（每个提问的词）做，不是按列。',
    'softmax.intro2': '文章这一章还没有除以 √d_k，所以默认关闭缩放，数字和文章一致。打开开关，打分先除以 √d_k（这里 d_k = {dk}，√{dk} ≈ {root}），权重会更平均一些。d_k 大的时候为什么非除不可，见后面“为什么要除以 √d_k”一节。',
    'softmax.scale': '先除以 √d_k',
    'softmax.rowTitle': '“{word}”的注意力分配',
    'softmax.sum': '这一行的和 = {sum}',
    'softmax.step0': '打分表 S（原始的 Q·Kᵀ）。下一步开始逐行做 softmax。',
    'softmax.stepRow': '第 {r} 行（{word}）：softmax({div}) = {weights}，和为 {sum}。最大的权重给了“{top}”。',
    'softmax.divNone': '打分', 'softmax.divScaled': '打分 / √{dk}',
    'softmax.compare': '对比：不缩放时第一行权重 {a}；除以 √d_k 后 {b}。',
  },
  en: {
    'softmax.title': 'Softmax turns each row of scores into weights',
    'softmax.intro1': 'Scores can be positive or negative, so they are not proportions yet. Softmax takes exp of each entry in a row and divides by the row’s total: every weight is at least 0 and each row adds up to exactly 1 — one token sharing out 100% of its attention over the sentence. It works along rows (one per asking token), not columns.',
    'softmax.intro2': 'The article’s chapter does not divide by √d_k yet, so scaling starts off and the numbers match it. Switch it on and the scores are divided by √d_k first (here d_k = {dk}, √{dk} ≈ {root}): the weights become a little more even. Why it becomes necessary when d_k is large is the section “Why divide by √d_k”, further on.',
    'softmax.scale': 'Divide by √d_k first',
    'softmax.rowTitle': 'How “{word}” shares its attention',
    'softmax.sum': 'row sum = {sum}',
    'softmax.step0': 'The score table S (raw Q·Kᵀ). Next, softmax row by row.',
    'softmax.stepRow': 'Row {r} ({word}): softmax({div}) = {weights}, summing to {sum}. The largest weight goes to “{top}”.',
    'softmax.divNone': 'scores', 'softmax.divScaled': 'scores / √{dk}',
    'softmax.compare': 'Compare: row 1 unscaled gives {a}; divided by √d_k it gives {b}.',
  },
});

export const softmaxSection = defineSection({
  id: 'softmax', titleKey: 'softmax.title',
  introKeys: ['softmax.intro1', ['softmax.intro2', (snap) => ({ dk: snap.dk, root: Math.sqrt(snap.dk).toFixed(3) })]],
  setup(frame) {
    const { i18n, ctx, texts, events } = frame;
    const snapNow = () => frame.snap;
    const scaleSwitch = toggle(texts, 'softmax.scale', snapNow().scale, (on) => ctx.setSetting('scale', on), events);
    scaleSwitch.input.classList.add('scale-switch');
    frame.controls.append(scaleSwitch.element);

    const sView = frame.view({ name: 'S', label: 'S = Q·Kᵀ' });
    const wView = frame.view({ name: 'A', label: () => (snapNow().scale ? 'A = softmax(S / √d_k)' : 'A = softmax(S)') });
    const cards = h('div', { class: 'cards' });
    const compare = h('p', { class: 'note compare num' });
    // the softmax of the current row, written out (exp, total, division), with a temperature
    const whole = createSoftmaxWhole({ i18n, events, temperature: ctx.state.get('temp'), onTemperature: (t) => ctx.setSetting('temp', t) });
    frame.stage.append(h('div', { class: 'equation' }, sView.element, h('span', { class: 'op', text: '→' }), wView.element), cards, compare, whole.element);

    const code = codePanel(frame, 'softmax');

    function draw(snap) {
      sView.update(snap.scores, { rowLabels: snap.words, colLabels: snap.words });
      wView.update(snap.weights, { rowLabels: snap.words, colLabels: snap.words });
      scaleSwitch.input.checked = snap.scale;
      compare.textContent = i18n.t('softmax.compare', {
        a: snap.weightsUnscaled.row(0).map((x) => fmt(x)).join(' '),
        b: snap.weightsScaled.row(0).map((x) => fmt(x)).join(' '),
      });
      code.draw(snap);
    }

    function render(index, { animate }) {
      const snap = snapNow();
      const sums = snap.derived.rowSums;
      const shown = index;              // rows 0 … shown-1 converted
      wView.setHidden((i) => i >= shown);
      clear(cards);
      snap.words.forEach((word, i) => {
        const done = i < shown;
        const w = snap.weights.row(i);
        cards.append(h('div', { class: `card${i === shown - 1 ? ' active' : ''}${done ? '' : ' pending'}` },
          h('h3', { text: i18n.t('softmax.rowTitle', { word }) }),
          bars(snap.words, done ? w : w.map(() => 0), { fmt: done ? fmt : () => '·', cls: animate ? 'grow' : '' }),
          h('p', { class: 'sum num', text: done ? i18n.t('softmax.sum', { sum: fmt(sums[i]) }) : '' })));
      });
      whole.draw(snap, Math.max(0, index - 1));
      sView.highlight(index > 0 ? snap.words.map((_, j) => [index - 1, j, 'hl-row']) : []);
      wView.highlight(index > 0 ? snap.words.map((_, j) => [index - 1, j, 'hl-row']) : []);
      if (index === 0) return i18n.t('softmax.step0');
      const i = index - 1;
      const w = snap.weights.row(i);
      const top = w.indexOf(Math.max(...w));
      return i18n.t('softmax.stepRow', { r: index, word: snap.words[i], div: i18n.t(snap.scale ? 'softmax.divScaled' : 'softmax.divNone', { dk: snap.dk }),
        weights: w.map((x) => fmt(x)).join(' '), sum: fmt(sums[i]), top: snap.words[top] });
    }

    return {
      count: (snap) => 1 + snap.n, initial: snapNow().n, draw, render,
      setLanguage: () => draw(snapNow()),
    };
  },
});
