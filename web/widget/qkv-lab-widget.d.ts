// Types for `qkv-lab/widget`: importing it (the ES module web/dist/qkv-lab-widget.mjs, which
// bundlers and Node pick), or loading web/dist/qkv-lab-widget.js with a <script> tag, defines the
// <qkv-lab> custom element and the one global `QkvLab`. The module exports no values (it is
// imported for that effect), so this file declares none: the element's class is `QkvLab.Element`
// or `customElements.get('qkv-lab')`. tests/package-consumer.test.js checks that every value
// declared here and in web/qkv-lab.d.ts exists at run time.
//
//   import 'qkv-lab/widget';
//   const el = document.createElement('qkv-lab');
//   el.section = 'softmax';
//   el.addEventListener('qkv-step', (e) => console.log(e.detail.step));
//   document.addEventListener('qkv-train', (e) => console.log(e.detail.loss));
import type { load, Matrix } from '../qkv-lab.js';

// generated:widget-sections (tools/section-types.mjs, from web/page/sections/index.js: ./build.sh writes it)
/** The values of the `section` attribute; 'walkthrough' is the default. */
export type QkvLabSection =
  | 'walkthrough' | 'roles' | 'embedding' | 'projections' | 'scores' | 'softmax' | 'mixing'
  | 'learnable' | 'symmetry' | 'scaling' | 'multihead' | 'positions' | 'trainstep' | 'training'
  | 'flow' | 'block' | 'writer' | 'generate' | 'pretrained' | 'finetune';
// /generated:widget-sections

export type QkvLabTheme = 'auto' | 'light' | 'dark';

export interface QkvLabReadyDetail { section: QkvLabSection; lang: 'zh' | 'en' }
export interface QkvLabStepDetail {
  section: QkvLabSection;
  /** 0-based position of the section's stepper */
  step: number;
  count: number;
  /**
   * walkthrough: 'X' | 'QKV' | 'scores' | 'weights' | 'output'; trainstep (one training step):
   * 'lookup' | 'positions' | 'attention' | 'predict' | 'loss' | 'backward' | 'update' | 'after'
   */
  stage?: 'X' | 'QKV' | 'scores' | 'weights' | 'output'
    | 'lookup' | 'positions' | 'attention' | 'predict' | 'loss' | 'backward' | 'update' | 'after';
}
export interface QkvLabTrainDetail { section: 'training'; step: number; total: number; loss: number | null }
export interface QkvLabErrorDetail { message: string }

export interface QkvLabElement extends HTMLElement {
  /** Which part of the story; an unknown value shows a notice and falls back to 'walkthrough'. */
  section: QkvLabSection;
  /** The random seed of W_Q, W_K, W_V (an integer 0 … 4294967295; 42 gives the article's numbers). */
  seed: number;
  /** 2 to 6 words of the built-in vocabulary, separated by spaces ('我 love 猫' by default). */
  sentence: string;
  /** The head width d_k: 2, 3 or 4 (default 3, the article's); W_Q, W_K, W_V are 4 × d_k. */
  dk: number;
  /** Divide the scores by √d_k before softmax (default false, as in the article). */
  scale: boolean;
  /** Add position vectors to X (default false). */
  pos: boolean;
  /** Section 'scaling': the width d_k of the random q and k, one of 1 … 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512 (default 64). */
  sdk: number;
  /** Section 'multihead': how many heads share the 12 columns of Q, K and V: 1, 2, 3 or 4 (default 2). */
  heads: number;
  /** Section 'positions': the width d of the pictured sine table: 4, 8, 16, 32, 64 or 128 (default 64). */
  ped: number;
  /** Section 'scores': also show K·Qᵀ = Sᵀ (default false). */
  kq: boolean;
  /** Section 'symmetry': share one projection, Q = K = X·W_Q (default false). */
  qk: boolean;
  /** Section 'softmax': the temperature T, 0.1 … 10 (the slider's stops: 0.1, 0.2, 0.5, 1, 2, 5, 10; default 1). */
  temp: number;
  /** Section 'learnable': the factor in q_我 = pull × k_我, 0 … 10 (default 5). */
  pull: number;
  /**
   * The step the section opens at, as its stepper counts them (1 is "step 1 of n"); 0, the
   * default, opens it at its first step ('learnable' at its `pull`). In 'trainstep' and 'training', the training step
   * (0 … 1000000, clamped to the schedule). A step outside `steps` shows a notice and opens at its start;
   * one past the section's last step shows a notice and opens at its first. It reads back the
   * attribute, not where the stepper is now: that is each `qkv-step` event's `detail.step` (0-based).
   */
  step: number;
  /** 'a-b' (1 ≤ a ≤ b): the steps the stepper keeps to, e.g. '2-5'; null (the default): every step. A range that ends past the section's last step shows a notice and falls back to every step. */
  steps: string | null;
  /** Play round from the range's last step to its first (default false). */
  loop: boolean;
  /**
   * Exercises (attribute `quiz`, default false): before each step that reveals a result, the
   * section asks the reader a question, checks the answer against the numbers computed for this
   * view and explains why; the stepper holds there until it is answered or skipped.
   */
  quiz: boolean;
  /** Play the section's stepper (its `steps`) while the widget is in view; it pauses out of view. */
  autoplay: boolean;
  /** The training run's own seed, 0 … 4294967295 (default 1). */
  tseed: number;
  /** Sentences per training step, 1 … 64 (default 1). */
  batch: number;
  /** The learning rate, 0.001 … 10 (default 0.3). */
  lr: number;
  /** The embedding width of the training run, 2 … 64 (default 16). */
  dim: number;
  /** The optimizer (default 'sgd'). */
  opt: 'sgd' | 'adam';
  /** The training corpus: a preset's id, or at most 1,000 characters, one sentence a line (default 'default'). */
  corpus: string;
  /** Section 'trainstep': the sentence walked through (default '我 爱 吃 苹 果'). */
  example: string;
  /** Section 'block': the block's width d: 4, 8, 16, 32 or 64 (default 8). */
  bdim: number;
  /** Section 'block': its heads, 1, 2 or 4 (default 2). */
  bheads: number;
  /** Section 'block': which character of 白日依山尽 is followed, 0 … 4 (default 4). */
  btok: number;
  /** Section 'writer': the GPT's layers, 1 … 4 (default 2). */
  glayers: number;
  /** Section 'writer': heads, 1, 2, 4 or 8 (default 4). */
  gheads: number;
  /** Section 'writer': the model width, 8 … 128 (default 64). */
  gdim: number;
  /** Section 'writer': the context, 8 … 64 characters (default 32). */
  gctx: number;
  /** Section 'writer': the learning rate, 0.001 … 0.1 (default 0.003). */
  glr: number;
  /** Section 'writer': the run's seed, 0 … 4294967295 (default 0). */
  gseed: number;
  /** Section 'writer': the schedule's length, 25 … 5000 steps (default 600). */
  gsteps: number;
  /** Section 'generate': the model that writes: the pretrained poet, the writer's run, or a LoRA adapter on the poet (a link carries no adapter: the poet writes until one is loaded) (default 'poet'). */
  gmodel: 'poet' | 'writer' | 'adapter';
  /** Section 'generate': the form the poem is held to, or none (default 'free'). */
  gform: 'free' | 'wujue' | 'qijue' | 'wulv' | 'qilv';
  /**
   * Section 'generate': the acrostic (藏头诗), one character a line of the form, at most 8 (default '').
   * Needs a form, and a beginning that fits it: gprompt '' or one whose lines start with its characters.
   */
  gacro: string;
  /** Section 'generate': the prompt, one line of at most 60 characters (default '白日依山尽，'). */
  gprompt: string;
  /** Section 'generate': the temperature, 0 (greedy) … 2 (default 0.8). */
  gtemp: number;
  /** Section 'generate': top-k, 0 (off) … 50 (default 10). */
  gtopk: number;
  /** Section 'generate': top-p, 0.05 … 1 (default 0.9). */
  gtopp: number;
  /** Section 'pretrained': the reader's quatrain, a 五绝 or 七绝 (default '': the first held-out quatrain it offers). */
  ppoem: string;
  /** Section 'finetune': the text, 'huanxisha' (浣溪沙) or 'poet' (李白's quatrains) (default 'huanxisha'). */
  ftset: 'huanxisha' | 'poet';
  /** Section 'finetune': 'lora' or 'full' (default 'lora'). */
  ftmethod: 'lora' | 'full';
  /** Section 'finetune': LoRA's rank, 1, 4 or 16 (default 4). */
  ftrank: number;
  /** Section 'finetune': the matrices LoRA adapts, comma-separated of Wq, Wk, Wv, Wo, W1, W2 (default 'Wq,Wv'). */
  fttargets: string;
  /** Section 'finetune': the schedule, 25, 50, 100, 200 or 400 steps (default 400). */
  ftsteps: number;
  /** Section 'finetune': the seed, 0 … 4294967295 (default 0). */
  ftseed: number;
  /** Section 'finetune': the beginning both models continue in Compare, at most 20 characters (default ''). */
  ftprompt: string;
  theme: QkvLabTheme;
  /** The language in effect: the lang attribute, else the page's, else the browser's. */
  readonly language: 'zh' | 'en';
  readonly playing: boolean;
  play(): void;
  pause(): void;
  next(): void;
  previous(): void;
}

/** The widget's events: they bubble and are composed, so they reach the document and the window. */
export interface QkvLabEventMap {
  'qkv-ready': CustomEvent<QkvLabReadyDetail>;
  'qkv-step': CustomEvent<QkvLabStepDetail>;
  'qkv-train': CustomEvent<QkvLabTrainDetail>;
  'qkv-error': CustomEvent<QkvLabErrorDetail>;
}

/** The element's class: `QkvLab.Element`, or `customElements.get('qkv-lab')`. */
export interface QkvLabElementConstructor {
  new (): QkvLabElement;
  readonly prototype: QkvLabElement;
  readonly observedAttributes: string[];
}

export interface QkvLabGlobal {
  readonly version: string;
  readonly load: typeof load;
  readonly Matrix: typeof Matrix;
  readonly sections: readonly QkvLabSection[];
  readonly Element: QkvLabElementConstructor;
}

declare global {
  interface HTMLElementTagNameMap { 'qkv-lab': QkvLabElement }
  interface HTMLElementEventMap extends QkvLabEventMap {}
  interface DocumentEventMap extends QkvLabEventMap {}
  interface WindowEventMap extends QkvLabEventMap {}
  // eslint-disable-next-line no-var
  var QkvLab: QkvLabGlobal;
}
