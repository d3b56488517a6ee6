// web/data/quatrains.js, the GPT's default training text as tools/extract-quatrains.mjs wrote it:
// every line a well-formed quatrain, `count` lines, no poem twice; and every figure its header
// and docs/data.md state (poems, characters, distinct characters, sizes) is what the file holds,
// computed here from the text, not copied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { QUATRAINS } from '../web/data/quatrains.js';
import { isWellFormedQuatrain, QUATRAIN_LENGTH } from '../web/data/quatrain-form.js';
import { quatrainFacts } from '../tools/docs-tables.mjs';

const FILE = new URL('../web/data/quatrains.js', import.meta.url);
const bytes = readFileSync(FILE);
const header = bytes.toString('utf8').split('\nexport ')[0];
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

// docs/data.md's table and rule are written by tools/docs-tables.mjs from quatrainFacts()
// (tests/docs.test.js keeps the page as the tool writes it): its figures must be these.
test('the figures docs/data.md states are the file\'s: counts, the header\'s funnel, the sizes', () => {
  const facts = quatrainFacts();
  assert.deepEqual([facts.poems, facts.characters, facts.distinct], [lines.length, chars.length, distinct.size]);
  assert.equal(facts.version, QUATRAINS.version);
  assert.deepEqual([facts.sourcePoems, facts.quatrains, facts.repeats],
    stated(header, /Of ([\d,]+) poems[^]*?([\d,]+) are quatrains, of which ([\d,]+) repeat/, 'the header'));
  assert.deepEqual([facts.notTwoLines], stated(header, /([\d,]+) have not exactly two lines/, 'the header'));
  assert.deepEqual([facts.otherPunctuation], stated(header, /([\d,]+) use ？ ！ or ；/, 'the header'));
  assert.equal(facts.astral, [...distinct].filter(isAstral).length);
  assert.equal(Number(facts.kib), Number((bytes.length / 1024).toFixed(1)), 'raw size, KiB to one decimal');
  assert.equal(Number(facts.gzipKib), Math.round(gzipSync(bytes, { level: 9 }).length / 1024), 'gzip -9, whole KiB');
});
