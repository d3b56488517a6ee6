// gpt/store.js: the writer's training run as one shared object, per section context (the block
// needs none; the writer trains it; generation borrows its model). The run itself (run.js) lives
// in a Web Worker (worker.js), or, when the page may not start one (a strict Content-Security-
// Policy) or it fails before it says it started, on the page's own thread in chunks that yield
// (local-run.js; the snapshot's thread says which, and why). This store sends it the text to
// train on and the reader's commands, and turns what it reports into
// frozen snapshots, published at most once per PUBLISH_MS (and per animation frame). Data flows one way:
// worker (WASM) → store → sections → DOM.
//
//   const { store, release } = acquireGPTStore(ctx);   // one per ctx; gptSource(ctx) for a section
//   const off = store.subscribe((snap) => …);   store.get()
//   store.ensure()                      // a run from the URL's settings, if there is none
//   store.play() / pause() / step()     store.watchLine(line)   // its attention, kept up to date
//   createTicker({ process: store.process, … })   // the writer's Start / Pause / Step (shell/ticker.js)
//   store.retrain(text)                 // the reader's own text (null: the quatrains); refused
//                                       // text leaves the current run as it was
//   store.save() → Promise<Uint8Array>  store.load(bytes)   store.modelBytes() (for generation)
//   store.unsaved()                     // a run with steps that no file holds: ask before dropping it
// A writer link's step (?section=writer&step=N, a <qkv-lab section="writer" step="N">) is a step
// of the quatrain run: the first run trains to it on its own (snap.replay: { to, asked, done },
// done once there, until the reader moves the run), at most to the end of its schedule (gsteps). The run is deterministic from its seed,
// so it reaches the model the link was copied from.
import { WORKER_SOURCE, workerURL } from './worker-source.js';
import { createLocalRun } from './local-run.js';
import { openRunChannel } from '../shell/run-channel.js';
import { QUATRAINS } from '../../data/quatrains.js';
import { RUN_KEYS, gptOptions } from './settings.js';

const stores = new WeakMap();
const nextFrame = (fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(fn) : setTimeout(fn, 0));
const ATTEND_EVERY_MS = 250;
const PUBLISH_MS = 250;
const RATE_FIRST_MS = 500, RATE_MS = 2000;

/**
 * The run shared by the sections of one context (page or widget), with a release function: the
 * worker stops when the last section that acquired it is destroyed.
 */
export function acquireGPTStore(ctx) {
  let entry = stores.get(ctx);
  if (!entry) { entry = { store: createGPTStore(ctx), users: 0 }; stores.set(ctx, entry); }
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

/** A defineSection source over the shared run (section-shell.js): it starts when first seen. */
export function gptSource(ctx) {
  const { store, release } = acquireGPTStore(ctx);
  return {
    store,
    get: () => store.get(),
    subscribe: (fn) => store.subscribe(fn),
    setVisible: (visible) => { if (visible) store.ensure(); },
    destroy: release,
  };
}

const EMPTY = Object.freeze({
  status: 'idle', info: null, running: false, done: false, step: 0, losses: [], evals: [], samples: [],
  error: null, attention: null, attentionError: null, savedStep: null, source: 'quatrains', stale: false,
  startedAt: null, firstSampleMs: null, rate: null, longestChunkMs: null, replay: null,
});

export function createGPTStore(ctx) {
  const { state } = ctx;
  const watchers = new Set();
  let worker = null;
  let s = { ...EMPTY };
  let snap = EMPTY;
  let queued = false;
  let ownText = null;            // the reader's text the current run trains on (null: the quatrains)
  // the runs asked for and not yet answered ('created', or the create refused), in order: { text,
  // settings }. Each answer is its run's, so a run is named by its own text even when the reader
  // asked for another one before it was built.
  const asked = [];
  // the text of the latest run asked for: a new run with other settings keeps it
  const latestText = () => (asked.length ? asked[asked.length - 1].text : ownText);
  let runSettings = null;        // the settings (gptOptions) of the current run
  /** Whether the current run's settings are not the ones the page shows. */
  const settingsDiffer = () => JSON.stringify(gptOptions(state)) !== JSON.stringify(runSettings);
  let line = '';                 // the reader's line whose attention is shown
  let attendId = 0, lastAttend = 0;
  const waiting = new Map();     // 'saved' → resolvers
  let rateMark = null;           // { step, time } for steps per second
  // where the run trains: 'worker', or 'page' with the reason (the browser's words)
  let thread = Object.freeze({ where: null, reason: null });
  let replayAsked = ctx.sceneFor?.('writer')?.step || 0;   // a link's step, for the first run only
  let tickerPlays = false;       // the ticker (store.process) plays the run: it has not paused it since
  let tickerStarted = false;     // … and it started the run itself (the run was not running already)
  let commandSeq = 0, lastCommand = null;   // the page's play and pause commands, numbered (play below)

  const makeSnap = () => Object.freeze({ ...s, thread, losses: s.losses.slice(), evals: s.evals.slice(), samples: s.samples.slice(),
    settings: Object.freeze(Object.fromEntries(RUN_KEYS.map((k) => [k, state.get(k)]))) });
  snap = makeSnap();
  // at most one snapshot per PUBLISH_MS: every snapshot redraws the sections, and the page is large
  let lastPublish = -Infinity;
  function publish() {
    if (queued) return;
    queued = true;
    const wait = Math.max(0, lastPublish + PUBLISH_MS - performance.now());
    setTimeout(() => nextFrame(() => {
      queued = false;
      lastPublish = performance.now();
      snap = makeSnap();
      for (const fn of [...watchers]) fn(snap);
    }), wait);
  }
  const set = (patch) => { s = { ...s, ...patch }; publish(); };

  // The run's channel: the Web Worker once it has said it started, else the page's own thread
  // (shell/run-channel.js)
  function startWorker() {
    if (worker) return worker;
    worker = openRunChannel({
      source: WORKER_SOURCE, url: workerURL, createLocal: createLocalRun, receive,
      onThread: (where) => { thread = where; publish(); },
      onError: (message) => {
        set({ status: 'error', running: false, error: { op: 'worker', message } });
        for (const fns of waiting.values()) for (const fn of fns) fn({ bytes: null, error: message });
        waiting.clear();
      },
      stopped: 'the training worker stopped',
    });
    return worker;
  }

  function receive(m) {
    if (!worker) return;   // destroyed: what the run still says goes nowhere
    const now = performance.now();
    switch (m.type) {
      case 'created':
        tickerPlays = tickerStarted = false;
        if (!m.info.loaded && asked.length) { const run = asked.shift(); ownText = run.text; runSettings = run.settings; }
        // a setting changed while this run was being built (and no later run asked for has it):
        // the run has not moved, so it is made again with the settings the page now shows
        if (!m.info.loaded && !asked.length && settingsDiffer()) {
          replayAsked = 0;
          create(ownText);
          return;
        }
        s = { ...EMPTY, status: 'ready', info: m.info, step: m.info.steps, done: m.info.loaded || m.info.steps >= m.info.defaultSteps,
          source: m.info.loaded ? 'file' : (ownText === null ? 'quatrains' : 'own'), savedStep: m.info.loaded ? m.info.steps : null,
          startedAt: now, attention: null };
        if (replayAsked && !m.info.loaded && ownText === null) {
          const to = Math.min(replayAsked, m.info.defaultSteps);
          s.replay = { to, asked: replayAsked };
          worker.postMessage({ type: 'play', until: to, seq: commandSeq });
        }
        replayAsked = 0;
        publish();
        if (line) watchLine(line);
        break;
      case 'progress': {
        // a report from before the page's latest play or pause keeps the running state that command asked for
        const current = typeof m.seq !== 'number' || m.seq >= commandSeq;
        const patch = { running: current ? m.running : s.running, done: m.done, step: m.step };
        if (m.loss !== null) {
          patch.losses = [...s.losses, { step: m.step, loss: m.loss }];
          // the first reading after RATE_FIRST_MS of continuous running, then one per RATE_MS
          if (!rateMark || !m.running) rateMark = { step: m.step, time: now };
          else if (now - rateMark.time > (s.rate === null ? RATE_FIRST_MS : RATE_MS)) {
            patch.rate = (m.step - rateMark.step) / ((now - rateMark.time) / 1000);
            rateMark = { step: m.step, time: now };
          }
        }
        if (!m.running) rateMark = null;
        // the replay's end stays said (replay.done) until the reader moves the run
        if (s.replay && !s.replay.done && !m.running && (m.loss !== null || m.step >= s.replay.to)) patch.replay = { ...s.replay, done: true };
        set(patch);
        if (line && now - lastAttend > ATTEND_EVERY_MS) watchLine(line);
        break;
      }
      case 'sample':
        set({ samples: [...s.samples, { step: m.step, poems: m.poems, good: m.good }],
          firstSampleMs: s.firstSampleMs ?? (s.startedAt === null ? null : now - s.startedAt) });
        if (line) watchLine(line);
        break;
      case 'chunk':
        set({ longestChunkMs: Math.max(s.longestChunkMs ?? 0, m.ms) });
        break;
      case 'eval':
        set({ evals: [...s.evals.filter((e) => e.step !== m.step), { step: m.step, train: m.train, val: m.val }] });
        break;
      case 'attention':
        if (m.id === attendId) set({ attention: { text: m.text, chars: m.chars, layers: m.layers }, attentionError: null });
        break;
      case 'saved':
        for (const fn of waiting.get('saved') || []) fn(m);
        waiting.delete('saved');
        break;
      case 'error':
        if (m.op === 'create') asked.shift();
        if (m.op === 'create' || m.op === 'load') {
          for (const fn of waiting.get('saved') || []) fn({ bytes: null, error: m.message });
          waiting.delete('saved');
        }
        if (m.op === 'attend') { if (m.id === attendId) set({ attentionError: m.message, attention: null }); }
        // refused: the run there goes on with its own settings (stale says the URL's differ)
        else if (m.op === 'create' || m.op === 'load') {
          set({ error: { op: m.op, message: m.message }, status: s.info ? 'ready' : 'error',
            stale: Boolean(s.info) && s.source !== 'file' && JSON.stringify(gptOptions(state)) !== JSON.stringify(runSettings) });
        }
        else set({ error: { op: m.op, message: m.message } });
        break;
      default:
    }
  }

  function create(text) {
    const w = startWorker();
    if (!w) return;
    const settings = gptOptions(state);
    asked.push({ text, settings });
    set({ status: s.info ? s.status : 'starting', error: null });
    w.postMessage({ type: 'create', options: settings, text: text === null ? QUATRAINS.poems : text, form: text === null });
  }

  function watchLine(text) {
    line = text;
    if (!worker || !s.info) return;
    attendId++;
    lastAttend = performance.now();
    if (!text) { set({ attention: null, attentionError: null }); return; }
    worker.postMessage({ type: 'attend', id: attendId, text });
  }

  function request(type, message = {}) {
    const w = startWorker();
    if (!w) return Promise.reject(new Error(s.error ? s.error.message : 'no worker'));
    return new Promise((resolve) => {
      if (!waiting.has(type)) waiting.set(type, []);
      waiting.get(type).push(resolve);
      w.postMessage({ type: type === 'saved' ? 'save' : type, ...message });
    });
  }

  const offState = state.onChange((name) => {
    if (!RUN_KEYS.includes(name)) return;
    if (!s.info) { publish(); return; }
    const changed = settingsDiffer();
    // a run that has not moved yet is simply replaced; one with steps is kept until the reader says
    if (changed && s.step === 0 && !s.running && s.source !== 'file') create(latestText());
    else set({ stale: changed });
  });

  // a run with steps that no file holds: closing or leaving the page asks first, as every other
  // way of dropping it does
  const unsaved = () => s.step > 0 && s.source !== 'file' && s.savedStep !== s.step;
  const beforeUnload = (event) => {
    if (!unsaved()) return;
    event.preventDefault();
    event.returnValue = '';
  };
  if (typeof addEventListener === 'function') addEventListener('beforeunload', beforeUnload);

  // Play and pause are numbered; run.js says the last one it took in every progress, so a report
  // from before the latest command does not say whether the run runs now. The snapshot says at
  // once what that command asked for (running), and such reports keep it. Without this, a Pause's
  // report published after a quick Start said the run had stopped, and the writer's ticker, which
  // follows the run, paused it again: the Start was lost. The run answers every play and pause
  // (run.js), so a play it refuses (the end of its schedule, a model from a file) is corrected by
  // its answer. (The ticker's play below also sends a Start after a Pause that is not answered
  // yet, lastCommand, rather than trust a run that still says it runs.)
  const trains = () => Boolean(worker && s.info) && s.source !== 'file' && !s.done && s.status !== 'error';
  const play = () => {
    lastCommand = 'play';
    worker?.postMessage({ type: 'play', seq: ++commandSeq });
    set({ startedAt: s.startedAt ?? performance.now(), replay: null, ...(trains() ? { running: true } : {}) });
  };
  const pause = () => {
    lastCommand = 'pause';
    worker?.postMessage({ type: 'pause', seq: ++commandSeq });
    set({ replay: null, ...(worker && s.info ? { running: false } : {}) });
  };
  const step = () => { worker?.postMessage({ type: 'step' }); set({ replay: null }); };
  // the run as a live process for the shell's ticker: it trains in its worker at its own pace, so
  // the ticker's play and pause start and stop it there, and advance takes a step only when
  // asked while paused (Step). A run that is already running (a link's replay, generation's
  // button) is not asked again, so what it was doing (its replay's end) stays.
  const process = Object.freeze({
    play() { tickerPlays = true; if (!s.running || lastCommand === 'pause') { tickerStarted = true; play(); } },
    pause() { if (tickerStarted || s.running) pause(); tickerPlays = tickerStarted = false; },
    advance() { if (!tickerPlays && !s.running) step(); return []; },
    get finished() { return !s.info || s.done || s.source === 'file' || s.status === 'error'; },
  });

  return {
    get: () => snap,
    subscribe(fn) { watchers.add(fn); return () => watchers.delete(fn); },
    ensure() { if (!worker) create(ownText); },
    play, pause, step, process,
    /** A new run: on `text` (the reader's; null for the quatrains), with the URL's settings. */
    retrain(text) { create(text); },
    /** A new run with the current settings and the current text. */
    restart() { create(latestText()); },
    watchLine,
    unsaved,
    async save() {
      const m = await request('saved');
      if (!m.bytes) throw new Error('the writer has no model yet');
      set({ savedStep: m.step });
      return m.bytes;
    },
    /** The current model's bytes, for generation (not a save: the run still counts as unsaved). */
    modelBytes: () => request('saved').then((m) => {
      if (!m.bytes) throw new Error(m.error || 'the writer has no model yet');
      return { bytes: m.bytes, step: m.step };
    }),
    load(bytes) {
      const w = startWorker();
      if (!w) return;
      set({ error: null });
      w.postMessage({ type: 'load', bytes }, [bytes.buffer]);
    },
    destroy() {
      offState();
      if (typeof removeEventListener === 'function') removeEventListener('beforeunload', beforeUnload);
      worker?.terminate();
      worker = null;
      watchers.clear();
    },
  };
}

// ---- a model handed to generation ----
// The 微调 section (or any part of the page) can give generation a model to write with: a
// fine-tuned run (gpt.finetune(), qkv.loadAdapter()) or any GPT of the page's API. Generation
// borrows it: the giver keeps it, and withdraws it (useModel(ctx, null)) before disposing it.
const handed = new WeakMap();   // ctx → { model, watchers }

function handOf(ctx) {
  let entry = handed.get(ctx);
  if (!entry) { entry = { model: null, watchers: new Set() }; handed.set(ctx, entry); }
  return entry;
}

/**
 * Gives generation (in the same page or widget: ctx) a model to write with, and shows it:
 *   useModel(ctx, { kind: 'adapter', gpt: ft, name: '浣溪沙 LoRA r 4' })
 * kind: 'adapter' (a fine-tune of the pretrained poet; the chooser's third entry); gpt: what
 * gpt.finetune() or qkv.loadAdapter() returns, or a GPT; name: how the chooser names it.
 * useModel(ctx, null) withdraws it (generation goes back to the poet). Generation never disposes
 * a model it was given.
 */
export function useModel(ctx, model) {
  if (model !== null) {
    if (!model || model.kind !== 'adapter') throw new TypeError(`useModel: kind must be 'adapter', got ${model && JSON.stringify(model.kind)}`);
    if (!model.gpt || typeof model.gpt.generate !== 'function' || typeof model.gpt.forward !== 'function') {
      throw new TypeError('useModel: gpt must be a GPT or a fine-tune (with generate and forward)');
    }
  }
  const entry = handOf(ctx);
  entry.model = model === null ? null : Object.freeze({ kind: model.kind, gpt: model.gpt, name: String(model.name ?? '') });
  for (const fn of [...entry.watchers]) fn(entry.model);
}

/** The model handed to generation in this context (useModel), or null. */
export const handedModel = (ctx) => handed.get(ctx)?.model ?? null;

/** Calls fn(model) whenever useModel hands generation another model (or null); → off. */
export function onHandedModel(ctx, fn) {
  const entry = handOf(ctx);
  entry.watchers.add(fn);
  return () => entry.watchers.delete(fn);
}
