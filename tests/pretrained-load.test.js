// qkv.loadPretrained(): the pretrained Tang poet from dist/qkv-pretrained.js (the committed
// web/pretrained/tang-poet.qkvgpt, which tools/pretrained-bundle.mjs deflates into that module).
// It gives a GPT of the shipped shape whose weights are the file's, a new and independent one per
// call; importing the API, loading it and attaching the GPT engine load nothing of the model; a
// build without the file makes it reject saying so. (From the installed package and in bundlers:
// tests/package.test.js and tests/package-consumer.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from '../web/qkv-lab.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MODEL = path.join(ROOT, 'web', 'pretrained', 'tang-poet.qkvgpt');
// The shape of the shipped pretrained model (docs/pretrained.md): 4 layers, 4 heads, width 128,
// context 72, and a vocabulary of 6,509 characters with the end-of-text '\n' as token 0.
const SHAPE = { layers: 4, heads: 4, dim: 128, context: 72 };
const VOCAB = 6509;
const PROMPT = '白日依山尽，';

test('loadPretrained() attaches the GPT engine and resolves to a GPT of the shipped shape whose weights are the file\'s', async () => {
  const qkv = await load({ fresh: true });
  assert.equal(qkv.gptLoaded, false);
  const poet = await qkv.loadPretrained();
  assert.equal(qkv.gptLoaded, true);
  assert.deepEqual({ layers: poet.layers, heads: poet.heads, dim: poet.dim, context: poet.context }, SHAPE);
  assert.equal(poet.vocab.length, VOCAB);
  assert.equal(poet.vocab[0], '\n');
  // the same model as the committed file read directly: same vocabulary, logits bit for bit
  const direct = qkv.loadGPT(new Uint8Array(fs.readFileSync(MODEL)));
  try {
    assert.deepEqual(poet.vocab, direct.vocab);
    assert.equal(poet.parameterCount, direct.parameterCount);
    assert.deepEqual(poet.forward(PROMPT).logits.data, direct.forward(PROMPT).logits.data);
  } finally {
    direct.dispose();
    poet.dispose();
  }
});

test('two calls give two independent GPTs: disposing one leaves the other working, and frees only its own memory', async () => {
  const qkv = await load({ fresh: true });
  const a = await qkv.loadPretrained();
  const logits = a.forward(PROMPT).logits.data;
  const used = qkv.heapUsed();
  const b = await qkv.loadPretrained();
  assert.notEqual(a, b);
  assert.ok(qkv.heapUsed() > used, 'the second GPT has weights of its own');
  a.dispose();
  assert.equal(a.disposed, true);
  assert.equal(b.disposed, false);
  assert.throws(() => a.generate(PROMPT), /disposed/);
  assert.deepEqual(b.forward(PROMPT).logits.data, logits, 'the second GPT still computes the same logits');
  const { text } = b.generate(PROMPT, { seed: 1, temperature: 0.8, maxTokens: 10 });
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 0 && text.length <= 10, JSON.stringify(text));
  // a third, then both disposed: the memory is back where it was with a alone minus a's
  const c = await qkv.loadPretrained();
  c.dispose();
  b.dispose();
  assert.ok(qkv.heapUsed() < used, `${qkv.heapUsed()} bytes in use after disposing all, ${used} with one`);
});

// Node's module hooks (a thread of their own) write every URL resolved from qkv-lab's dist/ to a
// log file: what the API imports at import time, at load({ gpt: true }), and at loadPretrained().
test('nothing loads the model until loadPretrained() is called: not importing the API, not load({ gpt: true })', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-pretrained-'));
  try {
    const log = path.join(dir, 'resolved.log');
    const hooks = `
      import fs from 'node:fs';
      let log;
      export function initialize(data) { log = data.log; }
      export async function resolve(specifier, context, next) {
        const found = await next(specifier, context);
        if (/\\/web\\/dist\\//.test(found.url)) fs.appendFileSync(log, found.url.replace(/^.*\\/web\\/dist\\//, '') + '\\n');
        return found;
      }`;
    const main = `
      import fs from 'node:fs';
      import { register } from 'node:module';
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)}, { data: { log: ${JSON.stringify(log)} } });
      const read = () => (fs.existsSync(${JSON.stringify(log)}) ? fs.readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean) : []);
      const { load } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'web', 'qkv-lab.js')).href)});
      const imported = read();
      const qkv = await load({ gpt: true });
      const loaded = read();
      const poet = await qkv.loadPretrained();
      console.log(JSON.stringify({ imported, loaded, after: read(), layers: poet.layers }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', main], { encoding: 'utf8' }));
    assert.ok(result.imported.includes('qkv-wasm.js'), `the hooks saw the API's imports: ${result.imported}`);
    assert.ok(result.loaded.includes('qkv-gpt.js'), `the GPT engine was attached: ${result.loaded}`);
    assert.ok(!result.loaded.includes('qkv-pretrained.js'), `the model was loaded before it was asked for: ${result.loaded}`);
    assert.ok(result.after.includes('qkv-pretrained.js'), `loadPretrained() imports it: ${result.after}`);
    assert.equal(result.layers, SHAPE.layers);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a build without the model file: the tool says so, and loadPretrained() rejects saying the build has none', async () => {
  // a copy of the API's modules whose dist/qkv-pretrained.js the tool wrote from a missing file
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-pretrained-missing-'));
  try {
    const web = path.join(dir, 'web');
    fs.mkdirSync(path.join(web, 'dist'), { recursive: true });
    for (const f of fs.readdirSync(path.join(ROOT, 'web'))) if (f.endsWith('.js')) fs.copyFileSync(path.join(ROOT, 'web', f), path.join(web, f));
    for (const f of ['qkv-core.js', 'qkv-wasm.js', 'qkv-gpt.js', 'qkv-scalar.js', 'qkv-relaxed.js']) {
      fs.copyFileSync(path.join(ROOT, 'web', 'dist', f), path.join(web, 'dist', f));
    }
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
    const said = execFileSync(process.execPath, [path.join(ROOT, 'tools', 'pretrained-bundle.mjs'),
      path.join(dir, 'no-such-model.qkvgpt'), path.join(web, 'dist', 'qkv-pretrained.js')], { encoding: 'utf8' });
    assert.match(said, /no .*no-such-model\.qkvgpt.*loadPretrained\(\) rejects/);
    const { load: loadCopy } = await import(pathToFileURL(path.join(web, 'qkv-lab.js')).href);
    const qkv = await loadCopy({ fresh: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(qkv.loadPretrained(), (error) => error.constructor === Error &&
        /^loadPretrained: this build of qkv-lab has no pretrained model \(build\.sh found no \S*no-such-model\.qkvgpt\)/.test(error.message));
    }
    assert.equal(qkv.gptLoaded, false, 'nothing was attached for a model that is not there');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
