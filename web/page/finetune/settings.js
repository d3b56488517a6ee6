// finetune/settings.js: the URL properties of the fine-tuning section (state.js includes them
// through the registry). No DOM, no WebAssembly, no engine import: the registry that reads this
// file is in the script every post loads. The defaults are the engine's (FINETUNE_DEFAULTS in
// web/finetune.js; tests/finetune-page.test.js checks that they agree):
//   ftset     'huanxisha' (浣溪沙, a form the Tang poet never saw) | 'poet' (李白's 绝句, a style)
//   ftmethod  'lora' | 'full'
//   ftrank    LoRA's r: 1, 4 or 16
//   fttargets the adapted matrices, comma-separated: Wq, Wk, Wv, Wo, W1, W2
//   ftsteps   the schedule's length
//   ftseed    draws A and the windows
//   ftprompt  the beginning that the base and the fine-tuned model both continue (Compare)
// The reader's own text is not in the URL (a link carries settings and the seed, not text or weights).

export const FINETUNE_PRESETS = Object.freeze(['huanxisha', 'poet']);
export const FINETUNE_TARGETS = Object.freeze(['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'W2']);
export const FINETUNE_CHOICES = Object.freeze({
  ftrank: Object.freeze([1, 4, 16]),
  ftsteps: Object.freeze([25, 50, 100, 200, 400]),
});
const DEFAULT_TARGETS = 'Wq,Wv';
const MAX_PROMPT = 20;

/** 'Wv,Wq' → 'Wq,Wv' (the engine's order), or null when it names no target or an unknown one. */
export function parseTargets(raw) {
  const names = String(raw).split(',').map((t) => t.trim()).filter(Boolean);
  if (!names.length || names.some((t) => !FINETUNE_TARGETS.includes(t)) || new Set(names).size !== names.length) return null;
  return FINETUNE_TARGETS.filter((t) => names.includes(t)).join(',');
}

export const FINETUNE_PROPERTIES = Object.freeze([
  { name: 'ftset', type: 'enum', values: FINETUNE_PRESETS, default: 'huanxisha' },
  { name: 'ftmethod', type: 'enum', values: ['lora', 'full'], default: 'lora' },
  { name: 'ftrank', type: 'int', min: 1, max: 16, values: FINETUNE_CHOICES.ftrank, default: 4 },
  { name: 'fttargets', type: 'text', maxLength: 20, default: DEFAULT_TARGETS, validate: parseTargets },
  { name: 'ftsteps', type: 'int', min: 25, max: 400, values: FINETUNE_CHOICES.ftsteps, default: 400 },
  { name: 'ftseed', type: 'int', min: 0, max: 4294967295, default: 0 },
  { name: 'ftprompt', type: 'text', maxLength: MAX_PROMPT, default: '', validate: (raw) => (/[\n\r]/.test(raw) ? null : raw) },
]);

/** The keys that define a fine-tuning run: a change offers a new run. */
export const FT_RUN_KEYS = Object.freeze(['ftset', 'ftmethod', 'ftrank', 'fttargets', 'ftsteps', 'ftseed']);
/** What the section's embed code carries. */
export const FT_KEYS = Object.freeze([...FT_RUN_KEYS, 'ftprompt']);

/** gpt.finetune's options (without the text) from the state. */
export function finetuneOptions(state) {
  const method = state.get('ftmethod');
  const options = { method, steps: state.get('ftsteps'), seed: state.get('ftseed') };
  if (method === 'lora') Object.assign(options, { rank: state.get('ftrank'), targets: state.get('fttargets').split(',') });
  return options;
}
