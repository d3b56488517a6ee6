// package-helpers.js: what tests/package*.test.js share: the package packed with `npm pack` and
// installed from the tarball into a scratch project, as a user's `npm install` would (offline:
// the package has no dependencies, so no registry is needed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The TypeScript compilers the declarations are checked with: 7 (the package `typescript`) and
 * 5.x, which most users still run (the alias `typescript5`). Both install a `tsc` bin, so
 * node_modules/.bin/tsc (and `npx tsc`) may be either: call each by its own path.
 */
export const TYPESCRIPTS = Object.freeze([
  { name: 'TypeScript 7', major: 7, bin: path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc') },
  { name: 'TypeScript 5', major: 5, bin: path.join(ROOT, 'node_modules', 'typescript5', 'bin', 'tsc') },
]);

/** Runs `tsc --noEmit -p dir` with every compiler of TYPESCRIPTS; throws the first one's errors. */
export function typecheck(dir) {
  for (const { name, bin } of TYPESCRIPTS) {
    try {
      execFileSync(process.execPath, [bin, '--noEmit', '-p', dir], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      throw new Error(`${name} (tsc --noEmit -p ${dir}):\n${error.stdout}${error.stderr}`);
    }
  }
}

export function npm(args, options = {}) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

/**
 * Packs the package into a new scratch directory and installs the tarball into scratch/app
 * (an ES-module project). Returns { scratch, tarball, app, installed, remove() }.
 */
export function packAndInstall(prefix = 'qkv-lab-pack-') {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const [report] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch]));
  const tarball = path.join(scratch, report.filename);
  const app = path.join(scratch, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', '--offline', '--ignore-scripts', tarball], { cwd: app });
  return {
    scratch, tarball, app,
    installed: path.join(app, 'node_modules', 'qkv-lab'),
    remove: () => fs.rmSync(scratch, { recursive: true, force: true }),
  };
}
