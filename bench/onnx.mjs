// onnx.mjs: the benchmark's inference cases in onnxruntime-web (WebAssembly execution provider,
// one thread), loaded from bench/node_modules (bench/peers.mjs): nothing is fetched. The models are built here as ONNX
// protobuf bytes (a few graph nodes; no Python needed): attention returns scores, weights and
// output like qkv-lab's attend. onnxruntime-web runs inference only, so the training cases are
// not run through it. session.run() is asynchronous: its time includes a promise round trip.
import * as ort from 'onnxruntime-web';

// ---- a minimal protobuf writer for ModelProto ----
function varint(n) {
  const out = [];
  let x = BigInt(n);
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const bytes = (field, value) => [...key(field, 2), ...varint(value.length), ...value];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const float32 = (field, x) => [...key(field, 5), ...new Uint8Array(Float32Array.of(x).buffer)];

function node(op, inputs, outputs, attributes = []) {
  return [...inputs.flatMap((s) => str(1, s)), ...outputs.flatMap((s) => str(2, s)),
    ...str(3, `${op}_${outputs[0]}`), ...str(4, op), ...attributes.flatMap((a) => bytes(5, a))];
}
const intAttribute = (name, v) => [...str(1, name), ...int(3, v), ...int(20, 2)];
const intsAttribute = (name, vs) => [...str(1, name), ...vs.flatMap((v) => int(8, v)), ...int(20, 7)];
function tensorType(name, dims) {  // ValueInfoProto of a float tensor
  const shape = dims.flatMap((d) => bytes(1, int(1, d)));
  return [...str(1, name), ...bytes(2, bytes(1, [...int(1, 1), ...bytes(2, shape)]))];
}
function model(nodes, initializers, inputs, outputs) {
  const graph = [...nodes.flatMap((n) => bytes(1, n)), ...str(2, 'qkv_bench'),
    ...initializers.flatMap((t) => bytes(5, t)),
    ...inputs.flatMap(([name, dims]) => bytes(11, tensorType(name, dims))),
    ...outputs.flatMap(([name, dims]) => bytes(12, tensorType(name, dims)))];
  return Uint8Array.from([...int(1, 8), ...bytes(8, [...str(1, ''), ...int(2, 13)]), ...bytes(7, graph)]);
}
const scalar = (name, x) => [...int(2, 1), ...float32(4, x), ...str(8, name)];  // TensorProto FLOAT

function attentionGraph(nodesBefore, q, k, v, n, dk, s) {
  return [...nodesBefore,
    node('Transpose', [k], ['Kt'], [intsAttribute('perm', [1, 0])]),
    node('MatMul', [q, 'Kt'], ['scores']),
    node('Div', ['scores', 's'], ['z']),
    node('Softmax', ['z'], ['weights'], [intAttribute('axis', 1)]),
    node('MatMul', ['weights', v], ['output'])];
}

export async function loadOrt() {
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  return {
    version: ort.env.versions && ort.env.versions.web,
    /** attend(Q, K, V) with n_q = n_k = n, widths d, divided by s. */
    async attention(n, d, s) {
      const session = await ort.InferenceSession.create(model(attentionGraph([], 'Q', 'K', 'V', n, d, s),
        [scalar('s', s)], [['Q', [n, d]], ['K', [n, d]], ['V', [n, d]]],
        [['scores', [n, n]], ['weights', [n, n]], ['output', [n, d]]]), options);
      return async (Q, K, V) => {
        const r = await session.run({
          Q: new ort.Tensor('float32', Q, [n, d]), K: new ort.Tensor('float32', K, [n, d]), V: new ort.Tensor('float32', V, [n, d]),
        });
        return { scores: r.scores.data, weights: r.weights.data, output: r.output.data };
      };
    },
    /**
     * The way ORT's users write it: a session whose graph returns the output alone, its input
     * tensors made once and reused by every run.
     */
    async residentAttention(Q, K, V, n, d, s) {
      const session = await ort.InferenceSession.create(model(attentionGraph([], 'Q', 'K', 'V', n, d, s),
        [scalar('s', s)], [['Q', [n, d]], ['K', [n, d]], ['V', [n, d]]], [['output', [n, d]]]), options);
      const feeds = { Q: new ort.Tensor('float32', Q, [n, d]), K: new ort.Tensor('float32', K, [n, d]), V: new ort.Tensor('float32', V, [n, d]) };
      return async () => (await session.run(feeds)).output.data;
    },
    async residentMatmul(A, B, n, k, m) {
      const session = await ort.InferenceSession.create(model([node('MatMul', ['A', 'B'], ['C'])], [],
        [['A', [n, k]], ['B', [k, m]]], [['C', [n, m]]]), options);
      const feeds = { A: new ort.Tensor('float32', A, [n, k]), B: new ort.Tensor('float32', B, [k, m]) };
      return async () => (await session.run(feeds)).C.data;
    },
    /** The article's selfAttention: X (n×d), Wq, Wk, Wv (d×dk), unscaled. */
    async selfAttention(n, d, dk) {
      const nodes = attentionGraph([node('MatMul', ['X', 'Wq'], ['Q']), node('MatMul', ['X', 'Wk'], ['K']),
        node('MatMul', ['X', 'Wv'], ['V'])], 'Q', 'K', 'V', n, dk, 1);
      const session = await ort.InferenceSession.create(model(nodes, [scalar('s', 1)],
        [['X', [n, d]], ['Wq', [d, dk]], ['Wk', [d, dk]], ['Wv', [d, dk]]],
        [['Q', [n, dk]], ['K', [n, dk]], ['V', [n, dk]], ['scores', [n, n]], ['weights', [n, n]], ['output', [n, dk]]]), options);
      return async (X, Wq, Wk, Wv) => {
        const t = (data, dims) => new ort.Tensor('float32', data, dims);
        const r = await session.run({ X: t(X, [n, d]), Wq: t(Wq, [d, dk]), Wk: t(Wk, [d, dk]), Wv: t(Wv, [d, dk]) });
        return { weights: r.weights.data, output: r.output.data };
      };
    },
    async matmul(n, k, m) {
      const session = await ort.InferenceSession.create(model([node('MatMul', ['A', 'B'], ['C'])], [],
        [['A', [n, k]], ['B', [k, m]]], [['C', [n, m]]]), options);
      return async (A, B) => (await session.run({
        A: new ort.Tensor('float32', A, [n, k]), B: new ort.Tensor('float32', B, [k, m]),
      })).C.data;
    },
  };
}
