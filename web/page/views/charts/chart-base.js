// views/charts/chart-base.js: what every chart of the training section shares: Chart.js with only
// the parts we use registered, the options without animation, the background a PNG keeps, the
// theme applied to the axes, and ChartBase (axis titles, PNG export, teardown).
// Charts never animate (update('none')): the training loop redraws them every frame, and an
// animation would both cost frame time and lag behind the numbers. Only the Chart.js parts we
// use are registered, which keeps the bundle small: no Legend and no Tooltip plugin (together
// 5.6 KiB of the widget, gzipped). The line charts' legends are HTML lists in the cards
// (LOSS_SERIES, SIMILARITY_SERIES, styleSwatch), and hovering a chart shows a small HTML readout
// of the nearest point (HoverReadout), with a marker drawn on the canvas.
import {
  Chart, LineController, ScatterController, LineElement, PointElement, LinearScale,
} from 'chart.js';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale);

export { Chart };

// Fills the canvas with the page background before drawing, so an exported PNG looks like the
// screen (a transparent PNG would show dark-mode text on a white viewer).
export const backgroundPlugin = {
  id: 'qkvBackground',
  beforeDraw(chart, _args, options) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.fillStyle = options.color || '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

export function baseOptions(theme, { xTitle, yTitle }) {
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

export function fmt3(v) {
  const text = Number.isFinite(v) ? v.toFixed(3) : '—';
  return text === '-0.000' ? '0.000' : text;  // as dom.js's fmt prints the numbers beside it
}

function formatTick(v) {
  if (!Number.isFinite(v)) return '';
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 10 ? v.toFixed(0) : Number(v.toFixed(3)).toString();
}

export function applyTheme(chart, theme) {
  const o = chart.options;
  for (const axis of ['x', 'y']) {
    o.scales[axis].ticks.color = theme.muted;
    o.scales[axis].title.color = theme.muted;
    o.scales[axis].grid.color = theme.grid;
    o.scales[axis].border.color = theme.grid;
  }
  o.plugins.qkvBackground.color = theme.background;
}

export const inArea = (area, pos, slack = 0) =>
  pos.x >= area.left - slack && pos.x <= area.right + slack && pos.y >= area.top - slack && pos.y <= area.bottom + slack;

/** What every chart here shares: axis titles, PNG export, teardown. */
export class ChartBase {
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
