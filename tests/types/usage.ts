// usage.ts: compiled (never run) by `tsc --noEmit -p tests/types`: the declarations must accept
// what the README shows and reject misuse (the @ts-expect-error lines fail the build if the
// declarations ever stop catching them).
import {
  load, simdSupported, Matrix, Model, type QkvLab, type SelfAttentionResult, type InspectResult, type StepOnResult,
  type MultiHeadResult, type HeadResult, type GPT, type FineTune, type TransformerBlockResult, type ModelState,
} from 'qkv-lab';
import { POEM_FORMS, POEM_FORM_NAMES, poemForm, type PoemFormName } from 'qkv-lab/poem-forms';

async function main(): Promise<void> {
  const qkv: QkvLab = await load();
  const scalar: QkvLab = await load({ simd: false, fresh: true });
  const vectorised: boolean = qkv.simd && simdSupported() && !scalar.simd;
  console.log(vectorised);
  // @ts-expect-error simd is a boolean
  void load({ simd: 'auto' });
  const forced: QkvLab = await load({ kernels: 'scalar', fresh: true });
  const build: 'relaxed-simd' | 'simd128' | 'scalar' = forced.kernels;
  // @ts-expect-error not a kernel build
  void load({ kernels: 'sse' });
  const rng = qkv.rng(42);
  const I = [[1, 0], [0, 1]];
  // only the outputs asked for are in the result's type
  const only = qkv.attend(I, I, I, { outputs: ['output'] });
  const out: Matrix = only.output;
  // @ts-expect-error weights were not asked for
  void only.weights;
  const two = qkv.attend(I, I, I, { scale: false, outputs: ['weights', 'scores'] as const });
  console.log(build, out.rows, two.weights.rows, two.scores.cols);
  // @ts-expect-error not a result name
  qkv.attend(I, I, I, { outputs: ['out'] });
  const Wq: Matrix = rng.randn(4, 3).scale(0.3);
  const Wk = rng.randn(4, 3).scale(0.3);
  const Wv = rng.randn(4, 3).scale(0.3);
  const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
  const result: SelfAttentionResult = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
  const firstRow: number[] = result.weights.toArray()[0];
  const { scores, weights, output } = qkv.attend(result.Q, result.K, result.V, { scale: 2.5, causal: true });
  const total: number = scores.get(0, 0) + weights.data[0] + output.rows;
  const product = qkv.matmul({ rows: 1, cols: 2, data: new Float32Array([1, 2]) }, [[3], [4]]);
  qkv.softmaxRows(qkv.transpose(product));
  const bytes: number = qkv.heapUsed();
  console.log(firstRow, total, bytes, Matrix.from([[1]]).toArray());

  const withModel: QkvLab = await load({ model: true });   // createModel needs the model's code
  const modelReady: boolean = withModel.modelLoaded && (await qkv.loadModelEngine()).modelLoaded;
  console.log(modelReady);
  // @ts-expect-error model is true or false
  void load({ model: 'yes' });
  const model = qkv.createModel({ dim: 8, seed: 3, optimizer: 'sgd', lr: 0.5 });
  const { loss, updatedRows } = model.step();
  const losses: number[] = model.train();
  const checkpoint: ModelState = model.saveState();
  model.loadState(checkpoint);
  const stateBytes: number = checkpoint.bytes.length + checkpoint.steps;
  console.log(stateBytes);
  const near: string = model.nearest('猫', 3)[0].word;
  const xy: Matrix = model.project2d();
  const p: number = model.predict(['我', '爱', '吃', '苹'])[0].p;
  console.log(loss, updatedRows.length, losses.length, near, xy.rows, p, model.vocab[0],
    model.similarity('猫', '狗'), model.analogy('男人', '国王', '女人')[0].score);
  const look: InspectResult = model.inspect('我 爱 吃 苹 果');
  const pGuo: number = look.probs.get(4, look.targetIds[4]);
  const rows: number[] = look.gradientRows.map((r) => r.row);
  const gE: Matrix = look.gradients.embedding;
  const perPosition: number[] = look.losses;
  const one: StepOnResult = model.stepOn(['我', '爱', '吃', '苹', '果']);
  const fell: boolean = one.lossAfter < one.loss;
  const moved: Matrix = one.rowsAfter;
  console.log(pGuo, rows, gE.rows, perPosition, fell, moved.cols, one.updatedRows, look.weights, look.scores);
  // @ts-expect-error a sentence is a string or an array of words
  model.inspect(42);
  // @ts-expect-error inspect's result has no 'output' (the attention output is called 'attention')
  look.output;
  const isModel: boolean = model instanceof Model;   // Model is a value at run time too
  console.log(isModel);
  model.dispose();
  // @ts-expect-error Model's constructor is private: createModel() makes models
  new Model();
  // @ts-expect-error the optimizers are 'sgd' and 'adam'
  qkv.createModel({ optimizer: 'rmsprop' });

  // @ts-expect-error scale takes a boolean or a number
  qkv.attend(X, X, X, { scale: 'yes' });
  // @ts-expect-error unknown option
  qkv.attend(X, X, X, { scaled: true });
  const PE: Matrix = qkv.positionalEncoding(8, 4, { base: 100 });
  const XP = X.map((row, p) => row.map((x, j) => x + PE.get(p, j)));
  const Wo = rng.randn(12, 4);
  const multi: MultiHeadResult = qkv.multiHeadAttention(XP, { Wq: rng.randn(4, 12), Wk: rng.randn(4, 12), Wv: rng.randn(4, 12), Wo },
    { heads: 4, scale: true, causal: false });
  const head: HeadResult = multi.heads[0];
  console.log(head.Q.cols + head.weights.rows + multi.concat.cols + multi.output.cols, qkv.positionalEncoding(3, 2).rows);
  // @ts-expect-error heads is required
  qkv.multiHeadAttention(X, { Wq, Wk, Wv, Wo }, { scale: true });
  // @ts-expect-error the weights are named Wq, Wk, Wv and Wo
  qkv.multiHeadAttention(X, { Wq, Wk, Wv, W_o: Wo }, { heads: 1 });
  // @ts-expect-error base is a number
  qkv.positionalEncoding(4, 4, { base: '10000' });
  // @ts-expect-error a seed is a number
  qkv.rng('42');

  const withGPT: QkvLab = await load({ gpt: true });
  const attached: QkvLab = await qkv.loadGPTEngine();
  const loaded: boolean = withGPT.gptLoaded && attached.gptLoaded;
  console.log(loaded);
  // @ts-expect-error gpt is true or false
  void load({ gpt: 'yes' });
  const gpt: GPT = qkv.createGPT({ text: 'a\nb', layers: 1, dim: 8, heads: 2, context: 4 });
  const { step, loss: gptLoss } = gpt.step();
  const gptLosses: number[] = gpt.train(3);
  const { train, val } = gpt.evaluate();
  const perPoem: number = gpt.evaluatePoems(['白日依山尽']).loss + gpt.evaluatePoems().cut;
  console.log(perPoem);
  const pieces = gpt.evaluation();
  const piece: { train: number; val: number } | null = pieces.advance(1);
  console.log(pieces.windows - pieces.done, piece?.val);
  // @ts-expect-error done is read-only
  pieces.done = 0;
  const poem: string = gpt.generate('', { temperature: 0.8, topK: 5, topP: 0.9, seed: 1, cache: false }).text;
  const form: PoemFormName = POEM_FORM_NAMES[0];
  const locked = gpt.generate('', { form, acrostic: '春夏秋冬', temperature: 0.8 });
  const wanted: string | undefined = locked.steps[0].mask?.wanted.char;
  console.log(locked.stopped === 'end', poemForm(locked.text), POEM_FORMS[form].lines, wanted);
  // @ts-expect-error a form is one of the four names
  gpt.generate('', { form: 'sonnet' });
  const f = gpt.forward('ab');
  const trace: TransformerBlockResult = f.blocks[0];
  console.log(step + gptLoss + gptLosses.length + train + val + poem.length + f.logits.cols + trace.gelu.cols + f.tokens[0]);
  const again: GPT = qkv.loadGPT(gpt.save());
  // the learning rate it was created with; a loaded GPT has none (it cannot train)
  const lr: number | null = gpt.lr;
  // @ts-expect-error lr may be null (a loaded GPT's)
  const lrUnchecked: number = again.lr;
  console.log(lr, lrUnchecked);
  // @ts-expect-error lr is read-only
  gpt.lr = 1;
  const w = again.parameters().blocks[0];
  console.log(qkv.transformerBlock(X, w, { heads: 2, causal: true, eps: 1e-5 }).attention.heads[0].scores.rows, gpt.vocab[0]);
  // @ts-expect-error text is required
  qkv.createGPT({ layers: 2 });
  // @ts-expect-error heads is required
  qkv.transformerBlock(X, w, {});
  // @ts-expect-error temperature is a number
  gpt.generate('', { temperature: 'hot' });
  // @ts-expect-error loadGPT takes bytes
  qkv.loadGPT('QKVGPT');
  const poet: GPT = await qkv.loadPretrained();
  console.log(poet.generate('白日', { temperature: 0.8, seed: 1 }).text, poet.context);
  poet.dispose();
  // @ts-expect-error loadPretrained takes no arguments
  void qkv.loadPretrained('tang');
  const ft: FineTune = gpt.finetune({ text: 'a\nb', method: 'lora', rank: 4, alpha: 8, targets: ['Wq', 'Wv'], steps: 10 });
  const { baseVal }: { baseVal: number | null } = ft.evaluate();
  const adapter: Uint8Array = ft.saveAdapter();
  const reloaded: FineTune = qkv.loadAdapter(gpt, adapter);
  console.log(baseVal, reloaded.trainableCount + ft.adapterBytes + ft.memoryBytes, ft.generate('', { seed: 1 }).text);
  ft.merge();
  ft.unmerge();
  // @ts-expect-error an unknown target
  gpt.finetune({ text: 'a', targets: ['Wz'] });
  // @ts-expect-error method is 'lora' or 'full'
  gpt.finetune({ text: 'a', method: 'half' });
  gpt.dispose();
  // @ts-expect-error matrices are numbers
  qkv.matmul([['a']], [[1]]);
}

void main;
