// views/charts/embedding-scatter.js: the embeddings projected to 2-D as a scatter, every word
// labelled (labels that never overlap), with trails and the analogy's arrows.
import { Chart, ChartBase, backgroundPlugin, baseOptions, applyTheme, fmt3, inArea } from './chart-base.js';
import { HoverReadout } from './hover-readout.js';
import { placeLabels, nearestOnBox, leaderStart } from '../label-placement.js';

const LABEL_FONT = '600 13px system-ui, "Noto Sans CJK SC", sans-serif';
const LABEL_HEIGHT = 16;
const DOT_RADIUS = 5;   // a labelled word's dot
const GREY_RADIUS = 3;  // a grey word's

/** Groups of dots whose discs touch (closer than `touch` px, chained): [[dot, …], …], in the dots' order. */
function touchingClusters(dots, touch) {
  const group = dots.map((_, k) => k);
  const root = (k) => (group[k] === k ? k : (group[k] = root(group[k])));
  for (let a = 0; a < dots.length; a++) {
    for (let b = a + 1; b < dots.length; b++) {
      if (Math.hypot(dots[a].x - dots[b].x, dots[a].y - dots[b].y) < touch) group[root(b)] = root(a);
    }
  }
  const out = new Map();
  dots.forEach((d, k) => {
    const r = root(k);
    if (!out.has(r)) out.set(r, []);
    out.get(r).push(d);
  });
  return [...out.values()];
}

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
  setLabels(labels, { draw = true } = {}) {
    this.labels = labels.slice();
    if (draw) this.chart.update('none');
  }

  /**
   * Arrows drawn between words, as [from, to] pairs of word indices: the analogy's parallelogram
   * (国王 → 女王 beside 男人 → 女人). Dashed lines join the two arrows' tails and heads, closing
   * the shape the analogy assumes. [] draws none. draw: false leaves the drawing to the next update.
   */
  setArrows(pairs, { draw = true } = {}) {
    this.arrows = pairs.filter(([a, b]) => a >= 0 && b >= 0);
    this.chart.canvas.dataset.arrows = this.arrows.map(([a, b]) => `${this.words[a]}→${this.words[b]}`).join(' ');
    if (draw) this.chart.update('none');
  }

  /**
   * The labels as last drawn: [{ word, words, label, box: { x, y, w, h } | null, leader, dot: { x, y } }]
   * (canvas pixels); words: more than one when dots that touch share the label.
   */
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
    ds.pointRadius = shown.map((i) => (this.groups[i] === 0 ? GREY_RADIUS : DOT_RADIUS));
    // a ring of the background round each labelled dot: two that overlap stay two discs
    ds.pointBorderWidth = shown.map((i) => (this.groups[i] === 0 ? 0 : 1.5));
    ds.pointBorderColor = this.theme.background;
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
    const data = chart.data.datasets[0].data;
    if (this.shown[item.index] === undefined || !data[item.index]) return null;
    const { x, y } = item.element;
    // the nearest word, and every word whose dot touches it (two dots on one spot are both named)
    const meta = chart.getDatasetMeta(0).data;
    const touching = [item.index, ...meta.flatMap((el, k) => (k !== item.index && el &&
      Math.hypot(el.x - x, el.y - y) < 2 * DOT_RADIUS + 1 ? [k] : []))];
    const lines = [], marks = [];
    for (const k of touching) {
      const i = this.shown[k], point = data[k];
      if (i === undefined || !point) continue;
      const colour = this._groupColour(this.groups[i]);
      lines.push({ text: `${this.labels?.[i] ?? this.words[i] ?? ''} (${fmt3(point.x)}, ${fmt3(point.y)})`, colour });
      marks.push({ x: meta[k].x, y: meta[k].y, r: this.groups[i] === 0 ? 5 : 7, colour, ring: this.theme.text });
    }
    return { lines, marks, x, y };
  }

  /** Forgets the trails (after a reset or a jump, where a trail would draw a false path). */
  clearTrails() {
    this.trails = this.words.map(() => []);
  }

  reset({ draw = true } = {}) {
    this.clearTrails();
    this.bound = 0;
    this.chart.data.datasets[0].data = [];
    if (draw) this.chart.update('none');
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
    // labels: placed so that each points at its own dot only (label-placement.js), the grey
    // words' dots included; one pushed away from its dot gets a leader line back to it. Dots
    // whose discs touch cannot be told apart by any label, so they share one that names them all
    // ("猫 · 香蕉"), and each dot keeps a ring so that both stay visible.
    ctx.textBaseline = 'middle';
    ctx.font = LABEL_FONT;
    const area = chart.chartArea;
    const inside = (x, y) => x >= 0 && y >= 0 && x <= area.right - area.left && y <= area.bottom - area.top;
    const dots = [];   // the labelled words' dots: { i, x, y } (plot pixels)
    const others = [];
    for (let k = 0; k < points.length; k++) {
      const i = this.shown[k];
      const x = sx.getPixelForValue(points[k].x) - area.left, y = sy.getPixelForValue(points[k].y) - area.top;
      if (!inside(x, y)) continue;
      if (this.groups[i] === 0) others.push({ x, y, r: GREY_RADIUS });  // grey words are named by the hover readout only
      else dots.push({ i, x, y });
    }
    const clusters = touchingClusters(dots, 2 * DOT_RADIUS + 1);
    const items = clusters.map((members) => {
      const text = members.map((d) => this.labels?.[d.i] ?? this.words[d.i]).join(' · ');
      const short = members.map((d) => this.words[d.i]).join(' · ');  // without the glosses, where room is short
      const x = members.reduce((m, d) => m + d.x, 0) / members.length, y = members.reduce((m, d) => m + d.y, 0) / members.length;
      return { x, y, w: Math.ceil(ctx.measureText(text).width) + 4, shortW: Math.ceil(ctx.measureText(short).width) + 4,
        h: LABEL_HEIGHT, text, short, members, dots: members.map((d) => ({ x: d.x, y: d.y, r: DOT_RADIUS })) };
    });
    const boxes = placeLabels(items, { width: area.right - area.left, height: area.bottom - area.top, others });
    this.placed = items.map((it, k) => {
      const b = boxes[k];
      return { word: this.words[it.members[0].i], words: it.members.map((d) => this.words[d.i]), label: b?.short ? it.short : it.text,
        leader: Boolean(b && b.leader), box: b ? { x: b.x + area.left, y: b.y + area.top, w: b.w, h: b.h } : null,
        dot: { x: it.x + area.left, y: it.y + area.top } };
    });
    // leader lines in the text's colour over a halo of the background: as clear as the labels,
    // in either theme, from the dots' edge (they stay whole: a label naming dots that touch starts
    // its line outside all of them) to the label's nearest side. A label whose side is nearer
    // than that has no room for a line: it is drawn without one, and says so (data-labels)
    const leaders = [];
    for (const [k, p] of this.placed.entries()) {
      if (!p.box || !p.leader) continue;
      const end = nearestOnBox(p.box, p.dot.x, p.dot.y);
      const len = Math.hypot(end.x - p.dot.x, end.y - p.dot.y);
      const start = leaderStart(items[k].dots, p.dot.x - area.left, p.dot.y - area.top);
      if (len <= start) { p.leader = false; continue; }
      const f = start / len;
      leaders.push([p.dot.x + (end.x - p.dot.x) * f, p.dot.y + (end.y - p.dot.y) * f, end.x, end.y]);
    }
    ctx.lineCap = 'round';
    for (const [width, colour] of [[3.5, this.theme.background], [1.5, this.theme.text]]) {
      ctx.lineWidth = width;
      ctx.strokeStyle = colour;
      ctx.beginPath();
      for (const [x0, y0, x1, y1] of leaders) { ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); }
      ctx.stroke();
    }
    // for readers of the DOM (and the tests): where each label went, in canvas pixels
    // (a label shared by dots that touch lists all its words last)
    chart.canvas.dataset.labels = JSON.stringify(this.placed.map((p) => [p.word, p.box && [p.box.x, p.box.y, p.box.w, p.box.h].map(Math.round), p.leader ? 1 : 0, ...(p.words.length > 1 ? [p.words] : [])]));
    // and every dot drawn: [word, x, y, labelled] in canvas pixels
    chart.canvas.dataset.dots = JSON.stringify([...dots.map((d) => [this.words[d.i], d.x + area.left, d.y + area.top, 1]),
      ...points.flatMap((pt, k) => {
        const i = this.shown[k];
        if (this.groups[i] !== 0) return [];
        const x = sx.getPixelForValue(pt.x), y = sy.getPixelForValue(pt.y);
        return inside(x - area.left, y - area.top) ? [[this.words[i], x, y, 0]] : [];
      })].map(([w, x, y, l]) => [w, Math.round(x * 10) / 10, Math.round(y * 10) / 10, l]));
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

