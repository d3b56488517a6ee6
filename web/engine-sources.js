// engine-sources.js: the internal API by which a bundle that leaves part of the engine out gets it
// from the bundle that carries it (docs/architecture.md, "The shell: registry, ticker, scheduler").
// Not part of the package's public API: the page, the widget and the writer's worker use it.
//
//   provideGPTEngine({ chunk, engine })   the GPT engine's two modules (dist/qkv-gpt.js's `gpt`
//                                         and gpt.js), from the bundle that carries them (the
//                                         classic widget's GPT add-on: web/page/gpt/gpt-sections.js)
//   provideGPTEngine(() => promise)       how to fetch such a bundle (the classic widget's core:
//                                         it loads its GPT add-on), so that load({ gpt: true })
//                                         works before any GPT section was shown
//   provideModel(Model)                   the trainable model's class (web/model.js), which createModel
//                                         builds: from the bundle that carries it (the training
//                                         sections; the classic widget's training add-on, whose core
//                                         leaves model.js out, tools/build-page.mjs), or from
//                                         qkv-lab.js once loadModelEngine() has imported model.js
//   useCompiledModules(modules)           compiled WebAssembly modules the next load() instantiates
//                                         instead of its own bytes ({ kernels, kernelModule,
//                                         coreModule, gptModule, gptKernelModule }: the writer's
//                                         worker gets the page's)
//   compiledModulesOf(qkv)                the modules an instance was made from (what the page
//                                         sends its worker), or null
//
// These used to be properties under Symbol.for() keys on globalThis and on the instance, read by
// whoever knew the name: now they are calls with one owner, and a module that looks them up
// imports them. Every copy of the API in one bundle shares this module (the classic widget's
// add-ons import it from the core: tools/build-page.mjs).

let modelClass = null;
let gptSource = null;
const waiting = new Set();
let compiled = null;
const instanceModules = new WeakMap();

/** source: { chunk, engine } (the engine itself) or () → Promise (what brings it: it then calls provideGPTEngine again). */
export function provideGPTEngine(source) {
  const direct = typeof source !== 'function';
  // the engine itself is never replaced by a way to fetch it
  if (gptSource && typeof gptSource === 'object' && !direct) return;
  gptSource = source;
  if (direct) {
    for (const resolve of [...waiting]) resolve(source);
    waiting.clear();
  }
}

/**
 * The GPT engine's { chunk, engine } from a provider, or null when none was provided (an ES build
 * then imports its own). A provider that fetches (the classic widget's) is asked once per call,
 * and its promise rejects with its own message when it cannot fetch.
 */
export function gptEngineProvided() {
  if (gptSource === null) return Promise.resolve(null);
  if (typeof gptSource === 'object') return Promise.resolve(gptSource);
  const fetchIt = gptSource;
  return new Promise((resolve, reject) => {
    waiting.add(resolve);
    // the fetched bundle provides the engine while it runs (resolve above); if it ran and did not, say so
    Promise.resolve().then(fetchIt).then(() => {
      waiting.delete(resolve);
      resolve(typeof gptSource === 'object' ? gptSource : null);
    }, (error) => { waiting.delete(resolve); reject(error); });
  });
}

/** modules: { kernels, kernelModule, coreModule, gptModule?, gptKernelModule? } that the next instantiation uses. */
export function useCompiledModules(modules) {
  compiled = modules;
}

/** The modules given by useCompiledModules, or null (qkv-lab.js reads them when it instantiates). */
export const compiledModulesGiven = () => compiled;

/** Records the modules `instance` was made from (qkv-lab.js); gptModule and gptKernelModule are added when the engine is attached. */
export function recordCompiledModules(instance, modules) {
  instanceModules.set(instance, modules);
}

/** The modules the instance `qkv` was made from: { kernels, kernelModule, coreModule, gptModule, gptKernelModule }, or null. */
export function compiledModulesOf(qkv) {
  return instanceModules.get(qkv) ?? null;
}

/** Model (web/model.js) from a bundle that carries it, for a bundle that leaves it out. */
export function provideModel(Model) {
  modelClass = Model;
}

/** The Model class provided, or null. */
export const modelProvided = () => modelClass;
