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
//   createTicker({ process: store.process, … })   (shell/ticker.js: play, pause and step the run)
//   store.pin();  store.pinned → { run, corpus, options };  store.unpin();   (the timeline's comparison)
//
// Events: { type: 'run' } a new run exists (options, corpus or seed changed, reset, or going
// back, which replays from the seed); { type: 'replay', done, target } progress of a replay;
// { type: 'ready' } the run reached the step asked for; { type: 'step', records } steps taken;
// { type: 'error', error } the run could not be built; { type: 'notice', key, vars } something the
// reader should be told (a step past the schedule, a corpus too long for the link);
// { type: 'refused', error, keys } a changed setting gives a run the engine refuses: the settings go
// back to the run's and the run goes on as it was; { type: 'discarded', step, keys } a changed
// setting replaced a run that had trained (step > 0): store.undo() brings that run back.
//
// A replay (a link with ?step=N, or going back) never blocks the page: it advances in chunks of
// at most CHUNK_STEPS steps and CHUNK_MS per animation frame, reporting progress, and the first
// chunk runs at once, so a short replay finishes before the call returns. The model is disposed when the last section
// that acquired the store releases it, so a widget frees every byte it allocated.
import { TrainingRun, PENDING } from './run.js';
import { createSeedSpread } from './seed-spread.js';
import { RUN_KEYS, modelOptions, resolveCorpus, corpusValue, URL_CORPUS_CHARS } from './settings.js';
import { DEFAULT_CORPUS } from '../../corpus.js';

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
  let pinned = null;           // { run, corpus, options }: a run kept for comparison (the timeline)
  let built = null;            // what the current run was built from: { settings, corpus, linkable }
  let discarded = null;        // the run a setting change replaced, while undo can bring it back
  let refusal = null;          // the engine's error for the last refused change
  let seedSpread = null;
  let reference = null;        // on another corpus: the default corpus's run with the same settings, kept at the run's step

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

  /**
   * The default corpus's run beside a run on another corpus (same settings), so that a reading can
   * put cos(猫, 汽车) over time next to the default's; none when the run is on the default corpus.
   */
  function buildReference() {
    if (reference) reference.dispose();
    reference = null;
    if (corpus.id === 'default' || !run) return;
    try {
      reference = new TrainingRun(qkv, { ...options(), corpus: DEFAULT_CORPUS.slice() });
    } catch {
      reference = null;  // the reading then shows this run alone
    }
  }

  /** Advances the reference run to the run's step (it diverges or ends on its own: then it stops). */
  function keepReference() {
    while (reference && run && reference.step < run.step && reference.advance());
  }

  function disposeRun() {
    generation++;
    replaying = null;
    if (reference) reference.dispose();
    reference = null;
    if (run && run !== pinned?.run) run.dispose();
    if (initialModel) initialModel.dispose();
    run = null;
    initialModel = null;
  }

  const runSettings = () => Object.fromEntries(RUN_KEYS.map((k) => [k, state.get(k)]));

  /**
   * A fresh run (step 0) from the current options; false when it cannot be built. With keep, a
   * refused build leaves the current run as it was and returns the error instead.
   */
  function build({ keep = false } = {}) {
    let next;
    try {
      next = new TrainingRun(qkv, options());
    } catch (e) {
      if (keep && run) return e;
      disposeRun();
      error = e;
      emit({ type: 'error', error: e });
      return false;
    }
    disposeRun();
    error = null;
    run = next;
    built = { settings: runSettings(), corpus, linkable };
    buildReference();
    emit({ type: 'run' });
    return true;
  }

  /** Puts the state back to what `from` (a built record) was built with, without a rebuild. */
  function restore(from) {
    corpus = from.corpus;
    linkable = from.linkable;
    for (const k of RUN_KEYS) if (state.get(k) !== from.settings[k]) write(k, from.settings[k]);
  }

  /**
   * The run-defining settings changed: a new run at step 0. When the engine refuses the new
   * settings, they go back to the run's and the run goes on ('refused'); when the replaced run
   * had trained, it can be brought back ('discarded', then undo()).
   */
  function rebuildForSettings() {
    const before = run && built ? { ...built, step: run.step } : null;
    const keys = before ? RUN_KEYS.filter((k) => state.get(k) !== before.settings[k]) : [];
    const result = build({ keep: Boolean(before) });
    if (result instanceof Error) {
      restore(before);
      write('step', run.step);
      refusal = result;
      emit({ type: 'refused', error: result, keys });
      return;
    }
    refusal = null;
    discarded = before && before.step > 0 ? before : null;
    emit({ type: 'ready' });
    if (discarded) emit({ type: 'discarded', step: discarded.step, keys });
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
        const record = run.advance({ deadline: until });
        if (!record || record === PENDING) break;
        if (run.step % AXIS_EVERY === 0) void run.projection;
      }
      keepReference();
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

  // a link past the schedule's end is shown at the end, or where the run stopped (it diverged on the way)
  function clampNotice(asked) {
    if (!run || asked <= run.total) return;
    if (run.step < run.total && run.error) {
      emit({ type: 'notice', key: 'training.stepClampedStopped', vars: { asked, total: run.total, step: run.step, failed: run.step + 1 } });
    } else {
      emit({ type: 'notice', key: 'training.stepClamped', vars: { asked, total: run.total } });
    }
  }

  function unpin() {
    if (pinned && pinned.run !== run) pinned.run.dispose();
    pinned = null;
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
    /**
     * On a corpus other than the default: the default corpus's run with the same settings, at the
     * run's step ({ history, initialPoint(), step }, the TrainingRun); null on the default corpus.
     */
    get reference() { return reference; },

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
        if (users === 0) { disposeRun(); unpin(); }
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

    /**
     * Up to n steps now; the records of the steps taken (fewer when the run ends, or when
     * budgetMs is given and has passed). Within a budget, a step that does not fit is taken a few
     * sentences at a time and finished by the next calls: [] until then.
     */
    advance(n = 1, { budgetMs = Infinity } = {}) {
      if (!run || replaying) return [];
      const records = [];
      const until = now() + budgetMs;
      for (let i = 0; i < n && (i === 0 || now() < until); i++) {
        // a step that does not fit in the budget goes on in the next call (its sentences a few
        // at a time): then no record this time; without a budget (Step) a step is one call
        const record = run.advance(until < Infinity ? { deadline: until } : {});
        if (!record || record === PENDING) break;
        records.push(record);
      }
      keepReference();
      if (records.length || run.error) emit({ type: 'step', records });
      return records;
    },

    /**
     * The run as a live process for the shell's ticker (shell/ticker.js): advance(n, { budgetMs })
     * as above, and finished (no run, or the run is over).
     */
    process: Object.freeze({
      advance: (n, options) => store.advance(n, options),
      get finished() { return !run || run.finished; },
    }),

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

    /** The run a setting change replaced, if undo() can bring it back: { step, settings } or null. */
    get discarded() { return discarded ? { step: discarded.step, settings: { ...discarded.settings } } : null; },

    /** Brings back the run a setting change replaced: its settings, then a replay to its step. */
    undo() {
      if (!discarded) return Promise.resolve(null);
      const back = discarded;
      // the run undo replaces can itself be brought back (undo is its own redo)
      const current = run && built ? { ...built, step: run.step } : null;
      discarded = null;
      restore(back);
      write('step', back.step);
      if (!build()) return Promise.resolve(null);
      return replayTo(back.step).then((r) => {
        if (current && current.step > 0) {
          discarded = current;
          emit({ type: 'discarded', step: current.step, keys: RUN_KEYS.filter((k) => current.settings[k] !== back.settings[k]) });
        }
        return r;
      });
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
      const before = run && built ? { ...built, step: run.step } : null;
      corpus = next;
      const value = corpusValue(text);
      linkable = value !== null;
      write('corpus', linkable ? value : 'default');
      write('step', 0);
      if (users) {
        // the engine may refuse this corpus with these settings (too much work per step): keep the run
        const result = build({ keep: Boolean(before) });
        if (result instanceof Error) {
          restore(before);
          write('step', run.step);
          refusal = result;
          emit({ type: 'refused', error: result, keys: ['corpus'] });
          return false;
        }
        discarded = before && before.step > 0 ? before : null;
        emit({ type: 'ready' });
        if (discarded) emit({ type: 'discarded', step: discarded.step, keys: ['corpus'] });
      }
      if (!linkable) emit({ type: 'notice', key: 'training.corpusNotLinked', vars: { chars: text.length, max: URL_CORPUS_CHARS } });
      return true;
    },

    /** Why the last setCorpus() or setting change was refused by the engine (an Error), or null. */
    get refusal() { return refusal; },

    /** A model with this run's options at step 0 (for "then and now" comparisons); lazily made. */
    initialModel() {
      if (!run) return null;
      if (!initialModel) initialModel = qkv.createModel(run.options);
      return initialModel;
    },

    /** The pinned run { run, corpus, options } or null (the timeline compares it with the current run). */
    get pinned() { return pinned; },

    /**
     * Keeps the current run for comparison: a setting changed afterwards starts a new run as
     * always, and the pinned one stays (its model, history and checkpoints) until unpin().
     * Until then the pinned run is the current one. Pinning again pins the current run instead.
     */
    pin() {
      if (!run || replaying) return false;
      unpin();
      pinned = { run, corpus, options: run.options };
      emit({ type: 'ready' });
      return true;
    },

    unpin() {
      unpin();
      emit({ type: 'ready' });
    },

    dispose() {
      watchers.clear();
      offState();
      seedSpread?.dispose();
      disposeRun();
      unpin();
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
        if (users && run) rebuildForSettings();
        else if (users && error) { build(); emit({ type: 'ready' }); }
      });
    } else if (name === 'step' && run && value !== run.step) {
      store.goTo(value).then(() => clampNotice(value));
    }
  });

  return store;
}
