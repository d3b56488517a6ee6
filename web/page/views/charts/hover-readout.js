// views/charts/hover-readout.js: the small HTML readout of the nearest point under the pointer,
// with a marker drawn on the canvas (the charts have no Tooltip plugin).
/**
 * The hover readout: on pointer move over the canvas, `find(chart, pos)` names what is nearest
 * ({ lines: [{ text, colour? }], x, y, marks: [{ x, y, colour }], guide: x? } in canvas pixels, or
 * null), a marker is drawn over the chart and a small HTML element over the chart's box says it.
 * It is refreshed on every draw, so while training it follows the moving data. The element is
 * aria-live="off": the canvases carry their own labels, and a readout that spoke on every pointer
 * move would drown a screen reader. Touch: a tap shows it for a few seconds.
 */
export class HoverReadout {
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
export function nearestIndex(points, x) {
  let lo = 0, hi = points.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].x < x) lo = mid + 1; else hi = mid;
  }
  return lo > 0 && x - points[lo - 1].x <= points[lo].x - x ? lo - 1 : lo;
}
