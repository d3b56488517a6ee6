#!/usr/bin/env node
// measure-finetune.mjs: what fine-tuning the pretrained poet does (docs/finetune.md, "Measured").
//
//   node tools/measure-finetune.mjs MODEL.qkvgpt [--seeds 0,1,2] [--samples 100] [--json out.json]
//
// For each seed, LoRA (r 4, α 8, Wq and Wv: the defaults) and full fine-tuning run the default
// schedule on 浣溪沙 (FINETUNE_SETS.huanxisha.train, its lines with a character outside the
// base's vocabulary left out, as finetune() would refuse them), and the tool reports: the form
// rate of `samples` generations (six sentences of seven Han characters with the tune's marks
// 。。。，。。, nothing else) before and after, the milliseconds per step, the validation loss
// on 浣溪沙 and on the base's own validation poems (baseVal: web/data/poems-val.js, forgetting)
// before and after, the trainable share and the adapter's size. Ranges over the seeds.
import { readFileSync, writeFileSync } from 'node:fs';
import { load } from '../web/qkv-lab.js';
import { FINETUNE_SETS } from '../web/data/poems-finetune.js';
import { POEMS_VAL } from '../web/data/poems-val.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const modelPath = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
if (!modelPath) {
  console.error('usage: node tools/measure-finetune.mjs MODEL.qkvgpt [--seeds 0,1,2] [--samples 100] [--json out.json]');
  process.exit(2);
}
const seeds = option('--seeds', '0,1,2,3,4').split(',').map(Number);
const samples = Number(option('--samples', '100'));
const jsonPath = option('--json', null);

const qkv = await load({ gpt: true });
const base = qkv.loadGPT(new Uint8Array(readFileSync(modelPath)));
const known = new Set(base.vocab);
const usable = (text) => text.split('\n').filter((l) => l && Array.from(l).every((c) => known.has(c)));
const set = FINETUNE_SETS.huanxisha;
const trainLines = usable(set.train);
const valLines = usable(set.val);
// the text finetune splits itself (every 10th line held out): the set's training poems; its
// own held-out poems are scored below as a separate validation text through baseText's path
const text = trainLines.join('\n');
const baseText = ['wujue', 'qijue', 'wulv', 'qilv'].flatMap((form) => usable(POEMS_VAL[form])).join('\n');

const SENTENCE = /^\p{Script=Han}{7}$/u;
/** 浣溪沙's form: six sentences of seven Han characters, each closed by the tune's mark. */
function isForm(line) {
  const marks = line.replace(/[^，。]/g, '');
  if (marks !== set.pattern) return false;
  return line.split(/[，。]/).slice(0, 6).every((s) => SENTENCE.test(s)) && line.endsWith('。');
}
function formRate(model) {
  let ok = 0;
  for (let i = 0; i < samples; i++) if (isForm(model.generate('', { temperature: 0.8, seed: 1000 + i, maxTokens: 49 }).text)) ok++;
  return ok / samples;
}

const report = { model: modelPath, baseSteps: base.steps, shape: { layers: base.layers, dim: base.dim, heads: base.heads, context: base.context, vocab: base.vocab.length },
  parameters: base.parameterCount, lines: { train: trainLines.length, of: set.train.split('\n').filter(Boolean).length, heldOut: valLines.length }, samples, runs: [] };
console.log(`base: ${modelPath}, step ${base.steps}, ${base.parameterCount} parameters; 浣溪沙 ${trainLines.length} poems usable of ${report.lines.of}`);
const baseForm = formRate(base);
console.log(`base form rate ${baseForm}`);
report.baseForm = baseForm;
for (const seed of seeds) {
  for (const method of ['lora', 'full']) {
    const ft = base.finetune({ text, method, seed, baseText });
    const before = ft.evaluate();
    const t0 = performance.now();
    ft.train();
    const msPerStep = (performance.now() - t0) / ft.steps;
    const after = ft.evaluate();
    const form = formRate(ft);
    const run = { seed, method, steps: ft.steps, msPerStep, trainable: ft.trainableCount, share: ft.trainableCount / base.parameterCount,
      adapterKiB: ft.adapterBytes / 1024, memoryBytes: ft.memoryBytes, before, after, form };
    report.runs.push(run);
    console.log(`${method} seed ${seed}: ${ft.steps} steps, ${msPerStep.toFixed(0)} ms/step, form ${form}, val ${before.val.toFixed(3)} → ${after.val.toFixed(3)}, ` +
      `baseVal ${before.baseVal.toFixed(3)} → ${after.baseVal.toFixed(3)}, trainable ${ft.trainableCount} (${(100 * run.share).toFixed(2)}%), ` +
      `adapter ${run.adapterKiB.toFixed(1)} KiB, run memory ${(run.memoryBytes / 2 ** 20).toFixed(1)} MiB`);
    ft.dispose();
  }
}
for (const method of ['lora', 'full']) {
  const runs = report.runs.filter((r) => r.method === method);
  const range = (f, d = 3) => `${Math.min(...runs.map(f)).toFixed(d)}–${Math.max(...runs.map(f)).toFixed(d)}`;
  console.log(`${method} over seeds ${seeds.join(',')}: form ${range((r) => r.form, 2)}, ms/step ${range((r) => r.msPerStep, 0)}, ` +
    `val after ${range((r) => r.after.val)}, baseVal ${range((r) => r.before.baseVal)} → ${range((r) => r.after.baseVal)}`);
}
if (jsonPath) writeFileSync(jsonPath, JSON.stringify(report, null, 2) + '\n');
