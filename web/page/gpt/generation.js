// gpt/generation.js: the numbers of the generation section, from a GPT on the main thread and the
// WebAssembly API. No DOM here. The model (gmodel) is the pretrained poet (qkv.loadPretrained(),
// fetched the first time the section is seen), the writer's run (its bytes: qkv.loadGPT), or a
// LoRA adapter on the poet (a file: loadAdapter; or a fine-tune handed over: store.js useModel).
//
//   the drawn text: gpt.generate(prompt, { temperature, topK, topP, seed }) (the C sampler, with
//     the KV cache), drawn when the model or the prompt changes, or when the reader asks for
//     another draw (drawText). A change of temperature, top-k or top-p keeps the drawn text and
//     recomputes what those settings do to each step's distribution (traceText), so the reader
//     sees one fixed distribution change under the settings; the text says which settings drew it;
//   for each generated token i: gpt.forward(prompt + the first i generated characters), whose
//     causal rows equal the cached ones (cache = no cache, bit for bit: tests/gpt.test.js), for
//     the new attention row, the K and V tables (the cache, one row more per token) and the logits;
//   the distribution: softmaxRows of the last logits row (temperature 1) and of logits / T (the
//     division as a 1×1 matrix product) for the first two columns; then wasm/gpt.c's sample_next
//     step by step, in double precision as it does: the weights exp((z − max) / T) of the top k
//     (0: every token) by rank, each as a share of their sum (p among the top k), their running
//     sum, cut at the first rank whose running sum reaches top p, and the kept weights as shares
//     of their own sum (the renormalised column). Every column the arithmetic uses is shown, and
//     over every token of the vocabulary (tests/gpt-generation.test.js draws with the C sampler
//     and the page's weights side by side).
//   a form (gform) or an acrostic (gacro): gpt.generate's { form, acrostic } (the mask is applied
//     in C); each step says what the mask removed and the model's top choice before it
//     (step.mask), and the distribution shown is the masked one: the disallowed tokens' logits
//     pushed out of reach before the same arithmetic (their weights are exactly 0);
//   the poem written, read by web/poetry/metrics.js (poem-reading.js): form, rhyme, tones, novelty.
import { Matrix } from '../../matrix.js';
import { isHanCharacter, POEM_FORMS } from '../../poem-forms.js';
import { acquireGPTStore, handedModel, onHandedModel } from './store.js';
import { readPoem, shippedTraining, searchTraining } from './poem-reading.js';
import { loadPoetText } from './poet-text.js';

export const SHOW_TOP = 10;

/**
 * logits (1×V) → { order (ids, most likely first; ties to the lower id), p1 (temperature 1), pT,
 * topK (the k applied), inTopK (p among the top k, by rank), cumulative (their running sum, by
 * rank), keep, weights and weightSum (the kept ones' exp((z − max) / T), by rank, as sample_next
 * draws from them), renorm (the kept ones' shares, by rank), greedy }
 */
export function sampling(qkv, logits, { temperature, topK, topP }, allowed = logits.cols) {
  const V = logits.cols;
  const z = logits.data;
  const p1 = qkv.softmaxRows(logits).data;
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => z[b] - z[a] || a - b);
  if (temperature === 0) {
    return { order, p1, pT: null, topK: 1, inTopK: null, cumulative: null, keep: 1, weights: [1], weightSum: 1,
      renorm: new Float64Array([1]), greedy: true };
  }
  // logits / T: Vᵀ (V×1) · [1/T] (1×1), back to 1×V
  const scaled = qkv.transpose(qkv.matmul(qkv.transpose(logits), new Matrix(1, 1, new Float32Array([1 / temperature]))));
  const pT = qkv.softmaxRows(scaled).data;
  // sample_next: temperature and top_p arrive as float32; the weights are doubles
  const T = Math.fround(temperature), P = Math.fround(topP);
  const max = z[order[0]];
  // a mask leaves `allowed` tokens: top-k counts among them, as the C sampler does
  const k = Math.min(topK > 0 && topK < V ? topK : V, allowed);
  const w = new Float64Array(k);
  let sum = 0;
  for (let r = 0; r < k; r++) { w[r] = Math.exp((z[order[r]] - max) / T); sum += w[r]; }
  const inTopK = w.map((x) => x / sum);
  const cumulative = new Float64Array(k);
  let keep = k, running = 0;
  for (let r = 0; r < k; r++) {
    running += w[r];
    cumulative[r] = running / sum;
    if (P < 1 && keep === k && running >= P * sum) keep = r + 1;
  }
  const weights = w.subarray(0, keep);
  let weightSum = 0;
  for (const x of weights) weightSum += x;
  const renorm = weights.map((x) => x / weightSum);
  return { order, p1, pT, topK: k, inTopK, cumulative: P < 1 ? cumulative : null, keep, weights, weightSum, renorm, greedy: false };
}

/** Far below any logit: a token the form does not allow gets weight exp(−1e30) = 0 and p = 0. */
const MASKED_LOGIT = -1e30;

/** The shape of a model: a GPT's own, or a fine-tune's base's (it has the base's vocabulary and context). */
export const shapeOf = (gpt) => gpt.base ?? gpt;

/** The tokens a form allows where it requires `required` (step.mask.required): a Set of ids. */
function allowedIds(vocab, required, hanIds) {
  if (required === 'character') return hanIds;
  const id = vocab.indexOf(required);
  return new Set(id < 0 ? [] : [id]);
}

/**
 * The acrostic's problems the page names itself, in the reader's language, before the engine is
 * asked: → { key, vars } or null. (gpt.generate refuses the same, in English: docs/gpt-generation.md.)
 */
export function acrosticProblem(vocab, form, acrostic) {
  if (!acrostic) return null;
  const chars = Array.from(acrostic);
  if (form === 'free') return { key: 'gen.acrosticNoForm', vars: {} };
  const notHan = chars.filter((ch) => !isHanCharacter(ch));
  if (notHan.length) return { key: 'gen.acrosticNotHan', vars: { chars: notHan.join(' ') } };
  const known = new Set(vocab);
  const unknown = chars.filter((ch) => !known.has(ch));
  if (unknown.length) return { key: 'gen.acrosticUnknown', vars: { chars: unknown.join(' '), vocab: vocab.length } };
  const lines = POEM_FORMS[form].lines;
  if (chars.length !== lines) return { key: 'gen.acrosticLength', vars: { n: chars.length, lines, form } };
  return null;
}

/**
 * A prompt that cannot start a poem of `form` (with `acrostic`), named in the reader's language:
 * → { key, vars } or null. The form puts a Han character at each of a line's `characters`
 * places, then '，' (odd lines) or '。' (even lines); an acrostic puts its characters first.
 */
export function promptProblem(prompt, form, acrostic = '') {
  if (form === 'free') return null;
  const { lines, characters } = POEM_FORMS[form];
  const chars = Array.from(prompt);
  const heads = Array.from(acrostic);
  const max = lines * (characters + 1);
  if (chars.length > max) return { key: 'gen.promptFormLong', vars: { n: chars.length, form, max } };
  for (let k = 0; k < chars.length; k++) {
    const line = Math.floor(k / (characters + 1)), at = k % (characters + 1), ch = chars[k];
    const vars = { n: k + 1, ch, form };
    if (at === characters) {
      const mark = line % 2 === 0 ? '，' : '。';
      if (ch !== mark) return { key: 'gen.promptFormMark', vars: { ...vars, mark } };
    } else if (at === 0 && heads.length && ch !== heads[line]) {
      return { key: 'gen.promptFormAcrostic', vars: { ...vars, want: heads[line] } };
    } else if (!isHanCharacter(ch)) return { key: 'gen.promptFormChar', vars };
  }
  return null;
}

/** A new text from the model: the prompt's continuation drawn with these settings and seed. */
export function drawText(gpt, { prompt, temperature, topK, topP, form = 'free', acrostic = '', seed = 0 }) {
  const shape = shapeOf(gpt);
  const room = shape.context - 1 - Array.from(prompt).length;
  const base = { prompt, form, acrostic };
  if (room < 1) {
    return { ...base, error: { key: 'gen.tooLong', vars: { n: Array.from(prompt).length, max: shape.context - 2 } } };
  }
  const problem = acrosticProblem(shape.vocab, form, acrostic) ?? promptProblem(prompt, form, acrostic);
  if (problem) return { ...base, error: problem };
  const locked = form === 'free' ? {} : { form, ...(acrostic ? { acrostic } : {}) };
  try {
    // to the end token, or until the context is full (result.stopped says which); a form's own
    // length is the engine's default
    const result = gpt.generate(prompt, { ...(form === 'free' ? { maxTokens: room } : {}), ...locked,
      temperature, topK: Math.min(topK, shape.vocab.length), topP, seed });
    return { ...base, tokens: result.steps.map((st) => st.token), kvLengths: result.steps.map((st) => st.kvLength), text: result.text,
      masks: result.steps.map((st) => st.mask ?? null), stopped: result.stopped, drawnWith: Object.freeze({ temperature, topK, topP, seed }) };
  } catch (error) {
    return { ...base, error: { message: error.message } };
  }
}

/**
 * Every step of a drawn text, with what these sampling settings (and its form) do to its
 * distribution. A step's trace (chars, layers, dist, rank, keptNow) is computed when first read:
 * a poem of the poet's is 25 to 65 forward passes, and a reader looks at a few of them. The
 * forward passes are kept with the drawn text (its last logits row, the K, V and weights), so a
 * change of temperature, top-k or top-p recomputes the arithmetic only.
 */
export function traceText(qkv, gpt, drawn, { temperature, topK, topP }) {
  if (drawn.error) return { error: drawn.error };
  const shape = shapeOf(gpt);
  const { prompt, tokens } = drawn;
  const promptChars = Array.from(prompt);
  const traces = drawn.traces ?? (drawn.traces = []);
  let hanIds = null;
  const allowedOf = (m) => {
    hanIds ??= new Set(shape.vocab.flatMap((ch, id) => (isHanCharacter(ch) ? [id] : [])));
    return allowedIds(shape.vocab, m.required, hanIds);
  };
  const traceOf = (i) => {
    if (traces[i]) return traces[i];
    const text = promptChars.join('') + tokens.slice(0, i).map((t) => shape.vocab[t]).join('');
    const trace = gpt.forward(text);
    const n = trace.tokens.length;
    const V = trace.logits.cols;
    traces[i] = {
      chars: trace.tokens.map((t) => shape.vocab[t]),
      layers: trace.blocks.map((b) => b.attention.heads.map((hd) => ({ K: hd.K, V: hd.V, weights: hd.weights }))),
      logits: trace.logits.data.slice((n - 1) * V, n * V),
    };
    return traces[i];
  };
  const steps = tokens.map((token, i) => {
    const m = drawn.masks[i];
    let detail = null;
    const more = () => {
      if (detail) return detail;
      const logits = new Matrix(1, shape.vocab.length, traceOf(i).logits.slice());
      let allowed = logits.cols;
      if (m) {
        const ids = allowedOf(m);
        for (let t = 0; t < logits.cols; t++) if (!ids.has(t)) logits.data[t] = MASKED_LOGIT;
        allowed = ids.size;
      }
      const dist = sampling(qkv, logits, { temperature, topK, topP }, allowed);
      const rank = dist.order.indexOf(token);
      detail = {
        rank, keptNow: rank < dist.keep,
        dist: {
          // under a mask only the allowed tokens (ranked first: the others' logits are out of reach)
          top: dist.order.slice(0, Math.min(SHOW_TOP, allowed)).map((id, r) => ({
            id, char: shape.vocab[id], p1: dist.p1[id], pT: dist.pT ? dist.pT[id] : null,
            inTopK: dist.inTopK && r < dist.topK ? dist.inTopK[r] : null,
            cumulative: dist.cumulative && r < dist.topK ? dist.cumulative[r] : null,
            kept: r < dist.keep, renorm: r < dist.keep ? dist.renorm[r] : 0,
          })),
          keep: dist.keep, topK: dist.topK, greedy: dist.greedy, vocab: shape.vocab.length, masked: Boolean(m), allowed,
        },
      };
      return detail;
    };
    const lazy = (get) => ({ get, enumerable: true });
    return Object.defineProperties({
      token, char: shape.vocab[token], kvLength: drawn.kvLengths[i],
      mask: m && Object.freeze({ required: m.required, removed: m.removed, wanted: m.wanted, overruled: m.overruled }),
    }, {
      chars: lazy(() => traceOf(i).chars), layers: lazy(() => traceOf(i).layers),
      rank: lazy(() => more().rank), keptNow: lazy(() => more().keptNow), dist: lazy(() => more().dist),
    });
  });
  return { prompt, promptLength: promptChars.length + 1, text: drawn.text, stopped: drawn.stopped, context: shape.context,
    drawnWith: drawn.drawnWith, steps, layers: shape.layers, heads: shape.heads, dk: shape.dim / shape.heads };
}

/** The generation snapshot for one model and one set of settings: a text drawn and traced. */
export function computeGeneration(qkv, gpt, settings) {
  return traceText(qkv, gpt, drawText(gpt, settings), settings);
}

/**
 * The cost of a token with and without the cache, measured here and now: generate() the same
 * tokens both ways, the wall time divided by the tokens. A measurement, so it varies with the
 * machine and what else runs; the page says so. → { tokens (generated in each run), cached,
 * uncached (ms per token) }, or null when the prompt leaves the context no room.
 *
 * Without the cache every step runs the whole text again, so for a model the size of the poet
 * the characters the context has room for are more work than one call may do: generate()
 * refuses them (a RangeError, before any work). Both ways then time the most that one uncached
 * call may generate, halving from the room. The same call with the cache is made first: it
 * checks everything else, so a refusal of the uncached one is its work's.
 */
export function measureCost(gpt, prompt) {
  let room = shapeOf(gpt).context - 1 - Array.from(prompt).length;
  if (room < 1) return null;
  const generate = (cache) => gpt.generate(prompt, { maxTokens: room, temperature: 0, cache }).steps.length;
  generate(true);
  let tokens;
  for (;;) {
    try {
      tokens = generate(false);
      break;
    } catch (error) {
      if (!(error instanceof RangeError) || room === 1) throw error;
      room = Math.floor(room / 2);
    }
  }
  const now = () => performance.now();
  const time = (cache) => {
    const t0 = now();
    let done = 0;
    let runs = 0;
    while (runs < 3 || now() - t0 < 200) { done += generate(cache); runs++; }
    return (now() - t0) / done;
  };
  return { tokens, cached: time(true), uncached: time(false) };
}

const GEN_KEYS = ['gmodel', 'gform', 'gacro', 'gprompt', 'gtemp', 'gtopk', 'gtopp'];
const sources = new WeakMap();

/**
 * The generation section's source (section-shell.js): the model the reader chose (gmodel), each
 * loaded once, when first needed with the section in view, and the snapshot computed from it.
 *   the poet: qkv.loadPretrained(); when it cannot be had (the single-file page carries no model),
 *     the section says why and writes with the writer's run;
 *   the writer: its run's bytes at the moment the reader takes them (useWriterModel);
 *   an adapter: loadAdapterFile(bytes, name) on the poet, or one handed over (store.js useModel);
 *     without one, the poet writes and the section says so (a link carries no weights).
 *   measure() times a token both ways; redraw() draws again with the next seed.
 */
export function generationSource(ctx) {
  const { store, release } = acquireGPTStore(ctx);
  const watchers = new Set();
  let seen = false, destroyed = false;
  const poet = { gpt: null, status: 'idle', error: null };          // status: idle | loading | ready | error
  const writerModel = { gpt: null, step: null, loading: false, status: 'idle', error: null, takeError: null };
  let fileAdapter = null;          // { gpt, name }: read from a file here, ours to dispose
  let handed = handedModel(ctx);   // { gpt, name }: borrowed (store.js useModel), never disposed here
  let adapterError = null, adapterLoading = false;
  let cost = null, costFor = null;
  let snap = null;
  const settings = () => ({
    who: ctx.state.get('gmodel'), form: ctx.state.get('gform'), acrostic: ctx.state.get('gacro'),
    prompt: ctx.state.get('gprompt'), temperature: ctx.state.get('gtemp'), topK: ctx.state.get('gtopk'), topP: ctx.state.get('gtopp'),
  });
  // the writer's run, as generation shows it (its step, whether it trains): it can train from here
  const writerOf = (w) => Object.freeze({ step: w.step, running: w.running, done: w.done, ready: Boolean(w.info) && w.source !== 'file', own: w.source === 'own' });
  let writer = writerOf(store.get());
  const publish = () => { for (const fn of [...watchers]) fn(snap); };
  const offWriter = store.subscribe((w) => {
    const next = writerOf(w);
    // a new snapshot redraws the whole section: the writer's step is news every 25 steps (a sample), its flags always
    const news = Math.floor(next.step / 25) !== Math.floor(writer.step / 25) || next.done !== writer.done;
    if (!news && next.running === writer.running && next.ready === writer.ready) return;
    writer = next;
    snap = Object.freeze({ ...snap, writer });
    publish();
  });

  /**
   * The model that writes now: { kind, gpt, name, step, fallback } for the reader's choice, or
   * { kind, pending } while it loads. fallback: why another model writes ('poet' when the poet
   * could not be had, 'adapter' when there is no adapter).
   */
  function current() {
    const asked = ctx.state.get('gmodel');
    const adapter = handed ?? fileAdapter;
    if (asked === 'adapter' && adapter) return { kind: 'adapter', gpt: adapter.gpt, name: adapter.name };
    const fallback = asked === 'adapter' ? 'adapter' : null;
    if (asked === 'writer' || poet.status === 'error') {
      const why = asked === 'writer' ? fallback : 'poet';
      if (writerModel.gpt) return { kind: 'writer', gpt: writerModel.gpt, step: writerModel.step, fallback: why };
      return { kind: 'writer', pending: writerModel.status === 'error' ? 'error' : 'waiting', fallback: why };
    }
    if (poet.gpt) return { kind: 'poet', gpt: poet.gpt, fallback };
    return { kind: 'poet', pending: 'loading', fallback };
  }

  // the text drawn from this model for this prompt, form and acrostic: kept while the reader
  // changes the sampling settings, drawn again for a new model, prompt, form or acrostic, or when
  // the reader asks (redraw)
  let drawn = null, drawnBy = null, draws = 0, reading = null, readWith = null;
  // the poet's whole training text (gpt/poet-text.js), fetched once the poet has written: until it
  // is there, or where it cannot be had, its poems are checked against the quatrains the page carries
  const poetText = { status: 'idle', training: null, fileBytes: 0 };
  function fetchPoetText() {
    if (poetText.status !== 'idle') return;
    if (!ctx.poetTextUrl) { poetText.status = 'error'; return; }
    poetText.status = 'loading';
    loadPoetText(ctx.poetTextUrl).then(({ text, fileBytes }) => { poetText.training = searchTraining(text); poetText.fileBytes = fileBytes; poetText.status = 'ready'; },
      () => { poetText.status = 'error'; })
      .then(() => { if (!destroyed) compute(); });
  }
  function compute({ redraw = false } = {}) {
    const now = settings();
    const model = current();
    const poetWrites = model.kind !== 'writer';
    const training = poetWrites && poetText.training ? poetText.training : shippedTraining();
    const checked = !poetWrites ? (writer.own ? 'writerOwn' : 'writer')
      : poetText.training ? (model.kind === 'adapter' ? 'adapter' : 'poet') : poetText.status === 'loading' ? 'poetLoading' : 'poetSample';
    const about = Object.freeze({ asked: now.who, kind: model.kind, name: model.name ?? null, fallback: model.fallback ?? null,
      poetStatus: poet.status, poetError: poet.error, adapterError, adapterLoading, adapterName: (handed ?? fileAdapter)?.name ?? null,
      checked });
    const modelStep = model.kind === 'writer' ? model.step ?? null : null;
    if (!model.gpt) {
      snap = Object.freeze({ status: model.pending === 'error' ? 'error' : model.pending, message: writerModel.error, writing: about,
        modelStep, settings: now, writer });
      publish();
      return;
    }
    const stale = !drawn || drawnBy !== model.gpt || drawn.prompt !== now.prompt || drawn.form !== now.form || drawn.acrostic !== now.acrostic;
    if (redraw || stale || drawn.error) {
      drawn = drawText(model.gpt, { ...now, seed: draws });
      drawnBy = model.gpt;
      readWith = null;
    }
    // read again when the text it is checked against changed (the poet's arrived)
    if (readWith !== training) {
      reading = drawn.error ? null : readPoem(drawn.prompt + drawn.text, training, Array.from(drawn.prompt).length);
      readWith = training;
    }
    snap = Object.freeze({ status: 'ready', writing: about, modelStep, cost: costFor === model.gpt ? cost : null, takeError: writerModel.takeError,
      settings: now, writer, draws, reading, training: training.count, trainingFileBytes: training === poetText.training ? poetText.fileBytes : 0,
      ...traceText(ctx.qkv, model.gpt, drawn, now) });
    publish();
    if (poetWrites) fetchPoetText();
  }

  async function loadPoet() {
    if (poet.status !== 'idle') return;
    poet.status = 'loading';
    compute();
    try {
      const gpt = await ctx.qkv.loadPretrained();
      if (destroyed) { gpt.dispose(); return; }
      poet.gpt = gpt;
      poet.status = 'ready';
    } catch (error) {
      if (destroyed) return;
      poet.status = 'error';
      poet.error = String(error.message || error);
      ctx.loadFailed?.(poet.error);
      // the writer's run writes instead: take its model
      useWriterModel();
    }
    compute();
  }

  async function useWriterModel() {
    if (writerModel.loading) return;
    writerModel.loading = true;
    store.ensure();
    try {
      const { bytes, step } = await store.modelBytes();
      if (destroyed) return;
      // load first, then swap: a refused file leaves the model that was there
      const next = ctx.qkv.loadGPT(bytes);
      if (drawnBy === writerModel.gpt) drawnBy = null;
      writerModel.gpt?.dispose();
      writerModel.gpt = next;
      writerModel.step = step;
      writerModel.status = 'ready';
      writerModel.takeError = null;
    } catch (error) {
      if (destroyed) return;
      // the model there still generates: the section shows it, with the message
      if (writerModel.gpt) writerModel.takeError = String(error.message || error);
      else { writerModel.status = 'error'; writerModel.error = String(error.message || error); }
    } finally {
      writerModel.loading = false;
    }
    compute();
  }

  /** Loads what the reader's choice needs (the section is in view). */
  function ensure() {
    const asked = ctx.state.get('gmodel');
    if (asked === 'writer') { if (!writerModel.gpt && !writerModel.loading && writerModel.status !== 'error') useWriterModel(); }
    else if (poet.status === 'idle') loadPoet();
    else if (poet.status === 'error' && !writerModel.gpt && !writerModel.loading) useWriterModel();
    compute();
  }

  const offHanded = onHandedModel(ctx, (model) => {
    handed = model;
    if (model) { ctx.state.set('gmodel', 'adapter'); }
    if (seen) compute();
  });
  const off = ctx.state.onChange((name) => {
    if (!GEN_KEYS.includes(name)) return;
    if (name === 'gmodel' && seen) ensure(); else if (seen) compute();
  });
  snap = Object.freeze({ status: 'waiting', settings: settings(), writer, writing: Object.freeze({ asked: ctx.state.get('gmodel'), poetStatus: 'idle' }) });
  const source = {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    setVisible(visible) { if (visible && !seen) { seen = true; ensure(); } },
    /** Takes the writer's current model and writes with it (today's button). */
    useWriterModel() {
      if (ctx.state.get('gmodel') !== 'writer') ctx.state.set('gmodel', 'writer');
      seen = true;
      return useWriterModel();
    },
    /** An adapter file (ft.saveAdapter()'s bytes) on the poet: loaded, then chosen. */
    async loadAdapterFile(bytes, name) {
      seen = true;
      adapterLoading = true;
      adapterError = null;
      compute();
      try {
        if (poet.status === 'idle') await loadPoet();
        if (!poet.gpt) throw new Error(poet.error || 'the pretrained poet is not loaded');
        const { loadAdapter } = await import('../../finetune.js');
        const ft = loadAdapter(ctx.qkv, poet.gpt, bytes);
        if (destroyed) { ft.dispose(); return; }
        if (fileAdapter) { if (drawnBy === fileAdapter.gpt) drawnBy = null; fileAdapter.gpt.dispose(); }
        fileAdapter = { gpt: ft, name };
        ctx.state.set('gmodel', 'adapter');
      } catch (error) {
        if (destroyed) return;
        adapterError = String(error.message || error);
      } finally {
        adapterLoading = false;
      }
      compute();
    },
    /** Another draw from the same distribution (the next seed), with the current settings. */
    redraw() { if (!drawnBy) return; draws++; compute({ redraw: true }); },
    measure() {
      const model = current();
      if (!model.gpt) return;
      const prompt = ctx.state.get('gprompt');
      try {
        cost = { ...measureCost(model.gpt, prompt), prompt };
      } catch (error) {  // said in the note, not thrown at the page
        cost = { error: String(error.message || error), prompt };
      }
      costFor = model.gpt;
      compute();
    },
    /** Trains the writer's run (or pauses it) from here: a widget or an iframe has no writer section. */
    toggleTraining() { store.ensure(); if (store.get().running) store.pause(); else store.play(); },
    destroy() {
      destroyed = true; off(); offWriter(); offHanded(); watchers.clear();
      // an adapter reads the poet's weights: it goes first
      fileAdapter?.gpt.dispose();
      writerModel.gpt?.dispose();
      poet.gpt?.dispose();
      fileAdapter = writerModel.gpt = poet.gpt = null;
      release(); sources.delete(ctx);
    },
  };
  sources.set(ctx, source);
  return source;
}

/** The source generationSource made for this context (the section's controls call it). */
export const generationOf = (ctx) => sources.get(ctx);
