// gpt/settings.js: the URL properties of the three GPT sections (state.js includes GPT_PROPERTIES
// in its one list). No DOM, no WebAssembly. Names carry a prefix because the earlier sections
// already own `seed`, `heads`, `dim` and `lr`:
//   block:    bdim (the block's width d), bheads (its heads), btok (the token followed)
//   writer:   glayers, gheads, gdim, gctx (context), glr, gseed, gsteps (the schedule): one run of createGPT
//   generate: gmodel (which model writes), gform (the form it is held to), gacro (the acrostic),
//             gprompt, gtemp, gtopk, gtopp
import { GPT_DEFAULTS } from '../../gpt-defaults.js';

/** The line the block section follows, one token per character (random rows standing in for embedding + position). */
export const BLOCK_LINE = '白日依山尽';

export const GPT_CHOICES = Object.freeze({
  bdim: [4, 8, 16, 32, 64],
  bheads: [1, 2, 4],
  glayers: [1, 2, 3, 4],
  gheads: [1, 2, 4, 8],
  gdim: [16, 32, 64, 128],
  gctx: [8, 16, 25, 32, 64],
  glr: [0.001, 0.003, 0.01, 0.03],
  gsteps: [50, 100, 300, 600, 1000, 2000],
  gtopk: [0, 1, 3, 5, 10, 20, 50],
  gtemp: [0, 0.5, 0.8, 1, 1.5],
  gtopp: [0.5, 0.8, 0.9, 0.95, 1],
});

/** The writer's default prompt for generation: the first line of 登鹳雀楼. */
export const DEFAULT_PROMPT = '白日依山尽，';
const MAX_PROMPT = 60;

/**
 * The models generation can write with: the pretrained poet (qkv.loadPretrained()), the writer's
 * run, and a LoRA adapter on the poet (a file the reader gives, or one the 微调 section hands
 * over: store.js useModel). A link holds the choice, never an adapter's weights.
 */
export const GEN_MODELS = Object.freeze(['poet', 'writer', 'adapter']);
/** The pretrained poet's context (docs/pretrained.md): the prompt's limit when it writes. */
export const POET_CONTEXT = 72;
/** The forms generation can hold a poem to ('free': none), as gpt.generate's `form` names them. */
export const GEN_FORMS = Object.freeze(['free', 'wujue', 'qijue', 'wulv', 'qilv']);
/** An acrostic has one character per line: at most 8 (a 律诗). */
const MAX_ACROSTIC = 8;

export const GPT_PROPERTIES = Object.freeze([
  { name: 'bdim', type: 'int', min: 4, max: 64, values: GPT_CHOICES.bdim, default: 8 },
  { name: 'bheads', type: 'int', min: 1, max: 4, values: GPT_CHOICES.bheads, default: 2 },
  { name: 'btok', type: 'int', min: 0, max: BLOCK_LINE.length - 1, default: BLOCK_LINE.length - 1 },
  { name: 'glayers', type: 'int', min: 1, max: 4, default: GPT_DEFAULTS.layers },
  { name: 'gheads', type: 'int', min: 1, max: 8, values: GPT_CHOICES.gheads, default: GPT_DEFAULTS.heads },
  { name: 'gdim', type: 'int', min: 8, max: 128, default: GPT_DEFAULTS.dim },
  { name: 'gctx', type: 'int', min: 8, max: 64, default: GPT_DEFAULTS.context },
  { name: 'glr', type: 'number', min: 0.001, max: 0.1, default: GPT_DEFAULTS.lr },
  { name: 'gseed', type: 'int', min: 0, max: 4294967295, default: GPT_DEFAULTS.seed },
  { name: 'gsteps', type: 'int', min: 25, max: 5000, default: GPT_DEFAULTS.steps },   // the schedule's length
  { name: 'gmodel', type: 'enum', values: GEN_MODELS, default: 'poet' },
  { name: 'gform', type: 'enum', values: GEN_FORMS, default: 'free' },
  // 藏头诗: the characters that start the lines ('' none); the section refuses, with its reason,
  // one that does not fit the form or the vocabulary
  { name: 'gacro', type: 'text', maxLength: 4 * MAX_ACROSTIC, default: '',
    validate: (raw) => (!/\s/u.test(raw) && Array.from(raw).length <= MAX_ACROSTIC ? raw : null) },
  { name: 'gprompt', type: 'text', maxLength: MAX_PROMPT, default: DEFAULT_PROMPT,
    // empty: no beginning, the model writes from the start token alone (as the writer's samples do)
    validate: (raw) => (!/[\n\r]/.test(raw) ? raw : null),
    // the context holds the start token, the prompt and at least one new character: the writer's
    // run's context, or the poet's (an adapter writes with the poet's)
    fits: (prompt, values) => Array.from(prompt).length <= (values.gmodel === 'writer' ? values.gctx : POET_CONTEXT) - 2 },
  { name: 'gtemp', type: 'number', min: 0, max: 2, default: 0.8 },
  { name: 'gtopk', type: 'int', min: 0, max: 50, default: 10 },
  { name: 'gtopp', type: 'number', min: 0.05, max: 1, default: 0.9 },
]);

/** The keys that define a writer run: a change offers a new run. */
export const RUN_KEYS = Object.freeze(['glayers', 'gheads', 'gdim', 'gctx', 'glr', 'gseed', 'gsteps']);

/** The properties each GPT section uses (its embed code carries these only). Generation takes the
 * writer's run too: in a widget alone it trains that run itself. */
export const BLOCK_KEYS = Object.freeze(['bdim', 'bheads', 'btok', 'seed']);   // seed: its weights' draws
export const GENERATE_KEYS = Object.freeze([...RUN_KEYS, 'gmodel', 'gform', 'gacro', 'gprompt', 'gtemp', 'gtopk', 'gtopp']);

/** The largest head count ≤ heads that divides dim. */
export function clampHeads(dim, heads) {
  while (dim % heads) heads--;
  return heads;
}

/** createGPT options (without the text) from the state; heads clamped to divide dim. */
export function gptOptions(state) {
  const dim = state.get('gdim');
  const heads = clampHeads(dim, state.get('gheads'));
  return {
    layers: state.get('glayers'), heads, dim, context: state.get('gctx'),
    lr: state.get('glr'), seed: state.get('gseed'), steps: state.get('gsteps'), batch: GPT_DEFAULTS.batch,
  };
}
