// page-strings.test.js: the page's texts as a reader meets them, checked in Node: sections are
// named by their titles (a number means nothing in a widget, and goes stale when a section is
// inserted), and single sentences that once read wrong stay right in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createI18n, addStrings, translateParts } from '../web/page/shell/i18n.js';
import '../web/page/sections/index.js';   // registers the sections' titles
import { TRAINSTEP_STRINGS } from '../web/page/sections/trainstep.strings.js';
import { BLOCK_STRINGS } from '../web/page/sections/block.strings.js';
import { GENERATE_STRINGS } from '../web/page/sections/generate.strings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = path.join(ROOT, 'web/page');

test('no text names a section by its number: it names it as [[id]], and that id exists', async () => {
  const { WIDGET_SECTION_IDS } = await import('../web/page/sections/index.js');
  // every table of the page's text (x.strings.js, beside the module that shows it)
  const tables = fs.readdirSync(PAGE, { recursive: true }).filter((f) => f.endsWith('.strings.js'));
  assert.ok(tables.length >= 40, `${tables.length} tables found`);
  for (const file of tables) {
    const text = fs.readFileSync(path.join(PAGE, file), 'utf8');
    assert.doesNotMatch(text, /\b[Ss]ection \d|第 ?\d+ ?节/, `${file} names a section by number`);
    for (const [, id] of text.matchAll(/\[\[([a-z]+)\]\]/g)) assert.ok(WIDGET_SECTION_IDS.includes(id), `${file}: [[${id}]] is no section`);
  }
});

test('a section named as [[id]] reads as its title in quotes, and as a link where the text is bound', () => {
  addStrings(TRAINSTEP_STRINGS);
  assert.match(createI18n('en').t('ts.intro1'), /^The section “Where X comes from: the embedding table” showed/);
  assert.match(createI18n('zh').t('ts.intro1'), /^“X 从哪里来：embedding 表”一节说过/);
  const parts = translateParts('en', 'ts.intro1');
  assert.deepEqual(parts[1], { ref: 'embedding', title: 'Where X comes from: the embedding table' });
});

test('the block\'s attention step says what a is before it writes Q = a·W_Q', () => {
  for (const lang of ['en', 'zh']) {
    const text = BLOCK_STRINGS[lang]['block.step.attention'];
    const defined = text.search(lang === 'en' ? /called a\b/ : /记作 a/);
    assert.ok(defined >= 0 && defined < text.indexOf('a·W_Q'), `${lang}: ${text}`);
  }
});

test('top-p leaving one character says "1 character is left", not "1 characters"', () => {
  addStrings(GENERATE_STRINGS);
  const vars = { keep: '1', vocab: '3,644', k: 'all', p: 0.1 };
  assert.match(createI18n('en').t('gen.cutNote.one', vars), /1 character is left/);
  assert.ok(GENERATE_STRINGS.zh['gen.cutNote.one']);
});
