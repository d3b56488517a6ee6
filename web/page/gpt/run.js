// gpt/run.js: the writer's training run, answering the commands of gpt/store.js with the messages
// below. It runs in the Web Worker (worker.js), or, where the page may not start one (a strict
// Content-Security-Policy without blob: workers), on the page's own thread (local-run.js). Steps
// run in chunks between which it yields (a message to itself), so a command (pause, the attention
// of a typed line, save) is answered within one chunk: in the worker a chunk is one step; on the
// page's thread as many steps as fit in chunkMs, sized by the time the last step took. The
// sample every SAMPLE_EVERY steps (SAMPLE_POEMS poems, each about as long as a step) and the
// evaluation every EVAL_EVERY steps are done in pieces in both: the sample a poem or more a
// piece, the evaluation's windows through gpt.evaluation(), each piece within chunkMs (the
// worker: EVAL_PIECE_MS), the steps after them waiting until they are done. A create or
// load the engine refuses changes nothing: the run goes on as it was, and the error says why.
//
// page → run                                 run → page
//   { type: 'create', options, text, form }    { type: 'created', info } | { type: 'error', op, message }
//   { type: 'play', until?, seq? }             { type: 'progress', step, loss, running, done, seq }
//   (seq: the page's number for its play and pause commands; progress says the last one received)
//   { type: 'pause' | 'step' }                 (play with until: it pauses itself at that step)
//   { type: 'attend', id, text }               { type: 'sample', step, poems, good }  (every SAMPLE_EVERY steps)
//   { type: 'save' }                           { type: 'eval', step, train, val }     (every EVAL_EVERY steps)
//   { type: 'load', bytes }                    { type: 'attention', id, chars, layers } | { type: 'error', op: 'attend', id, message }
//                                              { type: 'saved', bytes, step }
//                                              { type: 'chunk', ms }  (chunkMs > 0: how long a chunk
//                                                took, its samples and evaluations included)
// done: the schedule's end reached and its last sample and evaluation written (the end's own
// progress says running until then; one progress with done: true follows them).
// text: what to train on (the page sends the quatrains or the reader's text); form: whether the
// samples are checked for the quatrain form. Every number comes from the GPT (WASM) but the
// baselines (counts).
import { isWellFormedQuatrain } from '../../data/quatrain-form.js';
import { baselines } from './baselines.js';
import { SAMPLE_EVERY, EVAL_EVERY, SAMPLE_POEMS, SAMPLE_TEMPERATURE, EVAL_PIECE_MS } from './worker-constants.js';

const now = () => performance.now();

/**
 * createRun({ post, api, chunkMs, batch }) → { receive(message) }
 *   post(message, transfer)  how messages reach the page
 *   api()                    a promise of the qkv-lab API with the GPT engine (load({ gpt: true }))
 *   chunkMs                  0: one step per chunk; otherwise the steps of a chunk stop before it
 *                            would pass chunkMs (a step longer than that is a chunk of its own)
 *   batch                    the windows a step learns from, in place of createGPT's default (the
 *                            page's thread: a smaller batch keeps one step, which is one call, short)
 */
export function createRun({ post, api, chunkMs = 0, batch = null }) {
  // the evaluation's pieces: within chunkMs on the page's thread; in the worker (chunkMs 0, one
  // step a chunk) within EVAL_PIECE_MS, so a command waits for one piece, not the whole evaluation
  const pieceMs = chunkMs > 0 ? chunkMs : EVAL_PIECE_MS;
  let stopped = false;
  let qkv = null;
  let gpt = null;
  let running = false;
  let until = Infinity;    // the step a play stops at (a link's step: gpt/store.js)
  let quatrainForm = true;
  let trainable = false;   // a GPT loaded from a file holds no text: it generates, it does not train
  let stepMs = 0;          // the last step's duration (gpt.step() alone)
  let evaluation = null;   // the evaluation in progress, in pieces; steps wait for it
  let sampling = null;     // the sample in progress ({ poems, good }), a poem or more a piece; steps wait for it
  let stepAsked = false;   // a Step that came while a sample or an evaluation was being written: taken after it
  let msPerWindow = null;  // what one evaluated window took, measured, to size its pieces
  let scheduled = false;
  const loop = new MessageChannel();
  const schedule = () => { if (!scheduled) { scheduled = true; loop.port2.postMessage(0); } };

  // the number of the last play or pause the page sent ({ type, seq }): every progress says it, so
  // that the page can tell a report from before its reader's latest command (gpt/store.js)
  let seq = 0;
  const progress = (fields) => post({ type: 'progress', seq, ...fields });

  function fail(op, error, extra = {}) {
    post({ type: 'error', op, message: String(error && error.message ? error.message : error), name: error?.name, ...extra });
  }

  // the sample of the model as it is now: its poems are written in pieces (advanceSample)
  function sample() {
    sampling = { poems: [], good: 0 };
    schedule();
  }

  // the sample in progress: one poem, then more while the piece has time left
  function advanceSample(start) {
    while (sampling) {
      const { text } = gpt.generate('', { temperature: SAMPLE_TEMPERATURE, seed: sampling.poems.length });
      sampling.poems.push(text);
      if (isWellFormedQuatrain(text)) sampling.good++;
      if (sampling.poems.length === SAMPLE_POEMS) {
        post({ type: 'sample', step: gpt.steps, poems: sampling.poems, good: quatrainForm ? sampling.good : null });
        sampling = null;
      }
      if (now() - start >= pieceMs) return;
    }
  }

  function evaluate() {
    evaluation = gpt.evaluation();
    schedule();
  }

  // the evaluation in progress, in pieces sized to what is left of the chunk (one window first)
  function advanceEvaluation(start) {
    while (evaluation) {
      const left = pieceMs - (now() - start);
      const rest = evaluation.windows - evaluation.done;
      const n = msPerWindow === null ? 1 : Math.max(1, Math.min(rest, Math.floor(left / msPerWindow)));
      const t = now();
      const before = evaluation.done;
      const result = evaluation.advance(n);
      // (the clock may be coarse: a piece that took "0 ms" counts as 0.01 ms a window)
      msPerWindow = Math.max(0.01, (now() - t) / Math.max(1, evaluation.done - before));
      if (result) { evaluation = null; post({ type: 'eval', step: gpt.steps, train: result.train, val: result.val }); }
      if (now() - start >= pieceMs) return;
    }
  }

  const done = () => !gpt || gpt.diverged || gpt.steps >= gpt.defaultSteps;
  // what progress reports as done: the end reached and its last sample and evaluation written (a
  // reader, or a test, told "done" finds them there); the end's own progress says not yet
  const reported = () => done() && !sampling && !evaluation;
  // what the answer to a play or a pause says is done: that, or a model from a file, which does
  // not train (the page shows it as done from its 'created'; an answer must not undo that)
  const finishedForPage = () => reported() || !trainable;
  let endSaid = false;     // the run's end has been reported (once per model)
  function sayEnd() {
    if (endSaid || !gpt || !trainable || !reported()) return;
    endSaid = true;
    progress({ step: gpt.steps, loss: null, running: false, done: true });
  }

  // one step, then its sample and evaluation when due; false when the run cannot go on
  function oneStep() {
    try {
      const t = now();
      const { step, loss } = gpt.step();
      stepMs = now() - t;
      const finished = done();
      if (finished || step >= until) running = false;
      if (step % SAMPLE_EVERY === 0 || finished) sample();
      if (step % EVAL_EVERY === 0 || finished) evaluate();
      // the end's step is still at work (its sample and evaluation) until sayEnd()
      progress({ step, loss, running: running || (finished && !reported()), done: reported() });
      return !finished;
    } catch (error) {
      running = false;
      fail('step', error);
      endSaid = true;
      progress({ step: gpt.steps, loss: null, running: false, done: true });
      return false;
    }
  }

  loop.port1.onmessage = () => {
    scheduled = false;
    if (!gpt || (!running && !evaluation && !sampling && !stepAsked)) return;
    const start = now();
    const pieces = Boolean(sampling || evaluation);   // this chunk writes a piece: an asked Step waits for the next
    try {
      // the sample first (a piece), then the evaluation (what is left of the piece's time)
      const sampled = Boolean(sampling);
      if (sampling) advanceSample(start);
      if (!sampling && evaluation && (!sampled || now() - start < pieceMs)) advanceEvaluation(start);
      // steps wait for the sample and the evaluation of the model they would change; a step
      // that samples or evaluates ends its chunk, and a chunk stops before the next step would pass chunkMs
      if (!evaluation && !sampling && stepAsked && !pieces) {
        stepAsked = false;
        if (!running && trainable && !done()) oneStep();
      } else if (!evaluation && !sampling && !stepAsked && running) {
        do {
          if (!oneStep()) break;
        } while (running && !evaluation && !sampling && chunkMs > 0 && now() - start + stepMs < chunkMs && !sampleDue());
      }
    } catch (error) {
      const op = sampling ? 'sample' : 'evaluate';
      evaluation = sampling = null;
      running = false;
      fail(op, error);
    }
    sayEnd();
    if (chunkMs > 0) post({ type: 'chunk', ms: now() - start });
    if (running || evaluation || sampling || stepAsked) schedule();
  };
  const sampleDue = () => (gpt.steps + 1) % SAMPLE_EVERY === 0 || (gpt.steps + 1) % EVAL_EVERY === 0;

  function info(text, loaded) {
    const base = text === null ? null : baselines(text);
    return {
      loaded, steps: gpt.steps, defaultSteps: gpt.defaultSteps, vocab: gpt.vocab.length, parameterCount: gpt.parameterCount,
      layers: gpt.layers, heads: gpt.heads, dim: gpt.dim, context: gpt.context, seed: gpt.seed, lr: gpt.lr, batch: gpt.batch,
      unigram: base ? base.unigram : null, uniform: Math.log(gpt.vocab.length),
    };
  }

  const commands = {
    // a refused text or file leaves the current run as it was, running or not: the page says why
    async create({ options, text, form }) {
      qkv ||= await api();
      if (stopped) return;
      let next;
      try {
        next = qkv.createGPT({ ...options, text, ...(batch ? { batch } : {}) });
      } catch (error) {
        fail('create', error, { running });
        return;
      }
      running = false;
      evaluation = sampling = null;
      stepAsked = false;
      gpt?.dispose();
      gpt = next;
      quatrainForm = Boolean(form);
      trainable = true;
      endSaid = false;
      post({ type: 'created', info: info(text, false) });
      sample();
    },
    async load({ bytes }) {
      qkv ||= await api();
      if (stopped) return;
      let next;
      try {
        next = qkv.loadGPT(bytes);
      } catch (error) {
        fail('load', error, { running });
        return;
      }
      running = false;
      evaluation = sampling = null;
      stepAsked = false;
      gpt?.dispose();
      gpt = next;
      quatrainForm = true;
      trainable = false;
      post({ type: 'created', info: info(null, true) });
      sample();
    },
    play({ until: to = null } = {}) {
      until = to === null ? Infinity : to;
      // refused (nothing to train, the schedule's end, the link's step reached): the answer says so
      if (!gpt || !trainable || done() || gpt.steps >= until) {
        if (gpt) progress({ step: gpt.steps, loss: null, running: running || (done() && trainable && !reported()), done: finishedForPage() });
        return;
      }
      if (!running) { running = true; schedule(); }
      progress({ step: gpt.steps, loss: null, running, done: false });
    },
    pause() {
      running = false;
      if (gpt) progress({ step: gpt.steps, loss: null, running: false, done: finishedForPage() });
    },
    step() {
      if (!gpt || running || !trainable || done()) return;
      if (evaluation || sampling) { stepAsked = true; return; }
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
  // waits for the model); training chunks run between them
  let queue = Promise.resolve();
  return {
    receive(message) {
      const command = commands[message?.type];
      if (!command || stopped) return;
      // a command's number counts from when it runs, in order with the others
      queue = queue.then(() => { if (typeof message.seq === 'number') seq = message.seq; return command(message); })
        .catch((error) => fail(message.type, error));
    },
    stop() { stopped = true; running = false; evaluation = sampling = null; loop.port1.close(); gpt?.dispose(); gpt = null; },
  };
}
