// Type declarations for qkv-lab's JavaScript API (web/qkv-lab.js). Hand-written; checked by
// `tsc --noEmit -p tests/types` against tests/types/usage.ts in the test command.

/** A row-major float32 matrix: `data[i * cols + j]` is row i, column j. */
export declare class Matrix {
  constructor(rows: number, cols: number, data?: Float32Array | ArrayLike<number>);
  readonly rows: number;
  readonly cols: number;
  readonly data: Float32Array;
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

export interface SelfAttentionResult extends AttentionResult {
  Q: Matrix;
  K: Matrix;
  V: Matrix;
}

/** numpy's legacy generator: rng(s).randn(r, c) equals np.random.seed(s); np.random.randn(r, c). */
export interface Rng {
  readonly seed: number;
  /** The next rows×cols standard normal draws, continuing the stream. */
  randn(rows: number, cols: number): Matrix;
}

export declare class QkvLab {
  private constructor();
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
  attend(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: AttentionOptions): AttentionResult;
  selfAttention(X: MatrixInput, Wq: MatrixInput, Wk: MatrixInput, Wv: MatrixInput,
    options?: AttentionOptions): SelfAttentionResult;
}

/** Loads the WebAssembly module once (shared); `{ fresh: true }` gives a private instance. */
export declare function load(options?: { fresh?: boolean }): Promise<QkvLab>;
