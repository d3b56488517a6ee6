// microkernel.mjs: the GEMM micro-kernel alone (bench/microkernel.c: wasm/matrix.c's 4 x 8 tile and
// variants of it) on operands in L1, beside the arithmetic ceiling of the same build, in one process:
//   node bench/microkernel.mjs [--rounds N]
// Rows, for relaxed SIMD (clang-16 + wasm-ld-16, fused multiply-add) and SIMD128 (emcc, multiply
// then add): each variant's GFLOP/s (2 FLOP per multiply-add; the median and the best over
// interleaved rounds of CPU time) and its share of the build's ceiling (bench/ceiling.c, measured
// in the same rounds, the best sample). docs/performance.md ("Chains, a kept tanh, and where the
// products' time goes") reads it. A benchmark: nothing passes or fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE, rerunWithRelaxedSimd } from './relaxed.mjs';
import { wasmCeilings } from './ceilings.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const ROUNDS = Number(option('rounds', 9));
const BUILD = path.join(ROOT, '.build', 'bench');
fs.mkdirSync(BUILD, { recursive: true });
const SOURCE = path.join(ROOT, 'bench', 'microkernel.c');
const sh = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const VARIANTS = [['tile_4x8', 4, 'the SIMD128 kernel of wasm/matrix.c'], ['tile_5x8', 5, '5 rows'], ['tile_6x8', 6, '6 rows'],
  ['tile_4x8_pre', 4, 'A packed already broadcast'], ['tile_4x8_shuf', 4, 'A as one vector, splat by shuffles'],
  ['tile_5x8_shuf', 5, '5 rows, rows 0-3 as one vector split by shuffles: the relaxed kernel of wasm/matrix.c']];
const STEPS = 256, REPS = 4000;

const builds = [];
const simdFile = path.join(BUILD, 'microkernel-simd128.wasm');
try {
  sh('emcc', ['-O3', '-msimd128', SOURCE, '-o', simdFile, '--no-entry', '-sSTANDALONE_WASM=1']);
  builds.push({ name: 'simd128', file: simdFile });
} catch (error) {
  console.log(`SIMD128 build skipped: emcc failed: ${String(error.stderr || error.message).split('\n')[0]}`);
}
if (WebAssembly.validate(RELAXED_PROBE)) {
  const relaxedFile = path.join(BUILD, 'microkernel-relaxed.wasm');
  try {
    const sysroot = sh('emcc', ['--cflags']).split(/\s+/).find((f) => f.startsWith('--sysroot='));
    // as build.sh compiles the relaxed kernels: without loop strength reduction
    sh('clang-16', ['--target=wasm32-unknown-emscripten', ...(sysroot ? [sysroot] : []), '-O3', '-msimd128', '-mrelaxed-simd',
      '-mllvm', '-disable-lsr', '-fno-builtin', '-c', SOURCE, '-o', path.join(BUILD, 'microkernel-relaxed.o')]);
    sh('wasm-ld-16', ['--no-entry', path.join(BUILD, 'microkernel-relaxed.o'), '-o', relaxedFile]);
    builds.unshift({ name: 'relaxed', file: relaxedFile });
  } catch (error) {
    console.log(`relaxed-SIMD build skipped: clang-16 / wasm-ld-16 failed: ${String(error.stderr || error.message).split('\n')[0]}`);
  }
}

for (const b of builds) {
  b.exports = (await WebAssembly.instantiate(fs.readFileSync(b.file), {})).instance.exports;
  b.exports.fill();
  for (const [name] of VARIANTS) b.exports[name](REPS / 4);  // warm up: V8's optimised code
  b.times = Object.fromEntries(VARIANTS.map(([name]) => [name, []]));
}
const ceilingSamples = [];
const loadBefore = os.loadavg()[0];
for (let round = 0; round < ROUNDS; round++) {
  for (const b of builds) {
    for (let i = 0; i < VARIANTS.length; i++) {
      const [name] = VARIANTS[(i + round) % VARIANTS.length];
      const c0 = cpuUs(); b.exports[name](REPS); b.times[name].push(Math.max(cpuUs() - c0, 1));
    }
  }
  ceilingSamples.push(await wasmCeilings(BUILD, { rounds: 1 }));
}
const ceiling = (key) => Math.max(...ceilingSamples.map((c) => c[key] ?? 0));
console.log(`GEMM micro-kernel alone, K = ${STEPS} steps a call, operands in L1; ${ROUNDS} interleaved rounds of ${REPS} calls; load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`);
console.log('| build | tile | GFLOP/s median (best) | share of the ceiling (median) |\n|---|---|---|---|');
for (const b of builds) {
  const c = ceiling(b.name === 'relaxed' ? 'relaxed' : 'simd128');
  for (const [name, mr, what] of VARIANTS) {
    const flop = 2 * mr * 8 * STEPS * REPS;
    const rates = b.times[name].map((us) => flop / us / 1e3);
    console.log(`| ${b.name} (ceiling ${c.toFixed(1)}) | ${name}: ${what} | ${median(rates).toFixed(1)} (${Math.max(...rates).toFixed(1)}) | ${Math.round((100 * median(rates)) / c)}% |`);
  }
}
