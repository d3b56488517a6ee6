// training/timeline.js: what the training run showed at any past step k, for the timeline's slider.
// No DOM. The numbers come from the run's own record (loss, its average, the probes' cosines per
// step) and from run.modelAt(k), the run's second model replayed from the nearest checkpoint
// (run.js: at most CHECKPOINT_EVERY steps), so step k reads exactly as it did live.
//
//   const view = timelineAt(run, k, { sentence: '我 爱 吃 苹 果' });
//   → { step, total, loss, average, catDog, catCar, anchor, nearest: [{ word, score }],
//       attention: { tokens, weights } | null, points: { vocab, xy (vocab × 2), shown (the rows drawn: run.scatterWords) } }
import { PROBES } from './run.js';

/** How many nearest words of the anchor the timeline lists. */
export const TIMELINE_NEAREST = 5;

/** The sentence whose attention the timeline shows: the walkthrough's when the corpus has its words. */
function sentenceFor(model, sentence) {
  const words = String(sentence || '').split(/\s+/).filter(Boolean);
  const known = words.length && words.length <= model.maxTokens && words.every((w) => model.vocab.includes(w));
  return known ? words : model.sentences[0].slice(0, model.maxTokens);
}

/** deadline: see run.modelAt; null when the replay to k has not got there by then (call again). */
export function timelineAt(run, k, { sentence = '', deadline = Infinity } = {}) {
  const model = run.modelAt(k, { deadline });
  if (!model) return null;
  const record = k === 0 ? { loss: null, average: null, ...run.initialPoint() } : run.history[k - 1];
  const anchor = model.vocab.includes(PROBES.anchor) ? PROBES.anchor : model.vocab[1];
  const tokens = sentenceFor(model, sentence);
  return {
    step: k, total: run.total,
    loss: record.loss, average: record.average, catDog: record.catDog, catCar: record.catCar,
    anchor, nearest: model.nearest(anchor, TIMELINE_NEAREST),
    attention: model.attention(tokens),
    points: { vocab: model.vocab, xy: model.project2d(), shown: run.scatterWords },
  };
}

/**
 * A pinned run (one kept for comparison) trains on towards step k until `deadline` (a
 * performance.now() time), deterministically, so that it can be shown beside the current run at
 * k. Returns false when it can go no further (finished or failed), true otherwise.
 */
export function catchUp(run, k, deadline) {
  let more = true;
  while (run.step < k && performance.now() < deadline && (more = run.advance() !== null)) { /* on to the shared step */ }
  return more;
}
