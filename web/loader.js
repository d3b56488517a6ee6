// loader.js: how qkv-lab's WebAssembly gets running, apart from the API over it (qkv-lab.js):
// which kernel build this engine runs (probes), the modules that travel as chunks of their own
// (the scalar and relaxed-SIMD kernels, the pretrained poet) and their inflation, the core and
// kernels instantiated on one memory with its Heap (heap.js), the GPT engine attached on demand,
// and what to say when a Content-Security-Policy refuses WebAssembly. Not part of the package's
// API: qkv-lab.js's load() and QkvLab call it.
import createQkvCore from './dist/qkv-core.js';
import { modules as WASM } from './dist/qkv-wasm.js';
import { Heap } from './heap.js';
import { inflate } from './inflate.js';
import { gptEngineProvided, compiledModulesGiven, recordCompiledModules, compiledModulesOf } from './engine-sources.js';

// The smallest module with a SIMD128 instruction (v128 i8x16.popcnt of a splat): whether this
// engine validates it is whether it runs SIMD128.
const SIMD_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11);
// The same with relaxed SIMD: f32x4.relaxed_madd (0xfd 0x105) of three splats.
const RELAXED_PROBE = Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11);

/** The kernel builds, fastest first (see build.sh). */
export const KERNELS = ['relaxed-simd', 'simd128', 'scalar'];

export const hasWebAssembly = () => typeof WebAssembly === 'object' && WebAssembly !== null;

/** Whether this JavaScript engine runs WebAssembly SIMD128 (and load() uses the SIMD kernels). */
export function simdSupported() {
  return hasWebAssembly() && WebAssembly.validate(SIMD_PROBE);
}

export const relaxedSupported = () => hasWebAssembly() && WebAssembly.validate(RELAXED_PROBE);

/**
 * The compressed bytes of the kernel builds that do not travel with the core: { size, deflated },
 * or null where this build has none (relaxed SIMD needs clang-16). Each is a module of its own,
 * imported only where load() runs it: a bundler splits them off, so an app's first load carries
 * the core and the SIMD128 kernels alone. The pretrained model likewise, for loadPretrained().
 */
const CHUNKS = {
  'relaxed-simd': () => import('./dist/qkv-relaxed.js').then((m) => m.relaxed),
  scalar: () => import('./dist/qkv-scalar.js').then((m) => m.scalar),
  // The pretrained poet's file (tools/pretrained-bundle.mjs): { file, size, deflated }, or a
  // function → Promise of the same (the classic widget script fetches its add-on: tools/build-page.mjs)
  // or a rejection saying why there is none (a build without the model, the single-file page).
  pretrained: () => import('./dist/qkv-pretrained.js')
    .then((m) => (typeof m.pretrained === 'function' ? m.pretrained() : m.pretrained)),
};
const chunks = new Map();
export const chunk = (name) => {
  if (!chunks.has(name)) chunks.set(name, CHUNKS[name]().catch((error) => { chunks.delete(name); throw error; }));
  return chunks.get(name);
};
const relaxedModule = () => chunk('relaxed-simd');

/** The kernels asked for, or the fastest this engine runs and this build has. */
export async function pickKernels(kernels) {
  if (kernels === 'relaxed-simd') {
    if (!await relaxedModule()) {
      throw new Error('load: this build of qkv-lab has no relaxed-SIMD kernels (build.sh needs clang-16 and lld-16 for them)');
    }
    return kernels;
  }
  if (kernels) return kernels;
  const env = globalThis.process && globalThis.process.env;
  if (env && env.QKV_LAB_SIMD === '0') return 'scalar';
  if (relaxedSupported() && await relaxedModule()) return 'relaxed-simd';
  return simdSupported() ? 'simd128' : 'scalar';
}

/**
 * Base64 of raw DEFLATE → the first `first` of its `size` bytes. Uint8Array.fromBase64 where the
 * engine has it (Chromium 140+, Firefox 133+, Safari 18.2+: about 2 ms less on the page's load
 * than atob and a loop, measured in Chromium).
 */
export function decode(deflated, size, first = size) {
  let packed;
  if (typeof Uint8Array.fromBase64 === 'function') {
    packed = Uint8Array.fromBase64(deflated);
  } else {
    const text = atob(deflated);
    packed = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) packed[i] = text.charCodeAt(i);
  }
  return inflate(packed, size, first);
}

/**
 * The core's bytes and the kernels', inflated from dist/qkv-wasm.js (one stream: the core, then
 * the SIMD128 kernels, inflated only as far as needed) and dist/qkv-scalar.js or qkv-relaxed.js.
 */
async function wasmBytes(kernels) {
  const { sizes, deflated } = WASM;
  const total = sizes.core + sizes.simd;
  const all = decode(deflated, total, kernels === 'simd128' ? total : sizes.core);
  const core = all.subarray(0, sizes.core);
  if (kernels === 'simd128') return { core, kernels: all.subarray(sizes.core, total) };
  const { size, deflated: packed } = await chunk(kernels);
  return { core, kernels: decode(packed, size) };
}

/** Kernel stack: the SIMD builds' gemm_nn packs a panel of B there (8 KiB, wasm/matrix.c) and a block of
 * a stored transpose of A (64 KiB), and the scalar build's local arrays may live there: 24 KiB to spare. */
const KERNEL_STACK_BYTES = 98304;
/** The GPT engine's stack (its largest frame holds a few small arrays of offsets). */
const GPT_STACK_BYTES = 16384;
/** The GPT kernels' stack, where a build has one (their loops keep their values in locals). */
const GPT_KERNEL_STACK_BYTES = 4096;

/**
 * The engine's two modules: from a bundle that provides them (engine-sources.js: the classic
 * widget script leaves them out, and its GPT add-on brings them), else imported on demand.
 */
const gptModules = () => gptEngineProvided().then((given) => (given ? [given.chunk, given.engine]
  : Promise.all([import('./dist/qkv-gpt.js'), import('./finetune.js')]).then(([{ gpt }, engine]) => [gpt, engine])));

/**
 * Instantiates the GPT engine on lab's memory (see build.sh, build_gpt): its imports are the
 * kernels the instance runs, the GPT kernels of the same build (dist/qkv-gpt.js carries each
 * build's; instantiated here, on the same memory, as heap.gptKernels) and the core's functions
 * that dist/qkv-gpt.js names (by the core's minified export names); the instance's Heap gives it
 * its stack and makes its exports callable (heap.call(name)). heap.importHook, when set, is given
 * each import (name, function) and returns the function to bind (bench/gpt-profile.mjs times
 * them so). → web/finetune.js (web/gpt.js and fine-tuning), the engine's JavaScript side.
 */
export async function attachGPT(lab) {
  const [chunk, engine] = await gptModules();
  if (!chunk) {
    throw new Error('loadGPTEngine: this build of qkv-lab (the classic widget script) has no GPT engine; ' +
      "import the package's ES modules (import { load } from 'qkv-lab') for it");
  }
  const heap = lab._heap, core = heap.core;
  const given = compiledModulesGiven();
  const gptKernels = chunk.kernels?.[lab.kernels];
  if (!given?.gptKernelModule && !gptKernels) {
    throw new Error(`loadGPTEngine: this build of the GPT engine has no GPT kernels for the ${lab.kernels} kernels (a build of another version?)`);
  }
  const gptKernelModule = given?.gptKernelModule || await WebAssembly.compile(decode(gptKernels.deflated, gptKernels.size));
  const kernelInstance = await WebAssembly.instantiate(gptKernelModule, { env: { memory: heap.memory } });
  const env = { memory: heap.memory };
  const hook = heap.importHook || ((name, f) => f);
  for (const exports of [heap.kernels, kernelInstance.exports]) {
    for (const [name, value] of Object.entries(exports)) if (typeof value === 'function') env[name] = hook(name, value);
  }
  for (const [name, exported] of Object.entries(chunk.core)) {
    if (typeof core.asm[exported] !== 'function') throw new Error(`loadGPTEngine: the core does not export ${name} (a build of another version?)`);
    env[name] = hook(name, core.asm[exported]);
  }
  // memory.fill and memory.copy (bulk memory: Chrome 75, Firefox 79, Safari 15) do its zeroing
  // and copies: an older engine's compile error is named
  const gptModule = given?.gptModule || await WebAssembly.compile(decode(chunk.deflated, chunk.size)).catch((error) => {
    throw new Error(`loadGPTEngine: this engine cannot compile the GPT engine, which needs WebAssembly bulk memory (Chrome 75, Firefox 79, Safari 15): ${error.message}`, { cause: error });
  });
  const instance = await WebAssembly.instantiate(gptModule, { env });
  const own = compiledModulesOf(lab);
  if (own) Object.assign(own, { gptModule, gptKernelModule });
  // the stacks once both instances exist (a failed attempt allocates none)
  heap.giveStack(kernelInstance.exports, GPT_KERNEL_STACK_BYTES, 'loadGPTEngine');
  heap.gptKernels = kernelInstance.exports;
  heap.giveStack(instance.exports, GPT_STACK_BYTES, 'loadGPTEngine');
  heap.attach(instance.exports);
  return engine;
}

/**
 * The modules of `kernelsName` instantiated on one memory, its Heap made, and the instance
 * makeLab(heap, kernelsName) returns (qkv-lab.js: a QkvLab), whose compiled modules are recorded
 * (engine-sources.js). A Content-Security-Policy that refuses WebAssembly is named (cspError).
 */
export async function instantiate(kernelsName, makeLab) {
  try {
    return await instantiateModules(kernelsName, makeLab);
  } catch (error) {
    throw cspError(error) || error;
  }
}

/**
 * A page whose Content-Security-Policy does not let WebAssembly compile (no 'wasm-unsafe-eval'
 * in script-src) makes the browser throw a CompileError (or an EvalError) that names
 * 'unsafe-eval' or the policy: say what to add instead.
 */
function cspError(error) {
  const compile = error instanceof WebAssembly.CompileError || error instanceof EvalError;
  if (!compile || !/Content.Security.Policy|\bCSP\b|unsafe-eval/i.test(String(error.message))) return null;
  return new Error("load: this page's Content-Security-Policy does not let WebAssembly compile: add " +
    "'wasm-unsafe-eval' to its script-src (for example script-src 'self' 'wasm-unsafe-eval'). " +
    `The browser said: ${error.message}`, { cause: error });
}

/**
 * User Timing marks of a load's stages (bench/page.mjs reads them to say what the page's time
 * to first numbers goes to): qkv-lab:load, :inflated, :compiled (both modules), :instantiated.
 */
const mark = (name) => { if (globalThis.performance && performance.mark) performance.mark(`qkv-lab:${name}`); };

async function instantiateModules(kernelsName, makeLab) {
  mark('load');
  const given = compiledModulesGiven();
  let kernelModule, coreModule;
  if (given) {
    // another copy's modules (engine-sources.js useCompiledModules): its kernels, whichever this copy would choose
    ({ kernelModule, coreModule } = given);
    kernelsName = given.kernels;
  } else {
    const bytes = await wasmBytes(kernelsName);
    mark('inflated');
    // both modules compile at once (engines compile WebAssembly on background threads)
    [kernelModule, coreModule] = await Promise.all([WebAssembly.compile(bytes.kernels), WebAssembly.compile(bytes.core)]);
  }
  mark('compiled');
  let kernels = null, memory = null;
  let fail;
  const failed = new Promise((resolve, reject) => { fail = reject; });
  const core = await Promise.race([failed, createQkvCore({
    locateFile: (file) => file,  // never used to fetch; spares the glue a URL built from import.meta.url
    // The glue made the memory (-sIMPORTED_MEMORY) and the import object; the kernels get the
    // memory, then the core gets the kernels in place of the stand-ins build.sh declared.
    instantiateWasm(imports, receive) {
      memory = Object.values(imports).flatMap((o) => Object.values(o))
        .find((v) => v instanceof WebAssembly.Memory);
      WebAssembly.instantiate(kernelModule, { env: { memory } })
        .then((instance) => {
          kernels = instance.exports;
          bindKernels(imports, kernels);
          return WebAssembly.instantiate(coreModule, imports);
        })
        .then((instance) => receive(instance, coreModule), fail);
      return {};
    },
  })]);
  const heap = new Heap(core, kernels, memory);
  heap.giveStack(kernels, KERNEL_STACK_BYTES, 'load');
  const lab = makeLab(heap, kernelsName);
  recordCompiledModules(lab, { kernels: kernelsName, kernelModule, coreModule, gptModule: null, gptKernelModule: null });
  mark('instantiated');
  return lab;
}

/** Replaces each stand-in in the core's imports (marked qkvKernel by build.sh) by the kernel. */
function bindKernels(imports, kernels) {
  for (const table of Object.values(imports)) {
    for (const [key, value] of Object.entries(table)) {
      if (typeof value === 'function' && value.qkvKernel) {
        const kernel = kernels[value.qkvKernel];
        if (typeof kernel !== 'function') throw new Error(`load: the kernels do not export ${value.qkvKernel}`);
        table[key] = kernel;
      }
    }
  }
}
