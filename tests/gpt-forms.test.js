// gpt-forms.test.js: generation that knows the form (gpt.generate(prompt, { form, acrostic })),
// through the public API, on a tiny GPT trained a few steps on real poems of the four forms:
//   - every sampled poem has its form and ends with the end-of-text token ('end'), at any
//     temperature, topK and topP, with and without the KV cache (bit for bit the same);
//   - the mask report of every step equals what an unmasked forward's probabilities give: the
//     mass removed, the model's top choice, the renormalised top of the allowed tokens (which
//     sums to 1 with the rest: removed + Σ allowed = 1);
//   - the sampler draws from the renormalised distribution (a frequency check at one step);
//   - acrostic lines start with their characters; every bad form, acrostic or prompt is refused
//     naming it; stopped says whether the end, the caller's maxTokens or the context ended it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { POEM_FORMS, POEM_FORM_NAMES, poemForm } from 'qkv-lab/poem-forms';
import { POEMS_VAL } from '../web/data/poems-val.js';

const qkv = await load({ gpt: true });

// 12 poems of each form: a vocabulary of a few hundred characters, context for a 七律
const lines = (form) => POEMS_VAL[form].split('\n').slice(0, 12);
const TEXT = POEM_FORM_NAMES.flatMap(lines).join('\n');
const gpt = qkv.createGPT({ text: TEXT, layers: 1, heads: 2, dim: 16, context: 66, batch: 4, steps: 40, seed: 1, lr: 1e-2 });
gpt.train();

function throwsWith(fn, Type, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof Type, `expected ${Type.name}, got ${error.constructor.name}: ${error.message}`);
    assert.ok(error.message.startsWith('generate: '), error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

/** the model's probabilities (double) after '\n' + text: softmax of forward()'s last logits row */
function probsAfter(text) {
  const { logits } = gpt.forward(text);
  const V = logits.cols, row = logits.data.subarray((logits.rows - 1) * V);
  let max = -Infinity;
  for (const z of row) max = Math.max(max, z);
  const e = Array.from(row, (z) => Math.exp(z - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

const isHan = (ch) => /^\p{Script=Han}$/u.test(ch);

test('the forms are exported with their shapes', () => {
  assert.deepEqual(POEM_FORM_NAMES, ['wujue', 'qijue', 'wulv', 'qilv']);
  assert.deepEqual(POEM_FORM_NAMES.map((f) => [POEM_FORMS[f].lines, POEM_FORMS[f].characters]), [[4, 5], [4, 7], [8, 5], [8, 7]]);
  for (const form of POEM_FORM_NAMES) assert.equal(poemForm(lines(form)[0]), form);
  assert.equal(poemForm('白日依山尽，黄河入海流。欲穷千里目，更上一层楼'), null);
  assert.equal(poemForm('白日依山尽。黄河入海流，欲穷千里目，更上一层楼。'), null);
});

test('every sampled poem has its form and ends at the end-of-text token, whatever the sampler settings', () => {
  const settings = [{ temperature: 1.5 }, { temperature: 0 }, { temperature: 0.8, topK: 7 }, { temperature: 1, topP: 0.6 },
    { temperature: 2, topK: 40, topP: 0.95 }];
  for (const form of POEM_FORM_NAMES) {
    settings.forEach((s, i) => {
      const r = gpt.generate('', { form, seed: 10 + i, ...s });
      assert.equal(poemForm(r.text), form, `${form} ${JSON.stringify(s)}: ${r.text}`);
      assert.equal(r.stopped, 'end');
      assert.equal(r.steps.at(-1).char, '\n');
      assert.equal(r.steps.length, Array.from(r.text).length + 1);
    });
  }
  // unmasked, the same tiny model rarely writes a whole form: the mask is doing the work
  const free = Array.from({ length: 10 }, (_, seed) => gpt.generate('', { seed, temperature: 1.5 }).text);
  assert.ok(free.filter((t) => poemForm(t) !== null).length < 10, free.join(' | '));
});

test('a prompt is the poem\'s start; the KV cache changes nothing, bit for bit', () => {
  const r = gpt.generate('携琴侍叔夜，负', { form: 'wujue', seed: 4, temperature: 1.2, topK: 30 });
  assert.equal(poemForm('携琴侍叔夜，负' + r.text), 'wujue');
  for (const form of POEM_FORM_NAMES) {
    const a = gpt.generate('', { form, seed: 7, temperature: 1.3, topP: 0.9 });
    const b = gpt.generate('', { form, seed: 7, temperature: 1.3, topP: 0.9, cache: false });
    assert.deepEqual(b.steps, a.steps.map((s) => ({ ...s, kvLength: 0 })));
    assert.equal(a.text, b.text);
  }
});

test('the mask report equals what the unmasked forward gives', () => {
  const prompt = '携琴';
  const r = gpt.generate(prompt, { form: 'wujue', acrostic: '携不江何', seed: 3, temperature: 1.4 });
  let text = prompt;
  let overruled = 0;
  r.steps.forEach((step, i) => {
    const p = probsAfter(text);
    const allowed = (ch) => (step.mask.required === 'character' ? isHan(ch) : ch === step.mask.required);
    let removed = 0, kept = 0, best = 0;
    gpt.vocab.forEach((ch, id) => {
      if (allowed(ch)) kept += p[id]; else removed += p[id];
      if (p[id] > p[best]) best = id;
    });
    const label = `step ${i} after ${JSON.stringify(text)}`;
    // float32 logits, double sums on both sides: the report is a float32
    assert.ok(Math.abs(step.mask.removed - removed) < 1e-6 * Math.max(1, removed) + 1e-7, `${label}: removed ${step.mask.removed} vs ${removed}`);
    assert.equal(step.mask.wanted.char, gpt.vocab[best], label);
    assert.equal(step.mask.overruled, !allowed(gpt.vocab[best]), label);
    if (step.mask.overruled) overruled++;
    // the renormalised distribution: Σ over the allowed of p / kept is 1; its top as reported
    const renormalised = gpt.vocab.map((ch, id) => (allowed(ch) ? p[id] / kept : 0)).map((q, id) => ({ char: gpt.vocab[id], q }))
      .filter((x) => x.q > 0).sort((a, b) => b.q - a.q);
    assert.ok(Math.abs(renormalised.reduce((s, x) => s + x.q, 0) - 1) < 1e-12);
    assert.ok(Math.abs(removed + kept - 1) < 1e-12);
    assert.deepEqual(step.mask.top.map((x) => x.char), renormalised.slice(0, 5).map((x) => x.char), label);
    step.mask.top.forEach((x, j) => assert.ok(Math.abs(x.p - renormalised[j].q) < 2e-6, `${label}: ${x.p} vs ${renormalised[j].q}`));
    if (step.mask.required !== 'character') assert.deepEqual(step.mask.top, [{ char: step.mask.required, p: 1 }]);
    assert.ok(allowed(step.char), `${label}: ${step.char} is what the form allows`);
    if (step.char !== '\n') text += step.char;
  });
  const required = r.steps.map((s) => s.mask.required);
  assert.deepEqual(required.slice(0, 4), ['character', 'character', 'character', '，']);
  assert.deepEqual([required[4], required[10], required[16], required.at(-1)], ['不', '江', '何', '\n']);
  assert.ok(overruled > 0, 'the model wanted something the form refused at least once (an undertrained model)');
});

test('a masked step samples from the renormalised distribution', () => {
  // one step after a fixed prefix, many seeds: the frequency of the most likely allowed
  // character is its renormalised probability, within 4.5 standard deviations
  const prefix = '携琴侍叔夜，负局';
  const first = gpt.generate(prefix, { form: 'wujue', maxTokens: 1, seed: 0 });
  const { char, p } = first.steps[0].mask.top[0];
  const N = 1500;
  let hits = 0;
  for (let seed = 0; seed < N; seed++) {
    const step = gpt.generate(prefix, { form: 'wujue', maxTokens: 1, seed }).steps[0];
    assert.ok(isHan(step.char));
    if (step.char === char) hits++;
  }
  const sd = Math.sqrt(N * p * (1 - p));
  assert.ok(Math.abs(hits - N * p) < 4.5 * sd, `${hits} of ${N}, expected ${(N * p).toFixed(1)} ± ${sd.toFixed(1)}`);
});

test('acrostic lines start with its characters, in every form', () => {
  const heads = { wujue: '春夏秋冬', qijue: '风花雪月', wulv: '一二三四五六七八', qilv: '东南西北上下左右' };
  for (const form of POEM_FORM_NAMES) {
    const acrostic = [...heads[form]].filter((ch) => gpt.vocab.includes(ch)).join('');
    if (acrostic.length !== POEM_FORMS[form].lines) continue;
    const r = gpt.generate('', { form, acrostic, seed: 2, temperature: 1 });
    assert.equal(poemForm(r.text), form, r.text);
    const starts = r.text.split(/[，。]/).filter(Boolean).map((line) => Array.from(line)[0]).join('');
    assert.equal(starts, acrostic);
  }
  // the characters the vocabulary holds, picked so that every form has a full acrostic
  const han = gpt.vocab.filter(isHan);
  const r = gpt.generate('', { form: 'qilv', acrostic: han.slice(0, 8).join(''), seed: 5 });
  assert.equal(r.text.split(/[，。]/).filter(Boolean).map((line) => Array.from(line)[0]).join(''), han.slice(0, 8).join(''));
});

test('bad forms, acrostics and prompts are refused, naming them', () => {
  const han = gpt.vocab.filter(isHan);
  throwsWith(() => gpt.generate('', { form: 'sonnet' }), RangeError, /form must be one of 'wujue', 'qijue', 'wulv', 'qilv', got the string "sonnet"/);
  throwsWith(() => gpt.generate('', { form: 4 }), TypeError, /form must be one of/);
  throwsWith(() => gpt.generate('', { acrostic: '春夏秋冬' }), TypeError, /acrostic needs a form/);
  throwsWith(() => gpt.generate('', { form: 'wujue', acrostic: han.slice(0, 3).join('') }), RangeError,
    /acrostic has 3 characters; a wujue \(五言绝句\) has 4 lines/);
  throwsWith(() => gpt.generate('', { form: 'wujue', acrostic: han.slice(0, 3).join('') + '😀' }), RangeError,
    /acrostic character 4 "😀" is not in the vocabulary/);
  throwsWith(() => gpt.generate('', { form: 'wujue', acrostic: han.slice(0, 3).join('') + '，' }), RangeError,
    /acrostic character 4 "，" is not a Han character/);
  throwsWith(() => gpt.generate('', { form: 'wujue', acrostic: 7 }), TypeError, /acrostic must be a string, got 7/);
  throwsWith(() => gpt.generate('携琴侍叔夜。', { form: 'wujue' }), RangeError, /character 6 "。" does not fit the form 'wujue', which puts "，" there/);
  throwsWith(() => gpt.generate('携琴，', { form: 'wujue' }), RangeError, /character 3 "，" does not fit the form 'wujue', which puts a Han character there/);
  throwsWith(() => gpt.generate(han[1], { form: 'wujue', acrostic: han.slice(0, 4).join('') }), RangeError,
    new RegExp(`character 1 "${han[1]}" does not fit the form 'wujue', which puts "${han[0]}" there`));
  const tooLong = lines('wulv')[0];
  throwsWith(() => gpt.generate(tooLong, { form: 'wujue' }), RangeError, /the prompt has 48 characters, more than a whole wujue poem \(24\)/);
  const small = qkv.createGPT({ text: TEXT, layers: 1, heads: 1, dim: 4, context: 30, batch: 1 });
  assert.throws(() => small.generate('', { form: 'qijue' }),
    /generate: the rest of a qijue poem \(32 characters and the end-of-text token\) does not fit after the prompt's 1 tokens in the context of 30/);
  assert.equal(poemForm(small.generate('', { form: 'wujue' }).text), 'wujue');
  small.dispose();
  const latin = qkv.createGPT({ text: Array.from({ length: 12 }, (_, i) => `ab c${i % 3} abc`).join("\n"), layers: 1, heads: 1, dim: 4, context: 4, batch: 1 });
  throwsWith(() => latin.generate('', { form: 'wujue' }), RangeError, /form 'wujue' needs '，', which is not in this GPT's vocabulary/);
  latin.dispose();
});

test('stopped says what ended the text: the end token, the caller\'s maxTokens, or the context', () => {
  assert.equal(gpt.generate('', { form: 'wujue', maxTokens: 10 }).stopped, 'maxTokens');
  assert.equal(gpt.generate('', { form: 'wujue', maxTokens: 10 }).steps.length, 10);
  const tiny = qkv.createGPT({ text: TEXT, layers: 1, heads: 1, dim: 4, context: 4, batch: 1 });
  // an untrained model over hundreds of characters almost never draws the end token in 3 steps
  const results = Array.from({ length: 5 }, (_, seed) => tiny.generate('', { seed }));
  for (const r of results) assert.equal(r.stopped, r.steps.at(-1).char === '\n' ? 'end' : 'context');
  assert.ok(results.some((r) => r.stopped === 'context'));
  tiny.dispose();
});
