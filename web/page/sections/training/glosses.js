// glosses.js: English glosses beside the Chinese words, wherever the English page lists words
// (neighbours, analogies, heat-map rows, scatter labels and hovers, the walkthrough's bars).
// The glosses themselves are data of the corpus (GLOSSES); the Chinese page shows the words alone.
// Words are the reader's text (a corpus may hold 'constructor' or '__proto__'), so they are looked
// up in a Map built from the corpus's own entries, never on a plain object.
import { GLOSSES } from '../../../corpus.js';

const GLOSS = new Map(Object.entries(GLOSSES));

/** The gloss of a word on the English page, or undefined (Chinese page, or a word without one). */
function glossOf(word, lang) {
  return lang === 'en' ? GLOSS.get(word) : undefined;
}

/**
 * A gloss as it reads inside the parentheses after its word, without a second pair of
 * parentheses: 'a (one, for books)' → 'a; one, for books', '-ple (苹果 = apple)' →
 * '-ple; 苹果 = apple', '(done)' → 'done'.
 */
export function flatGloss(gloss) {
  return gloss.replace(/^\((.*)\)$/u, '$1').replace(/\s*\(([^()]*)\)/gu, '; $1').replace(/^;\s*/u, '');
}

/** '猫 (cat)' on the English page, '猫' on the Chinese one (and for words without a gloss). */
export function glossed(word, lang) {
  const gloss = glossOf(word, lang);
  return gloss ? `${word} (${flatGloss(gloss)})` : word;
}

/**
 * The shorter form for tight places (scatter labels, heat-map rows): '猫 cat'; a gloss's
 * parenthesis and its alternatives after a comma are left out ('苹 ap-', '叫 call').
 */
export function glossedShort(word, lang) {
  const gloss = glossOf(word, lang);
  if (!gloss) return word;
  const short = gloss.replace(/\s*\(.*?\)/gu, '').split(',')[0].trim();
  return `${word} ${short || flatGloss(gloss)}`;
}

/** A sentence's words, each glossed on the English page: '我 爱 吃' → '我 (I) 爱 (love) 吃 (eat)'. */
export function glossedSentence(words, lang) {
  return words.map((w) => glossed(w, lang)).join(' ');
}
