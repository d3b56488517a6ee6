// gpt/generation.js: the numbers of the generation section, from a GPT on the main thread (loaded
// from the writer's bytes: qkv.loadGPT) and the WebAssembly API. No DOM here.
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
import { Matrix } from '../../matrix.js';
import { acquireGPTStore } from './store.js';

export const SHOW_TOP = 10;

/**
 * logits (1×V) → { order (ids, most likely first; ties to the lower id), p1 (temperature 1), pT,
 * topK (the k applied), inTopK (p among the top k, by rank), cumulative (their running sum, by
 * rank), keep, weights and weightSum (the kept ones' exp((z − max) / T), by rank, as sample_next
 * draws from them), renorm (the kept ones' shares, by rank), greedy }
 */
export function sampling(qkv, logits, { temperature, topK, topP }) {
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
  const k = topK > 0 && topK < V ? topK : V;
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

/** A new text from the model: the prompt's continuation drawn with these settings and seed. */
export function drawText(gpt, { prompt, temperature, topK, topP, seed = 0 }) {
  const room = gpt.context - 1 - Array.from(prompt).length;
  if (room < 1) {
    return { error: { key: 'gen.tooLong', vars: { n: Array.from(prompt).length, max: gpt.context - 2 } } };
  }
  try {
    // to the end token, or until the context is full (result.stopped says which)
    const result = gpt.generate(prompt, { maxTokens: room, temperature, topK: Math.min(topK, gpt.vocab.length), topP, seed });
    return { prompt, tokens: result.steps.map((st) => st.token), kvLengths: result.steps.map((st) => st.kvLength), text: result.text,
      stopped: result.stopped, drawnWith: Object.freeze({ temperature, topK, topP, seed }) };
  } catch (error) {
    return { error: { message: error.message } };
  }
}

/** Every step of a drawn text, with what these sampling settings do to its distribution. */
export function traceText(qkv, gpt, drawn, { temperature, topK, topP }) {
  if (drawn.error) return { error: drawn.error };
  const { prompt, tokens } = drawn;
  const promptChars = Array.from(prompt);
  const steps = tokens.map((token, i) => {
    const text = promptChars.join('') + tokens.slice(0, i).map((t) => gpt.vocab[t]).join('');
    const trace = gpt.forward(text);
    const n = trace.tokens.length;
    const logits = new Matrix(1, trace.logits.cols, trace.logits.data.slice((n - 1) * trace.logits.cols, n * trace.logits.cols));
    const dist = sampling(qkv, logits, { temperature, topK, topP });
    const rank = dist.order.indexOf(token);
    return {
      token, char: gpt.vocab[token], rank, kvLength: drawn.kvLengths[i], keptNow: rank < dist.keep,
      chars: trace.tokens.map((t) => gpt.vocab[t]),
      layers: trace.blocks.map((b) => b.attention.heads.map((hd) => ({ K: hd.K, V: hd.V, weights: hd.weights }))),
      dist: {
        top: dist.order.slice(0, SHOW_TOP).map((id, r) => ({
          id, char: gpt.vocab[id], p1: dist.p1[id], pT: dist.pT ? dist.pT[id] : null,
          inTopK: dist.inTopK && r < dist.topK ? dist.inTopK[r] : null,
          cumulative: dist.cumulative && r < dist.topK ? dist.cumulative[r] : null,
          kept: r < dist.keep, renorm: r < dist.keep ? dist.renorm[r] : 0,
        })),
        keep: dist.keep, topK: dist.topK, greedy: dist.greedy, vocab: gpt.vocab.length,
      },
    };
  });
  return { prompt, promptLength: promptChars.length + 1, text: drawn.text, stopped: drawn.stopped, context: gpt.context,
    drawnWith: drawn.drawnWith, steps, layers: gpt.layers, heads: gpt.heads, dk: gpt.dim / gpt.heads };
}

/** The generation snapshot for one model and one set of settings: a text drawn and traced. */
export function computeGeneration(qkv, gpt, settings) {
  return traceText(qkv, gpt, drawText(gpt, settings), settings);
}

/**
 * The cost of a token with and without the cache, measured here and now: generate() the same
 * tokens both ways, the wall time divided by the tokens. A measurement, so it varies with the
 * machine and what else runs; the page says so.
 */
export function measureCost(gpt, prompt) {
  const room = gpt.context - 1 - Array.from(prompt).length;
  if (room < 1) return null;
  const now = () => performance.now();
  const time = (cache) => {
    const t0 = now();
    let tokens = 0;
    let runs = 0;
    while (runs < 3 || now() - t0 < 200) { tokens += gpt.generate(prompt, { maxTokens: room, temperature: 0, cache }).steps.length; runs++; }
    return (now() - t0) / tokens;
  };
  return { tokens: room, cached: time(true), uncached: time(false) };
}

const GEN_KEYS = ['gprompt', 'gtemp', 'gtopk', 'gtopp'];
const sources = new WeakMap();

/**
 * The generation section's source (section-shell.js): a main-thread GPT loaded from the writer's
 * run (its bytes at the moment the reader takes it), and the snapshot computed from it.
 *   useWriterModel() takes the writer's current model; measure() times a token both ways.
 */
export function generationSource(ctx) {
  const { store, release } = acquireGPTStore(ctx);
  const watchers = new Set();
  let gpt = null, modelStep = null, cost = null, loading = false, destroyed = false;
  let snap = null;
  const settings = () => ({
    prompt: ctx.state.get('gprompt'), temperature: ctx.state.get('gtemp'), topK: ctx.state.get('gtopk'), topP: ctx.state.get('gtopp'),
  });
  // the writer's run, as generation shows it (its step, whether it trains): it can train from here
  const writerOf = (w) => Object.freeze({ step: w.step, running: w.running, done: w.done, ready: Boolean(w.info) && w.source !== 'file' });
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
  snap = Object.freeze({ status: 'waiting', settings: settings(), writer });
  // the text drawn from this model for this prompt: kept while the reader changes the sampling
  // settings, drawn again for a new model or prompt, or when the reader asks (redraw)
  let drawn = null, draws = 0;
  function compute({ redraw = false } = {}) {
    if (!gpt) { snap = Object.freeze({ status: 'waiting', settings: settings(), writer }); publish(); return; }
    const now = settings();
    if (redraw || !drawn || drawn.prompt !== now.prompt || drawn.error) drawn = { ...drawText(gpt, { ...now, seed: draws }), prompt: now.prompt };
    snap = Object.freeze({ status: 'ready', modelStep, cost, settings: now, writer, draws, ...traceText(ctx.qkv, gpt, drawn, now) });
    publish();
  }
  async function useWriterModel() {
    if (loading) return;
    loading = true;
    store.ensure();
    try {
      const { bytes, step } = await store.modelBytes();
      if (destroyed) return;
      // load first, then swap: a refused file leaves the model that was there
      const next = ctx.qkv.loadGPT(bytes);
      gpt?.dispose();
      gpt = next;
      modelStep = step;
      cost = null;
      drawn = null;
      compute();
    } catch (error) {
      if (destroyed) return;
      // the model there still generates: the section shows it, with the message
      if (gpt) snap = Object.freeze({ ...snap, takeError: String(error.message || error) });
      else snap = Object.freeze({ status: 'error', message: String(error.message || error), settings: settings(), writer });
      publish();
    } finally {
      loading = false;
    }
  }
  const off = ctx.state.onChange((name) => { if (GEN_KEYS.includes(name)) compute(); });
  const source = {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    setVisible(visible) { if (visible && !gpt) useWriterModel(); },
    useWriterModel,
    /** Another draw from the same distribution (the next seed), with the current settings. */
    redraw() { if (!gpt) return; draws++; compute({ redraw: true }); },
    measure() {
      if (!gpt) return;
      cost = { ...measureCost(gpt, ctx.state.get('gprompt')), prompt: ctx.state.get('gprompt') };
      compute();
    },
    /** Trains the writer's run (or pauses it) from here: a widget or an iframe has no writer section. */
    toggleTraining() { store.ensure(); if (store.get().running) store.pause(); else store.play(); },
    destroy() { destroyed = true; off(); offWriter(); watchers.clear(); gpt?.dispose(); gpt = null; release(); sources.delete(ctx); },
  };
  sources.set(ctx, source);
  return source;
}

/** The source generationSource made for this context (the section's controls call it). */
export const generationOf = (ctx) => sources.get(ctx);
