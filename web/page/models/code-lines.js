// models/code-lines.js: the code beside the arithmetic. For a snapshot (seed, sentence, d_k, position
// vectors, edited cells, √d_k) it writes each step of the page as a NumPy line and as the
// equivalent qkv-lab call, plus everything that has to run before it, in both languages, so that
// the lines can be copied and run as they are and give the numbers on the page (numpy in float64,
// qkv-lab in float32: the same to the 3 decimals shown). tests/browser/page-code.test.js runs
// them, with Debian's python3-numpy and in Node, and compares with the page.
//
//   const code = codeLines(snap, { pull: 5, heads: 2 });
//   code.step('scores')   → { py, js, results: ['S'], setup: { py, js } }
// The section "Why divide by √d_k" draws its own numbers: codeLines(data).step('scaling'), with
// data from models/scaling.js ({ seed, dk }).
//
// Pure: strings from the snapshot's settings and edits; no WASM, no DOM.
import { VOCABULARY, D_K, D_MODEL, MAX_TOKENS, WEIGHT_SCALE, TABLE_SCALE, POSITION_SCALE } from './attention.js';
import { D_MODEL_HEADS, HEAD_WEIGHT_SCALE, OUT_WEIGHT_SCALE, PE_BASE } from './heads-positions.js';
import { SCALING_QUERIES, SCALING_KEYS, SCALING_MAX_DK, ROW_KEYS } from './scaling.js';

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
  multihead: ['embedding', 'headWeights'],
  positions: [],
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
function stepLines(snap, options = {}) {
  const { pull = 5, heads = 2 } = options;
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
    headWeights: {
      py: [
        `np.random.seed(${snap.seed})   # the heads' weights: a generator of their own`,
        ...['W_Qh', 'W_Kh', 'W_Vh'].map((w) => `${w} = np.random.randn(${D_MODEL}, ${D_MODEL_HEADS})${HEAD_WEIGHT_SCALE === 1 ? '' : ` * ${HEAD_WEIGHT_SCALE}`}`),
        `W_O = np.random.randn(${D_MODEL_HEADS}, ${D_MODEL}) * ${OUT_WEIGHT_SCALE}`,
      ],
      js: [
        `const heads = qkv.rng(${snap.seed});   // the heads' weights: a generator of their own`,
        ...['Wqh', 'Wkh', 'Wvh'].map((w) => `const ${w} = heads.randn(${D_MODEL}, ${D_MODEL_HEADS})${HEAD_WEIGHT_SCALE === 1 ? '' : `.scale(${HEAD_WEIGHT_SCALE})`};`),
        `const Wo = heads.randn(${D_MODEL_HEADS}, ${D_MODEL}).scale(${OUT_WEIGHT_SCALE});`,
      ],
      results: [],
    },
    multihead: {
      py: [
        `H = ${heads}; d_k = ${D_MODEL_HEADS} // H`,
        'outs = []',
        'for h in range(H):',
        '    c = slice(h * d_k, (h + 1) * d_k)   # head h: its columns of Q, K, V',
        '    q, k, v = X @ W_Qh[:, c], X @ W_Kh[:, c], X @ W_Vh[:, c]',
        '    s = q @ k.T / np.sqrt(d_k)',
        '    outs.append(np.exp(s) / np.exp(s).sum(axis=1, keepdims=True) @ v)',
        'concat = np.hstack(outs)   # [n, 12]',
        'Y = concat @ W_O   # [n, 4]',
      ],
      js: [
        `const mh = qkv.multiHeadAttention(X, { Wq: Wqh, Wk: Wkh, Wv: Wvh, Wo }, { heads: ${heads} });`,
        'const concat = mh.concat, Y = mh.output;   // mh.heads[h]: { Q, K, V, scores, weights, output }',
      ],
      results: ['concat', 'Y'],
    },
    positions: positionLines(snap, options),
  };
}

/** The positional-encoding section: the words' rows, reordered, without and with PE. */
function positionLines(snap) {
  const { n, dk, scale } = snap;
  const order = snap.derived ? snap.derived.positions.order : [];
  const words = order.map((i) => snap.words[i]).join(' ');
  const hot = 'ids.map((id) => E.map((_, k) => +(k === id)))';
  return {
    py: [
      `order = [${order.join(', ')}]   # ${words}`,
      `Ew = np.eye(${V})[ids] @ E   # the words' rows, no position`,
      `p, i = np.arange(${n})[:, None], np.arange(${D_MODEL})`,
      `angle = p / ${PE_BASE} ** ((i - i % 2) / ${D_MODEL})`,
      'PE = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))',
      'def attend(X):',
      `    S = (X @ W_Q) @ (X @ W_K).T${scale ? ` / np.sqrt(${dk})` : ''}`,
      '    return np.exp(S) / np.exp(S).sum(axis=1, keepdims=True) @ (X @ W_V)',
      'O_plain, O_plain_re = attend(Ew), attend(Ew[order])',
      'O_pos, O_pos_re = attend(Ew + PE), attend(Ew[order] + PE)   # PE by position, not by word',
    ],
    js: [
      `const order = [${order.join(', ')}];   // ${words}`,
      `const Ew = qkv.matmul(${hot}, E);   // the words' rows, no position`,
      `const PE = qkv.positionalEncoding(${n}, ${D_MODEL});`,
      `const attend = (X) => qkv.selfAttention(X, Wq, Wk, Wv, { scale: ${scale} }).output;`,
      'const reordered = order.map((i) => Ew.row(i));',
      'const plusPE = (rows) => rows.map((row, p) => row.map((x, j) => x + PE.get(p, j)));',
      'const O_plain = attend(Ew), O_plain_re = attend(reordered);',
      'const O_pos = attend(plusPE(Ew.toArray())), O_pos_re = attend(plusPE(reordered));   // PE by position, not by word',
    ],
    results: ['PE', 'O_plain', 'O_plain_re', 'O_pos', 'O_pos_re'],
  };
}

/** The section "Why divide by √d_k": its own draws (data: { seed, dk } from models/scaling.js). */
function scalingStep({ seed, dk }) {
  const setup = {
    py: [
      'import numpy as np',
      `np.random.seed(${seed})`,
      `Qs, Ks = np.random.randn(${SCALING_QUERIES}, ${SCALING_MAX_DK}), np.random.randn(${SCALING_KEYS}, ${SCALING_MAX_DK})`,
      `dk = ${dk}`,
    ],
    js: [
      "import { load, Matrix } from 'qkv-lab';",
      'const qkv = await load();',
      `const rng = qkv.rng(${seed});`,
      `const Qs = rng.randn(${SCALING_QUERIES}, ${SCALING_MAX_DK}), Ks = rng.randn(${SCALING_KEYS}, ${SCALING_MAX_DK});`,
      `const dk = ${dk};`,
      'const first = (M, cols) => M.toArray().map((row) => row.slice(0, cols));   // the first dk components',
    ],
  };
  return {
    py: [
      'S = Qs[:, :dk] @ Ks[:, :dk].T   # every q·k: 32 × 64',
      'spread = [[S.mean(), S.std()], [(S / np.sqrt(dk)).mean(), (S / np.sqrt(dk)).std()]]',
      `row = S[0, :${ROW_KEYS}]   # query 0 against keys 0 … ${ROW_KEYS - 1}`,
      'w_raw = np.exp(row) / np.exp(row).sum()',
      'w_scaled = np.exp(row / np.sqrt(dk)) / np.exp(row / np.sqrt(dk)).sum()',
    ].join('\n'),
    js: [
      'const S = qkv.matmul(first(Qs, dk), qkv.transpose(first(Ks, dk)));   // every q·k: 32 × 64',
      'const stats = (x) => { const m = x.reduce((a, b) => a + b) / x.length; return [m, Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / x.length)]; };',
      'const spread = new Matrix(2, 2, [...stats([...S.data]), ...stats([...S.data].map((s) => s / Math.sqrt(dk)))]);',
      `const row = S.row(0).slice(0, ${ROW_KEYS});   // query 0 against keys 0 … ${ROW_KEYS - 1}`,
      'const w_raw = qkv.softmaxRows([row]);',
      'const w_scaled = qkv.softmaxRows([row.map((s) => s / Math.sqrt(dk))]);',
    ].join('\n'),
    results: ['spread', 'w_raw', 'w_scaled'],
    setup: { py: setup.py.join('\n'), js: setup.js.join('\n') },
  };
}

export function codeLines(snap, options = {}) {
  // the section with draws of its own has no sentence: its code stands alone
  if (!snap.embedding) return { step: (id) => (id === 'scaling' ? scalingStep(snap) : null) };
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
