// tfjs.mjs: TensorFlow.js with its WebAssembly backend (XNNPACK, SIMD, one thread), loaded from
// the benchmark's peers in bench/node_modules (bench/package.json; installed by `./build.sh
// setup`): nothing is fetched. The benchmark (bench/tfjs.mjs, bench/gpt.mjs) and the test that
// holds its TF.js GPT to PyTorch (tests/gpt-tfjs.test.js) load it from here.
//
// tfjs-core's Node entry (dist/tf-core.node.js) registers no gradients, which a training step
// needs (tf.train.sgd().minimize). So loadTf() bundles tfjs-core's ES modules, its
// register_all_gradients and tfjs-backend-wasm with esbuild into one CommonJS file (one copy of
// TF.js, as a browser bundle would have) and loads the backend's .wasm files from node_modules.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The benchmark's folder, whose package.json declares the peers, and where npm installs them. */
export const BENCH = path.join(ROOT, 'bench');
export const PEERS_MODULES = path.join(BENCH, 'node_modules');

let loaded = null;

/** { tf, backend, simd }: TF.js on its WebAssembly backend, one thread; bundled and loaded once. */
export async function loadTf() {
  loaded ||= (async () => {
    const dir = path.join(ROOT, '.build', 'bench');
    fs.mkdirSync(dir, { recursive: true });
    const entry = path.join(dir, 'tf-entry.mjs'), bundle = path.join(dir, 'tf.cjs');
    fs.writeFileSync(entry, "export * from '@tensorflow/tfjs-core';\n" +
      "import '@tensorflow/tfjs-core/dist/register_all_gradients';\n" +
      "export { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';\n");
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'esbuild'), [entry, '--bundle', '--platform=node',
      '--format=cjs', '--main-fields=module,main', `--outfile=${bundle}`, '--log-level=error',
      `--resolve-extensions=.js,.mjs`], { cwd: ROOT, env: { ...process.env, NODE_PATH: PEERS_MODULES } });
    const tf = createRequire(import.meta.url)(bundle);
    tf.setWasmPaths(path.join(PEERS_MODULES, '@tensorflow', 'tfjs-backend-wasm', 'dist') + path.sep);
    tf.setThreadsCount(1);
    await tf.setBackend('wasm');
    await tf.ready();
    return { tf, backend: tf.getBackend(), simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') };
  })();
  return loaded;
}
