// training-settings.test.js: the training run's URL state (web/page/training/settings.js, in
// state.js's one list): its own seed, batch, learning rate, dimension, optimizer, a short corpus
// or a preset, and the walkthrough's sentence survive a round trip; invalid or hostile values
// fall back to their defaults and are named; a corpus longer than a link carries is refused there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState } from '../web/page/shell/state.js';
import { TRAINING_DEFAULTS } from '../web/corpus.js';
import { MODEL_DEFAULTS } from '../web/model.js';
import {
  TRAINING_PROPERTIES, URL_CORPUS_CHARS, DEFAULT_EXAMPLE, corpusValue, presetFor, resolveCorpus, modelOptions, defaultLr,
} from '../web/page/training/settings.js';
import { CORPUS_PRESETS } from '../web/corpus.js';

test('defaults come from TRAINING_DEFAULTS and stay out of the link', () => {
  const state = createState({ search: '' });
  assert.equal(state.get('tseed'), MODEL_DEFAULTS.seed);
  assert.equal(state.get('batch'), TRAINING_DEFAULTS.batchSize);
  assert.equal(state.get('lr'), TRAINING_DEFAULTS.lr);
  assert.equal(state.get('dim'), TRAINING_DEFAULTS.dim);
  assert.equal(state.get('opt'), TRAINING_DEFAULTS.optimizer);
  assert.equal(state.get('corpus'), 'default');
  assert.equal(state.get('example'), DEFAULT_EXAMPLE);
  assert.equal(state.toSearch(), '');
  const options = modelOptions(state, resolveCorpus('default').sentences);
  assert.deepEqual({ ...options, corpus: undefined }, {
    seed: MODEL_DEFAULTS.seed, batchSize: TRAINING_DEFAULTS.batchSize, lr: TRAINING_DEFAULTS.lr,
    dim: TRAINING_DEFAULTS.dim, optimizer: TRAINING_DEFAULTS.optimizer, steps: TRAINING_DEFAULTS.steps, corpus: undefined,
  });
});

test('a round trip: every training setting written, read back from the link, equal', () => {
  const a = createState({ search: '' });
  const corpus = '一只 猫 在 叫\n我 养 了 一只 狗';
  for (const [name, value] of [['tseed', 7], ['batch', 4], ['lr', 0.03], ['dim', 8], ['opt', 'adam'], ['corpus', corpus], ['example', '一只 猫 在 叫'], ['step', 12], ['seed', 3]]) {
    assert.equal(a.set(name, value), true, name);
  }
  const b = createState({ search: a.toSearch() });
  assert.deepEqual(b.rejected, []);
  for (const name of ['tseed', 'batch', 'lr', 'dim', 'opt', 'corpus', 'example', 'step', 'seed']) assert.equal(b.get(name), a.get(name), name);
  assert.equal(b.get('seed'), 3, 'the attention seed is its own setting');
  assert.equal(b.get('tseed'), 7);
});

test('presets go into the link by id; a corpus equal to a preset is named by it', () => {
  const car = CORPUS_PRESETS.find((p) => p.id === 'car-with-animals');
  const text = car.sentences.join('\n');
  assert.equal(presetFor(text).id, 'car-with-animals');
  assert.equal(corpusValue(text), 'car-with-animals');
  const state = createState({ search: '?corpus=car-with-animals' });
  assert.equal(state.get('corpus'), 'car-with-animals');
  const resolved = resolveCorpus(state.get('corpus'));
  assert.equal(resolved.id, 'car-with-animals');
  assert.ok(resolved.sentences.some((s) => s.join(' ') === '一只 汽车 在 叫'));
});

test('invalid, hostile and too long values fall back and are named', () => {
  const long = Array.from({ length: 200 }, () => '一只 猫 在 叫').join('\n');
  assert.ok(long.length > URL_CORPUS_CHARS);
  const cases = [
    ['tseed', '-1'], ['tseed', '1e3'], ['tseed', '99999999999'], ['batch', '0'], ['batch', 'many'],
    ['lr', '0'], ['lr', '1e-9'], ['lr', '100'], ['dim', '1'], ['dim', '4096'], ['opt', 'rmsprop'],
    ['corpus', ''], ['corpus', 'a <s> b'], ['corpus', '<b>猫</b> 在 叫'], ['corpus', long],
    ['example', ''], ['example', 'x'.repeat(500)],
  ];
  for (const [name, raw] of cases) {
    const state = createState({ search: `?${new URLSearchParams({ [name]: raw })}` });
    assert.deepEqual(state.rejected, [name], `${name}=${raw.slice(0, 20)}`);
    assert.equal(state.get(name), TRAINING_PROPERTIES.find((p) => p.name === name).default);
  }
  // a one-word line is only a warning: the corpus is accepted
  const one = createState({ search: '?corpus=猫' });
  assert.deepEqual(one.rejected, []);
  assert.equal(one.get('corpus'), '猫');
});

test('switching the optimizer takes its own default learning rate', () => {
  assert.equal(defaultLr(TRAINING_DEFAULTS.optimizer), TRAINING_DEFAULTS.lr);
  assert.equal(defaultLr('adam'), 0.01);
});
