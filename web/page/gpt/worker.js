// gpt/worker.js: the writer's training run (run.js) in a Web Worker, so that the page only draws.
// It holds the API's JavaScript; the page (gpt/store.js) sends it the page's compiled WebAssembly
// modules first ({ type: 'modules', modules }: a WebAssembly.Module can be sent to a dedicated
// worker, so the bundles leave the bytes out of this script: tools/build-page.mjs), then commands,
// with the text to train on, and draws what it reports. Its first message says it started: until
// then the page may still fall back to running it on its own thread (local-run.js).
import { load } from '../../qkv-lab.js';
import { useCompiledModules } from '../../engine-sources.js';
import { createRun } from './run.js';

let given;
const modules = new Promise((resolve) => { given = resolve; });
const run = createRun({
  post: (message, transfer) => self.postMessage(message, transfer || []),
  // the API instantiates the page's modules (web/engine-sources.js) instead of its own bytes
  api: () => modules.then((m) => { if (m) useCompiledModules(m); return load({ gpt: true }); }),
});
self.onmessage = (event) => {
  if (event.data?.type === 'modules') given(event.data.modules);
  else run.receive(event.data);
};
self.postMessage({ type: 'started' });
