// shell/run-channel.js: where a section's live run takes its commands (the writer's gpt/store.js,
// fine-tuning's finetune/store.js): the run's Web Worker once it has said it started
// (shell/worker-host.js); until then the commands wait here, and if the worker cannot be made, a
// Content-Security-Policy refuses it, or it fails before it starts, they go to the same run on
// the page's own thread (the section's local-run.js), and the reason is said.
import { load } from '../../qkv-lab.js';
import { compiledModulesOf } from '../../engine-sources.js';

// the compiled modules of the page's API instance, with its GPT engine: what the worker
// instantiates (the bundled worker carries no WebAssembly of its own)
const pageModules = () => load({ gpt: true }).then((qkv) => {
  const m = compiledModulesOf(qkv);
  return m && m.gptModule ? { ...m } : null;
}, () => null);

/**
 * openRunChannel({ source, url, createLocal, receive, onThread, onError, stopped }) → { postMessage, terminate }
 *   source, url   the worker's bundled script (a string, run from a blob: URL) or, with none, its
 *                 module URL (gpt/worker-source.js, finetune/worker-source.js)
 *   createLocal() the run on the page's thread: { postMessage, onmessage, terminate }
 *   receive(m)    each message of the run, from wherever it runs
 *   onThread(t)   t = { where: 'worker' | 'page', reason }: where the run now is
 *   onError(msg)  the started worker failed
 *   stopped       the message when the worker's error event has none
 */
export function openRunChannel({ source, url: workerURL, createLocal, receive, onThread, onError, stopped }) {
  let target = null;     // where commands go: the started worker or the local run
  const early = [];      // [message, transfer] sent before that
  let real = null;
  let url = null;
  let ended = false;     // terminate() was called: nothing may start a run again
  const doc = typeof document === 'undefined' ? null : document;
  const toPage = (reason) => {
    if (target || ended) return;
    unlisten();
    real?.terminate();
    if (url) URL.revokeObjectURL(url);
    real = null;
    target = createLocal();
    target.onmessage = (event) => receive(event.data);
    for (const [message] of early.splice(0)) target.postMessage(message);
    onThread(Object.freeze({ where: 'page', reason }));
  };
  // a Content-Security-Policy that refuses the worker says so in an event (the worker's error
  // event says nothing): its directive becomes the reason
  const refused = (event) => {
    const blocked = String(event.blockedURI);
    if (!(url ? blocked.startsWith('blob') : blocked.includes('worker.js')) || !/^(worker|script|child|default)-src/.test(event.effectiveDirective)) return;
    toPage(`Content-Security-Policy ${event.effectiveDirective}`);
  };
  const unlisten = () => doc?.removeEventListener('securitypolicyviolation', refused);
  const channel = {
    postMessage(message, transfer) { if (target) target.postMessage(message, transfer); else early.push([message, transfer]); },
    // a late policy violation or worker error must not replay the queued commands into a new
    // run after this (each run holds a whole GPT on the shared WebAssembly heap)
    terminate() {
      ended = true;
      unlisten();
      early.length = 0;
      (target || real)?.terminate();
      if (url) URL.revokeObjectURL(url);
      target = real = null;
    },
  };
  doc?.addEventListener('securitypolicyviolation', refused);
  try {
    if (source) url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    real = url ? new Worker(url) : new Worker(workerURL, { type: 'module' });
  } catch (error) {
    toPage(String(error.message || error));
    return channel;
  }
  real.onmessage = (event) => {
    if (event.data?.type !== 'started') { receive(event.data); return; }
    unlisten();
    // first the page's compiled WebAssembly, then the commands that waited
    const started = real;
    pageModules().then((modules) => {
      if (real !== started) return;
      real.postMessage({ type: 'modules', modules });
      target = real;
      for (const [message, transfer] of early.splice(0)) real.postMessage(message, transfer || []);
      onThread(Object.freeze({ where: 'worker', reason: null }));
    });
  };
  real.onerror = (event) => {
    const message = event.message || stopped;
    // before it started: a policy violation, if there is one, is reported next; it names the reason
    if (target !== real) {
      event.preventDefault?.();
      if (!target) setTimeout(() => { unlisten(); toPage(message); }, 0);
      return;
    }
    onError(message);
  };
  return channel;
}
