// Declarations for web/corpus.js, the package's `qkv-lab/corpus`: the built-in corpus, its
// presets and glosses, the page editor's limits and check, and the training defaults.

/** The sentence boundary token, vocab[0] of every model. */
export const BOUNDARY: '<s>';
/** The built-in corpus: one sentence a line, tokens separated by spaces. */
export const DEFAULT_CORPUS: readonly string[];

export interface CorpusPreset {
  readonly id: 'default' | 'car-with-animals' | 'twins' | 'article';
  readonly name: { readonly zh: string; readonly en: string };
  readonly description: { readonly zh: string; readonly en: string };
  readonly sentences: readonly string[];
}
/** Corpora the page offers ('default' is DEFAULT_CORPUS). */
export const CORPUS_PRESETS: readonly CorpusPreset[];
/** An English gloss for every token of every preset (and the boundary). */
export const GLOSSES: Readonly<Record<string, string>>;
/** Word groups the page colours alike. */
export const WORD_GROUPS: ReadonlyArray<{ readonly id: 'animals' | 'vehicles' | 'people' | 'food'; readonly words: readonly string[] }>;
/** What the page's corpus editor accepts (createModel itself takes larger corpora). */
export const CORPUS_LIMITS: { readonly maxSentences: 500; readonly maxTokensPerSentence: 32; readonly maxChars: 20000 };
/** The page's training defaults, and createModel's. */
export const TRAINING_DEFAULTS: { readonly batchSize: number; readonly lr: number; readonly steps: number; readonly dim: number; readonly optimizer: 'sgd' | 'adam' };
/** createModel's learning rate when none is given, by optimizer. */
export const DEFAULT_LR: { readonly sgd: number; readonly adam: number };
/** Defaults of createModel's options (lr: DEFAULT_LR, by optimizer). */
export const MODEL_DEFAULTS: {
  readonly dim: number; readonly seed: number; readonly optimizer: 'sgd' | 'adam'; readonly batchSize: number;
  readonly steps: number; readonly beta1: number; readonly beta2: number; readonly eps: number;
};

/** One sentence's tokens: split on whitespace when it has any, else one token per character. */
export function tokenize(sentence: string): string[];
/** BOUNDARY first (id 0), then every token in order of first appearance. */
export function buildVocab(sentences: ReadonlyArray<ReadonlyArray<string>>): { vocab: string[]; ids: Map<string, number> };

export interface CorpusProblem {
  /** 1-based; 0 for the corpus as a whole. */
  line: number;
  kind: 'type' | 'empty' | 'too-many-chars' | 'too-many-sentences' | 'too-long' | 'reserved' | 'markup' | 'control' | 'one-word' | 'duplicate';
  /** 'error': the corpus cannot be used as it is; 'warning': it trains, but may not be meant. */
  severity: 'error' | 'warning';
  message: string;
}
/** Checks a corpus (one string, a sentence a line, or an array of sentences); never throws. */
export function checkCorpus(corpus: unknown): { sentences: string[][]; problems: CorpusProblem[] };
