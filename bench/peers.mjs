// peers.mjs: what the benchmark compares qkv-lab with (TensorFlow.js with its WebAssembly
// backend, onnxruntime-web: about 214 MB) is declared in bench/package.json and installed into
// bench/node_modules by the benchmark itself, so that the package's own `npm ci` (the page, the
// build and the tests: about 93 MB) does not carry it. Node resolves bench/*.mjs's imports from
// bench/node_modules first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH = path.dirname(fileURLToPath(import.meta.url));
export const PEERS_MODULES = path.join(BENCH, 'node_modules');

/** Whether bench/node_modules is what bench/package-lock.json describes (npm ci writes its copy). */
export function peersInstalled() {
  const installed = path.join(PEERS_MODULES, '.package-lock.json');
  if (!fs.existsSync(installed)) return false;
  return fs.statSync(installed).mtimeMs >= fs.statSync(path.join(BENCH, 'package-lock.json')).mtimeMs;
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
