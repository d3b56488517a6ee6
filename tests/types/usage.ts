// usage.ts: compiled (never run) by `tsc --noEmit -p tests/types`: the declarations must accept
// what the README shows and reject misuse (the @ts-expect-error lines fail the build if the
// declarations ever stop catching them).
import { load, Matrix, type QkvLab, type SelfAttentionResult } from 'qkv-lab';

async function main(): Promise<void> {
  const qkv: QkvLab = await load();
  const rng = qkv.rng(42);
  const Wq: Matrix = rng.randn(4, 3).scale(0.3);
  const Wk = rng.randn(4, 3).scale(0.3);
  const Wv = rng.randn(4, 3).scale(0.3);
  const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
  const result: SelfAttentionResult = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  const firstRow: number[] = result.weights.toArray()[0];
  const { scores, weights, output } = qkv.attend(result.Q, result.K, result.V, { scale: 2.5, causal: true });
  const total: number = scores.get(0, 0) + weights.data[0] + output.rows;
  const product = qkv.matmul({ rows: 1, cols: 2, data: new Float32Array([1, 2]) }, [[3], [4]]);
  qkv.softmaxRows(qkv.transpose(product));
  const bytes: number = qkv.heapUsed();
  console.log(firstRow, total, bytes, Matrix.from([[1]]).toArray());

  // @ts-expect-error scale takes a boolean or a number
  qkv.attend(X, X, X, { scale: 'yes' });
  // @ts-expect-error unknown option
  qkv.attend(X, X, X, { scaled: true });
  // @ts-expect-error a seed is a number
  qkv.rng('42');
  // @ts-expect-error matrices are numbers
  qkv.matmul([['a']], [[1]]);
}

void main;
