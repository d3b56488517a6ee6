// views/softmax-whole.js: section 5's softmax written out for one row, the way the article describes it:
// each score (divided by √d_k when the switch is on, then by the temperature T), its exp, the
// row's total before the division, and each exp divided by that total. A slider sets T. Numbers
// come from the snapshot (snapshot-derived.js, softmaxWritten); this file only lays them out.
//   const panel = createSoftmaxWhole({ i18n, events, temperature, onTemperature });
//   stage.append(panel.element);  …  panel.draw(snap, row);
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { bars } from '../shell/section-shell.js';
import { TEMPERATURES } from '../models/snapshot-derived.js';

addStrings({
  zh: {
    'whole.title': '把“{word}”这一行的 softmax 完整写出来',
    'whole.temp': '温度 T = {t}',
    'whole.token': '词',
    'whole.total': '总和 Σ',
    'whole.z': '其中 {z}',
    'whole.note': '先把打分除以 T 再取 exp。T < 1 把打分拉开，最大的那个几乎拿走全部（T 趋于 0 时只剩最大值）；T > 1 把打分挤在一起，权重都趋向 1/n；T = 1 就是上面的 softmax。权重都接近 1/n 时，条形图几乎一样长，但 exp 那一列仍看得出谁的打分最高。',
    'whole.overflow': '有的 exp(z) 超出了 float32 能表示的范围（大于约 3.4×10³⁸，显示为 —）。库在做 softmax 时会先减去这一行最大的 z，得到同样的权重而不会溢出。',
  },
  en: {
    'whole.title': 'Softmax written out for the row of “{word}”',
    'whole.temp': 'temperature T = {t}',
    'whole.token': 'token',
    'whole.total': 'total Σ',
    'whole.z': 'where {z}',
    'whole.note': 'The scores are divided by T before exp. T < 1 pulls them apart and the largest takes nearly everything (as T goes to 0, only the maximum is left); T > 1 squeezes them together and every weight tends to 1/n; T = 1 is the softmax above. When every weight sits near 1/n the bars look alike, but the exp column still shows which score was largest.',
    'whole.overflow': 'Some exp(z) is beyond what a float32 can hold (above about 3.4×10³⁸, shown as —). The library subtracts the row’s largest z before its exp, which gives the same weights without overflowing.',
  },
});

/** 3 decimals, or 4 significant digits in exponent form for large numbers (exp grows fast). */
export function fmtWide(x) {
  if (!Number.isFinite(x)) return '—';
  return Math.abs(x) >= 1e5 ? x.toExponential(3) : fmt(x);
}

export function createSoftmaxWhole({ i18n, events, temperature = 1, onTemperature = () => {} }) {
  let k = Math.max(0, TEMPERATURES.indexOf(temperature));
  if (TEMPERATURES[k] !== temperature) {
    // a T from a link that is not a stop: the nearest stop
    k = TEMPERATURES.reduce((best, t, j) => (Math.abs(t - temperature) < Math.abs(TEMPERATURES[best] - temperature) ? j : best), 0);
  }
  const title = h('h3', { class: 'sub-title' });
  const slider = h('input', { class: 'temp-slider', attrs: { type: 'range', min: '0', max: String(TEMPERATURES.length - 1), step: '1' }, value: String(k) });
  const sliderLabel = h('span', { class: 'num' });
  const formula = h('p', { class: 'num whole-z' });
  const table = h('table', { class: 'whole' });
  const scroller = h('div', { class: 'whole-scroll' }, table);
  const barsSlot = h('div');
  const overflow = h('p', { class: 'note whole-overflow', hidden: true });
  const note = h('p', { class: 'note' });
  const element = h('div', { class: 'softmax-whole' }, title,
    h('label', { class: 'range' }, slider, sliderLabel), formula, h('div', { class: 'whole-body' }, scroller, barsSlot), overflow, note);
  let last = null;

  events.on(slider, 'input', () => {
    k = Number(slider.value);
    onTemperature(TEMPERATURES[k]);
    if (last) draw(...last);
  });

  function draw(snap, row) {
    last = [snap, row];
    const t = TEMPERATURES[k];
    const written = snap.derived.softmaxWritten[k].rows[row];
    const word = snap.words[row];
    title.textContent = i18n.t('whole.title', { word });
    sliderLabel.textContent = i18n.t('whole.temp', { t });
    slider.setAttribute('aria-valuetext', i18n.t('whole.temp', { t }));
    slider.setAttribute('aria-label', i18n.t('whole.temp', { t: '' }).replace(/\s*=\s*$/, ''));
    formula.textContent = i18n.t('whole.z', { z: snap.divisor === 1 ? `z = s / T = s / ${t}` : `z = s / (√d_k · T) = s / (√${snap.dk} · ${t})` });
    clear(table).append(
      h('caption', { class: 'visually-hidden', text: i18n.t('whole.title', { word }) }),
      h('thead', {}, h('tr', {}, [i18n.t('whole.token'), 's', 'z', 'exp(z)', 'exp(z) / Σ'].map((text) => h('th', { text, attrs: { scope: 'col' } })))),
      h('tbody', {}, snap.words.map((w, j) => h('tr', {},
        h('th', { text: w, attrs: { scope: 'row' } }),
        h('td', { class: 'num', text: fmt(snap.scores.get(row, j)) }),
        h('td', { class: 'num', text: fmt(written.z[j]) }),
        h('td', { class: 'num exp', text: fmtWide(written.exps[j]) }),
        h('td', { class: 'num weight', text: fmt(written.weights[j]) })))),
      h('tfoot', {}, h('tr', {},
        h('th', { text: i18n.t('whole.total'), attrs: { scope: 'row', colspan: '3' } }),
        h('td', { class: 'num total', text: fmtWide(written.total) }),
        h('td', { class: 'num', text: fmt(written.weightTotal) }))));
    clear(barsSlot).append(bars(snap.words, written.weights, { fmt, cls: 'q' }));
    overflow.hidden = written.exps.every(Number.isFinite) && Number.isFinite(written.total);
    overflow.textContent = i18n.t('whole.overflow');
    note.textContent = i18n.t('whole.note');
  }

  return { element, draw, refresh: () => last && draw(...last), get temperature() { return TEMPERATURES[k]; } };
}
