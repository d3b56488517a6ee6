// gpt-refusals.test.js: the page's words for the GPT engine's refusals (web/page/gpt/refusals.js).
// Each refusal is made with the engine itself, through the public API, so a reworded message in
// web/gpt.js fails here instead of silently falling back to English on the Chinese page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { quantizeGPTFile } from '../web/gpt-quantize.js';
import { GPT_LIMITS } from '../web/gpt-defaults.js';
import { refusalOf, refusalText } from '../web/page/gpt/refusals.js';
import { createI18n } from '../web/page/shell/i18n.js';

const lines = (n, line = '白日依山尽，黄河入海流。') => Array.from({ length: n }, () => line).join('\n');
const messageOf = (fn) => { try { fn(); } catch (error) { return error.message; } throw new Error('expected a refusal'); };

test('every refusal the page can meet is recognised, with its numbers, and said in Chinese without English words', async () => {
  const qkv = await load({ gpt: true });
  const gpt = qkv.createGPT({ layers: 1, heads: 2, dim: 16, context: 8, steps: 50, text: lines(12) });
  const bytes = gpt.save();
  const changed = (edit) => { const b = bytes.slice(); edit(b, new DataView(b.buffer)); return b; };
  // a version-2 file edited behind a valid checksum (FNV-1a, as web/gpt.js writes it)
  const int8 = quantizeGPTFile(gpt.save()).bytes;
  const int8Params = 8 + 36 + Math.ceil(new DataView(int8.buffer).getUint32(8 + 32, true) / 4) * 4;
  const resealed = (b0, edit) => {
    const b = b0.slice();
    const v = new DataView(b.buffer);
    edit(b, v);
    let h = 0x811c9dc5;
    for (let i = 0; i < b.length - 4; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
    v.setUint32(b.length - 4, h, true);
    return b;
  };
  const many = Array.from({ length: GPT_LIMITS.vocab + 5 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
  const cases = [
    ['fewLines', () => qkv.createGPT({ text: lines(3) }), { n: '3', min: '10' }],
    ['tooLongText', () => qkv.createGPT({ text: lines(10, 'x'.repeat(GPT_LIMITS.textCharacters / 5)) }), { max: String(GPT_LIMITS.textCharacters) }],
    ['tooManyChars', () => qkv.createGPT({ text: lines(10, many) }), { n: String(GPT_LIMITS.vocab + 5) }],
    ['fewTokens', () => qkv.createGPT({ text: lines(10, 'ab'), context: 64 }), { part: 'training', context: '64' }],
    // the writer's width 128 with the quatrains' 3,6xx characters: one step is over the work limit
    ['tooMuchWork', () => qkv.createGPT({ text: lines(10, many.slice(0, 3700)), dim: 128 }), { layers: '2', dim: '128', vocab: '3701' }],
    ['longInput', () => gpt.forward('白日依山尽，黄河入海流。'), { name: 'text', max: '7' }],
    ['longInput', () => gpt.generate('白日依山尽，黄河', {}), { name: 'prompt', max: '6' }],
    ['unknownChars', () => gpt.generate('白日🙂xy', {}), { name: 'prompt', n: '3' }],
    ['unknownChars', () => gpt.forward('白z'), { name: 'text' }],
    ['notAFile', () => qkv.loadGPT(new Uint8Array(11)), { n: '11' }],
    ['version', () => qkv.loadGPT(changed((b, v) => v.setUint32(8, 99, true))), { version: '99' }],
    ['badHeader', () => qkv.loadGPT(changed((b, v) => v.setUint32(8 + 8, 0, true))), {}],
    ['size', () => qkv.loadGPT(bytes.subarray(0, bytes.length - 8)), { n: String(bytes.length - 8) }],
    ['checksum', () => qkv.loadGPT(changed((b) => { b[b.length - 10] ^= 1; })), {}],
    ['tooLarge', () => qkv.loadGPT(changed((b, v) => { v.setUint32(8 + 8, 16, true); v.setUint32(8 + 16, 512, true); })), {}],
    ['badWeights', () => qkv.loadGPT(resealed(int8, (b, v) => v.setFloat32(int8Params, -1, true))), {}],
  ];
  const zh = createI18n('zh');
  const en = createI18n('en');
  for (const [kind, make, vars] of cases) {
    const message = messageOf(make);
    const r = refusalOf(message);
    assert.ok(r, `not recognised: ${message}`);
    assert.equal(r.kind, kind, message);
    for (const [k, v] of Object.entries(vars)) assert.equal(r.vars[k], v, `${kind}.${k} in ${message}`);
    const text = refusalText(zh, message);
    assert.doesNotMatch(text.replace(/qkv-lab|GPT|UTF-8|WebAssembly|"[^"]*"/g, ''), /[A-Za-z]{3,}/, `English left in: ${text}`);
    assert.doesNotMatch(text, /\{\w+\}/, `a placeholder left in: ${text}`);
    assert.equal(refusalText(en, message), message, 'the English page shows the engine\'s own message');
  }
  // numbers are grouped as the page groups them elsewhere (3,644)
  assert.match(refusalText(zh, 'generate: the prompt has 2 characters not in the vocabulary (3644 tokens built from the training text): "x", "y"'), /3,644/);
  // a message the table does not know: the engine's words, not nothing
  assert.equal(refusalText(zh, 'createGPT: something new'), 'createGPT: something new');
  gpt.dispose();
});
