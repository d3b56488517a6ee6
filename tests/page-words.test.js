// page-words.test.js: the pure modules that put words on the training sections: glosses looked up
// by the reader's text (Object.prototype keys are words too), glosses without nested parentheses,
// and the intro's gaps filled from the corpus itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glossed, glossedShort, flatGloss } from '../web/page/sections/training/glosses.js';
import { gapFillers, ARTICLE_CONTEXTS, GAP } from '../web/page/training/contexts.js';
import { DEFAULT_CORPUS, GLOSSES } from '../web/corpus.js';

test('a word that is an Object.prototype key has no gloss and stays the word', () => {
  for (const w of ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty']) {
    assert.equal(glossed(w, 'en'), w);
    assert.equal(glossedShort(w, 'en'), w);
  }
});

test('glosses never nest parentheses', () => {
  assert.equal(flatGloss('a (one, for books)'), 'a; one, for books');
  assert.equal(flatGloss('-ple (苹果 = apple)'), '-ple; 苹果 = apple');
  assert.equal(flatGloss('(done)'), 'done');
  assert.equal(glossed('果', 'en'), '果 (-ple; 苹果 = apple)');
  assert.equal(glossed('果', 'zh'), '果');
});

test('every English gloss reads cleanly once flattened: no punctuation left before its parenthesis', () => {
  for (const [word, gloss] of Object.entries(GLOSSES)) assert.doesNotMatch(flatGloss(gloss), /[,;:]\s*;/u, `${word}: '${gloss}'`);
});

test('the intro\'s gaps are filled with what the default corpus puts there', () => {
  assert.deepEqual(gapFillers(DEFAULT_CORPUS, ARTICLE_CONTEXTS[0]), ['猫', '狗', '鸟']);
  assert.deepEqual(gapFillers(DEFAULT_CORPUS, ARTICLE_CONTEXTS[1]), ['猫', '狗', '兔']);
  assert.deepEqual(gapFillers(['一只 猫 在 叫', '一只 猫 在 叫', '两只 狗 在 叫'], ['一只', GAP, '在', '叫']), ['猫']);
});
