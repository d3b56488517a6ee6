// finetune/refusals.js: the fine-tuning engine's refusals (web/finetune.js) in the page's language,
// as gpt/refusals.js does for createGPT's: the English page shows the engine's own words, the
// Chinese page says the same with its numbers; a refusal this table does not know stays in the
// engine's words. The reader's own text is first held to the corpus editor's length
// (CORPUS_LIMITS.maxChars, web/corpus.js), said before anything is sent.
import { refusalText } from '../gpt/refusals.js';
import { CORPUS_LIMITS } from '../../corpus.js';

const PATTERNS = [
  ['fewLines', /^finetune: the text has (?<n>\d+) non-empty lines; it needs at least (?<min>\d+)/],
  ['outside', /^finetune: the text has (?:a character|(?<n>\d+) characters) outside the base's vocabulary \((?<vocab>\d+) tokens\); a fine-tune cannot add characters: (?<chars>.*)$/],
  ['short', /^finetune: the text is too short: its (?<part>training|validation \(every 10th line\)) part gives (?<n>\d+) tokens, fewer than one window of the base's context (?<context>\d+)/],
];

/** The text's own limit: null when it may be sent, else { key, vars } for the section to say. */
export function ownTextProblem(text) {
  const chars = [...text].length;
  if (chars > CORPUS_LIMITS.maxChars) return { key: 'finetune.own.tooLong', vars: { n: chars.toLocaleString('en-US'), max: CORPUS_LIMITS.maxChars.toLocaleString('en-US') } };
  if (!text.trim()) return { key: 'finetune.own.empty', vars: {} };
  return null;
}

/** The refusal in the reader's language. */
export function fineTuneRefusal(i18n, message) {
  if (i18n.lang === 'en') return String(message);
  for (const [kind, re] of PATTERNS) {
    const m = re.exec(String(message));
    if (!m) continue;
    const vars = Object.fromEntries(Object.entries(m.groups || {}).filter(([, v]) => v !== undefined));
    vars.n ||= '1';
    if (vars.part) vars.part = i18n.t(vars.part === 'training' ? 'gpt.refusal.part.training' : 'gpt.refusal.part.validation');
    return i18n.t(`finetune.refusal.${kind}`, vars);
  }
  return refusalText(i18n, message);
}
