// pretrained.mjs: the pretrained poet's generation speed, run by bench/run.mjs or alone:
//   node bench/pretrained.mjs [--smoke] [--rounds N] [--json FILE]
// - characters per second with the KV cache: qkv.loadPretrained()'s GPT writing poems from the
//   end-of-text token alone at temperature 0.8 (the report's setting: free, and locked to 五绝),
//   each round a batch of poems, seeds 0, 1, …; the figure is generated tokens (the end-of-text
//   token counts: it is a step like the others) per second of the process's CPU time, the median
//   over rounds. Every call counts whole: the prefill, the steps and reading the result back.
// - the same weights in TensorFlow.js (WebAssembly backend, one thread): parameters() of the
//   loaded GPT (the int8 file dequantized, as qkv-lab runs it) in tools/tfjs-gpt.mjs's TfGpt,
//   decoding with a KV cache of its own (TfGpt.decoder), the same sampling written in
//   JavaScript; rows interleaved with qkv-lab's in each round, and the ratio. At temperature 0
//   both take the most likely token: how many tokens agree is reported as a check.
// - the same generation in headless Chromium (Debian's, as the browser tests use it): the API
//   imported as an ES module by a page served from web/, qkv.loadPretrained() there, the same
//   poems at the same seeds; a page has no CPU clock, so its figure is wall-clock (on a quiet
//   machine one busy thread's wall time is its CPU time: the Node rows give both to compare).
//   Its batches are interleaved with the Node rows' in each round.
// - loading: from qkv.loadPretrained() to the first finished 五绝, in a fresh Node process each
//   time (the chunk import, inflating the file, the GPT engine, the first poem), median of 5,
//   wall-clock and CPU time.
// A benchmark, not a test: nothing passes or fails on a speed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { mulberry32 } from '../tools/random.mjs';
import { ensurePeers } from './peers.mjs';
import { rerunWithRelaxedSimd } from './relaxed.mjs';

rerunWithRelaxedSimd();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const SMOKE = argv.includes('--smoke');
const OUT = option('json', null);
const ROUNDS = Number(option('rounds', SMOKE ? 2 : 7));
const POEMS = SMOKE ? 1 : 8;         // poems per timed batch
const LOADS = SMOKE ? 1 : 5;         // fresh processes for the load time
const TEMPERATURE = 0.8;
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

// ---- the time to the first poem, each in a process of its own ----
const probe = `
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const { load } = await import(${JSON.stringify(path.join(ROOT, 'web', 'qkv-lab.js'))});
const qkv = await load();
const t0 = performance.now(), c0 = cpuMs();
const poet = await qkv.loadPretrained();
const t1 = performance.now();
const poem = poet.generate('', { form: 'wujue', temperature: 0.8, seed: 1 });
const t2 = performance.now();
console.log(JSON.stringify({ ms: t2 - t0, cpuMs: cpuMs() - c0, loadMs: t1 - t0, poemMs: t2 - t1, text: poem.text }));
`;
const loads = [];
for (let i = 0; i < LOADS; i++) {
  loads.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' })));
}

// ---- characters per second ----
const qkv = await load();
const poet = await qkv.loadPretrained();
const kernels = qkv.kernels;
const SETTINGS = [['free', {}], ['wujue', { form: 'wujue' }]];

function qkvRow(name, extra) {
  let seed = 0;
  return {
    id: `qkv-lab ${name}`,
    batch() {
      let chars = 0;
      const c0 = cpuMs(), t0 = performance.now();
      for (let i = 0; i < POEMS; i++) chars += poet.generate('', { temperature: TEMPERATURE, seed: seed++, ...extra }).steps.length;
      return { chars, cpu: cpuMs() - c0, wall: performance.now() - t0 };
    },
  };
}

const rows = SETTINGS.map(([name, extra]) => qkvRow(name, extra));
const results = { smoke: SMOKE, date: new Date().toISOString(), rounds: ROUNDS, poemsPerBatch: POEMS, temperature: TEMPERATURE, kernels,
  model: { layers: poet.layers, heads: poet.heads, dim: poet.dim, context: poet.context, vocab: poet.vocab.length },
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, loadAverageBefore: os.loadavg() },
  generation: {}, skipped: {}, checks: {} };

let tfModel = null;
const missingPeers = ensurePeers((line) => console.log(line));
if (missingPeers) results.skipped.tfjs = missingPeers;
else {
  try {
    const { TfGpt, gptTf } = await import('../tools/tfjs-gpt.mjs');
    const tf = await gptTf();
    const p = poet.parameters(), weights = { wte: p.wte.data, wpe: p.wpe.data, 'lnf.gamma': p.lnf.gamma.data, 'lnf.beta': p.lnf.beta.data };
    p.blocks.forEach((b, l) => {
      for (const [group, tensors] of Object.entries(b)) for (const [name, m] of Object.entries(tensors)) weights[`blocks.${l}.${group}.${name}`] = m.data;
    });
    tfModel = new TfGpt({ vocab: poet.vocab.length, layers: poet.layers, heads: poet.heads, dim: poet.dim, context: poet.context }, weights);
    const decoder = tfModel.decoder();
    tfModel.decoderInUse = decoder;
    results.tfjsBackend = tf.getBackend();
    let seed = 0;
    rows.push({
      id: 'TF.js free',
      batch() {
        let chars = 0;
        const c0 = cpuMs(), t0 = performance.now();
        for (let i = 0; i < POEMS; i++) chars += decoder.generate([0], { temperature: TEMPERATURE, random: mulberry32(seed++) }).length;
        return { chars, cpu: cpuMs() - c0, wall: performance.now() - t0 };
      },
    });
    // the check: greedy tokens of both from the end-of-text token
    const ours = poet.generate('', { temperature: 0, maxTokens: 40 }).steps.map((s) => s.token);
    const theirs = decoder.generate([0], { temperature: 0, maxTokens: 40 });
    let agree = 0;
    while (agree < Math.min(ours.length, theirs.length) && ours[agree] === theirs[agree]) agree++;
    results.checks['greedy tokens from the end-of-text token: the same in both, of the longer run (40 at most)'] = `${agree} of ${Math.max(ours.length, theirs.length)}`;
  } catch (error) {
    results.skipped.tfjs = `TF.js did not run: ${String(error.message).split('\n')[0]}`;
  }
}

// ---- the same poems in Chromium ----
let browserEnv = null;
try {
  const { openBrowser, blankPage } = await import('../tools/browser.mjs');
  browserEnv = await openBrowser();
  const page = await blankPage(browserEnv);
  const info = await page.evaluate(async () => {
    const { load } = await import('/qkv-lab.js');
    const qkv = await load();
    window.__poet = await qkv.loadPretrained();
    return { kernels: qkv.kernels };
  });
  results.chromium = { kernels: info.kernels, version: browserEnv.browser.version() };
  let seed = 0;
  rows.push({
    id: 'qkv-lab free, Chromium',
    wallOnly: true,
    async batch() {
      const from = seed;
      seed += POEMS;
      const { chars, wall } = await page.evaluate(({ from, poems, temperature }) => {
        let chars = 0;
        const t0 = performance.now();
        for (let i = 0; i < poems; i++) chars += window.__poet.generate('', { temperature, seed: from + i }).steps.length;
        return { chars, wall: performance.now() - t0 };
      }, { from, poems: POEMS, temperature: TEMPERATURE });
      return { chars, cpu: wall, wall };
    },
  });
  if (page.problems().length) throw new Error(page.problems().join('; '));
} catch (error) {
  results.skipped.chromium = `Chromium did not run: ${String(error.message).split('\n')[0]}`;
}

for (const r of rows) await r.batch();  // warm up
const runs = new Map(rows.map((r) => [r.id, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[(i + round) % rows.length];
    runs.get(r.id).push(await r.batch());
  }
}
if (browserEnv) await browserEnv.close();
for (const r of rows) {
  const xs = runs.get(r.id);
  results.generation[r.id] = {
    // a page's row: wall-clock (charsPerSecond and wallCharsPerSecond are the same figure)
    charsPerSecond: median(xs.map((x) => (1000 * x.chars) / x.cpu)),
    wallCharsPerSecond: median(xs.map((x) => (1000 * x.chars) / x.wall)),
    ...(r.wallOnly ? { clock: 'wall' } : {}),
    msPerPoem: median(xs.map((x) => x.cpu / POEMS)),
    runs: xs.map((x) => +((1000 * x.chars) / x.cpu).toFixed(0)),
  };
}
if (tfModel) { tfModel.decoderInUse.dispose(); tfModel.dispose(); }
poet.dispose();
const g = results.generation;
if (g['TF.js free']) results.ratio = { 'qkv-lab ÷ TF.js, free poems (characters per second)': g['qkv-lab free'].charsPerSecond / g['TF.js free'].charsPerSecond };
results.load = {
  msToFirstPoem: median(loads.map((x) => x.ms)), cpuMsToFirstPoem: median(loads.map((x) => x.cpuMs)),
  loadMs: median(loads.map((x) => x.loadMs)), poemMs: median(loads.map((x) => x.poemMs)),
  runs: loads.map((x) => +x.ms.toFixed(0)), poem: loads[0].text,
};
results.machine.loadAverageAfter = os.loadavg();
const targets = [];
const add = (target, value, met) => targets.push(SMOKE ? { target, value: `smoke: ${value}`, met: null } : { target, value, met });
const free = g['qkv-lab free'].charsPerSecond;
add('the pretrained poet writes ≥ 1,000 characters per second with the KV cache in Node',
  `${free.toFixed(0)} characters/s free, ${g['qkv-lab wujue'].charsPerSecond.toFixed(0)} locked to 五绝 (${kernels} kernels, CPU time)` +
  (g['TF.js free'] ? `; TF.js on the same weights ${g['TF.js free'].charsPerSecond.toFixed(0)}/s (${results.ratio['qkv-lab ÷ TF.js, free poems (characters per second)'].toFixed(1)}×)` : ''),
  free >= 1000);
const inChromium = g['qkv-lab free, Chromium'];
add('the pretrained poet\'s characters per second with the KV cache in Chromium (reported beside Node\'s)',
  inChromium ? `${inChromium.charsPerSecond.toFixed(0)} characters/s free (${results.chromium.kernels} kernels, wall-clock in the page), ` +
    `Node ${g['qkv-lab free'].wallCharsPerSecond.toFixed(0)}/s wall-clock in the same rounds` : results.skipped.chromium,
  null);
add('loading it and writing the first poem ≤ 1 s (on a quiet machine)',
  `${results.load.msToFirstPoem.toFixed(0)} ms wall (${results.load.cpuMsToFirstPoem.toFixed(0)} ms CPU), median of ${LOADS} fresh processes, load average ${results.machine.loadAverageBefore[0].toFixed(1)}`,
  results.load.msToFirstPoem <= 1000);
results.targets = targets;

console.log(`Pretrained poet (${poet.layers} layers, dim ${poet.dim}, V ${poet.vocab.length}), T = ${TEMPERATURE}, ${ROUNDS} rounds of ${POEMS} poems, ` +
  `median CPU time; load average ${results.machine.loadAverageBefore[0].toFixed(2)} → ${results.machine.loadAverageAfter[0].toFixed(2)}:`);
for (const [id, x] of Object.entries(g)) console.log(`  ${id.padEnd(24)} ${x.charsPerSecond.toFixed(0).padStart(6)} characters/s (${x.msPerPoem.toFixed(1)} ms a poem; wall ${x.wallCharsPerSecond.toFixed(0)}/s)`);
for (const [k, v] of Object.entries(results.skipped)) console.log(`  skipped ${k}: ${v}`);
for (const [k, v] of Object.entries(results.checks)) console.log(`  check: ${k}: ${v}`);
console.log(`  loadPretrained() to the first 五绝: ${results.load.msToFirstPoem.toFixed(0)} ms wall, ${results.load.cpuMsToFirstPoem.toFixed(0)} ms CPU (load ${results.load.loadMs.toFixed(0)} ms, poem ${results.load.poemMs.toFixed(0)} ms; runs ${results.load.runs.join(', ')})`);
for (const x of targets) console.log(`  ${x.met === null ? '—     ' : x.met ? 'met   ' : 'MISSED'} ${x.target}: ${x.value}`);
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 1));
