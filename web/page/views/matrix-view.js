// views/matrix-view.js: a Matrix drawn as a real <table> (screen readers read it, readers can select and
// copy it), numbers to 3 decimals, optional editable cells, highlighting, hover/focus callbacks
// and a CSV download.
//   const view = createMatrixView({ i18n, name: 'Q', title, label, rowLabels, colLabels, editable, onEdit, onCell });
// name is the matrix's id (data-matrix, the CSV's file name); title the name a reader sees in the
// shape line, the CSV button and messages ('Kᵀ' for 'Kt'; a function to follow the language);
// label the table's caption.
//   view.update(matrix); view.highlight([[i, j, 'row-hl']]); view.setHidden((i, j) => …)
// onEdit(i, j, value) gets only finite numbers in range; anything else shows an inline message
// and the cell keeps its previous value. A cell never shows NaN.
import { h, clear, fmt, listeners, download } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { MATRIX_VIEW_STRINGS } from './matrix-view.strings.js';

addStrings(MATRIX_VIEW_STRINGS);

export const EDIT_LIMIT = 1000;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A typed cell → { ok, value } or { ok: false, reason: 'empty' | 'nan' | 'range' }. */
export function parseCell(text) {
  const t = String(text).trim().replace(/^−/, '-');
  if (t === '') return { ok: false, reason: 'empty' };
  if (!NUMBER.test(t)) return { ok: false, reason: 'nan' };
  const value = Number(t);
  if (!Number.isFinite(value) || Math.abs(value) > EDIT_LIMIT) return { ok: false, reason: 'range' };
  return { ok: true, value };
}

/** CSV text: a header of column labels, then one line per row with its label. */
export function matrixCSV(matrix, rowLabels, colLabels) {
  const quote = (x) => (/[",\n]/.test(x) ? `"${String(x).replace(/"/g, '""')}"` : String(x));
  const lines = [['', ...colLabels].map(quote).join(',')];
  for (let i = 0; i < matrix.rows; i++) {
    const cells = [];
    for (let j = 0; j < matrix.cols; j++) {
      const v = matrix.data[i * matrix.cols + j];
      cells.push(Number.isFinite(v) ? Number(v.toPrecision(7)).toString() : '');
    }
    lines.push([quote(rowLabels[i] ?? i), ...cells].join(','));
  }
  return lines.join('\n') + '\n';
}

let messageIds = 0;

export function createMatrixView({ i18n, name, title = name, label = name, rowLabels = [], colLabels = [],
  editable = false, onEdit = null, onCell = null, csv = true, className = '' }) {
  const events = listeners();
  let matrix = null;
  let rows = [...rowLabels];
  let cols = [...colLabels];
  let cells = [];            // cells[i][j] = <td>
  let hidden = null;         // (i, j) → true to show a placeholder instead of the number
  let marked = null;         // (i, j) → true for a marked cell (class markClass, "edited" by default)
  let markClass = 'edited';
  let highlights = [];

  const caption = h('caption', { class: 'matrix-caption' });
  const table = h('table', { class: `matrix ${className}` });
  const message = h('p', { class: 'matrix-message', attrs: { id: `matrix-message-${++messageIds}`, 'aria-live': 'polite' } });
  let refusedCell = null;    // the cell whose typed value was refused: aria-invalid, described by the message
  const markRefused = (td) => {
    if (refusedCell && refusedCell !== td) { refusedCell.removeAttribute('aria-invalid'); refusedCell.removeAttribute('aria-describedby'); }
    refusedCell = td;
    if (td) { td.setAttribute('aria-invalid', 'true'); td.setAttribute('aria-describedby', message.id); }
  };
  const csvButton = csv ? h('button', { class: 'csv-btn', attrs: { type: 'button' } }) : null;
  const shape = h('span', { class: 'matrix-shape' });
  // the visible sign that a table is cut by its column and scrolls (shown only while it overflows)
  const scrolls = h('span', { class: 'matrix-scrolls', attrs: { 'data-role': 'matrix-scrolls' }, hidden: true });
  const scroller = h('div', { class: 'matrix-scroll' }, table);
  const element = h('figure', { class: 'matrix-figure' },
    scroller,
    h('figcaption', { class: 'matrix-tools' }, shape, scrolls, csvButton),
    message);
  element.dataset.matrix = name;

  function labelText() { return typeof label === 'function' ? label() : label; }
  function titleText() { return typeof title === 'function' ? title() : title; }

  // A table wider than its column scrolls sideways. When none of its cells takes focus, the
  // keyboard reaches that scroll through the scroller itself: focusable (and named) exactly while
  // it overflows, so a table that fits adds no Tab stop.
  const focusableCells = editable || Boolean(onCell);
  // what an exported picture that shows only the columns in view says (export/svg-step.js): which
  // columns, at the scroll position of the moment
  function notePicture() {
    if (scrolls.hidden || !matrix) return;
    const perColumn = scroller.scrollWidth / (matrix.cols + 1);
    const shown = Math.max(1, Math.min(matrix.cols, Math.floor(scroller.clientWidth / perColumn) - 1));
    const first = Math.min(matrix.cols - shown, Math.max(0, Math.round(scroller.scrollLeft / perColumn)));
    scrolls.dataset.pictureNote = i18n.t('matrix.scrollsPicture', { from: first + 1, to: first + shown, cols: matrix.cols });
  }
  events.on(scroller, 'scroll', notePicture);
  function checkOverflow() {
    const cut = scroller.scrollWidth > scroller.clientWidth + 1;
    scrolls.hidden = !cut;
    if (cut && matrix) {
      // columns wholly in view: the table's width shared among its header column and the data columns
      const perColumn = scroller.scrollWidth / (matrix.cols + 1);
      const shown = Math.max(1, Math.min(matrix.cols, Math.floor(scroller.clientWidth / perColumn) - 1));
      scrolls.textContent = i18n.t('matrix.scrolls', { shown, cols: matrix.cols });
      notePicture();
    }
    const overflowing = !focusableCells && cut;
    if (overflowing === scroller.hasAttribute('tabindex')) return;
    if (overflowing) {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'group');
      scroller.setAttribute('aria-label', labelText());
    } else {
      for (const attr of ['tabindex', 'role', 'aria-label']) scroller.removeAttribute(attr);
    }
  }
  const resizes = typeof ResizeObserver === 'function' ? new ResizeObserver(checkOverflow) : null;
  if (resizes) { resizes.observe(scroller); resizes.observe(table); }

  function build() {
    clear(table);
    caption.textContent = labelText();
    table.append(caption);
    const head = h('tr', {}, h('td', { class: 'corner', attrs: { 'aria-hidden': 'true' } }),
      cols.map((c) => h('th', { text: c, attrs: { scope: 'col' } })));
    table.append(h('thead', {}, head));
    const body = h('tbody');
    cells = [];
    for (let i = 0; i < matrix.rows; i++) {
      const tr = h('tr', {}, h('th', { text: rows[i] ?? String(i), attrs: { scope: 'row' } }));
      const rowCells = [];
      for (let j = 0; j < matrix.cols; j++) {
        const td = h('td', { class: 'cell' });
        td.dataset.i = String(i);
        td.dataset.j = String(j);
        if (editable) {
          td.contentEditable = 'true';
          td.setAttribute('inputmode', 'decimal');
          td.spellcheck = false;
          td.classList.add('editable');
        } else if (onCell) {
          td.tabIndex = 0;
        }
        tr.append(td);
        rowCells.push(td);
      }
      body.append(tr);
      cells.push(rowCells);
    }
    table.append(body);
  }

  function cellName(i, j) {
    return `${titleText()}[${rows[i] ?? i}][${cols[j] ?? j}]`;
  }

  function paint() {
    for (let i = 0; i < cells.length; i++) {
      for (let j = 0; j < cells[i].length; j++) {
        const td = cells[i][j];
        const hide = hidden && hidden(i, j);
        td.classList.toggle('pending', Boolean(hide));
        td.classList.remove('edited', 'row-max');
        if (marked && marked(i, j)) td.classList.add(markClass);
        if (td.getRootNode().activeElement === td && editable) continue;  // don't overwrite typing (also in a shadow root)
        td.textContent = hide ? '·' : fmt(matrix.get(i, j));
      }
    }
    for (const [i, j, cls] of highlights) cells[i]?.[j]?.classList.add(cls);
    shape.textContent = i18n.t('matrix.shape', { name: titleText(), rows: matrix.rows, cols: matrix.cols });
    if (csvButton) {
      csvButton.textContent = i18n.t('matrix.csv');
      csvButton.setAttribute('aria-label', i18n.t('matrix.csvLabel', { name: titleText() }));
    }
    caption.textContent = labelText();
    if (scroller.hasAttribute('aria-label')) scroller.setAttribute('aria-label', labelText());
    if (!scrolls.hidden) checkOverflow();  // the hint in the current language
  }

  function commit(td) {
    const i = Number(td.dataset.i), j = Number(td.dataset.j);
    const old = matrix.get(i, j);
    const typed = td.textContent;
    if (typed.trim() === fmt(old)) { td.textContent = fmt(old); return; }
    const parsed = parseCell(typed);
    if (!parsed.ok) {
      const shown = typed.trim().slice(0, 24);
      message.textContent = i18n.t(`matrix.${parsed.reason}`, { cell: cellName(i, j), text: shown, old: fmt(old) });
      message.classList.add('error');
      td.classList.add('refused');
      markRefused(td);
      td.textContent = fmt(old);
      setTimeout(() => td.classList.remove('refused'), 1200);
      return;
    }
    message.textContent = '';
    message.classList.remove('error');
    markRefused(null);
    td.textContent = fmt(parsed.value);
    if (onEdit) onEdit(i, j, parsed.value);
  }

  const cellOf = (event) => event.target.closest && event.target.closest('td.cell');
  const selectCell = (td) => {
    const range = document.createRange();
    range.selectNodeContents(td);
    const sel = td.getRootNode().getSelection ? td.getRootNode().getSelection() : window.getSelection();
    (sel || window.getSelection()).removeAllRanges();
    (sel || window.getSelection()).addRange(range);
  };
  if (editable) {
    events.on(table, 'focusout', (event) => { const td = cellOf(event); if (td) commit(td); });
    events.on(table, 'focusin', (event) => {
      const td = cellOf(event);
      if (td) selectCell(td);
    });
    // Enter commits and Escape restores, and focus stays on the cell (selected, ready for the
    // next number): it does not fall to <body>
    events.on(table, 'keydown', (event) => {
      const td = cellOf(event);
      if (!td) return;
      if (event.key === 'Enter') { event.preventDefault(); commit(td); selectCell(td); }
      if (event.key === 'Escape') { td.textContent = fmt(matrix.get(Number(td.dataset.i), Number(td.dataset.j))); selectCell(td); }
    });
    events.on(table, 'paste', (event) => {
      // plain text only: pasted markup must not become part of the cell
      const td = cellOf(event);
      if (!td) return;
      event.preventDefault();
      const text = (event.clipboardData && event.clipboardData.getData('text/plain')) || '';
      td.textContent = text.slice(0, 40);
    });
  }
  if (onCell) {
    const report = (td) => (td ? onCell(Number(td.dataset.i), Number(td.dataset.j)) : onCell(null, null));
    const enter = (event) => { const td = cellOf(event); if (td) report(td); };
    const focusedCell = () => {
      const active = table.getRootNode().activeElement;
      return active && table.contains(active) ? active.closest('td.cell') : null;
    };
    events.on(table, 'mouseover', enter);
    events.on(table, 'focusin', enter);
    // mouseleave's target is the table itself: the pointer left it, so the readout goes back to
    // the focused cell if there is one, else to nothing
    events.on(table, 'mouseleave', () => report(focusedCell()));
    events.on(table, 'focusout', (event) => {
      const next = event.relatedTarget;
      if (!(next && table.contains(next) && next.closest('td.cell'))) report(null);
    });
  }
  if (csvButton) {
    events.on(csvButton, 'click', () => {
      if (matrix) download(element.ownerDocument, matrixCSV(matrix, rows, cols), `${name.replace(/[^\w-]+/g, '_')}.csv`, 'text/csv;charset=utf-8');
    });
  }

  return {
    element,
    get matrix() { return matrix; },
    update(next, labels = {}) {
      const reshape = !matrix || next.rows !== matrix.rows || next.cols !== matrix.cols ||
        (labels.rowLabels && labels.rowLabels.join('\u0000') !== rows.join('\u0000')) ||
        (labels.colLabels && labels.colLabels.join('\u0000') !== cols.join('\u0000'));
      if (labels.rowLabels) rows = [...labels.rowLabels];
      if (labels.colLabels) cols = [...labels.colLabels];
      matrix = next;
      if (reshape) build();
      paint();
    },
    /** list of [i, j, className]; replaces the previous highlights. */
    highlight(list) {
      for (const [i, j, cls] of highlights) cells[i]?.[j]?.classList.remove(cls);
      for (const row of cells) for (const td of row) td.classList.remove('hl-row', 'hl-col', 'hl-cell', 'hl-pair', 'hl-done');
      highlights = list;
      for (const [i, j, cls] of list) cells[i]?.[j]?.classList.add(cls);
    },
    setHidden(fn) { hidden = fn; if (matrix) paint(); },
    /** Marks the cells for which fn(i, j) is true (null: none): edited by the reader, or cls. */
    setMarked(fn, cls = 'edited') { marked = fn; markClass = cls; if (matrix) paint(); },
    refresh() { if (matrix) paint(); },
    clearMessage() { message.textContent = ''; message.classList.remove('error'); markRefused(null); },
    cell: (i, j) => cells[i]?.[j],
    destroy() { events.off(); if (resizes) resizes.disconnect(); },
  };
}
