// gpt/worker.js: the writer's training run, in a Web Worker, so that the page only draws. It holds
// the API, the WebAssembly and the Tang quatrains; the page (gpt/store.js) sends it commands and
// draws what it reports. Between two steps it yields (a message to itself), so a command (pause,
// the attention of a typed line, save) is answered within one step.
//
// page → worker                         worker → page
//   { type: 'create', options, text }     { type: 'created', info } | { type: 'error', op, message }
//   { type: 'play', until? }              { type: 'progress', step, loss, running, done }
//   { type: 'pause' | 'step' }            (play with until: it pauses itself at that step)
//   { type: 'attend', id, text }          { type: 'sample', step, poems, good }  (every SAMPLE_EVERY steps)
//   { type: 'save' }                      { type: 'eval', step, train, val }     (every EVAL_EVERY steps)
//   { type: 'load', bytes }               { type: 'attention', id, chars, layers } | { type: 'error', op: 'attend', id, message }
//                                         { type: 'saved', bytes, step }
// text null: the quatrains. Every number comes from the GPT (WASM) but the baselines (counts).
import { load } from '../../qkv-lab.js';
import { QUATRAINS } from '../../data/quatrains.js';
import { isWellFormedQuatrain } from '../../data/quatrain-form.js';
import { baselines } from './baselines.js';

import { SAMPLE_EVERY, EVAL_EVERY, SAMPLE_POEMS, SAMPLE_TEMPERATURE } from './worker-constants.js';

const post = (message, transfer) => self.postMessage(message, transfer || []);
let qkv = null;
let gpt = null;
let running = false;
let until = Infinity;     // the step a play stops at (a link's step: gpt/store.js)
let quatrainForm = true;
let trainable = false;   // a GPT loaded from a file holds no text: it generates, it does not train
const loop = new MessageChannel();

function fail(op, error, extra = {}) {
  post({ type: 'error', op, message: String(error && error.message ? error.message : error), name: error?.name, ...extra });
}

function sample() {
  const poems = [];
  let good = 0;
  for (let s = 0; s < SAMPLE_POEMS; s++) {
    const { text } = gpt.generate('', { temperature: SAMPLE_TEMPERATURE, seed: s });
    poems.push(text);
    if (isWellFormedQuatrain(text)) good++;
  }
  post({ type: 'sample', step: gpt.steps, poems, good: quatrainForm ? good : null });
}

function evaluate() {
  const { train, val } = gpt.evaluate();
  post({ type: 'eval', step: gpt.steps, train, val });
}

function done() {
  return !gpt || gpt.diverged || gpt.steps >= gpt.defaultSteps;
}

function oneStep() {
  try {
    const { step, loss } = gpt.step();
    const finished = done();
    if (finished || step >= until) running = false;
    post({ type: 'progress', step, loss, running, done: finished });
    if (step % SAMPLE_EVERY === 0 || finished) sample();
    if (step % EVAL_EVERY === 0 || finished) evaluate();
  } catch (error) {
    running = false;
    fail('step', error);
    post({ type: 'progress', step: gpt.steps, loss: null, running: false, done: true });
  }
}

loop.port1.onmessage = () => {
  if (!running) return;
  oneStep();
  if (running) loop.port2.postMessage(0);
};

function info(text, loaded) {
  const base = text === null ? null : baselines(text);
  return {
    loaded, steps: gpt.steps, defaultSteps: gpt.defaultSteps, vocab: gpt.vocab.length, parameterCount: gpt.parameterCount,
    layers: gpt.layers, heads: gpt.heads, dim: gpt.dim, context: gpt.context, seed: gpt.seed, lr: gpt.lr,
    unigram: base ? base.unigram : null, uniform: Math.log(gpt.vocab.length),
  };
}

const commands = {
  async create({ options, text }) {
    running = false;
    qkv ||= await load({ gpt: true });
    const source = text === null ? QUATRAINS.poems : text;
    let next;
    try {
      next = qkv.createGPT({ ...options, text: source });
    } catch (error) {
      fail('create', error);
      return;
    }
    gpt?.dispose();
    gpt = next;
    quatrainForm = text === null;
    trainable = true;
    post({ type: 'created', info: info(source, false) });
    sample();
  },
  async load({ bytes }) {
    running = false;
    qkv ||= await load({ gpt: true });
    let next;
    try {
      next = qkv.loadGPT(bytes);
    } catch (error) {
      fail('load', error);
      return;
    }
    gpt?.dispose();
    gpt = next;
    quatrainForm = true;
    trainable = false;
    post({ type: 'created', info: info(null, true) });
    sample();
  },
  play({ until: to = null }) {
    until = to === null ? Infinity : to;
    if (!gpt || !trainable || done() || gpt.steps >= until) return;
    if (!running) { running = true; loop.port2.postMessage(0); }
    post({ type: 'progress', step: gpt.steps, loss: null, running, done: false });
  },
  pause() {
    running = false;
    if (gpt) post({ type: 'progress', step: gpt.steps, loss: null, running: false, done: done() });
  },
  step() {
    if (!gpt || running || !trainable || done()) return;
    oneStep();
  },
  attend({ id, text }) {
    if (!gpt) return;
    try {
      const { tokens, blocks } = gpt.forward(text);
      const chars = tokens.map((t) => gpt.vocab[t]);
      const layers = blocks.map((b) => b.attention.heads.map((hd) => ({ n: hd.weights.rows, data: hd.weights.data })));
      post({ type: 'attention', id, text, chars, layers });
    } catch (error) {
      fail('attend', error, { id, text });
    }
  },
  save() {
    if (!gpt) { post({ type: 'saved', bytes: null, step: 0 }); return; }
    const bytes = gpt.save();
    post({ type: 'saved', bytes, step: gpt.steps }, [bytes.buffer]);
  },
};

// commands run one after another (create awaits the WASM the first time: a save sent meanwhile
// waits for the model); training steps run between them
let queue = Promise.resolve();
self.onmessage = (event) => {
  const command = commands[event.data?.type];
  if (!command) return;
  queue = queue.then(() => command(event.data)).catch((error) => fail(event.data.type, error));
};
