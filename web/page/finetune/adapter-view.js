// finetune/adapter-view.js: one adapted matrix as the reader sees it: the frozen W beside what the
// fine-tune adds to it. LoRA: W, then A (in×r) and B (r×k) drawn with the rank as A's width (and
// B's height), then (α/r)·A·B; full fine-tuning: W and W now − W before. Heat maps of
// views/signed-heatmap.js; it draws the numbers it is given (the run computed them) and computes
// only their colour bound.
//   const view = createAdapterView();  view.draw(change, { lora, labels, dark });
import { h, clear } from '../shell/dom.js';
import { createSignedHeatmap } from '../views/signed-heatmap.js';

/** CSS pixels per column of A (per row of B): the rank shows as a width. */
export const RANK_CELL_PX = 6;

const largest = (data) => { let m = 0; for (const v of data) { const a = Math.abs(v); if (a > m) m = a; } return m; };

export function createAdapterView() {
  const maps = { W: createSignedHeatmap({ className: 'ft-map ft-w' }), A: createSignedHeatmap({ className: 'ft-map ft-a' }),
    B: createSignedHeatmap({ className: 'ft-map ft-b' }), delta: createSignedHeatmap({ className: 'ft-map ft-delta' }) };
  const figure = (key) => {
    const caption = h('figcaption', { class: 'ft-caption' });
    return { element: h('figure', { class: `ft-figure ft-figure-${key}`, dataset: { part: key } }, maps[key].element ?? maps[key].canvas ?? maps[key], caption), caption };
  };
  const parts = Object.fromEntries(Object.keys(maps).map((k) => [k, figure(k)]));
  const op = (text) => h('span', { class: 'ft-op', attrs: { 'aria-hidden': 'true' }, text });
  const element = h('div', { class: 'ft-matrices', attrs: { 'data-role': 'adapter-view' } });
  let drawnW = null, wBound = 0;
  return {
    element,
    /**
     * change: { W, A, B, delta } ({ rows, cols, data }; A and B null for full fine-tuning);
     * labels(part, bound) → { caption, label }; dark: colours for a dark page.
     * → { wMax, deltaMax } (the bounds drawn)
     */
    draw(change, { labels, dark = false }) {
      const lora = Boolean(change.A);
      const bounds = {};
      for (const key of ['W', 'A', 'B', 'delta']) {
        const m = change[key];
        if (!m) continue;
        // W is frozen: drawn again only for another matrix, language or colour scheme
        const wKey = `${change.target}|${change.layer}|${dark}|${labels(key, 0).caption}`;
        if (key === 'W' && wKey === drawnW) { bounds.W = wBound; continue; }
        bounds[key] = largest(m.data);   // 0 for (α/r)·A·B at step 0 (B starts at zero)
        if (key === 'W') { drawnW = wKey; wBound = bounds.W; }
        const { caption, label } = labels(key, bounds[key]);
        maps[key].draw(m, { bound: bounds[key] || 1, label, dark });
        parts[key].caption.textContent = caption;
        const canvas = parts[key].element.querySelector('canvas');
        if (key === 'A') { canvas.style.width = `${m.cols * RANK_CELL_PX}px`; canvas.style.height = `${m.rows}px`; }
        else if (key === 'B') { canvas.style.width = `${m.cols}px`; canvas.style.height = `${m.rows * RANK_CELL_PX}px`; }
        else { canvas.style.width = `${m.cols}px`; canvas.style.height = `${m.rows}px`; }
        canvas.dataset.rows = String(m.rows);
        canvas.dataset.cols = String(m.cols);
      }
      const layout = lora ? 'lora' : 'full';
      if (element.dataset.layout === layout) { element.dataset.step = String(change.step); return { wMax: bounds.W, deltaMax: bounds.delta }; }
      element.dataset.layout = layout;
      clear(element);
      if (lora) element.append(parts.W.element, op('+'), h('div', { class: 'ft-lowrank' }, parts.A.element, op('·'), parts.B.element), op('='), parts.delta.element);
      else element.append(parts.W.element, op('→'), parts.delta.element);
      element.dataset.step = String(change.step);
      return { wMax: bounds.W, deltaMax: bounds.delta };
    },
  };
}
