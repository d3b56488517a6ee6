// gpt-run.test.js: the writer's run (web/page/gpt/run.js) in Node, as the page's thread runs it
// where a CSP refuses the worker (chunks of chunkMs, the evaluation in pieces) and as the worker
// runs it (one step a chunk): the same messages in the same order, and numbers equal to the same
// GPT trained and evaluated here with the API (evaluation in pieces: to 1e-12). Samples and
// evaluations are written in pieces, so that no chunk holds a step and its sample. Then the
// page's side (gpt/store.js) over a scripted worker: what its snapshot says while Start and Pause
// cross the run's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { createRun } from '../web/page/gpt/run.js';
import { isWellFormedQuatrain } from '../web/data/quatrain-form.js';
import { SAMPLE_EVERY, EVAL_EVERY, SAMPLE_POEMS, SAMPLE_TEMPERATURE } from '../web/page/gpt/worker-constants.js';

const qkv = await load({ gpt: true });
// a small text of quatrain-shaped lines (the form check has something to find), tiny GPT
const LINES = Array.from({ length: 40 }, (_, i) => {
  const c = (k) => String.fromCodePoint(0x4e00 + ((i * 7 + k * 3) % 30));
  const half = (o) => Array.from({ length: 5 }, (_, k) => c(k + o)).join('');
  return `${half(0)}，${half(5)}。${half(10)}，${half(15)}。`;
});
const TEXT = LINES.join('\n');
const OPTIONS = { layers: 1, heads: 2, dim: 8, context: 8, batch: 4, seed: 5, lr: 1e-2, steps: EVAL_EVERY + SAMPLE_EVERY };

/** Runs the schedule through createRun → every message, once the run has said it is done. */
function runAll(chunkMs) {
  return new Promise((resolve, reject) => {
    const messages = [];
    const run = createRun({
      chunkMs, api: async () => qkv,
      post(message) {
        messages.push(message);
        if (message.type === 'error') { run.stop(); reject(new Error(message.message)); }
        if (message.type === 'created') run.receive({ type: 'play' });
        if (message.type === 'progress' && message.done) { run.stop(); resolve(messages); }
      },
    });
    run.receive({ type: 'create', options: OPTIONS, text: TEXT, form: true });
  });
}

/** What the run should report, computed with the API directly. */
function expected() {
  const gpt = qkv.createGPT({ ...OPTIONS, text: TEXT });
  const sample = () => {
    const poems = Array.from({ length: SAMPLE_POEMS }, (_, seed) => gpt.generate('', { temperature: SAMPLE_TEMPERATURE, seed }).text);
    return { step: gpt.steps, poems, good: poems.filter(isWellFormedQuatrain).length };
  };
  const losses = [], samples = [sample()], evals = [];
  while (gpt.steps < OPTIONS.steps) {
    losses.push(gpt.step().loss);
    if (gpt.steps % SAMPLE_EVERY === 0) samples.push(sample());
    if (gpt.steps % EVAL_EVERY === 0 || gpt.steps === OPTIONS.steps) evals.push({ step: gpt.steps, ...gpt.evaluate() });
  }
  gpt.dispose();
  return { losses, samples, evals };
}

for (const [label, chunkMs] of [['in chunks of 3 ms, the evaluation in pieces (the page\'s thread)', 3],
  ['in chunks of 1 µs: a step or an evaluated window a chunk', 0.001], ['one step a chunk (the worker)', 0]]) {
  test(`the run ${label}: every step once, in order; samples and evaluations when due; the API's numbers`, async () => {
    const want = expected();
    const messages = await runAll(chunkMs);
    const steps = messages.filter((m) => m.type === 'progress' && m.loss !== null);
    assert.deepEqual(steps.map((m) => m.step), Array.from({ length: OPTIONS.steps }, (_, i) => i + 1));
    assert.deepEqual(steps.map((m) => m.loss), want.losses, 'the batch losses');
    // done is said once, last: after the end's sample and evaluation (a reader told "done" finds them)
    assert.deepEqual(messages.filter((m) => m.type === 'progress' && m.done).map((m) => m.step), [OPTIONS.steps]);
    const last = messages.filter((m) => m.type !== 'chunk').at(-1);
    assert.ok(last.type === 'progress' && last.done && !last.running, `the last message is ${JSON.stringify(last).slice(0, 80)}`);
    for (const type of ['sample', 'eval']) assert.equal(messages.filter((m) => m.type === type).at(-1).step, OPTIONS.steps, `the last ${type} is of the end`);
    const samples = messages.filter((m) => m.type === 'sample').map(({ step, poems, good }) => ({ step, poems, good }));
    assert.deepEqual(samples, want.samples);
    const evals = messages.filter((m) => m.type === 'eval');
    assert.deepEqual(evals.map((e) => e.step), want.evals.map((e) => e.step));
    for (const [i, e] of evals.entries()) {
      for (const k of ['train', 'val']) assert.ok(Math.abs(e[k] - want.evals[i][k]) <= 1e-12 * want.evals[i][k], `${k} at ${e.step}: ${e[k]} against ${want.evals[i][k]}`);
    }
    // no step between an evaluation's start and its result: the step after EVAL_EVERY comes after its eval
    const order = messages.filter((m) => m.type === 'eval' || (m.type === 'progress' && m.loss !== null)).map((m) => `${m.type}:${m.step}`);
    assert.ok(order.indexOf(`eval:${EVAL_EVERY}`) < order.indexOf(`progress:${EVAL_EVERY + 1}`), 'the steps wait for the evaluation');
    const chunks = messages.filter((m) => m.type === 'chunk');
    // a run in chunks reports each chunk (what the page's readout is drawn from; how long a chunk
    // takes is the benchmark's business, and no test reads it); the worker's run has none
    assert.equal(chunks.length > 0, chunkMs > 0, `${chunks.length} chunk messages`);
    if (chunkMs === 0.001) {
      // the evaluation at EVAL_EVERY took one chunk per window: as many as it has
      const from = messages.findIndex((m) => m.type === 'progress' && m.step === EVAL_EVERY && m.loss !== null);
      const to = messages.findIndex((m) => m.type === 'eval' && m.step === EVAL_EVERY);
      const gpt = qkv.createGPT({ ...OPTIONS, text: TEXT });
      const windows = gpt.evaluation().windows;
      gpt.dispose();
      assert.ok(windows > 2);
      // step 100's chunk (which starts the sample and the evaluation), one per poem of the
      // sample, then one per window, the last one's reported after the result
      assert.equal(messages.slice(from, to).filter((m) => m.type === 'chunk').length, SAMPLE_POEMS + windows);
      // a sample is written a poem a piece, not in its step's chunk: step 25's chunk, then one per
      // poem, the last one's reported after the sample
      const stepped = messages.findIndex((m) => m.type === 'progress' && m.step === SAMPLE_EVERY && m.loss !== null);
      const sampled = messages.findIndex((m) => m.type === 'sample' && m.step === SAMPLE_EVERY);
      assert.equal(messages.slice(stepped, sampled).filter((m) => m.type === 'chunk').length, SAMPLE_POEMS);
    }
    if (chunkMs === 0) {
      assert.equal(chunks.length, 0, 'the worker reports no chunks');
    }
  });
}

/** A run on TEXT with `steps` in its schedule, playing; onMessage(message, run) sees each message. */
function playing(steps, onMessage) {
  const run = createRun({
    api: async () => qkv,
    post(message) {
      if (message.type === 'created') run.receive({ type: 'play' });
      onMessage(message, run);
    },
  });
  run.receive({ type: 'create', options: { ...OPTIONS, steps }, text: TEXT, form: true });
  return run;
}

test('the worker answers a command inside an evaluation: a pause sent as the evaluation starts comes back before its result', async () => {
  const order = await new Promise((resolve) => {
    const seen = [];
    playing(EVAL_EVERY + SAMPLE_EVERY, (m, run) => {
      if (m.type === 'progress' && m.step === EVAL_EVERY && m.loss !== null) run.receive({ type: 'pause' });
      if (m.type === 'progress' && m.loss === null && !m.running) seen.push('paused');
      if (m.type === 'eval') { seen.push(`eval:${m.step}`); run.stop(); resolve(seen); }
    });
  });
  assert.deepEqual(order, ['paused', `eval:${EVAL_EVERY}`]);
});

for (const [label, command] of [['refused text', { type: 'create', options: OPTIONS, text: 'one line only', form: false }],
  ['a file that is not a model', { type: 'load', bytes: new Uint8Array([1, 2, 3, 4]) }]]) {
  // (the runner's timeout is the backstop of a run that stopped: it then stops the run, so the file ends)
  test(`${label} sent mid-run leaves the run as it was: it says why and keeps training`, { timeout: 60000 }, async (t) => {
    const after = await new Promise((resolve, reject) => {
      let error = null;
      const running = playing(2000, (m, run) => {
        if (m.type === 'progress' && m.step === 3 && m.loss !== null) run.receive(structuredClone(command));
        if (m.type === 'created' && error) reject(new Error('a new run was made'));
        if (m.type === 'error') error = m;
        if (error && m.type === 'progress' && m.loss !== null && m.step >= 6) { run.stop(); resolve({ error, step: m.step }); }
      });
      t.signal.addEventListener('abort', () => { running.stop(); reject(new Error('the run stopped after the refusal')); });
    });
    assert.equal(after.error.op, command.type);
    assert.match(after.error.message, command.type === 'create' ? /^createGPT: the text has 1 non-empty lines/ : /^loadGPT: /);
  });
}

test('a Step sent while a sample is being written is taken once the sample is done (it is not lost)', async () => {
  const messages = await new Promise((resolve) => {
    const seen = [];
    const run = createRun({
      chunkMs: 0.001, api: async () => qkv,
      post(message) {
        seen.push(message);
        // the first sample (step 0's) is written in pieces after 'created': a Step sent now waits for it
        if (message.type === 'created') run.receive({ type: 'step' });
        if (message.type === 'progress' && message.loss !== null) { run.stop(); resolve(seen); }
      },
    });
    run.receive({ type: 'create', options: OPTIONS, text: TEXT, form: true });
  });
  const order = messages.filter((m) => m.type === 'sample' || (m.type === 'progress' && m.loss !== null)).map((m) => `${m.type}:${m.step}`);
  assert.deepEqual(order, ['sample:0', 'progress:1']);
});

// ---- the page's side: gpt/store.js over a stand-in for the worker ----
// openRunChannel makes the worker with `new Worker`; this stand-in speaks run.js's protocol (the
// messages at the top of run.js, seq included) and takes a step only when the test says, and its
// answers reach the page only when the test lets them through. So the order of a command, the
// run's answer and the store's snapshot is the test's to choose, not the machine's. (The real run
// cannot stand in here: in one Node thread its chunks would starve the store's timers.)
class ScriptedWorker {
  static last = null;
  constructor() {
    ScriptedWorker.last = this;
    Object.assign(this, { seq: 0, step: 0, running: false, held: null, sent: [], creates: [] });
    setTimeout(() => this.onmessage?.({ data: { type: 'started' } }));
  }
  send(m) { this.sent.push(m); if (this.held) this.held.push(m); else setTimeout(() => this.onmessage?.({ data: m })); }
  progress(loss = null) { this.send({ type: 'progress', seq: this.seq, step: this.step, loss, running: this.running, done: false }); }
  postMessage(m) {
    if (typeof m.seq === 'number') this.seq = m.seq;
    if (m.type === 'create') { this.creates.push(m); this.send({ type: 'created', info: { loaded: false, steps: 0, defaultSteps: 1000 } }); }
    if (m.type === 'play') { this.running = true; this.progress(); }
    if (m.type === 'pause') { this.running = false; this.progress(); }
  }
  /** One step of the run, when it runs. */
  tick() { if (this.running) { this.step++; this.progress(2.5); } }
  hold() { this.held = []; }
  release() { const held = this.held; this.held = null; for (const m of held) this.onmessage?.({ data: m }); }
  /** The oldest held message alone (the rest stay held). */
  releaseOne() { this.onmessage?.({ data: this.held.shift() }); }
  terminate() {}
}

/**
 * The writer's store (gpt/store.js) over a ScriptedWorker, on a tiny GPT's settings; until(pred)
 * waits for a snapshot pred accepts; change(name, value) changes a setting as the page's state does.
 */
async function scriptedStore(t) {
  const { createGPTStore } = await import('../web/page/gpt/store.js');
  const values = { glayers: 1, gheads: 2, gdim: 16, gctx: 8, glr: 0.01, gseed: 0, gsteps: 1000 };
  const listeners = [];
  const ctx = { state: { get: (k) => values[k], onChange: (fn) => { listeners.push(fn); return () => {}; } }, sceneFor: () => null };
  const realWorker = globalThis.Worker;
  globalThis.Worker = ScriptedWorker;
  const store = createGPTStore(ctx);
  t.after(() => { store.destroy(); globalThis.Worker = realWorker; });
  const until = (pred) => new Promise((resolve) => {
    if (pred(store.get())) { resolve(store.get()); return; }
    const off = store.subscribe((snap) => { if (pred(snap)) { off(); resolve(snap); } });
  });
  const change = (name, value) => { values[name] = value; for (const fn of listeners) fn(name); };
  return { store, until, change };
}

test('the store\'s snapshot says what the latest Start or Pause asked for: the Pause\'s answer, received just before a Start, does not stop the run again', async (t) => {
  const { store, until } = await scriptedStore(t);
  const snapshots = [];
  store.subscribe((snap) => snapshots.push(snap));
  store.ensure();
  await until((s) => s.info);
  const run = ScriptedWorker.last;
  store.play();
  run.tick(); run.tick();
  await until((s) => s.running && s.step === 2);
  // Pause; the run's answer (running: false, seq 2) is held back
  run.hold();
  store.pause();
  assert.deepEqual(run.held.map((m) => [m.seq, m.running]), [[2, false]]);
  // the answer arrives and, before the store publishes it, the reader presses Start, whose answer is held back
  const from = snapshots.length;
  run.release();
  run.hold();
  store.play();
  const next = await until(() => snapshots.length > from);
  assert.equal(next.running, true, 'the first snapshot after Start says the run runs');
  // the Start's answer, late, and the steps after it change nothing of that
  run.release();
  for (let k = 0; k < 3; k++) run.tick();
  const later = await until((s) => s.step === 5);
  assert.equal(later.running, true);
  assert.deepEqual(snapshots.slice(from).map((s) => s.running).filter((r) => !r), [], 'no snapshot after Start says it stopped');
  // a report from before a Pause, published before the Pause's answer, does not say the run runs
  run.hold();
  run.tick();
  store.pause();
  assert.deepEqual(run.held.map((m) => [m.step, m.seq, m.running]), [[6, 3, true], [6, 4, false]]);
  run.releaseOne();   // step 6's report alone
  const paused = await until((s) => s.step === 6);
  assert.equal(paused.running, false, 'the report of step 6 came before the Pause: the snapshot says paused');
  run.release();
});

test('a setting changed while the reader\'s own text is still being built keeps that text: the new run is on it, with the new setting', async (t) => {
  const { store, until, change } = await scriptedStore(t);
  store.ensure();
  await until((s) => s.info && s.source === 'quatrains');
  const run = ScriptedWorker.last;
  // the reader's text asked for; before the page hears that its run is built, the seed changes
  run.hold();
  store.retrain('own text');
  change('gseed', 1);
  assert.deepEqual(run.creates.map((m) => [m.form ? 'quatrains' : m.text, m.options.seed]), [['quatrains', 0], ['own text', 0], ['own text', 1]]);
  run.release();
  const last = await until((s) => s.info && s.source === 'own' && !s.stale);
  assert.equal(last.settings.gseed, 1);
});

test('a setting changed while a new run is being built, and the old run has steps, is not lost: the new run, at step 0, is made again with it', async (t) => {
  const { store, until, change } = await scriptedStore(t);
  store.ensure();
  await until((s) => s.info && s.source === 'quatrains');
  const run = ScriptedWorker.last;
  store.play();
  run.tick(); run.tick();
  store.pause();
  await until((s) => s.step === 2 && !s.running);
  // the reader's text asked for; before the page hears that its run is built, the seed changes:
  // the run with steps is kept for now (stale), the one being built has the old seed
  run.hold();
  store.retrain('own text');
  change('gseed', 1);
  assert.deepEqual(run.creates.map((m) => [m.form ? 'quatrains' : m.text, m.options.seed]), [['quatrains', 0], ['own text', 0]]);
  run.release();
  const last = await until((s) => s.info && s.source === 'own' && s.step === 0 && !s.stale && run.creates.length === 3);
  assert.deepEqual(run.creates.map((m) => [m.form ? 'quatrains' : m.text, m.options.seed]), [['quatrains', 0], ['own text', 0], ['own text', 1]]);
  assert.equal(last.settings.gseed, 1);
});

test('a Start the run cannot take, or a Pause, is answered without undoing what the page knows: done at the end, and for a model from a file', { timeout: 60000 }, async (t) => {
  const answers = [];
  const collect = (label, m) => answers.push([label, m]);
  // the end of the schedule reached: a Start is answered, done
  const ended = createRun({
    api: async () => qkv,
    post(m) {
      if (m.type === 'progress' && m.done && m.seq === 0) ended.receive({ type: 'play', seq: 7 });
      if (m.type === 'progress' && m.seq === 7) collect('play at the end', m);
    },
  });
  t.after(() => ended.stop());
  ended.receive({ type: 'create', options: OPTIONS, text: TEXT, form: true });
  ended.receive({ type: 'play' });
  // a model saved a few steps into its schedule, loaded: it does not train, and its answers say done
  let saved = null;
  const file = createRun({
    api: async () => qkv,
    post(m) {
      if (m.type === 'progress' && m.loss !== null && m.step === 3) { file.receive({ type: 'pause', seq: 1 }); file.receive({ type: 'save' }); }
      if (m.type === 'saved' && saved === null) { saved = m.step; file.receive({ type: 'load', bytes: m.bytes }); }
      if (m.type === 'created' && m.info.loaded) { file.receive({ type: 'play', seq: 8 }); file.receive({ type: 'pause', seq: 9 }); }
      if (m.type === 'progress' && m.seq >= 8) collect(m.seq === 8 ? 'play on a file' : 'pause on a file', m);
    },
  });
  t.after(() => file.stop());
  file.receive({ type: 'create', options: OPTIONS, text: TEXT, form: true });
  file.receive({ type: 'play', seq: 0 });
  while (answers.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(saved > 0 && saved < OPTIONS.steps, `saved at step ${saved}`);
  assert.deepEqual(answers.sort((x, y) => x[1].seq - y[1].seq), [
    ['play at the end', { type: 'progress', seq: 7, step: OPTIONS.steps, loss: null, running: false, done: true }],
    ['play on a file', { type: 'progress', seq: 8, step: saved, loss: null, running: false, done: true }],
    ['pause on a file', { type: 'progress', seq: 9, step: saved, loss: null, running: false, done: true }],
  ]);
});
