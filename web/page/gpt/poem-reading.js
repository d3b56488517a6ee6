// gpt/poem-reading.js: what the metrics module (web/poetry/metrics.js) reads in one poem the page
// wrote, with the positions the section marks. No DOM, no WebAssembly.
//
//   readPoem(poem, training) → { form, rhyme, tones, lines, novelty, longest }
//   shippedTraining()        → the training poems the page carries, indexed once (trainingIndex)
//
// Novelty is metrics.js's: a line (a run of characters between marks) is copied when it occurs
// verbatim among the training poems' lines, a poem when it equals one; the longest stretch shared
// with one training poem is longestCopied's. The page carries one training text: the 3,710 五绝 of
// web/data/quatrains.js, the writer's whole training text. The pretrained poet was trained on
// 34,485 poems of all four forms (docs/pretrained.md), which the page does not carry: for its
// poems the check covers that one sample of the same source (the 五言 lines only), and the section
// says so; a fine-tune's text, when its giver hands it over, is checked too.
import { formOf, rhyme, tones, novelty, longestCopied, trainingIndex } from '../../poetry/metrics.js';
import { QUATRAINS } from '../../data/quatrains.js';

const LINE_SPLIT = /[\p{P}\s]+/u;   // metrics.js's: a line is a run of characters between marks

/**
 * The training poems `text` (one per line) indexed for readPoem: metrics.js's trainingIndex and,
 * for each line, the first poem it occurs in (the source a copied line is shown with).
 */
export function indexTraining(text) {
  const index = trainingIndex(text);
  const sourceOf = new Map();
  const poems = text.split('\n').filter(Boolean);
  for (const poem of poems) for (const l of poem.split(LINE_SPLIT)) if (l && !sourceOf.has(l)) sourceOf.set(l, poem);
  return Object.freeze({ index, sourceOf, poems, count: poems.length });
}

let shipped = null;
/** The quatrains the page carries (the writer's training text), indexed on first use. */
export function shippedTraining() {
  shipped ??= indexTraining(QUATRAINS.poems);
  return shipped;
}

/**
 * One poem (the prompt and what was written after it, without the end token) read by the metrics:
 *   form: 'wujue' | 'qijue' | 'wulv' | 'qilv' | null;
 *   rhyme: metrics.rhyme(poem) with `at` (code-point index in the poem) on each even line's end, or null;
 *   tones: metrics.tones(poem) with `at` on each position, or null;
 *   lines: [{ text, at, source, given }] every run of characters between marks, source the training
 *     poem it occurs in verbatim (null when none), given when it lies in the first `given` code
 *     points (the reader's prompt: copied by the reader, not the model);
 *   novelty: metrics.novelty([poem], index) (lines, copiedLines, copiedPoems, meanLongest);
 *   longest: { length, text, source }: the longest stretch shared with one training poem.
 */
export function readPoem(poem, training = shippedTraining(), given = 0) {
  const chars = Array.from(poem);
  // the code-point index where each line starts, and where each ends
  const lines = [];
  let start = null;
  for (let i = 0; i <= chars.length; i++) {
    const mark = i === chars.length || LINE_SPLIT.test(chars[i]);
    if (!mark && start === null) start = i;
    if (mark && start !== null) {
      const text = chars.slice(start, i).join('');
      lines.push({ text, at: start, end: i - 1, source: training.sourceOf.get(text) ?? null });
      start = null;
    }
  }
  const endOf = (line) => lines[line - 1]?.end ?? null;
  const r = rhyme(poem);
  const t = tones(poem);
  const longest = longestCopied(poem, training.index);
  return {
    form: formOf(poem),
    rhyme: r && { ...r, ends: r.ends.map((e) => ({ ...e, at: endOf(e.line) })) },
    tones: t && { ...t, positions: t.positions.map((p) => ({ ...p, at: endOf(p.line) })) },
    lines: lines.map(({ text, at, end, source }) => ({ text, at, source, given: end < given })),
    novelty: novelty([poem], training.index),
    longest: { ...longest, source: longest.length ? training.poems.find((p) => p.includes(longest.text)) ?? null : null },
  };
}
