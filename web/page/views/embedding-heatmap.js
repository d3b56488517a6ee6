// views/embedding-heatmap.js: the embedding table (vocab × dim) as a heat map, one row per word, whose
// rows flash when a training step updates them. The cells are one canvas pixel each, scaled up
// by CSS (image-rendering: pixelated), so a redraw is one putImageData however large the view.
// Each row also has a DOM element carrying its state, for readers and for tests:
//   [data-row="i"][data-word="猫"][data-flashed="true"]   on exactly the rows the last step updated
//   [data-moment="true"]   among them, those outside the batch that Adam's moments moved
// and the heat map element carries data-step and data-updated-rows="i,j,…" (every row the step
// updated, shown or not). With options.maxRows, only the first maxRows rows are drawn and get an
// element (heatmap.shownRows says how many): a 9,000-word table would be 117,000 px tall and cost
// the browser seconds of layout; the view says how many of how many it shows.
import { h } from '../shell/dom.js';

const MID = [[247, 247, 247], [28, 33, 40]];
const NEG = [[33, 102, 172], [88, 166, 255]];
const POS = [[202, 60, 32], [255, 123, 84]];

/** Diverging colour for v in [-1, 1]: blue for negative, orange-red for positive, `mid` at 0. */
export function divergingColour(v, dark) {
  const out = [0, 0, 0];
  writeColour(out, 0, v, dark);
  return out;
}

/** divergingColour(v, dark) written into px[at … at + 2] (no array per cell: a redraw colours every cell). */
function writeColour(px, at, v, dark) {
  const t = Math.max(-1, Math.min(1, Number.isFinite(v) ? v : 0));
  const k = dark ? 1 : 0;
  const mid = MID[k], end = t < 0 ? NEG[k] : POS[k];
  const a = Math.abs(t);
  px[at] = Math.round(mid[0] + (end[0] - mid[0]) * a);
  px[at + 1] = Math.round(mid[1] + (end[1] - mid[1]) * a);
  px[at + 2] = Math.round(mid[2] + (end[2] - mid[2]) * a);
}

/**
 * The width of the label column: wide enough for the longest label ('<s> sentence boundary' on the
 * English page), estimated from its characters (a Chinese character is about 1em, a Latin one about
 * 0.62em, plus the padding), between 4.5em and 15em; a longer label is cut with an ellipsis and
 * keeps its whole text in the title.
 */
export function labelColumnEm(labels) {
  const width = (label) => [...label].reduce((sum, c) => sum + (/\p{Script=Han}/u.test(c) ? 1 : 0.62), 0.6);
  const longest = labels.reduce((m, l) => Math.max(m, width(String(l))), 0);
  return Math.round(Math.min(15, Math.max(4.5, longest)) * 10) / 10;
}

/**
 * The most rows the page's heat maps of an embedding table draw (the training section's and the
 * walkthrough's two; the first rows, and a note says how many of how many): every preset fits, and
 * a 9,000-word corpus does not cost the browser seconds of layout.
 */
export const HEATMAP_ROWS = 200;

export class EmbeddingHeatmap {
  /**
   * options.reducedMotion(): true when flashes must not animate (they then show as a steady
   * outline until the next step). options.maxRows: the most rows drawn (the first ones).
   */
  constructor({ reducedMotion = () => false, maxRows = Infinity } = {}) {
    this.reducedMotion = reducedMotion;
    this.maxRows = maxRows;
    this.dark = false;
    this.words = [];
    this.rows = [];
    this.flashed = new Set();
    this.moments = new Set();
    this.animations = new Map();  // row → { animation, dark }
    this.canvas = h('canvas', { class: 'heat-canvas', attrs: { 'aria-hidden': 'true' } });
    this.rowsBox = h('div', { class: 'heat-rows' });
    this.scaleNote = h('span', { class: 'heat-scale-value' });
    this.element = h('div', { class: 'heatmap', attrs: { 'data-step': '0', 'data-updated-rows': '' } },
      this.canvas, this.rowsBox);
  }

  /** words: one per row; labels: what each row's label says (on the English page, the word and its gloss). */
  setWords(words, labels = words) {
    for (const { animation } of this.animations.values()) animation.cancel();
    this.animations.clear();
    this.words = words.slice();
    this.rowsBox.replaceChildren();
    this.rows = words.slice(0, this.maxRows).map((word, i) => {
      const row = h('div', { class: 'heat-row', attrs: { 'data-row': i, 'data-word': word } },
        h('span', { class: 'heat-word', text: labels[i], attrs: { title: labels[i] } }));
      row.style.gridRow = String(i + 1);
      this.rowsBox.append(row);
      return row;
    });
    this.element.style.setProperty('--heat-rows', String(this.rows.length));
    this.element.style.setProperty('--heat-word', `${labelColumnEm(labels.slice(0, this.rows.length))}em`);
    this.flashed.clear();
    this.moments.clear();
  }

  /** How many rows are drawn (all of them, or the first maxRows). */
  get shownRows() {
    return this.rows.length;
  }

  /**
   * Before the first setWords(): takes the height of n rows already, so that the page does not
   * move when the table arrives (the training run is built when its section first comes into view).
   */
  reserveRows(n) {
    if (!this.words.length) this.element.style.setProperty('--heat-rows', String(Math.max(1, Math.min(n, this.maxRows))));
  }

  setDark(dark) {
    this.dark = dark;
    if (this.last) this.draw(this.last);
  }

  /**
   * Redraws the table (a Matrix vocab × dim): its first maxRows rows. Returns the colour scale's
   * bound, max |v| over the whole table (what the note says), shown rows or not.
   */
  draw(matrix) {
    this.last = matrix;
    const { cols, data } = matrix;
    const rows = Math.min(matrix.rows, this.maxRows);
    if (this.canvas.width !== cols || this.canvas.height !== rows) {
      this.canvas.width = cols;
      this.canvas.height = rows;
      this.image = null;
    }
    const ctx = this.canvas.getContext('2d');
    if (!this.image) this.image = ctx.createImageData(cols, rows);
    let bound = 0;
    for (let i = 0; i < data.length; i++) if (Number.isFinite(data[i])) bound = Math.max(bound, Math.abs(data[i]));
    const inv = bound > 0 ? 1 / bound : 0;
    const px = this.image.data;
    for (let i = 0; i < rows * cols; i++) {
      writeColour(px, 4 * i, data[i] * inv, this.dark);
      px[4 * i + 3] = 255;
    }
    ctx.putImageData(this.image, 0, 0);
    this.bound = bound;
    return bound;
  }

  /**
   * Restarts row i's fade (one Web Animation per row, reused: no pile-up at 60 steps a second).
   * faint: a row moved by Adam's moments, not by its own gradient, flashes paler.
   */
  _flashRow(i, faint = false) {
    const previous = this.animations.get(i);
    if (previous && previous.dark === this.dark && previous.faint === faint) {
      previous.animation.currentTime = 0;
      previous.animation.play();
      return;
    }
    if (previous) previous.animation.cancel();
    // at its brightest the flash keeps the row's word readable (4.5:1 or more in either scheme)
    const colour = this.dark ? [255, 214, 10, faint ? 0.16 : 0.35] : [255, 190, 0, faint ? 0.3 : 0.7];
    const animation = this.rows[i].animate([
      { backgroundColor: `rgba(${colour.join(',')})` },
      { backgroundColor: `rgba(${colour.slice(0, 3).join(',')},0)` },
    ], { duration: 450, easing: 'ease-out' });
    this.animations.set(i, { animation, dark: this.dark, faint });
  }

  /**
   * Marks exactly `updatedRows` (the rows the step just changed) as flashed, and no others.
   * Pass an empty list to clear (after a reset). quiet: the rows among them that changed without
   * a gradient of their own (Adam's moments carry them): marked data-moment, drawn apart.
   */
  flash(step, updatedRows, { quiet = [] } = {}) {
    const next = new Set(updatedRows);
    const moved = new Set(quiet);
    for (const i of this.flashed) {
      if (!next.has(i) && this.rows[i]) this.rows[i].removeAttribute('data-flashed');
    }
    for (const i of this.moments) if (!moved.has(i) && this.rows[i]) delete this.rows[i].dataset.moment;
    for (const i of moved) if (this.rows[i]) this.rows[i].dataset.moment = 'true';
    this.moments = moved;
    // a redraw of the same step (pause, language) marks the rows again but does not re-flash them
    const animate = step !== this.flashStep && !this.reducedMotion();
    this.flashStep = step;
    for (const i of next) {
      const row = this.rows[i];
      if (!row) continue;
      row.setAttribute('data-flashed', 'true');
      if (animate) this._flashRow(i, moved.has(i));
    }
    this.flashed = next;
    this.element.setAttribute('data-step', String(step));
    this.element.setAttribute('data-updated-rows', [...next].sort((a, b) => a - b).join(','));
  }
}
