// measure-work.mjs: what one unit of each kind of work costs, in multiply-adds of a matmul at the
// work limit, so that web/matrix.js's WORK_WEIGHTS can make every call's limit mean about the
// same blocking time (see checkWork there and the Limits of docs/api.md).
//
//   node tools/measure-work.mjs           # the weights, measured (medians of 5, the SIMD kernels)
//   node tools/measure-work.mjs --check   # every call at its limit under today's WORK_WEIGHTS,
//                                         # timed against matmul at the limit
//
// A measuring tool, like bench/: it prints times and asserts nothing. The tests check the rule
// (that these calls are refused or accepted), never a duration.
import { load } from '../web/qkv-lab.js';
import { MAX_WORK, WORK_WEIGHTS, workOf } from '../web/matrix.js';

const qkv = await load({ model: true });
const RUNS = 5;
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const once = (fn) => { const t0 = performance.now(); fn(); return performance.now() - t0; };

/** Median wall time of fn() in ms (one warm-up run first). */
function time(fn) {
  fn();
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(once(fn));
  return median(runs);
}

/**
 * fn's time over the reference's, each run right after the other (on a busy machine the load
 * changes from second to second; a ratio of neighbours is steadier): the median ratio.
 */
function ratio(fn, reference) {
  fn(); reference();
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(once(fn) / once(reference));
  return median(runs);
}

/** A rows×cols input of the kind a caller builds (a Float32Array of its own: scanned in JS). */
const plain = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i)) });

// the reference: a matmul near the limit (960³; 1024³ and its copies are over it)
const A = plain(960, 960), B = plain(960, 960);
console.log(`matmul 960³: ${time(() => qkv.matmul(A, B)).toFixed(1)} ms (the reference every time below is a ratio to, taken in turns)`);

const limit = () => qkv.matmul(A, B);  // 960³ multiply-adds: MAX_WORK × 0.82
const LIMIT_SHARE = 960 ** 3 / MAX_WORK;
/** fn's cost in multiply-adds of the limit's matmul, per unit of `count`. */
const perUnit = (fn, count) => (ratio(fn, limit) * 960 ** 3) / count;

if (!process.argv.includes('--check')) {
  const N = 2 ** 22;  // 16 MiB per matrix: large enough to time, within every limit
  const T = plain(2048, 2048);
  // a float out: an outer product (2048×1 by 1×2048) is one multiply-add and one float written and
  // copied out per entry; a float in: a matrix-vector product (2048×2048 by 2048×1) is one
  // multiply-add and one float checked and copied in per entry. The weight is the larger.
  const column = plain(2048, 1), row = plain(1, 2048);
  const out = perUnit(() => qkv.matmul(column, row), N) - 1;
  const into = perUnit(() => qkv.matmul(T, column), N) - 1;
  const elements = Math.max(out, into);
  console.log(`a float out ${out.toFixed(1)}, a float in ${into.toFixed(1)}, ` +
    `transpose ${(perUnit(() => qkv.transpose(T), 2 * N)).toFixed(1)} per float (in and out)`);
  const weights = {
    elements,
    exps: perUnit(() => qkv.softmaxRows(T), N) - 2 * elements,
    table: perUnit(() => qkv.positionalEncoding(2 ** 14, 64), N / 4) - elements,
    draws: perUnit(() => qkv.rng(3).randn(1024, 1024), N / 4) - elements,
  };
  // the optimizer's pass over every parameter: a step of a model whose parameters dominate
  // (dim 512 over 2,400 one-word sentences: 3.25e6 parameters, one 2-position sentence a step),
  // and creating it: per parameter, its normal draw and the seven floats the model keeps for it
  // (the parameter, its gradient, Adam's two moments, three of the update's scratch)
  const D = 512, corpus = Array.from({ length: 2400 }, (_, i) => [`w${i}`]);
  const V = corpus.length + 1, params = 2 * V * D + 3 * D ** 2 + V;
  for (const optimizer of ['sgd', 'adam']) {
    const model = qkv.createModel({ corpus, dim: D, optimizer, lr: 1e-4 });
    const forward = workOf({ multiplyAdds: 3 * 2 * (3 * D ** 2 + 2 * 2 * D + D * V), exps: 4 + 2 * V });
    weights[optimizer] = (perUnit(() => model.step(), 1) - forward) / params;
    model.dispose();
  }
  weights.parameters = perUnit(() => qkv.createModel({ corpus, dim: D, lr: 1e-4 }).dispose(), params);
  console.log('measured weights, in multiply-adds of the limit\'s matmul (compare WORK_WEIGHTS in web/matrix.js):');
  for (const [k, v] of Object.entries(weights)) console.log(`  ${k.padEnd(8)} ${v.toFixed(1)}   (WORK_WEIGHTS.${k} = ${WORK_WEIGHTS[k]})`);
} else {
  // each call about as large as the rule now allows, timed against matmul at the limit
  const corpus = Array.from({ length: 2499 }, (_, i) => [`w${i}`]);
  const cases = [
    ['matmul 985³', () => { const X = plain(985, 985); return () => qkv.matmul(X, X); }],
    ['transpose 3660×3660', () => { const X = plain(3660, 3660); return () => qkv.transpose(X); }],
    ['softmaxRows 2760×2760', () => { const X = plain(2760, 2760); return () => qkv.softmaxRows(X); }],
    ['positionalEncoding(2^20, 3)', () => () => qkv.positionalEncoding(2 ** 20, 3)],
    ['positionalEncoding(2^16, 58)', () => () => qkv.positionalEncoding(2 ** 16, 58)],
    ['randn(2030, 2030)', () => () => qkv.rng(1).randn(2030, 2030)],
    ['selfAttention n = 2740, d = 1', () => { const X = plain(2740, 1), W = plain(1, 1); return () => qkv.selfAttention(X, W, W, W); }],
    ['attend 1024 × 1024, d = 128', () => { const Q = plain(1024, 128); return () => qkv.attend(Q, Q, Q); }],
    ['createModel, 2,499 words × dim 512 (3.35e6 parameters)', () => () => qkv.createModel({ corpus, dim: 512, lr: 1e-4 }).dispose()],
    ['its step (sgd)', () => { const m = qkv.createModel({ corpus, dim: 512, lr: 1e-4 }); return () => m.step(); }],
    ['its step (adam)', () => { const m = qkv.createModel({ corpus, dim: 512, lr: 1e-4, optimizer: 'adam' }); return () => m.step(); }],
  ];
  for (const [label, make] of cases) {
    let fn;
    try {
      fn = make();
      fn();
    } catch (error) {
      console.log(`  ${label}: refused (${error.message})`);
      continue;
    }
    console.log(`  ${label}: ${(ratio(fn, limit) * LIMIT_SHARE).toFixed(2)} × matmul at the limit`);
  }
}
