// The benchmark (npm run bench) must keep running: bench/run.mjs --smoke goes through every case
// and implementation at tiny sizes, twice, and writes its results. Nothing here looks at a
// speed (the machine may be busy): only that every row ran, gave finite times, and that the
// implementations computed the same attention outputs and the same first training loss.
// The benchmark's peers (TensorFlow.js, onnxruntime-web) are not in the package's npm ci: run.mjs
// installs them from bench/package-lock.json the first time (bench/peers.mjs), and this test
// fails if they could not be installed (every implementation must have run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('bench/run.mjs --smoke runs every case through every implementation', { timeout: 600000 }, () => {
  const out = path.join(os.tmpdir(), `qkv-bench-smoke-${process.pid}.json`);
  const env = { ...process.env };
  delete env.QKV_LAB_SIMD;
  execFileSync(process.execPath, [path.join(ROOT, 'bench', 'run.mjs'), '--smoke', '--json', out],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 590000 });
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  fs.rmSync(out);
  assert.equal(r.smoke, true);
  // everything the benchmark compares ran here (a skip would be listed with its reason)
  // (the relaxed-SIMD rows and ceiling only where clang-16 is installed, which build.sh sees to)
  assert.deepEqual(Object.keys(r.skipped).filter((k) => k !== 'onnxTraining'), [], JSON.stringify(r.skipped));
  // the relaxed-SIMD rows: where build.sh made those kernels (clang-16) and Node runs them (run.mjs
  // runs itself again with --experimental-wasm-relaxed-simd)
  const relaxed = r.skipped['qkv-relaxed'] ? [] : ['qkv-relaxed'];
  const kernel = r.skipped['qkv-relaxed'] ? [] : ['relaxed-kernel'];
  const expected = {
    attention: [...relaxed, ...kernel, 'qkv-simd', 'qkv-scalar', 'simd-kernel', 'native', 'native-fast', 'plain-js', 'tfjs', 'onnx'],
    'resident-attention': [...relaxed, ...kernel, 'qkv-simd', 'simd-kernel', 'tfjs', 'onnx'],
    article: [...relaxed, 'qkv-simd', 'qkv-scalar', 'native', 'native-fast', 'plain-js', 'tfjs', 'onnx'],
    matmul: [...relaxed, ...kernel, 'qkv-simd', 'qkv-scalar', 'simd-kernel', 'native', 'native-fast', 'plain-js', 'tfjs', 'onnx'],
    'resident-matmul': [...relaxed, 'qkv-simd', 'tfjs', 'onnx'],
    step: [...relaxed, 'qkv-simd', 'qkv-scalar', 'native', 'native-fast', 'plain-js', 'tfjs'],
    schedule: [...relaxed, 'qkv-simd', 'qkv-scalar', 'native', 'native-fast', 'plain-js', 'tfjs'],
  };
  assert.ok(r.cases.filter((c) => c.id.startsWith('attention')).length >= 3);
  assert.equal(r.cases.filter((c) => c.id.startsWith('resident-attention')).length, r.cases.filter((c) => c.id.startsWith('attention')).length,
    'both methodologies at every attention size');
  for (const c of r.cases) {
    const kind = Object.keys(expected).sort((a, b) => b.length - a.length).find((k) => c.id.startsWith(k));
    assert.ok(kind, `unexpected case ${c.id}`);
    assert.deepEqual(Object.keys(c.results).sort(), expected[kind].slice().sort(), c.id);
    for (const [impl, { median, runs }] of Object.entries(c.results)) {
      assert.ok(Number.isFinite(median) && median > 0, `${c.id} ${impl}: median ${median}`);
      assert.ok(runs.length >= Math.min(3, r.rounds) && runs.length <= r.rounds, `${c.id} ${impl}: ${runs.length} rounds`);
    }
  }
  // the implementations agree (attention outputs to float32 rounding; the first loss)
  for (const [key, value] of Object.entries(r.checks)) {
    if (/^(resident )?attention/.test(key)) assert.ok(value < 1e-5, `${key}: max |diff| ${value}`);
  }
  const loss = r.checks['first step loss qkv-lab'];
  for (const impl of ['plain-js', 'tfjs']) {
    assert.ok(Math.abs(r.checks[`first step loss ${impl}`] - loss) < 1e-4, `${impl} first loss vs qkv-lab ${loss}`);
  }
  assert.ok(r.ceilings.wasm.gflops > 0 && r.ceilings.wasmRelaxed.gflops > 0 && r.ceilings.native.fma256 > 0);
  assert.ok(r.page && r.page.timeToNumbers.served.median > 0 && r.page.frames.length === 2);
  assert.ok(r.sizes.apiBundleMinified.gzip > 0 && r.sizes.widget.gzip > 0);
  assert.equal(r.targets.length, 14, 'every target is reported: met, missed, or not measured at smoke sizes');
});
