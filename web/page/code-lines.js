// code-lines.js: the code beside the arithmetic. For a snapshot (seed, sentence, d_k, position
// vectors, edited cells, √d_k) it writes each step of the page as a NumPy line and as the
// equivalent qkv-lab call, plus everything that has to run before it, in both languages, so that
// the lines can be copied and run as they are and give the numbers on the page (numpy in float64,
// qkv-lab in float32: the same to the 3 decimals shown). tests/browser/page-code.test.js runs
// them, with Debian's python3-numpy and in Node, and compares with the page.
//
//   const code = codeLines(snap, { pull: 5 });
//   code.step('scores')   → { py, js, results: ['S'], setup: { py, js } }
//
// Pure: strings from the snapshot's settings and edits; no WASM, no DOM.
import { VOCABULARY, D_K, D_MODEL, MAX_TOKENS, WEIGHT_SCALE, TABLE_SCALE, POSITION_SCALE } from './attention-model.js';

const V = VOCABULARY.length;
const ARTICLE_ROWS = '[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]';
const PY_NAMES = { X: 'X', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V' };

/** Which steps come before which: a step's setup is the inputs and every earlier step it needs. */
const NEEDS = {
  embedding: [], projections: ['embedding'], scores: ['embedding', 'projections'],
  softmax: ['embedding', 'projections', 'scores'], mixing: ['embedding', 'projections', 'scores', 'softmax'],
  learnable: ['embedding', 'projections'], symmetry: ['embedding', 'projections'],
  flow: ['embedding', 'projections', 'scores', 'softmax', 'mixing'],
  walkthrough: [],
};

const num = (x) => String(x);

function inputs(snap) {
  const { seed, dk, n, pos } = snap;
  const ids = snap.embedding.ids;
  const restart = dk !== D_K;
  const py = [
    'import numpy as np',
    `np.random.seed(${seed})`,
    ...['W_Q', 'W_K', 'W_V'].map((w) => `${w} = np.random.randn(${D_MODEL}, ${dk}) * ${WEIGHT_SCALE}`),
    ...(restart ? [`np.random.seed(${seed}); np.random.randn(${3 * D_MODEL}, ${D_K})   # the table continues where it is for d_k = ${D_K}`] : []),
    `E = np.vstack([${ARTICLE_ROWS}, np.random.randn(${V - 3}, ${D_MODEL}) * ${TABLE_SCALE}])   # the embedding table`,
    `P = np.random.randn(${MAX_TOKENS}, ${D_MODEL}) * ${POSITION_SCALE}   # position vectors`,
    `W_out = np.random.randn(${dk}, ${V}) * ${WEIGHT_SCALE}`,
    `ids = [${ids.join(', ')}]   # ${snap.words.join(' ')}`,
  ];
  const js = [
    "import { load } from 'qkv-lab';",
    'const qkv = await load();',
    `const rng = qkv.rng(${seed});`,
    ...['Wq', 'Wk', 'Wv'].map((w) => `const ${w} = rng.randn(${D_MODEL}, ${dk}).scale(${WEIGHT_SCALE});`),
    ...(restart ? [`const table = qkv.rng(${seed}); table.randn(${3 * D_MODEL}, ${D_K});   // the table continues where it is for d_k = ${D_K}`] : []),
    `const E = [...${ARTICLE_ROWS}, ...${restart ? 'table' : 'rng'}.randn(${V - 3}, ${D_MODEL}).scale(${TABLE_SCALE}).toArray()];`,
    `const P = ${restart ? 'table' : 'rng'}.randn(${MAX_TOKENS}, ${D_MODEL}).scale(${POSITION_SCALE}).toArray();`,
    `const Wout = ${restart ? 'table' : 'rng'}.randn(${dk}, ${V}).scale(${WEIGHT_SCALE});`,
    `const ids = [${ids.join(', ')}];   // ${snap.words.join(' ')}`,
  ];
  // the reader's edits of W, written over the drawn weights
  for (const m of ['Wq', 'Wk', 'Wv']) {
    for (const [i, j, value] of snap.edited[m] || []) {
      py.push(`${PY_NAMES[m]}[${i}, ${j}] = ${num(value)}   # edited`);
      js.push(`${m}.data[${i * dk + j}] = ${num(value)};   // ${PY_NAMES[m]}[${i}][${j}], edited`);
    }
  }
  return { py, js, n, pos };
}

/** Each step's lines: { py: [...], js: [...], results: [names the page shows] }. */
function stepLines(snap, { pull = 5 } = {}) {
  const { n, pos, dk, scale } = snap;
  const hot = 'ids.map((id) => E.map((_, k) => +(k === id)))';
  const embedding = {
    py: [pos ? `X = np.eye(${V})[ids] @ E + P[:${n}]   # one-hot × table, plus positions` : `X = np.eye(${V})[ids] @ E   # one-hot × table`],
    js: [pos
      ? `const X = qkv.matmul(ids.map((id, i) => [...E.map((_, k) => +(k === id)), ...P.map((_, p) => +(p === i))]), [...E, ...P]);   // [one-hot | position one-hot] × [E; P]`
      : `const X = qkv.matmul(${hot}, E);   // one-hot × table`],
    results: ['X'],
  };
  for (const [i, j, value] of snap.edited.X || []) {
    embedding.py.push(`X[${i}, ${j}] = ${num(value)}   # edited`);
    embedding.js.push(`X.data[${i * D_MODEL + j}] = ${num(value)};   // X[${snap.words[i]}][${j}], edited`);
  }
  const root = `np.sqrt(${dk})`;
  const z = scale ? `S / ${root}` : 'S';
  return {
    embedding,
    projections: {
      py: ['Q = X @ W_Q', 'K = X @ W_K', 'V = X @ W_V'],
      js: ['const Q = qkv.matmul(X, Wq);', 'const K = qkv.matmul(X, Wk);', 'const V = qkv.matmul(X, Wv);'],
      results: ['Q', 'K', 'V'],
    },
    scores: {
      py: ['S = Q @ K.T', 'KQt = K @ Q.T   # = S.T'],
      js: ['const S = qkv.matmul(Q, qkv.transpose(K));', 'const KQt = qkv.matmul(K, qkv.transpose(Q));   // = Sᵀ'],
      results: ['S', 'KQt'],
    },
    softmax: {
      py: [`A = np.exp(${z}) / np.exp(${z}).sum(axis=1, keepdims=True)   # softmax by rows`],
      js: [scale ? `const A = qkv.softmaxRows(S.scale(1 / Math.sqrt(${dk})));` : 'const A = qkv.softmaxRows(S);'],
      results: ['A'],
    },
    mixing: { py: ['O = A @ V'], js: ['const O = qkv.matmul(A, V);'], results: ['O'] },
    learnable: {
      py: [
        `q = ${num(pull)} * K[0]   # ${snap.words[0]}'s query pulled onto its own key`,
        'a = np.exp(q @ K.T) / np.exp(q @ K.T).sum()',
        `a_scaled = np.exp(q @ K.T / ${root}) / np.exp(q @ K.T / ${root}).sum()`,
      ],
      js: [
        `const q = [K.row(0).map((k) => ${num(pull)} * k)];   // ${snap.words[0]}'s query pulled onto its own key`,
        'const a = qkv.attend(q, K, V, { scale: false }).weights;',
        'const a_scaled = qkv.attend(q, K, V, { scale: true }).weights;',
      ],
      results: ['a', 'a_scaled'],
    },
    symmetry: {
      py: ['S_shared = Q @ Q.T   # one projection: Q = K = X @ W_Q'],
      js: ['const S_shared = qkv.matmul(Q, qkv.transpose(Q));   // one projection: Q = K = X·W_Q'],
      results: ['S_shared'],
    },
    flow: {
      py: ['P_next = np.exp(O @ W_out) / np.exp(O @ W_out).sum(axis=1, keepdims=True)   # [n, V]'],
      js: ['const P_next = qkv.softmaxRows(qkv.matmul(O, Wout));   // [n, V]'],
      results: ['P_next'],
    },
  };
}

export function codeLines(snap, options = {}) {
  const start = inputs(snap);
  const steps = stepLines(snap, options);
  // the walkthrough: the whole chain as its one step
  const chain = ['embedding', 'projections', 'scores', 'softmax', 'mixing'];
  steps.walkthrough = {
    py: chain.flatMap((id) => steps[id].py),
    js: chain.flatMap((id) => steps[id].js),
    results: ['X', 'Q', 'K', 'V', 'S', 'A', 'O'],
  };
  return {
    step(id) {
      const step = steps[id];
      const before = NEEDS[id];
      return {
        py: step.py.join('\n'), js: step.js.join('\n'), results: step.results,
        setup: {
          py: [...start.py, ...before.flatMap((b) => steps[b].py)].join('\n'),
          js: [...start.js, ...before.flatMap((b) => steps[b].js)].join('\n'),
        },
      };
    },
  };
}
