// gpt.js: the GPT-2-style Transformer of wasm/gpt.c, trained and run from JavaScript. Its file
// format is gpt-file.js's, and one Transformer block on given weights is transformer-block.js's
// (both re-exported here: the GPT engine's JavaScript side is this module, finetune.js on top).
//
//   const gpt = qkv.createGPT({ text: QUATRAINS.poems });   // web/data/quatrains.js
//   gpt.train();                                            // the default schedule
//   gpt.generate('', { temperature: 0.8, seed: 3 }).text    // a poem
//
// The C side computes everything (forward, hand-written backward, AdamW, sampling, the KV
// cache); this side turns text into tokens, chooses the windows a step may draw, checks every
// option before anything is allocated, and copies results out. Its WebAssembly memory is reached
// only through the instance's Heap (heap.js). A GPT owns its C model and a few slots and frees
// them in dispose().
//
// Choices (docs/gpt.md):
//   - tokens are characters (code points); token 0 is the end-of-text token, written '\n': the
//     text holds one document (a poem) per line, and every line is followed by it;
//   - the vocabulary is '\n' then the text's distinct characters in code-point order; a prompt or
//     forward() text with a character outside it is refused, naming the characters;
//   - positions are learned (GPT-2's wpe), one row per position of the context;
//   - the token table is tied to the output layer (logits = LN(x)·wteᵀ), so a step changes every
//     row of it, not only the rows of the batch's tokens as in createModel's model;
//   - validation: every 10th line (lines 10, 20, …), fixed, whatever the seed;
//   - windows start at a line's end-of-text token (so position p is character p of the line, as
//     in generation, which starts from that token) and every context/2 tokens further while
//     inside the line; a window is `context` inputs and the `context` next tokens.
import {
  ReturnedMatrix, readOptions, argumentError, checkPositiveFloat32, checkWork, describe, MAX_WORK, workOf, trainSteps,
} from './matrix.js';
import {
  STATUS, GPT_TENSOR_GROUP, GPT_LAYER_ALL, GPT_OUTSIDE_PARAMETERS, GPT_OUTSIDE_ACTIVATIONS, BLOCK_PARAMETERS, BLOCK_ACTIVATIONS,
} from './heap.js';

import { GPT_LIMITS, GPT_DEFAULTS } from './gpt-defaults.js';
import { transformerBlock, blockTrace, blockTraceFloats } from './transformer-block.js';
import { encodeGPTFile, decodeGPTFile, parameterFloats, parameterLayout, int8Bytes, fnv1a } from './gpt-file.js';
import { POEM_FORMS, POEM_FORM_NAMES, COMMA, FULL_STOP, isHanCharacter, formSlot, formLength } from './poem-forms.js';

export { GPT_LIMITS, GPT_DEFAULTS, POEM_FORMS, POEM_FORM_NAMES, transformerBlock, parameterLayout, int8Bytes, fnv1a };
/** AdamW's fixed settings, the warmup and the decay: wasm/gpt.c's qkv_gpt_set_optimizer. */
const ADAMW = Object.freeze({ beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, clip: 1 });
const WARMUP_SHARE = 0.05;  // of the schedule's steps, linear
const END = '\n';
/** Most probable next tokens reported per generated token (QKV_GPT_TOP in wasm/qkv.h). */
const TOP = 5;

const OPTION_NAMES = ['text', 'layers', 'heads', 'dim', 'context', 'seed', 'lr', 'batch', 'steps'];

// ---- text → tokens ----

/** The lines of a text (documents), without '\r' and without empty ones, as code-point arrays. */
export function readLines(op, text) {
  if (typeof text !== 'string') {
    throw argumentError(TypeError, `${op}: text must be a string with one document (a poem) per line, got ${describe(text)}`);
  }
  const lines = [];
  let characters = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') continue;
    // a lone surrogate half is no character: the file's UTF-8 could not store it (save() would
    // write U+FFFD, or two halves would merge into one character), so it is refused here
    const lone = line.search(/[\uD800-\uDFFF]/u);
    if (lone >= 0) {
      const code = line.charCodeAt(lone).toString(16).toUpperCase();
      throw argumentError(RangeError, `${op}: line ${lines.length + 1} of the text has a lone surrogate (U+${code}) at ` +
        `character ${Array.from(line.slice(0, lone)).length + 1}: half of a character, which a GPT file cannot store; ` +
        `the text must be well-formed Unicode`);
    }
    const chars = Array.from(line);
    characters += chars.length + 1;
    if (characters > GPT_LIMITS.textCharacters) {
      throw argumentError(RangeError, `${op}: the text is longer than ${GPT_LIMITS.textCharacters} characters (GPT_LIMITS.textCharacters)`);
    }
    lines.push(chars);
  }
  if (lines.length < GPT_LIMITS.minLines) {
    throw argumentError(RangeError, `${op}: the text has ${lines.length} non-empty lines; it needs at least ` +
      `${GPT_LIMITS.minLines} (one document per line; every 10th line is held out for validation)`);
  }
  return lines;
}

/** vocab: '\n' then the distinct characters in code-point order */
export function buildVocab(op, lines) {
  const set = new Set();
  for (const line of lines) for (const ch of line) set.add(ch);
  set.delete(END);
  const chars = [...set].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  if (chars.length + 1 > GPT_LIMITS.vocab) {
    throw argumentError(RangeError, `${op}: the text has ${chars.length} distinct characters; a GPT takes at most ` +
      `${GPT_LIMITS.vocab - 1} (GPT_LIMITS.vocab, with the end-of-text token)`);
  }
  return [END, ...chars];
}

/** A token stream (EOS, line, EOS, line, …, EOS) and where its windows start. */
export function stream(lines, ids, T) {
  const tokens = [0];
  const starts = [];
  const stride = Math.max(1, T >> 1);
  for (const line of lines) {
    const first = tokens.length - 1;  // the EOS before the line
    for (const ch of line) tokens.push(ids.get(ch));
    tokens.push(0);
    for (let s = first; s < tokens.length - 1; s += stride) starts.push(s);
  }
  return { tokens, starts: starts.filter((s) => s + T < tokens.length) };
}

// ---- the GPT ----

/**
 * The work of one forward over `tokens` tokens attending to up to `keys` keys, in checkWork's
 * parts: the products, and the softmax entries of attention (every head, every key) and of the
 * probabilities over the vocabulary (wasm/gpt.c computes them on every forward). Callers add
 * what else they do (backward, AdamW, copies, sampling): see addWork.
 */
function forwardWork(c, tokens, keys = tokens) {
  return {
    multiplyAdds: tokens * (c.layers * (12 * c.dim * c.dim + 2 * keys * c.dim) + c.dim * c.vocab),
    exps: tokens * (c.layers * c.heads * keys + c.vocab),
  };
}

/** The parts of `into` plus `times` × those of `more` (a new object). */
function addWork(into, more, times = 1) {
  const sum = { ...into };
  for (const [kind, n] of Object.entries(more)) sum[kind] = (sum[kind] || 0) + times * n;
  return sum;
}

/** Floats of a GPT's parameters: wte, wpe, the blocks, the final LayerNorm. */

/**
 * One training step's work: batch forwards over the context, the backward (twice a forward's
 * products, a softmax entry's gradient per entry), and AdamW on every parameter.
 */
export function stepWorkOf(c) {
  const forward = forwardWork(c, c.context);
  return {
    multiplyAdds: 3 * c.batch * forward.multiplyAdds,
    exps: 2 * c.batch * forward.exps,
    adam: parameterFloats(c.vocab, c.layers, c.dim, c.context),
  };
}

/**
 * Throws createGPT's RangeError when one training step of config c (layers, heads, dim, context,
 * batch, vocab) would be more work than one call may do (MAX_WORK). The page's writer asks it
 * which of its choices to offer (web/page/gpt/limits.js).
 */
export function checkStepWork(op, c) {
  checkWork(op, stepWorkOf(c), `one training step (batch ${c.batch} × context ${c.context}, ${c.layers} layers of width ` +
    `${c.dim}, vocabulary ${c.vocab})`);
}

export class GPT {
  /** Use QkvLab.createGPT(options) or QkvLab.loadGPT(bytes). */
  constructor(lab, options, loaded = null) {
    const op = loaded ? 'loadGPT' : 'createGPT';
    let c, lines = null, vocab;
    if (loaded) {
      ({ config: c, vocab } = loaded);
    } else {
      const given = readOptions(op, options, OPTION_NAMES, '{ text, layers: 2, heads: 4, dim: 64, context: 32 }');
      c = { ...GPT_DEFAULTS };
      for (const [k, v] of Object.entries(given)) if (v !== undefined) c[k] = v;
      if (given.text === undefined) {
        throw argumentError(TypeError, `${op}: text is required (one document per line); the Tang quatrains are ` +
          `QUATRAINS.poems in qkv-lab's web/data/quatrains.js`);
      }
      checkConfig(op, c);
      lines = readLines(op, c.text);
      vocab = buildVocab(op, lines);
    }
    c.vocab = vocab.length;
    const stepWork = stepWorkOf(c);
    if (!loaded) checkStepWork(op, c);
    const ids = new Map(vocab.map((ch, i) => [ch, i]));
    let train = null, val = null;
    if (lines) {
      train = stream(lines.filter((_, i) => i % 10 !== 9), ids, c.context);
      val = stream(lines.filter((_, i) => i % 10 === 9), ids, c.context);
      for (const [name, s] of [['training', train], ['validation (every 10th line)', val]]) {
        if (s.starts.length === 0) {
          throw argumentError(RangeError, `${op}: the ${name} text gives ${s.tokens.length} tokens, too few for one window of ` +
            `context ${c.context} (${c.context + 1} tokens); give more text or a smaller context`);
        }
      }
    }

    this._lab = lab;
    this._heap = lab._heap;
    this._ids = ids;
    /** string[]: token id → character; vocab[0] is '\n', the end-of-text token. */
    this.vocab = Object.freeze(vocab.slice());
    this.layers = c.layers;
    this.heads = c.heads;
    this.dim = c.dim;
    this.context = c.context;
    this.seed = c.seed;
    this.lr = loaded ? null : c.lr;
    this.batch = c.batch;
    /** Length of the default schedule: train() with no argument runs the steps left of it. */
    this.defaultSteps = loaded ? 0 : c.steps;
    this.diverged = false;
    this._hasText = !!lines;
    this._valLines = lines ? lines.filter((_, i) => i % 10 === 9) : null;
    this._config = c;
    this._stepWork = stepWork;
    if (train) {
      this._trainWindows = train.starts.length;
      this._valWindows = val.starts.length;
      this._trainTokens = train.tokens;
      this._valTokens = val.tokens;
      this._valStarts = val.starts;
    }

    const heap = this._heap;
    this._memory = heap.allocations(op);
    this._gpt = 0;
    try {
      const slots = this._memory.bytes(32);  // the model pointer | loss | grad norm | tensor ptr, rows, cols
      this._slot = slots;
      this._loss = slots + 8;
      this._norm = slots + 16;
      this._tensorSlot = this._memory.bytes(12);
      // a loaded GPT cannot train (no text): its weights are the file's, and it has no training
      // state (the poet: 43 MB less, and no random initialisation to overwrite)
      const status = loaded
        ? heap.call('qkv_gpt_create_inference', slots, c.vocab, c.layers, c.heads, c.dim, c.context, c.batch)
        : heap.call('qkv_gpt_create', slots, c.vocab, c.layers, c.heads, c.dim, c.context, c.batch, c.seed >>> 0);
      if (status === STATUS.SIZE) {
        throw new RangeError(`${op}: a GPT of ${c.layers} layers, width ${c.dim}, context ${c.context}, batch ${c.batch} and ` +
          `vocabulary ${c.vocab} needs more memory than the engine allows (1 GiB)`);
      }
      if (status === STATUS.ALLOC) {
        throw new RangeError(`${op}: out of WebAssembly memory for a GPT of ${c.layers} layers, width ${c.dim}, context ` +
          `${c.context}, batch ${c.batch} and vocabulary ${c.vocab}`);
      }
      lab._check(op, status);
      this._gpt = heap.readInt(slots);
      /** Number of parameters (floats): wte, wpe, the blocks, the final LayerNorm. */
      this.parameterCount = heap.call('qkv_gpt_num_params', this._gpt);
      if (!loaded) {
        const warmup = Math.round(WARMUP_SHARE * c.steps);
        lab._check(op, heap.call('qkv_gpt_set_optimizer', this._gpt, c.lr, ADAMW.beta1, ADAMW.beta2, ADAMW.eps,
          ADAMW.weightDecay, ADAMW.clip, warmup, c.steps));
        const all = [train.tokens, train.starts, val.tokens, val.starts];
        heap.frame(all.reduce((s, a) => s + a.length, 0), (frame) => {
          const ptrs = all.map((a) => {
            const p = frame.bytes(4 * a.length);
            heap.writeInts(p, a);
            return p;
          });
          lab._check(op, heap.call('qkv_gpt_set_data', this._gpt, ptrs[0], all[0].length, ptrs[1], all[1].length,
            ptrs[2], all[2].length, ptrs[3], all[3].length));
        });
      } else {
        const params = this._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
        if (params.rows * 4 !== loaded.params.length) {
          throw argumentError(RangeError, `${op}: the file holds ${loaded.params.length / 4} parameters, but its header ` +
            `describes a GPT of ${params.rows}`);
        }
        heap.writeBytes(params.ptr, loaded.params);
        this._loadedSteps = loaded.steps;
      }
    } catch (error) {
      this._free();
      throw error;
    }
  }

  /** Steps taken (those of the file, for a loaded GPT). */
  get steps() {
    if (!this._gpt) return this._lastSteps ?? 0;
    return (this._loadedSteps ?? 0) + this._heap.call('qkv_gpt_steps', this._gpt);
  }

  // ---- training ----

  /**
   * One AdamW step on `batch` windows drawn with the GPT's seeded generator → { step, loss }
   * (loss: the mean cross-entropy of those windows before the update, nats per character).
   * Throws a DivergenceError (and sets gpt.diverged) when the loss is not finite or above
   * 100 × ln V; that step is not applied.
   */
  step() {
    const op = 'step';
    this._trainable(op);
    const heap = this._heap;
    const status = heap.call('qkv_gpt_step', this._gpt, this._loss, this._norm);
    const loss = heap.readDouble(this._loss);
    if (status === STATUS.DIVERGED) {
      this.diverged = true;
      throw divergence(`step ${this.steps + 1}: training diverged (the loss is ${loss}, the limit 100 × ln V = ` +
        `${(100 * Math.log(this.vocab.length)).toPrecision(4)}, or the update is not finite); training stopped and ` +
        `the parameters are those before this step`);
    }
    this._lab._check(op, status);
    return { step: this.steps, loss };
  }

  /** The rest of the default schedule, or `steps` more steps → their losses. */
  train(steps) {
    const op = 'train';
    this._trainable(op);
    if (steps === undefined) steps = Math.max(0, this.defaultSteps - this.steps);
    integer(op, 'steps', steps, 0, GPT_LIMITS.steps);
    return trainSteps(this, steps);
  }

  /**
   * → { train, val }: mean loss per character (nats) over every validation window and over as
   * many training windows, evenly spaced (all of them when there are fewer).
   */
  evaluate() {
    const evaluation = this.evaluation();
    let result = null;
    while (result === null) result = evaluation.advance();
    return result;
  }

  /**
   * The same evaluation in pieces, for a caller that must not block for all of it (a page's own
   * thread): → { windows, done, advance(n) }. advance(n) evaluates up to n more windows (at most
   * as many as one call within the work limit) and returns null until the last, then { train,
   * val }. With the default n the pieces are evaluate()'s calls and the result is its, bit for
   * bit; smaller pieces add the same losses in other groups (a double sum per piece). A step
   * taken before it finishes makes advance throw: the evaluation is of one model.
   */
  evaluation() {
    const op = 'evaluation';
    this._trainable(op);
    const T = this.context;
    const count = this._valWindows;
    const perCall = Math.max(1, Math.floor(MAX_WORK / workOf(forwardWork(this._config, T))));
    // the calls evaluate() makes, in order: [split, first window, windows]
    const runs = [[1, 0, count]];
    if (this._trainWindows <= count) runs.push([0, 0, this._trainWindows]);
    else for (let i = 0; i < count; i++) runs.push([0, Math.floor(i * this._trainWindows / count), 1]);   // evenly spaced single windows
    const trainCount = Math.min(this._trainWindows, count);
    const total = count + trainCount;
    const sums = [0, 0];
    let run = 0, offset = 0, done = 0, result = null;
    const steps = this.steps;
    const gpt = this;
    return {
      windows: total,
      get done() { return done; },
      advance(n = perCall) {
        if (result) return result;
        gpt._trainable(op);
        if (gpt.steps !== steps) throw new Error(`${op}: the GPT took a step (${steps} → ${gpt.steps}) before this evaluation finished; start a new one`);
        integer(op, 'n', n, 1, Number.MAX_SAFE_INTEGER);
        let left = Math.min(n, perCall);
        const heap = gpt._heap;
        while (left > 0 && run < runs.length) {
          const [split, first, length] = runs[run];
          if (length === 0) { run++; continue; }
          const k = Math.min(left, perCall, length - offset);
          gpt._lab._check(op, heap.call('qkv_gpt_evaluate', gpt._gpt, split, first + offset, k, gpt._loss));
          sums[split] += heap.readDouble(gpt._loss);
          offset += k; left -= k; done += k;
          if (offset === length) { run++; offset = 0; }
        }
        if (run < runs.length) return null;
        result = { train: sums[0] / (trainCount * T), val: sums[1] / (count * T) };
        return result;
      },
    };
  }

  /**
   * Per-poem evaluation: each poem scored once, from its start, as generation sees it (inputs
   * '\n' + poem, targets poem + '\n'; a poem longer than context − 1 characters is scored on its
   * first context targets and counted in `cut`) → { loss, poems, targets, cut }: loss is the mean
   * cross-entropy per target (nats per character, the end-of-text token counted as one).
   * poems: a string (one poem per line) or an array of strings; by default the GPT's own
   * validation lines (every 10th line of its text; a loaded GPT has none, so it needs them).
   * evaluate() instead scores the windows training draws (overlapping, crossing poem ends).
   */
  evaluatePoems(poems) {
    const op = 'evaluatePoems';
    this._alive(op);
    let list;
    if (poems === undefined) {
      if (!this._valLines) {
        throw argumentError(TypeError, `${op}: this GPT was loaded from bytes, which hold no validation poems; pass them: ` +
          `evaluatePoems(text) with one poem per line`);
      }
      list = this._valLines;
    } else if (typeof poems === 'string') {
      list = poems.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)).filter((line) => line !== '').map((line) => Array.from(line));
    } else if (Array.isArray(poems)) {
      list = poems.map((poem, i) => {
        if (typeof poem !== 'string' || poem === '' || poem.includes('\n')) {
          throw argumentError(TypeError, `${op}: poems[${i}] must be a non-empty string without '\\n', got ${describe(poem)}`);
        }
        return Array.from(poem);
      });
    } else {
      throw argumentError(TypeError, `${op}: poems must be a string (one poem per line) or an array of strings, got ${describe(poems)}`);
    }
    if (list.length === 0) throw argumentError(RangeError, `${op}: there are no poems to score`);
    const T = this.context;
    // tokens, checked before anything runs; poems grouped by the length scored
    const groups = new Map();
    let cut = 0;
    list.forEach((chars, i) => {
      const ids = chars.map((ch) => this._ids.get(ch));
      const unknown = chars.find((ch) => !this._ids.has(ch) || ch === END);
      if (unknown !== undefined) {
        throw argumentError(RangeError, `${op}: poem ${i + 1} has a character not in the vocabulary: ${JSON.stringify(unknown)}`);
      }
      const tokens = [0, ...ids, 0];
      const n = Math.min(tokens.length - 1, T);
      if (tokens.length - 1 > T) cut++;
      if (!groups.has(n)) groups.set(n, []);
      groups.get(n).push(tokens);
    });
    const heap = this._heap;
    let sum = 0, targets = 0;
    for (const [n, group] of groups) {
      const perCall = Math.max(1, Math.min(this.batch, Math.floor(MAX_WORK / workOf(forwardWork(this._config, n)))));
      for (let first = 0; first < group.length; first += perCall) {
        const B = Math.min(perCall, group.length - first);
        const inputs = [], outputs = [];
        for (let b = 0; b < B; b++) {
          const t = group[first + b];
          inputs.push(...t.slice(0, n));
          outputs.push(...t.slice(1, n + 1));
        }
        heap.frame(2 * B * n, (frame) => {
          const pi = frame.bytes(4 * B * n), pt = frame.bytes(4 * B * n);
          heap.writeInts(pi, inputs);
          heap.writeInts(pt, outputs);
          this._lab._check(op, heap.call('qkv_gpt_score', this._gpt, pi, pt, B, n, this._loss));
        });
        sum += heap.readDouble(this._loss);
        targets += B * n;
      }
    }
    return { loss: sum / targets, poems: list.length, targets, cut };
  }

  // ---- running it ----

  /**
   * The model on '\n' + text (text ≤ context − 1 characters of the vocabulary) →
   * { tokens, logits, blocks }: token ids (the end-of-text token first), logits (n×V: row t
   * scores the token after position t), and every block's intermediates, as transformerBlock
   * returns them.
   */
  forward(text) {
    const op = 'forward';
    this._alive(op);
    const tokens = [0, ...this._encode(op, text, 'text', this.context - 1)];
    const n = tokens.length;
    // out: the logits (n V) and every block's trace
    checkWork(op, addWork(forwardWork(this._config, n), {
      elements: n * this.vocab.length + this.layers * blockTraceFloats(n, this.dim, 4 * this.dim, this.heads),
    }), `a forward over ${n} tokens`);
    const heap = this._heap;
    heap.frame(n, (frame) => {
      const p = frame.bytes(4 * n);
      heap.writeInts(p, tokens);
      this._lab._check(op, heap.call('qkv_gpt_forward', this._gpt, p, n));
    });
    const logits = this._tensor(GPT_TENSOR_GROUP.activations, this.layers, GPT_OUTSIDE_ACTIVATIONS.indexOf('logits'));
    const blocks = [];
    for (let l = 0; l < this.layers; l++) {
      const ptrs = BLOCK_ACTIVATIONS.map((_, which) => this._tensor(GPT_TENSOR_GROUP.activations, l, which).ptr);
      blocks.push(blockTrace(heap, (which) => ptrs[which], n, this.dim, 4 * this.dim, this.heads));
    }
    return { tokens, logits: heap.readMatrix(logits.ptr, logits.rows, logits.cols), blocks };
  }

  /**
   * Text after prompt → { text, steps: [{ token, char, top: [{ char, p }], kvLength, mask? }],
   * stopped }. maxTokens: at most context − 1 − prompt length (the default); generation stops
   * earlier at the end-of-text token ('\n', the last step, not in text). stopped says why it
   * ended: 'end' (the end-of-text token), 'maxTokens' (the caller's limit) or 'context' (the
   * context is full). temperature 0: greedy; topK (0: all), topP (0, 1]; seed (default 0) makes
   * it reproducible. cache: true runs a prefill over the prompt and one row per token against
   * the KV cache; false runs the whole text again for every token (the same tokens). top: the 5
   * most probable next characters at temperature 1; kvLength: the cache's length when the token
   * was chosen (0 without the cache).
   *
   * form (a POEM_FORM_NAMES entry: 'wujue', 'qijue', 'wulv', 'qilv'): the prompt is the poem's
   * start, and every step may only choose what the form puts there: a Han character of the
   * vocabulary, '，' or '。' at a line's end, the end-of-text token after the last '。'. The
   * model's distribution is renormalised over the allowed tokens before temperature, topK and
   * topP. acrostic (with form; one Han character of the vocabulary per line): the characters
   * that start the lines (藏头诗). Each step of a form reports mask: { required ('character',
   * '，', '。', '\n' or the acrostic's character), removed (the probability the model put on
   * what the form did not allow), wanted (its top choice before the mask: top[0]), overruled
   * (whether the form refused it), top (the 5 most probable allowed tokens, renormalised) }.
   */
  generate(prompt = '', options = {}) {
    const op = 'generate';
    this._alive(op);
    const o = readOptions(op, options, ['maxTokens', 'temperature', 'topK', 'topP', 'seed', 'cache', 'form', 'acrostic'],
      '{ maxTokens: 24, temperature: 0.8, topK: 0, topP: 1, seed: 0, cache: true, form: \'wujue\', acrostic: \'春夏秋冬\' }');
    // an option's getter may have disposed this GPT
    this._alive(op);
    const ids = [0, ...this._encode(op, prompt, 'prompt', this.context - 2)];
    const room = this.context - ids.length;
    const { temperature = 1, topK = 0, topP = 1, seed = 0, cache = true, form, acrostic } = o;
    const plan = form === undefined && acrostic === undefined ? null : this._formPlan(op, Array.from(prompt), form, acrostic);
    if (plan && plan.needed > room) {
      throw argumentError(RangeError, `${op}: the rest of a ${form} poem (${plan.needed - 1} characters and the end-of-text ` +
        `token) does not fit after the prompt's ${ids.length} tokens in the context of ${this.context}`);
    }
    const maxTokens = o.maxTokens === undefined ? (plan ? plan.needed : room) : o.maxTokens;
    integer(op, 'maxTokens', maxTokens, 1, room, `(the context ${this.context} minus the prompt's ${ids.length} tokens, end-of-text included)`);
    if (typeof temperature !== 'number') throw argumentError(TypeError, `${op}: temperature must be a number from 0 to 100, got ${describe(temperature)}`);
    if (!(temperature >= 0 && temperature <= 100)) {
      throw argumentError(RangeError, `${op}: temperature must be from 0 (greedy) to 100, got ${describe(temperature)}`);
    }
    integer(op, 'topK', topK, 0, this.vocab.length, '(0: every token)');
    if (typeof topP !== 'number') throw argumentError(TypeError, `${op}: topP must be a number in (0, 1], got ${describe(topP)}`);
    if (!(topP > 0 && topP <= 1) || Math.fround(topP) === 0) {
      throw argumentError(RangeError, `${op}: topP must be in (0, 1], got ${describe(topP)}`);
    }
    integer(op, 'seed', seed, 0, 0xffffffff);
    if (typeof cache !== 'boolean') throw argumentError(TypeError, `${op}: cache must be true or false, got ${describe(cache)}`);
    const n0 = ids.length, c = this._config;
    let work = forwardWork(c, n0);
    for (let t = n0; t < n0 + maxTokens - 1; t++) work = addWork(work, cache ? forwardWork(c, 1, t + 1) : forwardWork(c, t + 1));
    // sampling each token: the model's probabilities of its top tokens and the sampling weights
    // (two softmaxes over the vocabulary; a third with a mask), and with topK or topP a sort of
    // the vocabulary
    const V = this.vocab.length;
    const sorts = temperature > 0 && ((topK > 0 && topK < V) || topP < 1);
    work = addWork(work, { exps: (plan ? 3 : 2) * V, multiplyAdds: sorts ? V * Math.ceil(Math.log2(V + 1)) : 0,
      elements: 2 + 2 * TOP + (plan ? 1 + 2 * TOP : 0) }, maxTokens);
    if (plan) work = addWork(work, { elements: plan.rows.length * V / 4 });
    checkWork(op, work, `generating ${maxTokens} tokens after a prompt of ${n0} ${cache ? 'with' : 'without'} the KV cache`);
    const heap = this._heap;
    const maskBytes = plan ? plan.rows.length * V : 0;
    return heap.frame(n0 + maxTokens * (3 + 4 * TOP) + 1 + Math.ceil(maskBytes / 4) + 1, (frame) => {
      const p = frame.bytes(4 * n0);
      const out = frame.bytes(4 * maxTokens);
      const topIds = frame.bytes(4 * maxTokens * TOP);
      const topProbs = frame.bytes(4 * maxTokens * TOP);
      const count = frame.bytes(4);
      heap.writeInts(p, ids);
      let masks = 0, stepMasks = 0, removed = 0, maskedIds = 0, maskedProbs = 0;
      if (plan) {
        masks = frame.bytes(4 * Math.ceil(maskBytes / 4));
        const rows = new Uint8Array(maskBytes);
        plan.rows.forEach((row, r) => rows.set(row, r * V));
        heap.writeBytes(masks, rows);
        stepMasks = frame.bytes(4 * maxTokens);
        heap.writeInts(stepMasks, Array.from({ length: maxTokens }, (_, i) => plan.stepRow(n0 - 1 + i)));
        removed = frame.bytes(4 * maxTokens);
        maskedIds = frame.bytes(4 * maxTokens * TOP);
        maskedProbs = frame.bytes(4 * maxTokens * TOP);
      }
      this._lab._check(op, heap.call('qkv_gpt_generate_masked', this._gpt, p, n0, maxTokens, temperature, topK, topP,
        seed >>> 0, cache ? 1 : 0, masks, plan ? plan.rows.length : 0, stepMasks, out, topIds, topProbs, removed,
        maskedIds, maskedProbs, count));
      const k = heap.readInt(count);
      const tokens = heap.readInts(out, k);
      const tops = heap.readInts(topIds, k * TOP);
      const probs = heap.readFloats(topProbs, k * TOP);
      const gone = plan ? heap.readFloats(removed, k) : null;
      const mTops = plan ? heap.readInts(maskedIds, k * TOP) : null;
      const mProbs = plan ? heap.readFloats(maskedProbs, k * TOP) : null;
      const steps = [];
      let text = '';
      const topList = (idList, pList, i) => {
        const list = [];
        for (let j = 0; j < TOP && idList[i * TOP + j] >= 0; j++) list.push({ char: this.vocab[idList[i * TOP + j]], p: pList[i * TOP + j] });
        return list;
      };
      for (let i = 0; i < k; i++) {
        const token = tokens[i];
        const char = this.vocab[token];
        if (token !== 0) text += char;
        const top = topList(tops, probs, i);
        const step = { token, char, top, kvLength: cache ? n0 + i : 0 };
        if (plan) {
          const required = plan.required(n0 - 1 + i);
          const row = plan.rows[plan.stepRow(n0 - 1 + i)];
          step.mask = { required, removed: gone[i], wanted: top[0], overruled: row[tops[i * TOP]] === 0, top: topList(mTops, mProbs, i) };
        }
        steps.push(step);
      }
      const stopped = k > 0 && tokens[k - 1] === 0 ? 'end' : n0 + k >= this.context ? 'context' : 'maxTokens';
      return { text, steps, stopped };
    });
  }

  /**
   * generate()'s form and acrostic, checked: { needed (tokens left to the end-of-text token),
   * rows (allowed-token masks, V bytes each), stepRow(p), required(p) } for poem position p.
   */
  _formPlan(op, chars, form, acrostic) {
    const promptLength = chars.length;
    if (form === undefined) {
      throw argumentError(TypeError, `${op}: acrostic needs a form (the form says where each line starts), e.g. ` +
        `{ form: 'wujue', acrostic: '春夏秋冬' }`);
    }
    if (typeof form !== 'string' || !Object.hasOwn(POEM_FORMS, form)) {
      throw argumentError(typeof form === 'string' ? RangeError : TypeError,
        `${op}: form must be one of ${POEM_FORM_NAMES.map((f) => `'${f}'`).join(', ')}, got ${describe(form)}`);
    }
    const f = POEM_FORMS[form];
    const V = this.vocab.length;
    for (const mark of [COMMA, FULL_STOP]) {
      if (!this._ids.has(mark)) {
        throw argumentError(RangeError, `${op}: form '${form}' needs '${mark}', which is not in this GPT's vocabulary ` +
          `(it was not trained on poems of that form)`);
      }
    }
    const han = new Uint8Array(V);
    let hanCount = 0;
    this.vocab.forEach((ch, i) => { if (isHanCharacter(ch)) { han[i] = 1; hanCount++; } });
    if (hanCount === 0) {
      throw argumentError(RangeError, `${op}: form '${form}' needs Han characters, and this GPT's vocabulary has none`);
    }
    const single = (ch) => {
      const row = new Uint8Array(V);
      row[this._ids.get(ch)] = 1;
      return row;
    };
    const rows = [han, single(COMMA), single(FULL_STOP), single(END)];
    let heads = null;
    if (acrostic !== undefined) {
      if (typeof acrostic !== 'string') throw argumentError(TypeError, `${op}: acrostic must be a string, got ${describe(acrostic)}`);
      heads = Array.from(acrostic);
      if (heads.length !== f.lines) {
        throw argumentError(RangeError, `${op}: acrostic has ${heads.length} characters; a ${form} (${f.name}) has ` +
          `${f.lines} lines, one character each`);
      }
      heads.forEach((ch, line) => {
        if (!this._ids.has(ch)) {
          throw argumentError(RangeError, `${op}: acrostic character ${line + 1} ${JSON.stringify(ch)} is not in the vocabulary ` +
            `(${V} tokens built from the training text)`);
        }
        if (!isHanCharacter(ch)) {
          throw argumentError(RangeError, `${op}: acrostic character ${line + 1} ${JSON.stringify(ch)} is not a Han character`);
        }
      });
    }
    const headRow = heads ? heads.map((ch) => rows.push(single(ch)) - 1) : null;
    const stepRow = (p) => {
      const slot = formSlot(form, p);
      if (slot.kind === 'end') return 3;
      if (slot.kind === 'mark') return slot.mark === COMMA ? 1 : 2;
      return heads && slot.column === 0 ? headRow[slot.line] : 0;
    };
    const required = (p) => {
      const slot = formSlot(form, p);
      if (slot.kind === 'end') return END;
      if (slot.kind === 'mark') return slot.mark;
      return heads && slot.column === 0 ? heads[slot.line] : 'character';
    };
    const length = formLength(form);
    if (promptLength > length) {
      throw argumentError(RangeError, `${op}: the prompt has ${promptLength} characters, more than a whole ${form} poem (${length})`);
    }
    // the prompt is the poem's start: it must have the form too
    for (let p = 0; p < promptLength; p++) {
      const row = rows[stepRow(p)];
      if (!row[this._ids.get(chars[p])]) {
        const want = required(p);
        throw argumentError(RangeError, `${op}: the prompt's character ${p + 1} ${JSON.stringify(chars[p])} does not fit the ` +
          `form '${form}', which puts ${want === 'character' ? 'a Han character' : JSON.stringify(want)} there`);
      }
    }
    return { needed: length + 1 - promptLength, rows, stepRow, required };
  }
  // ---- parameters and gradients (copies) ----

  /**
   * The parameters as Matrix copies: { wte (V×C), wpe (context×C), blocks: [weights in
   * transformerBlock's form: { ln1: { gamma, beta }, attn: { Wq, Wk, Wv, bq, bk, bv, Wo, bo },
   * ln2, mlp: { W1, b1, W2, b2 } }, …], lnf: { gamma, beta } } (vectors 1×k).
   */
  parameters() {
    this._alive('parameters');
    return this._structured(GPT_TENSOR_GROUP.params);
  }

  /**
   * The loss of one document (a line of at most context − 1 characters: inputs '\n' + text,
   * targets text + '\n') and its gradients, in parameters()' form: { loss, grads }. Nothing is
   * updated. Used by the gradient checks.
   */
  gradients(text) {
    const op = 'gradients';
    this._alive(op);
    if (!this._hasText) {
      throw new Error(`${op}: this GPT was loaded from bytes and is made without training state (no gradients: ` +
        `docs/gpt.md); create one with createGPT({ text }) for gradients, or fine-tune it (docs/finetune.md)`);
    }
    const ids = this._encode(op, text, 'text', this.context - 1);
    const inputs = [0, ...ids], targets = [...ids, 0], n = inputs.length;
    const forward = forwardWork(this._config, n);
    // out: the gradients, parameters()' form
    checkWork(op, { multiplyAdds: 3 * forward.multiplyAdds, exps: 2 * forward.exps, elements: this.parameterCount },
      `a forward and backward over ${n} tokens`);
    const heap = this._heap;
    const loss = heap.frame(2 * n, (frame) => {
      const pi = frame.bytes(4 * n), pt = frame.bytes(4 * n);
      heap.writeInts(pi, inputs);
      heap.writeInts(pt, targets);
      const status = heap.call('qkv_gpt_loss_and_grad', this._gpt, pi, pt, 1, n, this._loss);
      this._lab._check(op, status);
      return heap.readDouble(this._loss);
    });
    return { loss, grads: this._structured(GPT_TENSOR_GROUP.grads) };
  }

  _structured(group) {
    const heap = this._heap, d = this.dim, L = this.layers;
    const read = (layer, which) => {
      const t = this._tensor(group, layer, which);
      return heap.readMatrix(t.ptr, t.rows, t.cols);
    };
    const columns = (m, from, count) => {
      const out = new Float32Array(m.rows * count);
      for (let i = 0; i < m.rows; i++) out.set(m.data.subarray(i * m.cols + from, i * m.cols + from + count), i * count);
      return new ReturnedMatrix(m.rows, count, out);
    };
    const blocks = [];
    for (let l = 0; l < L; l++) {
      const p = Object.fromEntries(BLOCK_PARAMETERS.map((name, which) => [name, read(l, which)]));
      blocks.push({
        ln1: { gamma: p.ln1w, beta: p.ln1b },
        attn: {
          Wq: columns(p.qkvw, 0, d), Wk: columns(p.qkvw, d, d), Wv: columns(p.qkvw, 2 * d, d),
          bq: columns(p.qkvb, 0, d), bk: columns(p.qkvb, d, d), bv: columns(p.qkvb, 2 * d, d),
          Wo: p.attprojw, bo: p.attprojb,
        },
        ln2: { gamma: p.ln2w, beta: p.ln2b },
        mlp: { W1: p.fcw, b1: p.fcb, W2: p.fcprojw, b2: p.fcprojb },
      });
    }
    const outside = (name) => read(L, GPT_OUTSIDE_PARAMETERS.indexOf(name));
    return { wte: outside('wte'), wpe: outside('wpe'), blocks, lnf: { gamma: outside('lnfw'), beta: outside('lnfb') } };
  }

  // ---- files ----

  /**
   * The GPT as bytes (docs/gpt-generation.md, "GPT files"), version 1: "QKVGPT\r\n", then
   * little-endian uint32 version 1, V, layers, heads, dim, context, steps, seed, the vocabulary's
   * UTF-8 byte length; the vocabulary (its characters in token order, UTF-8), zero-padded to 4
   * bytes; the parameters as float32 (wasm/qkv.h's order); a uint32 FNV-1a checksum of everything
   * before it. tools/quantize-gpt.mjs (web/gpt-quantize.js) turns it into version 2 (int8).
   */
  save() {
    const op = 'save';
    this._alive(op);
    const params = this._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
    return encodeGPTFile({ vocab: this.vocab, layers: this.layers, heads: this.heads, dim: this.dim, context: this.context,
      steps: this.steps, seed: this.seed }, this._heap.readBytes(params.ptr, 4 * params.rows));
  }

  /** Frees the GPT's WebAssembly memory, and its fine-tunes' (web/finetune.js: they read its
   * weights). Every later call throws; calling dispose again does nothing. */
  dispose() {
    if (!this._gpt) return;
    for (const ft of [...(this._finetunes ?? [])]) ft.dispose();
    this._lastSteps = this.steps;
    this._free();
  }

  get disposed() {
    return this._gpt === 0;
  }

  // ---- internals ----

  _free() {
    if (this._gpt) this._heap.call('qkv_gpt_destroy', this._gpt);
    this._gpt = 0;
    this._memory.freeAll();
  }

  _alive(op) {
    if (!this._gpt) throw new Error(`${op}: this GPT was disposed; create a new one with createGPT() or loadGPT()`);
  }

  _trainable(op) {
    this._alive(op);
    if (!this._hasText) {
      throw new Error(`${op}: this GPT was loaded from bytes, which hold no training text; it can forward() and ` +
        `generate(); create one with createGPT({ text }) to train`);
    }
    if (this.diverged) {
      throw divergence(`${op}: training diverged at step ${this.steps + 1} (lr ${this.lr}); the parameters are those ` +
        `before it; create a new GPT with a smaller lr`);
    }
  }

  /** text → token ids (no end-of-text token), at most `max` characters of the vocabulary. */
  _encode(op, text, name, max) {
    if (typeof text !== 'string') throw argumentError(TypeError, `${op}: ${name} must be a string, got ${describe(text)}`);
    const chars = Array.from(text);
    if (chars.length > max) {
      throw argumentError(RangeError, `${op}: the ${name} has ${chars.length} characters; at most ${max} fit the ` +
        `context of ${this.context} tokens (with the end-of-text token first${op === 'generate' ? ' and one to generate' : ''})`);
    }
    const unknown = [...new Set(chars.filter((ch) => !this._ids.has(ch)))];
    if (unknown.length) {
      const shown = unknown.slice(0, 10).map((ch) => JSON.stringify(ch)).join(', ');
      throw argumentError(RangeError, `${op}: the ${name} has ${unknown.length === 1 ? 'a character' : `${unknown.length} characters`} ` +
        `not in the vocabulary (${this.vocab.length} tokens built from the training text): ${shown}` +
        `${unknown.length > 10 ? ', …' : ''}`);
    }
    return chars.map((ch) => this._ids.get(ch));
  }

  _tensor(group, layer, which) {
    const heap = this._heap, s = this._tensorSlot;
    this._lab._check('tensor', heap.call('qkv_gpt_tensor', this._gpt, group, layer, which, s, s + 4, s + 8));
    return { ptr: heap.readInt(s), rows: heap.readInt(s + 4), cols: heap.readInt(s + 8) };
  }
}

/** loadGPT(bytes): the GPT save() wrote (version 1 or 2), refusing truncated or foreign bytes (gpt-file.js reads them). */
export function loadGPT(lab, bytes) {
  const op = 'loadGPT';
  const loaded = decodeGPTFile(op, bytes, (config, V) => {
    // the header alone, before the bytes are hashed or anything is allocated: createGPT's limits
    try {
      checkConfig(op, config);
    } catch (error) {
      throw argumentError(RangeError, `${op}: the header describes an impossible GPT: ${error.message}`);
    }
    if (V < 2 || V > GPT_LIMITS.vocab) throw argumentError(RangeError, `${op}: the header's vocabulary of ${V} is outside 2 to ${GPT_LIMITS.vocab}`);
    try {
      checkWork(op, stepWorkOf({ ...config, vocab: V }), `one training step of the GPT the header describes (${config.layers} layers ` +
        `of width ${config.dim}, context ${config.context}, vocabulary ${V})`);
    } catch (error) {
      throw argumentError(RangeError, `${op}: the header describes a GPT larger than createGPT makes: ${error.message.slice(op.length + 2)}`);
    }
  });
  return new GPT(lab, null, loaded);
}

// ---- helpers ----

function checkConfig(op, c) {
  integer(op, 'layers', c.layers, 1, GPT_LIMITS.layers);
  integer(op, 'dim', c.dim, 1, GPT_LIMITS.dim);
  integer(op, 'heads', c.heads, 1, c.dim, `(dim = ${c.dim})`);
  if (c.dim % c.heads) throw argumentError(RangeError, `${op}: heads is ${c.heads}, which does not divide dim = ${c.dim}`);
  integer(op, 'context', c.context, 2, GPT_LIMITS.context, '(the end-of-text token and at least one character)');
  integer(op, 'batch', c.batch, 1, GPT_LIMITS.batch);
  integer(op, 'seed', c.seed, 0, 0xffffffff);
  if (c.steps !== undefined) integer(op, 'steps', c.steps, 1, GPT_LIMITS.steps);
  if (c.lr !== undefined) checkPositiveFloat32(op, 'lr', c.lr);
}

export function integer(op, name, value, min, max, why = '') {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const Err = typeof value === 'number' ? RangeError : TypeError;
    throw argumentError(Err, `${op}: ${name} must be an integer from ${min} to ${max}${why ? ' ' + why : ''}, got ${describe(value)}`);
  }
}

function divergence(message) {
  const error = new Error(message);
  error.name = 'DivergenceError';
  error.code = 'QKV_DIVERGED';
  return error;
}
