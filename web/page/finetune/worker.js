// finetune/worker.js: the fine-tuning run (run.js) in a Web Worker, so that the page only draws.
// As the writer's worker: the page sends it its compiled WebAssembly modules, then the base
// model's file and commands (shell/worker-host.js: what every section's worker does).
import { hostRun } from '../shell/worker-host.js';
import { createFineTuneRun } from './run.js';

hostRun(createFineTuneRun);
