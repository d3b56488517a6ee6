// pretrained/rhyme-head.js: where the last character of a quatrain's line 4 looks, in every layer
// and head of a GPT. Pure functions of gpt.forward()'s trace (the attention weights the engine
// computed), no DOM and no WebAssembly calls of their own: tools/measure-rhyme-head.mjs averages
// them over the validation quatrains (web/data/rhyme-head.json), and the 预训练 section computes
// them for the reader's poem.
//
// Positions count tokens as gpt.forward() does: token 0 is the end-of-text token the model starts
// from, so character i of the poem (0-based, punctuation included) is token i + 1.
//
// The measure, for one head on one poem: the query is line 4's last character (the rhyme
// character, where the poem's rhyme is already written); `toRhyme` is the weight it gives line
// 2's last character (the other rhyme character); `others` is the mean weight it gives every
// other earlier token (the start token and every character and mark before it, line 2's last
// character left out); `ratio` = toRhyme / others: 1 means line 2's rhyme character gets no more
// than an average earlier token.

/** A quatrain 五绝 or 七绝: 4 lines of 5 or 7 Han characters, '，' after lines 1 and 3, '。' after 2 and 4. */
const QUATRAIN = /^(?:(\p{Script=Han}{5})，(\p{Script=Han}{5})。(\p{Script=Han}{5})，(\p{Script=Han}{5})。|(\p{Script=Han}{7})，(\p{Script=Han}{7})。(\p{Script=Han}{7})，(\p{Script=Han}{7})。)$/u;

/**
 * The token positions of a quatrain's four line-ending characters (the characters before the
 * marks), or null when `poem` is not a 五绝 or 七绝.
 * → { width (5 | 7), lineEnds: [4 token positions], query (= lineEnds[3]), rhyme (= lineEnds[1]) }
 */
export function quatrainPositions(poem) {
  if (typeof poem !== 'string' || !QUATRAIN.test(poem)) return null;
  const width = Array.from(poem).length === 24 ? 5 : 7;
  // character index of line k's last character: k·(width + 1) + width − 1; the token is one further
  const lineEnds = [0, 1, 2, 3].map((k) => k * (width + 1) + width);
  return { width, lineEnds, query: lineEnds[3], rhyme: lineEnds[1] };
}

/**
 * One head's reading of the query row. weights: an n×n attention matrix (Matrix: rows, cols, data);
 * → { toRhyme, others, ratio, toLineEnds: [weight on the ends of lines 1, 2, 3] }
 */
export function headReading(weights, { query, rhyme, lineEnds }) {
  const n = weights.cols;
  const row = weights.data.subarray(query * n, query * n + n);
  let sum = 0;
  for (let j = 0; j < query; j++) if (j !== rhyme) sum += row[j];
  const others = sum / (query - 1);
  const toRhyme = row[rhyme];
  return { toRhyme, others, ratio: toRhyme / others, toLineEnds: lineEnds.slice(0, 3).map((j) => row[j]) };
}

/**
 * Every layer's and head's reading of one poem, from trace = gpt.forward(poem).
 * → readings[layer][head] (headReading's form)
 */
export function rhymeReadings(trace, positions) {
  return trace.blocks.map((block) => block.attention.heads.map((head) => headReading(head.weights, positions)));
}

/**
 * The heads ranked by ratio (largest first), with the rank of each: → [{ layer, head, ratio, rank }]
 * in rank order (rank 1 is the largest ratio; ties keep layer-then-head order).
 */
export function rankHeads(ratios) {
  const all = ratios.flatMap((row, layer) => row.map((ratio, head) => ({ layer, head, ratio })));
  all.sort((a, b) => b.ratio - a.ratio || a.layer - b.layer || a.head - b.head);
  return all.map((entry, i) => ({ ...entry, rank: i + 1 }));
}

/**
 * Which earlier line's last character the query looks at most in one head: 1, 2 or 3 (lines are
 * counted from 1), from headReading's toLineEnds.
 */
export function mostWatchedLine(reading) {
  const w = reading.toLineEnds;
  let best = 0;
  for (let k = 1; k < w.length; k++) if (w[k] > w[best]) best = k;
  return best + 1;
}
