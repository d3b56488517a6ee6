// training-store.test.js: the shared training run (web/page/training/store.js) in Node, through
// the same state object the page uses. It is built only when asked for, replays a link's step in
// chunks (yielding between them) to the same numbers as training there directly, clamps a step
// past the schedule and says so, goes back by replaying from the seed, starts a new run when a
// setting changes, takes a corpus only when it passes checkCorpus, keeps a long corpus out of the
// link, and frees every byte when the last section releases it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { createState } from '../web/page/shell/state.js';
import { createTrainingStore } from '../web/page/training/store.js';
import { modelOptions, resolveCorpus, URL_CORPUS_CHARS } from '../web/page/training/settings.js';

const qkv = await load({ model: true });

function setup(search = '') {
  const state = createState({ search });
  const store = createTrainingStore({ qkv, state });
  const events = [];
  store.subscribe((e) => events.push(e));
  return { state, store, events };
}

/** The page's run in plain API calls: createModel with the state's options, n steps. */
function reference(search, n) {
  const state = createState({ search });
  const model = qkv.createModel(modelOptions(state, resolveCorpus(state.get('corpus')).sentences));
  const losses = [];
  for (let i = 0; i < n; i++) losses.push(model.step().loss);
  return { model, losses };
}

test('nothing is built until a section asks; a link\'s step is replayed in chunks to the same numbers', async () => {
  const heap = qkv.heapUsed();
  const { store, events } = setup('?step=120&tseed=3');
  assert.equal(store.run, null);
  assert.equal(qkv.heapUsed(), heap, 'no model before ensure()');
  const release = store.acquire();
  const run = await store.ensure();
  assert.equal(run.step, 120);
  const replays = events.filter((e) => e.type === 'replay');
  // at most 25 steps a frame: 120 steps cannot be done in fewer than 5 chunks
  assert.ok(replays.length >= 4, `${replays.length} progress reports: the replay yielded between chunks`);
  assert.ok(replays.every((e, i) => i === 0 || e.done > replays[i - 1].done), 'progress only grows');
  assert.equal(events.at(-1).type, 'ready');
  const { model, losses } = reference('?tseed=3', 120);
  assert.equal(run.last.loss, losses[119], 'the replayed run is the run');
  assert.deepEqual(Array.from(run.model.embeddings().data), Array.from(model.embeddings().data));
  model.dispose();
  release();
  assert.equal(store.run, null, 'released: the run is gone');
  assert.equal(qkv.heapUsed(), heap, 'every byte freed');
  store.dispose();
});

test('a step past the schedule is clamped to its end, with a notice, and the link says the step shown', async () => {
  const { state, store, events } = setup('?step=1000000');
  const release = store.acquire();
  const run = await store.ensure();
  assert.equal(run.step, run.total);
  const notice = events.find((e) => e.type === 'notice');
  assert.deepEqual(notice, { type: 'notice', key: 'training.stepClamped', vars: { asked: 1000000, total: run.total } });
  assert.equal(state.get('step'), run.total);
  release();
  store.dispose();
});

test('back replays from the seed: the same numbers as having stopped there', async () => {
  const { store } = setup('?tseed=9');
  const release = store.acquire();
  await store.ensure();
  store.advance(7);
  const at6 = reference('?tseed=9', 6);
  await store.goTo(6);
  assert.equal(store.run.step, 6);
  assert.equal(store.run.last.loss, at6.losses[5]);
  assert.deepEqual(Array.from(store.run.model.embeddings().data), Array.from(at6.model.embeddings().data));
  at6.model.dispose();
  // forward from here continues the same run (no rebuild)
  const run = store.run;
  await store.goTo(9);
  assert.equal(store.run, run);
  assert.equal(store.run.step, 9);
  release();
  store.dispose();
});

test('a setting that defines the run starts a new one at step 0; the attention seed does not', async () => {
  const { state, store, events } = setup('?step=5');
  const release = store.acquire();
  await store.ensure();
  const first = store.run;
  state.set('seed', 7);   // the seed of the sections projections to symmetry
  await Promise.resolve();
  assert.equal(store.run, first, 'the attention seed leaves the run alone');
  state.set('opt', 'adam');
  state.set('lr', 0.01);
  await Promise.resolve();
  assert.notEqual(store.run, first);
  assert.equal(store.run.step, 0);
  assert.equal(store.run.model.optimizer, 'adam');
  assert.equal(store.run.model.lr, 0.01);
  assert.equal(state.get('step'), 0);
  assert.equal(events.filter((e) => e.type === 'run').length, 2, 'two settings, one new run');
  release();
  store.dispose();
});

test('a corpus is taken only when checkCorpus finds no error; a long one trains but stays out of the link', async () => {
  const { state, store, events } = setup();
  const release = store.acquire();
  await store.ensure();
  const before = store.run;
  assert.equal(store.setCorpus(''), false);
  assert.equal(store.setCorpus('一只 <b>猫</b> 在 叫'), false, 'markup');
  assert.equal(store.setCorpus('一只 猫\n<s> 在 叫'), false, 'the reserved boundary');
  assert.equal(store.run, before, 'a refused corpus changes nothing');
  assert.equal(store.setCorpus('一只 猫 在 叫\n一只 狗 在 叫'), true);
  assert.deepEqual([...store.run.vocab], ['<s>', '一只', '猫', '在', '叫', '狗']);
  assert.equal(state.get('corpus'), '一只 猫 在 叫\n一只 狗 在 叫');
  assert.equal(store.linkable, true);
  const long = Array.from({ length: 120 }, (_, i) => `句子 ${i} 很 长 呢`).join('\n');
  assert.ok(long.length > URL_CORPUS_CHARS);
  assert.equal(store.setCorpus(long), true);
  assert.equal(store.run.model.sentences.length, 120);
  assert.equal(store.linkable, false);
  assert.equal(state.get('corpus'), 'default', 'the link names the default corpus');
  assert.ok(events.some((e) => e.type === 'notice' && e.key === 'training.corpusNotLinked'));
  release();
  store.dispose();
});

test('what the views draw is computed once per step: the table, its projection, a word\'s neighbours', async () => {
  const { store } = setup('?tseed=2');
  const release = store.acquire();
  const run = await store.ensure();
  const table = run.table;
  assert.equal(run.table, table, 'read again at the same step: the same copy, not a new WASM read');
  assert.deepEqual(Array.from(table.data), Array.from(run.model.embeddings().data));
  const projection = run.projection;
  assert.equal(run.projection, projection);
  const near = run.nearest('猫', 3);
  assert.equal(run.nearest('猫', 3), near);
  assert.deepEqual(near, run.model.nearest('猫', 3));
  store.advance(1);
  assert.notEqual(run.table, table, 'a new step: a new table');
  assert.deepEqual(Array.from(run.table.data), Array.from(run.model.embeddings().data));
  assert.notEqual(run.nearest('猫', 3), near);
  release();
});

test('the 30-seed spread is a job of the store: chunks that yield, progress, 30 rows, stop() keeps what was measured', async () => {
  const heap = qkv.heapUsed();
  const { store } = setup();
  const spread = store.seedSpread;
  const events = [];
  spread.subscribe((e) => events.push(e));
  const options = { ...store.options, steps: 3 };
  const done = new Promise((resolve) => spread.subscribe((e) => { if (e.type === 'done') resolve(e); }));
  spread.start(options);
  assert.equal(spread.running, true, 'start() returns after the first chunk: the rest waits for later frames');
  const result = await done;
  assert.equal(result.stopped, false);
  assert.equal(result.rows.length, 30);
  assert.equal(result.steps, 3);
  assert.ok(events.some((e) => e.type === 'progress'), 'progress between the chunks');
  // each row is what measureModel says about that seed's model, trained as the job trains it
  const model = qkv.createModel({ ...options, seed: 7 });
  model.train();
  assert.equal(result.rows[7].loss, model.loss());
  model.dispose();
  // stop() ends the job early with the seeds measured so far
  spread.start(options);
  const stopped = new Promise((resolve) => spread.subscribe((e) => { if (e.type === 'done') resolve(e); }));
  spread.stop();
  const partial = await stopped;
  assert.equal(partial.stopped, true);
  assert.ok(partial.rows.length < 30);
  assert.equal(spread.running, false);
  store.dispose();
  assert.equal(qkv.heapUsed(), heap, 'every model the job made was disposed');
});

test('run.modelAt(k, { deadline }): a replay past its deadline stops after a step and goes on at the next call, to the same numbers as in one go', async () => {
  const { TrainingRun } = await import('../web/page/training/run.js');
  const qkv = await load({ fresh: true, model: true });
  const run = new TrainingRun(qkv, { seed: 3 });
  for (let i = 0; i < 150; i++) run.advance();
  const exact = Array.from(run.modelAt(130).embeddings().data);
  run.modelAt(0);   // the replica elsewhere, as after scrubbing back to the start
  let nulls = 0;
  let model = null;
  while (!(model = run.modelAt(130, { deadline: 0 }))) nulls++;
  assert.equal(nulls, 29, 'one step a call from the checkpoint at 100: 29 calls stop short, the 30th arrives');
  assert.equal(model.steps, 130);
  assert.deepEqual(Array.from(model.embeddings().data), exact);
  run.dispose();
});

test('within a frame\'s budget a step that does not fit is taken in parts: no record until it is whole, the same numbers', async () => {
  const { store } = setup('?batch=8&tseed=4');
  const release = store.acquire();
  try {
    const run = await store.ensure();
    const { model, losses } = reference('?batch=8&tseed=4', 3);
    for (let k = 0; k < 3; k++) {
      // a budget that has always run out: one sentence a call, so eight calls a step of 8
      let calls = 0, records = [];
      while (records.length === 0) {
        records = store.advance(1, { budgetMs: 0 });
        calls++;
        if (records.length === 0) {
          assert.equal(run.step, k, 'no step is counted while it is under way');
          // what the views read meanwhile is the run at its last whole step
          assert.equal(run.modelAt(k).steps, k);
        }
      }
      assert.equal(calls, 8, `step ${k + 1}: one sentence a call`);
      assert.equal(records[0].step, k + 1);
      assert.equal(records[0].loss, losses[k], `step ${k + 1}: the loss of a whole step`);
    }
    assert.deepEqual(Array.from(run.model.embeddings().data), Array.from(model.embeddings().data));
    // without a budget (the Step button) a step is taken whole
    assert.equal(store.advance(1).length, 1);
    model.dispose();
  } finally {
    release();
    store.dispose();
  }
});
