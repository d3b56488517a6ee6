// gpt/worker.js: the writer's training run (run.js) in a Web Worker, so that the page only draws.
// It holds the API and the WebAssembly; the page (gpt/store.js) sends it commands, with the text
// to train on, and draws what it reports. Its first message says it started: until then the page
// may still fall back to running it on its own thread (local-run.js).
import { load } from '../../qkv-lab.js';
import { createRun } from './run.js';

const run = createRun({ post: (message, transfer) => self.postMessage(message, transfer || []), api: () => load({ gpt: true }) });
self.onmessage = (event) => run.receive(event.data);
self.postMessage({ type: 'started' });
