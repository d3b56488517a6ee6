// gpt/local-run.js: the writer's run (run.js) on the page's own thread, for a page that may not
// start its Web Worker (a Content-Security-Policy whose worker-src, or script-src, leaves out
// blob:). It looks like the worker to gpt/store.js (postMessage, onmessage, terminate) and uses
// the page's own API instance. It trains in chunks of at most CHUNK_MS of steps (one step when a
// step takes longer), yielding between them so that the page draws and the reader's commands run,
// and on batches of PAGE_BATCH windows, so that a step, which cannot be split, stays short.
import { load } from '../../qkv-lab.js';
import { createRun } from './run.js';

/** The longest chunk of training steps between two yields, in ms (a frame is 16.7 ms). */
export const CHUNK_MS = 12;
/**
 * The windows a step learns from here, in place of the worker's 16 (GPT_DEFAULTS.batch): a step
 * is one WebAssembly call the page waits for, and its time grows with the batch (the default GPT's
 * step at 16 windows is 60–150 ms, a task the reader feels; at 4, a quarter). The section says so:
 * a run here is not the same run as in a worker.
 */
export const PAGE_BATCH = 4;

export function createLocalRun() {
  const local = {
    onmessage: null,
    postMessage(message) { run?.receive(message); },
    terminate() { run?.stop(); run = null; },
  };
  // the run's messages arrive as the worker's would, after the code that sent them, in order
  let run = createRun({
    chunkMs: CHUNK_MS,
    batch: PAGE_BATCH,
    api: () => load({ gpt: true }),
    post: (data) => { queueMicrotask(() => { if (run) local.onmessage?.({ data }); }); },
  });
  return local;
}
