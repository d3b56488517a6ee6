// gpt.mjs: the GPT's speed (docs/gpt.md, "Speed"), run by bench/run.mjs or alone:
//   node bench/gpt.mjs [--smoke] [--rounds N] [--steps N] [--json FILE]
// - training throughput (characters per second: batch × context predicted characters per step)
//   of the default GPT on the Tang quatrains, side by side in one process: qkv-lab with its
//   relaxed-SIMD (fused multiply-add), SIMD128 and scalar kernels (the GPT engine's products,
//   softmax and attention are the kernels of the instance it is attached to:
//   load({ kernels, gpt: true })); the same C natively (gcc -O3 -march=native, bench/gpt-native.c,
//   a process per round); the same model in TensorFlow.js's WebAssembly backend, one thread
//   (tools/tfjs-gpt.mjs), with its autodiff and Adam (the peer of the ≥ 10× target) and with the matrix
//   products' gradients written by hand as XNNPACK's untransposed products ('xnnpack': what a
//   TF.js user tuning this model would do);
// - the same training in headless Chromium: the API imported by a served page, the kernels the
//   browser picks, wall-clock (a page has no CPU clock), its batches interleaved with the rows above;
// - generation (tokens per second) with and without the KV cache after prompts of 8, 32 and 128
//   characters (a GPT of the default shape with context 256 and batch 1, untrained: the cost
//   depends on the shape only): the cost of each token after the first, the prefill apart.
// Method as bench/run.mjs's: rounds, one timed batch of `steps` training steps per row per round,
// each round starting one row later; the figure is the median over rounds of the CPU time per
// step (the process's user + system time; native: the C process's clock()). Every row warms up
// first (qkv-lab and native one step, TF.js three: its first steps compile and allocate).
// The page's frame rate while the writer trains is bench/page.mjs's (run.mjs runs it).
// A benchmark, not a test: nothing passes or fails on a speed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, simdSupported } from '../web/qkv-lab.js';
import { GPT_DEFAULTS } from '../web/gpt.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { mulberry32 } from '../tools/random.mjs';
import { ensurePeers } from './peers.mjs';
import { RELAXED_PROBE, rerunWithRelaxedSimd } from './relaxed.mjs';
import { bestCeiling, ceilingRange, stepFlops, wasmCeilings } from './ceilings.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const SMOKE = argv.includes('--smoke');
const OUT = option('json', null);
const ROUNDS = Number(option('rounds', SMOKE ? 2 : 5));
const STEPS = Number(option('steps', SMOKE ? 2 : 10));  // training steps per timed batch
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const cpu = (fn) => { const c0 = cpuMs(); fn(); return cpuMs() - c0; };

const config = SMOKE ? { ...GPT_DEFAULTS, layers: 1, dim: 16, heads: 2, batch: 2, context: 16 } : { ...GPT_DEFAULTS };
const text = QUATRAINS.poems;
const chars = config.batch * config.context;  // predicted characters per step
const results = { smoke: SMOKE, date: new Date().toISOString(), rounds: ROUNDS, stepsPerBatch: STEPS, config,
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, loadAverageBefore: os.loadavg() },
  training: {}, skipped: {}, generation: [] };

// ---- the rows: { id, label, firstLoss, batch(n) → { cpu, wall } ms per step, dispose() } ----

function qkvRow(id, label, lab) {
  const gpt = lab.createGPT({ text, ...config });
  const firstLoss = gpt.step().loss;  // the warm-up step
  let loss = firstLoss;
  return {
    id, label, firstLoss, V: gpt.vocab.length,
    batch(n) {
      const c0 = cpuMs(), t0 = performance.now();
      for (let i = 0; i < n; i++) loss = gpt.step().loss;
      return { cpu: (cpuMs() - c0) / n, wall: (performance.now() - t0) / n };
    },
    get loss() { return loss; },
    dispose() { gpt.dispose(); },
  };
}

/**
 * The same C natively: strict (the targets' reference: the sums in the engine's order, as the
 * WebAssembly builds keep them) or with -ffast-math (gcc may reorder and fuse them: reported so
 * that the comparison is honest both ways, not judged).
 */
function nativeRow(V, { fastMath = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-gpt-bench-'));
  const exe = path.join(dir, 'gpt-native');
  const sources = fs.readdirSync(path.join(ROOT, 'wasm')).filter((f) => f.endsWith('.c') && f !== 'exports.c').map((f) => path.join(ROOT, 'wasm', f));
  execFileSync('gcc', ['-std=c11', '-O3', '-march=native', ...(fastMath ? ['-ffast-math'] : []), '-I', path.join(ROOT, 'wasm'),
    path.join(ROOT, 'bench', 'gpt-native.c'), ...sources, '-lm', '-o', exe], { stdio: ['ignore', 'pipe', 'pipe'] });
  const c = config;
  return {
    id: fastMath ? 'native-fast' : 'native', label: `native gcc -O3 -march=native${fastMath ? ' -ffast-math' : ''}`,
    batch(n) {
      // a process per batch: it makes the GPT, takes one untimed step, then times n (clock())
      const out = JSON.parse(execFileSync(exe, [V, c.layers, c.heads, c.dim, c.context, c.batch, n, 1].map(String), { encoding: 'utf8' }));
      return { cpu: out.msPerStep, wall: null };
    },
    dispose() { fs.rmSync(dir, { recursive: true, force: true }); },
  };
}

async function tfjsRows(V) {
  const { TfGpt, gptTf, tokenize, sampleWindows } = await import('../tools/tfjs-gpt.mjs');
  const tf = await gptTf();
  const { vocab, stream } = tokenize(text);
  if (vocab.length !== V) throw new Error(`TF.js's vocabulary has ${vocab.length} tokens, qkv-lab's ${V}`);
  // the engine's model and optimiser settings (README "A GPT that writes"): learned positions,
  // AdamW β (0.9, 0.99), ε 1e-8, weight decay 0.01 on the matrices and tables, clipping at 1;
  // the learning rate is constant here (the engine's warm-up and cosine cost nothing)
  const settings = { vocab: V, layers: config.layers, heads: config.heads, dim: config.dim, context: config.context,
    positions: 'learned', lr: config.lr, beta1: 0.9, beta2: 0.99, adamEps: 1e-8, weightDecay: 0.01, maxNorm: 1 };
  return [['tfjs', 'TF.js WASM, autodiff + Adam', 'autodiff'], ['tfjs-xnnpack', 'TF.js WASM, hand-written matmul gradients', 'xnnpack']]
    .map(([id, label, matmulGradients]) => {
      const model = new TfGpt({ ...settings, matmulGradients }, null, config.seed);
      const random = mulberry32(config.seed + 1);
      const step = () => model.step(sampleWindows(stream, config.batch, config.context, random)).loss;
      const firstLoss = step();
      let loss = firstLoss;
      for (let s = 0; s < 2; s++) loss = step();
      return {
        id, label, firstLoss, backend: tf.getBackend(),
        batch(n) {
          const c0 = cpuMs(), t0 = performance.now();
          for (let i = 0; i < n; i++) loss = step();
          return { cpu: (cpuMs() - c0) / n, wall: (performance.now() - t0) / n };
        },
        get loss() { return loss; },
        dispose() { model.dispose(); },
      };
    });
}

const rows = [];
const labs = {};
if (WebAssembly.validate(RELAXED_PROBE)) {
  try {
    labs.relaxed = await load({ kernels: 'relaxed-simd', fresh: true, gpt: true });
  } catch (error) {
    results.skipped.relaxed = String(error.message);  // a build without clang-16
  }
} else {
  results.skipped.relaxed = 'this Node does not run relaxed SIMD, with or without --experimental-wasm-relaxed-simd';
}
if (simdSupported()) labs.simd = await load({ kernels: 'simd128', fresh: true, gpt: true });
labs.scalar = await load({ kernels: 'scalar', fresh: true, gpt: true });
const LABELS = { relaxed: 'qkv-lab relaxed SIMD (FMA)', simd: 'qkv-lab SIMD128', scalar: 'qkv-lab scalar' };
for (const [name, lab] of Object.entries(labs)) rows.push(qkvRow(name, LABELS[name], lab));
const V = rows[0].V;
try {
  rows.push(nativeRow(V), nativeRow(V, { fastMath: true }));
} catch (error) {
  results.skipped.native = `gcc failed: ${String(error.stderr || error.message).split('\n')[0]}`;
}
const missingPeers = ensurePeers((line) => console.log(line));
if (missingPeers) results.skipped.tfjs = missingPeers;
else {
  try {
    rows.push(...await tfjsRows(V));
  } catch (error) {
    results.skipped.tfjs = `TF.js did not run: ${String(error.message).split('\n')[0]}`;
  }
}

// the same model trained in headless Chromium (Debian's, as the browser tests use it): the API
// imported by a served page, the GPT of the same shape, text and seed; a page has no CPU clock, so
// its figure is wall-clock (one busy thread on a quiet machine: the qkv-lab rows give both)
let browserEnv = null;
async function chromiumRow() {
  const { openBrowser, blankPage } = await import('../tools/browser.mjs');
  browserEnv = await openBrowser();
  const page = await blankPage(browserEnv);
  const made = await page.evaluate(async (config) => {
    const { load } = await import('/qkv-lab.js');
    const { QUATRAINS } = await import('/data/quatrains.js');
    const qkv = await load({ gpt: true });
    window.__gpt = qkv.createGPT({ text: QUATRAINS.poems, ...config });
    return { kernels: qkv.kernels, firstLoss: window.__gpt.step().loss, V: window.__gpt.vocab.length };
  }, config);
  if (made.V !== V) throw new Error(`Chromium's GPT has a vocabulary of ${made.V}, Node's ${V}`);
  if (page.problems().length) throw new Error(page.problems().join('; '));
  results.chromium = { kernels: made.kernels, version: browserEnv.browser.version() };
  let loss = made.firstLoss;
  return {
    id: 'chromium', label: `qkv-lab in Chromium (${made.kernels}, wall)`, firstLoss: made.firstLoss, wallOnly: true,
    async batch(n) {
      const r = await page.evaluate((n) => {
        const t0 = performance.now();
        let loss;
        for (let i = 0; i < n; i++) loss = window.__gpt.step().loss;
        return { wall: (performance.now() - t0) / n, loss };
      }, n);
      loss = r.loss;
      return { cpu: r.wall, wall: r.wall };
    },
    get loss() { return loss; },
    dispose() {},
  };
}
try {
  rows.push(await chromiumRow());
} catch (error) {
  results.skipped.chromium = `Chromium did not run: ${String(error.message).split('\n')[0]}`;
}

// the ceilings (bench/ceiling.c) are measured after every round and once more after the rows, and
// each build's is the best of those samples (bestCeiling): one measurement after the rows once fell
// in a spell when this shared machine ran slowly (27 GFLOP/s against 57-59) and put a step at 116%
const ceilingDir = path.join(ROOT, '.build', 'bench');  // bench/run.mjs's: the modules it compiled are reused
fs.mkdirSync(ceilingDir, { recursive: true });
const ceilingSamples = [];
const times = new Map(rows.map((r) => [r.id, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[(i + round) % rows.length];
    times.get(r.id).push(await r.batch(STEPS));
  }
  ceilingSamples.push(await wasmCeilings(ceilingDir, { iters: SMOKE ? 2e5 : 2e6, rounds: 2 }));
}
if (browserEnv) await browserEnv.close();
for (const r of rows) {
  const runs = times.get(r.id), ms = median(runs.map((x) => x.cpu));
  const walls = runs.map((x) => x.wall).filter((x) => x !== null);
  results.training[r.id] = { label: r.label, msPerStep: ms, charsPerSecond: (chars * 1000) / ms, runs: runs.map((x) => +x.cpu.toFixed(3)),
    ...(walls.length ? { wallMsPerStep: median(walls) } : {}), ...(r.wallOnly ? { clock: 'wall' } : {}),
    ...(r.firstLoss !== undefined ? { firstLoss: r.firstLoss, lastLoss: r.loss } : {}), ...(r.backend ? { backend: r.backend } : {}) };
}
// the kernels agree: SIMD128 and scalar sum in the same order (the same loss bit for bit after
// the same steps); relaxed SIMD fuses multiply-adds, so its loss differs in the last digits
const t = results.training;
results.checks = { lnV: Math.log(V) };
if (t.simd && t.scalar) results.checks['simd − scalar loss after the same steps'] = t.simd.lastLoss - t.scalar.lastLoss;
if (t.simd && t.relaxed) results.checks['relaxed − simd loss after the same steps'] = t.relaxed.lastLoss - t.simd.lastLoss;
// the page's first step against the same kernels' in Node: the same model
const sameKernels = t.chromium && t[{ 'relaxed-simd': 'relaxed', simd128: 'simd', scalar: 'scalar' }[results.chromium.kernels]];
if (sameKernels) results.checks['Chromium − Node first loss, the same kernels'] = t.chromium.firstLoss - sameKernels.firstLoss;
for (const r of rows) r.dispose();

// ---- the share of the machine: each WebAssembly build's GFLOP/s of products against the ceiling
// it can reach (bench/ceiling.c: the best of the samples taken after each round and of this one,
// after the rows) ----
const flops = stepFlops({ V, L: config.layers, H: config.heads, C: config.dim, T: config.context, B: config.batch });
ceilingSamples.push(await wasmCeilings(ceilingDir, SMOKE ? { iters: 2e5, rounds: 1 } : {}));
const ceilings = { simd128: bestCeiling(ceilingSamples, 'simd128'), relaxed: bestCeiling(ceilingSamples, 'relaxed'), skipped: ceilingSamples.at(-1).skipped };
Object.assign(results.skipped, Object.fromEntries(Object.entries(ceilings.skipped).map(([k, v]) => [`ceiling ${k}`, v])));
results.ceilings = { simd128: ceilings.simd128, relaxed: ceilings.relaxed, flopsPerStep: flops,
  samples: ceilingSamples.map((c) => ({ simd128: c.simd128, relaxed: c.relaxed })) };
const gflops = (id) => (t[id] ? flops / t[id].msPerStep / 1e6 : null);

// ---- generation ----
// The cost of a token after the prompt: generate(prompt, { maxTokens: NEW[cache] }) less
// generate(prompt, { maxTokens: 1 }) (the prefill over the prompt and the first token), divided by
// the tokens between, CPU time (each call repeated REPEAT times), median of 5; the prefill is
// reported apart.
const gen = (labs.simd || labs.scalar).createGPT({ text, ...config, batch: 1, context: SMOKE ? 64 : 256 });
const genKernels = labs.simd ? 'simd128' : 'scalar';
const poemChars = Array.from(text.replace(/\n/g, ''));
// tokens per call: without the cache, 8 after 128 characters stay within the work limit (16
// would not: 1.4e9 of work, over 2^30); with it, 32 (128 + 32 within the context)
const NEW = { true: SMOKE ? 8 : 32, false: SMOKE ? 4 : 8 }, REPEAT = SMOKE ? 2 : 4;
for (const promptLength of SMOKE ? [8, 32] : [8, 32, 128]) {
  const prompt = poemChars.slice(0, promptLength).join('');
  const row = { promptLength };
  for (const cache of [true, false]) {
    const perToken = [], prefill = [];
    gen.generate(prompt, { maxTokens: NEW[cache], seed: 0, cache });  // warm up, untimed
    for (let r = 0; r < 5; r++) {
      let tokens = 0;
      // the same seed: the same first token in both calls
      const one = cpu(() => { for (let k = 0; k < REPEAT; k++) gen.generate(prompt, { maxTokens: 1, seed: r, cache }); }) / REPEAT;
      const all = cpu(() => {
        for (let k = 0; k < REPEAT; k++) tokens = gen.generate(prompt, { maxTokens: NEW[cache], seed: r, cache }).steps.length;
      }) / REPEAT;
      // the untrained GPT rarely picks the end-of-text token; count what it generated
      if (tokens > 1) perToken.push((all - one) / (tokens - 1));
      prefill.push(one);
    }
    const ms = median(perToken);
    row[cache ? 'cache' : 'noCache'] = { msPerToken: ms, tokensPerSecond: 1000 / ms, prefillAndFirstMs: median(prefill) };
  }
  results.generation.push(row);
}
gen.dispose();
results.machine.loadAverageAfter = os.loadavg();

// ---- the targets (docs/gpt.md, "Speed"): met or missed, never tuned to ----
// the faster of the two SIMD builds in this run (on some machines SIMD128 runs as fast as relaxed)
const fastest = t.relaxed && (!t.simd || t.relaxed.msPerStep <= t.simd.msPerStep) ? 'relaxed' : 'simd';
const ratio = (a, b) => (t[a] && t[b] ? t[b].msPerStep / t[a].msPerStep : null);  // a's throughput ÷ b's
results.ratios = {
  fastest,
  'fastest ÷ TF.js autodiff': ratio(fastest, 'tfjs'), 'fastest ÷ TF.js xnnpack': ratio(fastest, 'tfjs-xnnpack'),
  'simd ÷ TF.js autodiff': ratio('simd', 'tfjs'), 'simd ÷ TF.js xnnpack': ratio('simd', 'tfjs-xnnpack'),
  'native ÷ TF.js autodiff': ratio('native', 'tfjs'),
  'simd ÷ native': ratio('simd', 'native'), 'relaxed ÷ native': ratio('relaxed', 'native'),
  'simd ÷ native -ffast-math': ratio('simd', 'native-fast'), 'relaxed ÷ native -ffast-math': ratio('relaxed', 'native-fast'),
  'relaxed ÷ simd': ratio('relaxed', 'simd'), 'simd ÷ scalar': ratio('simd', 'scalar'),
};
const targets = [];
// at smoke sizes the model is not the target's: the figures are shown, nothing is judged
const add = (target, value, met) => targets.push(SMOKE ? { target, value: `smoke sizes: ${value}`, met: null } : { target, value, met });
const x = (v) => (v === null ? '—' : `${v.toFixed(2)}×`);
const R = results.ratios;
if (R['fastest ÷ TF.js autodiff'] !== null) {
  add('≥ 10× TensorFlow.js\'s training throughput (its WASM backend, autodiff and Adam)',
    `${x(R['fastest ÷ TF.js autodiff'])} (${t[fastest].label}); SIMD128 ${x(R['simd ÷ TF.js autodiff'])}; ` +
    `against the hand-tuned TF.js ${x(R['fastest ÷ TF.js xnnpack'])}; native C itself ${x(R['native ÷ TF.js autodiff'])}`,
    R['fastest ÷ TF.js autodiff'] >= 10);
} else add('≥ 10× TensorFlow.js\'s training throughput', 'not measured in this run', null);
if (R['simd ÷ native'] !== null) {
  add('≥ 0.5× native (gcc -O3 -march=native)', `SIMD128 ${x(R['simd ÷ native'])}, relaxed ${x(R['relaxed ÷ native'])}`,
    Math.max(R['simd ÷ native'], R['relaxed ÷ native'] ?? 0) >= 0.5);
} else add('≥ 0.5× native', 'not measured in this run', null);
// round three's targets: the products' share of each build's own ceiling, 15× TF.js, 1.5× native
for (const [id, ceiling, name, share] of [['relaxed', ceilings.relaxed, 'relaxed-SIMD FMA', 0.6], ['simd', ceilings.simd128, 'SIMD128 mul+add', 0.55]]) {
  const label = `the ${id === 'relaxed' ? 'relaxed-SIMD' : 'SIMD128'} build's training step at ≥ ${Math.round(100 * share)}% of the ${name} ceiling`;
  if (gflops(id) === null || !ceiling) add(label, 'not measured in this run', null);
  else add(label, `${gflops(id).toFixed(1)} GFLOP/s of ${ceiling.toFixed(1)} (the best of ${ceilingSamples.length} samples in this run, ${ceilingRange(ceilingSamples, id === 'relaxed' ? 'relaxed' : 'simd128')}): ${Math.round(100 * gflops(id) / ceiling)}% (${(flops / 1e9).toFixed(3)} GFLOP of products a step)`, gflops(id) / ceiling >= share);
}
if (R['fastest ÷ TF.js autodiff'] !== null) add('≥ 15× TensorFlow.js\'s training throughput (autodiff and Adam)', `${x(R['fastest ÷ TF.js autodiff'])} (${t[fastest].label})`, R['fastest ÷ TF.js autodiff'] >= 15);
else add('≥ 15× TensorFlow.js\'s training throughput', 'not measured in this run', null);
if (R['relaxed ÷ native'] !== null || R['simd ÷ native'] !== null) {
  const best = Math.max(R['relaxed ÷ native'] ?? 0, R['simd ÷ native'] ?? 0);
  add('≥ 1.5× the same C natively (gcc -O3 -march=native, strict)', `relaxed ${x(R['relaxed ÷ native'])}, SIMD128 ${x(R['simd ÷ native'])}` +
    ` (against -ffast-math, not judged: relaxed ${x(R['relaxed ÷ native -ffast-math'])}, SIMD128 ${x(R['simd ÷ native -ffast-math'])})`, best >= 1.5);
} else add('≥ 1.5× native', 'not measured in this run', null);
// the form after the default schedule is tools/measure-gpt.mjs's (bench/gpt-learning.json, seeds
// 0–4, committed); its time here is this run's CPU time per step × the schedule's steps
const learning = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'gpt-learning.json'), 'utf8'));
const ends = learning.runs.map((run) => run.points.find((p) => p.step === learning.settings.steps)).filter(Boolean);
const sameSettings = Object.entries(GPT_DEFAULTS).every(([k, v]) => learning.settings[k] === v);
if (ends.length && sameSettings) {
  const seeds = learning.runs.map((run) => run.seed);
  const forms = ends.map((p) => p.form), seconds = ends.map((p) => p.seconds);
  const here = (ms) => (learning.settings.steps * ms) / 1000;
  add('the default schedule reaches 80% well-formed poems in ≤ 60 s of one core',
    `well formed after ${learning.settings.steps} steps: ${Math.round(100 * Math.min(...forms))}–${Math.round(100 * Math.max(...forms))}% (seeds ${Math.min(...seeds)}–${Math.max(...seeds)}, bench/gpt-learning.json, ` +
    `${Math.min(...seconds).toFixed(0)}–${Math.max(...seconds).toFixed(0)} CPU s there); ${learning.settings.steps} steps at this run's speed: ` +
    `${here(t.simd.msPerStep).toFixed(1)} s SIMD128${t.relaxed ? `, ${here(t.relaxed.msPerStep).toFixed(1)} s relaxed` : ''} (training steps only; ` +
    `the page also samples and evaluates)`, Math.min(...forms) >= 0.8 && here(t.simd.msPerStep) <= 60 && Math.max(...seconds) <= 60);
} else {
  add('the default schedule reaches 80% well-formed poems in ≤ 60 s of one core',
    `not measured: bench/gpt-learning.json ${sameSettings ? 'has no point at the end of the schedule' : 'was measured with other settings than GPT_DEFAULTS'}`, null);
}
const g = results.generation, first = g[0], last = g[g.length - 1];
add('the cost of a token stays flat as the text grows (KV cache)',
  `with the cache ${g.map((r) => r.cache.msPerToken.toFixed(3)).join(' / ')} ms per token after ${g.map((r) => r.promptLength).join(' / ')} characters ` +
  `(${(last.cache.msPerToken / first.cache.msPerToken).toFixed(2)}× from first to last); without it ${g.map((r) => r.noCache.msPerToken.toFixed(3)).join(' / ')} ms ` +
  `(${(last.noCache.msPerToken / first.noCache.msPerToken).toFixed(2)}×)`,
  last.cache.msPerToken / first.cache.msPerToken < 1.5);
results.targets = targets;

// ---- print ----
const f = (v, d = 1) => (v === undefined || v === null ? '—' : v.toFixed(d));
console.log(`GPT training (${config.layers} layers, dim ${config.dim}, ${config.heads} heads, context ${config.context}, batch ${config.batch}, V ${V}), ` +
  `median CPU time per step over ${ROUNDS} rounds of ${STEPS} steps, load average ${results.machine.loadAverageBefore[0].toFixed(2)} → ${results.machine.loadAverageAfter[0].toFixed(2)}:`);
const base = t[fastest];
for (const r of Object.values(t)) {
  console.log(`  ${r.label.padEnd(42)} ${f(r.msPerStep).padStart(7)} ms/step ${f(r.charsPerSecond, 0).padStart(7)} characters/s  ` +
    `${(base.msPerStep / r.msPerStep).toFixed(2)}× qkv-lab's fastest`);
}
for (const [k, v] of Object.entries(results.skipped)) console.log(`  skipped ${k}: ${v}`);
console.log(`  ratios of throughput: ${Object.entries(R).filter(([, v]) => typeof v === 'number').map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
console.log(`  checks: ${Object.entries(results.checks).map(([k, v]) => `${k} ${v.toPrecision(4)}`).join(', ')}`);
console.log(`GPT generation (${genKernels} kernels, context ${SMOKE ? 64 : 256}), CPU time per token after the first (tokens 2–${NEW.true} with the cache, 2–${NEW.false} without), and of the prefill with the first token:`);
for (const r of g) {
  console.log(`  prompt ${String(r.promptLength).padStart(3)}: with the KV cache ${f(r.cache.msPerToken, 3)} ms (${f(r.cache.tokensPerSecond, 0)}/s; prefill ${f(r.cache.prefillAndFirstMs, 2)} ms), ` +
    `without ${f(r.noCache.msPerToken, 3)} ms (${f(r.noCache.tokensPerSecond, 0)}/s; first ${f(r.noCache.prefillAndFirstMs, 2)} ms)`);
}
console.log('GPT targets:');
for (const x of targets) console.log(`  ${x.met === null ? '—     ' : x.met ? 'met   ' : 'MISSED'} ${x.target}: ${x.value}`);
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 1));
