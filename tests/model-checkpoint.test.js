// model-checkpoint.test.js: Model.saveState() / loadState() (wasm/model.c's qkv_model_save_state /
// load_state), the checkpoints the training timeline replays from. A model loaded with a state
// trains on exactly as the saved one did: the same losses and batches, bit for bit, with SGD and
// Adam (whose moments and step count are part of the state), across an epoch's reshuffle. Bad
// states are refused with a clear error and change nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { PARAMETER_NAMES } from '../web/model.js';

const qkv = await load({ model: true });

function run(model, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = model.step();
    out.push([r.loss, r.batch.map((s) => s.join(' ')).join('|'), r.updatedRows.join(',')]);
  }
  return out;
}

for (const optimizer of ['sgd', 'adam']) {
  test(`${optimizer}: a model loaded with a saved state goes on exactly as the saved one`, () => {
    const options = { seed: 5, optimizer, batchSize: 3, dim: 8 };
    const a = qkv.createModel(options);
    // saved mid-epoch (41 × 3 sentences of the default corpus's 49: the third epoch), and the 60
    // steps after it cross two reshuffles, drawn from the saved generator
    run(a, 41);
    const state = a.saveState();
    const after = run(a, 60);
    const b = qkv.createModel(options);
    run(b, 7);   // somewhere else entirely: the state replaces all of it
    b.loadState(state);
    assert.equal(b.steps, 41);
    assert.deepEqual(run(b, 60), after);
    for (const name of PARAMETER_NAMES) assert.deepEqual(b.getParameter(name).data, a.getParameter(name).data, name);
    // 12 bytes per parameter (value, two moments) plus the generator's header
    const params = PARAMETER_NAMES.reduce((sum, name) => sum + a.getParameter(name).data.length, 0);
    assert.ok(state.bytes.length > 12 * params && state.bytes.length < 12 * params + 4096, `${state.bytes.length} bytes for ${params} parameters`);
    a.dispose(); b.dispose();
  });
}

test('a state of another shape, or no state, is refused and changes nothing', () => {
  const a = qkv.createModel({ seed: 1, dim: 8 });
  const b = qkv.createModel({ seed: 1, dim: 4 });
  const before = b.getParameter('embedding').data;
  assert.throws(() => b.loadState(a.saveState()), { name: 'RangeError', message: /vocabulary \d+ × dim 8; this one is \d+ × 4/ });
  assert.throws(() => b.loadState({}), { name: 'TypeError', message: /loadState: expected a state from saveState\(\)/ });
  assert.throws(() => b.loadState(null), TypeError);
  assert.deepEqual(b.getParameter('embedding').data, before);
  const forged = { ...a.saveState(), bytes: a.saveState().bytes.slice(0, 100) };
  const c = qkv.createModel({ seed: 1, dim: 8 });
  assert.throws(() => c.loadState(forged), /loadState/);
  a.dispose(); b.dispose(); c.dispose();
  assert.throws(() => a.saveState(), /disposed/);
});

test('saving and loading leave the heap as it was (no allocation outlives the call)', () => {
  const a = qkv.createModel({ seed: 2 });
  const used = qkv.heapUsed();
  for (let i = 0; i < 20; i++) a.loadState(a.saveState());
  assert.equal(qkv.heapUsed(), used);
  a.dispose();
});
