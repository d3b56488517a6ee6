// gpt/generation.js: the numbers of the generation section, from a GPT on the main thread (loaded
// from the writer's bytes: qkv.loadGPT) and the WebAssembly API, computed once per change of the
// prompt, the sampling settings or the model. No DOM here.
//
//   the sampled text: gpt.generate(prompt, { temperature, topK, topP, seed }) (the C sampler,
//     with the KV cache);
//   for each generated token i: gpt.forward(prompt + the first i generated characters), whose
//     causal rows equal the cached ones (issue 17's test: cache = no cache, bit for bit), for the
//     new attention row, the K and V tables (the cache, one row more per token) and the logits;
//   the distribution: softmaxRows of the last logits row (temperature 1), then of logits / T
//     (the division as a 1×1 matrix product), the top k kept, cut where the cumulative
//     probability reaches top p (the cumulative sums as a product with a triangle of ones), and
//     renormalised: softmaxRows over the logits kept. The same steps as wasm/gpt.c's sample_next.
import { Matrix } from '../../matrix.js';
import { acquireGPTStore } from './store.js';

export const SHOW_TOP = 10;
const CUMULATIVE_MAX = 256;   // the cumulative sums are computed over at most this many tokens

/** logits (1×V) → { order (ids, most likely first), p1 (temperature 1), pT, kept, renorm } */
export function sampling(qkv, logits, { temperature, topK, topP }) {
  const V = logits.cols;
  const p1 = qkv.softmaxRows(logits).data;
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logits.data[b] - logits.data[a] || a - b);
  if (temperature === 0) {
    return { order, p1, pT: null, keep: 1, cumulative: null, renorm: new Float32Array([1]), greedy: true };
  }
  // logits / T: Vᵀ (V×1) · [1/T] (1×1), back to 1×V
  const scaled = qkv.transpose(qkv.matmul(qkv.transpose(logits), new Matrix(1, 1, new Float32Array([1 / temperature]))));
  const pT = qkv.softmaxRows(scaled).data;
  let keep = topK > 0 && topK < V ? topK : V;
  let cumulative = null;
  if (topP < 1) {
    // the kept tokens' probabilities at T, renormalised over the top k, summed in order
    const m = Math.min(keep, CUMULATIVE_MAX);
    const topLogits = new Matrix(1, keep, Float32Array.from(order.slice(0, keep), (id) => scaled.data[id]));
    const pk = qkv.softmaxRows(topLogits);
    const triangle = new Matrix(m, m);
    for (let i = 0; i < m; i++) for (let j = i; j < m; j++) triangle.data[i * m + j] = 1;
    cumulative = qkv.matmul(new Matrix(1, m, pk.data.slice(0, m)), triangle).data;   // (1×m)·(m×m)
    const cut = cumulative.findIndex((c) => c >= topP);
    if (cut >= 0) keep = cut + 1;
  }
  const kept = new Matrix(1, keep, Float32Array.from(order.slice(0, keep), (id) => scaled.data[id]));
  const renorm = qkv.softmaxRows(kept).data;   // the kept tokens' probabilities, summing to 1
  return { order, p1, pT, keep, cumulative, renorm, greedy: false };
}

/** The generation snapshot for one model and one set of settings. */
export function computeGeneration(qkv, gpt, { prompt, temperature, topK, topP, seed = 0 }) {
  const room = gpt.context - 1 - Array.from(prompt).length;
  if (room < 1) {
    return { error: { key: 'gen.tooLong', vars: { n: Array.from(prompt).length, max: gpt.context - 2 } } };
  }
  let result;
  try {
    // to the end token, or until the context is full (result.stopped says which)
    result = gpt.generate(prompt, { maxTokens: room, temperature, topK: Math.min(topK, gpt.vocab.length), topP, seed });
  } catch (error) {
    return { error: { message: error.message } };
  }
  const chosen = result.steps.map((s) => s.token);
  const promptChars = Array.from(prompt);
  const steps = chosen.map((token, i) => {
    const text = promptChars.join('') + chosen.slice(0, i).map((t) => gpt.vocab[t]).join('');
    const trace = gpt.forward(text);
    const n = trace.tokens.length;
    const logits = new Matrix(1, trace.logits.cols, trace.logits.data.slice((n - 1) * trace.logits.cols, n * trace.logits.cols));
    const dist = sampling(qkv, logits, { temperature, topK, topP });
    const rank = dist.order.indexOf(token);
    return {
      token, char: gpt.vocab[token], rank, kvLength: result.steps[i].kvLength,
      chars: trace.tokens.map((t) => gpt.vocab[t]),
      layers: trace.blocks.map((b) => b.attention.heads.map((hd) => ({ K: hd.K, V: hd.V, weights: hd.weights }))),
      dist: {
        top: dist.order.slice(0, Math.max(SHOW_TOP, Math.min(dist.keep, SHOW_TOP))).map((id, r) => ({
          id, char: gpt.vocab[id], p1: dist.p1[id], pT: dist.pT ? dist.pT[id] : null,
          cumulative: dist.cumulative && r < dist.cumulative.length ? dist.cumulative[r] : null,
          kept: r < dist.keep, renorm: r < dist.keep ? dist.renorm[r] : 0,
        })),
        keep: dist.keep, greedy: dist.greedy, vocab: gpt.vocab.length,
      },
    };
  });
  return { prompt, promptLength: promptChars.length + 1, text: result.text, stopped: result.stopped, context: gpt.context, steps, layers: gpt.layers, heads: gpt.heads, dk: gpt.dim / gpt.heads };
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
  let gpt = null, modelStep = null, cost = null, loading = false;
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
  function compute() {
    if (!gpt) { snap = Object.freeze({ status: 'waiting', settings: settings(), writer }); publish(); return; }
    snap = Object.freeze({ status: 'ready', modelStep, cost, settings: settings(), writer, ...computeGeneration(ctx.qkv, gpt, settings()) });
    publish();
  }
  async function useWriterModel() {
    if (loading) return;
    loading = true;
    store.ensure();
    try {
      const { bytes, step } = await store.modelBytes();
      gpt?.dispose();
      gpt = ctx.qkv.loadGPT(bytes);
      modelStep = step;
      cost = null;
      compute();
    } catch (error) {
      snap = Object.freeze({ status: 'error', message: String(error.message || error), settings: settings(), writer });
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
    measure() {
      if (!gpt) return;
      cost = { ...measureCost(gpt, ctx.state.get('gprompt')), prompt: ctx.state.get('gprompt') };
      compute();
    },
    /** Trains the writer's run (or pauses it) from here: a widget or an iframe has no writer section. */
    toggleTraining() { store.ensure(); if (store.get().running) store.pause(); else store.play(); },
    destroy() { off(); offWriter(); watchers.clear(); gpt?.dispose(); gpt = null; release(); sources.delete(ctx); },
  };
  sources.set(ctx, source);
  return source;
}

/** The source generationSource made for this context (the section's controls call it). */
export const generationOf = (ctx) => sources.get(ctx);
