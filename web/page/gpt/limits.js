// gpt/limits.js: which of the writer's choices the engine would refuse, asked of the engine's own
// check (gpt.js checkStepWork: one training step's work against the limit of one call), so that
// the writer offers only what createGPT accepts and says why the rest is greyed out. No DOM.
//
//   runRefusal({ glayers, gheads, gdim, gctx }, vocab) → the engine's message, or null
//   quatrainVocabulary() → the vocabulary size of the quatrains (before a run has said its own)
import { checkStepWork, readLines, buildVocab } from '../../gpt.js';
import { GPT_DEFAULTS } from '../../gpt-defaults.js';
import { QUATRAINS } from '../../data/quatrains.js';
import { clampHeads } from './settings.js';

let quatrainVocab = null;

/** The number of tokens createGPT makes of the quatrains (their distinct characters and the end token). */
export function quatrainVocabulary() {
  quatrainVocab ??= buildVocab('createGPT', readLines('createGPT', QUATRAINS.poems)).length;
  return quatrainVocab;
}

/**
 * What createGPT would say of a run with these settings (heads clamped to divide the width, as
 * gptOptions does) over a vocabulary of `vocab` tokens: its RangeError's message, or null when
 * it accepts them.
 */
export function runRefusal(settings, vocab) {
  const dim = settings.gdim;
  const config = { layers: settings.glayers, heads: clampHeads(dim, settings.gheads), dim, context: settings.gctx, batch: GPT_DEFAULTS.batch, vocab };
  try {
    checkStepWork('createGPT', config);
    return null;
  } catch (error) {
    if (error instanceof RangeError) return error.message;
    throw error;
  }
}
