// bench.mjs: timings for the README, medians of repeated runs measured side by side in one run.
//   node tools/bench.mjs
// 1. the default training schedule (what the page animates), from createModel to the last step;
// 2. selfAttention through the WASM API against the same computation in plain JavaScript
//    (float64 arrays, no copies), for the article's 3×4 example and a 64-token, d = 64 case.
import { load } from '../web/qkv-lab.js';

const qkv = await load();

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn, runs) {
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const schedule = time(() => {
  const model = qkv.createModel({ seed: 1 });
  model.train();
  model.dispose();
}, 9);
const model = qkv.createModel({ seed: 1 });
console.log(`default schedule (${model.defaultSteps} steps × ${model.batchSize} sentences, dim ${model.dim}, vocab ${model.vocab.length}): median ${schedule.toFixed(1)} ms of 9 runs`);
model.dispose();

function jsSelfAttention(X, Wq, Wk, Wv, n, d, dk) {
  const mm = (A, B, r, k, c) => {
    const out = new Float64Array(r * c);
    for (let i = 0; i < r; i++) for (let p = 0; p < k; p++) {
      const a = A[i * k + p];
      for (let j = 0; j < c; j++) out[i * c + j] += a * B[p * c + j];
    }
    return out;
  };
  const Q = mm(X, Wq, n, d, dk), K = mm(X, Wk, n, d, dk), V = mm(X, Wv, n, d, dk);
  const W = new Float64Array(n * n);
  const s = Math.sqrt(dk);
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      let dot = 0;
      for (let p = 0; p < dk; p++) dot += Q[i * dk + p] * K[j * dk + p];
      W[i * n + j] = dot / s;
      if (W[i * n + j] > max) max = W[i * n + j];
    }
    let sum = 0;
    for (let j = 0; j < n; j++) sum += (W[i * n + j] = Math.exp(W[i * n + j] - max));
    for (let j = 0; j < n; j++) W[i * n + j] /= sum;
  }
  return mm(W, V, n, n, dk);
}

for (const [n, d, dk, reps] of [[3, 4, 3, 2000], [64, 64, 64, 50]]) {
  const r = qkv.rng(42);
  const X = r.randn(n, d), Wq = r.randn(d, dk), Wk = r.randn(d, dk), Wv = r.randn(d, dk);
  const args = [X.data, Wq.data, Wk.data, Wv.data].map((a) => Float64Array.from(a));
  for (let i = 0; i < 20; i++) { qkv.selfAttention(X, Wq, Wk, Wv); jsSelfAttention(...args, n, d, dk); }
  const wasm = time(() => { for (let i = 0; i < reps; i++) qkv.selfAttention(X, Wq, Wk, Wv); }, 9) / reps;
  const js = time(() => { for (let i = 0; i < reps; i++) jsSelfAttention(...args, n, d, dk); }, 9) / reps;
  console.log(`selfAttention n=${n} d=${d} d_k=${dk}: WASM API ${(wasm * 1000).toFixed(1)} µs, plain JS ${(js * 1000).toFixed(1)} µs (WASM/JS time ratio ${(wasm / js).toFixed(2)}), medians of 9 runs`);
}
