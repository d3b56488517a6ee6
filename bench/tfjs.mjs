// tfjs.mjs: the benchmark's cases in TensorFlow.js with its WebAssembly backend (XNNPACK, SIMD,
// one thread), from bench/node_modules (bench/peers.mjs): nothing is fetched. attend, selfAttention and matmul start from
// JavaScript arrays and end with JavaScript arrays, as a qkv-lab call does: tensors are made from
// the inputs, computed, read back (dataSync) and disposed. residentAttention and residentMatmul
// are the way TF.js's users write it: tensors made once, only the output read back.
// TF.js itself is loaded by tools/tfjs.mjs (shared with the test of bench/gpt.mjs's TF.js GPT).
import { loadTf as loadShared } from '../tools/tfjs.mjs';

let tf = null;

export async function loadTf() {
  const loaded = await loadShared();
  tf = loaded.tf;
  return loaded;
}

/** Attention from JS arrays, its fastest form: matMul(q, k, false, true) (no explicit transpose). */
export function attend(Q, K, V, n, d, s) {
  const [scores, weights, output] = tf.tidy(() => {
    const q = tf.tensor2d(Q, [n, d]), k = tf.tensor2d(K, [n, d]), v = tf.tensor2d(V, [n, d]);
    const sc = tf.matMul(q, k, false, true);
    const w = tf.softmax(tf.mul(sc, 1 / s));
    return [sc, w, tf.matMul(w, v)];
  });
  const out = { scores: scores.dataSync(), weights: weights.dataSync(), output: output.dataSync() };
  tf.dispose([scores, weights, output]);
  return out;
}

/**
 * The way TF.js users write it: the inputs uploaded once and kept as tensors (resident in the
 * backend's memory), each call computing the output alone and reading only that back; every
 * intermediate disposed by tidy. Returns the call.
 */
export function residentAttention(Q, K, V, n, d, s) {
  const q = tf.tensor2d(Q, [n, d]), k = tf.tensor2d(K, [n, d]), v = tf.tensor2d(V, [n, d]);
  return () => {
    const output = tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / s)), v));
    const data = output.dataSync();
    output.dispose();
    return data;
  };
}

/** A (n×k)·B (k×m) with A and B resident: each call multiplies and reads the product back. */
export function residentMatmul(A, B, n, k, m) {
  const a = tf.tensor2d(A, [n, k]), b = tf.tensor2d(B, [k, m]);
  return () => {
    const c = tf.matMul(a, b);
    const data = c.dataSync();
    c.dispose();
    return data;
  };
}

export function selfAttention(X, Wq, Wk, Wv, n, d, dk) {
  const results = tf.tidy(() => {
    const x = tf.tensor2d(X, [n, d]);
    const q = tf.matMul(x, tf.tensor2d(Wq, [d, dk]));
    const k = tf.matMul(x, tf.tensor2d(Wk, [d, dk]));
    const v = tf.matMul(x, tf.tensor2d(Wv, [d, dk]));
    const sc = tf.matMul(q, k, false, true);
    const w = tf.softmax(sc);
    return [q, k, v, sc, w, tf.matMul(w, v)];
  });
  const out = results.map((t) => t.dataSync());
  tf.dispose(results);
  return out;
}

export function matmul(A, B, n, k, m) {
  const c = tf.tidy(() => tf.matMul(tf.tensor2d(A, [n, k]), tf.tensor2d(B, [k, m])));
  const out = c.dataSync();
  c.dispose();
  return out;
}

/** wasm/model.c's model in TensorFlow.js, gradients by autodiff, plain SGD. */
export class TfModel {
  constructor({ V, d, L, lr, params, positions }) {
    this.d = d;
    this.v = {
      wte: tf.variable(tf.tensor2d(params.wte, [V, d])),
      Wq: tf.variable(tf.tensor2d(params.Wq, [d, d])),
      Wk: tf.variable(tf.tensor2d(params.Wk, [d, d])),
      Wv: tf.variable(tf.tensor2d(params.Wv, [d, d])),
      Wout: tf.variable(tf.tensor2d(params.Wout, [d, V])),
      bout: tf.variable(tf.tensor1d(params.bout)),
    };
    this.pos = tf.tensor2d(positions, [L, d]);
    // additive causal masks, one per length: 0 on and below the diagonal, -1e9 above
    this.masks = [];
    for (let n = 1; n <= L; n++) {
      const m = new Float32Array(n * n);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) m[i * n + j] = -1e9;
      this.masks[n] = tf.tensor2d(m, [n, n]);
    }
    this.optimizer = tf.train.sgd(lr);
  }

  step(batch) {
    const predicted = batch.reduce((s, x) => s + x.length + 1, 0);
    const { v, d } = this;
    const cost = this.optimizer.minimize(() => {
      let total = tf.scalar(0);
      for (const sentence of batch) {
        const inputs = tf.tensor1d([0, ...sentence], 'int32');
        const targets = tf.tensor1d([...sentence, 0], 'int32');
        const n = sentence.length + 1;
        // the lookup as one-hot × table: gather's gradient needs UnsortedSegmentSum, which the
        // wasm backend does not have
        const X = tf.add(tf.matMul(tf.oneHot(inputs, v.wte.shape[0]), v.wte), tf.slice(this.pos, [0, 0], [n, d]));
        const Q = tf.matMul(X, v.Wq), K = tf.matMul(X, v.Wk), Vv = tf.matMul(X, v.Wv);
        const scores = tf.add(tf.mul(tf.matMul(Q, K, false, true), 1 / Math.sqrt(d)), this.masks[n]);
        const h = tf.add(X, tf.matMul(tf.softmax(scores), Vv));
        const logits = tf.add(tf.matMul(h, v.Wout), v.bout);
        const picked = tf.sum(tf.mul(logits, tf.oneHot(targets, logits.shape[1])), 1);
        total = tf.add(total, tf.sum(tf.sub(tf.logSumExp(logits, 1), picked)));
      }
      return tf.div(total, predicted);
    }, true);
    const loss = cost.dataSync()[0];
    cost.dispose();
    return loss;
  }

  dispose() {
    tf.dispose([...Object.values(this.v), this.pos, ...this.masks.filter(Boolean)]);
    this.optimizer.dispose();
  }
}
