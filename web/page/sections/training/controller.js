// sections/training/controller.js: drives the shared training run from the training section's controls: Start / Pause
// (a frame loop that takes as many steps as the speed makes due), Step, Back (a replay from the
// seed, in chunks), Reset, the speed, and the stepper's keys (stepper.js's stepKeys). It listens
// to the run store and has the view draw what changed; it narrates in the reader's language,
// and a narration already shown is rewritten when the language changes.
//
//   const controller = createTrainingController({ ctx, layout, view, texts, events, reportProgress, onRender });
//   controller.setVisible(visible);  controller.destroy();
import { fmt } from '../../shell/dom.js';
import { stepKeys } from '../../shell/stepper.js';
import { DEFAULT_SPEED } from './layout.js';

const MAX_STEPS_PER_FRAME = 8;
/** A frame of play stops taking steps after this long (it always takes one): slow steps never pile up in one frame. */
const FRAME_BUDGET_MS = 12;
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
  let playing = false;
  let resumable = false;   // "Resume" only right after the reader paused a playing run
  let visible = typeof IntersectionObserver !== 'function';
  let frameId = 0;
  let lastFrameTime = 0;
  let due = 0;
  let frameCount = 0;
  let stepStarted = 0;      // while Step's step runs: when it started
  let figuresFrame = 0;
  let drawDue = false;     // steps taken but not drawn yet (slow steps: stepping and drawing take a frame each)
  let speed = DEFAULT_SPEED;
  let narrated = null;     // [key, vars]: the narration shown, rewritten on a language change
  let pendingDraw = null;  // { probes } while a new run waits for its frame to be drawn
  let drawFrame = 0;

  const run = () => store.run;

  function narrate(key, extra = {}) {
    const r = run();
    const last = r && r.last;
    const vars = {
      step: r ? r.step : 0, total: r ? r.total : 0, seed: state.get('tseed'), n: speed,
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
    playing = false;
    updateButtons();
    announce(status.error.textContent);
  }

  /** options: { part } as view.render takes it; { probes: true } also refreshes the probes at once. */
  function render(options) {
    if (!run()) return;
    view.render(options);
    updateButtons();
    reportProgress();
    onRender(options);
  }

  const now = () => performance.now();

  function drawFigures() {
    figuresFrame = 0;
    if (run() && !store.replaying && !pendingDraw) render({ probes: true });
  }

  /**
   * Draws the run as new (its history, its words): at once, or for a large vocabulary over the
   * next two frames (its words, then its numbers), the section 'loading' until then.
   */
  function drawRun({ probes = false } = {}) {
    const r = run();
    if (!r) return;
    if (pendingDraw || r.vocab.length > DRAW_LATER_WORDS) {
      pendingDraw = { probes: probes || Boolean(pendingDraw && pendingDraw.probes), run: r, words: false };
      view.hold();
      if (!drawFrame) drawFrame = requestAnimationFrame(drawPending);
      updateButtons();
      return;
    }
    view.newRun(r);
    render({ probes });
    if (r.error) showError(r.error);
  }

  function drawPending() {
    drawFrame = 0;
    const pending = pendingDraw;
    const r = run();
    if (!pending || !r) { pendingDraw = null; updateButtons(); return; }
    if (pending.run !== r || !pending.words) {
      view.newRun(r);
      pendingDraw = { ...pending, run: r, words: true };
      drawFrame = requestAnimationFrame(drawPending);
      return;
    }
    pendingDraw = null;
    render({ probes: pending.probes });
    if (r.error) showError(r.error);
  }

  // ---- the store tells what happened ----
  const offStore = store.subscribe((event) => {
    switch (event.type) {
      case 'run':
        stopLoop();
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
        if (!playing && stepStarted && now() - stepStarted > FRAME_BUDGET_MS) {
          // a slow step (a large vocabulary, a large batch): its status now, its figures next frame
          view.render({ figures: false });
          updateButtons();
          reportProgress();
          if (!figuresFrame) figuresFrame = requestAnimationFrame(drawFigures);
        } else if (!playing) render({ probes: true });
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
    if (!r || playing || store.replaying || pendingDraw) return;
    resumable = false;
    stepStarted = now();
    const [record] = store.advance(1);
    stepStarted = 0;
    if (record) {
      narrateStep();
      store.saveStep();
    }
  }

  function back() {
    const r = run();
    if (!r || r.step === 0 || store.replaying || pendingDraw) return;
    stopLoop();
    resumable = false;
    store.goTo(r.step - 1).then(() => {
      narrate('training.say.back');
      store.saveStep();
    });
  }

  function reset() {
    stopLoop();
    store.reset();
    narrate('training.say.reset');
    store.saveStep();
  }

  function play() {
    const r = run();
    if (!r || r.finished || playing || store.replaying || pendingDraw) return;
    playing = true;
    resumable = false;
    lastFrameTime = 0;
    due = 1;  // the first frame takes a step at once: pressing Start answers immediately
    updateButtons();
    narrate('training.say.play', { n: speed });
    schedule();
  }

  function stopLoop() {
    playing = false;
    drawDue = false;
    if (frameId) cancelAnimationFrame(frameId);
    frameId = 0;
  }

  function pause(say = true) {
    const was = playing;
    stopLoop();
    if (!run()) return;
    if (was) {
      resumable = true;
      render({ probes: true });
      if (say) narrate('training.say.pause');
      store.saveStep();
    }
    updateButtons();
  }

  function schedule() {
    if (playing && visible && !frameId) frameId = requestAnimationFrame(frame);
  }

  function frame(now) {
    frameId = 0;
    const r = run();
    if (!playing || !visible || !r) return;
    const dt = lastFrameTime ? Math.min(now - lastFrameTime, 100) : 1000 / 60;
    lastFrameTime = now;
    due += (speed * dt) / 1000;
    if (drawDue) {
      // the last frame's steps took the whole frame: this one draws them
      drawDue = false;
      render({ part: (frameCount++) % 2 });
      schedule();
      return;
    }
    const n = Math.min(Math.floor(due), MAX_STEPS_PER_FRAME);
    const started = performance.now();
    const records = n > 0 ? store.advance(n, { budgetMs: FRAME_BUDGET_MS }) : [];
    due = Math.min(due - records.length, 1);
    if (records.length && performance.now() - started > FRAME_BUDGET_MS && !r.finished && !r.error) drawDue = true;
    else if (records.length) render({ part: (frameCount++) % 2 });
    if (r.error) {
      store.saveStep();
      return;
    }
    if (r.finished) {
      playing = false;
      render({ probes: true });
      narrate('training.say.done');
      store.saveStep();
      return;
    }
    schedule();
  }

  events.on(controls.play, 'click', () => (playing ? pause() : play()));
  events.on(controls.step, 'click', stepOnce);
  events.on(controls.back, 'click', back);
  events.on(controls.reset, 'click', reset);
  events.on(controls.speed, 'change', () => { speed = Number(controls.speed.value) || DEFAULT_SPEED; });
  stepKeys(events, element, {
    toggle: () => (playing ? pause() : play()),
    forward: () => { if (playing) pause(); stepOnce(); },
    back: () => { if (playing) pause(); back(); },
  });

  updateButtons();
  status.progress.textContent = i18n.t('training.loading');

  return {
    get playing() { return playing; },
    narrate,
    pause,
    /** The section came into view (build the run, resume the loop) or left it (stop drawing). */
    setVisible(v) {
      visible = v;
      if (v) {
        if (!run() && !store.error) {
          store.ensure().then((r) => { if (r && r.step > 0) narrate('training.say.replayed'); });
        }
        schedule();
      } else if (frameId) {
        cancelAnimationFrame(frameId);
        frameId = 0;
        lastFrameTime = 0;
      }
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
      stopLoop();
      if (drawFrame) cancelAnimationFrame(drawFrame);
      if (figuresFrame) cancelAnimationFrame(figuresFrame);
      drawFrame = figuresFrame = 0;
      offStore();
    },
  };
}
