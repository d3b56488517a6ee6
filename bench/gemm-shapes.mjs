// gemm-shapes.mjs: the products of the default GPT's training step, alone, through the kernels'
// raw exports, for two trees side by side in one process (interleaved rounds):
//   node bench/gemm-shapes.mjs [--before DIR] [--kernels relaxed-simd,simd128] [--rounds N]
// DIR holds another tree's web/ with its dist/ built (see bench/gpt-compare.mjs). The figure is
// the median over rounds of the CPU time per call, as GFLOP/s (2 FLOP per multiply-add), with the
// 256³ product as a yardstick. A benchmark: nothing passes or fails.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_PROBE, rerunWithRelaxedSimd } from './relaxed.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const BEFORE = option('before', null);
const ROUNDS = Number(option('rounds', 7));
const KERNELS = option('kernels', 'relaxed-simd,simd128').split(',').filter((k) => k !== 'relaxed-simd' || WebAssembly.validate(RELAXED_PROBE));
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

// [label, kernel export, n, k, m, how it is called]: the GPT's shapes (BT 512, C 64, V 3,644)
const SHAPES = [
  ['logits A·B 512×64·64×3644', 'matmul_forward', 512, 64, 3644],
  ['dlnf C+A·B 512×3644·3644×64', 'matmul_accumulate', 512, 3644, 64],
  ['dwteᵀ C+Aᵀ·B (512×64)ᵀ·512×3644', 'dB', 64, 512, 3644],
  ['dwte C+Aᵀ·B (512×3644)ᵀ·512×64', 'dB', 3644, 512, 64],
  ['fc A·B 512×64·64×256', 'matmul_forward', 512, 64, 256],
  ['dgelu A·Bᵀ 512×64·(256×64)ᵀ', 'dA', 512, 64, 256],
  ['dln2 A·Bᵀ 512×256·(64×256)ᵀ', 'dA', 512, 256, 64],
  ['dfcw C+Aᵀ·B (512×64)ᵀ·512×256', 'dB', 64, 512, 256],
  ['dfcprojw C+Aᵀ·B (512×256)ᵀ·512×64', 'dB', 256, 512, 64],
  ['yardstick A·B 256×256·256×256', 'matmul_forward', 256, 256, 256],
];

async function rowsOf(tree, when) {
  const { load } = await import(path.join(path.resolve(tree), 'web', 'qkv-lab.js'));
  const rows = [];
  for (const kernels of KERNELS) {
    const lab = await load({ kernels, fresh: true });
    const heap = lab._heap, k = heap.kernels, mem = heap.allocations('gemm-shapes');
    for (const [label, how, n, kk, m] of SHAPES) {
      const floats = (count) => { const p = mem.floats(count); heap.writeFloats(p, Float32Array.from({ length: count }, (_, i) => Math.sin(i) * 0.5)); return p; };
      // dA += dout (n, m) . B^T where B is (k, m) -> (n, k): matmul_backward(dA, 0, dout, _, B, n, k, m)
      // here written as out (n, kk) = A (n, m') . (kk, m')^T with the label's sides: n, kk = sides of out, m = inner
      let call;
      if (how === 'dA') {
        const dout = floats(n * kk), B = floats(m * kk), dA = floats(n * m);
        call = () => k.matmul_backward(dA, 0, dout, 0, B, n, m, kk);
      } else if (how === 'dB') {
        // dB (n, m) += A^T . dout with A (kk, n), dout (kk, m): matmul_backward(0, dB, dout, A, _, kk, n, m)
        const A = floats(kk * n), dout = floats(kk * m), dB = floats(n * m);
        call = () => k.matmul_backward(0, dB, dout, A, 0, kk, n, m);
      } else {
        const A = floats(n * kk), B = floats(kk * m), out = floats(n * m);
        call = () => k[how](out, A, B, n, kk, m);
      }
      call();
      rows.push({ id: `${label} | ${kernels} ${when}`, label, kernels, when, flops: 2 * n * kk * m, call });
    }
  }
  return rows;
}

const rows = [...(BEFORE ? await rowsOf(BEFORE, 'before') : []), ...await rowsOf(ROOT, 'after')];
const times = new Map(rows.map((r) => [r.id, []]));
const loadBefore = os.loadavg()[0];
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[(i + round) % rows.length];
    let calls = 0; const c0 = cpuUs(); let dt = 0;
    do { r.call(); calls++; dt = cpuUs() - c0; } while (dt < 20000);
    times.get(r.id).push(dt / calls);
  }
}
console.log(`median CPU time per call over ${ROUNDS} interleaved rounds; load average ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`);
const whens = BEFORE ? ['before', 'after'] : ['after'];
console.log(`| product | ${KERNELS.flatMap((k) => whens.map((w) => `${k} ${w}`)).join(' | ')} |`);
console.log(`|---|${KERNELS.flatMap(() => whens.map(() => '---:')).join('|')}|`);
for (const [label] of SHAPES) {
  const cells = KERNELS.flatMap((k) => whens.map((w) => {
    const r = rows.find((x) => x.label === label && x.kernels === k && x.when === w), us = median(times.get(r.id));
    return `${(us / 1000).toFixed(2)} ms (${(r.flops / us / 1e3).toFixed(1)})`;
  }));
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
