// finetune.test.js: gpt.finetune (LoRA and full) through the public API, on tiny configurations:
//   - at step 0 a LoRA run's logits are the base's bit for bit (B starts at zero), with the
//     KV cache too; training it never changes the base;
//   - the gradients of A and B equal float64 central finite differences of the reference GPT
//     (gpt-reference.js) whose weights are W + (α/r)·A·B;
//   - three AdamW steps equal a PyTorch reference (tests/fixtures/lora-torch.json, written by
//     make_lora_fixtures.py), loss and adapters, to float32 accuracy;
//   - merge() gives the unmerged logits within 1e-5, unmerge() gives them back bit for bit;
//   - saveAdapter / loadAdapter round-trips bit for bit; another base, altered bytes refused;
//   - every bad option is refused (RangeError / TypeError naming it) before anything is allocated;
//   - the same seed gives the same adapters, with the SIMD128 and the scalar kernels alike;
//     dispose() returns the heap to its baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'qkv-lab';
import { gptLoss } from './gpt-reference.js';
import { LORA_TARGETS, GPT_TENSOR_GROUP, GPT_LAYER_ALL } from '../web/heap.js';

const qkv = await load({ gpt: true });

// the tiny text of gpt.test.js: 12 lines, V = 7 with the end-of-text token
const TEXT = ['abcab cabca', 'bca bcab', 'cab cab', 'aabbcc abc', 'abc abc', 'cba cba', 'acb acb',
  'bac bac', 'ccba abcc', 'bbac caab', 'aaa bbb ccc', 'dd ee dd'].join('\n');
const TUNE = ['cab cab', 'abc cba', 'bca acb', 'cab bac', 'abc abc', 'cba cba', 'bac cab', 'acb bca',
  'cab cab', 'abc cab', 'bca bca', 'cba abc'].join('\n');
const TINY = { text: TEXT, layers: 2, heads: 2, dim: 8, context: 6, batch: 2, seed: 3, lr: 3e-2, steps: 50 };
const ALL = [...LORA_TARGETS];

function base() {
  const gpt = qkv.createGPT(TINY);
  gpt.train(20);
  return gpt;
}

const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

test('at step 0 a LoRA run computes the base\'s logits bit for bit; training it leaves the base unchanged', () => {
  const gpt = base();
  const before = gpt.forward('cab c').logits.data;
  const ft = gpt.finetune({ text: TUNE, rank: 3, targets: ALL, steps: 10, batch: 2 });
  assert.ok(same(ft.forward('cab c').logits.data, before), 'logits at step 0');
  const options = { temperature: 0.9, seed: 4 };
  assert.deepEqual(ft.generate('ab', options), gpt.generate('ab', options), 'generation at step 0 (KV cache)');
  ft.train(5);
  assert.ok(!same(ft.forward('cab c').logits.data, before), 'the adapters moved the logits');
  assert.ok(same(gpt.forward('cab c').logits.data, before), 'the base is untouched');
  // with the cache and without, the adapters act the same (the decode's block halves are the forward's)
  const cached = ft.generate('ab', options), uncached = ft.generate('ab', { ...options, cache: false });
  assert.equal(cached.text, uncached.text);
  ft.dispose();
  gpt.dispose();
});

test('the gradients of A and B equal float64 finite differences of the reference GPT with W + (α/r)·A·B', () => {
  const gpt = base();
  const ft = gpt.finetune({ text: TUNE, rank: 2, alpha: 3, targets: ALL, steps: 10, batch: 2 });
  ft.train(6);  // B away from zero, so that A's gradient is not zero too
  const text = 'cab c';
  const { loss, grads } = ft.gradients(text);
  const adapters = ft.adapters();
  const p = gpt.parameters();
  const d = gpt.dim, s = ft.alpha / ft.rank;
  const ids = [...text].map((ch) => gpt.vocab.indexOf(ch));
  const windows = [{ inputs: [0, ...ids], targets: [...ids, 0] }];
  const config = { vocab: gpt.vocab.length, dim: d, heads: gpt.heads, layers: gpt.layers, context: gpt.context };
  const A = {}, B = {};
  for (const name of ALL) {
    A[name] = adapters[name].map((x) => Float64Array.from(x.A.data));
    B[name] = adapters[name].map((x) => Float64Array.from(x.B.data));
  }
  // the reference's weights: each adapted W (in, k) plus s·A·B, in float64
  const referenceLoss = () => {
    const blocks = p.blocks.map((b, l) => {
      const merged = (name, W) => {
        const [inn, k] = [W.rows, W.cols], out = Float64Array.from(W.data);
        const a = A[name][l], bb = B[name][l], r = ft.rank;
        for (let i = 0; i < inn; i++) for (let j = 0; j < k; j++) {
          let sum = 0;
          for (let q = 0; q < r; q++) sum += a[i * r + q] * bb[q * k + j];
          out[i * k + j] += s * sum;
        }
        return out;
      };
      const f = (m) => Float64Array.from(m.data);
      return {
        ln1: { gamma: f(b.ln1.gamma), beta: f(b.ln1.beta) },
        attn: { Wq: merged('Wq', b.attn.Wq), Wk: merged('Wk', b.attn.Wk), Wv: merged('Wv', b.attn.Wv), bq: f(b.attn.bq),
          bk: f(b.attn.bk), bv: f(b.attn.bv), Wo: merged('Wo', b.attn.Wo), bo: f(b.attn.bo) },
        ln2: { gamma: f(b.ln2.gamma), beta: f(b.ln2.beta) },
        mlp: { W1: merged('W1', b.mlp.W1), b1: f(b.mlp.b1), W2: merged('W2', b.mlp.W2), b2: f(b.mlp.b2) },
      };
    });
    const weights = { wte: Float64Array.from(p.wte.data), wpe: Float64Array.from(p.wpe.data), blocks,
      lnf: { gamma: Float64Array.from(p.lnf.gamma.data), beta: Float64Array.from(p.lnf.beta.data) } };
    return gptLoss(config, weights, windows).loss;
  };
  assert.ok(Math.abs(referenceLoss() - loss) < 1e-5, `loss ${loss} vs reference ${referenceLoss()}`);
  const h = 1e-5;
  let worst = 0, where = '', checked = 0;
  for (const name of ALL) {
    for (let l = 0; l < gpt.layers; l++) {
      for (const [part, tensor, grad] of [['A', A[name][l], grads[name][l].A.data], ['B', B[name][l], grads[name][l].B.data]]) {
        tensor.forEach((v, i) => {
          tensor[i] = v + h;
          const up = referenceLoss();
          tensor[i] = v - h;
          const down = referenceLoss();
          tensor[i] = v;
          const numeric = (up - down) / (2 * h);
          // as gpt.test.js's whole-GPT check: float64 differences (~1e-10), a float32 gradient
          // (~1e-8 absolute, 1e-4 relative through the LayerNorms)
          const ratio = Math.abs(grad[i] - numeric) / (2e-7 + 1e-4 * Math.abs(numeric));
          if (ratio > worst) { worst = ratio; where = `${name}[${l}].${part}[${i}]: C ${grad[i]}, finite differences ${numeric}`; }
          checked++;
        });
      }
    }
  }
  console.log(`LoRA r 2 on every target, 2 layers: ${checked} adapter entries, worst ${worst.toFixed(3)} of the tolerance (${where})`);
  assert.ok(worst <= 1, where);
  assert.equal(checked, ft.trainableCount);
  ft.dispose();
  gpt.dispose();
});

test('three AdamW steps of LoRA equal PyTorch: the losses and A, B after them (lora-torch.json)', () => {
  const F = JSON.parse(readFileSync(new URL('./fixtures/lora-torch.json', import.meta.url), 'utf8'));
  const c = F.config, heap = qkv._heap;
  const memory = heap.allocations('test');
  const slot = memory.bytes(32), tensor = memory.bytes(12);
  const call = (name, ...args) => assert.equal(heap.call(name, ...args), 0, name);
  const view = (g, group) => {
    call('qkv_gpt_tensor', g, group, GPT_LAYER_ALL, 0, tensor, tensor + 4, tensor + 8);
    return { ptr: heap.readInt(tensor), count: heap.readInt(tensor + 4) };
  };
  call('qkv_gpt_create', slot, c.vocab, c.layers, c.heads, c.dim, c.context, 1, 0);
  const baseGPT = heap.readInt(slot);
  const params = view(baseGPT, GPT_TENSOR_GROUP.params);
  assert.equal(params.count, F.params.length);
  heap.writeFloats(params.ptr, F.params);
  const mask = c.targets.reduce((m, t) => m | (1 << LORA_TARGETS.indexOf(t)), 0);
  call('qkv_gpt_create_lora', slot, baseGPT, 1, mask, c.rank, c.alpha, 0);
  const g = heap.readInt(slot);
  const adapters = view(g, GPT_TENSOR_GROUP.adapters);
  assert.equal(adapters.count, F.adapters.length);
  heap.writeFloats(adapters.ptr, F.adapters);
  const window = memory.ints(F.window.length), start = memory.ints(1);
  heap.writeInts(window, F.window);
  heap.writeInts(start, [0]);
  call('qkv_gpt_set_data', g, window, F.window.length, start, 1, window, F.window.length, start, 1);
  call('qkv_gpt_set_optimizer', g, c.lr, c.beta1, c.beta2, c.eps, c.weightDecay, c.clip, 0, 0);
  F.losses.forEach((expected, k) => {
    call('qkv_gpt_step', g, slot, slot + 8);
    const loss = heap.readDouble(slot);
    // float32 forward against float64: ~1e-6 relative
    assert.ok(Math.abs(loss - expected) < 1e-5 * expected, `step ${k + 1}: loss ${loss} vs PyTorch ${expected}`);
  });
  const final = heap.readFloats(adapters.ptr, adapters.count);
  let worst = 0, where = '';
  final.forEach((v, i) => {
    // each step moves an entry by about lr (AdamW's normalised step); float32 rounding of the
    // moments and of the entries (~1e-7 relative) stays far below 1e-5 of it
    const diff = Math.abs(v - F.final[i]) / (1e-6 + 1e-5 * Math.abs(F.final[i]));
    if (diff > worst) { worst = diff; where = `adapter ${i}: ${v} vs PyTorch ${F.final[i]}`; }
  });
  console.log(`LoRA after 3 AdamW steps: worst ${worst.toFixed(3)} of the tolerance (${where})`);
  assert.ok(worst <= 1, where);
  heap.call('qkv_gpt_destroy', g);
  heap.call('qkv_gpt_destroy', baseGPT);
  memory.freeAll();
});

test('merge() gives the adapted logits within 1e-5 and unmerge() gives them back bit for bit', () => {
  const gpt = base();
  const ft = gpt.finetune({ text: TUNE, rank: 4, targets: ALL, steps: 10 });
  ft.train(8);
  const adapted = ft.forward('cab c').logits.data;
  const heap = qkv._heap.used();
  ft.merge();
  assert.ok(ft.merged);
  assert.ok(ft.memoryBytes > 0 && qkv._heap.used() > heap, 'merging copies the weights');
  const merged = ft.forward('cab c').logits.data;
  let worst = 0;
  merged.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - adapted[i])); });
  assert.ok(worst <= 1e-5, `merged vs adapted: ${worst}`);
  assert.throws(() => ft.step(), /merged into the weights; call unmerge\(\)/);
  ft.unmerge();
  assert.equal(qkv._heap.used(), heap, 'unmerge frees the copy');
  assert.ok(same(ft.forward('cab c').logits.data, adapted));
  ft.step();
  ft.dispose();
  gpt.dispose();
});

test('saveAdapter / loadAdapter round-trip bit for bit; another base and altered bytes are refused', () => {
  const gpt = base();
  const ft = gpt.finetune({ text: TUNE, rank: 3, alpha: 6, targets: ['Wv', 'W1'], steps: 10 });
  ft.train(4);
  const bytes = ft.saveAdapter();
  assert.equal(bytes.length, ft.adapterBytes);
  const loaded = qkv.loadAdapter(gpt, bytes);
  assert.deepEqual([loaded.rank, loaded.alpha, [...loaded.targets], loaded.steps], [3, 6, ['Wv', 'W1'], 4]);
  assert.ok(same(loaded.forward('cab c').logits.data, ft.forward('cab c').logits.data));
  assert.deepEqual(loaded.saveAdapter(), bytes);
  assert.throws(() => loaded.step(), /loaded from a file, which holds no fine-tuning text/);
  const other = qkv.createGPT({ ...TINY, seed: 4 });
  assert.throws(() => qkv.loadAdapter(other, bytes), (e) => e instanceof RangeError && /^loadAdapter: this adapter was trained on another base/.test(e.message));
  const altered = bytes.slice();
  altered[60] ^= 1;
  assert.throws(() => qkv.loadAdapter(gpt, altered), /^RangeError: loadAdapter: the checksum does not match/);
  assert.throws(() => qkv.loadAdapter(gpt, bytes.subarray(0, 20)), /not a qkv-lab adapter file/);
  assert.throws(() => qkv.loadAdapter(gpt, [1, 2]), TypeError);
  for (const x of [loaded, ft, other, gpt]) x.dispose();
});

test('bad options are refused before anything is allocated, naming the option and the value', () => {
  const gpt = base();
  const used = qkv._heap.used();
  const refuse = (options, Type, pattern) => assert.throws(() => gpt.finetune(options), (e) => {
    assert.ok(e instanceof Type, `${Type.name} expected, got ${e.constructor.name}: ${e.message}`);
    assert.match(e.message, /^finetune: /);
    assert.match(e.message, pattern);
    return true;
  });
  refuse({ text: TUNE, rank: 0 }, RangeError, /rank must be an integer from 1 to 64, got 0/);
  refuse({ text: TUNE, rank: 65 }, RangeError, /rank .* got 65/);
  refuse({ text: TUNE, rank: 1.5 }, RangeError, /rank .* got 1.5/);
  refuse({ text: TUNE, rank: '4' }, TypeError, /rank/);
  refuse({ text: TUNE, targets: ['Wq', 'Wz'] }, RangeError, /unknown target the string "Wz"; the targets are Wq, Wk, Wv, Wo, W1, W2/);
  refuse({ text: TUNE, targets: [] }, TypeError, /targets must be a non-empty array/);
  refuse({ text: TUNE, targets: ['Wq', 'Wq'] }, RangeError, /named twice/);
  refuse({ text: TUNE, method: 'half' }, RangeError, /method must be 'lora' or 'full'/);
  refuse({ text: TUNE, alpha: -1 }, RangeError, /alpha/);
  refuse({ text: `${TUNE}\nxyz abc` }, RangeError, /3 characters outside the base's vocabulary .*: "x", "y", "z"/);
  refuse({ text: 'abc\ncab' }, RangeError, /at least 10/);
  refuse({ text: Array(10).fill('ab').join('\n') }, RangeError, /too short/);
  refuse({ rank: 2 }, TypeError, /text is required/);
  refuse({ text: TUNE, lora: true }, TypeError, /lora/);
  assert.equal(qkv._heap.used(), used, 'nothing allocated');
  gpt.dispose();
});

test('LoRA trains only the adapters (fewer floats and bytes than full), deterministically; full copies the base', () => {
  const baseline = qkv._heap.used();
  const gpt = base();
  const run = () => {
    const ft = gpt.finetune({ text: TUNE, rank: 2, steps: 20, seed: 7 });
    ft.train(6);
    return ft;
  };
  const a = run(), b = run();
  assert.deepEqual(a.saveAdapter(), b.saveAdapter(), 'the same seed gives the same adapters');
  const d = gpt.dim;
  assert.equal(a.trainableCount, gpt.layers * 2 * 2 * (d + d), 'Wq and Wv: r (d + d) each per layer');
  const full = gpt.finetune({ text: TUNE, method: 'full', steps: 20 });
  assert.equal(full.trainableCount, gpt.parameterCount);
  assert.ok(same(full.forward('cab c').logits.data, gpt.forward('cab c').logits.data), 'full starts from the base');
  assert.ok(a.memoryBytes < full.memoryBytes, `LoRA ${a.memoryBytes} bytes, full ${full.memoryBytes}`);
  const { train, val, baseVal } = full.evaluate();
  assert.ok([train, val, baseVal].every(Number.isFinite));
  assert.throws(() => full.saveAdapter(), /a full fine-tune has no adapters/);
  gpt.dispose();  // disposes its fine-tunes too: they read its weights
  assert.ok(a.disposed && b.disposed && full.disposed);
  assert.equal(qkv._heap.used(), baseline, 'every byte returned');
});

test('training and validation windows start where a poem starts (a poem longer than the context also inside it)', () => {
  const gpt = base();
  // 20 lines of 4 characters, context 6: the held-out lines are 10 and 20, so the validation
  // stream is '\n' abca '\n' bcab '\n' (11 tokens) and its one window starts at the first '\n'
  // (a window starting inside 'abca', as createGPT's stream would also cut, is left out)
  const lines = Array.from({ length: 20 }, (_, i) => (i === 9 ? 'abca' : i === 19 ? 'bcab' : 'cabc'));
  const ft = gpt.finetune({ text: lines.join('\n'), steps: 5 });
  const { logits } = ft.forward('abca\n');  // inputs '\n' abca '\n', targets abca '\n' b
  const targets = [...'abca'].map((ch) => gpt.vocab.indexOf(ch)).concat(0, gpt.vocab.indexOf('b'));
  let sum = 0;
  targets.forEach((target, t) => {
    const row = Array.from(logits.data.subarray(t * logits.cols, (t + 1) * logits.cols));
    const max = Math.max(...row);
    sum += max + Math.log(row.reduce((s, z) => s + Math.exp(z - max), 0)) - row[target];
  });
  // float32 logits summed in float64 here, the engine's loss in float32 then float64: ~1e-6
  assert.ok(Math.abs(ft.evaluate().val - sum / targets.length) < 1e-5, `val ${ft.evaluate().val}, one window from the start ${sum / targets.length}`);
  // evaluatePoems scores the held-out lines by default, each from its start
  assert.deepEqual(ft.evaluatePoems(), ft.evaluatePoems(['abca', 'bcab']));
  assert.equal(ft.evaluatePoems().poems, 2);
  gpt.dispose();
  // poems longer than the context keep the windows inside them: at step 0 the fine-tune scores
  // the same windows as a GPT created on that text (createGPT's stream), bit for bit
  const longText = Array(12).fill('abcabcabc').join('\n');
  const own = qkv.createGPT({ ...TINY, text: longText });
  own.train(3);
  assert.equal(own.finetune({ text: longText }).evaluate().val, own.evaluate().val);
  own.dispose();
});

test('the same seed gives the same bytes with the SIMD128 and the scalar kernels: base, LoRA adapters and a full fine-tune', async (t) => {
  if (qkv.kernels !== 'simd128') return t.skip(`this process runs the ${qkv.kernels} kernels; the bit-identity holds between SIMD128 and scalar`);
  const scalar = await load({ fresh: true, kernels: 'scalar', gpt: true });
  // every float of a nested { name: Matrix | [...] | {...} } in a fixed order
  const floatsOf = (tree) => (tree && tree.data instanceof Float32Array ? Array.from(tree.data)
    : Object.keys(tree).sort().flatMap((k) => floatsOf(tree[k])));
  const runOn = (lab) => {
    const gpt = lab.createGPT(TINY);
    gpt.train(20);
    const lora = gpt.finetune({ text: TUNE, rank: 2, targets: ALL, steps: 20, seed: 7 });
    lora.train(5);
    const full = gpt.finetune({ text: TUNE, method: 'full', steps: 20, seed: 7 });
    full.train(5);
    const out = { base: gpt.save(), adapter: lora.saveAdapter(), full: floatsOf(full.parameters()) };
    assert.equal(out.full.length, gpt.parameterCount, 'every parameter compared');
    gpt.dispose();
    return out;
  };
  const a = runOn(qkv), b = runOn(scalar);
  assert.deepEqual(a.base, b.base, 'the base trained identically');
  assert.deepEqual(a.adapter, b.adapter, 'the LoRA adapters');
  assert.ok(same(a.full, b.full), 'the fully fine-tuned parameters');
});
