// views/edits-note.js: one line that tells the reader about the cells they typed, shared by the sections embedding
// and projections: which cells of X, W_Q, W_K, W_V are edited (the tables mark them), with an undo button,
// or, right after a new seed or sentence replaced them, which edits were cleared and why.
//   const note = editsNote(frame, { matrices: ['X'], undo: true });
//   frame.controls.append(note.element);  …  note.draw(snap);   // in the section's draw()
import { h, fmt } from '../shell/dom.js';
import { addStrings } from '../shell/i18n.js';
import { EDITS_NOTE_STRINGS } from './edits-note.strings.js';

addStrings(EDITS_NOTE_STRINGS);

export const MATRIX_NAMES = Object.freeze({ X: 'X', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V' });

/** "X[我][0] = 1000.000" for every edited cell of the given matrices. */
export function editedCells(snap, matrices) {
  const out = [];
  for (const m of matrices) {
    for (const [i, j, value] of snap.edited[m] || []) {
      const row = m === 'X' ? snap.words[i] : String(i);
      out.push(`${MATRIX_NAMES[m]}[${row}][${j}] = ${fmt(value)}`);
    }
  }
  return out;
}

export function editsNote(frame, { matrices = Object.keys(MATRIX_NAMES), undo = false } = {}) {
  const { i18n, ctx, events } = frame;
  const text = h('span');
  const button = undo ? h('button', { class: 'undo-edits', attrs: { type: 'button' } }) : null;
  const element = h('p', { class: 'edit-note', attrs: { role: 'status' }, hidden: true }, text, button ? ' ' : null, button);
  if (button) events.on(button, 'click', () => ctx.resetEdits());
  let last = null;

  function draw(snap = last) {
    last = snap;
    if (button) button.textContent = i18n.t('edits.undo');
    const dropped = snap.droppedEdits && snap.droppedEdits.names.filter((m) => matrices.includes(m));
    const cells = editedCells(snap, matrices);
    if (dropped && dropped.length) {
      text.textContent = i18n.t('edits.dropped', {
        names: dropped.map((m) => MATRIX_NAMES[m]).join(', '), why: i18n.t(`edits.why.${snap.droppedEdits.setting}`),
      });
    } else if (cells.length) {
      text.textContent = i18n.t('edits.list', { cells: cells.join(', ') });
    }
    element.hidden = !(cells.length || (dropped && dropped.length));
    if (button) button.hidden = cells.length === 0;
  }
  return { element, draw, refresh: () => last && draw(last) };
}
