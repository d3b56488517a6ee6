// Training the tiny language model through the API: what one SGD step touches, what the default
// schedule achieves on the default corpus over seeds 0–9, determinism, memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { DEFAULT_CORPUS, tokenize, buildVocab, BOUNDARY } from '../web/corpus.js';

const qkv = await load({ model: true });
const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

const bits = (f32) => new Uint32Array(f32.buffer.slice(f32.byteOffset, f32.byteOffset + f32.byteLength));

function rowsEqual(a, b, r, d) {
  const x = bits(a.data.subarray(r * d, (r + 1) * d)), y = bits(b.data.subarray(r * d, (r + 1) * d));
  return x.every((v, i) => v === y[i]);
}

test('corpus: tokenize splits on spaces, else per character; the vocabulary starts with <s>', () => {
  assert.deepEqual(tokenize('一只 猫  在 叫 '), ['一只', '猫', '在', '叫']);
  assert.deepEqual(tokenize('我爱吃苹果'), ['我', '爱', '吃', '苹', '果']);
  assert.deepEqual(tokenize('   '), []);
  const { vocab, ids } = buildVocab([['a', 'b'], ['b', 'c']]);
  assert.deepEqual(vocab, [BOUNDARY, 'a', 'b', 'c']);
  assert.equal(ids.get('c'), 3);
  const model = qkv.createModel();
  try {
    assert.equal(model.vocab[0], '<s>');
    assert.equal(model.sentences.length, DEFAULT_CORPUS.length);
    for (const w of ['猫', '狗', '兔', '汽车', '苹', '果', '国王', '女王', '男人', '女人']) assert.ok(model.vocab.includes(w), w);
    assert.ok(model.sentences.some((s) => s.join('') === '我爱吃苹果'));
  } finally {
    model.dispose();
  }
});

test('SGD: one step changes exactly the batch rows (<s> included) and leaves every other row bit-identical', () => {
  const model = qkv.createModel({ seed: 4 });
  try {
    const d = model.dim;
    for (let s = 0; s < 25; s++) {
      const before = model.embeddings();
      const { loss, batch, updatedRows, rowGradNorms, step } = model.step();
      const after = model.embeddings();
      assert.ok(Number.isFinite(loss));
      assert.equal(step, s + 1);
      assert.equal(batch.length, model.batchSize);
      const expected = [...new Set([0, ...batch.flat().map((w) => model.vocab.indexOf(w))])].sort((a, b) => a - b);
      assert.deepEqual(updatedRows, expected, `step ${s + 1}: updatedRows is the set of the batch's tokens`);
      assert.equal(rowGradNorms.length, updatedRows.length);
      assert.ok(rowGradNorms.every((g) => g > 0 && Number.isFinite(g)));
      const inside = new Set(updatedRows);
      for (let r = 0; r < model.vocab.length; r++) {
        if (inside.has(r)) assert.ok(!rowsEqual(before, after, r, d), `step ${s + 1}: row ${r} (${model.vocab[r]}) is in the batch but did not move`);
        else assert.ok(rowsEqual(before, after, r, d), `step ${s + 1}: row ${r} (${model.vocab[r]}) is not in the batch but changed`);
      }
    }
  } finally {
    model.dispose();
  }
});

test('Adam: updatedRows is exactly the set of rows that changed (momentum moves earlier batches too)', () => {
  const model = qkv.createModel({ seed: 4, optimizer: 'adam' });
  try {
    let sawMomentum = false;
    for (let s = 0; s < 10; s++) {
      const before = model.embeddings();
      const { batch, updatedRows } = model.step();
      const after = model.embeddings();
      const changed = [];
      for (let r = 0; r < model.vocab.length; r++) if (!rowsEqual(before, after, r, model.dim)) changed.push(r);
      assert.deepEqual(updatedRows, changed);
      const batchRows = new Set([0, ...batch.flat().map((w) => model.vocab.indexOf(w))]);
      for (const r of batchRows) assert.ok(updatedRows.includes(r));
      if (updatedRows.length > batchRows.size) sawMomentum = true;
    }
    assert.ok(sawMomentum, 'Adam should keep moving rows of earlier batches');
  } finally {
    model.dispose();
  }
});

// The default schedule (TRAINING_DEFAULTS) on seeds 0–9, ten of the thirty that
// tools/measure-training.mjs measures (tests/training-claims.test.js checks all thirty against
// web/page/training/claims.js). Measured over seeds 0–29: the corpus loss falls from 4.29–4.40 to
// 0.96–1.04 on every seed; cos(猫, 狗) > cos(猫, 汽车) on 30 of 30; the animals are closer to each
// other than to the vehicles on average (mean cosine between two animals above the mean cosine
// between an animal and a vehicle) on 30 of 30, and every animal's nearest word among the animals
// and the vehicles is an animal on 30 of 30; 女王 comes first for 国王 − 男人 + 女人 on 30 of 30;
// 果 is the most likely word after 我 爱 吃 苹 on 30 of 30 (p ≥ 0.86).
// The strict reading, every animal closer to every other animal than to any vehicle, holds on 14 of
// 30 at the end (27 of 30 at step 500): 鸟 and 兔 never share a context, and as each animal's own
// contexts are learned they drift apart; it is stated, not required, here.
// Required: every measured 10 of 10 but one (9 of 10), and the loss halved on every seed: one seed
// of slack, so that arithmetic that rounds differently (a faster matmul summing in another order)
// and moves one seed does not fail the test, while the animals no longer grouping does.
test('default schedule on seeds 0–9: loss halves, the animals group apart from the vehicles, 女王, 我爱吃苹 → 果', (t) => {
  const ANIMALS = ['猫', '狗', '兔', '鸟'], VEHICLES = ['汽车', '卡车', '自行车'];
  const tally = { catNearerDog: 0, groupGap: 0, nearestIsAnimal: 0, analogy: 0, apple: 0 };
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const seed of SEEDS) {
    const model = qkv.createModel({ seed });
    try {
      const before = model.loss();
      const losses = model.train();
      const after = model.loss();
      assert.equal(losses.length, model.defaultSteps);
      assert.ok(after <= before / 2, `seed ${seed}: corpus loss ${before} → ${after}, not halved`);
      const catDog = model.similarity('猫', '狗'), catCar = model.similarity('猫', '汽车');
      if (catDog > catCar) tally.catNearerDog++;
      const within = ANIMALS.flatMap((a, i) => ANIMALS.slice(i + 1).map((b) => model.similarity(a, b)));
      const between = ANIMALS.flatMap((a) => VEHICLES.map((v) => model.similarity(a, v)));
      if (mean(within) > mean(between)) tally.groupGap++;
      const nearestIsAnimal = ANIMALS.every((a) => Math.max(...ANIMALS.filter((b) => b !== a).map((b) => model.similarity(a, b))) >
        Math.max(...VEHICLES.map((v) => model.similarity(a, v))));
      if (nearestIsAnimal) tally.nearestIsAnimal++;
      const top = model.analogy('男人', '国王', '女人', 3);
      if (top[0].word === '女王') tally.analogy++;
      const next = model.predict('我爱吃苹')[0];
      if (next.word === '果') tally.apple++;
      t.diagnostic(`seed ${seed}: loss ${before.toFixed(3)} → ${after.toFixed(3)}, cos(猫,狗) ${catDog.toFixed(3)}, ` +
        `cos(猫,汽车) ${catCar.toFixed(3)}, animals ${mean(within).toFixed(2)} vs animal–vehicle ${mean(between).toFixed(2)}, ` +
        `国王−男人+女人 → ${top.map((x) => x.word).join(' ')}, 我爱吃苹 → ${next.word} ${next.p.toFixed(3)}`);
    } finally {
      model.dispose();
    }
  }
  t.diagnostic(`of ${SEEDS.length} seeds: ${JSON.stringify(tally)}`);
  for (const [what, n] of Object.entries(tally)) {
    assert.ok(n >= SEEDS.length - 1, `${what} on only ${n} of ${SEEDS.length} seeds (measured 10 of 10)`);
  }
});

// README: "model.step(); … model.train(); // the rest of the default schedule". train() without
// an argument runs what is left of it, whatever step() and stepOn() took before; with an
// argument, exactly that many steps.
test('train() with no argument runs the rest of the default schedule, after step() and stepOn() too', () => {
  const model = qkv.createModel({ seed: 1, steps: 40 });
  try {
    model.step();
    assert.equal(model.train().length, 39);
    assert.equal(model.steps, model.defaultSteps);
    assert.deepEqual(model.train(), [], 'the schedule is done: nothing is left to run');
    assert.equal(model.train(3).length, 3, 'an explicit count runs that many, also past the schedule');
    assert.equal(model.steps, 43);
  } finally {
    model.dispose();
  }
  const other = qkv.createModel({ seed: 1, steps: 40 });
  try {
    other.train(25);
    other.stepOn('我 爱 吃 苹 果');
    assert.equal(other.train().length, 14);
    assert.equal(other.steps, 40);
  } finally {
    other.dispose();
  }
  const fresh = qkv.createModel({ seed: 1, steps: 40 });
  try {
    assert.equal(fresh.train().length, 40, 'a fresh model runs the whole schedule');
  } finally {
    fresh.dispose();
  }
});

test('nearest and analogy leave out the inputs and <s>; scores are cosines in [-1, 1]', () => {
  const model = qkv.createModel({ seed: 2 });
  try {
    model.train();
    const near = model.nearest('猫', 3);
    assert.equal(near.length, 3);
    assert.ok(near.every(({ word, score }) => word !== '猫' && word !== '<s>' && score <= 1 && score >= -1));
    assert.ok(near[0].score >= near[1].score && near[1].score >= near[2].score);
    assert.ok(Math.abs(near[0].score - model.similarity('猫', near[0].word)) < 1e-12);
    const ana = model.analogy('男人', '国王', '女人', 5);
    assert.ok(ana.every(({ word }) => !['男人', '国王', '女人', '<s>'].includes(word)));
    assert.ok(Math.abs(model.similarity('狗', '狗') - 1) < 1e-6);
  } finally {
    model.dispose();
  }
});

test('predict and attention: a probability over the vocabulary, causal weights', () => {
  const model = qkv.createModel({ seed: 3 });
  try {
    model.train(50);
    const p = model.predict(['一只']);
    assert.equal(p.length, model.vocab.length);
    assert.ok(Math.abs(p.reduce((s, x) => s + x.p, 0) - 1) < 1e-5);
    for (let i = 1; i < p.length; i++) assert.ok(p[i - 1].p >= p[i].p);
    assert.equal(model.predict([]).length, model.vocab.length);  // the first word of a sentence
    const { tokens, weights } = model.attention('一只 猫 在 叫');
    assert.deepEqual(tokens, ['<s>', '一只', '猫', '在', '叫']);
    assert.equal(weights.rows, 5);
    for (let i = 0; i < 5; i++) {
      const row = weights.row(i);
      assert.ok(Math.abs(row.reduce((s, x) => s + x, 0) - 1) < 1e-5);
      for (let j = i + 1; j < 5; j++) assert.equal(row[j], 0);
    }
  } finally {
    model.dispose();
  }
});

test('project2d: vocab × 2, the same for the same table, axes keep their sign across steps', () => {
  const model = qkv.createModel({ seed: 6 });
  try {
    model.train(100);
    const a = model.project2d();
    assert.equal(a.rows, model.vocab.length);
    assert.equal(a.cols, 2);
    assert.ok(a.data.every(Number.isFinite));
    const again = model.project2d();
    for (let i = 0; i < a.data.length; i++) assert.ok(Math.abs(a.data[i] - again.data[i]) < 1e-5);
    model.train(5);
    const b = model.project2d();
    for (let axis = 0; axis < 2; axis++) {
      let dot = 0;
      for (let i = 0; i < a.rows; i++) dot += a.get(i, axis) * b.get(i, axis);
      assert.ok(dot > 0, `axis ${axis} flipped after 5 steps`);
    }
    // variance along the first axis is at least that along the second
    const variance = (m, c) => { let s = 0; for (let i = 0; i < m.rows; i++) s += m.get(i, c) ** 2; return s; };
    assert.ok(variance(b, 0) >= variance(b, 1));
  } finally {
    model.dispose();
  }
});

test('the same seed gives bit-identical losses and tables; another seed does not', () => {
  const run = (seed, optimizer) => {
    const model = qkv.createModel({ seed, optimizer });
    try {
      return { losses: model.train(120), table: model.embeddings().data };
    } finally {
      model.dispose();
    }
  };
  for (const optimizer of ['sgd', 'adam']) {
    const a = run(7, optimizer), b = run(7, optimizer), c = run(8, optimizer);
    assert.deepEqual(a.losses, b.losses);
    assert.deepEqual(bits(a.table), bits(b.table));
    assert.notDeepEqual(a.losses, c.losses);
  }
});

test('dispose() returns heapUsed() to where it was, also after training and queries', () => {
  const start = qkv.heapUsed();
  for (const optimizer of ['sgd', 'adam']) {
    const model = qkv.createModel({ seed: 1, optimizer, dim: 24 });
    assert.ok(qkv.heapUsed() > start);
    model.train(20);
    model.predict('一只 猫');
    model.attention('一只 猫');
    model.gradients();
    model.project2d();
    model.dispose();
    assert.equal(qkv.heapUsed(), start);
  }
});
