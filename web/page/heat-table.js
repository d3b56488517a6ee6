// heat-table.js: a small matrix of weights (0 … 1) as a real table whose cells are tinted by their
// value, numbers kept as text (screen readers read them, readers can copy them). Cells above the
// diagonal of a causal matrix show as "·" when `causal` is set: they were never in the softmax.
//   const t = createHeatTable({ caption: () => 'A' });  t.update(matrix, rowLabels, colLabels);
import { h, fmt } from './dom.js';

export function createHeatTable({ caption = () => '', causal = true, className = '' } = {}) {
  const cap = h('caption');
  const table = h('table', { class: `matrix heat-table ${className}` }, cap);
  const element = h('div', { class: 'matrix-scroll heat-table-scroll' }, table);
  function update(matrix, rowLabels, colLabels) {
    cap.textContent = caption();
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
  return { element, update };
}
