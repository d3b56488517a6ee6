// heap.js: the C enums' names in JavaScript are the numbers wasm/qkv.h gives them (read from the
// header, so that a renumbered or added code fails here), and the Heap's tracked allocations
// and frames leave heapUsed() where it was; only heap.js allocates or writes WebAssembly memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { load } from 'qkv-lab';
import {
  STATUS, OPTIMIZER, TENSOR_GROUP, MODEL_PARAMETERS, MODEL_ACTIVATIONS, GPT_TENSOR_GROUP, BLOCK_PARAMETERS, BLOCK_ACTIVATIONS,
  GPT_LAYER_ALL, GPT_OUTSIDE_PARAMETERS, GPT_OUTSIDE_ACTIVATIONS, LORA_TARGETS,
} from '../web/heap.js';

const header = fs.readFileSync(new URL('../wasm/qkv.h', import.meta.url), 'utf8');
const model = fs.readFileSync(new URL('../wasm/model.c', import.meta.url), 'utf8');

/** NAME = value pairs of the C enumerators whose names start with prefix. */
function enumerators(prefix) {
  const out = {};
  for (const [, name, value] of header.matchAll(new RegExp(`\\b${prefix}(\\w+) = (\\d+)`, 'g'))) out[name] = Number(value);
  return out;
}

test('STATUS names every qkv_status code of wasm/qkv.h with its number', () => {
  const c = { OK: enumerators('QKV_').OK, ...enumerators('QKV_ERR_') };
  assert.deepEqual({ ...STATUS }, c);
});

test('OPTIMIZER and TENSOR_GROUP are wasm/qkv.h\'s QKV_OPTIMIZER_* and QKV_MODEL_*', () => {
  assert.deepEqual(Object.fromEntries(Object.entries(OPTIMIZER).map(([k, v]) => [k.toUpperCase(), v])), enumerators('QKV_OPTIMIZER_'));
  assert.deepEqual(Object.fromEntries(Object.entries(TENSOR_GROUP).map(([k, v]) => [k.toUpperCase(), v])), enumerators('QKV_MODEL_'));
});

test('GPT_TENSOR_GROUP, BLOCK_PARAMETERS and BLOCK_ACTIVATIONS are wasm/qkv.h\'s QKV_GPT_*, QKV_BLOCK_* and QKV_BLOCK_ACT_*', () => {
  const groups = Object.fromEntries(Object.entries(enumerators('QKV_GPT_')).filter(([k]) => !k.startsWith('MAX') && k !== 'TOP'));
  assert.deepEqual(Object.fromEntries(Object.entries(GPT_TENSOR_GROUP).map(([k, v]) => [k.toUpperCase(), v])), groups);
  // the two enums count from 0 in the order written; their last member is the count
  const list = (last) => {
    const body = new RegExp(`enum \\{([^}]*\\b${last}\\b[^}]*)\\}`).exec(header)[1];
    return body.split(',').map((s) => s.trim()).filter((s) => s && s !== last);
  };
  assert.deepEqual(list('QKV_BLOCK_PARAMS').map((s) => s.replace('QKV_BLOCK_', '').toLowerCase()), [...BLOCK_PARAMETERS]);
  assert.deepEqual(list('QKV_BLOCK_ACTS').map((s) => s.replace('QKV_BLOCK_ACT_', '').toLowerCase()), [...BLOCK_ACTIVATIONS]);
});

test('GPT_LAYER_ALL, GPT_OUTSIDE_PARAMETERS and GPT_OUTSIDE_ACTIVATIONS are wasm/qkv.h\'s QKV_GPT_LAYER_ALL, QKV_GPT_* and QKV_GPT_ACT_*', () => {
  assert.equal(Number(/#define QKV_GPT_LAYER_ALL \((-?\d+)\)/.exec(header)[1]), GPT_LAYER_ALL);
  const list = (last, prefix) => {
    const body = new RegExp(`enum \\{([^}]*\\b${last}\\b[^}]*)\\}`).exec(header)[1];
    return body.split(',').map((s) => s.trim()).filter((s) => s && s !== last).map((s) => s.replace(prefix, '').toLowerCase());
  };
  assert.deepEqual(list('QKV_GPT_OUTSIDE_PARAMS', 'QKV_GPT_'), [...GPT_OUTSIDE_PARAMETERS]);
  assert.deepEqual(list('QKV_GPT_OUTSIDE_ACTS', 'QKV_GPT_ACT_'), [...GPT_OUTSIDE_ACTIVATIONS]);
  assert.deepEqual(list('QKV_LORA_TARGETS', 'QKV_LORA_'), LORA_TARGETS.map((t) => t.toLowerCase()));
});

test('MODEL_PARAMETERS and MODEL_ACTIVATIONS are in the order of wasm/model.c\'s tensor lists', () => {
  // qkv_model_tensor's lists: `list[NUM_ACTIVATIONS] = { m->X, m->Q, … }`; the header's comment
  // numbers the parameters "0 wte (V, d), 1 Wq (d, d), …"
  const activations = /float\* list\[NUM_ACTIVATIONS\] = \{([^}]*)\}/.exec(model)[1].match(/m->(\w+)/g).map((s) => s.slice(3));
  const cNames = { Vv: 'V', att: 'attention' };
  assert.deepEqual(activations.map((name) => cNames[name] ?? name), [...MODEL_ACTIVATIONS]);
  const params = [...header.matchAll(/(\d) (wte|Wq|Wk|Wv|Wout|bout) \(/g)].map(([, i, name]) => [Number(i), name]);
  assert.deepEqual(params.map(([i]) => i), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(params.map(([, name]) => (name === 'wte' ? 'embedding' : name)), [...MODEL_PARAMETERS]);
});

test('allocations are freed together, frames leave nothing behind, and reads are copies', async () => {
  const lab = await load({ fresh: true });
  const heap = lab._heap;
  const before = heap.used();
  const group = heap.allocations('test');
  const a = group.floats(4), b = group.ints(3), c = group.bytes(8);
  assert.ok(a % 8 === 0 && b % 8 === 0 && c % 8 === 0, 'addresses aligned for doubles');
  heap.writeFloats(a, [1.5, -2, 3, 0.1]);
  heap.writeInts(b, [7, -8, 9]);
  const floats = heap.readFloats(a, 4);
  assert.deepEqual(Array.from(floats), [1.5, -2, 3, Math.fround(0.1)]);
  assert.deepEqual(Array.from(heap.readInts(b, 3)), [7, -8, 9]);
  assert.equal(heap.readInt(b + 4), -8);
  floats[0] = 99;
  assert.equal(heap.readFloats(a, 1)[0], 1.5, 'a read is a copy');
  const view = heap.floatView(a, 4);
  view[1] = 7;
  assert.equal(heap.readFloats(a, 2)[1], 7, 'floatView is the heap itself');
  const m = heap.readMatrix(a, 2, 2);
  assert.deepEqual([m.rows, m.cols, m.get(1, 0)], [2, 2, 3]);
  assert.ok(heap.used() > before);
  group.freeAll();
  group.freeAll();
  assert.equal(heap.used(), before, 'freeAll() returns every allocation');
  // a frame larger than the scratch block allocates one block and frees it
  const sum = heap.frame(1 << 17, (frame) => {
    const p = frame.floats(1 << 17);
    heap.writeFloats(p, new Float32Array(1 << 17).fill(0.5));
    return heap.readFloats(p, 1 << 17).reduce((s, x) => s + x, 0);
  });
  assert.equal(sum, 1 << 16);
  assert.throws(() => heap.frame(4, () => { throw new Error('inside'); }), /inside/);
  assert.equal(heap.used(), before, 'frames, thrown out of or not, leave the heap as it was');
  assert.equal(heap.call('qkv_model_set_optimizer', 0, OPTIMIZER.sgd, 0.1, 0.9, 0.999, 1e-8), STATUS.NULL);
  assert.match(lab.errorMessage(STATUS.NULL), /NULL|null/);
});

test('one owner of WebAssembly memory: only heap.js allocates, frees or writes the module, and the GPT engine\'s functions are the Heap\'s to call', async () => {
  // the API's modules and the benchmark: no malloc/free of their own, no functions written onto
  // the Emscripten module, no HEAP* views written (tests that drive the raw C API may: c-api, fuzz)
  // (read as text from the repository's root: the tests load no module of bench/, imports.test.js)
  const root = new URL('../', import.meta.url);
  const listed = (dir, ext) => fs.readdirSync(new URL(`${dir}/`, root)).filter((f) => f.endsWith(ext)).map((f) => `${dir}/${f}`);
  const files = [...listed('web', '.js'), ...listed('bench', '.mjs')];
  const problems = [];
  for (const file of files.filter((f) => f !== 'web/heap.js')) {
    const code = fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8').split('\n').filter((l) => !/^\s*(\/\/|\*)/.test(l)).join('\n');
    if (/\b(?!this\b)\w+\._(malloc|free|qkv_alloc_bytes|qkv_free)\(|\.call\('(malloc|free|qkv_alloc_bytes|qkv_free)'/.test(code)) problems.push(`${file} allocates or frees WebAssembly memory itself`);
    if (/\bcore\s*\[[^\]]*\]\s*=(?!=)|\bcore\._\w+\s*=(?!=)/.test(code)) problems.push(`${file} writes onto the Emscripten module`);
    if (/\bHEAP(F32|F64|32|U32|U8)\b[^;\n]*\.set\(|\bHEAP(F32|F64|32|U32|U8)\s*\[[^\]]*\]\s*=(?!=)/.test(code)) problems.push(`${file} writes a HEAP view`);
  }
  assert.deepEqual(problems, []);
  // the engine's functions are reached through the Heap; the module keeps only its own
  const lab = await load({ fresh: true, gpt: true });
  const heap = lab._heap;
  assert.equal(typeof heap.functions._qkv_gpt_create, 'function');
  assert.equal(heap.core._qkv_gpt_create, undefined, 'the GPT engine\'s functions are not written onto the core module');
  assert.equal(heap.functions._qkv_rng_size, heap.core._qkv_rng_size, 'the core\'s own are reached through the same object');
  const before = heap.used();
  const gpt = lab.createGPT({ text: '床前明月光\n疑是地上霜\n举头望明月\n低头思故乡\n'.repeat(3), layers: 1, dim: 8, heads: 2, context: 4, batch: 1 });
  gpt.step();
  gpt.dispose();
  assert.equal(heap.used(), before, 'a GPT made, stepped and disposed leaves the heap as it was');
});
