// finetune-page.test.js: the fine-tuning section's pure parts, in Node:
//   - its URL defaults are the engine's (FINETUNE_DEFAULTS): the section cannot import the engine
//     (its settings are in the script every post loads), so this is where they meet;
//   - a sample's reading: 浣溪沙's form and rhyme positions (1, 2, 3, 5, 6) on the real poems, a
//     Tang quatrain read as metrics.js reads it, and a poem of no form;
//   - the own-text limit is the corpus editor's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FINETUNE_DEFAULTS } from '../web/finetune.js';
import { FINETUNE_PROPERTIES, finetuneOptions, parseTargets } from '../web/page/finetune/settings.js';
import { readPoem, isHuanxisha } from '../web/page/finetune/poems.js';
import { ownTextProblem } from '../web/page/finetune/refusals.js';
import { FINETUNE_SETS } from '../web/data/poems-finetune.js';
import { rhyme } from '../web/poetry/metrics.js';
import { CORPUS_LIMITS } from '../web/corpus.js';
import { BASE_SHAPE } from '../web/page/finetune/constants.js';
import REPORT from '../web/data/pretrained-report.json' with { type: 'json' };

const defaults = Object.fromEntries(FINETUNE_PROPERTIES.map((p) => [p.name, p.default]));

test('the section\'s defaults are the engine\'s, and its options are what gpt.finetune takes', () => {
  assert.equal(defaults.ftmethod, FINETUNE_DEFAULTS.method);
  assert.equal(defaults.ftrank, FINETUNE_DEFAULTS.rank);
  assert.equal(defaults.fttargets, FINETUNE_DEFAULTS.targets.join(','));
  assert.equal(defaults.ftsteps, FINETUNE_DEFAULTS.steps);
  assert.equal(defaults.ftseed, FINETUNE_DEFAULTS.seed);
  const state = { get: (k) => defaults[k] };
  assert.deepEqual(finetuneOptions(state), { method: 'lora', steps: FINETUNE_DEFAULTS.steps, seed: 0, rank: 4, targets: ['Wq', 'Wv'] });
  assert.deepEqual(finetuneOptions({ get: (k) => ({ ...defaults, ftmethod: 'full' })[k] }), { method: 'full', steps: FINETUNE_DEFAULTS.steps, seed: 0 });
  assert.equal(parseTargets('W2, Wq'), 'Wq,W2');
  for (const bad of ['', 'Wx', 'Wq,Wq', 'constructor']) assert.equal(parseTargets(bad), null, bad);
});

test('a sample\'s reading: 浣溪沙 and its rhyme positions, a quatrain as metrics.js reads it, no form', () => {
  const poems = FINETUNE_SETS.huanxisha.train.split('\n');
  assert.ok(poems.every(isHuanxisha), 'every 浣溪沙 of the set has the form');
  const first = readPoem(poems[0]);   // 轻屉来时不破尘 … 树深莺过静无人: 尘 裙 春 云 人
  assert.deepEqual(first.ends.map((e) => [e.line, e.char]), [[1, '尘'], [2, '裙'], [3, '春'], [5, '云'], [6, '人']]);
  assert.equal(first.form, 'huanxisha');
  assert.deepEqual([first.rhymed, first.of], [4, 4]);
  const quatrain = '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。';
  const read = readPoem(quatrain);
  assert.equal(read.form, 'wujue');
  assert.equal(read.rhymed === 1, rhyme(quatrain).lines24);
  assert.deepEqual(readPoem('春风十里'), { form: null, rhymed: 0, of: 0, ends: [] });
});

test('the reader\'s own text: the corpus editor\'s limit, said before anything is sent', () => {
  assert.equal(ownTextProblem('山\n'.repeat(20)), null);
  assert.equal(ownTextProblem('  \n ').key, 'finetune.own.empty');
  const long = ownTextProblem('山'.repeat(CORPUS_LIMITS.maxChars + 1));
  assert.equal(long.key, 'finetune.own.tooLong');
});

test('the introduction\'s shape of the base before it is loaded is the shipped poet\'s (its report\'s model)', () => {
  assert.deepEqual({ ...BASE_SHAPE }, { layers: REPORT.model.layers, dim: REPORT.model.dim, parameters: REPORT.model.parameters });
});
