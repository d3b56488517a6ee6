// pretrained-report.mjs: measures the shipped pretrained poet and writes its report,
// web/data/pretrained-report.json, which the docs quote and tests/pretrained.test.js checks the
// shipped file against. A measurement of several minutes, not a test: it needs the training text
// (.build/pretrain/train.txt, written by node tools/extract-poems.mjs) and the training run's log.
//
//   node tools/pretrained-report.mjs [--model web/pretrained/tang-poet.qkvgpt]
//        [--float .build/pretrain/run/model.qkvgpt] [--run .build/pretrain/run] [--samples 2000]
//
// Everything is measured on the file that ships (int8 weights): the float32 file the trainer wrote
// is scored beside it only to state what quantization cost. What it measures:
//   - validation loss in nats per character, each validation poem (web/data/poems-val.js) scored
//     once from its start: the '\n' end-of-text token in front, every character of the poem and
//     then the end-of-text token predicted, pooled per form and over all forms; the same
//     convention as web/poetry/ngram.js's baselines (web/data/pretrained-baselines.json), so the
//     two compare directly;
//   - sampling: `samples` poems at temperature 0.8 from the end-of-text token alone (no form
//     locking, no prompt), seeds 0 .. samples - 1: the forms they fall into and, among the
//     well-formed, how often lines 2 and 4 rhyme (web/poetry/metrics.js), per form; novelty
//     against the training poems;
//   - the training run from its log: configuration, steps, CPU and wall time, the loss curve.
// The report also keeps, for the test, the per-poem losses of the first poems of each form and a
// few samples with their seeds: loading the shipped file must reproduce them.
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { fnv1a } from './extract-poems.mjs';
import { FORM_NAMES, summarize, trainingIndex } from '../web/poetry/metrics.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const MODEL = arg('--model', join(ROOT, 'web', 'pretrained', 'tang-poet.qkvgpt'));
const FLOAT = arg('--float', join(ROOT, '.build', 'pretrain', 'run', 'model.qkvgpt'));
const RUN = arg('--run', join(ROOT, '.build', 'pretrain', 'run'));
const SAMPLES = Number(arg('--samples', 2000));
const OUT = join(ROOT, 'web', 'data', 'pretrained-report.json');
const TEMPERATURE = 0.8;
const KEPT_LOSSES = 8;  // per-poem losses kept per form, for the test
const KEPT_SAMPLES = 12;

const started = performance.now();
const log = (...a) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s]`, ...a);
const round = (x, d = 5) => Number(x.toFixed(d));
const fnv1aBytes = (b) => { let h = 0x811c9dc5; for (const x of b) h = Math.imul(h ^ x, 0x01000193) >>> 0; return h; };

const qkv = await load({ gpt: true });
const bytes = new Uint8Array(readFileSync(MODEL));
const gpt = qkv.loadGPT(bytes);
log(`loaded ${MODEL}: ${gpt.layers} layers, ${gpt.heads} heads, width ${gpt.dim}, context ${gpt.context}, ` +
  `${gpt.vocab.length} tokens, kernels ${qkv.kernels}`);

/** Σ −ln p over the poem's characters and the end-of-text token, from one forward on '\n' + poem. */
export function poemLoss(model, poem) {
  const { tokens, logits } = model.forward(poem);
  const n = tokens.length, V = logits.cols, z = logits.data;
  let nats = 0;
  for (let t = 0; t < n; t++) {
    const target = t + 1 < n ? tokens[t + 1] : 0;
    let max = -Infinity;
    for (let j = 0; j < V; j++) if (z[t * V + j] > max) max = z[t * V + j];
    let sum = 0;
    for (let j = 0; j < V; j++) sum += Math.exp(z[t * V + j] - max);
    nats += max + Math.log(sum) - z[t * V + target];
  }
  return { nats, tokens: n };
}

function validation(model) {
  const out = {};
  let nats = 0, tokens = 0, poems = 0, dropped = 0;
  for (const form of FORM_NAMES) {
    const list = POEMS_VAL[form].split('\n').filter(Boolean);
    let fn = 0, ft = 0, fp = 0;
    const kept = [];
    const known = new Set(model.vocab);
    for (const poem of list) {
      if ([...poem].some((c) => !known.has(c))) { dropped++; continue; }
      const r = poemLoss(model, poem);
      fn += r.nats; ft += r.tokens; fp++;
      if (kept.length < KEPT_LOSSES) kept.push({ poem, nats: round(r.nats, 6), tokens: r.tokens });
    }
    out[form] = { poems: fp, tokens: ft, loss: round(fn / ft), first: kept };
    nats += fn; tokens += ft; poems += fp;
  }
  out.all = { poems, tokens, loss: round(nats / tokens), dropped };
  return out;
}

log('validation loss, shipped file');
const val = validation(gpt);
log(FORM_NAMES.map((f) => `${f} ${val[f].loss}`).join(', '), `all ${val.all.loss}`);
let floatVal = null;
if (existsSync(FLOAT)) {
  log('validation loss, the float32 file (quantization cost)');
  const f = qkv.loadGPT(new Uint8Array(readFileSync(FLOAT)));
  const fv = validation(f);
  floatVal = Object.fromEntries([...FORM_NAMES, 'all'].map((k) => [k, fv[k].loss]));
  f.dispose();
}

log(`sampling ${SAMPLES} poems at T = ${TEMPERATURE}`);
const poems = [];
for (let seed = 0; seed < SAMPLES; seed++) poems.push(gpt.generate('', { temperature: TEMPERATURE, seed }).text);
const text = readFileSync(join(ROOT, '.build', 'pretrain', 'train.txt'), 'utf8');
if (fnv1a(text) !== POEMS_VAL.train.checksum) throw new Error('the training text is not the one web/data/poems-val.js records');
log('novelty index');
const index = trainingIndex(text);
const summary = summarize(poems, { index });
log(`well-formed ${summary.wellFormed}; rhyme (lines 2, 4) ${JSON.stringify(Object.fromEntries(Object.entries(summary.rhyme).map(([k, v]) => [k, v.lines24])))}`);

// ---- the training run ----
const lines = readFileSync(join(RUN, 'log.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const start = lines.find((l) => l.event === 'start');
const segments = [];  // each process's (cpu, wall) at its last line: a resume starts its clocks at 0
let current = null;
for (const l of lines) {
  if (l.event) { current = { cpu: 0, wall: 0 }; segments.push(current); continue; }
  if (l.cpu !== undefined) { current.cpu = l.cpu; current.wall = l.wall; }
}
const curve = lines.filter((l) => l.step !== undefined && l.step % 100 === 0).map((l) => [l.step, l.loss]);
const monitor = lines.filter((l) => l.checkpoint !== undefined).map((l) => [l.checkpoint, l.valLossPerToken]);

// the spread: the same figures over blocks of BLOCK consecutive seeds (ranges, not one number)
const BLOCK = 200;
const blocks = [];
for (let at = 0; at + BLOCK <= poems.length; at += BLOCK) blocks.push(summarize(poems.slice(at, at + BLOCK)));
const spread = (get) => {
  const xs = blocks.map(get).filter((x) => x !== null && x !== undefined);
  return xs.length ? [round(Math.min(...xs), 4), round(Math.max(...xs), 4)] : null;
};

// the first CHECKED samples again, in a form the test recomputes exactly: their FNV-1a over the
// poems joined by '\n', and their summary (the test regenerates them from the shipped file)
const CHECKED = 100;
const checked = poems.slice(0, CHECKED);
const checkedSummary = summarize(checked);

const report = {
  model: {
    file: 'web/pretrained/tang-poet.qkvgpt', bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length,
    checksum: fnv1aBytes(bytes),
    layers: gpt.layers, heads: gpt.heads, dim: gpt.dim, context: gpt.context, vocab: gpt.vocab.length,
    parameters: start.params, steps: gpt.steps, seed: gpt.seed,
  },
  training: {
    tool: 'tools/pretrain.c (wasm/gpt.c built natively: tools/pretrain.sh)',
    text: POEMS_VAL.train,
    config: { layers: start.L, heads: start.H, dim: start.C, context: start.T, batch: start.B, lr: start.lr,
      warmup: start.warmup, steps: lines.filter((l) => l.event).at(-1).steps, seed: start.seed },
    cpuSeconds: round(segments.reduce((s, x) => s + x.cpu, 0), 0),
    wallSeconds: round(segments.reduce((s, x) => s + x.wall, 0), 0),
    hardware: `${cpus()[0].model}, one core (of ${cpus().length}), gcc -O3 -march=native`,
    lossCurve: curve,
    validationMonitor: monitor,
  },
  validation: { shipped: val, float32: floatVal },
  sampling: {
    temperature: TEMPERATURE, prompt: '', seeds: [0, SAMPLES - 1], formLocked: false,
    wellFormed: round(summary.wellFormed, 4), byForm: summary.byForm,
    rhyme: Object.fromEntries(Object.entries(summary.rhyme).map(([k, v]) =>
      [k, { poems: v.poems, lines24: v.lines24 === null ? null : round(v.lines24, 4), allEven: v.allEven === null ? null : round(v.allEven, 4) }])),
    level: summary.level === null ? null : round(summary.level, 4),
    blocks: { size: BLOCK, count: blocks.length, wellFormed: spread((b) => b.wellFormed),
      lines24: Object.fromEntries([...FORM_NAMES, 'all'].map((k) => [k, spread((b) => (b.rhyme[k].poems >= 20 ? b.rhyme[k].lines24 : null))])) },
    novelty: { ...summary.novelty, lineShare: round(summary.novelty.lineShare, 4), meanLongest: round(summary.novelty.meanLongest, 3) },
    examples: poems.slice(0, KEPT_SAMPLES).map((poem, seed) => ({ seed, poem })),
    firstSamples: { count: CHECKED, checksum: fnv1a(checked.join('\n')), wellFormed: checkedSummary.wellFormed,
      lines24: checkedSummary.rhyme.all.lines24 },
  },
};
writeFileSync(OUT, JSON.stringify(report, null, 1) + '\n');
log(`wrote ${OUT} (${statSync(OUT).size} bytes)`);
