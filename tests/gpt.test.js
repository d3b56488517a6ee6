// gpt.test.js: the GPT through its public API (qkv.createGPT, qkv.loadGPT), on tiny
// configurations so that the file runs in seconds:
//   - its gradient equals float64 central finite differences of a plain JavaScript GPT
//     (gpt-reference.js), which is first checked to compute the same logits;
//   - forward()'s block traces are transformerBlock on the same weights, bit for bit;
//   - the tied token table: one step changes every row of wte;
//   - generate with the KV cache = without it, token for token, at several settings;
//   - loadGPT(save()) reproduces the logits bit for bit; truncated, foreign, altered bytes refused;
//   - the same seed gives the same bytes under the SIMD and the scalar builds and natively
//     (tests/native/test_gpt.c --checksum, built here with gcc);
//   - every bad option or input is refused with a TypeError / RangeError naming the value and
//     the limit, before anything is allocated; dispose() returns heapUsed() to its baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'qkv-lab';
import { gptForward, gptLoss } from './gpt-reference.js';

/** parameters()' form (Matrices, vectors 1×k) → the reference's: the same tree, flat Float64Arrays. */
function toDouble(tree) {
  if (tree && typeof tree === 'object' && 'rows' in tree && 'data' in tree) return Float64Array.from(tree.data);
  if (Array.isArray(tree)) return tree.map(toDouble);
  return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, toDouble(v)]));
}
const referenceConfig = (gpt) => ({ vocab: gpt.vocab.length, dim: gpt.dim, heads: gpt.heads, layers: gpt.layers, context: gpt.context });
const referenceLogits = (gpt, params, tokens) => gptForward(referenceConfig(gpt), params, tokens).logits;
const referenceLoss = (gpt, params, inputs, targets) => gptLoss(referenceConfig(gpt), params, [{ inputs, targets }]).loss;

const qkv = await load({ gpt: true });
const ROOT = fileURLToPath(new URL('..', import.meta.url));

// a small stand-in text: 12 lines, 6 distinct characters (V = 7 with the end-of-text token)
const TEXT = ['abcab cabca', 'bca bcab', 'cab cab', 'aabbcc abc', 'abc abc', 'cba cba', 'acb acb',
  'bac bac', 'ccba abcc', 'bbac caab', 'aaa bbb ccc', 'dd ee dd'].join('\n');
const TINY = { text: TEXT, layers: 1, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, lr: 3e-2, steps: 50 };

function throwsWith(fn, Type, pattern, op) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof Type, `expected ${Type.name}, got ${error.constructor.name}: ${error.message}`);
    if (op) assert.ok(error.message.startsWith(`${op}: `), `message starts with "${op}: ": ${error.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

/** [name, tensor (nested or flat double array), grad (same)] for every parameter tensor */
function leaves(p, g, name = '') {
  if (p instanceof Float64Array) return [[name, p, g]];
  return Object.keys(p).flatMap((k) => leaves(p[k], g[k], name ? `${name}.${k}` : k));
}

test('the float64 reference computes the GPT\'s logits (so differencing it checks the C gradient)', () => {
  const gpt = qkv.createGPT({ ...TINY, layers: 2 });
  gpt.train(20);
  const params = toDouble(gpt.parameters());
  const { tokens, logits } = gpt.forward('abc a');
  const ref = referenceLogits(gpt, params, tokens);
  let worst = 0;
  ref.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - logits.data[i])); });
  // float32 against float64 through two blocks of width 8: ~1e-6 (the tolerance: 1e-5)
  assert.ok(worst < 1e-5, `reference vs C logits: ${worst}`);
  gpt.dispose();
});

for (const layers of [1, 2]) {
  test(`the whole GPT's gradient (${layers} layer${layers > 1 ? 's' : ''}, dim 8, 2 heads, context 6) equals float64 finite differences`, () => {
    const gpt = qkv.createGPT({ ...TINY, layers });
    gpt.train(30);  // away from the initialisation, so that every path carries signal
    const text = 'cab c';  // context − 1 characters: inputs '\n' + text, targets text + '\n'
    const { loss, grads } = gpt.gradients(text);
    const params = toDouble(gpt.parameters());
    const g = toDouble(grads);
    const ids = [...text].map((ch) => gpt.vocab.indexOf(ch));
    const inputs = [0, ...ids], targets = [...ids, 0];
    assert.ok(Math.abs(referenceLoss(gpt, params, inputs, targets) - loss) < 1e-5, 'loss');
    const h = 1e-5;
    let worst = 0, where = '', checked = 0;
    for (const [name, tensor, grad] of leaves(params, g)) {
      tensor.forEach((v, i) => {
        tensor[i] = v + h;
        const up = referenceLoss(gpt, params, inputs, targets);
        tensor[i] = v - h;
        const down = referenceLoss(gpt, params, inputs, targets);
        tensor[i] = v;
        const numeric = (up - down) / (2 * h);
        // float64 differences: truncation ~h² ≈ 1e-10, rounding ~1e-16/h ≈ 1e-11. The C
        // gradient is float32: each entry sums at most ~100 terms of at most ~0.1 (a mean over
        // 6 positions of probabilities times activations of O(1)), each rounded to 6e-8
        // relative, so ~1e-8 absolute in the worst case (2e-7 allows 20×), and 1e-4 relative
        // covers the float32 chain through two LayerNorms on the larger entries
        const ratio = Math.abs(grad[i] - numeric) / (2e-7 + 1e-4 * Math.abs(numeric));
        if (ratio > worst) { worst = ratio; where = `${name}[${i}]: C ${grad[i]}, finite differences ${numeric}`; }
        checked++;
      });
    }
    console.log(`GPT ${layers} layer(s): ${checked} parameters, worst ${worst.toFixed(3)} of the tolerance (${where})`);
    assert.ok(worst <= 1, where);
    assert.equal(checked, gpt.parameterCount);
    gpt.dispose();
  });
}

test('forward() traces each block as transformerBlock computes it on the same weights, bit for bit', () => {
  const gpt = qkv.createGPT({ ...TINY, layers: 2 });
  gpt.train(5);
  const p = gpt.parameters();
  const f = gpt.forward('abc');
  assert.deepEqual(f.tokens, [0, ...[...'abc'].map((ch) => gpt.vocab.indexOf(ch))]);
  assert.equal(f.logits.rows, 4);
  assert.equal(f.logits.cols, gpt.vocab.length);
  // x0 = wte[token] + wpe[t] in float32
  const x0 = f.tokens.map((tok, t) => Array.from({ length: 8 }, (_, c) => Math.fround(p.wte.get(tok, c) + p.wpe.get(t, c))));
  let x = x0;
  f.blocks.forEach((trace, l) => {
    const again = qkv.transformerBlock(x, p.blocks[l], { heads: 2 });
    for (const key of ['ln1', 'resid1', 'ln2', 'hidden', 'gelu', 'mlp', 'output']) {
      assert.deepEqual(trace[key].data, again[key].data, `block ${l} ${key}`);
    }
    trace.attention.heads.forEach((head, j) => {
      for (const key of ['Q', 'K', 'V', 'scores', 'weights', 'output']) {
        assert.deepEqual(head[key].data, again.attention.heads[j][key].data, `block ${l} head ${j} ${key}`);
      }
    });
    x = trace.output.toArray();
  });
  gpt.dispose();
});

test('the tied token table: one step changes every row of wte, not only the batch\'s characters', () => {
  const gpt = qkv.createGPT({ ...TINY, batch: 1 });
  const before = gpt.parameters().wte;
  const { step, loss } = gpt.step();
  assert.equal(step, 1);
  assert.ok(Number.isFinite(loss));
  const after = gpt.parameters().wte;
  // 'd' and 'e' appear only in the last line, which no window of this seed's first step holds
  // for certain; through the logits every row is scored at every position, so every row moves
  for (let r = 0; r < before.rows; r++) {
    assert.notDeepEqual(after.row(r), before.row(r), `row ${r} (${JSON.stringify(gpt.vocab[r])})`);
  }
  gpt.dispose();
});

test('generate with the KV cache gives the same tokens and probabilities as without it', () => {
  const gpt = qkv.createGPT({ ...TINY, text: `${TEXT}\n${TEXT}`, layers: 2, context: 12 });
  gpt.train(40);
  const settings = [{ temperature: 0 }, { temperature: 1, seed: 4 }, { temperature: 0.8, topK: 3, seed: 9 },
    { temperature: 1.3, topP: 0.7, seed: 2 }];
  for (const s of settings) {
    for (const prompt of ['', 'ab', 'cab c']) {
      const a = gpt.generate(prompt, { ...s, cache: true });
      const b = gpt.generate(prompt, { ...s, cache: false });
      assert.equal(a.text, b.text, JSON.stringify({ prompt, ...s }));
      assert.deepEqual(a.steps.map((x) => [x.token, x.char, x.top]), b.steps.map((x) => [x.token, x.char, x.top]));
      // the cache holds the prompt (with its end-of-text token) and every token fed back
      a.steps.forEach((x, i) => assert.equal(x.kvLength, prompt.length + 1 + i));
      assert.ok(a.steps.length >= 1 && a.steps.length <= 12 - 1 - prompt.length);
    }
  }
  // greedy is the argmax; the same seed gives the same text, another seed may not
  const g = gpt.generate('a', { temperature: 0, maxTokens: 1 });
  assert.equal(g.steps[0].char, g.steps[0].top[0].char);
  assert.deepEqual(gpt.generate('', { seed: 5 }), gpt.generate('', { seed: 5 }));
  gpt.dispose();
});

test('loadGPT(gpt.save()) reproduces the logits and the generations bit for bit; bad bytes are refused', () => {
  const gpt = qkv.createGPT({ ...TINY, layers: 2 });
  gpt.train(10);
  const bytes = gpt.save();
  assert.ok(bytes instanceof Uint8Array);
  assert.equal(String.fromCharCode(...bytes.subarray(0, 8)), 'QKVGPT\r\n');
  // a loaded GPT (batch 1) holds no training state: less memory than a trainable twin of its shape
  // by at least the gradients, moments and an update's copies (6 floats a parameter)
  let used = qkv.heapUsed();
  const twin = qkv.createGPT({ ...TINY, layers: 2, batch: 1 });
  const twinBytes = qkv.heapUsed() - used;
  used = qkv.heapUsed();
  const copy = qkv.loadGPT(bytes);
  const copyBytes = qkv.heapUsed() - used;
  twin.dispose();
  assert.ok(copyBytes <= twinBytes - 6 * 4 * gpt.parameterCount, `loaded ${copyBytes} bytes, trainable ${twinBytes}, ${gpt.parameterCount} parameters`);
  assert.deepEqual(copy.vocab, gpt.vocab);
  assert.equal(copy.parameterCount, gpt.parameterCount);
  assert.equal(copy.steps, 10);
  assert.deepEqual(copy.forward('abc a').logits.data, gpt.forward('abc a').logits.data);
  assert.deepEqual(copy.generate('b', { seed: 1 }), gpt.generate('b', { seed: 1 }));
  assert.deepEqual(copy.save(), bytes);
  throwsWith(() => copy.step(), Error, /loaded from bytes, which hold no training text/);
  throwsWith(() => copy.gradients('abc'), Error, /^gradients: this GPT was loaded from bytes and is made without training state/);
  // lr, as the GPT type declares it: the learning rate it was created with, none for a loaded one
  assert.equal(gpt.lr, TINY.lr);
  assert.equal(copy.lr, null);
  copy.dispose();

  const base = qkv.heapUsed();
  const altered = bytes.slice();
  altered[altered.length - 40] ^= 1;
  const version = bytes.slice();
  version[8] = 3;
  const cases = [
    [bytes.subarray(0, bytes.length - 1), RangeError, /has \d+ bytes; its header describes \d+ \(truncated\)/],
    [bytes.subarray(0, 20), RangeError, /not a qkv-lab GPT file/],
    [new TextEncoder().encode('{"not": "a GPT"}'), RangeError, /not a qkv-lab GPT file/],
    [new Uint8Array([...bytes, 0]), RangeError, /trailing bytes/],
    [altered, RangeError, /checksum does not match/],
    [version, RangeError, /version 3; this qkv-lab reads versions 1–2/],
    [Array.from(bytes), TypeError, /bytes must be a Uint8Array/],
    ['QKVGPT', TypeError, /bytes must be a Uint8Array/],
  ];
  for (const [input, Type, pattern] of cases) {
    throwsWith(() => qkv.loadGPT(input), Type, pattern, 'loadGPT');
    assert.equal(qkv.heapUsed(), base);
  }
  gpt.dispose();
});

// the same text and settings as tests/native/test_gpt.c's gpt_checksum
const CHECKSUM_TEXT = 'abcab cabca\nbca bcab\ncab cab\naabbcc abc\nabc abc\ncba cba\nacb acb\nbac bac\n' +
  'ccba abcc\nbbac caab\naaa bbb ccc\n';
const CHECKSUM_GPT = { text: CHECKSUM_TEXT, layers: 2, heads: 2, dim: 8, context: 8, batch: 3, seed: 5, lr: 1e-2, steps: 40 };

function parameterChecksum(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const vocabBytes = view.getUint32(8 + 4 * 8, true);
  const at = 8 + 4 * 9 + vocabBytes + ((4 - (vocabBytes % 4)) % 4);
  let h = 0x811c9dc5;
  for (let i = at; i < bytes.length - 4; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h >>> 0;
}

test('the same seed gives the same parameters, bit for bit, with the SIMD and scalar kernels and natively', async () => {
  const builds = [await load({ simd: false, fresh: true, gpt: true })];
  if (qkv.simd) builds.push(await load({ simd: true, fresh: true, gpt: true }));
  const sums = builds.map((lab) => {
    const gpt = lab.createGPT(CHECKSUM_GPT);
    const losses = gpt.train();
    assert.equal(losses.length, 40);
    assert.ok(losses.at(-1) < losses[0], 'it learns something');
    const sum = parameterChecksum(gpt.save());
    gpt.dispose();
    return sum;
  });
  // natively: gcc builds the same C (SSE2, no FMA contraction under -std=c11)
  const dir = mkdtempSync(join(tmpdir(), 'qkv-gpt-'));
  try {
    const exe = join(dir, 'test_gpt');
    const sources = readdirSync(join(ROOT, 'wasm')).filter((f) => f.endsWith('.c')).map((f) => join(ROOT, 'wasm', f));
    execFileSync('gcc', ['-std=c11', '-O1', '-I', join(ROOT, 'wasm'), ...sources, join(ROOT, 'tests/native/test_gpt.c'), '-lm', '-o', exe]);
    sums.push(Number(execFileSync(exe, ['--checksum', '40'], { encoding: 'utf8' }).trim()));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`parameter checksums after 40 steps: ${sums.join(', ')} (scalar, ${qkv.simd ? 'SIMD, ' : ''}native)`);
  assert.equal(new Set(sums).size, 1, sums.join(' vs '));
});

test('the divergence rule: a step whose loss passes 100 × ln V is refused, the parameters stay those before it', () => {
  const gpt = qkv.createGPT({ ...TINY, lr: 1e3 });
  let before = gpt.save(), error = null;
  for (let i = 0; i < 50 && !error; i++) {
    try {
      gpt.step();
      before = gpt.save();
    } catch (e) {
      error = e;
    }
  }
  assert.ok(error, 'lr 1000 diverges within 50 steps');
  assert.equal(error.name, 'DivergenceError');
  assert.match(error.message, /training diverged .* the parameters are those before this step/);
  assert.equal(gpt.diverged, true);
  assert.deepEqual(gpt.save(), before, 'nothing of the refused step was applied');
  throwsWith(() => gpt.step(), Error, /training diverged at step \d+ \(lr 1000\)/);
  assert.ok(gpt.generate('ab', { seed: 1 }).steps.length >= 1, 'the last good parameters still generate');
  gpt.dispose();
});

test('createGPT refuses bad options with the value and the limit, before allocating anything', () => {
  const base = qkv.heapUsed();
  const many = Array.from({ length: 12 }, (_, i) => String.fromCodePoint(0x4e00 + i).repeat(3)).join('\n');
  const varied = Array.from({ length: 9000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('').match(/.{1,900}/gu).join('\n');
  const cases = [
    [{ ...TINY, layers: 0 }, RangeError, /layers must be an integer from 1 to 16, got 0/],
    [{ ...TINY, heads: 3 }, RangeError, /heads is 3, which does not divide dim = 8/],
    [{ ...TINY, context: 257 }, RangeError, /context must be an integer from 2 to 256 \(the end-of-text token and at least one character\), got 257/],
    [{ ...TINY, dim: 1.5 }, RangeError, /dim must be an integer from 1 to 512, got 1.5/],
    [{ ...TINY, batch: '2' }, TypeError, /batch must be an integer from 1 to 256, got the string "2"/],
    [{ ...TINY, lr: -1 }, RangeError, /lr must be a positive finite number/],
    [{ ...TINY, seed: -1 }, RangeError, /seed must be an integer from 0 to 4294967295/],
    [{ ...TINY, dropout: 0.1 }, TypeError, /unknown option "dropout"/],
    [{ layers: 1 }, TypeError, /text is required/],
    [{ ...TINY, text: 42 }, TypeError, /text must be a string/],
    [{ ...TINY, text: 'one line\ntwo lines' }, RangeError, /has 2 non-empty lines; it needs at least 10/],
    [{ ...TINY, text: many, context: 8 }, RangeError, /validation .* gives 5 tokens, too few for one window of context 8/],
    [{ ...TINY, text: varied }, RangeError, /9000 distinct characters; a GPT takes at most 8191/],
    [{ ...TINY, text: 'ab\n'.repeat(700_001) }, RangeError, /longer than 2000000 characters/],
    [{ ...TINY, text: TEXT, dim: 512, heads: 8, batch: 256, context: 256 }, RangeError, /one training step .* more than the limit of 1073741824/],
  ];
  for (const [options, Type, pattern] of cases) {
    throwsWith(() => qkv.createGPT(options), Type, pattern, 'createGPT');
    assert.equal(qkv.heapUsed(), base, `heap after ${pattern}`);
  }
});

test('forward, generate and gradients refuse bad inputs; unknown characters are named', () => {
  const gpt = qkv.createGPT(TINY);
  const base = qkv.heapUsed();
  const cases = [
    [() => gpt.generate('abz', {}), RangeError, /the prompt has a character not in the vocabulary \(7 tokens built from the training text\): "z"/, 'generate'],
    [() => gpt.forward('xyzzy'), RangeError, /3 characters not in the vocabulary .*: "x", "y", "z"/, 'forward'],
    [() => gpt.generate('', { temperature: -1 }), RangeError, /temperature must be from 0 \(greedy\) to 100, got -1/, 'generate'],
    [() => gpt.generate('', { temperature: NaN }), RangeError, /temperature must be from 0/, 'generate'],
    [() => gpt.generate('', { topP: 2 }), RangeError, /topP must be in \(0, 1\], got 2/, 'generate'],
    [() => gpt.generate('', { topP: 0 }), RangeError, /topP must be in \(0, 1\], got 0/, 'generate'],
    [() => gpt.generate('', { topK: -1 }), RangeError, /topK must be an integer from 0 to 7/, 'generate'],
    [() => gpt.generate('', { maxTokens: 6 }), RangeError, /maxTokens must be an integer from 1 to 5 \(the context 6 minus/, 'generate'],
    [() => gpt.generate('abcde'), RangeError, /the prompt has 5 characters; at most 4 fit the context of 6/, 'generate'],
    [() => gpt.generate('', { cache: 'yes' }), TypeError, /cache must be true or false/, 'generate'],
    [() => gpt.generate('', { beam: 2 }), TypeError, /unknown option "beam"/, 'generate'],
    [() => gpt.generate(7), TypeError, /prompt must be a string, got 7/, 'generate'],
    [() => gpt.forward('abcabc'), RangeError, /the text has 6 characters; at most 5 fit the context of 6/, 'forward'],
    [() => gpt.gradients('q'), RangeError, /not in the vocabulary/, 'gradients'],
    [() => gpt.train(-1), RangeError, /steps must be an integer from 0/, 'train'],
  ];
  for (const [fn, Type, pattern, op] of cases) {
    throwsWith(fn, Type, pattern, op);
    assert.equal(qkv.heapUsed(), base);
  }
  gpt.dispose();
});

test('evaluation() in pieces: its default pieces give evaluate()\'s numbers bit for bit, one window at a time the same to 1e-12; a step between pieces is refused', () => {
  const gpt = qkv.createGPT(TINY);
  gpt.train(5);
  const whole = gpt.evaluate();
  const e = gpt.evaluation();
  assert.ok(e.windows > 2, `${e.windows} windows`);
  let result = null, pieces = 0;
  while (result === null) { result = e.advance(); pieces++; }
  assert.deepEqual(result, whole);
  assert.equal(e.done, e.windows);
  assert.equal(e.advance(), result, 'a finished evaluation keeps its result');
  const single = gpt.evaluation();
  const progress = [];
  let r = null;
  while (r === null) { r = single.advance(1); progress.push(single.done); }
  assert.deepEqual(progress, Array.from({ length: single.windows }, (_, i) => i + 1), 'one window per piece');
  assert.ok(progress.length > pieces, 'smaller pieces than evaluate()\'s');
  for (const k of ['train', 'val']) assert.ok(Math.abs(r[k] - whole[k]) <= 1e-12 * whole[k], `${k}: ${r[k]} against ${whole[k]}`);
  const stale = gpt.evaluation();
  stale.advance(1);
  gpt.step();
  throwsWith(() => stale.advance(1), Error, /the GPT took a step \(5 → 6\) before this evaluation finished/, 'evaluation');
  throwsWith(() => gpt.evaluation().advance(0), RangeError, /n must be an integer from 1/, 'evaluation');
  gpt.dispose();
});

test('train, evaluate and dispose: losses fall, evaluate starts near ln V, the heap returns to its baseline', () => {
  const base = qkv.heapUsed();
  const gpt = qkv.createGPT(TINY);
  assert.ok(qkv.heapUsed() > base);
  const start = gpt.evaluate();
  const lnV = Math.log(gpt.vocab.length);
  // weights of 0.02 give logits within ±0.1 of each other: the loss is within 0.1 of ln V
  assert.ok(Math.abs(start.val - lnV) < 0.1 && Math.abs(start.train - lnV) < 0.1, JSON.stringify(start));
  const losses = gpt.train();
  assert.equal(losses.length, TINY.steps);
  assert.equal(gpt.steps, TINY.steps);
  assert.deepEqual(gpt.train(), [], 'the schedule is done');
  assert.equal(gpt.train(2).length, 2);
  const end = gpt.evaluate();
  assert.ok(end.train < start.train - 0.3, JSON.stringify({ start, end }));
  assert.equal(gpt.vocab[0], '\n');
  assert.deepEqual(gpt.vocab, ['\n', ' ', 'a', 'b', 'c', 'd', 'e']);
  gpt.dispose();
  assert.equal(qkv.heapUsed(), base, 'dispose() frees everything');
  gpt.dispose();
  throwsWith(() => gpt.step(), Error, /disposed/);
  throwsWith(() => gpt.generate(''), Error, /disposed/);
  assert.equal(gpt.steps, TINY.steps + 2);
});
