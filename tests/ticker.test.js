// ticker.test.js: the shell's clock (web/page/shell/ticker.js, frames.js) on a process of plain
// counters, in Node (a frame is a 16 ms timer there). Nothing here measures time: the tests wait
// for the process to finish and check what the ticker asked of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTicker, MAX_STEPS_PER_FRAME } from '../web/page/shell/ticker.js';
import { createFrameScheduler } from '../web/page/shell/frames.js';

/** A process of `total` steps that records how many each call asked for. */
function counter(total) {
  const asked = [];
  let step = 0;
  return {
    asked,
    get step() { return step; },
    get finished() { return step >= total; },
    advance(n) {
      asked.push(n);
      const records = [];
      for (let i = 0; i < n && step < total; i++) records.push({ step: ++step });
      return records;
    },
  };
}

test('play runs the process to its end, never more than MAX_STEPS_PER_FRAME a frame, then stops by itself', async () => {
  const process = counter(40);
  const drawn = [];
  const changes = [];
  let ticker;
  await new Promise((resolve) => {
    ticker = createTicker({ process, speed: 100000, onFrame: ({ records }) => drawn.push(...records.map((r) => r.step)), onEnd: resolve });
    ticker.onChange(({ playing }) => changes.push(playing));
    assert.equal(ticker.play(), true);
  });
  assert.equal(process.step, 40);
  assert.ok(process.asked.every((n) => n >= 1 && n <= MAX_STEPS_PER_FRAME), `asked ${process.asked}`);
  assert.equal(ticker.playing, false);
  assert.deepEqual(changes, [true, false]);
  // every step but those of the last frame was drawn (onEnd draws the end), in order
  assert.deepEqual(drawn, drawn.map((_, i) => i + 1));
  assert.equal(ticker.play(), false, 'a finished process does not play');
  assert.deepEqual(ticker.step(), []);
  ticker.destroy();
});

test('step takes one step when paused and none while playing; pause and out of view stop the clock', async () => {
  const process = counter(1000);
  const ticker = createTicker({ process, speed: 60 });
  assert.deepEqual(ticker.step(), [{ step: 1 }]);
  ticker.setVisible(false);
  ticker.play();
  assert.deepEqual(ticker.step(), [], 'no single step while playing');
  // out of view: frames pass and nothing is asked of the process
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(process.asked.length, 1);
  ticker.setVisible(true);
  await new Promise((resolve) => { const wait = () => (process.asked.length > 1 ? resolve() : setTimeout(wait, 5)); wait(); });
  ticker.pause();
  const asked = process.asked.length;
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(process.asked.length, asked, 'paused: nothing more');
  ticker.destroy();
});

test('the frame scheduler runs a job once per frame however often it is asked, and never after cancel or destroy', async () => {
  const frames = createFrameScheduler();
  const ran = [];
  for (let i = 0; i < 5; i++) frames.request('redraw', () => ran.push(`redraw ${i}`));
  frames.request('other', () => ran.push('other'));
  frames.request('gone', () => ran.push('gone'));
  frames.cancel('gone');
  assert.equal(frames.pending('redraw'), true);
  await new Promise((resolve) => frames.request('last', resolve));
  assert.deepEqual(ran, ['redraw 4', 'other']);
  frames.request('late', () => ran.push('late'));
  frames.destroy();
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.deepEqual(ran, ['redraw 4', 'other']);
});
