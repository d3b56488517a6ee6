// views/heat-table.js: a small matrix of weights (0 … 1) as a real table whose cells are tinted by their
// value, numbers kept as text (screen readers read them, readers can copy them). Cells above the
// diagonal of a causal matrix show as "·" when `causal` is set: they were never in the softmax.
//   const t = createHeatTable({ caption: () => 'A', i18n });  // i18n: say when the table is cut
//    t.update(matrix, rowLabels, colLabels);  t.destroy();
import { h, fmt } from '../shell/dom.js';

export function createHeatTable({ caption = () => '', causal = true, className = '', i18n = null } = {}) {
  const cap = h('caption');
  const table = h('table', { class: `matrix heat-table ${className}` }, cap);
  const scroller = h('div', { class: 'matrix-scroll heat-table-scroll' }, table);
  // with i18n, a table cut by its box says so (matrix-view.js's words), as the matrices do
  const scrolls = h('span', { class: 'matrix-scrolls', attrs: { 'data-role': 'matrix-scrolls' }, hidden: true });
  const element = i18n ? h('div', { class: 'heat-table-box' }, scroller, scrolls) : scroller;
  let cols = 0;
  // as matrix-view.js does: while the table is wider than its box, the scroller takes focus (and
  // a name) so that the keyboard can scroll it; a table that fits adds no Tab stop
  function checkOverflow() {
    const overflowing = scroller.scrollWidth > scroller.clientWidth + 1;
    if (i18n) {
      scrolls.hidden = !overflowing;
      const perColumn = scroller.scrollWidth / (cols + 1);
      if (overflowing && cols) scrolls.textContent = i18n.t('matrix.scrolls', { shown: Math.max(1, Math.min(cols, Math.floor(scroller.clientWidth / perColumn) - 1)), cols });
    }
    if (overflowing === scroller.hasAttribute('tabindex')) return;
    if (overflowing) {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'group');
      scroller.setAttribute('aria-label', caption());
    } else {
      for (const attr of ['tabindex', 'role', 'aria-label']) scroller.removeAttribute(attr);
    }
  }
  const resizes = typeof ResizeObserver === 'function' ? new ResizeObserver(checkOverflow) : null;
  if (resizes) { resizes.observe(scroller); resizes.observe(table); }
  function update(matrix, rowLabels, colLabels) {
    cols = matrix.cols;
    cap.textContent = caption();
    if (scroller.hasAttribute('aria-label')) scroller.setAttribute('aria-label', caption());
    const head = h('tr', {}, h('td', { class: 'corner' }), colLabels.map((c) => h('th', { text: c, attrs: { scope: 'col' } })));
    const body = [];
    for (let i = 0; i < matrix.rows; i++) {
      const cells = [];
      for (let j = 0; j < matrix.cols; j++) {
        const v = matrix.data[i * matrix.cols + j];
        if (causal && j > i) {
          cells.push(h('td', { class: 'masked', text: '·' }));
          continue;
        }
        const td = h('td', { class: 'heat', text: fmt(v) });
        // tinted at most 40%: the number keeps 4.5:1 contrast in either scheme
        td.style.setProperty('--w', String(Math.round(Math.max(0, Math.min(1, v)) * 40)));
        cells.push(td);
      }
      body.push(h('tr', {}, h('th', { text: rowLabels[i], attrs: { scope: 'row' } }), cells));
    }
    table.replaceChildren(cap, h('thead', {}, head), h('tbody', {}, body));
  }
  return { element, update, destroy() { if (resizes) resizes.disconnect(); } };
}
