// finetune/run.js: the fine-tuning run, answering finetune/store.js's commands with the messages
// below. It runs in a Web Worker (worker.js), or where the page may not start one (a strict
// Content-Security-Policy) on the page's own thread (local-run.js). Work is cut into pieces with a
// yield between them (a message to itself), so a command is answered within one piece: a step, a
// sample poem, or one window of an evaluation. A step on the pretrained poet is one WebAssembly
// call of 0.1–0.4 s that nothing can cut (the page's thread then says so).
//
// page → run                                       run → page
//   { type: 'base', bytes }   the base's file         { type: 'based', vocab, parameterCount, layers, dim, context }
//   { type: 'create', options, text, preset,         { type: 'created', info } | { type: 'error', op, message }
//     baseText }   (preset: drop the poems whose characters the base cannot spell)
//   { type: 'advance' }   one step (the ticker)      { type: 'progress', step, loss, done }
//   { type: 'watch', target, layer }                 { type: 'change', step, target, layer, W, A, B, delta, moved }
//   { type: 'compare', prompt, seed }                { type: 'sample', step, poems }  (every SAMPLE_EVERY steps)
//   { type: 'merge', merged }                        { type: 'eval', step, val, baseVal }  (every EVAL_EVERY steps)
//   { type: 'save' }                                 { type: 'compare', prompt, seed, base, tuned, merged, msPerChar }
//                                                    { type: 'merged', merged } | { type: 'saved', bytes }
// progress's done: the schedule's end reached and its sample and evaluation written (one
// progress with done: true and loss null follows them; the end's step itself says done: false).
import { finetune } from '../../finetune.js';
import { SAMPLE_EVERY, EVAL_EVERY, SAMPLE_POEMS, SAMPLE_TEMPERATURE, EVAL_WINDOWS, MOVED_THRESHOLD, MOVED_EVERY } from './constants.js';

const MATRIX_OF = { Wq: ['attn', 'Wq'], Wk: ['attn', 'Wk'], Wv: ['attn', 'Wv'], Wo: ['attn', 'Wo'], W1: ['mlp', 'W1'], W2: ['mlp', 'W2'] };
const copy = (m) => ({ rows: m.rows, cols: m.cols, data: Float32Array.from(m.data) });

/** createFineTuneRun({ post, api }) → { receive(message), stop() } (api: a promise of qkv-lab with the GPT engine). */
export function createFineTuneRun({ post, api }) {
  let qkv = null, base = null, baseParams = null, ft = null;
  let stopped = false;
  let jobs = [];            // pieces waiting: a sample's poems, an evaluation's windows
  let stepAsked = false;    // the ticker asked for a step
  let watch = { target: null, layer: 0 };
  let scheduled = false;
  const loop = new MessageChannel();
  const schedule = () => { if (!scheduled && !stopped) { scheduled = true; loop.port2.postMessage(0); } };
  const fail = (op, error) => post({ type: 'error', op, message: String(error?.message ?? error) });
  const done = () => !ft || ft.diverged || ft.steps >= ft.defaultSteps;
  // progress says done once the end's sample and evaluation are written (as the writer's run
  // does): a reader told the run is done finds them; the end's own progress says not yet
  let endSaid = false;
  function sayEnd() {
    if (endSaid || !ft || !done() || jobs.length) return;
    endSaid = true;
    post({ type: 'progress', step: ft.steps, loss: null, done: true });
  }

  function queueSample() {
    const step = ft.steps, poems = [];
    for (let seed = 0; seed < SAMPLE_POEMS; seed++) {
      jobs.push(() => {
        poems.push(ft.generate('', { temperature: SAMPLE_TEMPERATURE, seed }).text);
        if (poems.length === SAMPLE_POEMS) post({ type: 'sample', step, poems });
      });
    }
  }
  function queueEvaluation() {
    const step = ft.steps;
    const evaluation = ft.evaluation({ windows: EVAL_WINDOWS });
    const piece = () => {
      const result = evaluation.advance(1);
      if (result) post({ type: 'eval', step, val: result.val, baseVal: result.baseVal });
      else jobs.unshift(piece);
    };
    jobs.push(piece);
  }
  // the watched matrix: the frozen W, A and B (LoRA) and what they add, (α/r)·A·B; or, for full
  // fine-tuning, W now − W before and the share of parameters moved
  function sendChange(withMoved) {
    if (!ft || !watch.target) return;
    const [part, name] = MATRIX_OF[watch.target];
    const layer = Math.min(watch.layer, base.layers - 1);
    const W = baseParams.blocks[layer][part][name];
    let A = null, B = null, delta;
    if (ft.method === 'lora') {
      const target = ft.targets.includes(watch.target) ? watch.target : ft.targets[0];
      if (target !== watch.target) { watch = { ...watch, target }; sendChange(withMoved); return; }
      const pair = ft.adapters()[target][layer];
      A = copy(pair.A); B = copy(pair.B);
      const scale = ft.alpha / ft.rank, r = ft.rank;
      delta = new Float32Array(W.rows * W.cols);
      for (let i = 0; i < W.rows; i++) {
        for (let k = 0; k < r; k++) {
          const a = scale * A.data[i * r + k];
          if (a === 0) continue;
          for (let j = 0; j < W.cols; j++) delta[i * W.cols + j] += a * B.data[k * W.cols + j];
        }
      }
    } else {
      const now = ft.parameters().blocks[layer][part][name];
      delta = new Float32Array(W.rows * W.cols);
      for (let i = 0; i < delta.length; i++) delta[i] = now.data[i] - W.data[i];
    }
    const moved = ft.method === 'full' && withMoved ? ft.movedShare(MOVED_THRESHOLD) : null;
    const message = { type: 'change', step: ft.steps, target: watch.target, layer, W: copy(W), A, B, delta: { rows: W.rows, cols: W.cols, data: delta }, moved };
    post(message, [message.W.data.buffer, message.delta.data.buffer, ...(A ? [A.data.buffer, B.data.buffer] : [])]);
  }

  loop.port1.onmessage = () => {
    scheduled = false;
    if (!ft) return;
    try {
      if (jobs.length) jobs.shift()();
      else if (stepAsked) {
        stepAsked = false;
        if (!done() && !ft.merged) {
          const { step, loss } = ft.step();
          const finished = done();
          post({ type: 'progress', step, loss, done: false });   // the end: sayEnd(), after its sample and evaluation
          sendChange(ft.method === 'full' && (step % MOVED_EVERY === 0 || finished));
          if (step % SAMPLE_EVERY === 0 || finished) queueSample();
          if (step % EVAL_EVERY === 0 || finished) queueEvaluation();
        }
      }
    } catch (error) {
      jobs = [];
      stepAsked = false;
      fail('step', error);
      endSaid = true;
      post({ type: 'progress', step: ft ? ft.steps : 0, loss: null, done: true });
    }
    sayEnd();
    if (jobs.length || stepAsked) schedule();
  };

  const commands = {
    async base({ bytes }) {
      qkv ||= await api();
      if (stopped) return;
      try {
        const next = qkv.loadGPT(bytes);
        ft?.dispose();
        ft = null;
        base?.dispose();
        base = next;
        baseParams = base.parameters();
        post({ type: 'based', vocab: base.vocab.length, parameterCount: base.parameterCount, layers: base.layers, dim: base.dim, context: base.context });
      } catch (error) { fail('base', error); }
    },
    create({ options, text, preset, baseText }) {
      if (!base || stopped) return;
      let used = text, kept = null, total = null;
      if (preset) {
        const vocab = new Set(base.vocab);
        const lines = text.split('\n').filter(Boolean);
        const good = lines.filter((line) => [...line].every((ch) => vocab.has(ch)));
        used = good.join('\n');
        kept = good.length; total = lines.length;
      }
      const vocab = new Set(base.vocab);
      const reference = baseText.split('\n').filter((line) => line && [...line].every((ch) => vocab.has(ch))).join('\n');
      let next;
      try {
        next = finetune(base, { ...options, text: used, baseText: reference });
      } catch (error) { fail('create', error); return; }
      ft?.dispose();
      ft = next;
      jobs = [];
      stepAsked = false;
      endSaid = false;
      if (!watch.target || (ft.method === 'lora' && !ft.targets.includes(watch.target))) watch = { target: ft.method === 'lora' ? ft.targets[0] : 'Wq', layer: watch.layer };
      post({ type: 'created', info: {
        method: ft.method, rank: ft.rank, alpha: ft.alpha, targets: ft.targets, seed: ft.seed, lr: ft.lr,
        steps: ft.steps, defaultSteps: ft.defaultSteps, trainableCount: ft.trainableCount, adapterBytes: ft.adapterBytes,
        memoryBytes: ft.memoryBytes, parameterCount: base.parameterCount, layers: base.layers, dim: base.dim, context: base.context,
        kept, total, lines: used.split('\n').filter(Boolean).length,
      } });
      sendChange(ft.method === 'full');
      queueSample();
      queueEvaluation();
      schedule();
    },
    advance() {
      if (!ft) return;
      stepAsked = true;
      schedule();
    },
    watch({ target, layer }) {
      watch = { target, layer };
      sendChange(ft?.method === 'full');
    },
    compare({ prompt, seed }) {
      if (!ft) return;
      try {
        // each model writes its text once, then again timed (the same text: the same seed), and the
        // time is given per character written: a fine-tuned model that writes longer poems (浣溪沙's
        // six lines) takes longer for each, and that is not the adapters' cost
        const options = { temperature: SAMPLE_TEMPERATURE, seed };
        const timed = (model) => {
          const { text, steps } = model.generate(prompt, options);
          const t = performance.now();
          model.generate(prompt, options);
          return { text, msPerChar: (performance.now() - t) / steps.length };
        };
        const b = timed(base), f = timed(ft);
        post({ type: 'compare', prompt, seed, base: b.text, tuned: f.text, merged: ft.merged, step: ft.steps, msPerChar: { base: b.msPerChar, tuned: f.msPerChar } });
      } catch (error) { fail('compare', error); }
    },
    merge({ merged }) {
      if (!ft || ft.method !== 'lora') return;
      try {
        if (merged && !ft.merged) ft.merge();
        if (!merged && ft.merged) ft.unmerge();
        post({ type: 'merged', merged: ft.merged });
      } catch (error) { fail('merge', error); }
    },
    save() {
      if (!ft || ft.method !== 'lora') { post({ type: 'saved', bytes: null }); return; }
      const bytes = ft.saveAdapter();
      post({ type: 'saved', bytes, step: ft.steps }, [bytes.buffer]);
    },
  };

  let queue = Promise.resolve();
  return {
    receive(message) {
      const command = commands[message?.type];
      if (!command || stopped) return;
      queue = queue.then(() => command(message)).catch((error) => fail(message.type, error));
    },
    stop() {
      stopped = true;
      jobs = [];
      loop.port1.close();
      ft?.dispose();
      base?.dispose();
      ft = base = baseParams = null;
    },
  };
}
