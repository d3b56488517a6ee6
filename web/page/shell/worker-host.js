// shell/worker-host.js: what a section's Web Worker does around its run (the writer's
// gpt/worker.js, fine-tuning's finetune/worker.js): it holds the API's JavaScript; the page sends
// it the page's compiled WebAssembly modules first ({ type: 'modules', modules }: a
// WebAssembly.Module can be sent to a dedicated worker, so the bundles leave the bytes out of the
// worker's script: tools/build-page.mjs), then the run's commands. Its first message says it
// started: until then the page may still run the run on its own thread (the sections' local-run.js).
import { load } from '../../qkv-lab.js';
import { useCompiledModules } from '../../engine-sources.js';

/** createRun({ post, api }) → { receive(message) }: gpt/run.js's createRun or finetune/run.js's createFineTuneRun. */
export function hostRun(createRun) {
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
}
