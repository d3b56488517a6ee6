// quiz.test.js: the exercises as data (web/page/shell/quiz.js and each section's `quiz`). Every
// section of the registry declares at least one question; every question asked of a real
// snapshot (the WASM API in Node, several seeds and sentences) has a prompt, an answer among its
// choices (or a finite number), and an explanation, in both languages; checkAnswer marks the
// snapshot's own answer right and anything else wrong. The browser side (holding the stepper,
// keyboard, screen reader) is tests/browser/quiz.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { ALL_SECTIONS } from '../web/page/sections/index.js';
import { computeSnapshot } from '../web/page/models/attention.js';
import { deriveSnapshot } from '../web/page/models/snapshot-derived.js';
import { checkAnswer, stepOf, askable } from '../web/page/shell/quiz.js';
import { translate } from '../web/page/shell/i18n.js';
import { CHOICE_KEYS } from '../web/page/shell/context.js';
import { PROPERTIES } from '../web/page/shell/state.js';
import { ATTRIBUTES, BOOLEAN_ATTRIBUTES, readAttributes } from '../web/widget/attributes.js';

const qkv = await load();

function snapshot(settings) {
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false, dk: 3, ...settings });
  snap.derived = deriveSnapshot(qkv, snap);
  snap.choices = Object.fromEntries(CHOICE_KEYS.map((key) => [key, PROPERTIES.find((p) => p.name === key).default]));
  return snap;
}

test('every section of the registry declares at least one question, with unique ids and the parts a question needs', async () => {
  for (const entry of ALL_SECTIONS) {
    const definition = await entry.load();
    assert.ok(Array.isArray(definition.quiz) && definition.quiz.length >= 1, `${entry.id}: no question`);
    const ids = definition.quiz.map((q) => q.id);
    assert.equal(new Set(ids).size, ids.length, `${entry.id}: duplicate question ids ${ids}`);
    for (const q of definition.quiz) {
      for (const part of ['prompt', 'answer', 'explain']) assert.equal(typeof q[part], 'function', `${entry.id}.${q.id}: ${part}`);
      assert.ok(Boolean(q.choices) !== Boolean(q.numeric), `${entry.id}.${q.id}: choices or numeric, one of them`);
      if (q.numeric) assert.ok(q.numeric.tolerance >= 0 && Number.isFinite(q.numeric.tolerance), `${entry.id}.${q.id}: tolerance`);
    }
  }
});

// the attention sections' questions read the attention snapshot; the others read their own data
// (scaling, trainstep, training: covered in the browser, where their sources run)
const ATTENTION = ALL_SECTIONS.filter((s) => s.kind === 'attention').map((s) => s.id);
const SETTINGS = [{}, { seed: 7 }, { seed: 3, sentence: '我 养了 一只 兔' }, { seed: 11, sentence: '猫 很 可爱', scale: true }, { seed: 5, pos: true, dk: 2 }, { seed: 9, sentence: '一只 狗 在 叫', dk: 4 }];

test('asked of real snapshots, each attention question has a prompt, an answer it accepts and one it refuses, and an explanation', async () => {
  for (const settings of SETTINGS) {
    const snap = snapshot(settings);
    for (const id of ATTENTION) {
      const { quiz } = await ALL_SECTIONS.find((s) => s.id === id).load();
      for (const q of quiz) {
        if (!askable(q, snap)) continue;
        const label = `${id}.${q.id} ${JSON.stringify(settings)}`;
        assert.ok(stepOf(q, snap) >= 1, `${label}: asked before a step that exists after the first`);
        for (const lang of ['zh', 'en']) {
          const t = (key, vars) => translate(lang, key, vars);
          const prompt = q.prompt(snap, t);
          const explain = q.explain(snap, t);
          for (const text of [prompt, explain]) {
            assert.ok(text.length > 10, `${label} ${lang}: text`);
            assert.doesNotMatch(text, /\{\w+\}|quiz\.|NaN|undefined/, `${label} ${lang}: a placeholder or key left: ${text}`);
          }
        }
        const expected = q.answer(snap);
        if (q.numeric) {
          assert.ok(Number.isFinite(expected), `${label}: a finite answer`);
          assert.equal(checkAnswer(q, snap, String(expected)).correct, true, `${label}: its own answer`);
          assert.equal(checkAnswer(q, snap, String(expected + q.numeric.tolerance + 0.05)).correct, false, `${label}: a wrong number`);
        } else {
          const values = q.choices(snap, (k, v) => translate('en', k, v)).map((c) => String(c.value));
          assert.ok(values.includes(String(expected)), `${label}: the answer ${expected} is one of the choices ${values}`);
          assert.ok(values.length >= 2, `${label}: at least two choices`);
          for (const v of values) assert.equal(checkAnswer(q, snap, v).correct, v === String(expected), `${label}: choice ${v}`);
        }
      }
    }
  }
});

test('the answers are the snapshot\'s numbers: the softmax cell, the score\'s sign, the largest weight', async () => {
  const snap = snapshot({});
  const quizOf = async (id) => (await ALL_SECTIONS.find((s) => s.id === id).load()).quiz[0];
  const softmax = await quizOf('softmax');
  // the last row's first weight, A[猫][我], against the snapshot's weights (WASM softmax)
  assert.equal(softmax.answer(snap), snap.weights.get(2, 0));
  assert.equal(checkAnswer(softmax, snap, snap.weights.get(2, 0).toFixed(2)).correct, true);
  assert.equal(checkAnswer(softmax, snap, (snap.weights.get(2, 0) + 0.02).toFixed(2)).correct, false);
  assert.equal(checkAnswer(softmax, snap, '').correct, false, 'an empty answer is not right');
  assert.equal(checkAnswer(softmax, snap, 'abc').correct, false, 'text is not right');
  const scores = await quizOf('scores');
  assert.equal(scores.answer(snap), snap.scores.get(0, 2) > 0 ? 'yes' : 'no');
  assert.equal(stepOf(scores, snap), 2 + 2, 'asked before the cell (0, n−1) fills');
  const walk = await quizOf('walkthrough');
  const row = Array.from(snap.weights.row(2));
  assert.equal(walk.answer(snap), String(row.indexOf(Math.max(...row))));
});

test('quiz is one URL property and one widget attribute, boolean, off by default', () => {
  const prop = PROPERTIES.find((p) => p.name === 'quiz');
  assert.deepEqual({ type: prop.type, default: prop.default }, { type: 'bool', default: false });
  assert.ok(ATTRIBUTES.includes('quiz') && BOOLEAN_ATTRIBUTES.includes('quiz'));
  const attrs = (map) => (name) => (name in map ? map[name] : null);
  assert.equal(readAttributes(attrs({ quiz: '' }), 'en').state.get('quiz'), true);
  assert.equal(readAttributes(attrs({}), 'en').state.get('quiz'), false);
  const bad = readAttributes(attrs({ quiz: 'maybe' }), 'en');
  assert.equal(bad.state.get('quiz'), false);
  assert.deepEqual(bad.notices.map((n) => n.name), ['quiz']);
});
