// load() where WebAssembly is missing (an engine run with it turned off: Node's --jitless, a
// browser's "disable JIT" security setting, Safari's Lockdown Mode): the promise rejects with an
// Error that says what is missing and what to do, not "ReferenceError: WebAssembly is not
// defined"; and load({ simd: true }) does not claim that the engine lacks SIMD128. Each case
// runs in a child process, since the module under test must be imported without WebAssembly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const API = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'web', 'qkv-lab.js')).href;

function run(nodeArgs, prelude) {
  const script = `${prelude}
    const { load, simdSupported } = await import(${JSON.stringify(API)});
    const out = { simdSupported: simdSupported(), results: [] };
    for (const options of [undefined, { simd: true }, { simd: false }, { kernels: 'relaxed-simd' }, { fresh: true }]) {
      try {
        const qkv = await load(options);
        out.results.push('loaded ' + qkv.kernels);
      } catch (error) {
        out.results.push(error.constructor.name + ': ' + error.message);
      }
    }
    console.log(JSON.stringify(out));`;
  const env = { ...process.env };
  delete env.QKV_LAB_SIMD;
  const stdout = execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(stdout.trim().split('\n').pop());
}

function checkRefusals(out) {
  assert.equal(out.simdSupported, false);
  for (const message of out.results) {
    assert.match(message, /^Error: load: this JavaScript engine has no WebAssembly, which qkv-lab needs: every current browser and Node\.js has it unless it is disabled \(Node's --jitless/);
    assert.doesNotMatch(message, /SIMD128|ReferenceError/, 'it must not blame SIMD128 or fail on the missing name');
  }
}

test('without WebAssembly (deleted from globalThis before the API is imported), every load() rejects saying what is missing and what to do', () => {
  checkRefusals(run([], 'delete globalThis.WebAssembly;'));
});

test('under node --jitless (WebAssembly turned off), the same', () => {
  checkRefusals(run(['--jitless'], ''));
});

test('with WebAssembly, the same child process loads (the harness itself works)', () => {
  const out = run([], '');
  assert.equal(out.simdSupported, true);
  assert.match(out.results[0], /^loaded (simd128|relaxed-simd)$/);
  assert.equal(out.results[1], 'loaded simd128');
  assert.equal(out.results[2], 'loaded scalar');
});
