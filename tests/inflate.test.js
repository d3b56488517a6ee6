// web/inflate.js decodes the DEFLATE streams that carry qkv-lab's WebAssembly modules: it must
// agree with zlib on stored, fixed-code and dynamic-code blocks, long matches and empty input,
// and refuse truncated data instead of returning garbage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { modules } from '../web/dist/qkv-wasm.js';
import { scalar } from '../web/dist/qkv-scalar.js';
import { inflate } from '../web/inflate.js';
import { mulberry32 } from './helpers.js';

function roundTrip(bytes, level, label) {
  const packed = deflateRawSync(bytes, { level });
  const out = inflate(new Uint8Array(packed), bytes.length);
  assert.ok(Buffer.from(out).equals(Buffer.from(bytes)), `${label} (level ${level}): inflated bytes differ`);
}

test('inflate reproduces zlib-compressed data: random, repetitive, text, empty; levels 0 (stored) to 9', () => {
  const random = mulberry32(5);
  const noise = Uint8Array.from({ length: 70000 }, () => Math.floor(random() * 256));
  const runs = Uint8Array.from({ length: 50000 }, (_, i) => (i % 1000 < 700 ? 7 : i % 13));
  const text = new TextEncoder().encode('我 爱 吃 苹果, and attention is all you need. '.repeat(400));
  for (const level of [0, 1, 6, 9]) {
    roundTrip(noise, level, 'random bytes');
    roundTrip(runs, level, 'long runs');
    roundTrip(text, level, 'text');
    roundTrip(new Uint8Array(0), level, 'empty');
    roundTrip(Uint8Array.of(42), level, 'one byte (fixed codes)');
  }
});

test('the modules in dist/qkv-wasm.js and dist/qkv-scalar.js inflate to valid WebAssembly of the stated sizes', () => {
  const { sizes, deflated } = modules;
  const packed = new Uint8Array(Buffer.from(deflated, 'base64'));
  const all = inflate(packed, sizes.core + sizes.simd);
  let at = 0;
  for (const [name, size] of Object.entries(sizes)) {
    const bytes = all.subarray(at, at += size);
    assert.ok(WebAssembly.validate(bytes), `${name}: not a valid WebAssembly module`);
  }
  assert.equal(at, all.length);
  assert.deepEqual(Object.keys(sizes), ['core', 'simd']);
  // inflating only the first module (what load() does for the scalar and relaxed builds) gives its bytes
  const first = inflate(packed, sizes.core + sizes.simd, sizes.core);
  assert.ok(Buffer.from(first.subarray(0, sizes.core)).equals(Buffer.from(all.subarray(0, sizes.core))));
  assert.ok(WebAssembly.validate(inflate(new Uint8Array(Buffer.from(scalar.deflated, 'base64')), scalar.size)), 'scalar: not valid WebAssembly');
});

test('inflate(input, size, first) stops once `first` bytes are out, in stored, fixed and dynamic blocks alike', () => {
  const random = mulberry32(9);
  const bytes = Uint8Array.from({ length: 40000 }, (_, i) => (i % 3000 < 2000 ? Math.floor(random() * 256) : i % 7));
  for (const level of [0, 1, 9]) {
    const packed = new Uint8Array(deflateRawSync(bytes, { level }));
    for (const first of [1, 100, 20000, 39999, 40000]) {
      const out = inflate(packed, bytes.length, first);
      assert.equal(out.length, bytes.length);
      assert.ok(Buffer.from(out.subarray(0, first)).equals(Buffer.from(bytes.subarray(0, first))), `level ${level}, first ${first}`);
    }
  }
});

test('inflate refuses truncated or wrongly sized data', () => {
  const bytes = new TextEncoder().encode('abcabcabc'.repeat(100));
  const packed = new Uint8Array(deflateRawSync(bytes));
  assert.throws(() => inflate(packed.subarray(0, packed.length >> 1), bytes.length), /inflate:/);
  assert.throws(() => inflate(packed, bytes.length + 1), /inflate: 900 bytes, expected 901/);
});
