// training/contexts.js: which words fill a context's gap in a corpus, counted from the sentences
// themselves, so that the page's sentence "猫, 狗 and 鸟 fit 一只＿在叫" is what the corpus holds.
//
//   gapFillers(DEFAULT_CORPUS, ['一只', GAP, '在', '叫'])  →  ['猫', '狗', '鸟']
import { tokenize } from '../../corpus.js';

/** The gap in a context. */
export const GAP = '＿';

/** The article's three contexts, as the training section's intro names them. */
export const ARTICLE_CONTEXTS = Object.freeze([
  Object.freeze(['一只', GAP, '在', '叫']),
  Object.freeze(['我', '养', '了', '一只', GAP]),
  Object.freeze([GAP, '很', '可爱']),
]);

/** The words w (in corpus order, each once) for which the context with w in its gap is a sentence of the corpus. */
export function gapFillers(sentences, context) {
  const at = context.indexOf(GAP);
  const found = [];
  for (const sentence of sentences) {
    const tokens = tokenize(sentence);
    if (tokens.length !== context.length) continue;
    if (!context.every((c, i) => i === at || c === tokens[i])) continue;
    if (!found.includes(tokens[at])) found.push(tokens[at]);
  }
  return found;
}
