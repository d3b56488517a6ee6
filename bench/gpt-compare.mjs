// gpt-compare.mjs: the GPT training step of two trees side by side in one process, interleaved:
//   node bench/gpt-compare.mjs --before DIR [--rounds N] [--steps N] [--json FILE] [--kernels LIST] [--no-native]
//   node bench/gpt-compare.mjs --before DIR --native-only --shape "V L H C T B" [--rounds N] [--steps N]
// DIR holds another tree's web/ (built: web/dist/) and wasm/, for example the commit before a
// kernel change:  git stash; ./build.sh; mkdir -p DIR; cp -r web wasm DIR; git stash pop; ./build.sh
// Rows, for DIR ("before") and this tree ("after"): qkv-lab's relaxed-SIMD, SIMD128 and scalar
// kernels (load({ kernels, gpt: true })) and the same C natively (bench/gpt-native.c with each
// tree's wasm/*.c: gcc -O3 -march=native, strict and -ffast-math). Method as bench/gpt.mjs's:
// ROUNDS rounds, one timed batch of STEPS steps per row per round, each round starting one row
// later; the figure is the median over rounds of the CPU time per step. GFLOP/s counts the matrix
// products' multiply-adds (2 FLOP each; attention's full T x T products; backward twice forward);
// the share is of the ceiling each build can reach, measured in this run, before the rows and after
// each round, the best sample (bench/ceiling.c: relaxed SIMD FMA, SIMD128 mul+add; bench/native.c:
// 256-bit FMA). A benchmark: nothing passes or fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE, rerunWithRelaxedSimd } from './relaxed.mjs';
import { bestCeiling, stepFlops, wasmCeilings } from './ceilings.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const BEFORE = option('before', null);
if (!BEFORE || !fs.existsSync(path.join(BEFORE, 'web', 'dist')) || !fs.existsSync(path.join(BEFORE, 'wasm'))) {
  console.error('usage: node bench/gpt-compare.mjs --before DIR (DIR/web with its dist/ built, DIR/wasm)');
  process.exit(2);
}
const NATIVE_ONLY = argv.includes('--native-only');
// --kernels relaxed-simd,simd128 and --no-native: fewer rows, so more rounds fit in a quiet spell
const KERNEL_ROWS = option('kernels', 'relaxed-simd,simd128,scalar').split(',');
const NATIVE = !argv.includes('--no-native');
const ROUNDS = Number(option('rounds', 5));
const STEPS = Number(option('steps', 5));
const OUT = option('json', null);
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const { GPT_DEFAULTS } = await import(path.join(ROOT, 'web', 'gpt.js'));
const { QUATRAINS } = await import(path.join(ROOT, 'web', 'data', 'quatrains.js'));
const text = QUATRAINS.poems;
const BUILD = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-gpt-compare-'));
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });

// ---- ceilings (bench/ceilings.mjs) ----
const ceilings = {};
const ceilingSamples = [];  // the WebAssembly ceilings' samples: before the rows, after each round
if (!NATIVE_ONLY) {
  const measured = await wasmCeilings(BUILD);
  ceilingSamples.push(measured);
  // a ceiling that could not be measured stops the comparison here, with its reason (relaxed SIMD
  // only where this Node runs it)
  for (const [name, why] of Object.entries(measured.skipped)) {
    if (name === 'simd128' || WebAssembly.validate(RELAXED_PROBE)) throw new Error(`gpt-compare: the ${name} ceiling: ${why}`);
  }
  ceilings.simd128 = measured.simd128;
  if (measured.relaxed !== null) ceilings.relaxed = measured.relaxed;
}
const sources = (tree) => fs.readdirSync(path.join(tree, 'wasm')).filter((f) => f.endsWith('.c') && f !== 'exports.c').map((f) => path.join(tree, 'wasm', f));
sh('gcc', ['-std=c11', '-O3', '-march=native', '-I', path.join(ROOT, 'wasm'), path.join(ROOT, 'bench', 'native.c'), ...sources(ROOT), '-lm', '-o', path.join(BUILD, 'native-bench')]);
const progress = (line) => process.stderr.write(`${line}\n`);
ceilings.native = median(Array.from({ length: 5 }, () => JSON.parse(sh(path.join(BUILD, 'native-bench'), ['ceiling', '1'])).fma256));

// ---- rows ----
progress(`ceilings: ${JSON.stringify(ceilings)}`);
const shapeArg = option('shape', null);
const loadAverageBefore = os.loadavg();
const rows = [];
let shape;
for (const [tree, when] of [[BEFORE, 'before'], [ROOT, 'after']]) {
  let V;
  if (!NATIVE_ONLY) {
    const { load } = await import(path.join(path.resolve(tree), 'web', 'qkv-lab.js'));
    for (const kernels of ['relaxed-simd', 'simd128', 'scalar'].filter((k) => KERNEL_ROWS.includes(k))) {
      if (kernels === 'relaxed-simd' && !WebAssembly.validate(RELAXED_PROBE)) continue;
      const lab = await load({ kernels, fresh: true, gpt: true });
      const gpt = lab.createGPT({ text, ...GPT_DEFAULTS });
      V = gpt.vocab.length;
      let loss = gpt.step().loss;
      const firstLoss = loss;
      rows.push({ id: `${kernels} ${when}`, kernels, when, firstLoss, get loss() { return loss; },
        batch(n) { const c0 = cpuMs(); for (let i = 0; i < n; i++) loss = gpt.step().loss; return (cpuMs() - c0) / n; } });
    }
    shape = { V, L: GPT_DEFAULTS.layers, H: GPT_DEFAULTS.heads, C: GPT_DEFAULTS.dim, T: GPT_DEFAULTS.context, B: GPT_DEFAULTS.batch };
  } else {
    const [V0, L, H, C, T, B] = (shapeArg || '').split(/\s+/).map(Number);
    shape = { V: V0, L, H, C, T, B };
  }
  for (const [name, extra] of NATIVE ? [['native strict', []], ['native -ffast-math', ['-ffast-math']]] : []) {
    const exe = path.join(BUILD, `gpt-native-${when}-${extra.length}`);
    sh('gcc', ['-std=c11', '-O3', '-march=native', ...extra, '-I', path.join(tree, 'wasm'), path.join(ROOT, 'bench', 'gpt-native.c'), ...sources(tree), '-lm', '-o', exe]);
    rows.push({ id: `${name} ${when}`, kernels: name, when, batch(n) {
      const s = shape;
      return JSON.parse(sh(exe, [s.V, s.L, s.H, s.C, s.T, s.B, n, 1].map(String))).msPerStep;
    } });
  }
}
const flops = stepFlops(shape);
const times = new Map(rows.map((r) => [r.id, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[(i + round) % rows.length];
    times.get(r.id).push(r.batch(STEPS));
  }
  // the WebAssembly ceilings sampled again after each round, each the best sample (bestCeiling)
  if (!NATIVE_ONLY) {
    ceilingSamples.push(await wasmCeilings(BUILD, { rounds: 2 }));
    for (const key of ['simd128', 'relaxed']) if (ceilings[key] !== undefined) ceilings[key] = bestCeiling(ceilingSamples, key);
  }
  progress(`round ${round + 1} of ${ROUNDS}`);
}
const loadAverageAfter = os.loadavg();
const ceilingOf = (kernels) => (kernels === 'relaxed-simd' ? ['relaxed SIMD FMA', ceilings.relaxed] : kernels === 'simd128' ? ['SIMD128 mul+add', ceilings.simd128]
  : kernels.startsWith('native') ? ['native FMA 256-bit', ceilings.native] : [null, null]);
const results = { date: new Date().toISOString(), rounds: ROUNDS, steps: STEPS, shape, flopsPerStep: flops,
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, loadAverageBefore, loadAverageAfter }, ceilings, rows: {} };
for (const r of rows) {
  const ms = median(times.get(r.id)), gflops = flops / ms / 1e6, [cname, c] = ceilingOf(r.kernels);
  results.rows[r.id] = { msPerStep: ms, gflops, ceiling: cname, share: c ? gflops / c : null, runs: times.get(r.id).map((x) => +x.toFixed(2)),
    ...(r.firstLoss !== undefined ? { firstLoss: r.firstLoss, lastLoss: r.loss } : {}) };
}
const s = shape;
console.log(`GPT training step (V ${s.V}, ${s.L} layers, ${s.H} heads, dim ${s.C}, context ${s.T}, batch ${s.B}; ${(flops / 1e9).toFixed(3)} GFLOP of products), ` +
  `median CPU ms per step over ${ROUNDS} interleaved rounds of ${STEPS} steps; load average ${loadAverageBefore[0].toFixed(2)} → ${loadAverageAfter[0].toFixed(2)} on ${os.cpus().length} cores`);
console.log(`ceilings (GFLOP/s): ${Object.entries(ceilings).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
console.log('| build | before ms | after ms | speed-up | before GFLOP/s (share) | after GFLOP/s (share) |');
console.log('|---|---|---|---|---|---|');
for (const kernels of [...new Set(rows.map((r) => r.kernels))]) {
  const b = results.rows[`${kernels} before`], a = results.rows[`${kernels} after`];
  const cell = (x) => `${x.gflops.toFixed(1)}${x.share !== null ? ` (${(100 * x.share).toFixed(0)}% of ${x.ceiling})` : ''}`;
  console.log(`| ${kernels} | ${b.msPerStep.toFixed(1)} | ${a.msPerStep.toFixed(1)} | ${(b.msPerStep / a.msPerStep).toFixed(2)}× | ${cell(b)} | ${cell(a)} |`);
}
for (const kernels of ['relaxed-simd', 'simd128', 'scalar']) {
  const b = results.rows[`${kernels} before`], a = results.rows[`${kernels} after`];
  if (b && a) console.log(`${kernels}: loss after the same steps, before ${b.lastLoss} after ${a.lastLoss}${b.lastLoss === a.lastLoss ? ' (the same)' : ''}`);
}
// the fastest round of each row: on a machine whose speed drifts, the rounds least disturbed
for (const kernels of [...new Set(rows.map((r) => r.kernels))]) {
  const b = results.rows[`${kernels} before`], a = results.rows[`${kernels} after`];
  console.log(`${kernels}: fastest round ${Math.min(...b.runs).toFixed(2)} ms before, ${Math.min(...a.runs).toFixed(2)} after`);
}
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 1));
fs.rmSync(BUILD, { recursive: true, force: true });
