// pretrained/poet.js: the 预训练 section's data source (section-shell.js, defineSection's source).
// Its table comes from the measured data at once; the pretrained poet itself (qkv.loadPretrained():
// about 1.6 MB, fetched the first time, in a widget from its add-on) loads only when the section
// is first on screen. Then, for the reader's quatrain, one gpt.forward() gives every layer's and
// head's attention, and rhyme-head.js reads it. No DOM.
//
// snapshot: { status: 'waiting' | 'ready' | 'error', rows, findings, facts, average (the report's
//   rhyme-head figures), examples, poem, message?, error? (the reader's poem refused: { key, vars }),
//   and when ready: chars (the tokens as characters, ⏎ first), positions, weights[layer][head]
//   (n×n Matrix), readings[layer][head], ranked (rankHeads of the weights on line 2's end), best ({ layer, head }:
//   the report's rhyme head), bestRank (its rank on this poem), line (mostWatchedLine of its reading) }
import REPORT from '../../data/pretrained-report.json' with { type: 'json' };
import BASELINES from '../../data/pretrained-baselines.json' with { type: 'json' };
import WRITER from '../../data/writer-reference.json' with { type: 'json' };
import RHYME_HEAD from '../../data/rhyme-head.json' with { type: 'json' };
import { comparisonRows, comparisonFindings, trainingFacts } from './comparison.js';
import { quatrainPositions, rhymeReadings, rankHeads, mostWatchedLine } from './rhyme-head.js';

/**
 * A head "clearly specialises" when, averaged over the validation quatrains, it gives line 2's end
 * at least CLEAR_RATIO times its mean weight on the other earlier positions, and gives it more
 * than the ends of lines 1 and 3 in at least CLEAR_SHARE of the poems.
 */
export const CLEAR_RATIO = 10;
export const CLEAR_SHARE = 0.9;
const bestOf = (r) => r.heads[r.best.layer][r.best.head];
/** The report's rhyme head and the figures the section quotes (the query: the step that writes line 4's last character). */
export const RHYME_AVERAGE = Object.freeze({
  ...RHYME_HEAD.predicting, atRhyme: RHYME_HEAD.atRhyme, poems: RHYME_HEAD.poems,
  specialises: bestOf(RHYME_HEAD.predicting).ratio >= CLEAR_RATIO && bestOf(RHYME_HEAD.predicting).line2Most >= CLEAR_SHARE,
});
export const EXAMPLES = Object.freeze([...RHYME_HEAD.examples]);

/** Everything the section shows for one model and one poem (the model's trace read by rhyme-head.js). */
export function readPoem(gpt, poem) {
  const positions = quatrainPositions(poem);
  if (!positions) return { error: { key: 'pre.poemBad', vars: {} } };
  const unknown = Array.from(poem).filter((ch) => !gpt.vocab.includes(ch));
  if (unknown.length) return { error: { key: 'pre.poemUnknown', vars: { chars: [...new Set(unknown)].join('') } } };
  // the reading is the one the report averages: from the token before line 4's last character,
  // whose output chooses it
  const at = { ...positions, query: positions.query - 1 };
  const trace = gpt.forward(poem);
  const readings = rhymeReadings(trace, at);
  // on one poem, heads are ranked by the weight itself: where a head gives the other positions
  // almost nothing, its ratio is a quotient of tiny numbers and orders such heads by noise
  const ranked = rankHeads(readings.map((row) => row.map((r) => r.toRhyme)));
  const best = { layer: RHYME_AVERAGE.best.layer, head: RHYME_AVERAGE.best.head };
  const reading = readings[best.layer][best.head];
  return {
    chars: ['⏎', ...Array.from(poem)], positions: at,
    weights: trace.blocks.map((b) => b.attention.heads.map((hd) => hd.weights)),
    readings, ranked, best,
    bestRank: ranked.find((e) => e.layer === best.layer && e.head === best.head).rank,
    line: mostWatchedLine(reading),
  };
}

export function pretrainedSource(ctx) {
  const rows = comparisonRows({ report: REPORT, baselines: BASELINES, writer: WRITER });
  const base = { rows, findings: comparisonFindings(rows), facts: trainingFacts(REPORT), average: RHYME_AVERAGE, examples: EXAMPLES };
  const poemNow = () => ctx.state.get('ppoem') || EXAMPLES[0];
  let snap = Object.freeze({ ...base, status: 'waiting', poem: poemNow() });
  let gpt = null, loading = null, gone = false;
  const watchers = new Set();
  const publish = (next) => {
    snap = Object.freeze(next);
    for (const fn of [...watchers]) fn(snap);
  };
  const compute = () => {
    const poem = poemNow();
    publish({ ...base, status: 'ready', poem, ...readPoem(gpt, poem) });
  };
  function start() {
    loading ||= ctx.qkv.loadPretrained().then((model) => {
      if (gone) { model.dispose(); return; }
      gpt = model;
      compute();
    }, (error) => {
      if (gone) return;
      publish({ ...base, status: 'error', poem: poemNow(), message: error.message });
      ctx.loadFailed?.(error.message);
    });
  }
  const off = ctx.state.onChange((name) => {
    if (name !== 'ppoem') return;
    if (gpt) compute();
    else publish({ ...snap, poem: poemNow() });
  });
  return {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    // the model loads the first time the section is seen (a page that never scrolls to it, or a
    // widget of another section, fetches nothing)
    setVisible(visible) { if (visible) start(); },
    destroy() { gone = true; off(); watchers.clear(); gpt?.dispose(); gpt = null; },
  };
}
