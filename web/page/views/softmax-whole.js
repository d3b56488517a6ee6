// views/softmax-whole.js: the softmax section's softmax written out for one row, the way the article describes it:
// each score (divided by √d_k when the switch is on, then by the temperature T), its exp, the
// row's total before the division, and each exp divided by that total. A slider sets T. Numbers
// come from the snapshot (snapshot-derived.js, softmaxWritten); this file only lays them out.
//   const panel = createSoftmaxWhole({ i18n, events, onTemperature });
//   stage.append(panel.element);  …  panel.draw(snap, row);   // T: snap.choices.temp
// The slider does not keep T: it asks onTemperature, and the new snapshot brings T back.
import { h, clear, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { SOFTMAX_WHOLE_STRINGS } from './softmax-whole.strings.js';
import { bars } from '../shell/section-shell.js';
import { TEMPERATURES } from '../models/snapshot-derived.js';

addStrings(SOFTMAX_WHOLE_STRINGS);

/** 3 decimals, or 4 significant digits in exponent form for large numbers (exp grows fast). */
export function fmtWide(x) {
  if (!Number.isFinite(x)) return '—';
  return Math.abs(x) >= 1e5 ? x.toExponential(3) : fmt(x);
}

/** The stop of TEMPERATURES nearest to T (a T from a link need not be a stop). */
function stopOf(temperature) {
  const k = TEMPERATURES.indexOf(temperature);
  if (k >= 0) return k;
  return TEMPERATURES.reduce((best, t, j) => (Math.abs(t - temperature) < Math.abs(TEMPERATURES[best] - temperature) ? j : best), 0);
}

export function createSoftmaxWhole({ i18n, events, onTemperature = () => {} }) {
  let k = 0;
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

  events.on(slider, 'input', () => onTemperature(TEMPERATURES[Number(slider.value)]));

  function draw(snap, row) {
    last = [snap, row];
    k = stopOf(snap.choices.temp);
    slider.value = String(k);
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
