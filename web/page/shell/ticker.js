// shell/ticker.js: play / pause / step for a live process: a run that takes steps as long as it
// is asked to (the training run; the writer's and fine-tuning's GPT runs), where the stepper
// (stepper.js) walks a list of steps that already exist. The shell owns the clock; the process
// owns how a step is taken; the section owns what is drawn and said.
//
//   const ticker = createTicker({
//     process,            // { advance(n, { budgetMs }) → the steps taken now (an array; may be
//                         //   shorter than n, or empty: a process in a worker takes them there and
//                         //   reports later), finished: boolean, and optionally play() and
//                         //   pause(): a process that keeps its own pace (the writer's run in its
//                         //   worker) is told when the reader starts and stops it }
//     speed: 10,          // steps per second while playing
//     onFrame({ records, part }),   // a frame took steps: draw them (part alternates 0, 1 for
//                                   // views that draw half their figures a frame)
//     onEnd(),            // the process finished while playing (the ticker has stopped)
//   });
//   ticker.play();  ticker.pause();  ticker.toggle();  ticker.step() → records;  ticker.playing
//   ticker.setSpeed(n);  ticker.setVisible(visible);  ticker.onChange(({ playing }) => …) → off
//   ticker.destroy();
//
// While playing, each animation frame takes the steps that the speed makes due (at most
// MAX_STEPS_PER_FRAME; the process stops taking them after FRAME_BUDGET_MS, and always takes
// one). When those steps took the whole frame, they are drawn in the next one instead, so a slow
// step never shares a frame with its drawing. Out of view the clock stops and play resumes
// when the section is seen again.
import { createFrameScheduler } from './frames.js';

export const MAX_STEPS_PER_FRAME = 8;
/** A frame of play stops taking steps after this long (it always takes one): slow steps never pile up in one frame. */
export const FRAME_BUDGET_MS = 12;

export function createTicker({ process, speed = 10, frames = null, onFrame = () => {}, onEnd = () => {} }) {
  const ownFrames = !frames;
  frames ||= createFrameScheduler();
  const name = Symbol('tick');
  const watchers = new Set();
  let playing = false;
  let visible = true;
  let lastTime = 0;
  let due = 0;
  let drawDue = null;   // the last frame's steps, taken but not drawn (they took the whole frame)
  let part = 0;
  let stepsPerSecond = speed;

  const changed = () => { for (const fn of [...watchers]) fn({ playing }); };
  const schedule = () => { if (playing && visible) frames.request(name, tick); };

  function stop() {
    playing = false;
    drawDue = null;
    frames.cancel(name);
  }

  function tick(now) {
    if (!playing || !visible) return;
    const dt = lastTime ? Math.min(now - lastTime, 100) : 1000 / 60;
    lastTime = now;
    due += (stepsPerSecond * dt) / 1000;
    if (drawDue) {
      const records = drawDue;
      drawDue = null;
      onFrame({ records, part: (part++) % 2 });
      schedule();
      return;
    }
    const n = Math.min(Math.floor(due), MAX_STEPS_PER_FRAME);
    const started = performance.now();
    const records = n > 0 ? process.advance(n, { budgetMs: FRAME_BUDGET_MS }) : [];
    due = Math.min(due - records.length, 1);
    if (process.finished) {   // its last step, or a step that failed
      stop();
      changed();
      onEnd();
      return;
    }
    if (!playing) return;   // what the steps reported paused the ticker
    if (records.length && performance.now() - started > FRAME_BUDGET_MS) drawDue = records;
    else if (records.length) onFrame({ records, part: (part++) % 2 });
    schedule();
  }

  return {
    get playing() { return playing; },
    /** Starts the clock: the first frame takes a step at once (pressing play answers immediately). False when finished. */
    play() {
      if (playing) return true;
      if (process.finished) return false;
      playing = true;
      lastTime = 0;
      due = 1;
      process.play?.();
      schedule();
      changed();
      return true;
    },
    /** Stops the clock; steps taken and not yet drawn are the caller's to draw (it redraws on pause). */
    pause() {
      if (!playing) return;
      stop();
      process.pause?.();
      changed();
    },
    toggle() {
      if (playing) this.pause();
      else this.play();
    },
    /** One step now, when paused: the records taken ([] when finished or playing). */
    step() {
      if (playing || process.finished) return [];
      return process.advance(1);
    },
    setSpeed(n) {
      if (Number.isFinite(n) && n > 0) stepsPerSecond = n;
    },
    get speed() { return stepsPerSecond; },
    /** On screen or not: off screen the clock stops (play resumes when seen again). */
    setVisible(v) {
      visible = Boolean(v);
      if (visible) schedule();
      else {
        frames.cancel(name);
        lastTime = 0;
      }
    },
    /** fn({ playing }) whenever play starts or stops, whoever started or stopped it. */
    onChange(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    destroy() {
      stop();
      watchers.clear();
      if (ownFrames) frames.destroy();
    },
  };
}
