// pretrained.test.js: the shipped pretrained poet (web/pretrained/tang-poet.qkvgpt) against its
// report (web/data/pretrained-report.json, written by tools/pretrained-report.mjs from the same
// file). Nothing is retrained: the test loads the file, scores a sample of the validation poems the
// report scored, and writes the report's first samples again from their seeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { load } from '../web/qkv-lab.js';
import { fnv1a } from '../tools/extract-poems.mjs';
import { FORM_NAMES, summarize } from '../web/poetry/metrics.js';

const report = JSON.parse(readFileSync(new URL('../web/data/pretrained-report.json', import.meta.url), 'utf8'));
const bytes = new Uint8Array(readFileSync(new URL('../web/pretrained/tang-poet.qkvgpt', import.meta.url)));
const qkv = await load({ gpt: true });
const gpt = qkv.loadGPT(bytes);

/** Σ −ln p of the poem's characters and the end-of-text token after '\n' (the report's convention) */
function poemNats(poem) {
  const { tokens, logits } = gpt.forward(poem);
  const n = tokens.length, V = logits.cols, z = logits.data;
  let nats = 0;
  for (let t = 0; t < n; t++) {
    const target = t + 1 < n ? tokens[t + 1] : 0;
    let max = -Infinity, sum = 0;
    for (let j = 0; j < V; j++) max = Math.max(max, z[t * V + j]);
    for (let j = 0; j < V; j++) sum += Math.exp(z[t * V + j] - max);
    nats += max + Math.log(sum) - z[t * V + target];
  }
  return nats;
}

test('the shipped file is the one the report describes, and at most 2 MiB gzipped', () => {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  assert.equal(h, report.model.checksum);
  assert.equal(bytes.length, report.model.bytes);
  assert.ok(gzipSync(bytes, { level: 9 }).length <= 2 * 1024 * 1024);
  for (const key of ['layers', 'heads', 'dim', 'context', 'steps']) assert.equal(gpt[key], report.model[key], key);
  assert.equal(gpt.vocab.length, report.model.vocab);
});

test('validation poems score what the report says (the first of each form, within 1e-3 nats)', () => {
  // the same engine and file give the same float operations; 1e-3 leaves room for the
  // relaxed-SIMD build's fused multiply-adds, which round differently (docs/reliability.md)
  for (const form of FORM_NAMES) {
    for (const { poem, nats } of report.validation.shipped[form].first.slice(0, 3)) {
      const got = poemNats(poem);
      assert.ok(Math.abs(got - nats) <= 1e-3, `${form} 「${poem}」: ${got} nats, the report says ${nats}`);
    }
  }
});

test('the first samples come back from their seeds, and read as the report says', () => {
  const { count, checksum, wellFormed, lines24 } = report.sampling.firstSamples;
  const poems = [];
  for (let seed = 0; seed < count; seed++) poems.push(gpt.generate('', { temperature: report.sampling.temperature, seed }).text);
  for (const { seed, poem } of report.sampling.examples) assert.equal(poems[seed], poem, `seed ${seed}`);
  assert.equal(fnv1a(poems.join('\n')), checksum);
  const s = summarize(poems);
  assert.equal(s.wellFormed, wellFormed);
  assert.equal(s.rhyme.all.lines24, lines24);
});
