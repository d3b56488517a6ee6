// ceilings.mjs: the WebAssembly arithmetic ceilings (bench/ceiling.c, compiled here for
// bench/run.mjs, gpt.mjs and gpt-compare.mjs: emcc for SIMD128's multiply then add, clang-16 and
// wasm-ld-16 for relaxed SIMD's fused multiply-add), measured in the calling process, and the
// GPT step's FLOP count, which gpt.mjs and gpt-compare.mjs divide by them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE } from './relaxed.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** FLOP of one training step of the GPT { V, L, H, C, T, B }: the products (forward, then twice that backward). */
export function stepFlops({ V, L, C, T, B }) {
  const BT = B * T, hidden = 4 * C;
  const layer = 2 * BT * C * (3 * C + C + hidden + hidden) + 2 * 2 * B * T * T * C;  // + QK^T and AV over H heads of C/H
  return 3 * (L * layer + 2 * BT * C * V);
}

const instances = new Map();  // file → its instance, kept so that later samples run V8's optimised code

/** GFLOP/s of a compiled ceiling module: the best of `rounds` over 8, 12 and 16 accumulators (what the machine can reach). */
async function ceilingOf(file, iters, rounds) {
  if (!instances.has(file)) instances.set(file, (await WebAssembly.instantiate(fs.readFileSync(file), {})).instance);
  const instance = instances.get(file);
  const best = {};
  for (let r = 0; r < rounds; r++) {
    for (const acc of [8, 12, 16]) {
      const c0 = cpuMs(); instance.exports[`mul_add_${acc}`](iters); const ms = Math.max(cpuMs() - c0, 1e-3);
      best[acc] = Math.max(best[acc] ?? 0, (acc * 4 * 2 * iters) / ms / 1e6);
    }
  }
  return Math.max(...Object.values(best));
}

/** true when `file` exists and is newer than bench/ceiling.c (an earlier run compiled it into the same directory) */
const fresh = (file) => fs.existsSync(file) && fs.statSync(file).mtimeMs >= fs.statSync(path.join(ROOT, 'bench', 'ceiling.c')).mtimeMs;

/**
 * bench/ceiling.c compiled into `build` (a directory), unless a module there is newer than it:
 * { simd128, relaxed } the modules' paths (null where the compiler failed, `skipped` saying why).
 * bench/run.mjs times them its own way; wasmCeilings below gives their GFLOP/s.
 */
export function compileCeilings(build) {
  const out = { simd128: null, relaxed: null, skipped: {} };
  const env = { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') };
  try {
    const file = path.join(build, 'ceiling.wasm');
    if (!fresh(file)) sh('emcc', ['-O3', '-msimd128', path.join(ROOT, 'bench', 'ceiling.c'), '-o', file, '--no-entry', '-sSTANDALONE_WASM=1'], { env });
    out.simd128 = file;
  } catch (error) {
    out.skipped.simd128 = `emcc failed: ${String(error.stderr || error.message).split('\n')[0]}`;
  }
  // the FMA ceiling: clang-16 and wasm-ld-16, as build.sh makes the relaxed kernels
  try {
    const file = path.join(build, 'ceiling-relaxed.wasm');
    if (!fresh(file)) {
      sh('clang-16', ['--target=wasm32', '-O3', '-msimd128', '-mrelaxed-simd', '-c', path.join(ROOT, 'bench', 'ceiling.c'), '-o', path.join(build, 'ceiling-relaxed.o')]);
      sh('wasm-ld-16', ['--no-entry', path.join(build, 'ceiling-relaxed.o'), '-o', file]);
    }
    out.relaxed = file;
  } catch (error) {
    out.skipped.relaxed = `clang-16 / wasm-ld-16 failed (apt-get install clang-16 lld-16): ${String(error.stderr || error.message).split('\n')[0]}`;
  }
  return out;
}

/**
 * A build's ceiling over samples of wasmCeilings taken through a run (after each round): the best
 * of them, null where none measured it. A sample in a slow spell of this shared machine can then
 * only lower the shares computed against it, never inflate them (bench/gpt.mjs, gpt-compare.mjs).
 */
export function bestCeiling(samples, key) {
  const measured = measuredOf(samples, key);
  return measured.length ? Math.max(...measured) : null;
}

/** The spread of those samples, 'lowest–highest' GFLOP/s, as the benchmarks print it. */
export function ceilingRange(samples, key) {
  const measured = measuredOf(samples, key);
  return `${Math.min(...measured).toFixed(1)}–${Math.max(...measured).toFixed(1)}`;
}

/** The samples that measured `key` (a build Node cannot run has none). */
function measuredOf(samples, key) { return samples.map((c) => c[key]).filter((x) => x); }

/**
 * { simd128, relaxed } GFLOP/s (relaxed null where Node does not run relaxed SIMD), compiled into
 * `build` by compileCeilings; `skipped` says why one could not be measured.
 */
export async function wasmCeilings(build, { iters = 2e6, rounds = 5 } = {}) {
  const compiled = compileCeilings(build);
  const out = { simd128: null, relaxed: null, skipped: { ...compiled.skipped } };
  if (compiled.simd128) out.simd128 = await ceilingOf(compiled.simd128, iters, rounds);
  if (!WebAssembly.validate(RELAXED_PROBE)) out.skipped.relaxed = 'this Node does not run relaxed SIMD';
  else if (compiled.relaxed) out.relaxed = await ceilingOf(compiled.relaxed, iters, rounds);
  return out;
}
