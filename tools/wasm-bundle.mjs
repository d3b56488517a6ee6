// wasm-bundle.mjs: checks the WebAssembly modules build.sh made and writes them, as base64 of
// DEFLATE, into web/dist/qkv-wasm.js (the core and the SIMD128 kernels, one stream), the module
// web/loader.js instantiates them from, web/dist/qkv-scalar.js (the scalar kernels) and, when
// built, web/dist/qkv-relaxed.js (the relaxed-SIMD kernels; else that module says there are
// none): load() imports those two only where it runs them, so bundlers split them off and the
// API's first load does not carry them.
//   node [--experimental-wasm-relaxed-simd] tools/wasm-bundle.mjs CORE.wasm KERNELS-SIMD.wasm \
//     KERNELS-SCALAR.wasm OUT.js SCALAR-OUT.js RELAXED-OUT.js GPT.wasm CORE-GLUE.js GPT-OUT.js \
//     [KERNELS-RELAXED.wasm]
//
// The kernels share the core's memory, so a kernel module must own nothing in it: it may import
// only env.memory, hold no data segment, and have no global but __stack_pointer, exported so
// that the API can point it at stack space the core allocated (see web/loader.js). And each
// must export every function the core imports from "qkv_kernels". A build that breaks any of
// this stops here instead of corrupting memory at run time.
// The GPT engine (GPT.wasm, written to GPT-OUT.js, dist/qkv-gpt.js, which load({ gpt: true })
// imports) shares the memory too, under the same rules; its other imports (env.name) must each
// be a kernel export or a function the core exports, and GPT-OUT.js carries the core's minified
// export name of each (read from the glue, CORE-GLUE.js), for web/loader.js to bind them.
// The GPT kernels (GELU's loops, AdamW, the output layer's softmax), built beside each kernel
// build as qkv-gpt-kernels-NAME.wasm next to its qkv-kernels-NAME.wasm, follow the kernels'
// rules and travel in GPT-OUT.js with the engine (one small stream per build): the first load
// of the API does not carry them.
import fs from 'node:fs';
import { deflateRawSync, gzipSync } from 'node:zlib';

const [corePath, simdPath, scalarPath, outPath, scalarOutPath, relaxedOutPath, gptPath, gluePath, gptOutPath, relaxedPath] =
  process.argv.slice(2);
if (!gptOutPath) {
  throw new Error('usage: node tools/wasm-bundle.mjs CORE KERNELS-SIMD KERNELS-SCALAR OUT.js SCALAR-OUT.js RELAXED-OUT.js GPT CORE-GLUE.js GPT-OUT.js [KERNELS-RELAXED]');
}

/** Section ids present and the counts of the global and data sections. */
function sections(bytes) {
  const found = { globals: 0, data: 0 };
  let at = 8;
  const leb = () => {
    let result = 0, shift = 0, b;
    do { b = bytes[at++]; result |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80);
    return result >>> 0;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 6) found.globals = leb();
    if (id === 11) found.data = leb();
    at = end;
  }
  return found;
}

const core = new WebAssembly.Module(fs.readFileSync(corePath));
const wanted = WebAssembly.Module.imports(core).filter((i) => i.module === 'qkv_kernels').map((i) => i.name);
if (!WebAssembly.Module.imports(core).some((i) => i.kind === 'memory')) {
  throw new Error(`${corePath} does not import its memory: build it with -sIMPORTED_MEMORY=1`);
}
/**
 * A kernel module (the kernels, or the GPT kernels) at `path`, checked against the rules above:
 * it imports env.memory alone, owns no data, and has no global but an exported __stack_pointer,
 * which `stackRequired` (the GPT kernels always export it) requires, named in build.sh's
 * `exportsList`. `relaxed`: a relaxed-SIMD build (this Node must validate it). → { exports, fail }.
 */
function checkKernelModule(path, { exportsList, stackRequired = false, relaxed = false }) {
  const bytes = fs.readFileSync(path);
  if (relaxed && !WebAssembly.validate(bytes)) {
    throw new Error(`${path}: this Node does not validate relaxed SIMD: run tools/wasm-bundle.mjs with node --experimental-wasm-relaxed-simd`);
  }
  const module = new WebAssembly.Module(bytes);
  const imports = WebAssembly.Module.imports(module);
  const exports = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
  const fail = (why) => { throw new Error(`${path}: ${why}`); };
  if (imports.length !== 1 || imports[0].module !== 'env' || imports[0].name !== 'memory') {
    fail(`must import env.memory and nothing else, imports ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}`);
  }
  const { globals, data } = sections(bytes);
  if (data !== 0) fail(`has ${data} data segment(s); the kernels must not own memory`);
  const stackExported = exports.get('__stack_pointer') === 'global';
  if (globals > 1 || (globals === 1 && !stackExported) || (stackRequired && !stackExported)) {
    fail(`has ${globals} global(s); only an exported __stack_pointer is allowed${stackRequired ? `, and it must be (add it to ${exportsList} in build.sh)` : ''}`);
  }
  return { exports, fail };
}

for (const path of [simdPath, scalarPath, ...(relaxedPath ? [relaxedPath] : [])]) {
  const { exports, fail } = checkKernelModule(path, { exportsList: 'KERNEL_EXPORTS', relaxed: path === relaxedPath });
  for (const name of wanted) {
    if (exports.get(name) !== 'function') fail(`does not export ${name}, which the core imports (add it to KERNEL_EXPORTS in build.sh)`);
  }
}

// The GPT kernels of each build: the kernels' rules, and the same exports in every build.
const gptKernelsPath = (kernelsPath) => {
  const file = kernelsPath.replace(/qkv-kernels-(\w+)\.wasm$/, 'qkv-gpt-kernels-$1.wasm');
  if (file === kernelsPath || !fs.existsSync(file)) throw new Error(`${kernelsPath}: no GPT kernels beside it (${file}: build.sh's build_kernels makes both)`);
  return file;
};
const gptKernelPaths = { simd128: gptKernelsPath(simdPath), scalar: gptKernelsPath(scalarPath), ...(relaxedPath ? { 'relaxed-simd': gptKernelsPath(relaxedPath) } : {}) };
let gptKernelNames = null;
for (const [build, path] of Object.entries(gptKernelPaths)) {
  const { exports, fail } = checkKernelModule(path, { exportsList: 'GPT_KERNEL_EXPORTS', stackRequired: true, relaxed: build === 'relaxed-simd' });
  const names = [...exports].filter(([, kind]) => kind === 'function').map(([name]) => name).sort().join(' ');
  if (gptKernelNames !== null && names !== gptKernelNames) fail(`exports ${names}, another build ${gptKernelNames}`);
  gptKernelNames = names;
}

// The GPT engine: memory imported, no data, one global (its exported stack pointer), and every
// other import a kernel export, a GPT kernel export or one of the core's exported functions.
const kernelExports = new Set([
  ...WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(simdPath))).map((e) => e.name),
  ...gptKernelNames.split(' '),
]);
const glue = fs.readFileSync(gluePath, 'utf8');
const coreNames = new Map([...glue.matchAll(/Module\["_(\w+)"\]=Module\["asm"\]\["(\w+)"\]/g)].map((m) => [m[1], m[2]]));
const gptBytes = fs.readFileSync(gptPath);
const gptCoreImports = {};
{
  const module = new WebAssembly.Module(gptBytes);
  const fail = (why) => { throw new Error(`${gptPath}: ${why}`); };
  const exports = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
  for (const i of WebAssembly.Module.imports(module)) {
    if (i.module !== 'env') fail(`imports ${i.module}.${i.name}; every import comes from env`);
    if (i.kind === 'memory') { if (i.name !== 'memory') fail(`imports a memory named ${i.name}`); continue; }
    if (i.kind !== 'function') fail(`imports the ${i.kind} ${i.name}; only env.memory and functions may be imported`);
    if (kernelExports.has(i.name)) continue;
    if (!coreNames.has(i.name)) fail(`imports ${i.name}, which neither the kernels nor the core export (add it to GPT_CORE_IMPORTS in build.sh)`);
    gptCoreImports[i.name] = coreNames.get(i.name);
  }
  if (!WebAssembly.Module.imports(module).some((i) => i.kind === 'memory')) fail('does not import env.memory: link it with --import-memory');
  const { globals, data } = sections(gptBytes);
  if (data !== 0) fail(`has ${data} data segment(s); the GPT module must not own memory`);
  if (globals !== 1 || exports.get('__stack_pointer') !== 'global') fail(`has ${globals} global(s); only an exported __stack_pointer is allowed`);
}

// The core and the SIMD128 kernels, what nearly every engine runs, one after another in ONE raw
// DEFLATE stream (deflate finds the kernels' repeats of the core's names), then base64. Zopfli
// (the npm devDependency @gfx/zopfli, 15 iterations, about 2 s) writes a standard DEFLATE stream
// about 6% smaller than zlib's level 9; without node_modules, zlib's. Base64 of DEFLATE is a
// third smaller in the file than base64 of the bare bytes, and served gzipped it stays as small
// as gzip of the bare modules (web/inflate.js decodes it in a few milliseconds). The scalar
// kernels (engines without SIMD128) and the relaxed-SIMD ones each travel in a module of their
// own, dist/qkv-scalar.js and dist/qkv-relaxed.js, that load() imports only where it runs them:
// a bundler splits them off, so an app's first load carries the core and SIMD128 alone.
async function deflate(bytes) {
  try {
    const { deflateAsync } = (await import('@gfx/zopfli')).default;
    return { how: 'zopfli', packed: Buffer.from(await deflateAsync(bytes, { numiterations: 15 })) };
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    console.log('wasm: @gfx/zopfli is not installed (npm ci): compressing with zlib, a few % larger');
    return { how: 'zlib', packed: deflateRawSync(bytes, { level: 9 }) };
  }
}
const order = [['core', corePath], ['simd', simdPath]];
const files = order.map(([, path]) => fs.readFileSync(path));
const { packed, how } = await deflate(Buffer.concat(files));
fs.writeFileSync(outPath, `// qkv-wasm.js: generated by tools/wasm-bundle.mjs (do not edit): qkv-lab's WebAssembly core and
// SIMD128 kernels, raw-DEFLATE-compressed together and base64-encoded, so that loading never
// fetches (Node, browsers, file://, a strict CSP alike); web/loader.js inflates them.
//   core: RNG, positions, multi-head attention, model, allocator (its glue is qkv-core.js)
//   simd: the kernels (products, softmax, attention) with SIMD128
// (the scalar and relaxed-SIMD kernels: dist/qkv-scalar.js, dist/qkv-relaxed.js)
// sizes: each module's byte count, in this order; deflated: the two, one after another.
export const modules = {
  sizes: { ${order.map(([name], k) => `${name}: ${files[k].length}`).join(', ')} },
  deflated: ${JSON.stringify(packed.toString('base64'))},
};
`);
const scalarBytes = fs.readFileSync(scalarPath);
const scalarStream = (await deflate(scalarBytes)).packed;
fs.writeFileSync(scalarOutPath, `// qkv-scalar.js: generated by tools/wasm-bundle.mjs (do not edit): qkv-lab's kernels without
// SIMD128, raw-DEFLATE-compressed and base64-encoded. web/loader.js imports this module only
// where the engine has no SIMD128 (or the scalar kernels are asked for).
export const scalar = { size: ${scalarBytes.length}, deflated: ${JSON.stringify(scalarStream.toString('base64'))} };
`);

// The relaxed kernels: a stream of their own (they share little with the SIMD128 build: another
// compiler), in a module of their own.
let relaxedNote = 'none built';
if (relaxedPath) {
  const bytes = fs.readFileSync(relaxedPath);
  const stream = (await deflate(bytes)).packed;
  fs.writeFileSync(relaxedOutPath, `// qkv-relaxed.js: generated by tools/wasm-bundle.mjs (do not edit): qkv-lab's relaxed-SIMD
// kernels (f32x4.relaxed_madd: fused multiply-add), raw-DEFLATE-compressed and base64-encoded.
// web/loader.js imports this module only where the engine validates relaxed SIMD.
export const relaxed = { size: ${bytes.length}, deflated: ${JSON.stringify(stream.toString('base64'))} };
`);
  relaxedNote = `${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped), deflated ${(stream.length / 1024).toFixed(1)} KiB`;
} else {
  fs.writeFileSync(relaxedOutPath, `// qkv-relaxed.js: generated by tools/wasm-bundle.mjs (do not edit). This build has no relaxed-SIMD
// kernels (build.sh found no clang-16 and wasm-ld-16): load() runs SIMD128 or scalar.
export const relaxed = null;
`);
}

// The GPT engine: a stream of its own, in a module of its own, with the core's export names of
// what it imports from the core; and each build's GPT kernels, a stream each.
const gptStream = (await deflate(gptBytes)).packed;
const gptKernels = {};
for (const [name, path] of Object.entries(gptKernelPaths)) {
  const bytes = fs.readFileSync(path);
  gptKernels[name] = { size: bytes.length, deflated: (await deflate(bytes)).packed.toString('base64') };
}
fs.writeFileSync(gptOutPath, `// qkv-gpt.js: generated by tools/wasm-bundle.mjs (do not edit): qkv-lab's GPT engine (LayerNorm,
// GELU, the GPT of wasm/gpt.c), raw-DEFLATE-compressed and base64-encoded. web/loader.js imports
// this module only for load({ gpt: true }) (or qkv.loadGPTEngine()). core: the core's (minified)
// export of each function the engine imports from it. kernels: the GPT kernels (GELU's loops,
// AdamW, the output layer's softmax) of each kernel build, the one the instance runs instantiated
// beside the engine.
export const gpt = {
  size: ${gptBytes.length},
  core: ${JSON.stringify(gptCoreImports)},
  deflated: ${JSON.stringify(gptStream.toString('base64'))},
  kernels: {
${Object.entries(gptKernels).map(([name, k]) => `    ${JSON.stringify(name)}: { size: ${k.size}, deflated: ${JSON.stringify(k.deflated)} },`).join('\n')}
  },
};
`);

const size = (path) => {
  const bytes = fs.readFileSync(path);
  return `${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped)`;
};
console.log(`wasm: core ${size(corePath)}, kernels SIMD ${size(simdPath)}, scalar ${size(scalarPath)}; ` +
  `core and SIMD128 in one DEFLATE stream (${how}): ${(packed.length / 1024).toFixed(1)} KiB, scalar ${(scalarStream.length / 1024).toFixed(1)} KiB; relaxed SIMD kernels ${relaxedNote}; ` +
  `GPT engine ${size(gptPath)}, deflated ${(gptStream.length / 1024).toFixed(1)} KiB; ` +
  `its kernels ${Object.entries(gptKernelPaths).map(([name, path]) => `${name} ${size(path)}`).join(', ')}`);
