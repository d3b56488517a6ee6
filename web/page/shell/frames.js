// shell/frames.js: the one place the page asks the browser for animation frames. Sections and the
// ticker (ticker.js) ask a scheduler for "this, next frame" under a name; asking again under the
// same name before that frame comes replaces the job, so a redraw asked for by ten events in one
// frame runs once. No flags to keep by hand, nothing left running after destroy().
//
//   const frames = createFrameScheduler();
//   frames.request('redraw', (time) => draw());   frames.cancel('redraw');   frames.destroy();
//
// Outside a browser (Node tests) a frame is a 16 ms timer.
const hasFrames = () => typeof requestAnimationFrame === 'function';

export function createFrameScheduler() {
  const due = new Map();   // name → fn(time), run in the next frame
  let id = 0;
  let destroyed = false;

  function runFrame(time) {
    id = 0;
    const jobs = [...due.values()];
    due.clear();
    for (const fn of jobs) fn(time);
  }

  function ask() {
    if (id || destroyed) return;
    id = hasFrames() ? requestAnimationFrame(runFrame) : setTimeout(() => runFrame(performance.now()), 16);
  }

  function stop() {
    if (!id) return;
    if (hasFrames()) cancelAnimationFrame(id);
    else clearTimeout(id);
    id = 0;
  }

  return {
    /** fn(time) runs in the next frame, once, whatever else was asked under `name` before it. */
    request(name, fn) {
      if (destroyed) return;
      due.set(name, fn);
      ask();
    },
    /** The job under `name` will not run. */
    cancel(name) {
      due.delete(name);
      if (!due.size) stop();
    },
    /** Whether a job under `name` waits for the next frame. */
    pending: (name) => due.has(name),
    destroy() {
      destroyed = true;
      due.clear();
      stop();
    },
  };
}
