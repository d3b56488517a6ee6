// training/store.js: the training run as one shared object. The training section (the run) and the one-step
// walkthrough (section trainstep) both read it; neither owns it. Data flows one way:
// WASM model → run (this store) → sections → DOM. Sections change the run only through the
// store's actions (advance, goTo, reset, setCorpus), on the reader's input.
//
//   const store = createTrainingStore({ qkv, state });   // context.js makes one per ctx
//   const release = store.acquire();     // a section that shows the run; release() when destroyed
//   const off = store.subscribe((event) => …);
//   await store.ensure();                // builds the run (replaying to state `step`) when first needed
//   store.advance(3);  store.goTo(120);  store.reset();  store.setCorpus(text);
//
// Events: { type: 'run' } a new run exists (options, corpus or seed changed, reset, or going
// back, which replays from the seed); { type: 'replay', done, target } progress of a replay;
// { type: 'ready' } the run reached the step asked for; { type: 'step', records } steps taken;
// { type: 'error', error } the run could not be built; { type: 'notice', key, vars } something the
// reader should be told (a step past the schedule, a corpus too long for the link).
//
// A replay (a link with ?step=N, or going back) never blocks the page: it advances in chunks of
// at most CHUNK_STEPS steps and CHUNK_MS per animation frame, reporting progress, and the first
// chunk runs at once, so a short replay finishes before the call returns. The model is disposed when the last section
// that acquired the store releases it, so a widget frees every byte it allocated.
import { TrainingRun } from './run.js';
import { createSeedSpread } from './seed-spread.js';
import { RUN_KEYS, modelOptions, resolveCorpus, corpusValue, URL_CORPUS_CHARS } from './settings.js';

const CHUNK_MS = 8;
/** At most this many steps per frame, however fast the machine: a replay always yields to the page. */
const CHUNK_STEPS = 25;
/** Steps between project2d() calls during a replay: keeps the scatter's axis signs as in live play. */
const AXIS_EVERY = 5;

const nextFrame = (fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(fn) : setTimeout(fn, 0));
const now = () => (typeof performance === 'object' ? performance.now() : Date.now());

export function createTrainingStore({ qkv, state, extraOptions = {} }) {
  const watchers = new Set();
  let run = null;
  let initialModel = null;
  let users = 0;
  let generation = 0;          // bumped by every new run or jump: a stale replay chunk stops
  let replaying = null;        // { done, target, promise } while a replay is under way
  let writing = false;         // the store is writing state itself: its own change is no news
  let rebuildQueued = false;
  let error = null;
  let corpus = resolveCorpus(state.get('corpus'));
  let linkable = true;
  let seedSpread = null;

  function emit(event) {
    for (const fn of [...watchers]) fn(event);
  }

  function write(name, value) {
    writing = true;
    try { return state.set(name, value); } finally { writing = false; }
  }

  function options() {
    return { ...modelOptions(state, corpus.sentences), ...extraOptions };
  }

  function disposeRun() {
    generation++;
    replaying = null;
    if (run) run.dispose();
    if (initialModel) initialModel.dispose();
    run = null;
    initialModel = null;
  }

  /** A fresh run (step 0) from the current options; false when it cannot be built. */
  function build() {
    disposeRun();
    error = null;
    try {
      run = new TrainingRun(qkv, options());
    } catch (e) {
      error = e;
      emit({ type: 'error', error: e });
      return false;
    }
    emit({ type: 'run' });
    return true;
  }

  /** Advances the current run to `target` in chunks; resolves when it is there (or superseded). */
  function replayTo(target) {
    const token = generation;
    const goal = Math.max(0, Math.min(target, run.total));
    if (run.step >= goal) {
      replaying = null;
      emit({ type: 'ready' });
      return Promise.resolve(run);
    }
    let resolve;
    const promise = new Promise((r) => { resolve = r; });
    replaying = { done: run.step, target: goal, promise };
    const chunk = () => {
      if (token !== generation || !run) { resolve(run); return; }
      const until = now() + CHUNK_MS;
      const stop = Math.min(goal, run.step + CHUNK_STEPS);
      while (run.step < stop && now() < until) {
        if (!run.advance()) break;
        if (run.step % AXIS_EVERY === 0) void run.projection;
      }
      if (run.step < goal && !run.error) {
        replaying.done = run.step;
        emit({ type: 'replay', done: run.step, target: goal });
        nextFrame(chunk);
        return;
      }
      replaying = null;
      emit({ type: 'ready' });
      resolve(run);
    };
    chunk();
    return promise;
  }

  function clampNotice(asked) {
    if (run && asked > run.total) {
      emit({ type: 'notice', key: 'training.stepClamped', vars: { asked, total: run.total } });
    }
  }

  const store = {
    get run() { return run; },
    get error() { return error; },
    /** { done, target } while a replay runs, else null. */
    get replaying() { return replaying ? { done: replaying.done, target: replaying.target } : null; },
    /** The corpus in use: { id (preset) | null, text, sentences, problems }. */
    get corpus() { return corpus; },
    /** Whether the link (state `corpus`) holds the corpus in use. */
    get linkable() { return linkable; },
    get options() { return options(); },
    /** The 30-seed spread of the run's settings (training/seed-spread.js), made when first asked for. */
    get seedSpread() { return seedSpread ||= createSeedSpread(qkv); },

    subscribe(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },

    /** A section that shows the run holds the store; the model lives while anyone does. */
    acquire() {
      users++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        users--;
        if (users === 0) disposeRun();
      };
    },

    /** Builds the run when it does not exist yet and replays it to state `step`. */
    ensure() {
      if (run) return replaying ? replaying.promise : Promise.resolve(run);
      if (!build()) return Promise.resolve(null);
      const asked = state.get('step') || 0;
      const done = replayTo(asked);
      return done.then((r) => {
        if (r && asked > r.total) {
          clampNotice(asked);
          write('step', r.step);
        }
        return r;
      });
    },

    /** Up to n steps now; the records of the steps taken (fewer when the run ends). */
    advance(n = 1) {
      if (!run || replaying) return [];
      const records = [];
      for (let i = 0; i < n; i++) {
        const record = run.advance();
        if (!record) break;
        records.push(record);
      }
      if (records.length || run.error) emit({ type: 'step', records });
      return records;
    },

    /** Goes to `step`: forward from here, or back by replaying from the seed. */
    goTo(step) {
      if (!run) return store.ensure();
      if (replaying && replaying.target === step) return replaying.promise;
      if (step < run.step || replaying) {
        if (!build()) return Promise.resolve(null);
      } else {
        generation++;
      }
      return replayTo(step);
    },

    /** A fresh run at step 0 with the current options. */
    reset() {
      build();
      if (run) emit({ type: 'ready' });
    },

    /** Writes the run's step into the state (the link), e.g. when the reader pauses. */
    saveStep() {
      if (run) write('step', run.step);
    },

    /**
     * Trains on another corpus (text, one sentence a line; refused when checkCorpus finds an error):
     * a new run at step 0. A corpus longer than URL_CORPUS_CHARS is not put in the link.
     */
    setCorpus(text) {
      const next = resolveCorpus(text);
      if (next.errors.length || !next.sentences.length) return false;
      corpus = next;
      const value = corpusValue(text);
      linkable = value !== null;
      write('corpus', linkable ? value : 'default');
      write('step', 0);
      if (!linkable) emit({ type: 'notice', key: 'training.corpusNotLinked', vars: { chars: text.length, max: URL_CORPUS_CHARS } });
      if (users) { build(); emit({ type: 'ready' }); }
      return true;
    },

    /** A model with this run's options at step 0 (for "then and now" comparisons); lazily made. */
    initialModel() {
      if (!run) return null;
      if (!initialModel) initialModel = qkv.createModel(run.options);
      return initialModel;
    },

    dispose() {
      watchers.clear();
      offState();
      seedSpread?.dispose();
      disposeRun();
    },
  };

  // the reader changed a setting elsewhere (a control, the widget's attributes): settings that
  // define the run start a new one, coalesced (switching the optimizer also sets its lr)
  const offState = state.onChange((name, value) => {
    if (writing) return;
    if (RUN_KEYS.includes(name)) {
      if (name === 'corpus') { corpus = resolveCorpus(value); linkable = true; }
      if (rebuildQueued) return;
      rebuildQueued = true;
      queueMicrotask(() => {
        rebuildQueued = false;
        write('step', 0);
        if (users && (run || error)) { build(); emit({ type: 'ready' }); }
      });
    } else if (name === 'step' && run && value !== run.step) {
      store.goTo(value).then(() => clampNotice(value));
    }
  });

  return store;
}
