// views/signed-heatmap.js: a matrix of values in [−bound, bound] as a canvas, one pixel a cell, scaled up
// by CSS (pixelated): blue below 0, white at 0, orange above (the section "Positional encoding":
// the sinusoidal table and PE·PEᵀ). Draws what it is given, computes nothing. The canvas is an
// image with a name (role="img", aria-label); the section lists the numbers that matter as text.
//   const map = createSignedHeatmap({ className: 'pe-map' });
//   map.draw(matrix, { bound: 1, label: '…', dark: false });
import { h } from '../shell/dom.js';

const LIGHT_ZERO = [255, 255, 255], DARK_ZERO = [26, 31, 41];
const LIGHT_ENDS = [[31, 96, 176], [199, 84, 20]], DARK_ENDS = [[94, 160, 255], [255, 158, 84]];   // below 0, above

/** [r, g, b] for v in [−1, 1], against a light or dark background. */
export function signedColour(v, dark) {
  const t = Math.max(-1, Math.min(1, Number.isFinite(v) ? v : 0));
  const zero = dark ? DARK_ZERO : LIGHT_ZERO;
  const end = (dark ? DARK_ENDS : LIGHT_ENDS)[t < 0 ? 0 : 1];
  return zero.map((z, c) => Math.round(z + (end[c] - z) * Math.abs(t)));
}

/** Whether element's text is light (a dark scheme, the page's or a widget theme's). */
export function prefersDarkText(element) {
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/.exec(getComputedStyle(element).color);
  return m ? 0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3] > 140 : false;
}

export function createSignedHeatmap({ className = '' } = {}) {
  const canvas = h('canvas', { class: `signed-heatmap ${className}`, attrs: { role: 'img' } });
  function draw(matrix, { bound = 1, label = '', dark = false } = {}) {
    const { rows, cols, data } = matrix;
    canvas.width = cols;
    canvas.height = rows;
    canvas.setAttribute('aria-label', label);
    canvas.style.setProperty('--cols', String(cols));
    canvas.style.setProperty('--rows', String(rows));
    const context = canvas.getContext('2d');
    if (!context) return;
    const image = context.createImageData(cols, rows);
    // signedColour's arithmetic, inline: the fine-tuning section redraws 128×128 maps as it trains
    const zero = dark ? DARK_ZERO : LIGHT_ZERO;
    const [below, above] = dark ? DARK_ENDS : LIGHT_ENDS;
    const px = image.data;
    for (let k = 0; k < data.length; k++) {
      const v = data[k] / bound;
      const t = Math.max(-1, Math.min(1, Number.isFinite(v) ? v : 0));
      const end = t < 0 ? below : above, a = Math.abs(t);
      px[4 * k] = Math.round(zero[0] + (end[0] - zero[0]) * a);
      px[4 * k + 1] = Math.round(zero[1] + (end[1] - zero[1]) * a);
      px[4 * k + 2] = Math.round(zero[2] + (end[2] - zero[2]) * a);
      px[4 * k + 3] = 255;
    }
    context.putImageData(image, 0, 0);
  }
  return { element: canvas, draw };
}
