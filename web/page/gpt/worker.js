// gpt/worker.js: the writer's training run (run.js) in a Web Worker, so that the page only draws.
// The page (gpt/store.js) sends it its compiled WebAssembly modules, then commands with the text to
// train on, and draws what it reports (shell/worker-host.js: what every section's worker does).
import { hostRun } from '../shell/worker-host.js';
import { createRun } from './run.js';

hostRun(createRun);
