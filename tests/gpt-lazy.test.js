// The GPT engine loads on demand (build.sh build_gpt, web/qkv-lab.js attachGPT): an instance
// from load() has no GPT until load({ gpt: true }) or qkv.loadGPTEngine() attaches it, on the
// same instance and memory; before that its GPT calls throw an Error saying what to call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { compiledModulesOf } from '../web/engine-sources.js';

// a module of one relaxed-SIMD instruction: true where this engine runs relaxed SIMD
const RELAXED_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11);

const X = [[1, 2], [3, 4]];
const TEXT = Array.from({ length: 20 }, (_, i) => `ab${'cd'[i % 2]}`).join('\n');

test('without the GPT engine: transformerBlock, createGPT and loadGPT throw an Error naming load({ gpt: true }) and loadGPTEngine()', async () => {
  const qkv = await load({ fresh: true });
  assert.equal(qkv.gptLoaded, false);
  for (const [op, call] of [['transformerBlock', () => qkv.transformerBlock(X, {}, { heads: 1 })],
    ['createGPT', () => qkv.createGPT({ text: TEXT })], ['loadGPT', () => qkv.loadGPT(new Uint8Array(8))]]) {
    assert.throws(call, (error) => error.constructor === Error &&
      error.message.startsWith(`${op}: the GPT engine is not loaded`) &&
      error.message.includes('await load({ gpt: true })') && error.message.includes('await qkv.loadGPTEngine()'), op);
  }
  // the rest of the API works without it
  assert.equal(qkv.matmul([[1, 2]], [[3], [4]]).data[0], 11);
});

test('loadGPTEngine() attaches the engine to the instance it is called on (one memory), once', async () => {
  const qkv = await load({ fresh: true });
  const before = qkv.heapUsed();
  const [a, b] = await Promise.all([qkv.loadGPTEngine(), qkv.loadGPTEngine()]);
  assert.equal(a, qkv);
  assert.equal(b, qkv);
  assert.equal(qkv.gptLoaded, true);
  const attached = qkv.heapUsed();
  assert.ok(attached > before, 'the engine\'s stack is allocated on the instance\'s heap');
  await qkv.loadGPTEngine();
  assert.equal(qkv.heapUsed(), attached, 'a second call attaches nothing more');
  const gpt = qkv.createGPT({ text: TEXT, layers: 1, dim: 8, heads: 2, context: 4, batch: 2, steps: 2 });
  assert.ok(Number.isFinite(gpt.step().loss));
  const copy = qkv.loadGPT(gpt.save());
  assert.deepEqual(copy.forward('ab').logits.data, gpt.forward('ab').logits.data);
  gpt.dispose();
  copy.dispose();
  assert.equal(qkv.heapUsed(), attached);
});

test('load({ gpt: true }) attaches the engine to the shared instance: widgets on a page share one instance', async () => {
  const plain = await load();
  const withGPT = await load({ gpt: true });
  assert.equal(withGPT, plain);
  assert.equal(plain.gptLoaded, true);
  assert.equal(await load(), plain);
  const out = plain.transformerBlock(X, {
    ln1: { gamma: [1, 1], beta: [0, 0] },
    attn: { Wq: [[1, 0], [0, 1]], Wk: [[1, 0], [0, 1]], Wv: [[1, 0], [0, 1]], bq: [0, 0], bk: [0, 0], bv: [0, 0], Wo: [[1, 0], [0, 1]], bo: [0, 0] },
    ln2: { gamma: [1, 1], beta: [0, 0] },
    mlp: { W1: [[1, 0], [0, 1]], b1: [0, 0], W2: [[1, 0], [0, 1]], b2: [0, 0] },
  }, { heads: 1 });
  assert.equal(out.output.rows, 2);
});

test('load({ gpt }) takes true or false only, rejecting the promise otherwise', async () => {
  for (const gpt of ['yes', 1, null]) {
    await assert.rejects(load({ gpt }), (error) => error instanceof TypeError && error.message.startsWith('load: gpt must be true or false'));
  }
  const qkv = await load({ fresh: true, gpt: false });
  assert.equal(qkv.gptLoaded, false);
});

// The GPT kernels (GELU's loops, AdamW, the output layer's softmax) travel with the engine, one
// module per kernel build (dist/qkv-gpt.js's kernels): an instance must run its own build's (a
// scalar instance given the SIMD128 ones would fail on the engines the scalar build is for; the
// builds give the same bits, so only the bytes compiled tell them apart), on a stack the API
// allocated (the module's own default would point into memory the core owns).
test('the GPT engine runs the GPT kernels of the instance\'s own kernel build, on a stack of their own', async () => {
  const { gpt: chunk } = await import('../web/dist/qkv-gpt.js');
  const sizes = Object.fromEntries(Object.entries(chunk.kernels).map(([name, k]) => [name, k.size]));
  assert.ok(sizes.simd128 && sizes.scalar && new Set(Object.values(sizes)).size === Object.keys(sizes).length, JSON.stringify(sizes));
  const builds = ['simd128', 'scalar', ...(WebAssembly.validate(RELAXED_PROBE) && sizes['relaxed-simd'] ? ['relaxed-simd'] : [])];
  for (const kernels of builds) {
    const compiled = [];
    const compile = WebAssembly.compile;
    WebAssembly.compile = (bytes) => { compiled.push(bytes.byteLength); return compile.call(WebAssembly, bytes); };
    let qkv;
    try {
      qkv = await load({ kernels, fresh: true });
      compiled.length = 0;  // the core's and the kernels'
      await qkv.loadGPTEngine();
    } finally {
      WebAssembly.compile = compile;
    }
    const gptKernels = Object.entries(sizes).filter(([, size]) => compiled.includes(size)).map(([name]) => name);
    assert.deepEqual(gptKernels, [kernels], `${kernels}: compiled ${compiled.join(', ')} bytes; the GPT kernels are ${JSON.stringify(sizes)}`);
    // the stack pointer the API set, against the module's own default (a fresh instance of it)
    const heap = qkv._heap;
    const own = new WebAssembly.Instance(compiledModulesOf(qkv).gptKernelModule, { env: { memory: heap.memory } });
    const sp = heap.gptKernels.__stack_pointer.value;
    assert.ok(sp !== own.exports.__stack_pointer.value && sp % 16 === 0, `${kernels}: the GPT kernels' stack pointer ${sp}, the module's default ${own.exports.__stack_pointer.value}`);
    // and the engine computes with them
    const g = qkv.createGPT({ text: TEXT, layers: 1, dim: 8, heads: 2, context: 4, batch: 2 });
    assert.ok(Number.isFinite(g.step().loss));
    g.dispose();
  }
});

// The engine zeroes and copies with memory.fill and memory.copy (bulk memory), inline, not through
// the core's memset and memcpy (byte loops in its -Oz C library). An engine that cannot compile it
// (older than Chrome 75, Firefox 79, Safari 15) is simulated by a compile that refuses its bytes.
test('the GPT engine imports no memset or memcpy, and an engine that cannot compile it rejects loadGPTEngine() saying why; a later call attaches it', async () => {
  const { gpt: chunk } = await import('../web/dist/qkv-gpt.js');
  const qkv = await load({ fresh: true });
  const compile = WebAssembly.compile;
  WebAssembly.compile = async (bytes) => {
    if (bytes.byteLength === chunk.size) throw new WebAssembly.CompileError('invalid opcode 0xfc0b');
    return compile.call(WebAssembly, bytes);
  };
  try {
    await assert.rejects(qkv.loadGPTEngine(), (error) => error.constructor === Error &&
      error.message.startsWith('loadGPTEngine: this engine cannot compile the GPT engine, which needs WebAssembly bulk memory') &&
      error.message.endsWith(': invalid opcode 0xfc0b') && error.cause instanceof WebAssembly.CompileError);
    assert.equal(qkv.gptLoaded, false);
  } finally {
    WebAssembly.compile = compile;
  }
  await qkv.loadGPTEngine();
  const imports = WebAssembly.Module.imports(compiledModulesOf(qkv).gptModule).map((i) => i.name);
  for (const name of ['memset', 'memcpy', 'memmove']) assert.ok(!imports.includes(name), `imports ${name}`);
  const g = qkv.createGPT({ text: TEXT, layers: 1, dim: 8, heads: 2, context: 4, batch: 2 });
  assert.ok(Number.isFinite(g.step().loss));
  g.dispose();
});
