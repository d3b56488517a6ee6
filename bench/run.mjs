// run.mjs: qkv-lab's benchmark (`npm run bench`): one Node process, one sitting, every case
// through every implementation side by side, medians, GFLOP/s and ratios; results in
// bench/results.json. A benchmark, not a test: nothing here passes or fails on a speed.
//
//   node bench/run.mjs [--smoke] [--rounds N] [--no-page] [--json FILE] [--gpt-json FILE] [--pretrained-json FILE]
//   node bench/run.mjs --sizes     only the sizes (the API as a consumer's bundle, the widget), printed
//
// The GPT's training and generation rows are bench/gpt.mjs's, run last in a process of its own,
// which writes bench/gpt-results.json (or --gpt-json FILE); then the pretrained poet's generation
// speed beside TF.js and its load time, bench/pretrained.mjs's: bench/pretrained-results.json.
//
// --smoke: tiny sizes and two rounds, written to a temporary file unless --json is given; the
// test command runs it (tests/bench-smoke.test.js) so that the benchmark cannot rot.
//
// Method. Each case runs its implementations in rounds, one timed batch per implementation per
// round, in turn (each round starting one implementation later), so that whatever else the
// machine is doing falls on all of them alike. A batch
// repeats the call until it lasts about 25 ms (calibrated once); the figure reported is the
// median over rounds of the process's CPU time per call (wall-clock medians are recorded too: on
// a busy machine they include waiting for a core). Every call starts and ends with JavaScript arrays
// (inputs copied in, results read back), except "SIMD kernel" and "relaxed kernel", which time
// qkv-lab's WebAssembly kernels on inputs already in its memory, and the native rows, which are C
// calls. Ceilings are measured in the same run: a WebAssembly SIMD128 multiply-then-add loop
// (SIMD128 has no fused multiply-add), the same with relaxed SIMD's fused multiply-add, and a
// native fused multiply-add loop (bench/ceiling.c, bench/native.c).
//
// Two methodologies, side by side in one run. "All results": every peer returns what attend
// returns (scores, weights and output, read back into JavaScript), inputs uploaded by every call.
// "Resident, output only": each peer written the way its own users write it: TF.js with its
// tensors made once and only the output read back (dataSync), ORT with a session whose graph
// returns the output and input tensors made once, qkv-lab with attend(..., { outputs: ['output'] })
// on Matrix-like inputs with Float32Array data (a caller's arrays, not results of the API).
//
// Node 20 runs relaxed SIMD only with --experimental-wasm-relaxed-simd: without it, this script
// runs itself again with the flag (and without the relaxed rows where Node refuses the flag).
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { load, simdSupported } from '../web/qkv-lab.js';
import * as plain from './plain.mjs';
import { ensurePeers } from './peers.mjs';
import { rerunWithRelaxedSimd } from './relaxed.mjs';
import { compileCeilings } from './ceilings.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = path.join(ROOT, '.build', 'bench');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const SMOKE = flag('smoke');
const ROUNDS = Number(option('rounds', SMOKE ? 2 : 11));
const BATCH_MS = SMOKE ? 1 : 25;
// an implementation whose single call takes longer than this runs in the first SLOW_ROUNDS only
const SLOW_MS = 1000, SLOW_ROUNDS = Math.min(3, ROUNDS);
const OUT = option('json', SMOKE ? path.join(os.tmpdir(), `qkv-bench-smoke-${process.pid}.json`) : path.join(ROOT, 'bench', 'results.json'));
const log = (...a) => console.log(...a);

// No forced garbage collections: right after one, V8 runs small calls two to five times slower
// for many batches (measured here). The garbage a case leaves is collected during whichever
// batches follow; the rotating order and the median over rounds spread and absorb that.

const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };

// ---- what runs ----

const IMPLS = [
  ['qkv-relaxed', 'qkv-lab relaxed'],
  ['qkv-simd', 'qkv-lab SIMD'],
  ['qkv-scalar', 'qkv-lab scalar'],
  ['relaxed-kernel', 'relaxed kernel'],
  ['simd-kernel', 'SIMD kernel'],
  ['native', 'native gcc -O3'],
  ['native-fast', 'native -ffast-math'],
  ['plain-js', 'plain JS'],
  ['tfjs', 'TF.js WASM'],
  ['onnx', 'ORT web'],
];
const ATTENTION_SIZES = SMOKE ? [[3, 4], [16, 8], [32, 8]] : [[3, 4], [64, 64], [256, 64], [1024, 64]];
const MATMUL = SMOKE ? 16 : 256;

const skipped = {};  // impl -> reason (for the whole run)
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts }).toString();

function buildTools() {
  fs.mkdirSync(BUILD, { recursive: true });
  const sources = fs.readdirSync(path.join(ROOT, 'wasm')).filter((f) => f.endsWith('.c') && f !== 'exports.c')
    .map((f) => path.join(ROOT, 'wasm', f));
  const native = {};
  for (const [name, extra] of [['native', []], ['native-fast', ['-ffast-math']]]) {
    const out = path.join(BUILD, name);
    try {
      sh('gcc', ['-std=c11', '-O3', '-march=native', ...extra, '-I', path.join(ROOT, 'wasm'),
        path.join(ROOT, 'bench', 'native.c'), ...sources, '-lm', '-o', out]);
      native[name] = out;
    } catch (error) {
      skipped[name] = `gcc failed: ${String(error.stderr || error.message).split('\n')[0]}`;
    }
  }
  const compiled = compileCeilings(BUILD);
  if (compiled.skipped.simd128) skipped.ceiling = compiled.skipped.simd128;
  if (compiled.skipped.relaxed) skipped.relaxedCeiling = compiled.skipped.relaxed;
  const ceiling = compiled.simd128, relaxedCeiling = compiled.relaxed;
  return { native, ceiling, relaxedCeiling };
}

/**
 * A runner: { impl, batch(n) -> { cpu, wall } } in ms per call over a batch of n calls. cpu is
 * the process's CPU time (user + system): on a shared machine it leaves out the time the process
 * waits for a core, which wall-clock time does not; both are recorded, cpu is reported.
 */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
function syncRunner(impl, fn) {
  return {
    impl,
    batch(n) {
      const c0 = cpuMs(), t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      return { cpu: (cpuMs() - c0) / n, wall: (performance.now() - t0) / n };
    },
  };
}
function asyncRunner(impl, fn) {
  return {
    impl,
    async batch(n) {
      const c0 = cpuMs(), t0 = performance.now();
      for (let i = 0; i < n; i++) await fn();
      return { cpu: (cpuMs() - c0) / n, wall: (performance.now() - t0) / n };
    },
  };
}
function nativeRunner(impl, binary, args) {
  return {
    impl,
    batch(n) {
      const r = spawnSync(binary, [...args(n), '1'], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${impl} ${args(n).join(' ')}: ${r.stderr || r.status}`);
      const out = JSON.parse(r.stdout);
      this.check = out.check;
      return { cpu: out.cpu[0], wall: out.ms[0] };
    },
  };
}

/** Interleaved rounds; returns impl -> { median, runs, wallMedian, wallRuns } (ms per call; median of CPU time). */
async function runCase(label, runners) {
  const inner = new Map(), slow = new Set();
  const times = new Map(runners.map((r) => [r.impl, []]));
  for (const r of runners) {  // warm up and calibrate
    let n = 1, t = (await r.batch(1)).wall;
    while (t * n < BATCH_MS && n < 1e6) { n = Math.min(1e6, Math.ceil((BATCH_MS / Math.max(t, 1e-4)) * 1.2)); t = (await r.batch(n)).wall; }
    inner.set(r.impl, n);
    if (t > SLOW_MS) slow.add(r.impl);  // one call of several seconds: warm already, and 3 rounds will do
  }
  for (const r of runners) if (!slow.has(r.impl)) await r.batch(inner.get(r.impl));  // one more untimed round
  for (let round = 0; round < ROUNDS; round++) {
    // each round starts one implementation later, so that no implementation always follows the
    // same one (and is always the one to collect its garbage)
    const order = runners.map((_, i) => runners[(i + round) % runners.length]);
    for (const r of order) {
      if (slow.has(r.impl) && round >= SLOW_ROUNDS) continue;
      times.get(r.impl).push(await r.batch(inner.get(r.impl)));
    }
  }
  for (const r of runners) r.dispose?.();   // what a runner allocated in WebAssembly memory
  const result = {};
  for (const r of runners) {
    const runs = times.get(r.impl);
    result[r.impl] = {
      median: median(runs.map((x) => x.cpu)), runs: runs.map((x) => +x.cpu.toPrecision(4)),
      wallMedian: median(runs.map((x) => x.wall)), wallRuns: runs.map((x) => +x.wall.toPrecision(4)),
      callsPerBatch: inner.get(r.impl),
    };
  }
  log(`  ${label}: ${runners.map((r) => `${r.impl} ${fmtTime(result[r.impl].median)}`).join(', ')}`);
  return result;
}

function fmtTime(ms) {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(0)} ms`;
}

// ---- the cases ----

async function main() {
  const started = new Date();
  const loadBefore = os.loadavg();
  log(`qkv-lab benchmark${SMOKE ? ' (smoke: tiny sizes, 2 rounds)' : ''}: ${os.cpus().length} cores (${os.cpus()[0].model}), ` +
    `Node ${process.versions.node}, load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')}`);
  const tools = buildTools();
  if (!simdSupported()) skipped['qkv-simd'] = skipped['simd-kernel'] = 'this engine has no WebAssembly SIMD128';
  const simd = skipped['qkv-simd'] ? null : await load({ kernels: 'simd128', fresh: true });
  const scalar = await load({ kernels: 'scalar', fresh: true, model: true });
  let relaxed = null;
  try {
    relaxed = await load({ kernels: 'relaxed-simd', fresh: true });
  } catch (error) {
    skipped['qkv-relaxed'] = skipped['relaxed-kernel'] = error.message;
  }
  let tf = null, ort = null;
  const peersMissing = ensurePeers(log);
  if (peersMissing) log(`  ${peersMissing}: the TF.js and onnxruntime-web rows are skipped`);
  try {
    tf = await import('./tfjs.mjs');
    const info = await tf.loadTf();
    log(`TensorFlow.js ${info.tf.version_core} backend ${info.backend}, SIMD ${info.simd}, 1 thread`);
  } catch (error) {
    skipped.tfjs = `could not load @tensorflow/tfjs-core + tfjs-backend-wasm: ${error.message}`;
    tf = null;
  }
  try {
    ort = await (await import('./onnx.mjs')).loadOrt();
    await ort.matmul(2, 2, 2);
    log(`onnxruntime-web ${ort.version || ''} (wasm execution provider, 1 thread)`);
  } catch (error) {
    skipped.onnx = `onnxruntime-web did not run: ${error.message}`;
    ort = null;
  }
  const native = (impl) => (!skipped[impl] && tools.native[impl]) || null;
  const cases = [];
  const checks = {};

  // ceilings
  log('ceilings');
  const ceilings = { wasm: null, wasmRelaxed: null, native: null };
  if (tools.ceiling) {
    const { instance } = await WebAssembly.instantiate(fs.readFileSync(tools.ceiling), {});
    const iters = SMOKE ? 1e4 : 2e6;
    const runners = [8, 12, 16].map((acc) => syncRunner(`mul-add-${acc}`, () => instance.exports[`mul_add_${acc}`](iters)));
    const r = await runCase('WebAssembly SIMD128 mul+add', runners);
    const best = Math.max(...[8, 12, 16].map((acc) => (acc * 4 * 2 * iters) / r[`mul-add-${acc}`].median / 1e6));
    ceilings.wasm = { gflops: best, byAccumulators: Object.fromEntries([8, 12, 16].map((acc) => [acc, +((acc * 4 * 2 * iters) / r[`mul-add-${acc}`].median / 1e6).toFixed(2)])) };
  }
  if (native('native')) {
    const runs = [];
    for (let i = 0; i < (SMOKE ? 1 : 5); i++) runs.push(JSON.parse(sh(tools.native.native, ['ceiling', '1'])));
    ceilings.native = {
      fma256: median(runs.map((x) => x.fma256)),
      fma512: runs[0].fma512 === null ? null : median(runs.map((x) => x.fma512)),
    };
  }
  if (tools.relaxedCeiling) {
    const { instance } = await WebAssembly.instantiate(fs.readFileSync(tools.relaxedCeiling), {});
    const iters = SMOKE ? 1e4 : 2e6;
    const runners = [8, 12, 16].map((acc) => syncRunner(`fma-${acc}`, () => instance.exports[`mul_add_${acc}`](iters)));
    const r = await runCase('WebAssembly relaxed SIMD fused multiply-add', runners);
    const byAcc = Object.fromEntries([8, 12, 16].map((acc) => [acc, (acc * 4 * 2 * iters) / r[`fma-${acc}`].median / 1e6]));
    ceilings.wasmRelaxed = { gflops: Math.max(...Object.values(byAcc)), byAccumulators: Object.fromEntries(Object.entries(byAcc).map(([k, v]) => [k, +v.toFixed(2)])) };
  }
  log(`  WebAssembly relaxed SIMD FMA ${ceilings.wasmRelaxed ? ceilings.wasmRelaxed.gflops.toFixed(1) : '—'} GFLOP/s; ` +
    `WebAssembly SIMD128 mul+add ${ceilings.wasm ? ceilings.wasm.gflops.toFixed(1) : '—'} GFLOP/s; ` +
    `native FMA ${ceilings.native ? `${ceilings.native.fma256} (256-bit), ${ceilings.native.fma512 ?? '—'} (512-bit)` : '—'} GFLOP/s`);

  // one attention case's inputs (seed 1) and a check that records a peer's largest difference
  // from the scalar build's output under checks[`${label} ${impl}`]
  const attentionInputs = (n, d, label) => {
    const g = scalar.rng(1);
    const Q = g.randn(n, d), K = g.randn(n, d), V = g.randn(n, d);
    const reference = scalar.attend(Q, K, V).output.data;
    const check = (impl, output) => {
      let diff = 0;
      for (let i = 0; i < reference.length; i++) diff = Math.max(diff, Math.abs(output[i] - reference[i]));
      checks[`${label} ${impl}`] = diff;
    };
    return { Q, K, V, s: Math.sqrt(d), check };
  };

  // attention at each size: attend(Q, K, V) with scale √d (n queries, n keys, widths d)
  log('cases');
  for (const [n, d] of ATTENTION_SIZES) {
    const { Q, K, V, s, check } = attentionInputs(n, d, `attention ${n}×${d}`);
    const runners = [];
    if (relaxed) {
      runners.push(syncRunner('qkv-relaxed', () => relaxed.attend(Q, K, V)));
      check('qkv-relaxed', relaxed.attend(Q, K, V).output.data);
      runners.push(kernelRunner(relaxed, n, d, 'relaxed-kernel'));
    }
    if (simd) {
      runners.push(syncRunner('qkv-simd', () => simd.attend(Q, K, V)));
      check('qkv-simd', simd.attend(Q, K, V).output.data);
      runners.push(kernelRunner(simd, n, d));
    }
    runners.push(syncRunner('qkv-scalar', () => scalar.attend(Q, K, V)));
    for (const impl of ['native', 'native-fast']) {
      if (native(impl)) runners.push(nativeRunner(impl, native(impl), (m) => ['attention', n, d, m]));
    }
    runners.push(syncRunner('plain-js', () => plain.attend(Q.data, K.data, V.data, n, d, s)));
    check('plain-js', plain.attend(Q.data, K.data, V.data, n, d, s).output);
    if (tf) {
      runners.push(syncRunner('tfjs', () => tf.attend(Q.data, K.data, V.data, n, d, s)));
      check('tfjs', tf.attend(Q.data, K.data, V.data, n, d, s).output);
    }
    if (ort) {
      const run = await ort.attention(n, d, s);
      runners.push(asyncRunner('onnx', () => run(Q.data, K.data, V.data)));
      check('onnx', (await run(Q.data, K.data, V.data)).output);
    }
    cases.push({ id: `attention-${n}x${d}`, label: `attention ${n}×${d}`, flops: 4 * n * n * d, results: await runCase(`attention ${n}×${d}`, runners) });
  }

  // the same attention, resident and output only: each peer as its users write it
  log('cases, resident inputs, output only');
  for (const [n, d] of ATTENTION_SIZES) {
    const { Q, K, V, s, check } = attentionInputs(n, d, `resident attention ${n}×${d}`);
    // a caller's own Float32Arrays: Matrix-like objects, not Matrices the API returned
    const own = (m) => ({ rows: m.rows, cols: m.cols, data: m.data.slice() });
    const [q, k, v] = [own(Q), own(K), own(V)];
    const runners = [];
    for (const [impl, lab] of [['qkv-relaxed', relaxed], ['qkv-simd', simd]]) {
      if (!lab) continue;
      const options = { outputs: ['output'] };
      runners.push(syncRunner(impl, () => lab.attend(q, k, v, options)));
      check(impl, lab.attend(q, k, v, options).output.data);
    }
    if (relaxed) runners.push(kernelRunner(relaxed, n, d, 'relaxed-kernel', 0));
    if (simd) runners.push(kernelRunner(simd, n, d, 'simd-kernel', 0));
    if (tf) {
      const run = tf.residentAttention(Q.data, K.data, V.data, n, d, s);
      runners.push(syncRunner('tfjs', run));
      check('tfjs', run());
    }
    if (ort) {
      const run = await ort.residentAttention(Q.data, K.data, V.data, n, d, s);
      runners.push(asyncRunner('onnx', run));
      check('onnx', await run());
    }
    cases.push({ id: `resident-attention-${n}x${d}`, methodology: 'resident', label: `attention ${n}×${d}`, flops: 4 * n * n * d,
      results: await runCase(`resident attention ${n}×${d}`, runners) });
  }

  // the article's example through selfAttention (X 3×4, W 4×3, no scaling)
  {
    const g = scalar.rng(42);
    const W = [0, 1, 2].map(() => g.randn(4, 3).scale(0.3));
    const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
    const Xm = Float32Array.from(X.flat());
    const runners = [];
    if (relaxed) runners.push(syncRunner('qkv-relaxed', () => relaxed.selfAttention(X, W[0], W[1], W[2], { scale: false })));
    if (simd) runners.push(syncRunner('qkv-simd', () => simd.selfAttention(X, W[0], W[1], W[2], { scale: false })));
    runners.push(syncRunner('qkv-scalar', () => scalar.selfAttention(X, W[0], W[1], W[2], { scale: false })));
    for (const impl of ['native', 'native-fast']) {
      if (native(impl)) runners.push(nativeRunner(impl, native(impl), (m) => ['self3x4', m]));
    }
    runners.push(syncRunner('plain-js', () => plain.selfAttention(X.flat(), W[0].data, W[1].data, W[2].data, 3, 4, 3)));
    if (tf) runners.push(syncRunner('tfjs', () => tf.selfAttention(Xm, W[0].data, W[1].data, W[2].data, 3, 4, 3)));
    if (ort) {
      const run = await ort.selfAttention(3, 4, 3);
      runners.push(asyncRunner('onnx', () => run(Xm, W[0].data, W[1].data, W[2].data)));
    }
    cases.push({ id: 'article-3x4', label: "article's selfAttention 3×4", flops: 3 * 2 * 3 * 4 * 3 + 4 * 3 * 3 * 3, results: await runCase('selfAttention 3×4', runners) });
  }

  // a square matmul
  {
    const n = MATMUL;
    const g = scalar.rng(1);
    const A = g.randn(n, n), B = g.randn(n, n);
    const runners = [];
    if (relaxed) {
      runners.push(syncRunner('qkv-relaxed', () => relaxed.matmul(A, B)));
      runners.push(kernelMatmulRunner(relaxed, n, 'relaxed-kernel'));
    }
    if (simd) {
      runners.push(syncRunner('qkv-simd', () => simd.matmul(A, B)));
      runners.push(kernelMatmulRunner(simd, n));
    }
    runners.push(syncRunner('qkv-scalar', () => scalar.matmul(A, B)));
    for (const impl of ['native', 'native-fast']) {
      if (native(impl)) runners.push(nativeRunner(impl, native(impl), (m) => ['matmul', n, n, n, m]));
    }
    runners.push(syncRunner('plain-js', () => plain.matmul(A.data, B.data, n, n, n)));
    if (tf) runners.push(syncRunner('tfjs', () => tf.matmul(A.data, B.data, n, n, n)));
    if (ort) {
      const run = await ort.matmul(n, n, n);
      runners.push(asyncRunner('onnx', () => run(A.data, B.data)));
    }
    cases.push({ id: `matmul-${n}`, label: `matmul ${n}³`, flops: 2 * n ** 3, results: await runCase(`matmul ${n}³`, runners) });

    // resident: TF.js and ORT keep A and B as tensors; qkv-lab takes the caller's Float32Arrays
    const own = (m) => ({ rows: m.rows, cols: m.cols, data: m.data.slice() });
    const [a, b] = [own(A), own(B)];
    const resident = [];
    if (relaxed) resident.push(syncRunner('qkv-relaxed', () => relaxed.matmul(a, b)));
    if (simd) resident.push(syncRunner('qkv-simd', () => simd.matmul(a, b)));
    if (tf) resident.push(syncRunner('tfjs', tf.residentMatmul(A.data, B.data, n, n, n)));
    if (ort) resident.push(asyncRunner('onnx', await ort.residentMatmul(A.data, B.data, n, n, n)));
    cases.push({ id: `resident-matmul-${n}`, methodology: 'resident', label: `matmul ${n}³`, flops: 2 * n ** 3, results: await runCase(`resident matmul ${n}³`, resident) });
  }

  // training: the default model (seed 1) on the batches its own schedule draws
  {
    const lab = simd || scalar;
    const recorder = lab.createModel({ seed: 1 });
    const ids = new Map(recorder.vocab.map((w, i) => [w, i]));
    const batches = [];
    // the default schedule: createModel()'s steps (smoke: 6)
    const SCHEDULE_STEPS = SMOKE ? 6 : recorder.defaultSteps;
    for (let i = 0; i < SCHEDULE_STEPS; i++) batches.push(recorder.step().batch.map((s) => s.map((w) => ids.get(w))));
    recorder.dispose();
    const fresh = lab.createModel({ seed: 1 });
    const spec = {
      V: fresh.vocab.length, d: fresh.dim, L: fresh.maxTokens + 1, lr: fresh.lr,
      params: { wte: fresh.getParameter('embedding').data, Wq: fresh.getParameter('Wq').data, Wk: fresh.getParameter('Wk').data,
        Wv: fresh.getParameter('Wv').data, Wout: fresh.getParameter('Wout').data, bout: fresh.getParameter('bout').data },
      positions: fresh._copy(2, 0).data,  // the model's fixed position table
    };
    const firstLoss = fresh.step().loss;
    fresh.dispose();
    const file = path.join(BUILD, 'batches.txt');
    fs.writeFileSync(file, `${spec.V} ${spec.d} ${spec.L} 1 0 ${spec.lr} ${batches.length}\n` +
      batches.map((b) => `${b.length} ${b.map((s) => `${s.length} ${s.join(' ')}`).join(' ')}`).join('\n') + '\n');
    checks['first step loss qkv-lab'] = firstLoss;
    checks['first step loss plain-js'] = new plain.PlainModel(spec).step(batches[0]);
    if (tf) {
      const m = new tf.TfModel(spec);
      checks['first step loss tfjs'] = m.step(batches[0]);
      m.dispose();
    }
    const stepRunners = [];
    const modelStep = (labFor) => {
      let model = null, k = 0;
      return () => {
        if (!model || k >= 4 * SCHEDULE_STEPS) { if (model) model.dispose(); model = labFor.createModel({ seed: 1 }); k = 0; }
        k++;
        model.step();
      };
    };
    if (relaxed) stepRunners.push(syncRunner('qkv-relaxed', modelStep(relaxed)));
    if (simd) stepRunners.push(syncRunner('qkv-simd', modelStep(simd)));
    stepRunners.push(syncRunner('qkv-scalar', modelStep(scalar)));
    for (const impl of ['native', 'native-fast']) {
      if (native(impl)) stepRunners.push(nativeRunner(impl, native(impl), (m) => ['model', file, String(Math.max(m, SCHEDULE_STEPS))]));
    }
    {
      let m = new plain.PlainModel(spec), k = 0;
      stepRunners.push(syncRunner('plain-js', () => { if (k >= 4 * SCHEDULE_STEPS) { m = new plain.PlainModel(spec); k = 0; } m.step(batches[k++ % batches.length]); }));
    }
    if (tf) {
      let m = new tf.TfModel(spec), k = 0;
      stepRunners.push(syncRunner('tfjs', () => { if (k >= 4 * SCHEDULE_STEPS) { m.dispose(); m = new tf.TfModel(spec); k = 0; } m.step(batches[k++ % batches.length]); }));
    }
    cases.push({ id: 'step', label: 'training step', flops: null, results: await runCase('training step', stepRunners) });

    const scheduleRunners = [];
    const schedule = (labFor) => () => { const m = labFor.createModel({ seed: 1, steps: SCHEDULE_STEPS }); m.train(); m.dispose(); };
    if (relaxed) scheduleRunners.push(syncRunner('qkv-relaxed', schedule(relaxed)));
    if (simd) scheduleRunners.push(syncRunner('qkv-simd', schedule(simd)));
    scheduleRunners.push(syncRunner('qkv-scalar', schedule(scalar)));
    for (const impl of ['native', 'native-fast']) {
      if (native(impl)) {
        const r = nativeRunner(impl, native(impl), () => ['model', file, String(SCHEDULE_STEPS)]);
        scheduleRunners.push({ impl, batch: () => { const t = r.batch(); return { cpu: t.cpu * SCHEDULE_STEPS, wall: t.wall * SCHEDULE_STEPS }; } });
      }
    }
    scheduleRunners.push(syncRunner('plain-js', () => { const m = new plain.PlainModel(spec); for (const b of batches) m.step(b); }));
    if (tf) scheduleRunners.push(syncRunner('tfjs', () => { const m = new tf.TfModel(spec); for (const b of batches) m.step(b); m.dispose(); }));
    cases.push({ id: 'schedule', label: `default schedule (${SCHEDULE_STEPS} steps)`, flops: null, results: await runCase('default schedule', scheduleRunners) });
  }
  if (ort) skipped.onnxTraining = 'onnxruntime-web runs inference only (training needs onnxruntime-training artifacts): no training rows';

  // the page, in headless Chromium
  let page = null;
  if (!flag('no-page')) {
    log('the page (headless Chromium)');
    try {
      const { benchPage } = await import('./page.mjs');
      page = await benchPage({ runs: SMOKE ? 1 : 5, seconds: SMOKE ? 1 : 4, smoke: SMOKE, log: (line) => log(`  ${line}`),
        // smoke: the writer on a tiny GPT (the tests' tiny shape), for a second
        writer: SMOKE ? { seconds: 1, settings: { glayers: 1, gdim: 16, gheads: 2, gctx: 8 } } : {} });
    } catch (error) {
      skipped.page = `the page benchmark did not run: ${error.message.split('\n')[0]}`;
    }
  }

  const sizes = await measureSizes();
  const result = {
    date: started.toISOString(), smoke: SMOKE, rounds: ROUNDS, batchMs: BATCH_MS,
    machine: { cores: os.cpus().length, cpu: os.cpus()[0].model, node: process.versions.node, platform: `${os.platform()} ${os.release()}`,
      loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg() },
    implementations: Object.fromEntries(IMPLS), skipped, ceilings, cases, checks, page, sizes,
  };
  result.targets = targets(result);
  fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n');
  printTables(result);
  log(`\nwritten: ${path.relative(process.cwd(), OUT) || OUT}`);
}

/**
 * qkv-lab's kernel alone: inputs already in WASM memory, no copies, no JavaScript checks. keep
 * (undefined: every result, n×n scores and weights) as qkv_attention_forward_keep takes it: 0
 * keeps the output alone, the scores and weights then 4 rows of work space.
 */
function kernelRunner(lab, n, d, impl = 'simd-kernel', keep) {
  // the buffers come from the instance's Heap, which owns its memory; runCase frees them (dispose)
  const heap = lab._heap, k = heap.kernels, buffers = heap.allocations('bench kernel');
  const [Q, K, V, S, W, O] = [n * d, n * d, n * d, n * n, n * n, n * d].map((floats) => buffers.floats(floats));
  const qkv = lab.rng(1).randn(3 * n, d).data;
  for (const [j, ptr] of [Q, K, V].entries()) heap.writeFloats(ptr, qkv.subarray(j * n * d, (j + 1) * n * d));
  const run = keep !== undefined ? () => k.qkv_attention_forward_keep(S, W, O, Q, K, V, n, n, d, d, Math.sqrt(d), 0, keep)
    : () => k.qkv_attention_forward(S, W, O, Q, K, V, n, n, d, d, Math.sqrt(d), 0);
  return { ...syncRunner(impl, run), dispose: () => buffers.freeAll() };
}

function kernelMatmulRunner(lab, n, impl = 'simd-kernel') {
  const heap = lab._heap, k = heap.kernels, buffers = heap.allocations('bench kernel');
  const [A, B, C] = [n * n, n * n, n * n].map((floats) => buffers.floats(floats));
  const ab = lab.rng(1).randn(2 * n, n).data;
  heap.writeFloats(A, ab.subarray(0, n * n));
  heap.writeFloats(B, ab.subarray(n * n));
  return { ...syncRunner(impl, () => k.qkv_matmul(C, A, B, n, n, n)), dispose: () => buffers.freeAll() };
}

/**
 * gzip -9 sizes of what a browser loads for the API, and of the widget. The API as an app's
 * bundler ships it (esbuild --bundle --minify, code splitting on, as Vite, webpack and Rollup
 * split a dynamic import): apiBundleMinified is what loads at first (the API, the glue, the core
 * and the SIMD128 kernels); apiKernelChunks the relaxed-SIMD and scalar kernels' chunks, which
 * load() imports only where it runs them; apiOnDemandChunks the chunks only some calls import:
 * the trainable model (load({ model: true })), the GPT engine (load({ gpt: true })) and the
 * pretrained poet (loadPretrained()).
 */
async function measureSizes() {
  const gz = (buf) => gzipSync(buf, { level: 9 }).length;
  const dist = path.join(ROOT, 'web', 'dist');
  const out = {};
  try {
    const { build } = await import('esbuild');
    const r = await build({ entryPoints: [path.join(ROOT, 'web', 'qkv-lab.js')], bundle: true, minify: true, format: 'esm',
      splitting: true, outdir: path.join(BUILD, 'api-bundle'), write: false, metafile: true, define: { 'import.meta.url': '""' }, logLevel: 'error' });
    const outputs = r.metafile.outputs;
    const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint);
    const initial = new Set([entry]);
    for (const o of initial) for (const i of outputs[o].imports) if (i.kind === 'import-statement') initial.add(i.path);
    const files = new Map(r.outputFiles.map((f) => [path.relative(process.cwd(), f.path), f.contents]));
    const sum = (names, key) => names.reduce((t, n) => t + (key === 'gzip' ? gz(Buffer.from(files.get(n))) : files.get(n).length), 0);
    out.apiBundleMinified = { bytes: sum([...initial], 'bytes'), gzip: sum([...initial], 'gzip') };
    // the chunks of dist/qkv-relaxed.js and dist/qkv-scalar.js, by the module each holds; the
    // others by what imports them
    out.apiKernelChunks = {};
    out.apiOnDemandChunks = {};
    for (const o of Object.keys(outputs).filter((x) => !initial.has(x))) {
      const inputs = Object.keys(outputs[o].inputs), holds = (re) => inputs.some((i) => re.test(i));
      const kernels = inputs.map((i) => /qkv-(relaxed|scalar)\.js$/.exec(i)).find(Boolean);
      const size = { bytes: sum([o], 'bytes'), gzip: sum([o], 'gzip') };
      if (kernels) { out.apiKernelChunks[kernels[1]] = size; continue; }
      const what = holds(/web\/model\.js$/) ? 'model' : holds(/qkv-pretrained\.js$/) ? 'pretrained' : holds(/qkv-gpt\.js$|web\/(gpt|finetune)\.js$/) ? 'gpt' : path.basename(o);
      const had = out.apiOnDemandChunks[what] || { bytes: 0, gzip: 0 };
      out.apiOnDemandChunks[what] = { bytes: had.bytes + size.bytes, gzip: had.gzip + size.gzip };
    }
  } catch (error) {
    out.apiBundleMinified = { error: error.message.split('\n')[0] };
  }
  // the modules web/qkv-lab.js imports statically, unbundled
  const files = ['qkv-lab.js', 'matrix.js', 'heap.js', 'loader.js', 'inflate.js', 'engine-sources.js', 'dist/qkv-core.js', 'dist/qkv-wasm.js']
    .map((f) => path.join(ROOT, 'web', f));
  if (files.every((f) => fs.existsSync(f))) out.apiFilesConcatenated = { gzip: gz(Buffer.concat(files.map((f) => fs.readFileSync(f)))) };
  const wasm = path.join(ROOT, '.build');
  for (const name of ['qkv-core.wasm', 'qkv-kernels-simd.wasm', 'qkv-kernels-scalar.wasm', 'qkv-kernels-relaxed.wasm']) {
    const f = path.join(wasm, name);
    if (fs.existsSync(f)) out[name] = { bytes: fs.statSync(f).size, gzip: gz(fs.readFileSync(f)) };
  }
  for (const [key, file] of [['widget', 'qkv-lab-widget.js'], ['widgetTraining', 'qkv-lab-widget-training.js']]) {
    const f = path.join(dist, file);
    if (fs.existsSync(f)) out[key] = { bytes: fs.statSync(f).size, gzip: gz(fs.readFileSync(f)) };
  }
  return out;
}

const API_BUNDLE_TARGET = 'API + glue + WASM ≤ 30 KiB gzipped (a minified consumer bundle)';

/** What the API bundle's target reports (measureSizes' figures). */
function apiBundleText(sizes) {
  const kib = (c) => `${(c.gzip / 1024).toFixed(1)} KiB`;
  const list = (chunks) => Object.entries(chunks || {}).map(([name, c]) => `${name} ${kib(c)}`).join(', ') || '—';
  return `${kib(sizes.apiBundleMinified)} (${sizes.apiBundleMinified.gzip} bytes) loaded at first (esbuild --bundle --minify --splitting of web/qkv-lab.js: ` +
    `the API, the glue, the core and the SIMD128 kernels), gzip -9; the other kernel builds' chunks, each loaded only where it runs: ${list(sizes.apiKernelChunks)}; ` +
    `on demand: ${list(sizes.apiOnDemandChunks)}`;
}

function gflops(c, impl) {
  const r = c.results[impl];
  return c.flops && r ? c.flops / r.median / 1e6 : null;
}

/** The fastest qkv-lab build that ran a case: relaxed SIMD where it ran, else SIMD128. */
const fastest = (c) => (c.results['qkv-relaxed'] ? 'qkv-relaxed' : 'qkv-simd');
const kernelOf = (impl) => (impl === 'qkv-relaxed' ? 'relaxed-kernel' : 'simd-kernel');

/** The targets (docs/performance.md, "The targets"), each with the measured ratio; met or missed, never tuned to. */
function targets(r) {
  const find = (id) => r.cases.find((c) => c.id === id);
  const t = [];
  const add = (target, value, met, note = '') => t.push({ target, value, met, note });
  const notMeasured = (target) => add(target, 'not measured in this run', null);
  const fma = r.ceilings.wasmRelaxed && r.ceilings.wasmRelaxed.gflops, mulAdd = r.ceilings.wasm && r.ceilings.wasm.gflops;
  add('both ceilings measured in the same run (SIMD128 mul+add, relaxed-SIMD FMA)',
    `SIMD128 mul+add ${mulAdd ? mulAdd.toFixed(1) : '—'} GFLOP/s, relaxed FMA ${fma ? fma.toFixed(1) : '—'} GFLOP/s`, Boolean(fma && mulAdd));
  const ratioTo = (c, peer) => (c.results[peer] && c.results[fastest(c)] ? c.results[peer].median / c.results[fastest(c)].median : null);
  const resident = r.cases.filter((c) => c.methodology === 'resident' && c.id.includes('attention'));
  const allResults = r.cases.filter((c) => !c.methodology && c.id.startsWith('attention'));
  for (const [label, list] of [['resident inputs, output only', resident], ['all results', allResults]]) {
    if (!list.length || !list.every((c) => c.results.tfjs)) { notMeasured(`${label}: ahead of TF.js and ORT at every attention size`); continue; }
    const parts = [], ok = [];
    for (const c of list) {
      const tfr = ratioTo(c, 'tfjs'), ortr = ratioTo(c, 'onnx');
      parts.push(`${c.label}: TF.js ${tfr.toFixed(2)}×, ORT ${ortr === null ? '—' : ortr.toFixed(2) + '×'}`);
      ok.push(tfr > 1 && (ortr === null || ortr > 1));
    }
    add(`${label}: ahead of TF.js and ORT at every attention size (peer's time ÷ qkv-lab's)`, parts.join('; '), ok.every(Boolean));
  }
  for (const id of ['resident-attention-256x64', 'resident-attention-1024x64']) {
    const c = find(id);
    if (!c || !c.results.tfjs) { notMeasured(`${id}: ≥ 1.5× TF.js`); continue; }
    add(`resident ${c.label}: ≥ 1.5× TF.js`, `${ratioTo(c, 'tfjs').toFixed(2)}×`, ratioTo(c, 'tfjs') >= 1.5);
  }
  const rm = r.cases.find((c) => c.id.startsWith('resident-matmul'));
  if (rm && rm.results.tfjs) add(`resident ${rm.label}: ≥ 2× TF.js`, `${ratioTo(rm, 'tfjs').toFixed(2)}×`, ratioTo(rm, 'tfjs') >= 2);
  else notMeasured('resident matmul 256³: ≥ 2× TF.js');
  const r256 = find('resident-attention-256x64'), a256 = find('attention-256x64');
  if (r256 && fma && r256.results['qkv-relaxed']) {
    const api = gflops(r256, 'qkv-relaxed') / fma, kernel = gflops(r256, 'relaxed-kernel') / fma;
    const all = a256 && a256.results['qkv-relaxed'] ? gflops(a256, 'qkv-relaxed') / fma : null;
    add('attention 256×64 through the API ≥ 60% of the FMA ceiling, the kernel alone ≥ 75%',
      `output only: ${(100 * api).toFixed(0)}% through the API, ${(100 * kernel).toFixed(0)}% the kernel alone; all results: ` +
      `${all === null ? '—' : (100 * all).toFixed(0) + '%'} through the API, ${a256 && a256.results['relaxed-kernel'] ? (100 * gflops(a256, 'relaxed-kernel') / fma).toFixed(0) + '%' : '—'} the kernel alone`,
      api >= 0.6 && kernel >= 0.75);
  } else {
    notMeasured('attention 256×64 through the API ≥ 60% of the FMA ceiling, the kernel alone ≥ 75%');
  }
  if (a256 && a256.results['plain-js']) {
    const ratio = a256.results['plain-js'].median / a256.results[fastest(a256)].median;
    add('≥ 25× plain JavaScript at 256×64 (all results)', `${ratio.toFixed(1)}×`, ratio >= 25);
  } else {
    notMeasured('≥ 25× plain JavaScript at 256×64');
  }
  const r3 = find('resident-attention-3x4'), art = find('article-3x4');
  if (r3 && r3.results[fastest(r3)]) {
    const us = r3.results[fastest(r3)].median * 1000;
    const all3 = find('attention-3x4');
    add('the 3×4 attend call with Float32Array inputs under 1.5 µs',
      `attend 3×4, outputs ['output']: ${us.toFixed(2)} µs; all results from Matrices: ${all3 ? (all3.results[fastest(all3)].median * 1000).toFixed(2) : '—'} µs; ` +
      `the article's selfAttention 3×4 (nested arrays, six results): ${art ? (art.results[fastest(art)].median * 1000).toFixed(2) : '—'} µs`, us < 1.5);
  } else {
    notMeasured('the 3×4 attend call with Float32Array inputs under 1.5 µs');
  }
  const nativeCases = r.cases.filter((c) => !c.methodology && c.results['qkv-simd'] && c.results.native && !c.id.includes('3x4'));
  if (nativeCases.length) {
    const worst = Math.max(...nativeCases.map((c) => c.results[fastest(c)].median / c.results.native.median));
    add('the WASM build within 1.3× of the same C natively (gcc -O3 -march=native)', nativeCases.map((c) =>
      `${c.label}: ${(c.results[fastest(c)].median / c.results.native.median).toFixed(2)}× native, ` +
      `${(c.results[fastest(c)].median / c.results['native-fast'].median).toFixed(2)}× -ffast-math`).join('; '), worst <= 1.3);
  }
  if (r.sizes.apiBundleMinified && r.sizes.apiBundleMinified.gzip) {
    add(API_BUNDLE_TARGET, apiBundleText(r.sizes), r.sizes.apiBundleMinified.gzip / 1024 <= 30);
  }
  if (r.sizes.widget) {
    const kib = r.sizes.widget.gzip / 1024, addon = r.sizes.widgetTraining ? r.sizes.widgetTraining.gzip / 1024 : 0;
    add('the widget ≤ 120 KiB gzipped', `${kib.toFixed(1)} KiB the script every post loads` +
      (addon ? `, ${addon.toFixed(1)} KiB the training add-on with Chart.js (${(kib + addon).toFixed(1)} KiB both)` : ''), kib <= 120);
  }
  if (r.page && r.page.timeToNumbers) {
    const { served, file } = r.page.timeToNumbers;
    add('the page\'s time to first numbers ≤ 250 ms, served and from file://', `served ${served.median} ms, file:// ${file.median} ms (medians)`,
      served.median <= 250 && file.median <= 250);
  } else {
    notMeasured('the page\'s time to first numbers ≤ 250 ms');
  }
  if (r.page && r.page.frames) {
    const f = r.page.frames.find((x) => x.speed === 100);
    if (f) add('the page at 60 fps while training at 100 steps/s', `median frame ${f.p50} ms (${f.fps} fps), p95 ${f.p95} ms, ${f.steps} steps in ${f.seconds} s`, f.p50 !== null && f.p50 <= 1000 / 60 * 1.05);
  } else {
    notMeasured('the page at 60 fps while training at 100 steps/s');
  }
  const w = r.page && r.page.writerFrames;
  if (w) {
    add('the page at 60 fps while the writer trains the GPT in its Web Worker',
      `median frame ${w.p50} ms (${w.fps} fps), p95 ${w.p95} ms, ${w.longTasks} long tasks (longest ${w.longestTask} ms); ` +
      `the worker took ${w.steps} steps in ${w.seconds} s (${w.charsPerSecond} characters/s)${Object.keys(w.settings).length ? ` on ${JSON.stringify(w.settings)}` : ''}`,
      w.p50 !== null && w.p50 <= 1000 / 60 * 1.05 && w.steps > 0);
  } else {
    notMeasured('the page at 60 fps while the writer trains the GPT in its Web Worker');
  }
  const wc = r.page && r.page.writerFramesStrictCsp;
  if (wc) {
    add('no long task over 100 ms while the writer trains on the page\'s own thread under a strict CSP',
      `${wc.longTasks} long tasks in ${wc.seconds} s, longest ${wc.longestTask} ms; median frame ${wc.p50} ms; ${wc.steps} steps on the ${wc.thread || '?'}'s thread` +
      `${Object.keys(wc.settings).length ? ` on ${JSON.stringify(wc.settings)}` : ''}`,
      wc.longestTask <= 100 && wc.steps > 0 && wc.thread === 'page');
  } else {
    notMeasured('no long task over 100 ms while the writer trains on the page\'s own thread under a strict CSP');
  }
  const ft = r.page && r.page.finetuneFrames;
  if (ft) {
    add('no long task over 100 ms on the page while fine-tuning runs in the worker',
      `${ft.longTasks} long tasks in ${ft.seconds} s, longest ${ft.longestTask} ms (paused beforehand: ${ft.idle.longTasks}, longest ${ft.idle.longestTask} ms); ` +
      `median frame ${ft.p50} ms; ${ft.steps} steps in the ${ft.thread || '?'}`,
      ft.longestTask <= 100 && ft.steps > 0 && ft.thread === 'worker');
  } else {
    notMeasured('no long task over 100 ms on the page while fine-tuning runs in the worker');
  }
  const inputs = r.page && r.page.inputs;
  if (inputs && inputs.length) {
    const worst = inputs.reduce((a, c) => (c.longestTask > a.longestTask ? c : a));
    add('no task over 100 ms while the training section takes in the largest corpus it accepts (and refuses larger ones)',
      `longest ${worst.longestTask} ms (${worst.name}); ${inputs.map((c) => `${c.name} ${c.longTasks ? `${c.longestTask} ms` : 'none'}`).join(', ')}`,
      inputs.every((c) => c.longestTask <= 100));
  } else {
    notMeasured('no task over 100 ms while the training section takes in the largest corpus it accepts');
  }
  return t;
}

function printTables(r) {
  const pad = (s, n) => String(s).padEnd(n);
  const w0 = 30, w = 15;
  log(`\nmedian CPU time per call (GFLOP/s), ${r.rounds} rounds, load average ${r.machine.loadAverageBefore[0].toFixed(2)} → ${r.machine.loadAverageAfter[0].toFixed(2)}`);
  for (const [title, list] of [
    ['all results (scores, weights and output read back; inputs uploaded by every call)', r.cases.filter((c) => !c.methodology)],
    ['resident inputs, output only (each peer as its users write it)', r.cases.filter((c) => c.methodology === 'resident')],
  ]) {
    if (!list.length) continue;
    const impls = IMPLS.filter(([id]) => list.some((c) => c.results[id]));
    log(`\n${title}`);
    log(pad('case', w0) + impls.map(([, name]) => pad(name, w)).join(''));
    for (const c of list) {
      log(pad(c.label, w0) + impls.map(([id]) => pad(c.results[id] ? fmtTime(c.results[id].median) : '—', w)).join(''));
      if (c.flops && c.flops > 1e5) {
        log(pad('', w0) + impls.map(([id]) => pad(c.results[id] ? `(${gflops(c, id).toFixed(1)})` : '', w)).join(''));
      }
    }
    log(`time relative to qkv-lab's fastest build (>1: slower than qkv-lab)`);
    for (const c of list) {
      const base = c.results[fastest(c)];
      if (!base) continue;
      log(pad(c.label, w0) + impls.map(([id]) => pad(c.results[id] ? `${(c.results[id].median / base.median).toFixed(2)}×` : '—', w)).join(''));
    }
  }
  const fma = r.ceilings.wasmRelaxed && r.ceilings.wasmRelaxed.gflops, mulAdd = r.ceilings.wasm && r.ceilings.wasm.gflops;
  log(`\nceilings: WebAssembly relaxed-SIMD FMA ${fma ? fma.toFixed(1) : '—'} GFLOP/s ${r.ceilings.wasmRelaxed ? JSON.stringify(r.ceilings.wasmRelaxed.byAccumulators) : ''}; ` +
    `SIMD128 mul+add ${mulAdd ? mulAdd.toFixed(1) : '—'} GFLOP/s ${r.ceilings.wasm ? JSON.stringify(r.ceilings.wasm.byAccumulators) : ''}; ` +
    `native FMA ${r.ceilings.native ? `${r.ceilings.native.fma256} GFLOP/s 256-bit, ${r.ceilings.native.fma512 ?? '—'} 512-bit` : '—'}`);
  for (const c of r.cases.filter((x) => x.flops && x.flops > 1e5)) {
    const parts = [];
    for (const [impl, ceiling, name] of [['qkv-relaxed', fma, 'FMA'], ['qkv-simd', mulAdd, 'SIMD128']]) {
      if (!c.results[impl] || !ceiling) continue;
      const kernel = c.results[kernelOf(impl)];
      parts.push(`${impl} ${(100 * gflops(c, impl) / ceiling).toFixed(0)}% of the ${name} ceiling (kernel alone ${kernel ? (100 * gflops(c, kernelOf(impl)) / ceiling).toFixed(0) + '%' : '—'})`);
    }
    log(`  ${pad(`${c.methodology ? 'resident ' : ''}${c.label}`, w0)} ${parts.join(', ')}`);
  }
  log('\nchecks (max |output − qkv-lab scalar output|, first-step losses):');
  for (const [k, v] of Object.entries(r.checks)) log(`  ${k}: ${typeof v === 'number' ? v.toPrecision(6) : v}`);
  if (Object.keys(r.skipped).length) {
    log('\nskipped:');
    for (const [k, v] of Object.entries(r.skipped)) log(`  ${k}: ${v}`);
  }
  log('\ntargets:');
  for (const t of r.targets) log(`  ${t.met === null ? '—     ' : t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.value}`);
}

if (flag('sizes')) {
  // the sizes alone (measureSizes, a few seconds): printed, nothing written
  const sizes = await measureSizes();
  log(JSON.stringify(sizes, null, 1));
  log(`\n${API_BUNDLE_TARGET}: ${sizes.apiBundleMinified.gzip ? apiBundleText(sizes) : sizes.apiBundleMinified.error}`);
  process.exit(0);
}
await main();
// the GPT's training and generation speeds (docs/gpt.md, "Speed"): its own file, its own process (with this
// one's flags: --experimental-wasm-relaxed-simd for its relaxed-SIMD row)
log('');
const GPT_OUT = option('gpt-json', SMOKE ? path.join(os.tmpdir(), `qkv-bench-gpt-smoke-${process.pid}.json`) : path.join(ROOT, 'bench', 'gpt-results.json'));
const gpt = spawnSync(process.execPath, [...process.execArgv, path.join(ROOT, 'bench', 'gpt.mjs'), ...(SMOKE ? ['--smoke'] : []), '--json', GPT_OUT],
  { stdio: 'inherit', env: { ...process.env, QKV_BENCH_RELAXED_TRIED: '1' } });
if (gpt.status !== 0) log(`bench/gpt.mjs failed (status ${gpt.status ?? gpt.signal})`);
// the pretrained poet's generation and loading (bench/pretrained.mjs), in a process of its own
log('');
const PRETRAINED_OUT = option('pretrained-json', SMOKE ? path.join(os.tmpdir(), `qkv-bench-pretrained-smoke-${process.pid}.json`) : path.join(ROOT, 'bench', 'pretrained-results.json'));
const pretrained = spawnSync(process.execPath, [...process.execArgv, path.join(ROOT, 'bench', 'pretrained.mjs'), ...(SMOKE ? ['--smoke'] : []), '--json', PRETRAINED_OUT],
  { stdio: 'inherit', env: { ...process.env, QKV_BENCH_RELAXED_TRIED: '1' } });
if (pretrained.status !== 0) log(`bench/pretrained.mjs failed (status ${pretrained.status ?? pretrained.signal})`);
process.exit(gpt.status || pretrained.status || 0);
