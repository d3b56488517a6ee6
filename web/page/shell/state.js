// shell/state.js: what a link reproduces. ONE declarative list of properties (the
// tensorflow/playground way): name, type, default, validate. Reading a hostile query string
// (script tags, huge seeds, unknown words) falls back to the default for that property and
// records a short notice; values are only ever parsed, never inserted as markup.
import { VOCABULARY, DEFAULT_SENTENCE, MAX_TOKENS } from '../models/attention.js';
import { SECTION_IDS, SECTION_PROPERTIES } from '../sections/index.js';
import { parseRange } from './scene.js';

export { SECTION_IDS };

/**
 * Every URL parameter the page reads. `default: null` for lang means "from the browser". The
 * shell's own come first; each section declares the ones it owns (sections/index.js, from the
 * section's own file), so adding a section adds its settings here without editing this file.
 */
export const PROPERTIES = [
  { name: 'lang', type: 'enum', values: ['zh', 'en'], default: null },
  { name: 'section', type: 'enum', values: SECTION_IDS, default: null },
  { name: 'seed', type: 'int', min: 0, max: 4294967295, default: 42 },
  { name: 'sentence', type: 'words', default: DEFAULT_SENTENCE,
    validate: (words) => words.length >= 2 && words.length <= MAX_TOKENS && words.every((w) => VOCABULARY.includes(w)) },
  { name: 'scale', type: 'bool', default: false },   // divide scores by √d_k
  { name: 'pos', type: 'bool', default: false },     // add the position vector to X
  { name: 'dk', type: 'int', min: 2, max: 4, default: 3 },        // head width d_k (3: the article's)
  { name: 'quiz', type: 'bool', default: false },   // exercises: ask before each result (shell/quiz.js)
  // the scene (shell/scene.js): the step a section opens at (for the training sections, the run's
  // step, clamped to the schedule; for the others, the stepper's, 1 = its first), the range its
  // stepper keeps to, whether play wraps round, and whether it plays once in view
  { name: 'step', type: 'int', min: 0, max: 1000000, default: 0 },
  { name: 'steps', type: 'range', max: 999, default: null },
  { name: 'loop', type: 'bool', default: false },
  { name: 'autoplay', type: 'bool', default: false },
  // kq, temp, pull, qk, sdk, heads, ped; the training run's tseed, batch, lr, dim, opt, corpus
  // (training/settings.js); the block's, the writer's and generation's (gpt/settings.js)
  ...SECTION_PROPERTIES,
];

/**
 * The properties a <qkv-lab> takes as attributes (web/widget/attributes.js derives its list from
 * this one): every one but the page's own (lang and section, which the widget reads itself).
 */
export const ATTRIBUTE_PROPERTIES = PROPERTIES.filter((p) => p.name !== 'lang' && p.name !== 'section');

const MAX_PARAM_LENGTH = 200;

function parse(prop, raw) {
  if (raw.length > (prop.maxLength ?? MAX_PARAM_LENGTH)) return { ok: false };
  switch (prop.type) {
    case 'enum':
      return prop.values.includes(raw) ? { ok: true, value: raw } : { ok: false };
    case 'int': {
      if (!/^\d{1,10}$/.test(raw)) return { ok: false };
      const n = Number(raw);
      return n >= prop.min && n <= prop.max && (!prop.values || prop.values.includes(n)) ? { ok: true, value: n } : { ok: false };
    }
    case 'number': {
      if (!/^\d{1,3}(\.\d{1,3})?$/.test(raw)) return { ok: false };
      const n = Number(raw);
      return n >= prop.min && n <= prop.max ? { ok: true, value: n } : { ok: false };
    }
    case 'range': {  // 'a-b', a ≤ b (the scene's steps="2-5")
      const range = parseRange(raw, prop.max);
      return range ? { ok: true, value: `${range.from}-${range.to}` } : { ok: false };
    }
    case 'bool':
      return raw === '1' || raw === '0' ? { ok: true, value: raw === '1' } : { ok: false };
    case 'text': {  // free text, checked and normalised by the property's validate(raw) → value | null
      const value = prop.validate(raw);
      return value === null ? { ok: false } : { ok: true, value };
    }
    case 'words': {
      const words = raw.trim().split(/\s+/).filter(Boolean);
      return prop.validate(words) ? { ok: true, value: words.join(' ') } : { ok: false };
    }
    default:
      return { ok: false };
  }
}

function serialize(prop, value) {
  if (prop.type === 'bool') return value ? '1' : '0';
  return String(value);
}

/**
 * createState({ search, write }): search is a query string ('?seed=7'); write(queryString) is
 * called after every set() (the page passes history.replaceState; the widget passes nothing).
 *   get(name), set(name, value), values(), rejected (names that fell back), onChange(fn) → off
 */
export function createState({ search = '', write = null } = {}) {
  const params = new URLSearchParams(search);
  const values = {};
  const rejected = [];
  for (const prop of PROPERTIES) {
    values[prop.name] = prop.default;
    if (!params.has(prop.name)) continue;
    const result = parse(prop, params.get(prop.name));
    if (result.ok) values[prop.name] = result.value;
    else rejected.push(prop.name);
  }
  // a property whose limit depends on another (fits(value, values)), checked once all are read:
  // a link or an attribute that can never work falls back (a reader's later edit is the section's
  // to refuse, with its reason)
  for (const prop of PROPERTIES) {
    if (prop.fits && !prop.fits(values[prop.name], values)) {
      values[prop.name] = prop.default;
      if (params.has(prop.name)) rejected.push(prop.name);
    }
  }
  const watchers = new Set();
  const byName = new Map(PROPERTIES.map((p) => [p.name, p]));

  function toSearch() {
    const out = new URLSearchParams();
    for (const prop of PROPERTIES) {
      const v = values[prop.name];
      if (v !== null && v !== prop.default) out.set(prop.name, serialize(prop, v));
    }
    const text = out.toString();
    return text ? `?${text}` : '';
  }

  return {
    rejected,
    get: (name) => values[name],
    values: () => ({ ...values }),
    toSearch,
    set(name, value) {
      const prop = byName.get(name);
      if (!prop) throw new Error(`state: unknown property ${name}`);
      if (value !== null) {
        const checked = parse(prop, serialize(prop, value));
        if (!checked.ok) return false;
        value = checked.value;
      }
      if (values[name] === value) return true;
      values[name] = value;
      if (write) write(toSearch());
      for (const fn of [...watchers]) fn(name, value);
      return true;
    },
    onChange(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
  };
}
