// Declarations of web/poetry/ngram.js (import { createNgram } from 'qkv-lab/poetry/ngram'): the
// counting baselines a pretrained GPT is measured against (docs/poetry-metrics.md).

export type NgramKind = 'unigram' | 'trigram' | 'positional';
export declare const NGRAM_KINDS: readonly NgramKind[];

/** A counting model (opaque but for these). */
export interface NgramModel {
  readonly kind: NgramKind;
  /** '\n' then the characters. */
  readonly vocab: readonly string[];
  readonly V: number;
  readonly weights: number[][] | null;
}
export interface NgramOptions {
  /** The interpolation weights (fitWeights(kind, text).weights when omitted). */
  weights?: number[][];
  /** '\n' then characters, a superset of the text's (vocabularyOf(text) when omitted). */
  vocabulary?: string[];
}

/** '\n' then the text's distinct characters in code-point order. */
export declare function vocabularyOf(text: string): string[];
/** The interpolation weights of kind, chosen on held-out text (null for the unigram). */
export declare function fitWeights(kind: NgramKind, text: string, options?: { vocabulary?: string[] }):
  { weights: number[][] | null; heldOutLoss: number | null; heldOutTokens: number };
/** A counting model of kind on text (one poem per line). */
export declare function createNgram(kind: NgramKind, text: string, options?: NgramOptions): NgramModel;
/** The loss on poems, each scored once from its start (nats per token). */
export declare function evaluate(model: NgramModel, poems: readonly string[]):
  { loss: number; tokens: number; poems: number; dropped: number };
/** The next-token distribution after tokens (a, b) at position p. */
export declare function nextDistribution(model: NgramModel, a: number, b: number, p: number): Float64Array;
/** A small seeded generator of uniform numbers in [0, 1). */
export declare function mulberry32(seed: number): () => number;
/** count poems sampled from the model. */
export declare function samplePoems(model: NgramModel,
  options?: { count?: number; temperature?: number; seed?: number; maxLength?: number }): string[];
