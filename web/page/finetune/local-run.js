// finetune/local-run.js: the fine-tuning run (run.js) on the page's own thread, for a page whose
// Content-Security-Policy refuses the worker. It looks like the worker to finetune/store.js
// (postMessage, onmessage, terminate) and uses the page's own API instance; its pieces yield
// between them as the worker's do, but a step is one WebAssembly call the page waits for.
import { load } from '../../qkv-lab.js';
import { createFineTuneRun } from './run.js';

export function createLocalFineTuneRun() {
  const local = {
    onmessage: null,
    postMessage(message) { run?.receive(message); },
    terminate() { run?.stop(); run = null; },
  };
  let run = createFineTuneRun({
    api: () => load({ gpt: true }),
    post: (data) => { queueMicrotask(() => { if (run) local.onmessage?.({ data }); }); },
  });
  return local;
}
