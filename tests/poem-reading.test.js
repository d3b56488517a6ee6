// poem-reading.test.js: the generation section's reading of a poem (web/page/gpt/poem-reading.js)
// against a training text, two ways that must agree: indexed (metrics.js's trainingIndex, for the
// quatrains the page carries) and searched as it is (for the poet's 34,485 training poems, which
// the page fetches: too large to index on its thread). And the shipped training text itself
// (web/pretrained/tang-poet-train.bin, decoded by the page's own code) against what the
// pretraining report names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { readPoem, indexTraining, searchTraining } from '../web/page/gpt/poem-reading.js';
import { novelty, trainingIndex } from '../web/poetry/metrics.js';
import { decodePoetText } from '../web/page/gpt/poet-text.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { mulberry32 } from '../tools/random.mjs';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

test('a poem reads the same against the indexed and the searched training text: copied lines and their sources, whole poems, the longest stretch, metrics.js\'s novelty', () => {
  const text = QUATRAINS.poems;
  const indexed = indexTraining(text), searched = searchTraining(text);
  const poems = text.split('\n').filter(Boolean);
  assert.equal(searched.count, indexed.count);
  assert.equal(searched.count, poems.length);
  const random = mulberry32(7);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const cases = [
    '', '，', '白日依山尽', '白日依山尽，黄河入海流。', '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。',
    'abc，白日依山尽。', '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。x', '𠀀白日，依山尽𠀀。',
    ...poems.slice(0, 40),                                                   // whole training poems
    ...POEMS_VAL.wujue.split('\n').filter(Boolean).slice(0, 40),             // held out: few copied lines
    ...POEMS_VAL.qijue.split('\n').filter(Boolean).slice(0, 20),             // seven-character lines
  ];
  // lines of different training poems put together, and single characters changed
  for (let k = 0; k < 80; k++) {
    const lines = Array.from({ length: 4 }, () => pick(pick(poems).split(/[，。]/u).filter(Boolean)));
    let poem = `${lines[0]}，${lines[1]}。${lines[2]}，${lines[3]}。`;
    if (k % 2) { const chars = Array.from(poem); chars[Math.floor(random() * chars.length)] = pick(Array.from(pick(poems))); poem = chars.join(''); }
    cases.push(poem);
  }
  const index = trainingIndex(text);
  let copiedLines = 0, wholePoems = 0;
  for (const poem of cases) {
    const a = readPoem(poem, indexed, 5), b = readPoem(poem, searched, 5);
    assert.deepEqual(b, a, poem);
    // the reading's novelty is metrics.js's
    assert.deepEqual(a.novelty, novelty([poem], index), poem);
    copiedLines += a.novelty.copiedLines;
    wholePoems += a.novelty.copiedPoems;
  }
  // the cases are not all of one kind: copies, whole poems and new lines all occur
  assert.ok(copiedLines > 100 && wholePoems >= 40, `${copiedLines} copied lines, ${wholePoems} whole poems`);
  assert.ok(cases.some((poem) => readPoem(poem, indexed).novelty.copiedLines === 0));
});

test('the poet\'s training text the page fetches is the one the pretraining report names, and a seven-character line of it is found with its poem', async () => {
  const file = path.join(ROOT, 'web', 'pretrained', 'tang-poet-train.bin');
  // the tool's own check (header, checksum, counts against web/data/poems-val.js)
  execFileSync(process.execPath, [path.join(ROOT, 'tools', 'poet-text.mjs'), '--check'], { stdio: 'pipe' });
  // the page's decoder (web/page/gpt/poet-text.js) on the same bytes
  const text = await decodePoetText(fs.readFileSync(file));
  const poems = text.split('\n').filter(Boolean);
  assert.equal(poems.length, POEMS_VAL.train.poems);
  assert.equal(Array.from(text.replaceAll('\n', '')).length, POEMS_VAL.train.characters);
  const searched = searchTraining(text);
  assert.equal(searched.count, POEMS_VAL.train.poems);
  const qijue = poems.find((p) => Array.from(p).length === 32);
  const line = qijue.split('，')[0];
  assert.equal(Array.from(line).length, 7);
  const reading = readPoem(`${line}，`, searched, 0);
  assert.equal(reading.lines[0].text, line);
  assert.ok(reading.lines[0].source.includes(line) && poems.includes(reading.lines[0].source), reading.lines[0].source);
  assert.equal(reading.novelty.copiedLines, 1);
  // a held-out poem shares no line with the training poems (tools/extract-poems.mjs dropped those)
  const held = POEMS_VAL.qilv.split('\n').find(Boolean);
  assert.equal(readPoem(held, searched).novelty.copiedLines, 0, held);
  // a file that is not one is refused
  await assert.rejects(decodePoetText(Buffer.from('QKVGPT\r\n........')), /not a QKVTEXT1 file/);
  const bytes = new Uint8Array(fs.readFileSync(file));
  bytes[12] ^= 1;   // the checksum in the header
  await assert.rejects(decodePoetText(bytes), /does not match its header/);
});
