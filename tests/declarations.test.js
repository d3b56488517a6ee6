// web/qkv-lab.d.ts against tests/types/usage.ts with every TypeScript the package supports: 7 and
// 5.x (most users are on 5). The package tests check the widget's declarations and the README's
// snippets with both too (tests/package-helpers.js, typecheck).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, TYPESCRIPTS, typecheck } from './package-helpers.js';

test('the compilers are TypeScript 7 and TypeScript 5.x', () => {
  const majors = TYPESCRIPTS.map(({ bin }) => Number(/Version (\d+)\./.exec(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }))[1]));
  assert.deepEqual(majors, TYPESCRIPTS.map((t) => t.major));
});

test('tests/types/usage.ts type-checks in strict mode with each of them', () => {
  typecheck(path.join(ROOT, 'tests', 'types'));
});
