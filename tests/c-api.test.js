// The C API through the built modules, where it really runs: wasm32, with a 32-bit long and
// size_t (the core's exports and the kernels', as a private load() instance binds them).
// Regression tests for what an outside review found and what the fuzzer found (tests/fuzz/):
// each case failed, trapped or returned NaN before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { STATUS } from './fuzz/wasm-harness.js';

const lab = await load({ fresh: true });
const core = lab._heap.core;
const kernels = lab._heap.kernels;

/** Runs fn with a model of V tokens, d wide, sequences up to L, and frees it. */
function withModel(V, d, L, fn) {
  const slot = core._malloc(4);
  assert.equal(core._qkv_model_create(slot, V, d, L, 1), STATUS.OK);
  const m = core.HEAP32[slot >> 2];
  core._free(slot);
  try {
    return fn(m);
  } finally {
    core._qkv_model_destroy(m);
  }
}

/** loss_and_grad with count sentences of `length` tokens each (all token 1); returns { status, loss }. */
function lossOf(m, count, length, tokens = 4) {
  const lengths = core._malloc(4 * count), tokenBuffer = core._malloc(4 * tokens), loss = core._malloc(8);
  core.HEAP32.fill(length, lengths >> 2, (lengths >> 2) + count);
  core.HEAP32.fill(1, tokenBuffer >> 2, (tokenBuffer >> 2) + tokens);
  const status = core._qkv_model_loss_and_grad(m, tokenBuffer, lengths, count, loss);
  const value = core.HEAPF64[loss >> 3];
  for (const p of [lengths, tokenBuffer, loss]) core._free(p);
  return { status, loss: value };
}

test('loss_and_grad: 2^22 sentences of 1,024 tokens sum to 2^32, which a 32-bit long wrapped to 0', () => {
  // before the fix the size guard passed, no token was checked, and the loop read 4 Mi
  // sentences past a 4-token buffer: a trap (memory access out of bounds) or garbage
  const heap = core._qkv_heap_used();
  withModel(8, 4, 1025, (m) => {
    assert.equal(((2 ** 22) * 1024) % 2 ** 32, 0);
    assert.deepEqual(lossOf(m, 2 ** 22, 1024), { status: STATUS.SIZE, loss: NaN });
    // the reported case: 741,919 sentences of 5,789 tokens summed to 1,795 in 32 bits
    assert.equal((741919 * 5789) % 2 ** 32, 1795);
    // (a model with L = 5790 needs ~400 MiB; the same sum against L = 1025 is refused first
    // for the length alone, so it is checked where each length is valid: 2^22 + 1 sentences)
    assert.equal(lossOf(m, 2 ** 22 + 1, 1024).status, STATUS.SIZE);
    assert.equal(lossOf(m, 3, 1024, 3 * 1024).status, STATUS.OK, 'valid sentences still train');
  });
  assert.equal(core._qkv_heap_used(), heap);
});

test('loss_and_grad: lengths[s] + 1 overflowed int at INT_MAX; a length of L (L + 1 rows with <s>) is refused', () => {
  withModel(8, 4, 16, (m) => {
    assert.equal(lossOf(m, 1, 2147483647).status, STATUS.SIZE);
    assert.equal(lossOf(m, 1, 16).status, STATUS.SIZE);
    assert.equal(lossOf(m, 1, 15, 15).status, STATUS.OK);
  });
});

test('qkv_alloc_bytes (1 GiB, the memory\'s maximum) and qkv_alloc_floats (2^26 floats) are bounded, for every int', () => {
  for (const bytes of [0, -1, 2 ** 30 + 1, 2147483647, -2147483648]) {
    assert.equal(core._qkv_alloc_bytes(bytes), 0, `qkv_alloc_bytes(${bytes})`);
  }
  for (const count of [0, -1, 2 ** 26 + 1, 2147483647]) assert.equal(core._qkv_alloc_floats(count), 0, `qkv_alloc_floats(${count})`);
  const p = core._qkv_alloc_bytes(16);
  assert.ok(p > 0 && p % 8 === 0);
  core._qkv_free(p);
  // one call's buffers share one block (web/qkv-lab.js): transposing 2^26 entries takes 512 MiB
  const frame = core._qkv_alloc_bytes(2 ** 29 + 256);
  assert.ok(frame > 0, 'a 512 MiB frame is allowed');
  core._qkv_free(frame);
});

/** Calls attention_backward on 1×1 matrices with the given values; returns the status. */
function backward1({ q = 1, k = 1, v = 1, dout = 1, w = 1, scale = 1, dq = 0 }) {
  const p = Array.from({ length: 9 }, () => core._malloc(4));
  const values = [dq, 0, 0, 0, dout, q, k, v, w];
  p.forEach((ptr, i) => { core.HEAPF32[ptr >> 2] = values[i]; });
  const status = kernels.qkv_attention_backward(...p, 1, 1, 1, 1, scale, 0);
  const dQ = core.HEAPF32[p[0] >> 2];
  p.forEach((ptr) => core._free(ptr));
  return { status, dQ };
}

test('attention_backward reports float32 overflow instead of returning NaN gradients (found by the fuzzer)', () => {
  // dout·V overflows float32 although each input is finite
  assert.equal(backward1({ v: 3e38, dout: 100, w: 0.5, k: 3e38 }).status, STATUS.OVERFLOW);
  assert.deepEqual(backward1({}), { status: STATUS.OK, dQ: 0 });  // one key, weight 1: softmax's gradient is 0
  // a NaN already in an accumulator is refused, not passed on
  assert.equal(backward1({ dq: NaN }).status, STATUS.NONFINITE);
});

test('a subnormal scale is refused (backward multiplied by 1/scale = Infinity; found by the fuzzer)', () => {
  assert.equal(backward1({ scale: 1e-40 }).status, STATUS.ARGUMENT);
  assert.equal(backward1({ scale: 2 ** -126 }).status, STATUS.OK);
  const p = Array.from({ length: 6 }, () => core._malloc(4));
  p.forEach((ptr) => { core.HEAPF32[ptr >> 2] = 1; });
  assert.equal(kernels.qkv_attention_forward(...p, 1, 1, 1, 1, 1e-40, 0), STATUS.ARGUMENT);
  p.forEach((ptr) => core._free(ptr));
});

test('update refuses gradients of a loss above 100 × ln V, and after a failed loss_and_grad', () => {
  withModel(8, 4, 16, (m) => {
    const rows = core._malloc(4 * 8), count = core._malloc(4);
    assert.equal(core._qkv_model_update(m, rows, count), STATUS.OK, 'zero gradients before any loss: a no-op');
    assert.equal(core.HEAP32[count >> 2], 0);
    assert.equal(lossOf(m, 1, 4).status, STATUS.OK);
    assert.equal(core._qkv_model_update(m, rows, count), STATUS.OK);
    // blow the output bias up so that the loss is far above the limit, then try to step
    const slots = core._malloc(12);
    assert.equal(core._qkv_model_tensor(m, 0, 5, slots, slots + 4, slots + 8), STATUS.OK);
    const bias = core.HEAP32[slots >> 2];
    core.HEAPF32[(bias >> 2) + 0] = 1e4;  // every prediction: <s>, while the targets are token 1
    const { status, loss } = lossOf(m, 1, 4);
    assert.equal(status, STATUS.OK);
    assert.ok(loss > 100 * Math.log(8), `loss ${loss}`);
    assert.equal(core._qkv_model_update(m, rows, count), STATUS.DIVERGED);
    for (const p of [rows, count, slots]) core._free(p);
  });
});
