// histogram.js: counts per bin as an SVG bar chart, one or more series overlaid on one x axis
// (the section "Why divide by √d_k": q·k and q·k/√d_k). Draws what it is given, computes nothing.
// The SVG is an image with a name (role="img", aria-label): the section writes the numbers it
// shows in text beside it.
//   const chart = createHistogram();
//   chart.draw({ min: -70, max: 70, width: 2, series: [{ counts, cls: 'raw' }], label: '…' });
import { s } from './dom.js';

const W = 560, H = 180, PAD_X = 8, AXIS = 22;   // viewBox units; the plot is W − 2·PAD_X wide

export function createHistogram() {
  const bars = s('g', { class: 'hist-bars' });
  const axis = s('g', { class: 'hist-axis' });
  const svg = s('svg', { class: 'histogram', viewBox: `0 0 ${W} ${H}`, role: 'img' }, bars, axis);

  function draw({ min, max, width, series, label, ticks = [] }) {
    svg.setAttribute('aria-label', label);
    bars.replaceChildren();
    axis.replaceChildren();
    const bins = Math.round((max - min) / width);
    const x = (v) => PAD_X + ((v - min) / (max - min)) * (W - 2 * PAD_X);
    const top = Math.max(1, ...series.flatMap((one) => one.counts));
    const plot = H - AXIS - 6;
    for (const { counts, cls } of series) {
      const group = s('g', { class: `hist-series ${cls}` });
      for (let b = 0; b < bins; b++) {
        if (!counts[b]) continue;
        const h = Math.max(1, (counts[b] / top) * plot);
        group.append(s('rect', { x: x(min + b * width) + 0.5, y: H - AXIS - h, width: Math.max(1, x(min + width) - x(min) - 1), height: h }));
      }
      bars.append(group);
    }
    axis.append(s('line', { x1: PAD_X, x2: W - PAD_X, y1: H - AXIS, y2: H - AXIS }));
    for (const t of ticks) {
      axis.append(s('line', { x1: x(t), x2: x(t), y1: H - AXIS, y2: H - AXIS + 4 }),
        s('text', { x: x(t), y: H - 6, 'text-anchor': 'middle', text: String(t) }));
    }
  }

  return { element: svg, draw };
}
