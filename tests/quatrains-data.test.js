// web/data/quatrains.js, the GPT's default training text as tools/extract-quatrains.mjs wrote it:
// every line a well-formed quatrain, `count` lines, no poem twice; and every figure its header
// and the README state (poems, characters, distinct characters, sizes) is what the file holds,
// computed here from the text, not copied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { QUATRAINS } from '../web/data/quatrains.js';
import { isWellFormedQuatrain, QUATRAIN_LENGTH } from '../web/data/quatrain-form.js';

const FILE = new URL('../web/data/quatrains.js', import.meta.url);
const bytes = readFileSync(FILE);
const header = bytes.toString('utf8').split('\nexport ')[0];
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const lines = QUATRAINS.poems.split('\n');
const chars = lines.flatMap((line) => [...line]);
const distinct = new Set(chars);
const isHan = (c) => /\p{Script=Han}/u.test(c);
const isAstral = (c) => c.codePointAt(0) > 0xffff;

/** The number after `label` in `text` (digits with thousands commas), or fail naming the label. */
function stated(text, pattern, where) {
  const m = pattern.exec(text);
  assert.ok(m, `${where} states no figure matching ${pattern}`);
  return m.slice(1).map((s) => Number(s.replaceAll(',', '')));
}

test('every line is a well-formed quatrain, there are `count` of them, none twice, nothing around them', () => {
  assert.equal(lines.length, QUATRAINS.count);
  const bad = lines.filter((line) => !isWellFormedQuatrain(line));
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} lines are not of the form`);
  assert.equal(new Set(lines).size, lines.length, 'a poem appears twice');
  assert.equal(chars.length, QUATRAIN_LENGTH * lines.length);
  assert.ok(!QUATRAINS.poems.includes('\r'), 'no carriage returns');
  assert.ok(Object.isFrozen(QUATRAINS));
});

test('the source, version, converter and licence are stated in the object and the header', () => {
  assert.match(QUATRAINS.source, /^chinese-poetry\b.*poet\.tang\.\*\.json/);
  assert.match(QUATRAINS.version, /^\d+\.\d+\.\d+$/);
  assert.match(QUATRAINS.converter, /^opencc-js \d+\.\d+\.\d+/);
  assert.match(QUATRAINS.license, /MIT/);
  assert.match(QUATRAINS.license, /public domain/);
  assert.ok(header.includes(`chinese-poetry ${QUATRAINS.version} (MIT`), 'the header names the package version the object does');
  assert.ok(header.includes('node tools/extract-quatrains.mjs'), 'the header says how to regenerate it');
});

test('the header\'s figures are what the text holds', () => {
  assert.deepEqual(stated(header, /poems: ([\d,]+)/, 'the header'), [lines.length]);
  assert.deepEqual(stated(header, /characters: ([\d,]+) \(([\d,]+) Han/, 'the header'),
    [chars.length, chars.filter(isHan).length]);
  assert.deepEqual(stated(header, /distinct characters: ([\d,]+) \(([\d,]+) Han/, 'the header'),
    [distinct.size, [...distinct].filter(isHan).length]);
  // the only characters that are not Han are the two marks
  assert.deepEqual([...distinct].filter((c) => !isHan(c)).sort(), ['。', '，']);
  assert.deepEqual(stated(header, /beyond the BMP: ([\d,]+) distinct characters, ([\d,]+) occurrences/, 'the header'),
    [[...distinct].filter(isAstral).length, chars.filter(isAstral).length]);
  assert.deepEqual(stated(header, /([\d,]+) bytes of UTF-8/, 'the header'), [Buffer.byteLength(QUATRAINS.poems)]);
  // the extraction's funnel adds up: quatrains − repeats = the poems kept
  const [quatrains, repeats] = stated(header, /([\d,]+) are quatrains, of which ([\d,]+) repeat/, 'the header');
  assert.equal(quatrains - repeats, lines.length);
});

test('the README\'s Data table states the same figures and the file\'s sizes', () => {
  const row = readme.split('\n').find((line) => line.startsWith('| `web/data/quatrains.js`'));
  assert.ok(row, 'the README has no row for web/data/quatrains.js');
  assert.deepEqual(stated(row, /([\d,]+) five-character quatrains/, 'the README row'), [lines.length]);
  assert.deepEqual(stated(row, /([\d,]+) characters, ([\d,]+) distinct/, 'the README row'), [chars.length, distinct.size]);
  assert.ok(row.includes(`chinese-poetry\` ${QUATRAINS.version}`), 'the README row names the package version');
  // the paragraph under the table repeats the header's funnel and the astral count
  const paragraph = readme.slice(readme.indexOf(row));
  const [poems, quatrains, repeats] = stated(paragraph, /\(([\d,]+) poems; ([\d,]+) of exactly this form; ([\d,]+)\s+repeats left out\)/, 'the README');
  assert.deepEqual([poems, quatrains, repeats],
    stated(header, /Of ([\d,]+) poems[^]*?([\d,]+) are quatrains, of which ([\d,]+) repeat/, 'the header'));
  assert.deepEqual(stated(paragraph, /([\d,]+) distinct\s+characters lie beyond the BMP/, 'the README'),
    [[...distinct].filter(isAstral).length]);
  const [raw, gz] = stated(row, /([\d.]+) KiB, ([\d.]+) KiB gzip -9/, 'the README row');
  assert.equal(raw, Number((bytes.length / 1024).toFixed(1)), 'raw size, KiB to one decimal');
  // gzip output differs by a few bytes between zlib builds (gzip(1) and Node's gave 144,548 and
  // 144,573 bytes for the same file): the README's figure must be within 0.5 % of Node's
  const measured = gzipSync(bytes, { level: 9 }).length / 1024;
  assert.ok(Math.abs(gz - measured) <= 0.005 * measured, `gzip: the README says ${gz} KiB, measured ${measured.toFixed(1)} KiB`);
});
