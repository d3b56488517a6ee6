// Type declarations for qkv-lab's JavaScript API (web/qkv-lab.js). Hand-written; checked by
// `tsc --noEmit -p tests/types` against tests/types/usage.ts in the test command.

/** A row-major float32 matrix: `data[i * cols + j]` is row i, column j. */
export declare class Matrix {
  /** rows × cols, zeros unless data (rows · cols numbers) is given; a RangeError for a bad side or a data of another length. */
  constructor(rows: number, cols: number, data?: Float32Array | ArrayLike<number>);
  readonly rows: number;
  readonly cols: number;
  readonly data: Float32Array;
  /** Entry (i, j); a RangeError outside the matrix. */
  get(i: number, j: number): number;
  row(i: number): number[];
  /** Nested arrays, one per row. */
  toArray(): number[][];
  /** A new Matrix with every entry multiplied by k. */
  scale(k: number): Matrix;
  clone(): Matrix;
  static from(value: MatrixInput, name?: string): Matrix;
}

/** What every operation accepts: a Matrix(-like) object or nested arrays of numbers. */
export type MatrixInput =
  | Matrix
  | { rows: number; cols: number; data: ArrayLike<number> }
  | ReadonlyArray<ReadonlyArray<number> | Float32Array | Float64Array>;

export interface AttentionOptions {
  /** false: divide scores by 1; true (default): by √d_k; a positive number: by that number. */
  scale?: boolean | number;
  /** Mask every key after the query's own position (j > i). Default false. */
  causal?: boolean;
}

export interface AttentionResult {
  /** Q·Kᵀ, raw dot products (n_q × n_k): not scaled, not masked. */
  scores: Matrix;
  /** softmax of each row of mask(scores / s) (n_q × n_k); rows sum to 1. */
  weights: Matrix;
  /** weights·V (n_q × d_v). */
  output: Matrix;
}

/** The names of attend()'s results. */
export type AttentionOutput = keyof AttentionResult;

export interface AttendOptions<Outputs extends AttentionOutput = AttentionOutput> extends AttentionOptions {
  /** The results to return (default all three), distinct, at least one: the others are neither
   *  copied out nor kept whole in WASM memory. `['output']` is the fast path. */
  outputs?: ReadonlyArray<Outputs>;
}

export interface SelfAttentionResult extends AttentionResult {
  Q: Matrix;
  K: Matrix;
  V: Matrix;
}

export interface PositionalEncodingOptions {
  /** The wavelength base: a finite number above 1. Default 10000 (the model's). */
  base?: number;
}

export interface MultiHeadWeights {
  /** d×d_model each (d: X's columns). */
  Wq: MatrixInput;
  Wk: MatrixInput;
  Wv: MatrixInput;
  /** d_model×d_out. */
  Wo: MatrixInput;
}

export interface MultiHeadOptions extends AttentionOptions {
  /** How many heads share d_model: a positive integer that divides it; d_k = d_model / heads.
   *  scale: true divides each head's scores by √d_k of the head. */
  heads: number;
}

/** One head: its slices of Q, K, V (n × d_k) and its attention. */
export interface HeadResult extends SelfAttentionResult {}

export interface MultiHeadResult {
  /** heads[h]: columns [h·d_k, (h+1)·d_k) of X·Wq, X·Wk, X·Wv, and attend() on them. */
  heads: HeadResult[];
  /** The heads' outputs side by side (n × d_model). */
  concat: Matrix;
  /** concat·Wo (n × d_out). */
  output: Matrix;
}

/** numpy's legacy generator: rng(s).randn(r, c) equals np.random.seed(s); np.random.randn(r, c). */
export interface Rng {
  readonly seed: number;
  /** The next rows×cols standard normal draws, continuing the stream. */
  randn(rows: number, cols: number): Matrix;
}

export interface ModelOptions {
  /** Sentences: an array of strings (space-separated tokens, or unspaced text split per
   *  character), one newline-separated string, or token arrays. Default: the built-in corpus. */
  corpus?: string | ReadonlyArray<string> | ReadonlyArray<ReadonlyArray<string>>;
  /** Embedding width d, 1 … 1024. Default 16. Creating the model and one training step may each
   *  do at most 2^30 of work (a step: its multiply-adds, batchSize longest sentences ×
   *  (3d² + 2nd + dV) × 3, plus its softmax entries and the optimizer's pass over every
   *  parameter, weighed as docs/api.md's Limits say); the C model's blocks hold at most 2^26
   *  floats each (2·V·d + 3·d² + V parameters): createModel refuses more, naming the sizes. */
  dim?: number;
  /** 0 … 2^32 − 1. Default 1. The same seed gives bit-identical training. */
  seed?: number;
  /** Default 'sgd' (one step changes exactly the batch's embedding rows). */
  optimizer?: 'sgd' | 'adam';
  /** Learning rate > 0 that float32 holds (1.18e-38 … 3.4e38). Default 0.3 for sgd (TRAINING_DEFAULTS.lr), 0.01 for adam. */
  lr?: number;
  /** Sentences per step. Default: TRAINING_DEFAULTS.batchSize. */
  batchSize?: number;
  /** Length of the default schedule: train() without an argument trains up to this many steps. Default: TRAINING_DEFAULTS.steps. */
  steps?: number;
  /** Adam's betas: 0 ≤ beta < 1 in float32 (at most 1 − 2^−24). Defaults 0.9, 0.999. */
  beta1?: number;
  beta2?: number;
  /** Adam's epsilon, > 0 in float32's range. Default 1e-8. */
  eps?: number;
}

/** A checkpoint from Model.saveState(): opaque apart from its step count and size. */
export interface ModelState {
  readonly steps: number;
  readonly vocab: number;
  readonly dim: number;
  /** The C state: about 12 bytes per parameter plus 2.5 KiB. */
  readonly bytes: Uint8Array;
}

export interface StepResult {
  /** Mean cross-entropy of the batch, before the update. */
  loss: number;
  /** The batch's sentences as token arrays. */
  batch: string[][];
  /** Embedding rows the update changed, ascending (with sgd: exactly the batch's tokens, <s> included). */
  updatedRows: number[];
  /** Gradient norm of each row in updatedRows. */
  rowGradNorms: number[];
  /** Steps taken so far, this one included. */
  step: number;
}

/** A sentence for inspect() and stepOn(): space-separated words (or unspaced text, one token per
 *  character), or an array of words; 1 … model.maxTokens words, every one in the vocabulary. */
export type SentenceInput = string | ReadonlyArray<string>;

/**
 * Everything the model computes on one sentence (model.inspect). The sentence runs as
 * <s> w1 … wn → w1 … wn <s>: n = words + 1 positions, d = model.dim, V = vocab.length.
 */
export interface InspectResult {
  /** ['<s>', w1, …, wn]: the n inputs. */
  tokens: string[];
  /** [w1, …, wn, '<s>']: what each position must predict. */
  targets: string[];
  ids: number[];
  targetIds: number[];
  /** n×d: E[ids], the look-up (= one-hot(ids) · E). */
  embeddingRows: Matrix;
  /** n×d: the fixed sinusoidal rows that are added. */
  positions: Matrix;
  /** n×d: embeddingRows + positions. */
  X: Matrix;
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  /** n×n: raw Q·Kᵀ, unscaled and unmasked (entries above the diagonal are masked out of the softmax). */
  scores: Matrix;
  /** n×n: softmax(mask(scores / √d)) by rows; 0 above the diagonal (causal). */
  weights: Matrix;
  /** n×d: weights · V. */
  attention: Matrix;
  /** n×d: X + attention (the residual). */
  h: Matrix;
  /** n×V: h · Wout + bout. */
  logits: Matrix;
  /** n×V: softmax of each row of logits. */
  probs: Matrix;
  /** n numbers: −log probs[t][targetIds[t]], computed in C in double. */
  losses: number[];
  /** The mean of losses; equals model.loss([sentence]). */
  loss: number;
  /** d loss / d parameters for this sentence alone; embedding is non-zero on exactly its rows. */
  gradients: Record<ParameterName, Matrix>;
  /** The non-zero rows of gradients.embedding, ascending row. */
  gradientRows: Array<{ row: number; word: string; norm: number }>;
}

/** model.stepOn: one optimizer step on one chosen sentence. */
export interface StepOnResult extends StepResult {
  /** The same sentence's loss after the update. */
  lossAfter: number;
  /** k×d: the embedding rows updatedRows (k of them) before the update. */
  rowsBefore: Matrix;
  /** k×d: the same rows after it. */
  rowsAfter: Matrix;
}

export interface ScoredWord {
  word: string;
  score: number;
}

export type ParameterName = 'embedding' | 'Wq' | 'Wk' | 'Wv' | 'Wout' | 'bout';

/** A tiny next-token model with a learned embedding table (wasm/model.c). */
export declare class Model {
  private constructor();
  /** index = token id = embedding row; vocab[0] is the sentence boundary '<s>'. */
  readonly vocab: ReadonlyArray<string>;
  readonly sentences: ReadonlyArray<ReadonlyArray<string>>;
  readonly dim: number;
  readonly seed: number;
  readonly optimizer: 'sgd' | 'adam';
  readonly lr: number;
  readonly batchSize: number;
  /** Length of the default schedule: train() without an argument runs defaultSteps − steps (none once steps ≥ defaultSteps). */
  readonly defaultSteps: number;
  /** Longest context predict() and attention() accept (a sentence has at most 256 tokens). */
  readonly maxTokens: number;
  /** The divergence rule: a batch loss above 100 × ln V stops training. */
  readonly lossLimit: number;
  /** Steps taken so far. */
  readonly steps: number;
  /** True once a step's loss was not finite or above lossLimit; the parameters are those before it. */
  readonly diverged: boolean;
  readonly disposed: boolean;
  /** One step on the next batch. Throws an Error named 'DivergenceError' when the loss is not
   *  finite or above lossLimit (the step is then not applied). */
  step(): StepResult;
  /** The same step in parts, for a page that must not block: the batch's sentences one at a time
   *  until performance.now() passes `deadline` (at least one a call). null while sentences are
   *  left (stepping is then true); the call that finishes returns the result step() gives, bit for
   *  bit. saveState() meanwhile gives the state before the step; loadState() drops it. */
  step(options: { deadline: number }): StepResult | null;
  /** True while a step taken in parts (step({ deadline })) is under way. */
  readonly stepping: boolean;
  /** Runs `steps` steps and returns their losses; without an argument, the rest of the default
   *  schedule (defaultSteps − steps: what step() and stepOn() took counts). */
  train(steps?: number): number[];
  /** The whole training state, copied out (parameters, optimizer moments and step count, the
   *  shuffle generator, the place in the batch schedule): a checkpoint. */
  saveState(): ModelState;
  /** Puts back a saveState() of a model created with the same options: it then trains exactly
   *  as that model went on to. RangeError for a state of another vocabulary or width. */
  loadState(state: ModelState): void;
  /** Mean loss over the given sentences (default: the whole corpus), without training. */
  loss(sentences?: ReadonlyArray<string> | ReadonlyArray<ReadonlyArray<string>>): number;
  gradients(sentences?: ReadonlyArray<string> | ReadonlyArray<ReadonlyArray<string>>):
    { loss: number; grads: Record<ParameterName, Matrix> };
  getParameter(name: ParameterName): Matrix;
  setParameter(name: ParameterName, value: MatrixInput): void;
  /** vocab × dim, a copy. */
  embeddings(): Matrix;
  /** Cosine similarity of two words' embeddings. */
  similarity(a: string, b: string): number;
  nearest(word: string, k?: number): ScoredWord[];
  /** Words nearest to b − a + c, the three inputs (and '<s>') excluded. */
  analogy(a: string, b: string, c: string, k?: number): ScoredWord[];
  /** vocab × 2: PCA of the embeddings, each axis's sign kept from the previous call. */
  project2d(): Matrix;
  /** Next-token probabilities after a context, most likely first. */
  predict(tokens: string | ReadonlyArray<string>): Array<{ word: string; p: number }>;
  /** The model's attention weights over '<s>' + tokens. */
  attention(tokens: string | ReadonlyArray<string>): { tokens: string[]; weights: Matrix };
  /** Every intermediate of the model on one sentence, with its loss per position and its
   *  gradients; changes no parameter. */
  inspect(sentence: SentenceInput): InspectResult;
  /** One optimizer step on exactly this sentence (counts as a step; outside step()'s schedule).
   *  Throws an Error named 'DivergenceError' as step() does. */
  stepOn(sentence: SentenceInput): StepOnResult;
  /** Frees the model's WASM memory; every method throws afterwards. */
  dispose(): void;
}

/** A vector: an array of numbers, a typed array, or a 1 × k (or k × 1) matrix. */
export type VectorInput = ReadonlyArray<number> | Float32Array | Float64Array | MatrixInput;

/** One pre-LN GPT-2 block's weights, in the X·W convention (d: X's columns, h: W1's columns). */
export interface TransformerBlockWeights {
  ln1: { gamma: VectorInput; beta: VectorInput };
  /** Wq, Wk, Wv, Wo d × d; bq, bk, bv, bo of d. */
  attn: { Wq: MatrixInput; Wk: MatrixInput; Wv: MatrixInput; bq: VectorInput; bk: VectorInput;
    bv: VectorInput; Wo: MatrixInput; bo: VectorInput };
  ln2: { gamma: VectorInput; beta: VectorInput };
  /** W1 d × h, b1 of h, W2 h × d, b2 of d. */
  mlp: { W1: MatrixInput; b1: VectorInput; W2: MatrixInput; b2: VectorInput };
}

export interface TransformerBlockOptions {
  /** Divides d; d_k = d / heads. Required. */
  heads: number;
  /** Mask keys after the query (j > i). Default true. */
  causal?: boolean;
  /** LayerNorm's epsilon (biased variance + eps). Default 1e-5. */
  eps?: number;
}

/** Every intermediate of one block (n rows each). */
export interface TransformerBlockResult {
  ln1: Matrix;
  /** LayerNorm 1's row statistics of x (n × 1 each): mean, and rstd = 1/√(biased variance + eps). */
  ln1Stats: { mean: Matrix; rstd: Matrix };
  /** heads[j]: Q, K, V (n × d_k), scores = Q·Kᵀ (raw: unscaled, unmasked), weights, output;
   *  concat (n × d); output = concat·Wo + bo. */
  attention: { heads: HeadResult[]; concat: Matrix; output: Matrix };
  /** x + attention.output */
  resid1: Matrix;
  ln2: Matrix;
  /** LayerNorm 2's row statistics of resid1 (n × 1 each). */
  ln2Stats: { mean: Matrix; rstd: Matrix };
  /** ln2·W1 + b1 (n × h) */
  hidden: Matrix;
  /** tanh-GELU of hidden */
  gelu: Matrix;
  /** gelu·W2 + b2 */
  mlp: Matrix;
  /** resid1 + mlp */
  output: Matrix;
}

export interface GPTOptions {
  /** One document (a poem) per line; at least 10 lines (every 10th is held out for validation),
   *  at most 2,000,000 characters and 8,191 distinct ones. Required: the Tang quatrains are
   *  QUATRAINS.poems in web/data/quatrains.js. */
  text: string;
  /** 1 to 16. Default 2. */
  layers?: number;
  /** Divides dim. Default 4. */
  heads?: number;
  /** 1 to 512. Default 64. */
  dim?: number;
  /** Tokens per window, and the longest text forward() and generate() take: 1 to 256. Default 32. */
  context?: number;
  /** 0 to 2^32 − 1. Default 0. */
  seed?: number;
  /** AdamW's peak learning rate (warmup over 5% of steps, cosine decay to a tenth). Default 3e-3. */
  lr?: number;
  /** Windows per step: 1 to 256. Default 16. */
  batch?: number;
  /** The default schedule's length. Default 600. */
  steps?: number;
}

export interface GenerateOptions {
  /** At most context − 1 − prompt length (the default). */
  maxTokens?: number;
  /** 0 (greedy) to 100. Default 1. */
  temperature?: number;
  /** Sample among the k most likely only; 0 (default): all. */
  topK?: number;
  /** Sample among the smallest set of probability ≥ topP, in (0, 1]. Default 1. */
  topP?: number;
  /** The sampler's seed, 0 to 2^32 − 1. Default 0. */
  seed?: number;
  /** true (default): prefill, then one row per token against the KV cache; false: the whole
   *  text again per token (the same tokens). */
  cache?: boolean;
  /** Lock the poem to a form: the prompt is its start; each step may only choose what the form
   *  puts there (a Han character, '，', '。', the end-of-text token after the last '。'). The
   *  default maxTokens is then the rest of the poem and its end token. */
  form?: PoemFormName;
  /** With form: the characters that start the lines (藏头诗), one per line of the form. */
  acrostic?: string;
}

/** The forms of regular verse generate() can lock to. */
export type PoemFormName = 'wujue' | 'qijue' | 'wulv' | 'qilv';
export interface PoemForm {
  /** 五言绝句, 七言绝句, 五言律诗, 七言律诗 */
  readonly name: string;
  readonly english: string;
  readonly lines: number;
  /** Han characters a line (before its '，' or '。'). */
  readonly characters: number;
}
/* POEM_FORMS, POEM_FORM_NAMES and poemForm(text) are in 'qkv-lab/poem-forms' (web/poem-forms.js). */

/** What a form's mask did at one step of generate(). */
export interface GenerateMask {
  /** 'character' (a Han character), '，', '。', '\n' (the end) or the acrostic's character. */
  required: string;
  /** The probability (temperature 1) the model put on what the form did not allow. */
  removed: number;
  /** The model's top choice before the mask (top[0]). */
  wanted: { char: string; p: number };
  /** Whether the form refused that choice. */
  overruled: boolean;
  /** The 5 most likely allowed characters, renormalised over the allowed ones (temperature 1). */
  top: { char: string; p: number }[];
}

export interface GenerateResult {
  text: string;
  steps: GenerateStep[];
  /** 'end': the end-of-text token; 'maxTokens': the caller's limit; 'context': the context is full. */
  stopped: 'end' | 'maxTokens' | 'context';
}

export interface GenerateStep {
  token: number;
  /** '\n' for the end-of-text token (which ends the text and is not in `text`). */
  char: string;
  /** The 5 most likely next characters at temperature 1. */
  top: { char: string; p: number }[];
  /** The KV cache's length when the token was chosen (0 without the cache). */
  kvLength: number;
  /** With a form only. */
  mask?: GenerateMask;
}

/** Parameters (or gradients) in structured form; vectors are 1 × k matrices. */
export interface GPTParameters {
  wte: Matrix;
  wpe: Matrix;
  blocks: { ln1: { gamma: Matrix; beta: Matrix };
    attn: { Wq: Matrix; Wk: Matrix; Wv: Matrix; bq: Matrix; bk: Matrix; bv: Matrix; Wo: Matrix; bo: Matrix };
    ln2: { gamma: Matrix; beta: Matrix }; mlp: { W1: Matrix; b1: Matrix; W2: Matrix; b2: Matrix } }[];
  lnf: { gamma: Matrix; beta: Matrix };
}

/** A GPT from qkv.createGPT or qkv.loadGPT (a type only: the class lives in the GPT engine,
 *  which load({ gpt: true }) fetches on demand). */
/** gpt.evaluation(): evaluate()'s windows, a piece at a time. */
export interface GPTEvaluation {
  /** Windows in all (validation, then as many training windows). */
  readonly windows: number;
  /** Windows evaluated so far. */
  readonly done: number;
  /** Up to n more windows → null, or { train, val } once all are done (then again on every call). */
  advance(n?: number): { train: number; val: number } | null;
}

export interface GPT {
  /** token id → character; vocab[0] is '\n', the end-of-text token. */
  readonly vocab: readonly string[];
  readonly parameterCount: number;
  readonly layers: number;
  readonly heads: number;
  readonly dim: number;
  readonly context: number;
  readonly seed: number;
  /** The peak learning rate of the AdamW schedule it was created with; null for a GPT that
   *  loadGPT made (the file holds no training settings: it cannot train). */
  readonly lr: number | null;
  readonly batch: number;
  readonly defaultSteps: number;
  readonly steps: number;
  readonly diverged: boolean;
  readonly disposed: boolean;
  /** One AdamW step; throws an Error named 'DivergenceError' when the loss is not finite or
   *  above 100 × ln V (the step is not applied). */
  step(): { step: number; loss: number };
  /** The rest of the default schedule, or `steps` more → their losses. */
  train(steps?: number): number[];
  /** Mean loss per character (nats) over the validation windows and as many training windows. */
  evaluate(): { train: number; val: number };
  /** Per-poem evaluation: each poem once, from its start (inputs '\n' + poem, targets poem + '\n');
   *  by default the GPT's validation lines (a loaded GPT needs them given). loss: nats per target;
   *  cut: poems longer than context − 1 characters, scored on their first context targets. */
  evaluatePoems(poems?: string | readonly string[]): { loss: number; poems: number; targets: number; cut: number };
  /** The same evaluation in pieces (a page's own thread must not block for all of it):
   *  advance(n) evaluates up to n more windows (default: as many as one call within the work
   *  limit, which gives evaluate()'s result bit for bit) and returns null until the last piece.
   *  Throws if the GPT took a step since the evaluation began. */
  evaluation(): GPTEvaluation;
  /** The model on '\n' + text (at most context − 1 characters). */
  forward(text: string): { tokens: number[]; logits: Matrix; blocks: TransformerBlockResult[] };
  generate(prompt?: string, options?: GenerateOptions): GenerateResult;
  parameters(): GPTParameters;
  /** The loss of one document (inputs '\n' + text, targets text + '\n') and its gradients; a
   *  GPT from loadGPT() has no gradients (made without training state): it throws. */
  gradients(text: string): { loss: number; grads: GPTParameters };
  /** Version 1 of the file format (float32, exact); tools/quantize-gpt.mjs makes version 2 (int8). */
  save(): Uint8Array;
  /** A fine-tune of this GPT on new text (docs/finetune.md); this GPT is never changed, and
   *  disposing it disposes its fine-tunes. */
  finetune(options: FineTuneOptions): FineTune;
  dispose(): void;
}

/** A matrix LoRA can adapt: Wq, Wk, Wv (the column blocks of qkvw), Wo, W1, W2. */
export type LoraTarget = 'Wq' | 'Wk' | 'Wv' | 'Wo' | 'W1' | 'W2';

/** gpt.finetune's options (docs/finetune.md); every one but text has a default. */
export interface FineTuneOptions {
  /** One document per line, in the base's vocabulary (a character outside it is refused, named);
   *  at least 10 lines, every 10th held out for validation. */
  text: string;
  /** 'lora' (default): adapters y = x·W + (α/r)·(x·A)·B, the base frozen; 'full': every parameter. */
  method?: 'lora' | 'full';
  /** r, 1 to 64 (default 4). */
  rank?: number;
  /** α (default 8): the adapters are scaled by α / r. */
  alpha?: number;
  /** The adapted matrices (default ['Wq', 'Wv']). */
  targets?: LoraTarget[];
  /** AdamW's learning rate (default 3e-2 for LoRA, 1e-3 for full), warmed up over 5% of steps, cosine-decayed. */
  lr?: number;
  /** Windows per step (default 1), each starting where a document (line) starts. */
  batch?: number;
  /** The default schedule's length (default 400). */
  steps?: number;
  /** Draws A and the windows (default 0). */
  seed?: number;
  /** The base's validation text for evaluate().baseVal (every line; at most 64 windows scored);
   *  default: the base's own validation lines when it was created with text, else none. */
  baseText?: string;
}

/** A fine-tune from gpt.finetune or qkv.loadAdapter (a type only: it lives in the GPT engine). */
export interface FineTune {
  readonly base: GPT;
  readonly method: 'lora' | 'full';
  /** LoRA's r, α and targets (null for full). */
  readonly rank: number | null;
  readonly alpha: number | null;
  readonly targets: readonly LoraTarget[] | null;
  readonly lr: number;
  readonly batch: number;
  readonly seed: number;
  /** Floats a step trains: the adapters (LoRA) or every parameter (full). */
  readonly trainableCount: number;
  /** Bytes of saveAdapter()'s file (LoRA), or of every parameter as float32 (full). */
  readonly adapterBytes: number;
  /** Bytes the run allocated beyond its base (adapters, their gradients and moments, activations, text). */
  readonly memoryBytes: number;
  readonly steps: number;
  readonly defaultSteps: number;
  readonly diverged: boolean;
  readonly disposed: boolean;
  /** Whether the adapters are folded into the weights. */
  readonly merged: boolean;
  step(): { step: number; loss: number };
  train(steps?: number): number[];
  /** Mean loss per character on the fine-tuning text's training and validation windows, and on
   *  the base's validation text (forgetting; null without one). */
  evaluate(): { train: number; val: number; baseVal: number | null };
  /** val and baseVal over at most `windows` (default 16) evenly spaced windows of each, in pieces. */
  evaluation(options?: { windows?: number }): { readonly windows: number; readonly done: number; advance(n?: number): { val: number; baseVal: number | null } | null };
  /** Each poem scored once from its start, as GPT.evaluatePoems; by default the text's held-out lines. */
  evaluatePoems(poems?: string | readonly string[]): { loss: number; poems: number; targets: number; cut: number };
  generate(prompt?: string, options?: GenerateOptions): { text: string; steps: GenerateStep[] };
  forward(text: string): { tokens: number[]; logits: Matrix; blocks: TransformerBlockResult[] };
  /** LoRA: every adapter (or its gradient) as { [target]: [{ A, B } per layer] }. */
  adapters(options?: { grads?: boolean }): Partial<Record<LoraTarget, { A: Matrix; B: Matrix }[]>>;
  gradients(text: string): { loss: number; grads: Partial<Record<LoraTarget, { A: Matrix; B: Matrix }[]>> | GPTParameters };
  /** LoRA: fold (α/r)·A·B into a copy of the weights; unmerge() goes back (steps need it unmerged). */
  merge(): void;
  unmerge(): void;
  /** Full: how many parameters moved more than threshold (absolute, default 1e-3) from the base's. */
  movedShare(threshold?: number): { moved: number; total: number; share: number };
  /** Full: the run's parameters (a LoRA run throws: its base's are base.parameters()). */
  parameters(): GPTParameters;
  /** LoRA: the adapters as a small versioned file that names its base by a checksum. */
  saveAdapter(): Uint8Array;
  dispose(): void;
}

export declare class QkvLab {
  private constructor();
  /** Which kernel build runs: 'relaxed-simd' (fused multiply-add), 'simd128' or 'scalar'. */
  readonly kernels: KernelBuild;
  /** true when SIMD kernels run ('relaxed-simd' or 'simd128'), false for the scalar build. */
  readonly simd: boolean;
  /** Bytes allocated on the WASM heap right now. */
  heapUsed(): number;
  /** The C library's sentence for a status code. */
  errorMessage(status: number): string;
  /** seed: an integer from 0 to 2^32 − 1. */
  rng(seed: number): Rng;
  matmul(A: MatrixInput, B: MatrixInput): Matrix;
  transpose(A: MatrixInput): Matrix;
  /** -Infinity entries are masked (weight 0); every row needs one finite entry. */
  softmaxRows(S: MatrixInput): Matrix;
  /** scores, weights and output, or just those named in options.outputs. */
  attend<Outputs extends AttentionOutput = AttentionOutput>(Q: MatrixInput, K: MatrixInput, V: MatrixInput,
    options?: AttendOptions<Outputs>): Pick<AttentionResult, Outputs>;
  selfAttention(X: MatrixInput, Wq: MatrixInput, Wk: MatrixInput, Wv: MatrixInput,
    options?: AttentionOptions): SelfAttentionResult;
  /** Sinusoidal positions (n × d): PE[p][2i] = sin(p / base^(2i/d)), PE[p][2i+1] = cos(p / base^(2i/d));
   *  1 ≤ n ≤ 2^20. The model's positions are this table with base 10000. */
  positionalEncoding(n: number, d: number, options?: PositionalEncodingOptions): Matrix;
  /** Multi-head self-attention of X (n × d). */
  multiHeadAttention(X: MatrixInput, weights: MultiHeadWeights, options: MultiHeadOptions): MultiHeadResult;
  /** A tiny trainable language model; dispose() it when done. Needs the model's code
   *  (load({ model: true }) or loadModelEngine()); without it, it throws an Error saying so. */
  createModel(options?: ModelOptions): Model;
  /** Whether the trainable model's code is loaded (load({ model: true }) or loadModelEngine()):
   *  once it is, for every instance. */
  readonly modelLoaded: boolean;
  /** Fetches the trainable model's code (once), which createModel needs → this instance. */
  loadModelEngine(): Promise<QkvLab>;
  /** Whether the GPT engine is attached (load({ gpt: true }) or loadGPTEngine()). */
  readonly gptLoaded: boolean;
  /** Fetches the GPT engine and attaches it to this instance (once) → this instance. */
  loadGPTEngine(): Promise<QkvLab>;
  /** One pre-LN GPT-2 block on X (n × d), every intermediate returned. Needs the GPT engine
   *  (load({ gpt: true })); without it, it throws an Error saying so, as createGPT and loadGPT do. */
  transformerBlock(X: MatrixInput, weights: TransformerBlockWeights, options: TransformerBlockOptions): TransformerBlockResult;
  /** A GPT-2-style character model of text; dispose() it when done. */
  createGPT(options: GPTOptions): GPT;
  /** The GPT gpt.save() wrote (version 1 or 2); truncated, altered or foreign bytes throw a RangeError. */
  loadGPT(bytes: Uint8Array): GPT;
  /** The pretrained Tang poet (4 layers, 4 heads, width 128, context 72; docs/pretrained.md): a new
   *  GPT on every call, independent of the others (dispose() it when done). Fetches its weights on
   *  the first call (a chunk of their own in a bundler; the add-on qkv-lab-widget-pretrained.js
   *  beside the classic widget script) and attaches the GPT engine if it is not yet. Rejects
   *  where the build carries no model. */
  loadPretrained(): Promise<GPT>;
  /** The adapters ft.saveAdapter() wrote, on the base they were trained on (another base, or
   *  altered bytes, throw a RangeError). */
  loadAdapter(base: GPT, bytes: Uint8Array): FineTune;
}

export interface LoadOptions {
  /** A private instance instead of the shared one. Default false. */
  fresh?: boolean;
  /** The kernel build to run; the promise rejects where the engine cannot run it (or, for
   *  'relaxed-simd', where this build of qkv-lab has none). Default: the fastest the engine
   *  validates, relaxed-simd, then simd128, then scalar; in Node the environment variable
   *  QKV_LAB_SIMD=0 makes the default scalar. simd128 and scalar give bit-identical results;
   *  relaxed-simd stays within the error bound docs/performance.md gives. Not together with simd. */
  kernels?: KernelBuild;
  /** The older spelling: true is kernels: 'simd128', false is 'scalar'. */
  simd?: boolean;
  /** true: with the GPT engine (transformerBlock, createGPT, loadGPT), fetched on demand and
   *  attached to the instance (the shared one too). Default false. */
  gpt?: boolean;
  /** true: with the trainable model's code (createModel), fetched on demand; it then serves
   *  every instance. Default false. */
  model?: boolean;
}

/** The three builds of the kernels (see docs/performance.md). */
export type KernelBuild = 'relaxed-simd' | 'simd128' | 'scalar';

/** Loads the WebAssembly modules once (shared per build); `{ fresh: true }` gives a private instance. */
export declare function load(options?: LoadOptions): Promise<QkvLab>;

/** Whether this engine runs WebAssembly SIMD128 (a tiny SIMD module validates). */
export declare function simdSupported(): boolean;
