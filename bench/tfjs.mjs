// tfjs.mjs: the benchmark's cases in TensorFlow.js with its WebAssembly backend (XNNPACK, SIMD,
// one thread), from bench/node_modules (bench/peers.mjs): nothing is fetched. attend, selfAttention and matmul start from
// JavaScript arrays and end with JavaScript arrays, as a qkv-lab call does: tensors are made from
// the inputs, computed, read back (dataSync) and disposed. residentAttention and residentMatmul
// are the way TF.js's users write it: tensors made once, only the output read back.
//
// tfjs-core's Node entry (dist/tf-core.node.js) registers no gradients, which the model step
// needs (tf.train.sgd().minimize). So loadTf() bundles tfjs-core's ES modules, its
// register_all_gradients and tfjs-backend-wasm with esbuild into one CommonJS file (one copy of
// TF.js, as a browser bundle would have) and loads the backend's .wasm files from node_modules.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PEERS_MODULES } from './peers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tf = null;

export async function loadTf() {
  const dir = path.join(ROOT, '.build', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, 'tf-entry.mjs'), bundle = path.join(dir, 'tf.cjs');
  fs.writeFileSync(entry, "export * from '@tensorflow/tfjs-core';\n" +
    "import '@tensorflow/tfjs-core/dist/register_all_gradients';\n" +
    "export { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';\n");
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'esbuild'), [entry, '--bundle', '--platform=node',
    '--format=cjs', '--main-fields=module,main', `--outfile=${bundle}`, '--log-level=error',
    `--resolve-extensions=.js,.mjs`], { cwd: ROOT, env: { ...process.env, NODE_PATH: PEERS_MODULES } });
  tf = createRequire(import.meta.url)(bundle);
  tf.setWasmPaths(path.join(PEERS_MODULES, '@tensorflow', 'tfjs-backend-wasm', 'dist') + path.sep);
  tf.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return { tf, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') };
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
