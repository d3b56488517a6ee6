// sections/training/car-reading.js: beside the similarity chart, on a corpus other than the default
// (the car experiment): cos(猫, 汽车) over the run next to the default corpus's with the same
// settings, as a small line drawing and a sentence read off it. Draws training/car-reading.js's data.
//
//   const reading = createCarReading({ i18n });   card.append(reading.element);   reading.draw(store);
import { h, s, fmt } from '../../shell/dom.js';
import { carReading } from '../../training/car-reading.js';

const W = 280, H = 80;

export function createCarReading({ i18n }) {
  const line = (cls) => s('polyline', { class: cls, fill: 'none' });
  const hereLine = line('tr-car-here'), baseLine = line('tr-car-base');
  const zero = s('line', { class: 'tr-car-zero', x1: 0, x2: W });
  const drawing = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'tr-car-drawing', 'aria-hidden': 'true' }, zero, baseLine, hereLine);
  const text = h('p', { class: 'tr-note', attrs: { 'data-role': 'car-reading-text' } });
  const element = h('div', { class: 'tr-car-reading', attrs: { 'data-role': 'car-reading' }, hidden: true }, drawing, text);

  function draw(store) {
    const r = carReading(store.run, store.reference);
    element.hidden = !r;
    if (!r) return;
    const x = (step) => (W * step) / Math.max(1, r.total);
    const y = (v) => H / 2 - (H / 2 - 2) * Math.max(-1, Math.min(1, v));
    const points = (list) => list.map((p) => `${x(p.step).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
    hereLine.setAttribute('points', points(r.here));
    baseLine.setAttribute('points', points(r.base));
    zero.setAttribute('y1', String(y(0)));
    zero.setAttribute('y2', String(y(0)));
    element.dataset.step = String(r.step);
    text.textContent = i18n.t(r.step === 0 ? 'training.carReading.start' : 'training.carReading.text', {
      step: r.step, here: fmt(r.nowHere), base: fmt(r.nowBase), peak: fmt(r.peak.v), peakStep: r.peak.step,
    });
  }
  return { element, draw };
}
