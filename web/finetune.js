// finetune.js: a GPT fine-tuned on new text, by LoRA or by every parameter (docs/finetune.md).
//
//   const ft = gpt.finetune({ text: FINETUNE_SETS.huanxisha.train });   // LoRA r 4 on Wq, Wv
//   ft.train();                       // the default schedule
//   ft.evaluate();                    // { train, val, baseVal }
//   ft.generate('', { seed: 1 }).text
//
// The C side (wasm/gpt.c) does the work: qkv_gpt_create_lora makes a run that reads the base's
// weights, never writes them, and trains adapters A (in×r) and B (r×k) on Wq, Wk, Wv, Wo, W1,
// W2, y = x·W + (α/r)·(x·A)·B, with no gradient buffer for a frozen weight; 'full' is a GPT of
// the base's shape with the base's weights copied in, trained as createGPT's are. Either way the
// run is a C GPT, so stepping, evaluating and generating are GPT's own methods (this file wraps
// one in a GPT whose text is the fine-tuning text), and the base is never changed.
//
// Choices:
//   - the text must use the base's vocabulary: a character outside it is refused, named (new
//     embedding rows would be untrained and, tied to the output layer, never predicted well
//     from a few hundred steps; LoRA does not touch the table at all);
//   - its lines split as createGPT's do (every 10th line held out for validation);
//   - baseVal is the mean loss on the base's validation text: the base's own for a GPT created
//     with text, else baseText (for the pretrained poet: web/data/poems-val.js), at most
//     BASE_WINDOWS windows of it evenly spaced; null when there is none;
//   - an adapter file (saveAdapter) names its base by a checksum of the base's vocabulary and
//     parameters, and loadAdapter refuses it for any other.
import { argumentError, checkPositiveFloat32, checkWork, describe, readOptions } from './matrix.js';
import { STATUS, GPT_TENSOR_GROUP, GPT_LAYER_ALL, LORA_TARGETS } from './heap.js';
import { GPT_LIMITS } from './gpt-defaults.js';
import { GPT, readLines, stream, integer, fnv1a, stepWorkOf } from './gpt.js';

export { LORA_TARGETS };
// The GPT engine's JavaScript side as qkv-lab.js imports it: gpt.js and fine-tuning. The page's
// GPT sections (and the widget's GPT add-on) import gpt.js alone and do not carry this file.
export * from './gpt.js';

/**
 * A fine-tune of this GPT on new text, by LoRA (the default) or every parameter (docs/finetune.md):
 * gpt.finetune({ text, method: 'lora' | 'full', rank: 4, alpha: 8, targets: ['Wq', 'Wv'], lr,
 * batch: 1, steps: 400, seed: 0, baseText }). This GPT is not changed.
 */
GPT.prototype.finetune = function finetuneThis(options = {}) {
  return finetune(this, options);
};
/** finetune's limits: rank (QKV_LORA_MAX_RANK in wasm/qkv.h). */
export const FINETUNE_LIMITS = Object.freeze({ rank: 64 });
/** finetune's defaults; lr is the method's (LoRA's adapters start at zero and take larger steps). */
export const FINETUNE_DEFAULTS = Object.freeze({
  method: 'lora', rank: 4, alpha: 8, targets: Object.freeze(['Wq', 'Wv']),
  lr: Object.freeze({ lora: 3e-2, full: 1e-3 }), batch: 1, steps: 400, seed: 0,
});
/** At most this many windows of the base's validation text are scored for baseVal. */
export const BASE_WINDOWS = 64;
const ADAMW = Object.freeze({ beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, clip: 1 });
const WARMUP_SHARE = 0.05;
/** The adapter file (docs/finetune.md): "QKVLORA\n", a header of 7 uint32 and alpha, the adapters, a checksum. */
const MAGIC = [0x51, 0x4b, 0x56, 0x4c, 0x4f, 0x52, 0x41, 0x0a];
const FORMAT_VERSION = 1;
const HEADER_WORDS = 8;  // version, base checksum, layers, dim, targets, rank, steps | alpha (float32)
const OPTION_NAMES = ['text', 'method', 'rank', 'alpha', 'targets', 'lr', 'batch', 'steps', 'seed', 'baseText'];

/** gpt.finetune(options): checks every option, then makes the run (see the header). */
export function finetune(base, options = {}) {
  const op = 'finetune';
  base._alive(op);
  const o = readOptions(op, options, OPTION_NAMES,
    "{ text, method: 'lora', rank: 4, alpha: 8, targets: ['Wq', 'Wv'], lr, batch: 1, steps: 400, seed: 0 }");
  const method = o.method ?? FINETUNE_DEFAULTS.method;
  if (method !== 'lora' && method !== 'full') {
    const Err = typeof method === 'string' ? RangeError : TypeError;
    throw argumentError(Err, `${op}: method must be 'lora' or 'full', got ${describe(method)}`);
  }
  const c = {
    method, rank: o.rank ?? FINETUNE_DEFAULTS.rank, alpha: o.alpha ?? FINETUNE_DEFAULTS.alpha,
    targets: o.targets ?? FINETUNE_DEFAULTS.targets, lr: o.lr ?? FINETUNE_DEFAULTS.lr[method],
    batch: o.batch ?? FINETUNE_DEFAULTS.batch, steps: o.steps ?? FINETUNE_DEFAULTS.steps, seed: o.seed ?? FINETUNE_DEFAULTS.seed,
  };
  const mask = checkLora(op, c);
  checkPositiveFloat32(op, 'lr', c.lr);
  integer(op, 'batch', c.batch, 1, GPT_LIMITS.batch);
  integer(op, 'steps', c.steps, 1, GPT_LIMITS.steps);
  integer(op, 'seed', c.seed, 0, 0xffffffff);
  if (o.text === undefined) {
    throw argumentError(TypeError, `${op}: text is required (one document per line, in the base's vocabulary); ` +
      'the fine-tuning sets are FINETUNE_SETS in web/data/poems-finetune.js');
  }
  const lines = readLines(op, o.text);
  const unknown = new Set();
  for (const line of lines) for (const ch of line) if (!base._ids.has(ch)) unknown.add(ch);
  if (unknown.size) throw outsideVocabulary(op, 'text', base, [...unknown]);
  const T = base.context;
  const train = wholeDocuments(lines.filter((_, i) => i % 10 !== 9), base._ids, T);
  const val = wholeDocuments(lines.filter((_, i) => i % 10 === 9), base._ids, T);
  for (const [name, s] of [['training', train], ['validation (every 10th line)', val]]) {
    if (s.starts.length === 0) {
      throw argumentError(RangeError, `${op}: the text is too short: its ${name} part gives ${s.tokens.length} tokens, ` +
        `fewer than one window of the base's context ${T} needs (${T + 1}); give more lines`);
    }
  }
  let reference = null;
  if (o.baseText !== undefined) {
    const refLines = readLines(op, o.baseText);  // validation text already: every line
    const bad = new Set();
    for (const line of refLines) for (const ch of line) if (!base._ids.has(ch)) bad.add(ch);
    if (bad.size) throw outsideVocabulary(op, 'baseText', base, [...bad]);
    reference = wholeDocuments(refLines, base._ids, T);
    if (reference.starts.length === 0) {
      throw argumentError(RangeError, `${op}: baseText gives no window of ${T + 1} tokens`);
    }
  } else if (base._hasText) {
    reference = { tokens: base._valTokens, starts: base._valStarts };
  }
  if (reference && reference.starts.length > BASE_WINDOWS) {
    const all = reference.starts;
    reference = { tokens: reference.tokens, starts: Array.from({ length: BASE_WINDOWS }, (_, i) => all[Math.floor(i * all.length / BASE_WINDOWS)]) };
  }
  const config = { ...base._config, batch: c.batch, lr: c.lr, steps: c.steps, seed: c.seed };
  checkWork(op, fineTuneWork(config, c.method, adapterFloats(base, mask, c.rank)), `one ${c.method} fine-tuning step ` +
    `(batch ${c.batch} × context ${T}, a base of ${base.layers} layers of width ${base.dim} and ${base.vocab.length} tokens)`);
  return new FineTune(base, c, mask, config, { train, val, valLines: lines.filter((_, i) => i % 10 === 9), reference });
}

/** qkv.loadAdapter(base, bytes): the LoRA run saveAdapter() wrote, on the base it was trained on. */
export function loadAdapter(lab, base, bytes) {
  const op = 'loadAdapter';
  if (!(base instanceof GPT)) throw argumentError(TypeError, `${op}: base must be a GPT (createGPT, loadGPT), got ${describe(base)}`);
  base._alive(op);
  if (!(bytes instanceof Uint8Array)) {
    throw argumentError(TypeError, `${op}: bytes must be a Uint8Array (what ft.saveAdapter() returns), got ${describe(bytes)}`);
  }
  const head = MAGIC.length + 4 * HEADER_WORDS;
  if (bytes.length < head + 4 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw argumentError(RangeError, `${op}: these ${bytes.length} bytes are not a qkv-lab adapter file (it starts with "QKVLORA\\n")`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (i) => view.getUint32(MAGIC.length + 4 * i, true);
  const [version, checksum, layers, dim, mask, rank, steps] = Array.from({ length: 7 }, (_, i) => word(i));
  const alpha = view.getFloat32(MAGIC.length + 4 * 7, true);
  if (version !== FORMAT_VERSION) throw argumentError(RangeError, `${op}: adapter format version ${version}; this qkv-lab reads version ${FORMAT_VERSION}`);
  if (fnv1a(bytes.subarray(0, bytes.length - 4)) !== view.getUint32(bytes.length - 4, true)) {
    throw argumentError(RangeError, `${op}: the checksum does not match: the bytes were changed or cut`);
  }
  const mine = baseChecksum(base);
  if (checksum !== mine || layers !== base.layers || dim !== base.dim) {
    throw argumentError(RangeError, `${op}: this adapter was trained on another base (checksum ${checksum}, ${layers} layers of ` +
      `width ${dim}), not on this GPT (checksum ${mine}, ${base.layers} layers of width ${base.dim})`);
  }
  const targets = LORA_TARGETS.filter((_, t) => mask >> t & 1);
  const c = { method: 'lora', rank, alpha, targets, lr: FINETUNE_DEFAULTS.lr.lora, batch: 1, steps: 1, seed: 0 };
  let bits;
  try {
    bits = checkLora(op, c);
  } catch (error) {
    throw argumentError(RangeError, `${op}: the header describes impossible adapters: ${error.message}`);
  }
  if (bits !== mask) throw argumentError(RangeError, `${op}: the header's targets ${mask} name no known matrices`);
  const count = adapterFloats(base, mask, rank);
  if (bytes.length !== head + 4 * count + 4) {
    throw argumentError(RangeError, `${op}: the file has ${bytes.length} bytes; its header describes ${head + 4 * count + 4}`);
  }
  const floats = new Float32Array(bytes.slice(head, head + 4 * count).buffer);
  for (let i = 0; i < count; i++) {
    if (!Number.isFinite(floats[i])) throw argumentError(RangeError, `${op}: adapter value ${i} is ${floats[i]}; saved adapters are finite`);
  }
  const ft = new FineTune(base, c, mask, { ...base._config, batch: 1, lr: c.lr, steps: 1, seed: 0 }, null);
  const all = ft._run._tensor(GPT_TENSOR_GROUP.adapters, GPT_LAYER_ALL, 0);
  ft._run._heap.writeBytes(all.ptr, new Uint8Array(floats.buffer));
  ft._loadedSteps = steps;
  return ft;
}

/**
 * One step's work: full as createGPT's step; LoRA the forward, the backward without the frozen
 * weights' gradients (about one forward's products instead of two) and the adapters' AdamW.
 */
function fineTuneWork(config, method, adapters) {
  const full = stepWorkOf(config);
  if (method === 'full') return full;
  return { multiplyAdds: Math.ceil(2 * full.multiplyAdds / 3), exps: full.exps, adam: adapters };
}

/**
 * The token stream of `lines` (as createGPT's) with windows cut where a document starts: at the
 * end-of-text token before it, so every window begins a poem at position 0, where generate()
 * begins one (and where tools/pretrain.c cut the pretrained poet's windows). createGPT's stream
 * also starts windows every T/2 inside a document; here such a start is kept only in a document
 * longer than one window, whose later part would otherwise never be trained.
 */
function wholeDocuments(lines, ids, T) {
  const { tokens, starts } = stream(lines, ids, T);
  let documentStart = 0;
  return {
    tokens,
    starts: starts.filter((s) => {
      if (tokens[s] === 0) { documentStart = s; return true; }
      let end = documentStart + 1;
      while (tokens[end] !== 0) end++;
      return end - documentStart > T;
    }),
  };
}

/** The rank, alpha and targets checked → the targets' bit mask (1 << index in LORA_TARGETS). */
function checkLora(op, c) {
  integer(op, 'rank', c.rank, 1, FINETUNE_LIMITS.rank);
  checkPositiveFloat32(op, 'alpha', c.alpha);
  if (!Array.isArray(c.targets) || c.targets.length === 0) {
    throw argumentError(TypeError, `${op}: targets must be a non-empty array of ${LORA_TARGETS.map((t) => `'${t}'`).join(', ')}, got ${describe(c.targets)}`);
  }
  let mask = 0;
  for (const t of c.targets) {
    const i = LORA_TARGETS.indexOf(t);
    if (i < 0) {
      const Err = typeof t === 'string' ? RangeError : TypeError;
      throw argumentError(Err, `${op}: unknown target ${describe(t)}; the targets are ${LORA_TARGETS.join(', ')}`);
    }
    if (mask >> i & 1) throw argumentError(RangeError, `${op}: target '${t}' is named twice`);
    mask |= 1 << i;
  }
  return mask;
}

function outsideVocabulary(op, name, base, chars) {
  const shown = chars.slice(0, 10).map((ch) => JSON.stringify(ch)).join(', ');
  return argumentError(RangeError, `${op}: the ${name} has ${chars.length === 1 ? 'a character' : `${chars.length} characters`} ` +
    `outside the base's vocabulary (${base.vocab.length} tokens); a fine-tune cannot add characters: ${shown}${chars.length > 10 ? ', …' : ''}`);
}

/** Floats of the adapters of mask at rank r on base: per layer, r·(in + k) per target. */
function adapterFloats(base, mask, r) {
  const C = base.dim, h = 4 * C;
  const shapes = [[C, C], [C, C], [C, C], [C, C], [C, h], [h, C]];
  let per = 0;
  shapes.forEach(([i, k], t) => { if (mask >> t & 1) per += r * (i + k); });
  return base.layers * per;
}

/** FNV-1a over the base's vocabulary (UTF-8) then its parameters (float32, little-endian). */
function baseChecksum(base) {
  const p = base._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
  const vocab = new TextEncoder().encode(base.vocab.join(''));
  return fnv1a(base._heap.readBytes(p.ptr, 4 * p.rows), fnv1a(vocab));
}

export class FineTune {
  /** Use gpt.finetune(options) or qkv.loadAdapter(base, bytes). */
  constructor(base, c, mask, config, data) {
    const op = data ? 'finetune' : 'loadAdapter';
    const lab = base._lab, heap = base._heap;
    this.base = base;
    this.method = c.method;
    this.rank = c.method === 'lora' ? c.rank : null;
    this.alpha = c.method === 'lora' ? c.alpha : null;
    this.targets = c.method === 'lora' ? Object.freeze(c.targets.slice()) : null;
    this.lr = c.lr;
    this.batch = c.batch;
    this.seed = c.seed;
    this._mask = mask;
    // the run: a GPT (its methods step, evaluate and generate) over the C run made here
    const run = Object.create(GPT.prototype);
    Object.assign(run, {
      _lab: lab, _heap: heap, _ids: base._ids, vocab: base.vocab, layers: base.layers, heads: base.heads, dim: base.dim,
      context: base.context, seed: c.seed, lr: c.lr, batch: c.batch, defaultSteps: data ? c.steps : 0, diverged: false,
      _hasText: !!data, _config: config, _stepWork: stepWorkOf(config), _gpt: 0,
    });
    if (data) {
      Object.assign(run, {
        _trainWindows: data.train.starts.length, _valWindows: data.val.starts.length,
        _trainTokens: data.train.tokens, _valTokens: data.val.tokens, _valStarts: data.val.starts,
        _valLines: data.valLines,
      });
    }
    this._run = run;
    this._reference = data?.reference ?? null;
    run._memory = heap.allocations(op);
    try {
      const slots = run._memory.bytes(32);
      run._slot = slots; run._loss = slots + 8; run._norm = slots + 16;
      run._tensorSlot = run._memory.bytes(12);
      const status = c.method === 'lora'
        ? heap.call('qkv_gpt_create_lora', slots, base._gpt, c.batch, mask, c.rank, c.alpha, c.seed >>> 0)
        : heap.call('qkv_gpt_create', slots, base.vocab.length, base.layers, base.heads, base.dim, base.context, c.batch, c.seed >>> 0);
      if (status === STATUS.ALLOC) throw new RangeError(`${op}: out of WebAssembly memory for a ${c.method} fine-tune of batch ${c.batch}`);
      lab._check(op, status);
      run._gpt = heap.readInt(slots);
      run.parameterCount = base.parameterCount;
      if (c.method === 'full') {  // the base's weights, copied
        const from = base._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
        const to = run._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
        heap.writeBytes(to.ptr, heap.readBytes(from.ptr, 4 * from.rows));
      }
      const warmup = Math.round(WARMUP_SHARE * c.steps);
      lab._check(op, heap.call('qkv_gpt_set_optimizer', run._gpt, c.lr, ADAMW.beta1, ADAMW.beta2, ADAMW.eps,
        ADAMW.weightDecay, ADAMW.clip, warmup, c.steps));
      if (data) {
        const all = [data.train.tokens, data.train.starts, data.val.tokens, data.val.starts];
        const ref = data.reference ? [data.reference.tokens, data.reference.starts] : [];
        heap.frame([...all, ...ref].reduce((s, a) => s + a.length, 0), (frame) => {
          const put = (a) => { const p = frame.bytes(4 * a.length); heap.writeInts(p, a); return p; };
          const p = all.map(put);
          lab._check(op, heap.call('qkv_gpt_set_data', run._gpt, p[0], all[0].length, p[1], all[1].length, p[2], all[2].length, p[3], all[3].length));
          if (ref.length) lab._check(op, heap.call('qkv_gpt_set_reference', run._gpt, put(ref[0]), ref[0].length, put(ref[1]), ref[1].length));
        });
      }
    } catch (error) {
      if (run._gpt) heap.call('qkv_gpt_destroy', run._gpt);
      run._gpt = 0;
      run._memory.freeAll();
      throw error;
    }
    /** Floats a step trains: the adapters (LoRA) or every parameter (full). */
    this.trainableCount = heap.call('qkv_gpt_trainable_count', run._gpt);
    /** Bytes of the adapters as saveAdapter() writes them (LoRA), or of the parameters (full). */
    this.adapterBytes = c.method === 'lora' ? MAGIC.length + 4 * HEADER_WORDS + 4 * this.trainableCount + 4 : 4 * this.trainableCount;
    this._merged = false;
    base._finetunes = base._finetunes ?? new Set();
    base._finetunes.add(this);
  }

  /** Steps taken (those of the file too, for loaded adapters). */
  get steps() { return (this._loadedSteps ?? 0) + (this._run._gpt ? this._run.steps : this._lastSteps ?? 0); }
  /** Length of the default schedule. */
  get defaultSteps() { return this._run.defaultSteps; }
  get diverged() { return this._run.diverged; }
  get disposed() { return this._run._gpt === 0; }
  /** Whether the adapters are folded into the weights (merge()). */
  get merged() { return this._merged; }

  /**
   * Bytes this run allocated in WebAssembly memory beyond its base: for LoRA the adapters, their
   * gradients and AdamW state, the activations of a batch, the token streams (and, while merged,
   * a copy of the weights); for full every parameter's too.
   */
  get memoryBytes() {
    this._alive('memoryBytes');
    const heap = this._run._heap;
    return heap.frame(2, (frame) => {
      const p = frame.bytes(8);
      this._run._lab._check('memoryBytes', heap.call('qkv_gpt_memory_bytes', this._run._gpt, p));
      return heap.readDouble(p);
    });
  }

  /** One AdamW step of the trained floats on `batch` windows of the text → { step, loss }. */
  step() {
    this._trainable('step');
    const r = this._run.step();
    return { step: this.steps, loss: r.loss };
  }

  /** The rest of the default schedule, or `steps` more → their losses. */
  train(steps) {
    this._trainable('train');
    return this._run.train(steps);
  }

  /**
   * → { train, val, baseVal }: mean loss per character (nats) on the fine-tuning text's
   * training and validation windows (as GPT.evaluate), and on the base's validation text (null
   * when there is none: see finetune's baseText).
   */
  evaluate() {
    const op = 'evaluate';
    this._alive(op);
    if (!this._run._hasText) throw new Error(`${op}: these adapters were loaded from a file, which holds no fine-tuning text to evaluate on`);
    const { train, val } = this._run.evaluate();
    let baseVal = null;
    if (this._reference) {
      const run = this._run, heap = run._heap, count = this._reference.starts.length;
      let sum = 0;
      for (let first = 0; first < count; first += this.batch) {
        const k = Math.min(this.batch, count - first);
        run._lab._check(op, heap.call('qkv_gpt_evaluate', run._gpt, 2, first, k, run._loss));
        sum += heap.readDouble(run._loss);
      }
      baseVal = sum / (count * this.base.context);
    }
    return { train, val, baseVal };
  }

  /**
   * A smaller evaluation in pieces, for a caller that must answer between them (the page's
   * worker): → { windows, done, advance(n = 1) }. It scores at most `windows` windows of the
   * fine-tuning text's validation part and as many of the base's validation text (baseText),
   * evenly spaced (all of them when there are fewer); advance(n) scores up to n more and returns
   * null until the last, then { val, baseVal } (baseVal null without a base text). With windows
   * at least their counts, the result is evaluate()'s val and baseVal. A step taken before it
   * finishes makes advance throw: the evaluation is of one model.
   */
  evaluation({ windows = 16 } = {}) {
    const op = 'evaluation';
    this._trainable(op);
    integer(op, 'windows', windows, 1, Number.MAX_SAFE_INTEGER);
    const run = this._run, heap = run._heap;
    const spaced = (count) => Array.from({ length: Math.min(count, windows) }, (_, i) => Math.floor(i * count / Math.min(count, windows)));
    const jobs = [...spaced(run._valWindows).map((w) => [1, w]), ...(this._reference ? spaced(this._reference.starts.length).map((w) => [2, w]) : [])];
    const counts = [0, 0, 0], sums = [0, 0, 0];
    for (const [split] of jobs) counts[split]++;
    const steps = this.steps, ft = this;
    let next = 0, result = null;
    return {
      windows: jobs.length,
      get done() { return next; },
      advance(n = 1) {
        if (result) return result;
        ft._trainable(op);
        if (ft.steps !== steps) throw new Error(`${op}: the fine-tune took a step (${steps} → ${ft.steps}) before this evaluation finished; start a new one`);
        integer(op, 'n', n, 1, Number.MAX_SAFE_INTEGER);
        for (let left = n; left > 0 && next < jobs.length; left--, next++) {
          const [split, first] = jobs[next];
          run._lab._check(op, heap.call('qkv_gpt_evaluate', run._gpt, split, first, 1, run._loss));
          sums[split] += heap.readDouble(run._loss);
        }
        if (next < jobs.length) return null;
        const T = ft.base.context;
        result = { val: sums[1] / (counts[1] * T), baseVal: counts[2] ? sums[2] / (counts[2] * T) : null };
        return result;
      },
    };
  }

  /** Text after prompt, as GPT.generate (same options, same result), from the fine-tuned model. */
  generate(prompt = '', options = {}) {
    this._alive('generate');
    return this._run.generate(prompt, options);
  }

  /**
   * Each poem scored once from its start by the fine-tuned model, as GPT.evaluatePoems →
   * { loss, poems, targets, cut }; by default the fine-tuning text's held-out lines.
   */
  evaluatePoems(poems) {
    this._alive('evaluatePoems');
    if (poems === undefined && !this._run._hasText) {
      throw new Error('evaluatePoems: these adapters were loaded from a file, which holds no held-out lines; pass the poems to score');
    }
    return this._run.evaluatePoems(poems);
  }

  /** The fine-tuned model on '\n' + text, as GPT.forward → { tokens, logits, blocks }. */
  forward(text) {
    this._alive('forward');
    return this._run.forward(text);
  }

  /** LoRA: folds (α/r)·A·B into a copy of the weights, so forward and generate cost what the base's do. */
  merge() {
    this._lora('merge');
    this._run._lab._check('merge', this._run._heap.call('qkv_gpt_lora_merge', this._run._gpt, 1));
    this._merged = true;
  }

  /** LoRA: back to the base's weights with the adapters beside them (what step() trains). */
  unmerge() {
    this._lora('unmerge');
    this._run._lab._check('unmerge', this._run._heap.call('qkv_gpt_lora_merge', this._run._gpt, 0));
    this._merged = false;
  }

  /**
   * The adapters as bytes (docs/finetune.md): "QKVLORA\n", then little-endian uint32 version 1,
   * the base's checksum, layers, dim, the targets' bit mask, rank, steps, then float32 alpha;
   * the adapters as float32 (layer by layer, target by target, A then B); a uint32 FNV-1a of
   * everything before it.
   */
  saveAdapter() {
    this._lora('saveAdapter');
    const run = this._run, heap = run._heap;
    const all = run._tensor(GPT_TENSOR_GROUP.adapters, GPT_LAYER_ALL, 0);
    const head = MAGIC.length + 4 * HEADER_WORDS;
    const bytes = new Uint8Array(head + 4 * all.rows + 4);
    const view = new DataView(bytes.buffer);
    bytes.set(MAGIC, 0);
    [FORMAT_VERSION, baseChecksum(this.base), this.base.layers, this.base.dim, this._mask, this.rank, this.steps]
      .forEach((v, i) => view.setUint32(MAGIC.length + 4 * i, v, true));
    view.setFloat32(MAGIC.length + 4 * 7, this.alpha, true);
    bytes.set(heap.readBytes(all.ptr, 4 * all.rows), head);
    view.setUint32(bytes.length - 4, fnv1a(bytes.subarray(0, bytes.length - 4)), true);
    return bytes;
  }

  /**
   * LoRA: every adapter as Matrix copies, { Wq: [{ A, B }, … one per layer], … } for the targets.
   * grads: their gradients from the last step instead.
   */
  adapters({ grads = false } = {}) {
    this._lora('adapters');
    const run = this._run, out = {};
    for (const name of this.targets) {
      const t = LORA_TARGETS.indexOf(name);
      out[name] = Array.from({ length: this.base.layers }, (_, l) => {
        const read = (which) => {
          const m = run._tensor(grads ? GPT_TENSOR_GROUP.dadapters : GPT_TENSOR_GROUP.adapters, l, which);
          return run._heap.readMatrix(m.ptr, m.rows, m.cols);
        };
        return { A: read(2 * t), B: read(2 * t + 1) };
      });
    }
    return out;
  }

  /**
   * The loss of one document (as GPT.gradients) and the gradients of what this run trains:
   * { loss, grads } (LoRA: adapters()' form; full: GPT.parameters()' form). Nothing is updated.
   */
  gradients(text) {
    this._alive('gradients');
    if (this._merged) throw new Error('gradients: the adapters are merged; call unmerge() first');
    if (this.method === 'full') return this._run.gradients(text);
    const run = this._run;
    // GPT.gradients reads the frozen parameters' gradients, which a LoRA run has none of
    const op = 'gradients';
    const ids = run._encode(op, text, 'text', run.context - 1);
    const inputs = [0, ...ids], targets = [...ids, 0], n = inputs.length;
    const heap = run._heap;
    const loss = heap.frame(2 * n, (frame) => {
      const pi = frame.bytes(4 * n), pt = frame.bytes(4 * n);
      heap.writeInts(pi, inputs);
      heap.writeInts(pt, targets);
      run._lab._check(op, heap.call('qkv_gpt_loss_and_grad', run._gpt, pi, pt, 1, n, run._loss));
      return heap.readDouble(run._loss);
    });
    return { loss, grads: this.adapters({ grads: true }) };
  }

  /**
   * Full fine-tuning: what moved. → { moved, total, share }: how many of the run's parameters
   * differ from the base's by more than `threshold` (an absolute amount, ≥ 0), of how many, and
   * the share. A LoRA run moves none of its base's (its adapters are beside them: adapters()).
   */
  movedShare(threshold = 1e-3) {
    const op = 'movedShare';
    if (typeof threshold !== 'number') throw argumentError(TypeError, `${op}: threshold must be a number, got ${describe(threshold)}`);
    if (!Number.isFinite(threshold) || threshold < 0) throw argumentError(RangeError, `${op}: threshold must be a finite number ≥ 0, got ${describe(threshold)}`);
    this._alive(op);
    if (this.method !== 'full') throw new Error(`${op}: a LoRA fine-tune moves none of its base's parameters (the adapters sit beside them); read adapters() instead`);
    const run = this._run, heap = run._heap;
    const read = (gpt) => {
      const p = gpt._tensor(GPT_TENSOR_GROUP.params, GPT_LAYER_ALL, 0);
      return new Float32Array(heap.readBytes(p.ptr, 4 * p.rows).buffer);
    };
    const before = read(this.base), after = read(run);
    let moved = 0;
    for (let i = 0; i < after.length; i++) if (Math.abs(after[i] - before[i]) > threshold) moved++;
    return { moved, total: after.length, share: moved / after.length };
  }

  /** Full fine-tuning: the run's parameters as Matrix copies, in GPT.parameters()' form (the base's are base.parameters()). */
  parameters() {
    this._alive('parameters');
    if (this.method !== 'full') throw new Error('parameters: a LoRA fine-tune has the base\'s parameters (base.parameters()) and its adapters (adapters())');
    return this._run.parameters();
  }

  /** Frees the run's WebAssembly memory (never the base's). Calling it again does nothing. */
  dispose() {
    const run = this._run;
    if (!run._gpt) return;
    this._lastSteps = run.steps;
    run._heap.call('qkv_gpt_destroy', run._gpt);
    run._gpt = 0;
    run._memory.freeAll();
    this.base._finetunes?.delete(this);
  }

  _alive(op) {
    if (!this._run._gpt) throw new Error(`${op}: this fine-tune was disposed (or its base was); make a new one with gpt.finetune()`);
  }

  _trainable(op) {
    this._alive(op);
    if (!this._run._hasText) throw new Error(`${op}: these adapters were loaded from a file, which holds no fine-tuning text; they can generate(), forward() and merge()`);
    if (this._merged) throw new Error(`${op}: the adapters are merged into the weights; call unmerge() to train or evaluate the run`);
  }

  _lora(op) {
    this._alive(op);
    if (this.method !== 'lora') throw new Error(`${op}: a full fine-tune has no adapters: every parameter is its own (save it by generating from it, or fine-tune with method: 'lora')`);
  }
}
