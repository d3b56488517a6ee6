// gpt-profile.mjs: where the default GPT's training step spends its time, by kernel and shape:
//   node bench/gpt-profile.mjs [--before DIR] [--kernels relaxed-simd,simd128] [--steps N] [--json FILE]
// DIR: another tree's web/ (built) to profile in the same process, build by build (bench/gpt-compare.mjs
// says how to make one); node tools/docs-tables.mjs writes docs/performance.md's profile table from
// the JSON (bench/gpt-profile.json).
// Every function the GPT engine imports (the kernels' products, softmax, attention, transposes,
// finiteness checks; the core's calloc; the core's memset and memcpy in a tree from before the
// engine zeroed and copied with memory.fill and memory.copy, inline) is wrapped in JavaScript that adds the
// process's CPU time around each call to a counter keyed by the function and its shape;
// matmul_backward is timed as its two halves (dA = dout.B^T, then dB = A^T.dout: each skips a NULL
// gradient, so the halves do the same work as the whole). What no counter takes is the GPT
// engine's own code (LayerNorm, cross-entropy, bias, embedding, the gradient norm, residual adds,
// and now its zeroing and copies).
// Copies under 64 KiB (the heads' layout, d_k floats a call) are not timed, their time left in
// the engine's. The wrappers cost a little per call (measured here on an empty call, and subtracted): a profile,
// not a benchmark; bench/gpt-compare.mjs measures steps unwrapped. Nothing passes or fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE, rerunWithRelaxedSimd } from './relaxed.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const BEFORE = option('before', null);
const STEPS = Number(option('steps', 8));
const KERNELS = option('kernels', 'relaxed-simd,simd128').split(',').filter((k) => k !== 'relaxed-simd' || WebAssembly.validate(RELAXED_PROBE));
const OUT = option('json', null);
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };
const { GPT_DEFAULTS } = await import(path.join(ROOT, 'web', 'gpt.js'));
const { QUATRAINS } = await import(path.join(ROOT, 'web', 'data', 'quatrains.js'));

// the shape of each wrapped call, as it is worth reading: products as (n, k) x (k, m)
const SHAPES = {
  matmul_forward: (a) => `A·B ${a[3]}×${a[4]}·${a[4]}×${a[5]}`,
  matmul_accumulate: (a) => `A·B ${a[3]}×${a[4]}·${a[4]}×${a[5]}`,
  matmul_abt: (a) => `A·Bᵀ ${a[3]}×${a[4]}·(${a[5]}×${a[4]})ᵀ`,
  matmul_atb: (a) => `Aᵀ·B (${a[4]}×${a[3]})ᵀ·${a[4]}×${a[5]}`,
  matmul_atb_accumulate: (a) => `Aᵀ·B (${a[4]}×${a[3]})ᵀ·${a[4]}×${a[5]}`,
  softmax_crossentropy_rows: (a) => `softmax rows ${a[5]}×${a[6]}`,
  transpose_forward: (a) => `transpose ${a[2]}×${a[3]}`,
  gelu_forward: (a) => `GELU ${a[2]}`,
  bias_gelu_forward: (a) => `bias + GELU ${a[3]}×${a[4]}`,
  gelu_backward: (a) => `GELU backward ${a[3]}`,
  softmax_rows_forward: (a) => `softmax rows ${a[2]}×${a[3]}`,
  attention_forward_unchecked: (a) => `attention fwd ${a[6]}×${a[8]}`,
  attention_backward_unchecked: (a) => `attention bwd ${a[9]}×${a[11]}`,
  qkv_check_finite: () => 'check finite',
  memset: (a) => (a[2] >= 65536 ? 'memset ≥ 64 KiB' : 'memset < 64 KiB'),
  memcpy: () => 'memcpy ≥ 64 KiB',
  memmove: () => 'memmove',
  calloc: () => 'calloc',
};

async function profile(tree, when, kernels) {
  const { load } = await import(path.join(path.resolve(tree), 'web', 'qkv-lab.js'));
  const lab = await load({ kernels, fresh: true });
  const heap = lab._heap, core = heap.core;
  const counters = new Map();
  let calls = 0;
  const add = (key, us) => { const c = counters.get(key) || { us: 0, calls: 0 }; c.us += us; c.calls++; counters.set(key, c); calls++; };
  const wrap = (name, f) => (...args) => {
    const c0 = cpuUs(); const r = f(...args); add(SHAPES[name] ? SHAPES[name](args) : name, cpuUs() - c0); return r;
  };
  const { gpt: chunk } = await import(path.join(path.resolve(tree), 'web', 'dist', 'qkv-gpt.js'));
  const TIMED_CORE = new Set(['memset', 'memmove', 'calloc']);
  // each function the engine imports, timed: the kernels (matmul_backward as its two products),
  // the core's memset, memmove and calloc, and its memcpy of 64 KiB or more (the heads' layout
  // copies d_k floats at a time, tens of thousands of calls a step, which the timer would swamp:
  // those pass through untimed, their time stays in the engine's); the core's other functions
  // (its maths, the RNG) as they are
  const timed = (name, f) => {
    if (name === 'matmul_backward') {
      return (dA, dB, dout, A, B, n, k, m) => {
        if (dA) { const c0 = cpuUs(); f(dA, 0, dout, A, B, n, k, m); add(`A·Bᵀ ${n}×${m}·(${k}×${m})ᵀ`, cpuUs() - c0); }
        if (dB) { const c0 = cpuUs(); f(0, dB, dout, A, B, n, k, m); add(`Aᵀ·B (${n}×${k})ᵀ·${n}×${m}`, cpuUs() - c0); }
      };
    }
    if (name === 'memcpy') { const t = wrap('memcpy', f); return (d, s, n) => (n >= 65536 ? t(d, s, n) : f(d, s, n)); }
    if (name in chunk.core && !TIMED_CORE.has(name)) return f;
    return wrap(name, f);
  };
  if ('importHook' in heap) {
    // the loader passes every import of the engine through this (the GPT kernels included, which
    // come with the engine)
    heap.importHook = timed;
  } else {
    // an older tree (--before): the kernels' and the core's exports replaced before the engine binds them
    const kernelsWrapped = {};
    for (const [name, f] of Object.entries(heap.kernels)) kernelsWrapped[name] = typeof f === 'function' ? timed(name, f) : f;
    heap.kernels = kernelsWrapped;
    const asm = { ...core.asm };
    for (const name of [...TIMED_CORE, 'memcpy']) asm[chunk.core[name]] = timed(name, core.asm[chunk.core[name]]);
    core.asm = asm;
  }
  await lab.loadGPTEngine();
  const gpt = lab.createGPT({ text: QUATRAINS.poems, ...GPT_DEFAULTS });
  gpt.step(); gpt.step();  // warm up (tiers up the WebAssembly)
  // the wrappers' own cost: an empty call through the same wrapper
  const empty = wrap('empty', () => 0);
  const e0 = cpuUs(); for (let i = 0; i < 20000; i++) empty(); const wrapperUs = (cpuUs() - e0) / 20000;
  counters.clear(); calls = 0;
  const t0 = cpuUs();
  for (let i = 0; i < STEPS; i++) gpt.step();
  const totalUs = (cpuUs() - t0) / STEPS;
  const rows = [...counters].map(([key, c]) => ({ key, ms: (c.us / STEPS - (c.calls / STEPS) * wrapperUs) / 1000, callsPerStep: c.calls / STEPS }));
  const wrapped = rows.reduce((s, r) => s + r.ms, 0);
  const overheadMs = (calls / STEPS) * wrapperUs / 1000;
  const stepMs = totalUs / 1000 - overheadMs;
  rows.push({ key: 'the GPT engine\'s own code (LayerNorm, cross-entropy, bias, the gradient norm, …)', ms: stepMs - wrapped, callsPerStep: null });
  rows.sort((a, b) => b.ms - a.ms);
  lab.dispose?.();
  return { kernels, when, stepMs, wrapperUsPerCall: wrapperUs, callsPerStep: calls / STEPS, rows };
}

const results = { date: new Date().toISOString(), steps: STEPS, defaults: GPT_DEFAULTS, loadAverageBefore: os.loadavg(), builds: [] };
for (const kernels of KERNELS) {
  if (BEFORE) results.builds.push(await profile(BEFORE, 'before', kernels));
  results.builds.push(await profile(ROOT, 'after', kernels));
}
results.loadAverageAfter = os.loadavg();
for (const b of results.builds) {
  console.log(`\n${b.kernels} ${b.when}: ${b.stepMs.toFixed(1)} ms of CPU per step (wrappers' ${b.callsPerStep.toFixed(0)} calls × ${b.wrapperUsPerCall.toFixed(2)} µs subtracted); load average ${results.loadAverageBefore[0].toFixed(1)} → ${results.loadAverageAfter[0].toFixed(1)}`);
  console.log('| what | ms/step | share | calls/step |\n|---|---:|---:|---:|');
  for (const r of b.rows) console.log(`| ${r.key} | ${r.ms.toFixed(2)} | ${(100 * r.ms / b.stepMs).toFixed(1)}% | ${r.callsPerStep ?? ''} |`);
}
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 1));
