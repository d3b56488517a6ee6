// finetune/store.js: the fine-tuning run of one section context (page or widget), as frozen
// snapshots. The run (run.js) lives in a Web Worker (worker.js) or, where the page may not start
// one (a strict Content-Security-Policy) or it fails before it says it started, on the page's own
// thread (local-run.js; snap.thread says which, and why), as the writer's run does (gpt/store.js).
// The base model, the pretrained Tang poet, is loaded on the page's thread the first time the
// section is seen (qkv.loadPretrained(): its weights are fetched then and never before), saved
// as bytes and handed to the run, which loads its own copy. Data flows one way:
// run (WASM) → store → section → DOM.
//
//   const { store, release } = acquireFineTuneStore(ctx);
//   store.subscribe(fn) → off;  store.get();  store.ensure()   // loads the base, starts a run
//   store.process                  // { advance(), finished }: what the shell's ticker plays
//   store.restart()  store.useText(text | null)  store.watch(target, layer)
//   store.compare()  store.setMerged(bool)  store.saveAdapter() → Promise<Uint8Array>
// A snapshot's source is 'preset' or 'own' (the reader's text), and preset the run's preset (null
// for own text): the settings in the URL may have changed since (stale).
// Samples are read (form, rhyme) here, once, with web/poetry/metrics.js (finetune/poems.js).
import { WORKER_SOURCE, workerURL } from './worker-source.js';
import { createLocalFineTuneRun } from './local-run.js';
import { openRunChannel } from '../shell/run-channel.js';
import { load } from '../../qkv-lab.js';
import { FINETUNE_SETS } from '../../data/poems-finetune.js';
import { POEMS_VAL } from '../../data/poems-val.js';
import { FT_RUN_KEYS, finetuneOptions } from './settings.js';
import { readPoem } from './poems.js';

const stores = new WeakMap();
const PUBLISH_MS = 400;   // a snapshot redraws the section; the pretrained poet's steps take 0.1 s or more anyway
const nextFrame = (fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(fn) : setTimeout(fn, 0));
/** The Tang poems forgetting is measured on: the held-out 五绝 and 七绝 (every line the base can spell). */
const BASE_TEXT = `${POEMS_VAL.wujue}\n${POEMS_VAL.qijue}`;

/** The run shared by the sections of one context, with a release: the worker stops with the last one. */
export function acquireFineTuneStore(ctx) {
  let entry = stores.get(ctx);
  if (!entry) { entry = { store: createFineTuneStore(ctx), users: 0 }; stores.set(ctx, entry); }
  entry.users++;
  let released = false;
  return {
    store: entry.store,
    release() {
      if (released) return;
      released = true;
      if (--entry.users === 0) { entry.store.destroy(); stores.delete(ctx); }
    },
  };
}

const EMPTY = Object.freeze({
  status: 'idle', base: null, info: null, step: 0, done: false, losses: [], evals: [], samples: [], change: null,
  compare: null, merged: false, error: null, source: 'preset', preset: null, stale: false, savedStep: null, busy: false,
});

export function createFineTuneStore(ctx) {
  const { state } = ctx;
  const watchers = new Set();
  let s = { ...EMPTY };
  let snap = null;
  let channel = null;
  let ownText = null;            // the reader's text the current run trains on (null: the preset's)
  let runSettings = null;        // the settings (finetuneOptions) of the current run
  let runPreset = null;          // … and its preset (ftset), when it trains on one
  // the runs asked for and not yet answered ('created', or the create refused), in order: { text,
  // settings }, as the writer's store keeps them (gpt/store.js): each answer is its own run's
  const asked = [];
  const latestText = () => (asked.length ? asked[asked.length - 1].text : ownText);
  let inFlight = false;          // a step asked of the run and not yet reported
  let thread = Object.freeze({ where: null, reason: null });
  let watchAsked = { target: null, layer: 0 };
  const waiting = [];            // saveAdapter's resolvers
  let destroyed = false;
  const visibility = new Set();   // the section's ticker: its clock stops off screen

  const settingsNow = () => Object.freeze(Object.fromEntries([...FT_RUN_KEYS, 'ftprompt'].map((k) => [k, state.get(k)])));
  const makeSnap = () => Object.freeze({ ...s, thread, settings: settingsNow(), losses: s.losses.slice(), evals: s.evals.slice(), samples: s.samples.slice() });
  snap = makeSnap();
  let queued = false, lastPublish = -Infinity;
  function publish() {
    if (queued || destroyed) return;
    queued = true;
    setTimeout(() => nextFrame(() => {
      queued = false;
      if (destroyed) return;
      lastPublish = performance.now();
      snap = makeSnap();
      for (const fn of [...watchers]) fn(snap);
    }), Math.max(0, lastPublish + PUBLISH_MS - performance.now()));
  }
  const set = (patch) => { s = { ...s, ...patch }; publish(); };

  // ---- the run's channel: the worker once it said it started, else the page's own thread ----
  // (shell/run-channel.js)
  function open() {
    if (channel) return channel;
    channel = openRunChannel({
      source: WORKER_SOURCE, url: workerURL, createLocal: createLocalFineTuneRun, receive,
      onThread: (where) => { thread = where; publish(); },
      onError: (message) => { inFlight = false; set({ status: 'error', error: { op: 'worker', message } }); },
      stopped: 'the fine-tuning worker stopped',
    });
    return channel;
  }

  function receive(m) {
    if (destroyed) return;
    switch (m.type) {
      case 'based':
        set({ base: { vocab: m.vocab, parameterCount: m.parameterCount, layers: m.layers, dim: m.dim, context: m.context } });
        create(ownText);
        break;
      case 'created':
        if (asked.length) { const run = asked.shift(); ({ text: ownText, settings: runSettings, preset: runPreset } = run); }
        inFlight = false;
        // a setting changed while this run was being built (and no later run asked for has it):
        // the run has not moved, so it is made again with the settings the page now shows
        if (!asked.length && settingsDiffer()) { create(ownText); return; }
        s = { ...EMPTY, base: s.base, status: 'ready', info: m.info, step: m.info.steps, done: m.info.steps >= m.info.defaultSteps,
          source: ownText === null ? 'preset' : 'own', preset: runPreset, compare: null };
        publish();
        break;
      case 'progress':
        inFlight = false;
        set({ step: m.step, done: m.done, losses: m.loss === null ? s.losses : [...s.losses, { step: m.step, loss: m.loss }] });
        break;
      case 'sample':
        set({ samples: [...s.samples, { step: m.step, poems: Object.freeze(m.poems.map((text) => Object.freeze({ text, reading: readPoem(text) }))) }] });
        break;
      case 'eval':
        set({ evals: [...s.evals.filter((e) => e.step !== m.step), { step: m.step, val: m.val, baseVal: m.baseVal }] });
        break;
      case 'change':
        set({ change: Object.freeze({ step: m.step, target: m.target, layer: m.layer, W: m.W, A: m.A, B: m.B, delta: m.delta,
          moved: m.moved ?? (s.change && s.change.moved && s.change.step <= m.step ? s.change.moved : null) }) });
        break;
      case 'compare':
        set({ compare: Object.freeze({ ...m, baseReading: readPoem(m.base.slice(m.prompt.length)), tunedReading: readPoem(m.tuned.slice(m.prompt.length)) }), busy: false });
        break;
      case 'merged':
        set({ merged: m.merged, busy: false });
        // the two models' poems, written again: the note under them says merged or not, and the time
        if (s.compare) store.compare(s.compare.seed, s.compare.prompt);
        break;
      case 'saved':
        for (const fn of waiting.splice(0)) fn(m);
        if (m.bytes) set({ savedStep: m.step });
        break;
      case 'error':
        inFlight = false;
        if (m.op === 'create') {
          asked.shift();
          set({ error: { op: m.op, message: m.message }, status: s.info ? 'ready' : 'error' });
        } else if (m.op === 'step') set({ error: { op: m.op, message: m.message }, done: true });
        else set({ error: { op: m.op, message: m.message }, status: s.info || m.op !== 'base' ? s.status : 'error', busy: false });
        break;
      default:
    }
  }

  /** Whether the current run's settings, or its preset, are not the ones the page shows. */
  const settingsDiffer = () => JSON.stringify(finetuneOptions(state)) !== JSON.stringify(runSettings)
    || (ownText === null && runPreset !== state.get('ftset'));

  function create(text) {
    const c = open();
    const settings = finetuneOptions(state);
    const preset = state.get('ftset');
    asked.push({ text, settings, preset: text === null ? preset : null });
    set({ status: s.info ? s.status : 'starting', error: null });
    c.postMessage({ type: 'create', options: settings, text: text ?? FINETUNE_SETS[preset].train, preset: text === null, baseText: BASE_TEXT });
    if (watchAsked.target) c.postMessage({ type: 'watch', ...watchAsked });
  }

  async function start() {
    const c = open();
    set({ status: 'loading' });
    try {
      const qkv = await load({ gpt: true });
      const poet = await qkv.loadPretrained();
      let bytes;
      try { bytes = poet.save(); } finally { poet.dispose(); }
      if (destroyed) return;
      c.postMessage({ type: 'base', bytes }, [bytes.buffer]);
    } catch (error) {
      const message = String(error?.message ?? error);
      set({ status: 'error', error: { op: 'base', message } });
      ctx.loadFailed?.(message);
    }
  }

  const offState = state.onChange((name) => {
    if (!FT_RUN_KEYS.includes(name)) { if (name === 'ftprompt') publish(); return; }
    if (!s.info) { publish(); return; }
    const changed = settingsDiffer();
    if (changed && s.step === 0) create(name === 'ftset' ? null : latestText());
    else set({ stale: changed });
  });

  const process = {
    advance() {
      if (!channel || inFlight || process.finished) return [];
      inFlight = true;
      channel.postMessage({ type: 'advance' });
      return [];
    },
    get finished() { return !s.info || s.done || s.merged || s.status === 'error'; },
  };

  const store = {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    ensure() { if (!channel && !destroyed) start(); },
    process,
    setVisible(visible) { for (const fn of [...visibility]) fn(visible); },
    onVisible(fn) { visibility.add(fn); return () => visibility.delete(fn); },
    /** A new run with the current settings (and text: the preset's, or the reader's). */
    restart() { if (s.base) create(latestText()); },
    /** The reader's text (null: back to the preset). */
    useText(text) { if (s.base) create(text); },
    /**
     * Whether the latest run asked for is on the reader's text: the run there, or one still being
     * built (the snapshot says 'own' only once it is built).
     */
    asksOwnText: () => latestText() !== null,
    watch(target, layer) {
      watchAsked = { target, layer };
      channel?.postMessage({ type: 'watch', target, layer });
    },
    /** Both models write from `prompt` (default: the URL's ftprompt) with `seed`. */
    compare(seed = 0, prompt = state.get('ftprompt')) {
      if (!channel || !s.info) return;
      set({ busy: true });
      channel.postMessage({ type: 'compare', prompt, seed });
    },
    setMerged(merged) {
      if (!channel || !s.info) return;
      set({ busy: true });
      channel.postMessage({ type: 'merge', merged });
    },
    saveAdapter() {
      if (!channel) return Promise.reject(new Error('no fine-tuning run yet'));
      return new Promise((resolve, reject) => {
        waiting.push((m) => (m.bytes ? resolve(m.bytes) : reject(new Error('a full fine-tune has no adapter file'))));
        channel.postMessage({ type: 'save' });
      });
    },
    destroy() {
      destroyed = true;
      offState();
      channel?.terminate();
      channel = null;
      watchers.clear();
      visibility.clear();
    },
  };
  return store;
}
