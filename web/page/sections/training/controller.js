// sections/training/controller.js: drives the shared training run from the training section's controls: Start / Pause
// and Step (the shell's ticker, shell/ticker.js, takes the steps the speed makes due, frame by
// frame), Back (a replay from the seed, in chunks), Reset, the speed, and the stepper's keys
// (stepper.js's stepKeys). The section never asks for frames itself (shell/frames.js). It listens
// to the run store and has the view draw what changed; it narrates in the reader's language,
// and a narration already shown is rewritten when the language changes.
//
//   const controller = createTrainingController({ ctx, layout, view, texts, events, reportProgress, onRender });
//   controller.setVisible(visible);  controller.destroy();
import { fmt } from '../../shell/dom.js';
import { stepKeys } from '../../shell/stepper.js';
import { createTicker, FRAME_BUDGET_MS } from '../../shell/ticker.js';
import { createFrameScheduler } from '../../shell/frames.js';
import { DEFAULT_SPEED } from './layout.js';
/**
 * A new run on more words than this is drawn in the frame after it is built: building it (the
 * WebAssembly model) and drawing it (rows, labels, charts) are then two tasks, each short, and
 * the page answers input in between. A smaller run is drawn at once.
 */
export const DRAW_LATER_WORDS = 1000;

export function createTrainingController({ ctx, layout, view, texts, events, reportProgress = () => {}, onRender = () => {} }) {
  const { i18n, state } = ctx;
  const announce = typeof ctx.announce === 'function' ? ctx.announce : () => {};
  const store = ctx.training;
  const { controls, status, element } = layout;
  let resumable = false;   // "Resume" only right after the reader paused a playing run
  let stepStarted = 0;      // while Step's step runs: when it started
  let narrated = null;     // [key, vars]: the narration shown, rewritten on a language change
  let pendingDraw = null;  // { probes } while a new run waits for its frame to be drawn

  const run = () => store.run;
  const frames = createFrameScheduler();
  // the store is the live process: the ticker asks it for the steps that are due, frame by frame
  const ticker = createTicker({
    process: store.process,
    speed: DEFAULT_SPEED, frames,
    onFrame: ({ part }) => render({ part }),
    onEnd() {
      const r = run();
      if (r && !r.error) {
        render({ probes: true });
        narrate('training.say.done');
      }
      store.saveStep();
    },
  });
  ticker.onChange(() => updateButtons());
  // off screen until the section says otherwise (where it can tell)
  ticker.setVisible(typeof IntersectionObserver !== 'function');

  function narrate(key, extra = {}) {
    const r = run();
    const last = r && r.last;
    const vars = {
      step: r ? r.step : 0, total: r ? r.total : 0, seed: state.get('tseed'), n: ticker.speed,
      sentence: last ? last.batch.map((t) => t.join(' ')).join(' / ') : '',
      loss: fmt(last ? last.loss : NaN), count: last ? last.updatedRows.length : 0,
      a: fmt(last ? last.catDog : NaN), b: fmt(last ? last.catCar : NaN), ...extra,
    };
    narrated = [key, vars];
    texts.set(status.narration, key, () => resolve(narrated[1]));
    announce(status.narration.textContent);
  }

  // vars may hold [key, vars] pairs: sub-sentences translated with the rest
  function resolve(vars) {
    const out = {};
    for (const [k, v] of Object.entries(vars)) out[k] = Array.isArray(v) ? i18n.t(v[0], resolve(v[1])) : v;
    return out;
  }

  function narrateStep() {
    const last = run().last;
    const own = new Set(last.batchRows);
    const others = last.updatedRows.filter((r) => !own.has(r)).length;
    const rows = others ? ['training.say.rowsAdam', { count: last.updatedRows.length, own: last.updatedRows.length - others }]
      : ['training.say.rows', { count: last.updatedRows.length }];
    narrate(last.batch.length === 1 ? 'training.say.step.one' : 'training.say.step.many', { rows, n: last.batch.length });
  }

  function updateButtons() {
    const r = run();
    const playing = ticker.playing;
    const replaying = store.replaying !== null;
    const ready = r !== null && !replaying && !pendingDraw;
    const over = !ready || r.finished;
    texts.set(controls.play, playing ? 'training.pause' : (resumable && !over ? 'training.resume' : 'training.play'));
    controls.play.setAttribute('aria-pressed', String(playing));
    controls.play.disabled = over && !playing;
    controls.step.disabled = over || playing;
    controls.back.disabled = !ready || r.step === 0 || playing;
    controls.reset.disabled = !ready;
    element.dataset.state = replaying ? 'replaying' : !r || pendingDraw ? (store.error ? 'failed' : 'loading')
      : r.error ? 'diverged' : playing ? 'playing' : r.finished ? 'finished' : 'paused';
  }

  function showError(error) {
    const diverged = error && (error.code === 'QKV_DIVERGED' || error.name === 'DivergenceError');
    const r = run();
    texts.set(status.error, diverged ? 'training.diverged' : 'training.error', diverged
      ? { step: r ? r.step + 1 : 0, message: error.message }
      : { message: error && error.message ? error.message : String(error) });
    status.error.hidden = false;
    ticker.pause();
    updateButtons();
    announce(status.error.textContent);
  }

  /** options: { part } as view.render takes it; { probes: true } also refreshes the probes at once. */
  function render(options) {
    if (!run()) return;
    view.render(options);
    updateButtons();
    reportProgress();
    onRender({ ...options, later: (fn) => frames.request('readings', fn) });
  }

  const now = () => performance.now();

  function drawFigures() {
    if (run() && !store.replaying && !pendingDraw) render({ probes: true });
  }

  /**
   * Draws the run as new (its history, its words): at once, or for a large vocabulary over the
   * frames after the next (its words, then its numbers, then its scatter and readings), the
   * section 'loading' until its numbers are drawn.
   */
  function drawRun({ probes = false } = {}) {
    const r = run();
    if (!r) return;
    if (pendingDraw || r.vocab.length > DRAW_LATER_WORDS) {
      pendingDraw = { probes: probes || Boolean(pendingDraw && pendingDraw.probes), run: r, words: false };
      view.hold();
      // a frame later than the next: input is handled in the frame's own task (Chromium), so a
      // run built on a click would otherwise be drawn in the same task as it was built
      if (!frames.pending('run')) frames.request('run', () => frames.request('run', drawPending));
      updateButtons();
      return;
    }
    view.newRun(r);
    render({ probes });
    if (r.error) showError(r.error);
  }

  function drawPending() {
    const pending = pendingDraw;
    const r = run();
    if (!pending || !r) { pendingDraw = null; updateButtons(); return; }
    if (pending.run !== r || !pending.words) {
      view.newRun(r);
      pendingDraw = { ...pending, run: r, words: true };
      frames.request('run', drawPending);
      return;
    }
    pendingDraw = null;
    // its numbers over three frames: the heat map and the charts, then the scatter (its
    // projection goes over the whole table), then the readings over the whole vocabulary
    render({ probes: pending.probes, spread: true, part: 0 });
    frames.request('first-scatter', () => { if (run() === r && !pendingDraw) render({ probes: pending.probes, spread: true, part: 1 }); });
    if (r.error) showError(r.error);
  }

  // ---- the store tells what happened ----
  const offStore = store.subscribe((event) => {
    switch (event.type) {
      case 'run':
        ticker.pause();
        resumable = false;
        status.error.hidden = true;
        drawRun();
        break;
      case 'replay':
        status.progress.textContent = i18n.t('training.replaying', { seed: state.get('tseed'), done: event.done, target: event.target });
        updateButtons();
        break;
      case 'ready':
        if (!run()) break;  // the run could not be built: the error says why
        drawRun({ probes: true });
        break;
      case 'step':
        view.push(event.records);
        if (!ticker.playing && stepStarted && now() - stepStarted > FRAME_BUDGET_MS) {
          // a slow step (a large vocabulary, a large batch): its status now, its figures next frame
          view.render({ figures: false });
          updateButtons();
          reportProgress();
          frames.request('figures', drawFigures);
        } else if (!ticker.playing) render({ probes: true });
        if (run().error) showError(run().error);
        break;
      case 'error':
        showError(event.error);
        break;
      case 'notice':
        texts.set(status.notice, event.key, event.vars);
        status.notice.hidden = false;
        break;
      default:
    }
  });

  // ---- actions ----
  function stepOnce() {
    const r = run();
    if (!r || ticker.playing || store.replaying || pendingDraw) return;
    resumable = false;
    stepStarted = now();
    const [record] = ticker.step();
    stepStarted = 0;
    if (record) {
      narrateStep();
      store.saveStep();
    }
  }

  function back() {
    const r = run();
    if (!r || r.step === 0 || store.replaying || pendingDraw) return;
    ticker.pause();
    resumable = false;
    store.goTo(r.step - 1).then(() => {
      narrate('training.say.back');
      store.saveStep();
    });
  }

  function reset() {
    ticker.pause();
    store.reset();
    narrate('training.say.reset');
    store.saveStep();
  }

  function play() {
    const r = run();
    if (!r || r.finished || ticker.playing || store.replaying || pendingDraw) return;
    resumable = false;
    if (!ticker.play()) return;
    narrate('training.say.play', { n: ticker.speed });
  }

  function pause(say = true) {
    const was = ticker.playing;
    ticker.pause();
    if (!run()) return;
    if (was) {
      resumable = true;
      render({ probes: true });
      if (say) narrate('training.say.pause');
      store.saveStep();
    }
    updateButtons();
  }

  events.on(controls.play, 'click', () => (ticker.playing ? pause() : play()));
  events.on(controls.step, 'click', stepOnce);
  events.on(controls.back, 'click', back);
  events.on(controls.reset, 'click', reset);
  events.on(controls.speed, 'change', () => ticker.setSpeed(Number(controls.speed.value) || DEFAULT_SPEED));
  stepKeys(events, element, {
    toggle: () => (ticker.playing ? pause() : play()),
    forward: () => { if (ticker.playing) pause(); stepOnce(); },
    back: () => { if (ticker.playing) pause(); back(); },
  });

  updateButtons();
  status.progress.textContent = i18n.t('training.loading');

  return {
    get playing() { return ticker.playing; },
    narrate,
    pause,
    /** The section came into view (build the run, resume the loop) or left it (stop drawing). */
    setVisible(v) {
      if (v && !run() && !store.error) {
        store.ensure().then((r) => { if (r && r.step > 0) narrate('training.say.replayed'); });
      }
      ticker.setVisible(v);
    },
    /** The settings changed: say what the new run is. */
    narrateNew(what) {
      narrate('training.say.new', { what });
    },
    refresh() {
      if (run() && !store.replaying && !pendingDraw) render({ probes: true });
      else updateButtons();
    },
    destroy() {
      ticker.destroy();
      frames.destroy();
      offStore();
    },
  };
}
