// charts.js: the three live Chart.js charts of the training section, each behind a small API:
//   push(point) / update(data), reset(), toPNG(), setTheme(theme), setText(text), destroy().
// Charts never animate (update('none')): the training loop redraws them every frame, and an
// animation would both cost frame time and lag behind the numbers. Only the Chart.js parts we
// use are registered, which keeps the bundle small.
import {
  Chart, LineController, ScatterController, LineElement, PointElement, LinearScale, Legend, Tooltip,
} from 'chart.js';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, Legend, Tooltip);

/** Colours that read on a light page and on a dark one. */
export const THEMES = {
  light: {
    dark: false, text: '#24292f', muted: '#57606a', grid: 'rgba(0,0,0,0.10)', background: '#ffffff',
    series: ['#0b63c5', '#c2410c', '#1a7f37', '#8250df', '#6e7781'],
  },
  dark: {
    dark: true, text: '#e6edf3', muted: '#9da7b1', grid: 'rgba(255,255,255,0.13)', background: '#15191f',
    series: ['#6cb6ff', '#ffa657', '#56d364', '#d2a8ff', '#8b949e'],
  },
};

// Fills the canvas with the page background before drawing, so an exported PNG looks like the
// screen (a transparent PNG would show dark-mode text on a white viewer).
const backgroundPlugin = {
  id: 'qkvBackground',
  beforeDraw(chart, _args, options) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = options.color || '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

function baseOptions(theme, { xTitle, yTitle }) {
  const scale = (title) => ({
    type: 'linear',
    title: { display: Boolean(title), text: title, color: theme.muted },
    ticks: { color: theme.muted, maxTicksLimit: 6, callback: (v) => formatTick(v) },
    grid: { color: theme.grid },
    border: { color: theme.grid },
  });
  return {
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    parsing: false,
    normalized: true,
    events: ['mousemove', 'mouseout', 'touchstart', 'touchmove'],
    interaction: { mode: 'nearest', intersect: false },
    scales: { x: scale(xTitle), y: scale(yTitle) },
    plugins: {
      qkvBackground: { color: theme.background },
      legend: { labels: { color: theme.text, boxWidth: 12, boxHeight: 2 } },
      tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${fmt3(item.parsed.y)}` } },
    },
  };
}

function fmt3(v) {
  return Number.isFinite(v) ? v.toFixed(3) : '—';
}

function formatTick(v) {
  if (!Number.isFinite(v)) return '';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 10 ? v.toFixed(0) : Number(v.toFixed(3)).toString();
}

/**
 * A growing series with a cap: when it holds more than `max` points, every other point is dropped
 * and from then on only every stride-th step is kept, so a long run costs the chart a bounded
 * number of points while its whole shape stays visible.
 */
export class CappedSeries {
  constructor(max = 600) {
    this.max = max;
    this.reset();
  }

  reset() {
    this.points = [];
    this.stride = 1;
  }

  push(x, y) {
    if (x % this.stride !== 0) return false;
    this.points.push({ x, y });
    if (this.points.length > this.max) {
      this.stride *= 2;
      this.points = this.points.filter((p) => p.x % this.stride === 0);
    }
    return true;
  }
}

function applyTheme(chart, theme) {
  const o = chart.options;
  for (const axis of ['x', 'y']) {
    o.scales[axis].ticks.color = theme.muted;
    o.scales[axis].title.color = theme.muted;
    o.scales[axis].grid.color = theme.grid;
    o.scales[axis].border.color = theme.grid;
  }
  o.plugins.legend.labels.color = theme.text;
  o.plugins.qkvBackground.color = theme.background;
}

/** A line chart of several series over the training steps; each point is { step, values: [...] }. */
class StepChart {
  constructor(canvas, { theme, series, xTitle, yTitle, max = 600, yMin, yMax }) {
    this.theme = theme;
    this.seriesSpec = series;  // [{ label, colour: index into theme.series, width, dash }]
    this.capped = series.map(() => new CappedSeries(max));
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: series.map((s, i) => this._dataset(s, i)) },
      options: baseOptions(theme, { xTitle, yTitle }),
      plugins: [backgroundPlugin],
    });
    if (yMin !== undefined) this.chart.options.scales.y.min = yMin;
    if (yMax !== undefined) this.chart.options.scales.y.max = yMax;
    this.chart.options.scales.x.min = 0;
  }

  _dataset(s, i) {
    const colour = this.theme.series[s.colour ?? i];
    return {
      label: s.label, data: this.capped[i].points, borderColor: colour, backgroundColor: colour,
      borderWidth: s.width ?? 1.5, borderDash: s.dash || [], pointRadius: 0, tension: 0,
    };
  }

  /** Adds one step's values (non-finite values are skipped, never drawn). Call update() to draw. */
  push({ step, values }) {
    values.forEach((v, i) => {
      if (Number.isFinite(v)) this.capped[i].push(step, v);
    });
    this.chart.data.datasets.forEach((d, i) => { d.data = this.capped[i].points; });
  }

  /** Replaces all points: data = [{ step, values }] (as after a replay), then draws. */
  update(data) {
    if (data) {
      this.capped.forEach((c) => c.reset());
      for (const point of data) this.push(point);
    }
    this.chart.update('none');
  }

  reset() {
    this.capped.forEach((c) => c.reset());
    this.chart.data.datasets.forEach((d, i) => { d.data = this.capped[i].points; });
    this.chart.update('none');
  }

  pointCount() {
    return this.capped[0].points.length;
  }

  setTheme(theme) {
    this.theme = theme;
    applyTheme(this.chart, theme);
    this.chart.data.datasets.forEach((d, i) => {
      const colour = theme.series[this.seriesSpec[i].colour ?? i];
      d.borderColor = colour;
      d.backgroundColor = colour;
    });
    this.chart.update('none');
  }

  /** labels: one per series; xTitle, yTitle: axis titles. */
  setText({ labels, xTitle, yTitle }) {
    if (labels) this.chart.data.datasets.forEach((d, i) => { d.label = labels[i]; });
    if (xTitle !== undefined) this.chart.options.scales.x.title.text = xTitle;
    if (yTitle !== undefined) this.chart.options.scales.y.title.text = yTitle;
    this.chart.update('none');
  }

  toPNG() {
    return this.chart.toBase64Image('image/png');
  }

  destroy() {
    this.chart.destroy();
  }
}

/** The loss at every step, and its moving average (the per-batch loss is noisy). */
export function createLossChart(canvas, { theme, labels, xTitle, yTitle }) {
  return new StepChart(canvas, {
    theme, xTitle, yTitle, yMin: 0,
    series: [
      { label: labels[0], colour: 4, width: 1 },
      { label: labels[1], colour: 0, width: 2 },
    ],
  });
}

/** cos(猫, 狗) against cos(猫, 汽车) over the steps. */
export function createSimilarityChart(canvas, { theme, labels, xTitle, yTitle }) {
  return new StepChart(canvas, {
    theme, xTitle, yTitle, yMin: -1, yMax: 1,
    series: [
      { label: labels[0], colour: 0, width: 2 },
      { label: labels[1], colour: 1, width: 2, dash: [6, 3] },
    ],
  });
}

/**
 * The embeddings projected to 2-D, every word labelled, with a short trail of where each point
 * was over the last few updates. Trails and labels are drawn by a plugin straight onto the canvas:
 * one dataset of points stays cheap however many words there are.
 */
export class EmbeddingScatter {
  constructor(canvas, { theme, trail = 10, xTitle = 'PC1', yTitle = 'PC2' }) {
    this.theme = theme;
    this.trailLength = trail;
    this.words = [];
    this.groups = [];
    this.shown = [];
    this.trails = [];
    this.bound = 0;
    const self = this;
    const labelPlugin = {
      id: 'qkvWordLabels',
      afterDatasetsDraw(chart) {
        self._drawTrailsAndLabels(chart);
      },
    };
    const options = baseOptions(theme, { xTitle, yTitle });
    options.plugins.legend.display = false;
    options.plugins.tooltip.callbacks.label = (item) =>
      `${self.words[self.shown[item.dataIndex]] ?? ''} (${fmt3(item.parsed.x)}, ${fmt3(item.parsed.y)})`;
    options.interaction = { mode: 'nearest', intersect: true };
    for (const axis of ['x', 'y']) options.scales[axis].ticks.includeBounds = false;
    this.chart = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [{ label: 'words', data: [], pointRadius: 4, pointHoverRadius: 6, pointBorderWidth: 0 }] },
      options,
      plugins: [backgroundPlugin, labelPlugin],
    });
    this._colourPoints();
  }

  /**
   * words: labels; groups: an integer per word (0 = plain grey dot, named on hover; 1.. = coloured
   * and labelled); hidden: indices left off the plot (the boundary token <s>, which sits in every
   * sentence and lands far from all the words, squeezing them into a corner).
   */
  setWords(words, groups, hidden = []) {
    this.words = words.slice();
    this.groups = groups ? groups.slice() : words.map(() => 0);
    this.hidden = new Set(hidden);
    this.shown = words.map((_, i) => i).filter((i) => !this.hidden.has(i));
    this.trails = words.map(() => []);
    this._colourPoints();
  }

  _groupColour(g) {
    return g === 0 ? this.theme.muted : this.theme.series[(g - 1) % this.theme.series.length];
  }

  _colourPoints() {
    const ds = this.chart.data.datasets[0];
    const shown = this.shown || [];
    ds.backgroundColor = shown.map((i) => this._groupColour(this.groups[i]));
    ds.pointRadius = shown.map((i) => (this.groups[i] === 0 ? 3 : 5));
  }

  /** points: a Matrix vocab×2 (or { rows, data }); moves every word and extends its trail. */
  update(points) {
    if (points) {
      const data = [];
      let maxAbs = 0;
      for (const i of this.shown) {
        let x = points.data[2 * i], y = points.data[2 * i + 1];
        if (!Number.isFinite(x) || !Number.isFinite(y)) x = y = 0;  // never drawn as NaN
        data.push({ x, y });
        maxAbs = Math.max(maxAbs, Math.abs(x), Math.abs(y));
        const trail = this.trails[i] || (this.trails[i] = []);
        trail.push(x, y);
        if (trail.length > 2 * this.trailLength) trail.splice(0, 2);
      }
      this.chart.data.datasets[0].data = data;
      // a square, symmetric view that grows at once and shrinks slowly, so the points
      // do not jitter as the extremes move
      const wanted = Math.max(maxAbs * 1.15, 1e-3);
      this.bound = wanted > this.bound ? wanted : Math.max(wanted, this.bound * 0.97);
      for (const axis of ['x', 'y']) {
        this.chart.options.scales[axis].min = -this.bound;
        this.chart.options.scales[axis].max = this.bound;
      }
    }
    this.chart.update('none');
  }

  /** Forgets the trails (after a reset or a jump, where a trail would draw a false path). */
  clearTrails() {
    this.trails = this.words.map(() => []);
  }

  reset() {
    this.clearTrails();
    this.bound = 0;
    this.chart.data.datasets[0].data = [];
    this.chart.update('none');
  }

  _drawTrailsAndLabels(chart) {
    const { ctx, scales: { x: sx, y: sy } } = chart;
    const points = chart.data.datasets[0].data;
    ctx.save();
    ctx.lineWidth = 1.5;
    ctx.lineCap = 'round';
    // one path per (colour group, segment age), not one per segment: the older a segment,
    // the fainter; a few dozen strokes a frame however many words there are
    const n = this.trailLength;
    const groups = [...new Set(this.shown.map((i) => this.groups[i]))];
    for (let k = 1; k < n; k++) {
      ctx.globalAlpha = 0.08 + 0.5 * (k / n);
      for (const g of groups) {
        ctx.beginPath();
        let any = false;
        for (const i of this.shown) {
          if (this.groups[i] !== g) continue;
          const t = this.trails[i];
          // segment k of a full trail; shorter (younger) trails align at their newest end
          const offset = n - t.length / 2;
          const a = k - 1 - offset, b = k - offset;
          if (a < 0) continue;
          ctx.moveTo(sx.getPixelForValue(t[2 * a]), sy.getPixelForValue(t[2 * a + 1]));
          ctx.lineTo(sx.getPixelForValue(t[2 * b]), sy.getPixelForValue(t[2 * b + 1]));
          any = true;
        }
        if (any) {
          ctx.strokeStyle = this._groupColour(g);
          ctx.stroke();
        }
      }
    }
    ctx.globalAlpha = 1;
    ctx.textBaseline = 'middle';
    ctx.font = '600 13px system-ui, "Noto Sans CJK SC", sans-serif';
    ctx.fillStyle = this.theme.text;
    ctx.strokeStyle = this.theme.background;
    ctx.lineWidth = 3;
    ctx.lineJoin = 'round';
    // labels try the right of their point, then left, above, below, and take the first place
    // that does not cover a label already drawn (words that gathered would print on each other)
    const placed = [];
    const overlaps = (box) => placed.some((p) => box.x < p.x + p.w && p.x < box.x + box.w && box.y < p.y + p.h && p.y < box.y + box.h);
    for (let k = 0; k < points.length; k++) {
      const i = this.shown[k];
      if (this.groups[i] === 0) continue;  // grey words are named by the tooltip only
      const x = sx.getPixelForValue(points[k].x), y = sy.getPixelForValue(points[k].y);
      const w = ctx.measureText(this.words[i]).width, hgt = 14;
      const candidates = [[x + 7, y], [x - 7 - w, y], [x - w / 2, y - 13], [x - w / 2, y + 13], [x + 7, y - 12], [x + 7, y + 12]];
      let [px, py] = candidates[0];
      for (const [cx, cy] of candidates) {
        if (!overlaps({ x: cx, y: cy - hgt / 2, w, h: hgt })) { [px, py] = [cx, cy]; break; }
      }
      placed.push({ x: px, y: py - hgt / 2, w, h: hgt });
      ctx.strokeText(this.words[i], px, py);  // a halo keeps labels readable over other points
      ctx.fillText(this.words[i], px, py);
    }
    ctx.restore();
  }

  setTheme(theme) {
    this.theme = theme;
    applyTheme(this.chart, theme);
    this._colourPoints();
    this.chart.update('none');
  }

  setText({ xTitle, yTitle }) {
    if (xTitle !== undefined) this.chart.options.scales.x.title.text = xTitle;
    if (yTitle !== undefined) this.chart.options.scales.y.title.text = yTitle;
    this.chart.update('none');
  }

  toPNG() {
    return this.chart.toBase64Image('image/png');
  }

  destroy() {
    this.chart.destroy();
  }
}
