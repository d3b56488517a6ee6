// gpt.mjs: the GPT's speed (issue 17's "Speed"), run by bench/run.mjs or alone:
//   node bench/gpt.mjs [--smoke] [--json FILE]
// - training throughput (characters per second: batch × context per step) of the default GPT on
//   the Tang quatrains, with qkv-lab's SIMD128 and scalar kernels and the same C natively
//   (gcc -O3 -march=native, bench/gpt-native.c), CPU time per step (median of 3 timed runs);
// - generation (tokens per second, CPU time) with and without the KV cache after prompts of
//   8, 32 and 128 characters (a GPT of the default shape with context 256 and batch 1, untrained: the cost
//   depends on the shape only).
// Not measured here (yet): TensorFlow.js's version of the model, and the page's frame rate while
// it trains. A benchmark, not a test: nothing passes or fails on a speed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, simdSupported } from '../web/qkv-lab.js';
import { GPT_DEFAULTS } from '../web/gpt.js';
import { QUATRAINS } from '../web/data/quatrains.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const jsonAt = argv.indexOf('--json');
const OUT = jsonAt >= 0 ? argv[jsonAt + 1] : null;
const STEPS = SMOKE ? 2 : 20;
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const cpu = (fn) => {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;  // ms
};

const config = SMOKE ? { ...GPT_DEFAULTS, layers: 1, dim: 16, heads: 2, batch: 2, context: 16 } : { ...GPT_DEFAULTS };
const text = QUATRAINS.poems;
const results = { smoke: SMOKE, config, training: {}, generation: [] };

function trainingMs(lab) {
  const gpt = lab.createGPT({ text, ...config });
  gpt.step();
  const runs = [0, 1, 2].map(() => cpu(() => { for (let i = 0; i < STEPS; i++) gpt.step(); }) / STEPS);
  const V = gpt.vocab.length;
  gpt.dispose();
  return { ms: median(runs), V };
}

const builds = [['scalar', await load({ simd: false, fresh: true, gpt: true })]];
if (simdSupported()) builds.unshift(['simd', await load({ simd: true, fresh: true, gpt: true })]);
let V = 0;
for (const [name, lab] of builds) {
  const { ms, V: v } = trainingMs(lab);
  V = v;
  results.training[name] = { msPerStep: ms, charsPerSecond: (config.batch * config.context * 1000) / ms };
}
try {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-gpt-bench-'));
  const exe = path.join(dir, 'gpt-native');
  const sources = fs.readdirSync(path.join(ROOT, 'wasm')).filter((f) => f.endsWith('.c')).map((f) => path.join(ROOT, 'wasm', f));
  execFileSync('gcc', ['-std=c11', '-O3', '-march=native', '-I', path.join(ROOT, 'wasm'), path.join(ROOT, 'bench', 'gpt-native.c'),
    ...sources, '-lm', '-o', exe], { stdio: ['ignore', 'pipe', 'pipe'] });
  const c = config;
  const out = JSON.parse(execFileSync(exe, [V, c.layers, c.heads, c.dim, c.context, c.batch, STEPS].map(String), { encoding: 'utf8' }));
  results.training.native = { msPerStep: out.msPerStep, charsPerSecond: (c.batch * c.context * 1000) / out.msPerStep };
  fs.rmSync(dir, { recursive: true, force: true });
} catch (error) {
  results.training.native = { skipped: String(error.message).split('\n')[0] };
}

// generation
const lab = builds[0][1];
const gen = lab.createGPT({ text, ...config, batch: 1, context: SMOKE ? 64 : 256 });
const chars = Array.from(text.replace(/\n/g, ''));
const NEW = SMOKE ? 4 : 16;  // without the cache, 16 tokens after 128 stay within the work limit
for (const promptLength of SMOKE ? [8, 32] : [8, 32, 128]) {
  const prompt = chars.slice(0, promptLength).join('');
  const row = { promptLength };
  for (const cache of [true, false]) {
    const runs = [];
    let tokens = 0;
    for (let r = 0; r < 3; r++) {
      const ms = cpu(() => {
        // the untrained GPT rarely picks the end-of-text token; count what it generated
        tokens = gen.generate(prompt, { maxTokens: NEW, seed: r, cache }).steps.length;
      });
      runs.push(ms / tokens);
    }
    row[cache ? 'cache' : 'noCache'] = { msPerToken: median(runs), tokensPerSecond: 1000 / median(runs) };
  }
  results.generation.push(row);
}
gen.dispose();

const f = (x, d = 1) => (x === undefined ? '—' : x.toFixed(d));
console.log(`GPT training (${config.layers} layers, dim ${config.dim}, ${config.heads} heads, context ${config.context}, batch ${config.batch}, V ${V}), CPU time:`);
for (const [name, r] of Object.entries(results.training)) {
  console.log(`  ${name.padEnd(7)} ${r.skipped ? `skipped: ${r.skipped}` : `${f(r.msPerStep)} ms/step, ${f(r.charsPerSecond, 0)} characters/s`}`);
}
const t = results.training;
if (t.native && t.native.msPerStep && t.simd) console.log(`  SIMD / native: ${(t.native.msPerStep / t.simd.msPerStep).toFixed(2)}× native's throughput`);
console.log(`GPT generation (${builds[0][0]} kernels, context ${SMOKE ? 64 : 256}, ${NEW} new tokens), CPU time per token:`);
for (const r of results.generation) {
  console.log(`  prompt ${String(r.promptLength).padStart(3)}: with the KV cache ${f(r.cache.msPerToken, 2)} ms (${f(r.cache.tokensPerSecond, 0)}/s), ` +
    `without ${f(r.noCache.msPerToken, 2)} ms (${f(r.noCache.tokensPerSecond, 0)}/s)`);
}
if (OUT) fs.writeFileSync(OUT, JSON.stringify(results, null, 1));
