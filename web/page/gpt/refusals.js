// gpt/refusals.js: the GPT engine's refusals (web/gpt.js) in the page's language. The engine
// speaks English and names the operation, so the English page shows its message as it is; the
// Chinese page says the same through its own strings (refusals.strings.js), as the training
// section does for checkCorpus's problems (sections/training/corpus-panel.js problemText): a
// refusal this table does not know is shown in the engine's own words. No DOM.
//
//   refusalText(i18n, message) → the text to show after "cannot be used:"
//
// Each pattern is one of web/gpt.js's messages, its numbers captured; tests/gpt-refusals.test.js
// makes each refusal with the engine and checks that it is recognised, so a reworded message
// fails there rather than falling back unnoticed.
import { addStrings } from '../shell/i18n.js';
import { GPT_REFUSAL_STRINGS } from './refusals.strings.js';

addStrings(GPT_REFUSAL_STRINGS);

const PATTERNS = [
  ['fewLines', /^createGPT: the text has (?<n>\d+) non-empty lines; it needs at least (?<min>\d+)/],
  ['tooLongText', /^createGPT: the text is longer than (?<max>\d+) characters/],
  ['tooManyChars', /^createGPT: the text has (?<n>\d+) distinct characters; a GPT takes at most (?<max>\d+)/],
  ['fewTokens', /^createGPT: the (?<part>training|validation \(every 10th line\)) text gives (?<n>\d+) tokens, too few for one window of context (?<context>\d+)/],
  ['noMemory', /^(?:createGPT|loadGPT): (?:out of WebAssembly memory|a GPT of .* needs more memory than the engine allows)/],
  ['tooMuchWork', /^createGPT: one training step \(batch (?<batch>\d+) × context (?<context>\d+), (?<layers>\d+) layers of width (?<dim>\d+), vocabulary (?<vocab>\d+)\) would take (?<work>[\d.]+e\+\d+) multiply-adds/],
  ['longInput', /^(?<op>\w+): the (?<name>\w+) has (?<n>\d+) characters; at most (?<max>\d+) fit the context of (?<context>\d+) tokens/],
  ['unknownChars', /^(?<op>\w+): the (?<name>\w+) has (?:a character|(?<n>\d+) characters) not in the vocabulary \((?<vocab>\d+) tokens built from the training text\): (?<chars>.*)$/],
  ['notAFile', /^loadGPT: these (?<n>\d+) bytes are not a qkv-lab GPT file/],
  ['version', /^loadGPT: file format version (?<version>\d+); this qkv-lab reads versions? (?<reads>[\d–]+)/],
  ['badHeader', /^loadGPT: the header(?: describes an impossible GPT|'s vocabulary of)/],
  ['tooLarge', /^loadGPT: the header describes a GPT larger than createGPT makes/],
  ['badWeights', /^loadGPT: (?:the scale of row|the padding after|\S+\[\d+\]\[\d+\] is −128)/],
  ['size', /^loadGPT: the file has (?<n>\d+) bytes; its header describes (?<expected>\d+)/],
  ['checksum', /^loadGPT: the checksum does not match/],
  ['utf8', /^loadGPT: the vocabulary is not valid UTF-8/],
];

const grouped = (v) => (/^\d+$/.test(v) ? Number(v).toLocaleString('en-US') : v);

/** The kind of a GPT engine message and its numbers, or null when the page has no words for it. */
export function refusalOf(message) {
  for (const [kind, re] of PATTERNS) {
    const m = re.exec(String(message));
    if (m) return { kind, vars: Object.fromEntries(Object.entries(m.groups || {}).filter(([, v]) => v !== undefined)) };
  }
  return null;
}

/** The refusal in the reader's language (the engine's words when it is not one the page knows). */
export function refusalText(i18n, message) {
  if (i18n.lang === 'en') return String(message);
  const r = refusalOf(message);
  if (!r) return String(message);
  const vars = Object.fromEntries(Object.entries(r.vars).map(([k, v]) => [k, k === 'chars' ? v : grouped(v)]));
  if (r.kind === 'unknownChars') vars.n ||= '1';
  if (vars.name) vars.name = i18n.t(`gpt.refusal.name.${r.vars.name}`) === `gpt.refusal.name.${r.vars.name}` ? r.vars.name : i18n.t(`gpt.refusal.name.${r.vars.name}`);
  if (vars.part) vars.part = i18n.t(r.vars.part === 'training' ? 'gpt.refusal.part.training' : 'gpt.refusal.part.validation');
  return i18n.t(r.kind === 'unknownChars' && vars.n === '1' ? 'gpt.refusal.unknownChar' : `gpt.refusal.${r.kind}`, vars);
}
