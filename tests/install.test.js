// What `npm ci` installs: what the page, the build and the tests need, and not the benchmark's
// peers (TensorFlow.js and onnxruntime-web, about 214 MB), which bench/package.json declares and
// bench/run.mjs installs into bench/node_modules when the benchmark runs (bench/peers.mjs).
// Read from the package files and the sources' imports; nothing is installed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { ROOT } from './package-helpers.js';

const json = (file) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
const root = json('package.json');
const bench = json('bench/package.json');
const BENCH_PEERS = ['@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-core', 'onnxruntime-web'];

/**
 * The packages a source file imports: static imports and re-exports, import('x'), require('x'),
 * also inside strings (an app or an esbuild entry a test or the benchmark writes out).
 */
function importedPackages(file) {
  // comment lines left out: they name imports without making them
  const text = fs.readFileSync(file, 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n');
  const names = new Set();
  const patterns = [
    /(?:^|[\s;'"`])(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"\s]+)['"]/gm,
    /(?:^|[\s;'"`])import\s*['"]([^'"\s]+)['"]/gm,
    /\b(?:import|require)\(\s*['"]([^'"\s]+)['"]\s*\)/g,
  ];
  for (const re of patterns) {
    for (const [, spec] of text.matchAll(re)) {
      if (/^[./]/.test(spec) || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0])) continue;
      const name = /^(@[\w.-]+\/)?[\w.-]+/.exec(spec)?.[0];
      if (name) names.add(name);
    }
  }
  return names;
}

function sources(dir, exts = /\.(m?js)$/) {
  const out = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.name === 'node_modules' || rel === path.join('web', 'dist')) continue;
    if (entry.isDirectory()) out.push(...sources(rel, exts));
    else if (exts.test(entry.name)) out.push(path.join(ROOT, rel));
  }
  return out;
}

test('npm ci does not install the benchmark\'s peers: package.json and its lock leave them out', () => {
  const lock = json('package-lock.json');
  for (const name of BENCH_PEERS) {
    assert.ok(!(name in (root.devDependencies || {})) && !(name in (root.dependencies || {})), `package.json declares ${name}`);
    assert.ok(!(`node_modules/${name}` in lock.packages), `package-lock.json installs ${name}`);
  }
});

test('bench/package.json declares them, and its lock matches it', () => {
  assert.equal(bench.private, true);
  assert.deepEqual(Object.keys(bench.dependencies).sort(), BENCH_PEERS);
  const lock = json('bench/package-lock.json');
  assert.deepEqual(lock.packages[''].dependencies, bench.dependencies);
  for (const name of BENCH_PEERS) assert.ok(`node_modules/${name}` in lock.packages, `bench/package-lock.json lacks ${name}`);
});

/** The packages a one-off tool installs itself into a temporary folder (its `PINNED` table, as
 * tools/extract-quatrains.mjs has): they are the tool's, not the project's install. */
function selfInstalled(file) {
  const table = /const PINNED = \{([^}]*)\}/.exec(fs.readFileSync(file, 'utf8'));
  return new Set(table ? [...table[1].matchAll(/'([^']+)'\s*:/g)].map((m) => m[1]) : []);
}

test('every package a source imports is declared where it is installed', () => {
  const rootDeclared = new Set(Object.keys({ ...root.dependencies, ...root.devDependencies }));
  const benchDeclared = new Set([...rootDeclared, ...Object.keys(bench.dependencies)]);
  const problems = [];
  for (const file of [...sources('web'), ...sources('tests'), ...sources('tools'), ...sources('bench')]) {
    // bench/, and tools/tfjs.mjs, which bundles TF.js from bench/node_modules for the benchmark
    // and for the test of its TF.js GPT (tests/gpt-tfjs.test.js)
    const inBench = path.relative(ROOT, file).startsWith(`bench${path.sep}`) || path.relative(ROOT, file) === path.join('tools', 'tfjs.mjs');
    for (const name of importedPackages(file)) {
      if (name === 'qkv-lab') continue;  // the package itself (tests import it by name)
      if (selfInstalled(file).has(name)) continue;  // a tool that installs its own pinned packages
      if (!(inBench ? benchDeclared : rootDeclared).has(name)) problems.push(`${path.relative(ROOT, file)} imports ${name}`);
    }
  }
  assert.deepEqual(problems, [], 'an import whose package npm ci (or, for bench/, bench/package.json) does not install');
});

test('docs/data/sizes.json states the install sizes of the page + tests install and of the benchmark\'s own', () => {
  // the README's quick start says them (tools/docs-tables.mjs writes them there from this file)
  const { install } = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/data/sizes.json'), 'utf8'));
  assert.deepEqual(Object.keys(install).sort(), ['benchNodeModulesMB', 'nodeModulesMB']);
  for (const [what, mb] of Object.entries(install)) assert.ok(Number.isInteger(mb) && mb > 0, `${what}: ${mb}`);
  // the benchmark's peers (TensorFlow.js, onnxruntime-web) are the larger install
  assert.ok(install.benchNodeModulesMB > install.nodeModulesMB);
});
