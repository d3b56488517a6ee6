// relaxed.mjs: Node 20 validates relaxed SIMD only with --experimental-wasm-relaxed-simd. A
// benchmark script calls rerunWithRelaxedSimd() first: where this Node refuses the probe, the
// script runs itself again with the flag and exits with that run's status; where Node does not
// know the flag either (it exits 9), the script goes on here, without the relaxed rows.
import { spawnSync } from 'node:child_process';

/** The smallest module with f32x4.relaxed_madd (0xfd 0x105) of three splats (web/qkv-lab.js's probe). */
export const RELAXED_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11);

export function rerunWithRelaxedSimd() {
  if (WebAssembly.validate(RELAXED_PROBE) || process.env.QKV_BENCH_RELAXED_TRIED) return;
  const again = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, QKV_BENCH_RELAXED_TRIED: '1' } });
  // 9: Node did not know the flag: go on here, without the relaxed rows
  if (again.status !== 9) process.exit(again.status ?? 1);
}
