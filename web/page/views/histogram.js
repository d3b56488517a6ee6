// views/histogram.js: counts per bin as an SVG bar chart, one or more series overlaid on one x axis
// (the section "Why divide by √d_k": q·k and q·k/√d_k). Draws what it is given, computes nothing.
// The bars are an SVG image with a name (role="img", aria-label): the section writes the numbers
// it shows in text beside it. The SVG stretches to the width it is given at a fixed height; the
// axis's labels are HTML text placed at their percentages under it, so they keep the page's
// font size at any width (an SVG scaled down to a phone's width would shrink them).
//   const chart = createHistogram();
//   chart.draw({ min: -70, max: 70, width: 2, series: [{ counts, cls: 'raw' }], label: '…' });
import { h, s } from '../shell/dom.js';

const W = 560, H = 160;   // viewBox units; stretched to the element's size (preserveAspectRatio none)

export function createHistogram() {
  const bars = s('g', { class: 'hist-bars' });
  const axis = s('g', { class: 'hist-axis' });
  const svg = s('svg', { class: 'histogram', viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img' }, bars, axis);
  const labels = h('div', { class: 'hist-ticks', attrs: { 'aria-hidden': 'true' } });
  const element = h('div', { class: 'histogram-frame' }, svg, labels);

  function draw({ min, max, width, series, label, ticks = [] }) {
    svg.setAttribute('aria-label', label);
    bars.replaceChildren();
    axis.replaceChildren();
    labels.replaceChildren();
    const bins = Math.round((max - min) / width);
    const share = (v) => (v - min) / (max - min);
    const x = (v) => share(v) * W;
    const top = Math.max(1, ...series.flatMap((one) => one.counts));
    const plot = H - 4;
    for (const { counts, cls } of series) {
      const group = s('g', { class: `hist-series ${cls}` });
      for (let b = 0; b < bins; b++) {
        if (!counts[b]) continue;
        const height = Math.max(1, (counts[b] / top) * plot);
        group.append(s('rect', { x: x(min + b * width) + 0.5, y: H - height, width: Math.max(1, x(min + width) - x(min) - 1), height }));
      }
      bars.append(group);
    }
    axis.append(s('line', { x1: 0, x2: W, y1: H, y2: H, 'vector-effect': 'non-scaling-stroke' }));
    for (const t of ticks) {
      axis.append(s('line', { x1: x(t), x2: x(t), y1: H - 4, y2: H, 'vector-effect': 'non-scaling-stroke' }));
      const tick = h('span', { text: String(t) });
      tick.style.left = `${(100 * share(t)).toFixed(3)}%`;   // through the CSSOM: a strict CSP allows it
      labels.append(tick);
    }
  }

  return { element, draw };
}
