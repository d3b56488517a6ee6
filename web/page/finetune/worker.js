// finetune/worker.js: the fine-tuning run (run.js) in a Web Worker, so that the page only draws.
// As the writer's worker (gpt/worker.js): it holds the API's JavaScript; the page sends it the
// page's compiled WebAssembly modules first, then the base model's file and commands. Its first
// message says it started: until then the page may still run it on its own thread (local-run.js).
import { load } from '../../qkv-lab.js';
import { useCompiledModules } from '../../engine-sources.js';
import { createFineTuneRun } from './run.js';

let given;
const modules = new Promise((resolve) => { given = resolve; });
const run = createFineTuneRun({
  post: (message, transfer) => self.postMessage(message, transfer || []),
  api: () => modules.then((m) => { if (m) useCompiledModules(m); return load({ gpt: true }); }),
});
self.onmessage = (event) => {
  if (event.data?.type === 'modules') given(event.data.modules);
  else run.receive(event.data);
};
self.postMessage({ type: 'started' });
