// views/signed-heatmap.js: a matrix of values in [−bound, bound] as a canvas, one pixel a cell, scaled up
// by CSS (pixelated): blue below 0, white at 0, orange above (the section "Positional encoding":
// the sinusoidal table and PE·PEᵀ). Draws what it is given, computes nothing. The canvas is an
// image with a name (role="img", aria-label); the section lists the numbers that matter as text.
//   const map = createSignedHeatmap({ className: 'pe-map' });
//   map.draw(matrix, { bound: 1, label: '…', dark: false });
import { h } from '../shell/dom.js';

/** [r, g, b] for v in [−1, 1], against a light or dark background. */
export function signedColour(v, dark) {
  const t = Math.max(-1, Math.min(1, Number.isFinite(v) ? v : 0));
  const zero = dark ? [26, 31, 41] : [255, 255, 255];
  const end = t < 0 ? (dark ? [94, 160, 255] : [31, 96, 176]) : (dark ? [255, 158, 84] : [199, 84, 20]);
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
    for (let k = 0; k < data.length; k++) {
      const [r, g, b] = signedColour(data[k] / bound, dark);
      image.data.set([r, g, b, 255], 4 * k);
    }
    context.putImageData(image, 0, 0);
  }
  return { element: canvas, draw };
}
