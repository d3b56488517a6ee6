// gpt/poem-reading.js: what the metrics module (web/poetry/metrics.js) reads in one poem the page
// wrote, with the positions the section marks. No DOM, no WebAssembly.
//
//   readPoem(poem, training) → { form, rhyme, tones, lines, novelty, longest }
//   shippedTraining()        → the training poems the page carries, indexed once (indexTraining)
//   searchTraining(text)     → a larger training text, searched as it is (the poet's: poet-text.js)
//
// Novelty is metrics.js's: a line (a run of characters between marks) is copied when it occurs
// verbatim among the training poems' lines, a poem when it equals one; the longest stretch shared
// with one training poem is longestCopied's. The page carries one training text: the 3,710 五绝 of
// web/data/quatrains.js, the writer's whole training text. The pretrained poet was trained on
// 34,485 poems of all four forms (docs/pretrained.md): the page fetches them when the poet writes
// (gpt/poet-text.js) and checks its poems against them, and the section says which was checked.
import { formOf, rhyme, tones, longestCopied, trainingIndex } from '../../poetry/metrics.js';
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
  return Object.freeze({
    count: poems.length,
    lineSource: (line) => sourceOf.get(line) ?? null,
    hasPoem: (poem) => index.poems.has(poem),
    longest(poem) {
      const l = longestCopied(poem, index);
      return { ...l, source: l.length ? poems.find((p) => p.includes(l.text)) ?? null : null };
    },
  });
}

const BOUNDARY = /^[\p{P}\s]$/u;   // what ends a line: metrics.js's LINE_SPLIT, one character

/**
 * The training poems `text` (one per line) searched as it is, for readPoem, with the same answers
 * as indexTraining's (tests/poem-reading.test.js holds them equal): for a text too large to index
 * on the page's thread (trainingIndex takes about a second on the poet's 34,485 poems; a search
 * takes a few milliseconds a poem).
 */
export function searchTraining(text) {
  let count = 0;
  for (let at = 0; at < text.length;) {
    const end = text.indexOf('\n', at);
    const stop = end < 0 ? text.length : end;
    if (stop > at) count++;
    at = stop + 1;
  }
  const before = (at) => (at === 0 ? '\n' : text[at - 1]);
  const after = (at) => (at >= text.length ? '\n' : text[at]);
  // the first place where `needle` stands between two characters that `edge` accepts, or -1
  const find = (needle, edge) => {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      if (edge(before(at)) && edge(after(at + needle.length))) return at;
    }
    return -1;
  };
  const poemAt = (at) => {
    const end = text.indexOf('\n', at);
    return text.slice(text.lastIndexOf('\n', at) + 1, end < 0 ? text.length : end);
  };
  const lineAt = (line) => find(line, (ch) => BOUNDARY.test(ch));
  // longestCopied's stretch: for each start, the longest run of the poem found in one training poem
  // (no match crosses a poem's end: the runs hold no '\n'), the first start of the longest
  const longest = (poem) => {
    const chars = Array.from(poem);
    let best = 0, bestAt = 0;
    for (let i = 0; i < chars.length && best < chars.length - i; i++) {
      let len = best + 1;
      while (i + len <= chars.length && text.includes(chars.slice(i, i + len).join(''))) { best = len; bestAt = i; len++; }
    }
    const stretch = chars.slice(bestAt, bestAt + best).join('');
    return { length: best, text: stretch, source: best ? poemAt(text.indexOf(stretch)) : null };
  };
  return Object.freeze({
    count,
    lineSource: (line) => { const at = lineAt(line); return at < 0 ? null : poemAt(at); },
    hasPoem: (poem) => Boolean(poem) && find(poem, (ch) => ch === '\n') >= 0,
    longest,
  });
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
 *   novelty: what metrics.novelty([poem], index) gives (lines, copiedLines, copiedPoems, meanLongest),
 *     counted from the lines and the longest stretch found here;
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
      lines.push({ text, at: start, end: i - 1, source: training.lineSource(text) });
      start = null;
    }
  }
  const endOf = (line) => lines[line - 1]?.end ?? null;
  const r = rhyme(poem);
  const t = tones(poem);
  const longest = training.longest(poem);
  // metrics.js's novelty([poem], index), from what is found above (tests/poem-reading.test.js holds them equal)
  const copiedLines = lines.filter((l) => l.source !== null).length;
  const novelty = { poems: 1, lines: lines.length, copiedLines, lineShare: lines.length ? copiedLines / lines.length : 0,
    copiedPoems: training.hasPoem(poem) ? 1 : 0, meanLongest: longest.length };
  return {
    form: formOf(poem),
    rhyme: r && { ...r, ends: r.ends.map((e) => ({ ...e, at: endOf(e.line) })) },
    tones: t && { ...t, positions: t.positions.map((p) => ({ ...p, at: endOf(p.line) })) },
    lines: lines.map(({ text, at, end, source }) => ({ text, at, source, given: end < given })),
    novelty,
    longest,
  };
}
