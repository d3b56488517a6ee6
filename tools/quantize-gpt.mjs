#!/usr/bin/env node
// quantize-gpt.mjs: turns a GPT file (version 1, float32: what tools/pretrain.c and gpt.save()
// write) into the shipped version-2 file (int8 matrices with a float32 scale per row; the
// format is in docs/gpt-generation.md, "GPT files"): loadGPT checks the input, web/gpt-quantize.js
// writes version 2, loadGPT reads it back. Prints both sizes, the gzipped sizes, the largest weight error and,
// as a check that the file is what it says, that loadGPT reads it back with the same vocabulary.
//
//   node tools/quantize-gpt.mjs IN.qkvgpt OUT.qkvgpt
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { load } from '../web/qkv-lab.js';
import { quantizeGPTFile } from '../web/gpt-quantize.js';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node tools/quantize-gpt.mjs IN.qkvgpt OUT.qkvgpt');
  process.exit(2);
}
const qkv = await load({ gpt: true });
const v1 = new Uint8Array(readFileSync(input));
const gpt = qkv.loadGPT(v1);
const { bytes: v2, maxError } = quantizeGPTFile(v1);
const back = qkv.loadGPT(v2);
if (back.vocab.join('') !== gpt.vocab.join('')) throw new Error('quantize-gpt: the version-2 file reads back with another vocabulary');
writeFileSync(`${output}.tmp`, v2);
renameSync(`${output}.tmp`, output);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const gz = (b) => gzipSync(b, { level: 9 }).length;
console.log(`${input}: version ${new DataView(v1.buffer, v1.byteOffset).getUint32(8, true)}, ${gpt.layers} layers × ${gpt.heads} heads, ` +
  `width ${gpt.dim}, context ${gpt.context}, vocabulary ${gpt.vocab.length}, ${gpt.parameterCount} parameters, step ${gpt.steps}`);
console.log(`float32: ${kib(v1.length)} (${kib(gz(v1))} gzipped)`);
console.log(`int8:    ${kib(v2.length)} (${kib(gz(v2))} gzipped) → ${output}`);
console.log(`largest weight error |w − q × scale|: ${maxError.toExponential(3)}`);
gpt.dispose();
back.dispose();
