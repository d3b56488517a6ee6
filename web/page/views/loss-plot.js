// views/loss-plot.js: a small SVG chart of a GPT run's losses: every batch's loss as a line,
// the evaluated training and validation losses as dots, and two horizontal baselines (the
// unigram model, a uniform guess). It draws what it is given and computes nothing.
//   const plot = createLossPlot();   plot.update({ losses, evals, baselines, steps, label });
import { h, s, clear } from '../shell/dom.js';

const H = 220, L = 36, R = 8, T = 10, B = 24;

export function createLossPlot() {
  const element = h('div', { class: 'loss-plot' });
  // The chart is as many units wide as the element has pixels (280 to 560), so that its labels keep
  // their size on a phone instead of shrinking with the whole picture: the width a ResizeObserver
  // last reported (after layout: a redraw at every step reads no layout), 560 until then; a new
  // width draws the last data again.
  let W = 560;
  let last = null;
  const resizes = typeof ResizeObserver === 'function' ? new ResizeObserver(([entry]) => {
    const width = Math.min(560, Math.max(280, Math.round(entry.contentRect.width || 560)));
    if (width === W) return;
    W = width;
    if (last) plot.update(last);
  }) : null;
  resizes?.observe(element);
  const plot = {
    element,
    /**
     * losses [{ step, loss }], evals [{ step, train, val }], baselines [{ value, cls }] (lines
     * across), steps: the schedule's length (the x axis), label: the chart's accessible name.
     */
    update(data) {
      last = data;
      const { losses, evals, baselines, steps, label } = data;
      clear(element);
      const values = [...losses.map((p) => p.loss), ...evals.flatMap((e) => [e.train, e.val]),
        ...baselines.map((b) => b.value)].filter(Number.isFinite);
      const top = Math.max(1, ...values) * 1.05;
      const xMax = Math.max(1, steps);
      const px = (step) => L + (step / xMax) * (W - L - R);
      const py = (v) => T + (1 - v / top) * (H - T - B);
      const parts = [s('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'axis' }), s('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' })];
      const ticks = 4;
      for (let k = 0; k <= ticks; k++) {
        const v = (top * k) / ticks;
        parts.push(s('text', { x: L - 4, y: py(v) + 3, 'text-anchor': 'end', class: 'tick', text: v.toFixed(1) }));
        const st = Math.round((xMax * k) / ticks);
        parts.push(s('text', { x: px(st), y: H - 8, 'text-anchor': 'middle', class: 'tick', text: String(st) }));
      }
      for (const b of baselines) {
        if (Number.isFinite(b.value)) parts.push(s('line', { x1: L, x2: W - R, y1: py(b.value), y2: py(b.value), class: b.cls }));
      }
      const pts = losses.filter((p) => Number.isFinite(p.loss));
      if (pts.length) {
        parts.push(s('path', { class: 'batch', d: pts.map((p, i) => `${i ? 'L' : 'M'}${px(p.step).toFixed(1)},${py(p.loss).toFixed(1)}`).join('') }));
      }
      for (const e of evals) {
        parts.push(s('circle', { cx: px(e.step), cy: py(e.train), r: 3.5, class: 'train-eval' }));
        parts.push(s('circle', { cx: px(e.step), cy: py(e.val), r: 3.5, class: 'val' }));
      }
      element.append(s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label }, ...parts));
    },
  };
  return plot;
}
