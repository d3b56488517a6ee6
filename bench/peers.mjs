// peers.mjs: what the benchmark compares qkv-lab with (TensorFlow.js with its WebAssembly
// backend, onnxruntime-web: about 214 MB) is declared in bench/package.json and installed into
// bench/node_modules by `./build.sh setup` and `./build.sh test` (for the tests that run them), or
// by the benchmark itself when they are missing, so that the package's own `npm ci` (the page, the
// build and the tests: about 93 MB) does not carry it. Node resolves bench/*.mjs's imports from
// bench/node_modules first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { notInstalledAsLocked } from '../tools/installed.mjs';
import { BENCH, PEERS_MODULES } from '../tools/tfjs.mjs';

export { BENCH, PEERS_MODULES };

/** Whether bench/node_modules holds what bench/package-lock.json locks (the installed versions read). */
export function peersInstalled() {
  return fs.existsSync(PEERS_MODULES) && notInstalledAsLocked(BENCH).length === 0;
}

/**
 * Installs the benchmark's peers (npm ci in bench/) unless they are installed already. Returns
 * null, or why they could not be installed (the benchmark then lists those rows as skipped).
 */
export function ensurePeers(log = console.log) {
  if (peersInstalled()) return null;
  log('installing the benchmark\'s peers (bench/package.json: TensorFlow.js, onnxruntime-web) into bench/node_modules: npm ci');
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: BENCH, stdio: ['ignore', 'inherit', 'inherit'] });
    return null;
  } catch (error) {
    return `npm ci in bench/ failed (${error.message.split('\n')[0]})`;
  }
}
