// The defaults createModel documents, in web/qkv-lab.d.ts (what an editor shows on hover) and in
// docs/api.md's createModel signature (which tools/docs-tables.mjs writes; tests/docs.test.js keeps
// the page as the tool writes it), are read and compared with the defaults the code applies: MODEL_DEFAULTS and DEFAULT_LR (web/model.js), and what a model created without options
// reports. A default changed in one place and not the others fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { load } from 'qkv-lab';
import { TRAINING_DEFAULTS } from '../web/corpus.js';
import { MODEL_DEFAULTS, DEFAULT_LR } from '../web/model.js';
import { GENERATORS } from '../tools/docs-tables.mjs';

const qkv = await load({ model: true });
const read = (file) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

/** What the code uses when an option is left out: every option but the corpus, lr per optimizer. */
function codeDefaults() {
  const out = { ...MODEL_DEFAULTS, lr: { ...DEFAULT_LR } };
  // and what models report, so that MODEL_DEFAULTS itself is the code's
  const plain = qkv.createModel();
  const adam = qkv.createModel({ optimizer: 'adam' });
  try {
    assert.deepEqual(
      { dim: plain.dim, seed: plain.seed, optimizer: plain.optimizer, batchSize: plain.batchSize, steps: plain.defaultSteps,
        beta1: plain.beta1, beta2: plain.beta2, eps: plain.eps, lr: { sgd: plain.lr, adam: adam.lr } },
      out);
  } finally {
    plain.dispose();
    adam.dispose();
  }
  return out;
}

/** A default as written: a number, a quoted string, TRAINING_DEFAULTS.x, or "a for sgd, b for adam". */
function value(text) {
  text = text.trim().replace(/ \([^()]*\)$/, '');  // a note after the value: 'sgd' (one step …)
  const perOptimizer = /^(\S+) for sgd(?: \(TRAINING_DEFAULTS\.lr\))?, (\S+) for adam$/.exec(text);
  if (perOptimizer) return { sgd: value(perOptimizer[1]), adam: value(perOptimizer[2]) };
  const reference = /^TRAINING_DEFAULTS\.(\w+)$/.exec(text);
  if (reference) return TRAINING_DEFAULTS[reference[1]];
  if (/^'[^']*'$/.test(text)) return text.slice(1, -1);
  if (/^-?[\d.]+(e-?\d+)?$/.test(text)) return Number(text);
  throw new Error(`cannot read the default ${JSON.stringify(text)}`);
}

test('web/qkv-lab.d.ts: every default ModelOptions documents is the one createModel applies', () => {
  const dts = read('web/qkv-lab.d.ts');
  const body = /export interface ModelOptions \{([\s\S]*?)\n\}/.exec(dts)[1];
  const documented = {};
  // a doc comment, then the one or more properties it describes (beta1 and beta2 share one)
  for (const [, comment, props] of body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*((?:\w+\?:[^;]*;\s*)+)/g)) {
    const names = [...props.matchAll(/(\w+)\?:/g)].map((m) => m[1]);
    const text = comment.replace(/\s*\*\s*/g, ' ').replace(/\s+/g, ' ');
    const m = /\bDefaults?:? (.*?)\.(?: |$)/.exec(text);
    assert.ok(m, `ModelOptions.${names.join('/')} documents no default`);
    if (names[0] === 'corpus') { assert.match(m[1], /built-in corpus/); continue; }
    const values = names.length > 1 ? m[1].split(/, /) : [m[1]];
    assert.equal(values.length, names.length, `ModelOptions.${names.join('/')}: "${m[0]}"`);
    names.forEach((name, i) => { documented[name] = value(values[i]); });
  }
  assert.deepEqual(documented, codeDefaults());
});

test('docs/api.md: the createModel signature gives the defaults createModel applies', () => {
  const row = /^qkv\.createModel\(\{ corpus, (.*) \}\)$/m.exec(GENERATORS['create-model']());
  assert.ok(row, 'the createModel signature');
  const code = codeDefaults();
  const stated = {};
  for (const part of row[1].split(/, /)) {
    const m = /^(\w+) = (.*)$/.exec(part);
    assert.ok(m, `every option but the corpus with its default: ${part}`);
    const lr = /^(\S+) \(sgd\) \/ (\S+) \(adam\)$/.exec(m[2]);
    stated[m[1]] = lr ? { sgd: value(lr[1]), adam: value(lr[2]) } : value(m[2]);
  }
  assert.deepEqual(Object.keys(stated).sort(), Object.keys(code).sort());
  for (const [name, v] of Object.entries(stated)) assert.deepEqual(v, code[name], `docs/api.md: ${name}`);
});
