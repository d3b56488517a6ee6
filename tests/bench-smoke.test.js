// The benchmark (npm run bench) must keep running: bench/run.mjs --smoke goes through every case
// and implementation at tiny sizes, twice, and writes its results. Nothing here looks at a
// speed (the machine may be busy): only that every row ran, gave finite times, and that the
// implementations computed the same attention outputs and the same first training loss. The GPT's
// rows (bench/gpt.mjs, which run.mjs runs last) likewise: every row ran, and the kernel builds
// computed the same model (SIMD128 and scalar bit for bit, relaxed SIMD within float rounding).
// The benchmark's peers (TensorFlow.js, onnxruntime-web) are not in the package's npm ci:
// `./build.sh setup` and `./build.sh test` install them from bench/package-lock.json, and this test
// fails without them (every implementation must have run) rather than install them itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { requirePeers } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
requirePeers();

test('bench/run.mjs --smoke runs every case through every implementation', { timeout: 600000 }, () => {
  const out = path.join(os.tmpdir(), `qkv-bench-smoke-${process.pid}.json`);
  const gptOut = path.join(os.tmpdir(), `qkv-bench-gpt-smoke-${process.pid}.json`);
  const pretrainedOut = path.join(os.tmpdir(), `qkv-bench-pretrained-smoke-${process.pid}.json`);
  const env = { ...process.env };
  delete env.QKV_LAB_SIMD;
  delete env.QKV_BROWSER_WS;   // the benchmark times its page in a browser of its own
  execFileSync(process.execPath, [path.join(ROOT, 'bench', 'run.mjs'), '--smoke', '--json', out, '--gpt-json', gptOut,
    '--pretrained-json', pretrainedOut],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 590000 });
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  const g = JSON.parse(fs.readFileSync(gptOut, 'utf8'));
  const p = JSON.parse(fs.readFileSync(pretrainedOut, 'utf8'));
  fs.rmSync(out);
  fs.rmSync(gptOut);
  fs.rmSync(pretrainedOut);
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
  // the writer's frames while its worker trains (how many frames or steps a second gives is
  // the machine's business: the record's shape only)
  const w = r.page.writerFrames;
  assert.ok(w && Number.isInteger(w.frames) && Number.isInteger(w.steps) && Number.isInteger(w.longTasks), JSON.stringify(w));
  // the same on the page's own thread, under a strict CSP that refuses the worker
  const wc = r.page.writerFramesStrictCsp;
  assert.ok(wc && Number.isInteger(wc.frames) && Number.isInteger(wc.steps) && Number.isInteger(wc.longTasks) && wc.thread === 'page', JSON.stringify(wc));
  // the same while the poet is fine-tuned in the section's worker
  const ft = r.page.finetuneFrames;
  assert.ok(ft && Number.isInteger(ft.frames) && Number.isInteger(ft.steps) && Number.isInteger(ft.longTasks) && ft.thread === 'worker', JSON.stringify(ft));
  assert.ok(r.sizes.apiBundleMinified.gzip > 0 && r.sizes.widget.gzip > 0);
  // sizes do not vary between runs (unlike speeds): the API's first load is held to its 30 KiB here
  // (docs/performance.md, "The targets"; the GPT's kernels left it for the GPT engine's chunk when
  // they had put it over)
  assert.ok(r.sizes.apiBundleMinified.gzip <= 30 * 1024,
    `the API's first load, minified: ${r.sizes.apiBundleMinified.gzip} bytes gzipped, over 30 KiB (${30 * 1024})`);
  assert.equal(r.targets.length, 18, 'every target is reported: met, missed, or not measured at smoke sizes');
  // the corpus cases' target is judged from what was measured (every case, the refused pastes too)
  const corpusTarget = r.targets.find((t) => /largest corpus it accepts/.test(t.target));
  assert.ok(corpusTarget && typeof corpusTarget.met === 'boolean', JSON.stringify(corpusTarget));
  assert.equal(corpusTarget.met, r.page.inputs.every((c) => c.longestTask <= 100));

  // the GPT: every training row, side by side in one run
  assert.equal(g.smoke, true);
  const relaxedGpt = g.skipped.relaxed ? [] : ['relaxed'];
  assert.deepEqual(Object.keys(g.skipped).filter((k) => k !== 'relaxed'), [], JSON.stringify(g.skipped));
  assert.equal(Boolean(g.skipped.relaxed), Boolean(r.skipped['qkv-relaxed']), 'relaxed SIMD runs in both or in neither');
  assert.deepEqual(Object.keys(g.training).sort(), [...relaxedGpt, 'simd', 'scalar', 'native', 'native-fast', 'tfjs', 'tfjs-xnnpack', 'chromium'].sort());
  // the page's GPT is the same model as Node's on the same kernels (its first loss, bit for bit)
  assert.equal(g.checks['Chromium − Node first loss, the same kernels'], 0);
  assert.equal(g.training.chromium.clock, 'wall');
  for (const [id, row] of Object.entries(g.training)) {
    assert.ok(Number.isFinite(row.msPerStep) && row.msPerStep > 0 && Number.isFinite(row.charsPerSecond), `${id}: ${JSON.stringify(row)}`);
    assert.equal(row.runs.length, g.rounds, `${id}: one batch a round`);
    // every model starts near a uniform guess, ln V (weights of size 0.02)
    if (!id.startsWith('native')) assert.ok(Math.abs(row.firstLoss - g.checks.lnV) < 0.1, `${id}: first loss ${row.firstLoss}, ln V ${g.checks.lnV}`);
  }
  assert.equal(g.checks['simd − scalar loss after the same steps'], 0, 'SIMD128 and scalar kernels give the same loss bit for bit');
  if (relaxedGpt.length) assert.ok(Math.abs(g.checks['relaxed − simd loss after the same steps']) < 1e-4, 'relaxed SIMD: the same model to float rounding');
  assert.ok(Object.values(g.ratios).every((v) => v === null || typeof v === 'string' || Number.isFinite(v)), JSON.stringify(g.ratios));
  assert.deepEqual(g.generation.map((x) => x.promptLength), [8, 32]);
  // a difference of two timings (the prefill taken out): finite, its size the benchmark's business
  assert.ok(g.generation.every((x) => Number.isFinite(x.cache.msPerToken) && Number.isFinite(x.noCache.msPerToken)), JSON.stringify(g.generation));
  // both ceilings measured in the same run (the relaxed one where this Node runs relaxed SIMD)
  assert.ok(g.ceilings.simd128 > 0 && g.ceilings.flopsPerStep > 0, JSON.stringify(g.ceilings));
  if (relaxedGpt.length) assert.ok(g.ceilings.relaxed > 0, JSON.stringify(g.ceilings));
  assert.equal(g.targets.length, 8, 'the eight GPT targets, reported (not judged) at smoke sizes');
  assert.ok(g.targets.every((t) => t.met === null));

  // the pretrained poet: qkv-lab and TF.js on the same weights in one run, and the load time
  assert.equal(p.smoke, true);
  assert.deepEqual(p.skipped, {});
  assert.deepEqual(Object.keys(p.generation).sort(), ['TF.js free', 'qkv-lab free', 'qkv-lab free, Chromium', 'qkv-lab wujue']);
  assert.equal(p.generation['qkv-lab free, Chromium'].clock, 'wall', 'a page has no CPU clock: its row says it is wall-clock');
  for (const [id, row] of Object.entries(p.generation)) {
    assert.ok(Number.isFinite(row.charsPerSecond) && row.charsPerSecond > 0 && row.runs.length === p.rounds, `${id}: ${JSON.stringify(row)}`);
  }
  assert.ok(Number.isFinite(p.ratio['qkv-lab ÷ TF.js, free poems (characters per second)']));
  assert.ok(Number.isFinite(p.load.msToFirstPoem) && [...p.load.poem].length === 24, JSON.stringify(p.load));
  assert.equal(p.targets.length, 3);
  assert.ok(p.targets.every((t) => t.met === null));
});
