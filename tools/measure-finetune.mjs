#!/usr/bin/env node
// measure-finetune.mjs: what fine-tuning the shipped pretrained poet does, measured into
// web/data/finetune-report.json (docs/finetune.md quotes it through tools/docs-tables.mjs;
// tests/finetune-report.test.js checks that the report is consistent and that its defaults are
// the API's). Nothing here runs in the tests: a run takes minutes.
//
//   node tools/measure-finetune.mjs run [--seeds 0,1,2,3,4] [--runs lora-r4,full,...] [--samples 100] [--log FILE] [--steps N]
//   node tools/measure-finetune.mjs report [--log FILE ...]      (assembles the report from the logs)
//   node tools/measure-finetune.mjs memory     (renews the report's memoryBytes from today's engine:
//                                              they follow from the shapes and texts, not from training)
//
// `run` appends one JSON line per (run, seed) to its log (default .build/finetune/runs.jsonl), so
// a long measurement can be split across processes (one per core) and survives a stop; `report`
// reads every log given and writes the report. The runs, each from the same base:
//   lora-r4   the defaults of gpt.finetune (FINETUNE_DEFAULTS) on 浣溪沙
//   full      method 'full' on the same steps and batch (its own default lr)
//   lora-r1, lora-r16   the defaults with rank 1 and 16, α kept at the default's as Hu et al. keep
//             it (so the scale α/r falls as r grows; with α/r kept at 2, α 32, r 16 lost the form:
//             1 % well formed and baseVal 7.07 on seed 0)
//   poet-lora-r4, poet-full   the same two on 李白's 绝句
// and for each: CPU seconds of the schedule (process.cpuUsage: the machine is shared, wall time
// is not the engine's), the form rate of `samples` unprompted samples at temperature 0.8 with no
// form locking (浣溪沙: six sentences of seven Han characters closed by 。。。，。。, then the
// end-of-text token), the rate at which lines 2 and 4 rhyme in `samples` 五绝 asked for with
// form 'wujue' (web/poetry/metrics.js), baseVal (evaluate(): the pretrained poet's held-out poems
// of web/data/poems-val.js) before and after, the held-out loss of the set's own held-out poems
// (evaluatePoems) before and after, the trainable count and the adapter's size.
import { readFileSync, writeFileSync, appendFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { FINETUNE_DEFAULTS } from '../web/finetune.js';
import { FINETUNE_SETS } from '../web/data/poems-finetune.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { rhyme } from '../web/poetry/metrics.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODEL = 'web/pretrained/tang-poet.qkvgpt';
const REPORT = 'web/data/finetune-report.json';
const TEMPERATURE = 0.8;
/** Samples are seeded SAMPLE_SEED + i, the same for every model. */
const SAMPLE_SEED = 1000;

/** The runs: the set, and what they change of the defaults. */
export const RUNS = {
  'lora-r4': { set: 'huanxisha', options: {} },
  full: { set: 'huanxisha', options: { method: 'full' } },
  'lora-r1': { set: 'huanxisha', options: { rank: 1 } },
  'lora-r16': { set: 'huanxisha', options: { rank: 16 } },
  'poet-lora-r4': { set: 'poet', options: {} },
  'poet-full': { set: 'poet', options: { method: 'full' } },
};

const args = process.argv.slice(2);
const command = args[0];
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const options = (name) => args.flatMap((a, i) => (args[i - 1] === name ? [a] : []));


function cpuSeconds(since) {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** 浣溪沙's form: six sentences of seven Han characters, each closed by the tune's mark. */
function isHuanxisha(poem) {
  const marks = poem.replace(/[^，。]/gu, '');
  if (marks !== FINETUNE_SETS.huanxisha.pattern) return false;
  return poem.split(/[，。]/u).slice(0, 6).every((s) => /^\p{Script=Han}{7}$/u.test(s)) && poem.endsWith('。');
}

/** → share of `samples` unprompted samples that are a 浣溪沙 and stop there. */
function huanxishaRate(model, samples) {
  let ok = 0;
  for (let i = 0; i < samples; i++) {
    const { text, stopped } = model.generate('', { temperature: TEMPERATURE, seed: SAMPLE_SEED + i, maxTokens: 49 });
    if (stopped === 'end' && isHuanxisha(text)) ok++;
  }
  return ok / samples;
}

/** → share of `samples` 五绝 (asked for with form 'wujue') whose lines 2 and 4 rhyme. */
function wujueRhymeRate(model, samples) {
  let ok = 0;
  for (let i = 0; i < samples; i++) {
    const { text } = model.generate('', { temperature: TEMPERATURE, seed: SAMPLE_SEED + i, form: 'wujue' });
    if (rhyme(text)?.lines24) ok++;
  }
  return ok / samples;
}

/** The pretrained poet, the texts every run is given: its Tang poems (baseText) and each set's. */
export async function prepare() {
  const qkv = await load({ gpt: true });
  const base = await qkv.loadPretrained();
  const known = new Set(base.vocab);
  const usable = (text) => text.split('\n').filter((l) => l && Array.from(l).every((c) => known.has(c)));
  const baseText = ['wujue', 'qijue', 'wulv', 'qilv'].flatMap((form) => usable(POEMS_VAL[form])).join('\n');
  const sets = Object.fromEntries(Object.entries(FINETUNE_SETS).map(([key, set]) => [key, {
    name: set.name, train: usable(set.train), heldOut: usable(set.val),
    of: { train: set.train.split('\n').filter(Boolean).length, heldOut: set.val.split('\n').filter(Boolean).length },
  }]));
  return { qkv, base, baseText, sets };
}

/** Run `name` of RUNS on seed `seed`, created (not trained) from prepare()'s poet and texts; `extra` options on top. */
function createRun({ base, baseText, sets }, name, seed, extra = {}) {
  const { set, options: changes } = RUNS[name];
  return base.finetune({ text: sets[set].train.join('\n'), baseText, seed, ...changes, ...extra });
}

/** The memory a run of `name` adds (FineTune.memoryBytes), created as run() creates it: it follows
 * from the shapes and the texts, not from training, so the report's can be checked and renewed. */
export function runMemory(prepared, name, seed = 0) {
  const ft = createRun(prepared, name, seed);
  try {
    return ft.memoryBytes;
  } finally {
    ft.dispose();
  }
}

/** Renews the report's memoryBytes (every run and summary) from today's engine; nothing else changes. */
async function renewMemory() {
  const prepared = await prepare();
  const report = JSON.parse(readFileSync(path.join(ROOT, REPORT), 'utf8'));
  const bytes = Object.fromEntries(Object.keys(report.summary).map((name) => [name, runMemory(prepared, name)]));
  for (const r of report.runs) r.memoryBytes = bytes[r.name];
  for (const [name, s] of Object.entries(report.summary)) s.memoryBytes = bytes[name];
  writeFileSync(path.join(ROOT, REPORT), JSON.stringify(report, null, 1) + '\n');
  for (const [name, b] of Object.entries(bytes)) console.log(`${name}: ${(b / 2 ** 20).toFixed(1)} MiB`);
  console.log(`wrote ${REPORT} (memoryBytes only)`);
}

async function run() {
  const seeds = option('--seeds', '0,1,2,3,4').split(',').map(Number);
  const names = option('--runs', Object.keys(RUNS).join(',')).split(',');
  for (const name of names) if (!RUNS[name]) throw new Error(`unknown run ${name}; the runs are ${Object.keys(RUNS).join(', ')}`);
  const samples = Number(option('--samples', '100'));
  const steps = option('--steps', null);  // a shorter schedule, only to try the tool (its own --log)
  const log = path.resolve(ROOT, option('--log', '.build/finetune/runs.jsonl'));
  mkdirSync(path.dirname(log), { recursive: true });
  const write = (record) => appendFileSync(log, JSON.stringify(record) + '\n');

  const prepared = await prepare(), { base, sets } = prepared;
  const logged = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  if (!logged.some((r) => r.kind === 'base' && r.samples === samples)) {
    const c0 = process.cpuUsage();
    const record = {
      kind: 'base', model: MODEL, steps: base.steps, parameters: base.parameterCount, samples,
      sets: Object.fromEntries(Object.entries(sets).map(([key, s]) => [key, { name: s.name, train: s.train.length, heldOut: s.heldOut.length, of: s.of }])),
      huanxishaForm: huanxishaRate(base, samples), wujueRhyme: wujueRhymeRate(base, samples),
      heldOut: Object.fromEntries(Object.entries(sets).map(([key, s]) => [key, base.evaluatePoems(s.heldOut.join('\n')).loss])),
    };
    record.cpuSeconds = cpuSeconds(c0);
    write(record);
    console.log(`base: 浣溪沙 form ${record.huanxishaForm}, 五绝 rhyme ${record.wujueRhyme}, held-out ${JSON.stringify(record.heldOut)}`);
  }
  for (const seed of seeds) {
    for (const name of names) {
      const { set } = RUNS[name], s = sets[set];
      const ft = createRun(prepared, name, seed, steps ? { steps: Number(steps) } : {});
      const before = { ...ft.evaluate(), heldOut: ft.evaluatePoems(s.heldOut.join('\n')).loss };
      const c0 = process.cpuUsage();
      ft.train();
      const cpu = cpuSeconds(c0);
      const after = { ...ft.evaluate(), heldOut: ft.evaluatePoems(s.heldOut.join('\n')).loss };
      const record = {
        kind: 'run', name, set, seed,
        config: { method: ft.method, rank: ft.rank, alpha: ft.alpha, targets: ft.targets, lr: ft.lr, batch: ft.batch, steps: ft.defaultSteps },
        cpuSeconds: cpu, stepsPerSecond: ft.defaultSteps / cpu,
        trainable: ft.trainableCount, share: ft.trainableCount / base.parameterCount, adapterBytes: ft.adapterBytes, memoryBytes: ft.memoryBytes,
        before, after,
        huanxishaForm: set === 'huanxisha' ? huanxishaRate(ft, samples) : null,
        wujueRhyme: wujueRhymeRate(ft, samples), samples,
      };
      ft.dispose();
      write(record);
      console.log(`${name} seed ${seed}: ${record.cpuSeconds.toFixed(1)} s CPU (${record.stepsPerSecond.toFixed(2)} steps/s), ` +
        `浣溪沙 form ${record.huanxishaForm}, 五绝 rhyme ${record.wujueRhyme}, held-out ${before.heldOut.toFixed(3)} → ${after.heldOut.toFixed(3)}, ` +
        `baseVal ${before.baseVal.toFixed(3)} → ${after.baseVal.toFixed(3)}`);
    }
  }
}

/** [min, max] of f over the records. */
const range = (records, f) => [Math.min(...records.map(f)), Math.max(...records.map(f))];

/** The report from the logs: the base, every run, and per run name its ranges over the seeds. */
export function assemble(records) {
  const base = records.find((r) => r.kind === 'base');
  if (!base) throw new Error('no base record in the logs: run `node tools/measure-finetune.mjs run` first');
  // one record per (name, seed): the last logged wins (a rerun replaces an earlier one)
  const byKey = new Map();
  for (const r of records) if (r.kind === 'run' && r.samples === base.samples) byKey.set(`${r.name}/${r.seed}`, r);
  const runs = [...byKey.values()].sort((a, b) => Object.keys(RUNS).indexOf(a.name) - Object.keys(RUNS).indexOf(b.name) || a.seed - b.seed);
  const summary = {};
  for (const name of Object.keys(RUNS)) {
    const rs = runs.filter((r) => r.name === name);
    if (!rs.length) continue;
    summary[name] = {
      set: rs[0].set, config: rs[0].config, seeds: rs.map((r) => r.seed),
      cpuSeconds: range(rs, (r) => r.cpuSeconds), stepsPerSecond: range(rs, (r) => r.stepsPerSecond),
      huanxishaForm: rs[0].huanxishaForm === null ? null : range(rs, (r) => r.huanxishaForm),
      wujueRhyme: range(rs, (r) => r.wujueRhyme),
      baseVal: { before: range(rs, (r) => r.before.baseVal), after: range(rs, (r) => r.after.baseVal) },
      heldOut: { before: range(rs, (r) => r.before.heldOut), after: range(rs, (r) => r.after.heldOut) },
      trainable: rs[0].trainable, share: rs[0].share, adapterBytes: rs[0].adapterBytes, memoryBytes: rs[0].memoryBytes,
    };
  }
  // speed: LoRA against full, seed by seed (both ran in one process, one after the other)
  const ratios = [];
  for (const r of runs) {
    if (r.name !== 'lora-r4') continue;
    const full = runs.find((f) => f.name === 'full' && f.seed === r.seed);
    if (full) ratios.push({ seed: r.seed, lora: r.stepsPerSecond, full: full.stepsPerSecond, ratio: r.stepsPerSecond / full.stepsPerSecond });
  }
  return {
    tool: 'tools/measure-finetune.mjs', model: base.model, baseSteps: base.steps, parameters: base.parameters,
    samples: base.samples, temperature: TEMPERATURE,
    defaults: FINETUNE_DEFAULTS,
    sets: base.sets,
    base: { huanxishaForm: base.huanxishaForm, wujueRhyme: base.wujueRhyme, heldOut: base.heldOut },
    summary,
    speed: ratios.length ? { seeds: ratios, ratio: range(ratios, (r) => r.ratio) } : null,
    runs,
  };
}

function writeReport(logs) {
  const records = logs.flatMap((file) => readFileSync(path.resolve(ROOT, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
  const report = assemble(records);
  writeFileSync(path.join(ROOT, REPORT), JSON.stringify(report, null, 1) + '\n');
  for (const [name, s] of Object.entries(report.summary)) {
    console.log(`${name} (seeds ${s.seeds.join(',')}): ${s.cpuSeconds.map((x) => x.toFixed(1)).join('–')} s CPU, 浣溪沙 form ${s.huanxishaForm?.join('–')}, ` +
      `baseVal ${s.baseVal.before.map((x) => x.toFixed(3)).join('–')} → ${s.baseVal.after.map((x) => x.toFixed(3)).join('–')}, 五绝 rhyme ${s.wujueRhyme.join('–')}`);
  }
  console.log(`wrote ${REPORT}`);
}

if (fileURLToPath(import.meta.url) !== path.resolve(process.argv[1] ?? '')) {
  // imported (the tests read RUNS and assemble): nothing runs
} else if (command === 'run') await run();
else if (command === 'report') writeReport(options('--log').length ? options('--log') : ['.build/finetune/runs.jsonl']);
else if (command === 'memory') await renewMemory();
else {
  console.error('usage: node tools/measure-finetune.mjs run [--seeds 0,1,2,3,4] [--runs lora-r4,full,...] [--samples 100] [--log FILE]\n' +
    '       node tools/measure-finetune.mjs report [--log FILE ...]\n' +
    '       node tools/measure-finetune.mjs memory   (the report\'s memoryBytes from today\'s engine)');
  process.exit(2);
}
