// gpt-files.test.js: the GPT file formats and loadGPT's guards, through the public API:
//   - version 2 (web/gpt-quantize.js): every dequantized weight is within half its row's
//     scale of the float one (its maxError is the largest such gap), the vectors
//     are exact, and the logits move by what the weight error predicts: to first order, half the
//     error moves them half as far (a v1 file of w + δ/2 made here); its size is the format's;
//   - a corrupt v2 file is refused like a v1 file (truncated, checksum, trailing bytes) and on
//     what only v2 has (a non-finite scale, a −128, non-zero padding), with a valid checksum;
//   - loadGPT refuses an impossible or too large header before hashing (a 100 MiB claim from a
//     few bytes), a Proxy around the bytes with its own words, and never says "(status N)";
//   - createGPT refuses a lone surrogate half naming where, and a context of 1; generate() after
//     an option's getter disposed the GPT says it was disposed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { quantizeGPTFile } from '../web/gpt-quantize.js';

const qkv = await load({ gpt: true });
const TEXT = ['白日依山尽，黄河入海流。', '欲穷千里目，更上一层楼。', '床前明月光，疑是地霜。', '举头望明月，低头思故乡。',
  '春眠不觉晓，处处闻啼鸟。', '夜来风雨声，花落知多少。', '千山鸟飞绝，万径人踪灭。', '孤舟蓑笠翁，独钓寒江雪。',
  '红豆生南国，春来发几枝。', '愿君多采撷，此物最相思。', '松下问童子，言师采药去。', '只在此山中，云深不知处。'].join('\n');
const gpt = qkv.createGPT({ text: TEXT, layers: 2, heads: 2, dim: 16, context: 12, batch: 4, steps: 60, seed: 4, lr: 1e-2 });
gpt.train();
const HEAD = 8 + 4 * 9;

function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}
/** bytes with edit(bytes, view) applied and the checksum made valid again */
function resealed(bytes, edit) {
  const b = bytes.slice();
  const view = new DataView(b.buffer);
  edit(b, view);
  view.setUint32(b.length - 4, fnv1a(b.subarray(0, b.length - 4)), true);
  return b;
}
/** parameters() as the file's tensors: Wq | Wk | Wv side by side are qkvw (C, 3C), whose rows are scaled as one */
function side(...ms) {
  const rows = ms[0].rows, cols = ms.reduce((n, m) => n + m.cols, 0);
  const data = new Float32Array(rows * cols);
  for (let r = 0, at = 0; r < rows; r++) for (const m of ms) { data.set(m.data.subarray(r * m.cols, (r + 1) * m.cols), at); at += m.cols; }
  return { rows, cols, data };
}
const flat = (p) => [p.wte, p.wpe, ...p.blocks.flatMap((b) => [b.ln1.gamma, b.ln1.beta, side(b.attn.Wq, b.attn.Wk, b.attn.Wv),
  b.attn.bq, b.attn.bk, b.attn.bv, b.attn.Wo, b.attn.bo, b.ln2.gamma, b.ln2.beta, b.mlp.W1, b.mlp.b1, b.mlp.W2, b.mlp.b2]), p.lnf.gamma, p.lnf.beta];
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test('version 2: its exact size, weights within half a scale, vectors exact, logits moved as the weight error predicts', () => {
  const v1 = gpt.save();
  const { bytes: v2, maxError } = quantizeGPTFile(v1);
  assert.equal(new DataView(v2.buffer).getUint32(8, true), 2);
  // the exact size: per matrix a float32 scale per row and an int8 per weight (padded to 4), per vector float32
  const C = 16, V = gpt.vocab.length, T = 12, L = 2;
  const matrices = [[V, C], [T, C], ...Array.from({ length: L }, () => [[C, 3 * C], [C, C], [C, 4 * C], [4 * C, C]]).flat()];
  const vectorFloats = L * 13 * C + 2 * C;   // per block ln1 (2C), qkvb (3C), attprojb, ln2 (2C), fcb (4C), fcprojb; lnf (2C)
  const paramsV1 = 4 * gpt.parameterCount;
  const paramsV2 = matrices.reduce((n, [r, c]) => n + 4 * r + Math.ceil(r * c / 4) * 4, 0) + 4 * vectorFloats;
  assert.equal(v1.length - paramsV1, v2.length - paramsV2, 'the same header, vocabulary and checksum');
  const q = qkv.loadGPT(v2);
  const a = flat(gpt.parameters()), b = flat(q.parameters());
  let seen = 0;
  a.forEach((m, k) => {
    const isMatrix = m.rows > 1;   // wte, wpe and the blocks' weight matrices; vectors are 1×k
    for (let r = 0; r < m.rows; r++) {
      const row = m.data.subarray(r * m.cols, (r + 1) * m.cols), got = b[k].data.subarray(r * m.cols, (r + 1) * m.cols);
      if (!isMatrix) { assert.deepEqual(got, row, 'vectors are stored as float32'); continue; }
      const scale = Math.fround(row.reduce((x, w) => Math.max(x, Math.abs(w)), 0) / 127);
      for (let c = 0; c < m.cols; c++) {
        const e = Math.abs(row[c] - got[c]);
        seen = Math.max(seen, e);
        assert.ok(e <= scale / 2 * (1 + 2 ** -20), `tensor ${k} row ${r}: error ${e} > scale ${scale} / 2`);
      }
    }
  });
  assert.equal(seen, maxError);
  // the logits: f(w + δ) − f(w) against 2 (f(w + δ/2) − f(w)), with w + δ/2 written as a v1 file
  const half = resealed(v1, (bytes) => {
    const floats = new Float32Array(bytes.buffer, bytes.length - 4 - 4 * gpt.parameterCount, gpt.parameterCount);
    const deq = new Float32Array(q.save().buffer.slice(bytes.length - 4 - 4 * gpt.parameterCount, bytes.length - 4));
    for (let i = 0; i < floats.length; i++) floats[i] = (floats[i] + deq[i]) / 2;
  });
  const h = qkv.loadGPT(half);
  const text = '床前明月光，疑是地';
  const f0 = gpt.forward(text).logits.data, f1 = q.forward(text).logits.data, fh = h.forward(text).logits.data;
  const full = maxDiff(f1, f0);
  const linear = maxDiff(f1.map((x, i) => x - f0[i]), fh.map((x, i) => 2 * (x - f0[i])));
  assert.ok(full > 0 && full < 0.1, `the int8 model's logits moved by ${full}`);
  assert.ok(linear < 0.05 * full, `second-order part ${linear} of a change of ${full}: the change is the weight error's (first order)`);
  console.log(`v1 ${v1.length} B, v2 ${v2.length} B; max weight error ${maxError.toExponential(2)}, logits moved ${full.toExponential(2)}, ` +
    `nonlinear part ${linear.toExponential(2)}`);
  for (const g of [q, h]) g.dispose();
});

test('a corrupt version-2 file is refused, before and after the checksum', () => {
  const v2 = quantizeGPTFile(gpt.save()).bytes;
  const vocabBytes = new DataView(v2.buffer).getUint32(8 + 32, true);
  const paramsAt = HEAD + Math.ceil(vocabBytes / 4) * 4;
  const C = 16, V = gpt.vocab.length;
  const cases = [
    [v2.subarray(0, v2.length - 1), /the file has \d+ bytes; its header describes \d+ \(truncated\)/],
    [Uint8Array.from([...v2, 0, 0, 0, 0]), /\(trailing bytes\)/],
    [(() => { const b = v2.slice(); b[paramsAt + 4 * V + 3] ^= 4; return b; })(), /the checksum does not match/],
    [resealed(v2, (b, v) => v.setFloat32(paramsAt + 4 * 2, NaN, true)), /the scale of row 2 of wte is NaN/],
    [resealed(v2, (b, v) => v.setFloat32(paramsAt, -1, true)), /the scale of row 0 of wte is -1/],
    [resealed(v2, (b) => { b[paramsAt + 4 * V + 5] = 0x80; }), /wte\[0\]\[5\] is −128/],
    [resealed(v2, (b, v) => v.setUint32(8 + 4 * 4, 17, true)), /header describes an impossible GPT/],
  ];
  // wte holds V·C int8 values; V·C is a multiple of 4 here, so padding is tested on a tensor that has some
  assert.equal((V * C) % 4, 0);
  for (const [bytes, pattern] of cases) {
    assert.throws(() => qkv.loadGPT(bytes), (e) => e instanceof RangeError && e.message.startsWith('loadGPT: ') && pattern.test(e.message), String(pattern));
  }
});

test('loadGPT judges the header before hashing or allocating; no raw status; a Proxy is named', () => {
  const v1 = gpt.save();
  // 16 layers of width 384 in the header of a 60-byte file: refused for its size, not its length
  const huge = v1.slice(0, HEAD + 16);
  const view = new DataView(huge.buffer);
  view.setUint32(8 + 8, 16, true);    // layers
  view.setUint32(8 + 16, 384, true);  // dim
  view.setUint32(8 + 20, 256, true);  // context
  view.setUint32(8 + 4, 8192, true);  // V
  assert.throws(() => qkv.loadGPT(huge), /^RangeError: loadGPT: the header describes a GPT larger than createGPT makes: one training step .* more than the limit/);
  for (const dim of [448, 512]) {
    view.setUint32(8 + 16, dim, true);
    assert.throws(() => qkv.loadGPT(huge), (e) => /larger than createGPT makes/.test(e.message) && !/status/.test(e.message));
  }
  const proxy = new Proxy(v1, {});
  assert.throws(() => qkv.loadGPT(proxy), (e) => e instanceof TypeError && /loadGPT: bytes must be a Uint8Array itself .* not a Proxy/.test(e.message));
});

test('createGPT refuses a lone surrogate (naming where) and a context of 1; a getter that disposes is reported as such', () => {
  const text = TEXT.split('\n').map((line, i) => (i === 3 ? `举头望${'\uD83D'}明月` : line)).join('\n');
  assert.throws(() => qkv.createGPT({ text }), (e) => e instanceof RangeError &&
    /createGPT: line 4 of the text has a lone surrogate \(U\+D83D\) at character 4/.test(e.message));
  assert.throws(() => qkv.createGPT({ text: TEXT, context: 1 }), (e) => e instanceof RangeError &&
    /createGPT: context must be an integer from 2 to \d+ \(the end-of-text token and at least one character\), got 1/.test(e.message));
  // a whole astral character is fine
  const astral = qkv.createGPT({ text: TEXT.replace('白日', '𬬻日'), layers: 1, heads: 1, dim: 4, context: 4, batch: 1 });
  assert.ok(astral.vocab.includes('𬬻'));
  assert.equal(qkv.loadGPT(astral.save()).vocab.length, astral.vocab.length);
  const victim = qkv.createGPT({ text: TEXT, layers: 1, heads: 1, dim: 4, context: 4, batch: 1 });
  assert.throws(() => victim.generate('', { get seed() { victim.dispose(); return 1; } }), /^Error: generate: this GPT was disposed/);
  astral.dispose();
});
