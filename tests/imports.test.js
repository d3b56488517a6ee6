// imports.test.js: which folder's code may load which. The benchmark (bench/) and the tests
// (tests/) never load each other's modules: what both need (the browser harness, the seeded
// generator, TF.js and its GPT) lives in tools/, so changing a test cannot change a benchmark's
// figure, and the benchmark can be run, or left out, without the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir) {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true })
    .filter((f) => /\.(m?js|cjs)$/.test(f) && !f.split(path.sep).includes('node_modules') && !f.split(path.sep).includes('build'))
    .map((f) => path.join(dir, f));
}

/**
 * The relative paths a file loads, resolved from the repository's root: static imports and
 * re-exports, import(), require(), and the URLs it builds to load from (new URL('…', import.meta.url)).
 */
export function loadedPaths(file, text = fs.readFileSync(path.join(ROOT, file), 'utf8')) {
  const code = text.split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n');
  const patterns = [
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\bfrom\s*['"](\.[^'"\s]*)['"]/gm,
    /(?:^|[\s;])import\s*['"](\.[^'"\s]*)['"]/gm,
    /\b(?:import|require)\(\s*['"](\.[^'"\s]*)['"]\s*\)/g,
    /\bnew URL\(\s*['"](\.[^'"\s]*)['"]\s*,\s*import\.meta\.url\s*\)/g,
  ];
  const out = [];
  for (const re of patterns) {
    for (const [, spec] of code.matchAll(re)) out.push(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)));
  }
  return out;
}

const inside = (p, dir) => p === dir || p.startsWith(dir + path.sep);

test('bench/ and tests/ never load each other\'s modules (what both use is in tools/)', () => {
  const problems = [];
  for (const [from, to] of [['bench', 'tests'], ['tests', 'bench']]) {
    for (const file of sources(from)) {
      for (const p of loadedPaths(file)) if (inside(p, to)) problems.push(`${file} loads ${p}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the check sees every way a file loads another (so a file could not slip past it)', () => {
  const text = [
    "import { a } from '../tests/helpers.js';",
    "export { b } from '../tests/browser/harness.js';",
    "import '../tests/side-effect.js';",
    "const c = await import('../tests/gpt-reference.js');",
    "const d = require('../tests/x.cjs');",
    "const e = createRequire(new URL('../tests/y.mjs', import.meta.url));",
    "// import { not } from '../tests/commented.js';",
    "import { fine } from '../tools/random.mjs';",
  ].join('\n');
  assert.deepEqual(loadedPaths('bench/example.mjs', text).filter((p) => inside(p, 'tests')).sort(), [
    'tests/browser/harness.js', 'tests/gpt-reference.js', 'tests/helpers.js', 'tests/side-effect.js', 'tests/x.cjs', 'tests/y.mjs',
  ]);
});
