// views/charts/step-chart.js: a line chart of several series over the training steps, and the two
// the training section draws with it: the loss and the cosine similarities.
//   push(point) / update(data), reset(), toPNG(), setTheme(theme), setText(text), destroy().
import { Chart, ChartBase, backgroundPlugin, baseOptions, applyTheme, fmt3, inArea } from './chart-base.js';
import { CappedSeries } from './capped-series.js';
import { HoverReadout, nearestIndex } from './hover-readout.js';
import { LOSS_SERIES, SIMILARITY_SERIES, FINETUNE_SERIES } from './theme.js';

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
      borderWidth: s.width ?? 1.5, borderDash: s.dash || [], pointRadius: s.points ?? 0, tension: 0,
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
  /** The x axis's end; draw: false leaves the drawing to the next update. */
  setXMax(max, { draw = true } = {}) {
    this.chart.options.scales.x.max = max;
    if (draw) this.chart.update('none');
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

/** Fine-tuning: the batch loss on the fine-tuning text, its held-out loss, and the loss on the Tang validation poems (forgetting). */
export function createFineTuneChart(canvas, { theme, labels, xTitle, yTitle }) {
  return new StepChart(canvas, {
    theme, xTitle, yTitle,
    series: FINETUNE_SERIES.map((spec, i) => ({ ...spec, label: labels[i] })),
  });
}
