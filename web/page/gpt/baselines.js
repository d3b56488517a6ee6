// gpt/baselines.js: what a model that ignores context would score, from the text alone (no
// WebAssembly: counting characters). The same split createGPT makes: every 10th line held out.
//   unigram  the validation text's cross-entropy under the training text's character
//            frequencies (add-one smoothing, so an unseen character costs a finite amount), nats
//   uniform  ln V, a uniform guess over the vocabulary (V with the end-of-text token)
export function baselines(text) {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l !== '');
  const counts = new Map();
  const distinct = new Set();
  let trainChars = 0;
  lines.forEach((line, i) => {
    for (const ch of line) distinct.add(ch);
    if (i % 10 === 9) return;
    for (const ch of [...line, '\n']) { counts.set(ch, (counts.get(ch) ?? 0) + 1); trainChars++; }
  });
  const V = distinct.size + 1;
  let loss = 0, chars = 0;
  lines.forEach((line, i) => {
    if (i % 10 !== 9) return;
    for (const ch of [...line, '\n']) {
      loss -= Math.log(((counts.get(ch) ?? 0) + 1) / (trainChars + V));
      chars++;
    }
  });
  return { unigram: chars ? loss / chars : NaN, uniform: Math.log(V), vocab: V };
}
