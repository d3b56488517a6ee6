// views/charts.js: the three live Chart.js charts of the training section, each behind a small API:
//   push(point) / update(data), reset(), toPNG(), setTheme(theme), setText(text), destroy().
// Charts never animate (update('none')): the training loop redraws them every frame, and an
// animation would both cost frame time and lag behind the numbers. Only the Chart.js parts we
// use are registered, which keeps the bundle small: no Legend and no Tooltip plugin (together
// 5.6 KiB of the widget, gzipped). The line charts' legends are HTML lists in the cards
// (LOSS_SERIES, SIMILARITY_SERIES, styleSwatch), and hovering a chart shows a small HTML readout
// of the nearest point (HoverReadout), with a marker drawn on the canvas.
import {
  Chart, LineController, ScatterController, LineElement, PointElement, LinearScale,
} from 'chart.js';

import { placeLabels, nearestOnBox } from './label-placement.js';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale);

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

/**
 * The theme for charts drawn inside `element`: judged by the text colour it actually inherits
 * (a page may set its own scheme, a widget may be forced light or dark), falling back to
 * prefers-color-scheme when the colour cannot be read.
 */
export function themeOf(element, prefersDark = false) {
  const colour = getComputedStyle(element).color;
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/.exec(colour);
  const lightText = m ? (0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3]) > 140 : prefersDark;
  return lightText ? THEMES.dark : THEMES.light;
}

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
    // Chart.js listens to nothing: HoverReadout handles the pointer (and draws its own marker)
    events: [],
    scales: { x: scale(xTitle), y: scale(yTitle) },
    plugins: { qkvBackground: { color: theme.background } },
  };
}

function fmt3(v) {
  const text = Number.isFinite(v) ? v.toFixed(3) : '—';
  return text === '-0.000' ? '0.000' : text;  // as dom.js's fmt prints the numbers beside it
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
  o.plugins.qkvBackground.color = theme.background;
}

/** How each line chart draws its series: colour (an index into theme.series), width, dash. */
export const LOSS_SERIES = Object.freeze([{ colour: 4, width: 1 }, { colour: 0, width: 2 }]);
export const SIMILARITY_SERIES = Object.freeze([{ colour: 0, width: 2 }, { colour: 1, width: 2, dash: [6, 3] }]);

/** Makes an HTML legend's swatch look like its series' line: colour, width, solid or dashed. */
export function styleSwatch(el, theme, spec, i = 0) {
  const colour = theme.series[spec.colour ?? i];
  el.style.borderTop = `${Math.max(2, spec.width ?? 1.5)}px ${spec.dash && spec.dash.length ? 'dashed' : 'solid'} ${colour}`;
}

/**
 * The hover readout: on pointer move over the canvas, `find(chart, pos)` names what is nearest
 * ({ lines: [{ text, colour? }], x, y, marks: [{ x, y, colour }], guide: x? } in canvas pixels, or
 * null), a marker is drawn over the chart and a small HTML element over the chart's box says it.
 * It is refreshed on every draw, so while training it follows the moving data. The element is
 * aria-live="off": the canvases carry their own labels, and a readout that spoke on every pointer
 * move would drown a screen reader. Touch: a tap shows it for a few seconds.
 */
class HoverReadout {
  constructor(canvas, find) {
    this.canvas = canvas;
    this.find = find;
    this.pos = null;
    this.key = '';
    this.frame = 0;
    this.timer = 0;
    this.theme = null;
    const doc = canvas.ownerDocument;
    const el = this.element = doc.createElement('div');
    el.className = 'tr-readout';
    el.setAttribute('aria-live', 'off');
    el.dataset.role = 'readout';
    el.hidden = true;
    if (canvas.parentNode) canvas.parentNode.append(el);
    const move = (e) => {
      clearTimeout(this.timer);
      const rect = canvas.getBoundingClientRect();
      const chart = this.chart;
      if (!chart || !rect.width || !rect.height) return;
      this.pos = {
        x: ((e.clientX - rect.left) * chart.width) / rect.width,
        y: ((e.clientY - rect.top) * chart.height) / rect.height,
      };
      this._redraw();
    };
    const leave = (e) => {
      clearTimeout(this.timer);
      if (e.pointerType === 'touch') this.timer = setTimeout(() => this.hide(), 3000);
      else this.hide();
    };
    this.listeners = [['pointermove', move], ['pointerdown', move], ['pointerleave', leave], ['pointercancel', leave]];
    for (const [type, fn] of this.listeners) canvas.addEventListener(type, fn);
  }

  /** The Chart.js plugin that draws the marker and refreshes the element after every draw. */
  plugin() {
    return { id: 'qkvReadout', afterDraw: (chart) => this._afterDraw(chart) };
  }

  setTheme(theme) {
    this.theme = theme;
    this.element.style.background = theme.background;
    this.element.style.color = theme.text;
  }

  hide() {
    if (!this.pos) return;
    this.pos = null;
    this._redraw();
  }

  _redraw() {
    // one draw per frame however fast the pointer moves
    if (this.frame) return;
    const win = this.canvas.ownerDocument.defaultView;
    this.frame = win.requestAnimationFrame(() => {
      this.frame = 0;
      if (this.chart && this.chart.ctx) this.chart.render();
    });
  }

  _afterDraw(chart) {
    const el = this.element;
    const hit = this.pos ? this.find(chart, this.pos) : null;
    if (!hit) {
      if (!el.hidden) { el.hidden = true; this.key = ''; }
      return;
    }
    const { ctx, chartArea: area } = chart;
    const theme = this.theme;
    ctx.save();
    if (hit.guide !== undefined) {
      ctx.strokeStyle = theme.muted;
      ctx.lineWidth = 1;
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(hit.guide, area.top);
      ctx.lineTo(hit.guide, area.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    for (const m of hit.marks) {
      ctx.beginPath();
      ctx.arc(m.x, m.y, m.r || 4, 0, 2 * Math.PI);
      ctx.fillStyle = m.colour;
      ctx.fill();
      ctx.lineWidth = 2;
      ctx.strokeStyle = m.ring || theme.background;
      ctx.stroke();
    }
    ctx.restore();

    const key = hit.lines.map((l) => `${l.colour || ''}|${l.text}`).join('\n');
    if (key !== this.key) {
      this.key = key;
      const doc = el.ownerDocument;
      el.replaceChildren(...hit.lines.map((line) => {
        const row = doc.createElement('div');
        if (line.colour) {
          const swatch = doc.createElement('span');
          swatch.className = 'tr-readout-swatch';
          swatch.setAttribute('aria-hidden', 'true');
          swatch.style.background = line.colour;
          row.append(swatch);
        }
        row.append(line.text);
        return row;
      }));
    }
    // beside the point (right, else left, else centred over it), above it unless there is no
    // room, and always inside the chart's box: the card clips what leaves it
    el.hidden = false;
    const w = el.offsetWidth, h = el.offsetHeight, gap = 12;
    const maxX = Math.max(0, chart.width - w), maxY = Math.max(0, chart.height - h);
    let x;
    if (hit.x + gap + w <= chart.width) x = hit.x + gap;
    else if (hit.x - gap - w >= 0) x = hit.x - gap - w;
    else x = Math.min(Math.max(hit.x - w / 2, 0), maxX);
    const y = hit.y - gap - h >= 0 ? hit.y - gap - h : Math.min(hit.y + gap, maxY);
    el.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
  }

  destroy() {
    clearTimeout(this.timer);
    if (this.frame) this.canvas.ownerDocument.defaultView.cancelAnimationFrame(this.frame);
    for (const [type, fn] of this.listeners) this.canvas.removeEventListener(type, fn);
    this.element.remove();
  }
}

/** The index of the point in `points` (sorted by x) whose x is nearest to `x`; -1 when empty. */
function nearestIndex(points, x) {
  let lo = 0, hi = points.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].x < x) lo = mid + 1; else hi = mid;
  }
  return lo > 0 && x - points[lo - 1].x <= points[lo].x - x ? lo - 1 : lo;
}

const inArea = (area, pos, slack = 0) =>
  pos.x >= area.left - slack && pos.x <= area.right + slack && pos.y >= area.top - slack && pos.y <= area.bottom + slack;

/** What every chart here shares: axis titles, PNG export, teardown. */
class ChartBase {
  /** xTitle, yTitle: axis titles (either may be left out). */
  setText({ xTitle, yTitle }) {
    if (xTitle !== undefined) this.chart.options.scales.x.title.text = xTitle;
    if (yTitle !== undefined) this.chart.options.scales.y.title.text = yTitle;
    this.chart.update('none');
  }

  toPNG() {
    return this.chart.toBase64Image('image/png');
  }

  destroy() {
    this.readout.destroy();
    this.chart.destroy();
  }
}

/** A line chart of several series over the training steps; each point is { step, values: [...] }. */
class StepChart extends ChartBase {
  constructor(canvas, { theme, series, xTitle, yTitle, max = 600, yMin, yMax }) {
    super();
    this.theme = theme;
    this.seriesSpec = series;  // [{ label, colour: index into theme.series, width, dash }]
    this.capped = series.map(() => new CappedSeries(max));
    this.readout = new HoverReadout(canvas, (chart, pos) => this._nearestStep(chart, pos));
    this.readout.setTheme(theme);
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: series.map((s, i) => this._dataset(s, i)) },
      options: baseOptions(theme, { xTitle, yTitle }),
      plugins: [backgroundPlugin, this.readout.plugin()],
    });
    this.readout.chart = this.chart;
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

  /** The readout of the step nearest the pointer: the step and every series' value there. */
  _nearestStep(chart, pos) {
    const area = chart.chartArea;
    if (!inArea(area, pos, 4)) return null;
    const sx = chart.scales.x, sy = chart.scales.y;
    const x = sx.getValueForPixel(pos.x);
    const datasets = chart.data.datasets;
    let step = null;
    for (const d of datasets) {
      const k = nearestIndex(d.data, x);
      if (k >= 0 && (step === null || Math.abs(d.data[k].x - x) < Math.abs(step - x))) step = d.data[k].x;
    }
    if (step === null) return null;
    const px = sx.getPixelForValue(step);
    const lines = [{ text: `${chart.options.scales.x.title.text || 'step'} ${step}` }];
    const marks = [];
    let top = area.bottom;
    datasets.forEach((d) => {
      const k = nearestIndex(d.data, step);
      const hasPoint = k >= 0 && d.data[k].x === step;
      const value = hasPoint ? d.data[k].y : NaN;
      lines.push({ text: `${d.label}: ${fmt3(value)}`, colour: d.borderColor });
      if (hasPoint) {
        const py = Math.min(Math.max(sy.getPixelForValue(value), area.top), area.bottom);
        marks.push({ x: px, y: py, colour: d.borderColor });
        top = Math.min(top, py);
      }
    });
    return { lines, marks, guide: px, x: px, y: marks.length ? top : pos.y };
  }

  /** The x axis ends at `max` (the schedule's length), whatever the points so far. */
  setXMax(max) {
    this.chart.options.scales.x.max = max;
    this.chart.update('none');
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
    this.readout.setTheme(theme);
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
    super.setText({ xTitle, yTitle });
  }
}

/** The loss at every step, and its moving average (the per-batch loss is noisy). */
export function createLossChart(canvas, { theme, labels, xTitle, yTitle }) {
  return new StepChart(canvas, {
    theme, xTitle, yTitle, yMin: 0,
    series: LOSS_SERIES.map((spec, i) => ({ ...spec, label: labels[i] })),
  });
}

/** cos(猫, 狗) against cos(猫, 汽车) over the steps. */
export function createSimilarityChart(canvas, { theme, labels, xTitle, yTitle }) {
  return new StepChart(canvas, {
    theme, xTitle, yTitle, yMin: -1, yMax: 1,
    series: SIMILARITY_SERIES.map((spec, i) => ({ ...spec, label: labels[i] })),
  });
}

const LABEL_FONT = '600 13px system-ui, "Noto Sans CJK SC", sans-serif';
const LABEL_HEIGHT = 16;

/**
 * The embeddings projected to 2-D, every word labelled, with a short trail of where each point
 * was over the last few updates. Trails and labels are drawn by a plugin straight onto the canvas:
 * one dataset of points stays cheap however many words there are.
 */
export class EmbeddingScatter extends ChartBase {
  constructor(canvas, { theme, trail = 10, xTitle = 'PC1', yTitle = 'PC2' }) {
    super();
    this.theme = theme;
    this.trailLength = trail;
    this.words = [];
    this.groups = [];
    this.shown = [];
    this.trails = [];
    this.labels = [];
    this.placed = [];
    this.arrows = [];
    this.bound = 0;
    const self = this;
    const labelPlugin = {
      id: 'qkvWordLabels',
      afterDatasetsDraw(chart) {
        self._drawTrailsAndLabels(chart);
      },
    };
    const options = baseOptions(theme, { xTitle, yTitle });
    for (const axis of ['x', 'y']) options.scales[axis].ticks.includeBounds = false;
    this.readout = new HoverReadout(canvas, (chart, pos) => this._nearestWord(chart, pos));
    this.readout.setTheme(theme);
    this.chart = new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [{ label: 'words', data: [], pointRadius: 4, pointBorderWidth: 0 }] },
      options,
      plugins: [backgroundPlugin, labelPlugin, this.readout.plugin()],
    });
    this.readout.chart = this.chart;
    this._colourPoints();
  }

  /**
   * words: the vocabulary; groups: an integer per word (0 = plain grey dot, named on hover; 1.. =
   * coloured and labelled); hidden: indices left off the plot (the boundary token <s>, which sits
   * in every sentence and lands far from all the words, squeezing them into a corner); labels:
   * what to print for each word (the word, or on the English page the word and its gloss).
   */
  setWords(words, groups, hidden = [], labels = words) {
    this.words = words.slice();
    this.labels = labels.slice();
    this.groups = groups ? groups.slice() : words.map(() => 0);
    this.hidden = new Set(hidden);
    this.shown = words.map((_, i) => i).filter((i) => !this.hidden.has(i));
    this.trails = words.map(() => []);
    this.placed = [];
    this._colourPoints();
  }

  /** New labels for the same words (a language change). */
  setLabels(labels) {
    this.labels = labels.slice();
    this.chart.update('none');
  }

  /**
   * Arrows drawn between words, as [from, to] pairs of word indices: the analogy's parallelogram
   * (国王 → 女王 beside 男人 → 女人). Dashed lines join the two arrows' tails and heads, closing
   * the shape the analogy assumes. [] draws none.
   */
  setArrows(pairs) {
    this.arrows = pairs.filter(([a, b]) => a >= 0 && b >= 0);
    this.chart.canvas.dataset.arrows = this.arrows.map(([a, b]) => `${this.words[a]}→${this.words[b]}`).join(' ');
    this.chart.update('none');
  }

  /** The labels as last drawn: [{ word, label, box: { x, y, w, h } | null, leader }] (canvas pixels). */
  labelBoxes() {
    return this.placed.map((p) => ({ ...p }));
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
      let maxAbs = 0, maxAll = 0;
      for (const i of this.shown) {
        let x = points.data[2 * i], y = points.data[2 * i + 1];
        if (!Number.isFinite(x) || !Number.isFinite(y)) x = y = 0;  // never drawn as NaN
        data.push({ x, y });
        // the view fits the coloured words (grey ones beyond it are cut off): they are the story
        const extent = Math.max(Math.abs(x), Math.abs(y));
        maxAll = Math.max(maxAll, extent);
        if (this.groups[i] !== 0) maxAbs = Math.max(maxAbs, extent);
        const trail = this.trails[i] || (this.trails[i] = []);
        trail.push(x, y);
        if (trail.length > 2 * this.trailLength) trail.splice(0, 2);
      }
      this.chart.data.datasets[0].data = data;
      // a square, symmetric view that grows at once and shrinks slowly, so the points
      // do not jitter as the extremes move
      const wanted = Math.max((maxAbs || maxAll) * 1.15, 1e-3);
      this.bound = wanted > this.bound ? wanted : Math.max(wanted, this.bound * 0.97);
      for (const axis of ['x', 'y']) {
        this.chart.options.scales[axis].min = -this.bound;
        this.chart.options.scales[axis].max = this.bound;
      }
    }
    this.chart.update('none');
  }

  /** The readout of the word nearest the pointer: its name and its coordinates. */
  _nearestWord(chart, pos) {
    if (!inArea(chart.chartArea, pos)) return null;
    // Chart.js's 'nearest' interaction mode is in its core (no plugin): a ChartEvent-like object
    // carries the position in canvas pixels
    const [item] = chart.getElementsAtEventForMode({ type: 'mousemove', native: null, x: pos.x, y: pos.y },
      'nearest', { intersect: false }, false);
    if (!item) return null;
    const i = this.shown[item.index];
    const point = chart.data.datasets[0].data[item.index];
    if (i === undefined || !point) return null;
    const colour = this._groupColour(this.groups[i]);
    const { x, y } = item.element;
    return {
      lines: [{ text: `${this.labels?.[i] ?? this.words[i] ?? ''} (${fmt3(point.x)}, ${fmt3(point.y)})`, colour }],
      marks: [{ x, y, r: this.groups[i] === 0 ? 5 : 7, colour, ring: this.theme.text }],
      x, y,
    };
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
    // trails and arrows stay inside the plot, as the points do
    const box = chart.chartArea;
    ctx.beginPath();
    ctx.rect(box.left, box.top, box.right - box.left, box.bottom - box.top);
    ctx.clip();
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
    this._drawArrows(chart);
    // labels: placed so that none overlaps another (label-placement.js); one pushed away from
    // its point gets a thin leader line back to it
    ctx.textBaseline = 'middle';
    ctx.font = LABEL_FONT;
    const area = chart.chartArea;
    const items = [];
    const which = [];
    for (let k = 0; k < points.length; k++) {
      const i = this.shown[k];
      if (this.groups[i] === 0) continue;  // grey words are named by the hover readout only
      const text = this.labels?.[i] ?? this.words[i];
      const x = sx.getPixelForValue(points[k].x) - area.left, y = sy.getPixelForValue(points[k].y) - area.top;
      if (x < 0 || y < 0 || x > area.right - area.left || y > area.bottom - area.top) continue;
      items.push({ x, y, w: Math.ceil(ctx.measureText(text).width) + 4, h: LABEL_HEIGHT });
      which.push({ i, text });
    }
    const boxes = placeLabels(items, { width: area.right - area.left, height: area.bottom - area.top });
    this.placed = which.map(({ i, text }, k) => {
      const b = boxes[k];
      return { word: this.words[i], label: text, leader: Boolean(b && b.leader),
        box: b ? { x: b.x + area.left, y: b.y + area.top, w: b.w, h: b.h } : null };
    });
    ctx.lineWidth = 1;
    ctx.strokeStyle = this.theme.muted;
    this.placed.forEach((p, k) => {
      if (!p.box || !p.leader) return;
      const px = items[k].x + area.left, py = items[k].y + area.top;
      const end = nearestOnBox(p.box, px, py);
      ctx.beginPath();
      ctx.moveTo(px, py);
      ctx.lineTo(end.x, end.y);
      ctx.stroke();
    });
    // for readers of the DOM (and the tests): where each label went, in canvas pixels
    chart.canvas.dataset.labels = JSON.stringify(this.placed.map((p) => [p.word, p.box && [p.box.x, p.box.y, p.box.w, p.box.h].map(Math.round), p.leader ? 1 : 0]));
    ctx.fillStyle = this.theme.text;
    ctx.strokeStyle = this.theme.background;
    ctx.lineWidth = 3;
    ctx.lineJoin = 'round';
    for (const p of this.placed) {
      if (!p.box) continue;
      const tx = p.box.x + 2, ty = p.box.y + p.box.h / 2;
      ctx.strokeText(p.label, tx, ty);  // a halo keeps labels readable over lines and points
      ctx.fillText(p.label, tx, ty);
    }
    ctx.restore();
  }

  _drawArrows(chart) {
    const arrows = this.arrows || [];
    if (!arrows.length) return;
    const { ctx, scales: { x: sx, y: sy } } = chart;
    const points = chart.data.datasets[0].data;
    const at = (i) => {
      const k = this.shown.indexOf(i);
      return k < 0 || !points[k] ? null : [sx.getPixelForValue(points[k].x), sy.getPixelForValue(points[k].y)];
    };
    const colour = this.theme.series[3];
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = 2;
    // the dashed sides: tail to tail and head to head of consecutive arrows
    ctx.setLineDash([4, 4]);
    for (let a = 0; a + 1 < arrows.length; a += 2) {
      for (const end of [0, 1]) {
        const p = at(arrows[a][end]), q = at(arrows[a + 1][end]);
        if (!p || !q) continue;
        ctx.beginPath(); ctx.moveTo(...p); ctx.lineTo(...q); ctx.stroke();
      }
    }
    ctx.setLineDash([]);
    for (const [from, to] of arrows) {
      const p = at(from), q = at(to);
      if (!p || !q) continue;
      const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
      if (len < 12) continue;
      const ux = (q[0] - p[0]) / len, uy = (q[1] - p[1]) / len;
      const tip = [q[0] - ux * 6, q[1] - uy * 6];  // stop short of the point
      ctx.beginPath(); ctx.moveTo(...p); ctx.lineTo(...tip); ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(...tip);
      ctx.lineTo(tip[0] - ux * 8 - uy * 4, tip[1] - uy * 8 + ux * 4);
      ctx.lineTo(tip[0] - ux * 8 + uy * 4, tip[1] - uy * 8 - ux * 4);
      ctx.closePath();
      ctx.fill();
    }
    ctx.restore();
  }

  setTheme(theme) {
    this.theme = theme;
    applyTheme(this.chart, theme);
    this.readout.setTheme(theme);
    this._colourPoints();
    this.chart.update('none');
  }
}
