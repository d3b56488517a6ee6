// strings/glosses.js: English glosses beside the Chinese words, wherever the English page lists words
// (neighbours, analogies, heat-map rows, scatter labels and hovers, the walkthrough's bars).
// The glosses themselves are data of the corpus (GLOSSES); the Chinese page shows the words alone.
import { GLOSSES } from '../../corpus.js';

/** '猫 (cat)' on the English page, '猫' on the Chinese one (and for words without a gloss). */
export function glossed(word, lang) {
  const gloss = lang === 'en' ? GLOSSES[word] : undefined;
  return gloss ? `${word} (${gloss})` : word;
}

/**
 * The shorter form for tight places (scatter labels, heat-map rows): '猫 cat'; a gloss's
 * parenthesis and its alternatives after a comma are left out ('苹 ap-', '叫 call').
 */
export function glossedShort(word, lang) {
  const gloss = lang === 'en' ? GLOSSES[word] : undefined;
  if (!gloss) return word;
  const short = gloss.replace(/\s*\(.*?\)/gu, '').split(',')[0].trim();
  return `${word} ${short || gloss}`;
}

/** A sentence's words, each glossed on the English page: '我 爱 吃' → '我 (I) 爱 (love) 吃 (eat)'. */
export function glossedSentence(words, lang) {
  return words.map((w) => glossed(w, lang)).join(' ');
}
