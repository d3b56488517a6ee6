// gpt-drivers.js: the WASM fuzzer's drivers for the GPT engine's exports (wasm/gpt.c; wasm-harness.js
// calls them):
// LayerNorm and GELU forward and backward, the Transformer block's layout and forward, and call
// sequences on a GPT (create, set_optimizer, set_data, loss_and_grad, step, evaluate, forward,
// generate, tensor, num_params, steps, destroy). Each call must return the status the contract
// in wasm/qkv.h gives for its arguments (null pointers, sizes, arguments, shapes, tokens,
// finiteness, in that order), leave its outputs untouched when it refuses, and on success give
// finite results: LayerNorm and GELU against float64 references, attention rows summing to 1,
// the layout's offsets as the header describes them, losses ≥ 0, generation with the KV cache
// token for token what it is without. The harness checks every buffer's guard words and the
// heap after each case.

export function gptDrivers({ STATUS, Failure, expectStatus, untouched, elements, floats, size, finiteAll, SPECIAL_FLOATS,
  MAX_ELEMENTS, BUDGET, WORK_BUDGET }) {
  const f = Math.fround;

  function layernormRef(x, w, b, N, C, eps) {
    const out = new Float64Array(N * C);
    for (let i = 0; i < N; i++) {
      let m = 0;
      for (let c = 0; c < C; c++) m += x[i * C + c];
      m /= C;
      let v = 0;
      for (let c = 0; c < C; c++) v += (x[i * C + c] - m) ** 2;
      v /= C;
      const r = 1 / Math.sqrt(v + f(eps));
      for (let c = 0; c < C; c++) out[i * C + c] = (x[i * C + c] - m) * r * w[c] + b[c];
    }
    return out;
  }

  function layernorm(ctx, backward) {
    const { r, heap, core } = ctx;
    const N = size(r), C = size(r);
    const valid = elements(N, C) > 0;
    const big = valid && N * C > BUDGET;
    const nc = valid && !big ? N * C : 4, n = valid && !big ? N : 4, c = valid && !big ? C : 4;
    if (big) return expectStatus(`layernorm (too large)`, backward ? core._qkv_layernorm_backward(0, 0, 0, 0, 0, 0, 0, 0, N, C)
      : core._qkv_layernorm_forward(0, 0, 0, 0, 0, 0, N, C, 1e-5), STATUS.NULL);
    const eps = r.chance(0.85) ? 1e-5 : r.pick([0, -1, NaN, Infinity, 1e-50, 1e-3]);
    const x = floats(r, nc), w = floats(r, c), b = floats(r, c);
    const nullAt = r.chance(0.04) ? r.int(0, 2) : -1;
    const label = `layernorm_${backward ? 'backward' : 'forward'}(${N}, ${C})`;
    if (!backward) {
      const out = nullAt === 0 ? 0 : heap.alloc(nc), mean = heap.alloc(n), rstd = heap.alloc(n);
      const px = nullAt === 1 ? 0 : heap.alloc(nc, x), pw = heap.alloc(c, w), pb = nullAt === 2 ? 0 : heap.alloc(c, b);
      const status = core._qkv_layernorm_forward(out, mean, rstd, px, pw, pb, N, C, eps);
      ctx.inputsUnchanged(label, [[px, x], [pw, w], [pb, b]]);
      if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
      if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, 4]]); }
      if (!(Number.isFinite(f(eps)) && f(eps) > 0)) { expectStatus(label, status, STATUS.ARGUMENT); return untouched(heap, label, [[out, nc]]); }
      if (!finiteAll(x) || !finiteAll(w) || !finiteAll(b)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, [[out, nc]]); }
      expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
      if (status !== STATUS.OK) return;
      const got = heap.floats(out, nc);
      if (!finiteAll(got)) throw new Failure(`${label}: OK with a non-finite output`);
      // against float64 where float32 cannot lose the row (its spread well above its rounding)
      const tame = x.every((v) => Math.abs(v) < 1e6) && w.every((v) => Math.abs(v) < 1e6) && b.every((v) => Math.abs(v) < 1e6);
      if (tame) {
        const e = layernormRef(x, w, b, N, C, eps);
        for (let i = 0; i < N; i++) {
          let m = 0, spread = 0, big = 0;
          for (let k = 0; k < C; k++) m += x[i * C + k] / C;
          for (let k = 0; k < C; k++) { spread = Math.max(spread, Math.abs(x[i * C + k] - m)); big = Math.max(big, Math.abs(x[i * C + k])); }
          if (!(spread > 1e-3 * big && spread > 1e-20)) continue;
          for (let k = 0; k < C; k++) {
            const want = e[i * C + k], tol = 1e-3 * (Math.abs(w[k]) * (big / spread + 1) + Math.abs(b[k]) * 1e-3 + 1e-30);
            if (!(Math.abs(got[i * C + k] - want) <= tol + 1e-4 * Math.abs(want))) {
              throw new Failure(`${label}: [${i}][${k}] is ${got[i * C + k]}, reference ${want} ± ${tol}`);
            }
          }
        }
      }
      return;
    }
    // backward: mean, rstd as forward would give them (or anything: the contract only asks finite)
    const dout = floats(r, nc), mean = floats(r, n), rstd = floats(r, n);
    const acc = [floats(r, nc, { finite: r.chance(0.9) }), floats(r, c, { finite: true }), floats(r, c, { finite: true })];
    const pd = [heap.alloc(nc, acc[0]), heap.alloc(c, acc[1]), heap.alloc(c, acc[2])];
    const pdo = nullAt === 0 ? 0 : heap.alloc(nc, dout), px = heap.alloc(nc, x), pw = nullAt === 1 ? 0 : heap.alloc(c, w);
    const pm = heap.alloc(n, mean), pr = nullAt === 2 ? 0 : heap.alloc(n, rstd);
    const status = core._qkv_layernorm_backward(pd[0], pd[1], pd[2], pdo, px, pw, pm, pr, N, C);
    ctx.inputsUnchanged(label, [[pdo, dout], [px, x], [pw, w], [pm, mean], [pr, rstd]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    if (!valid) return expectStatus(label, status, STATUS.SIZE);
    if (![dout, x, w, mean, rstd, ...acc].every(finiteAll)) return expectStatus(label, status, STATUS.NONFINITE);
    expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
    if (status === STATUS.OK && !pd.every((p, i) => finiteAll(heap.floats(p, [nc, c, c][i])))) throw new Failure(`${label}: OK with a non-finite gradient`);
  }

  function gelu(ctx, backward) {
    const { r, heap, core } = ctx;
    const N = size(r, 40);
    const valid = N > 0 && N <= MAX_ELEMENTS;
    if (valid && N > BUDGET) return expectStatus('gelu (too large)', backward ? core._qkv_gelu_backward(0, 0, 0, N) : core._qkv_gelu_forward(0, 0, N), STATUS.NULL);
    const n = valid ? N : 4;
    const x = floats(r, n), dout = floats(r, n), acc = floats(r, n, { finite: r.chance(0.9) });
    const nullAt = r.chance(0.04) ? r.int(0, 1) : -1;
    const label = `gelu_${backward ? 'backward' : 'forward'}(${N})`;
    const px = nullAt === 1 ? 0 : heap.alloc(n, x);
    if (!backward) {
      const out = nullAt === 0 ? 0 : heap.alloc(n);
      const status = core._qkv_gelu_forward(out, px, N);
      ctx.inputsUnchanged(label, [[px, x]]);
      if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
      if (!valid) { expectStatus(label, status, STATUS.SIZE); return untouched(heap, label, [[out, 4]]); }
      if (!finiteAll(x)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, [[out, n]]); }
      expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
      if (status !== STATUS.OK) return;
      const got = heap.floats(out, n);
      for (let i = 0; i < n; i++) {
        const v = x[i];
        const want = 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
        // float32 arithmetic around a tanh within an ulp or two: 1e-6 relative to max(|x|, 1e-30)
        if (!(Math.abs(got[i] - want) <= 2e-6 * Math.abs(v) + 1e-37)) throw new Failure(`${label}: gelu(${v}) is ${got[i]}, reference ${want}`);
      }
      return;
    }
    const pd = heap.alloc(n, acc), pdo = nullAt === 0 ? 0 : heap.alloc(n, dout);
    const status = core._qkv_gelu_backward(pd, px, pdo, N);
    ctx.inputsUnchanged(label, [[px, x], [pdo, dout]]);
    if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
    if (!valid) return expectStatus(label, status, STATUS.SIZE);
    if (!finiteAll(x) || !finiteAll(dout) || !finiteAll(acc)) return expectStatus(label, status, STATUS.NONFINITE);
    expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
    if (status === STATUS.OK && !finiteAll(heap.floats(pd, n))) throw new Failure(`${label}: OK with a non-finite gradient`);
  }

  /** { params, acts } offsets (floats) of one block, as wasm/qkv.h lays them out, or null when refused */
  function blockLayout(n, C, h, H) {
    const ps = [C, C, 3 * C * C, 3 * C, C * C, C, C, C, C * h, h, h * C, C];
    const nC = n * C, nn = H * n * n;
    const as = [nC, n, n, 3 * nC, nC, nC, nC, nn, nn, nC, nC, nC, nC, nC, n, n, n * h, n * h, nC, nC];
    const cum = (s) => s.reduce((o, v) => [...o, o[o.length - 1] + v], [0]);
    return { params: cum(ps), acts: cum(as) };
  }

  function blockStatus(n, C, h, H) {
    if (!elements(n, C) || !elements(C, 3 * C) || !elements(n, 3 * C) || !elements(C, h) || !elements(n, h) || H <= 0 || H > C ||
      !elements(n, n) || n * n > Math.floor(MAX_ELEMENTS / H)) return STATUS.SIZE;
    if (C % H) return STATUS.SHAPE;
    const l = blockLayout(n, C, h, H);
    if (l.params.at(-1) > MAX_ELEMENTS || l.acts.at(-1) > MAX_ELEMENTS) return STATUS.SIZE;
    return STATUS.OK;
  }

  function blockShape(r) {
    const H = r.chance(0.85) ? r.int(1, 3) : size(r, 4);
    const C = r.chance(0.85) ? H * r.int(1, 3) + (r.chance(0.1) ? 1 : 0) : size(r, 8);
    return { n: size(r, 6), C, h: size(r, 12), H };
  }

  const drivers = {
    _qkv_layernorm_forward: (ctx) => layernorm(ctx, false),
    _qkv_layernorm_backward: (ctx) => layernorm(ctx, true),
    _qkv_gelu_forward: (ctx) => gelu(ctx, false),
    _qkv_gelu_backward: (ctx) => gelu(ctx, true),

    _qkv_transformer_block_layout(ctx) {
      const { r, heap, core } = ctx;
      const { n, C, h, H } = blockShape(r);
      const po = heap.alloc(13), ao = heap.alloc(21);
      const nullAt = r.chance(0.05) ? r.int(0, 1) : -1;
      const label = `transformer_block_layout(n ${n}, C ${C}, h ${h}, heads ${H})`;
      const status = core._qkv_transformer_block_layout(nullAt === 0 ? 0 : po, nullAt === 1 ? 0 : ao, n, C, h, H);
      if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
      const want = blockStatus(n, C, h, H);
      expectStatus(label, status, want);
      if (want !== STATUS.OK) return untouched(heap, label, [[po, 13], [ao, 21]]);
      const l = blockLayout(n, C, h, H);
      if (heap.ints(po, 13).join() !== l.params.join() || heap.ints(ao, 21).join() !== l.acts.join()) {
        throw new Failure(`${label}: offsets ${heap.ints(po, 13).join()} / ${heap.ints(ao, 21).join()}, expected ${l.params.join()} / ${l.acts.join()}`);
      }
    },

    _qkv_transformer_block_forward(ctx) {
      const { r, heap, core } = ctx;
      const { n, C, h, H } = blockShape(r);
      const want = blockStatus(n, C, h, H);
      const eps = r.chance(0.9) ? 1e-5 : r.pick([0, -1, NaN, 1e-50]);
      const causal = r.chance(0.7) ? 1 : 0;
      const label = `transformer_block_forward(n ${n}, C ${C}, h ${h}, heads ${H}, eps ${eps})`;
      if (want === STATUS.OK) {
        const l = blockLayout(n, C, h, H);
        if (l.acts.at(-1) > BUDGET || l.params.at(-1) > BUDGET || n * C * (4 * C + 2 * h) > WORK_BUDGET) {
          return expectStatus(`${label} (too large)`, core._qkv_transformer_block_forward(0, 0, 0, n, C, h, H, causal, eps), STATUS.NULL);
        }
      }
      const l = want === STATUS.OK ? blockLayout(n, C, h, H) : { params: [4], acts: [4] };
      const np = l.params.at(-1), na = l.acts.at(-1), nx = want === STATUS.OK ? n * C : 4;
      const params = floats(r, np), x = floats(r, nx);
      if (want === STATUS.OK && r.chance(0.7)) {
        // mostly GPT-like weights, so that attention has something to do
        for (let i = 0; i < np; i++) if (Number.isFinite(params[i])) params[i] = f(Math.max(-3, Math.min(3, params[i])));
      }
      const nullAt = r.chance(0.04) ? r.int(0, 2) : -1;
      const acts = nullAt === 0 ? 0 : heap.alloc(na), pp = nullAt === 1 ? 0 : heap.alloc(np, params), px = nullAt === 2 ? 0 : heap.alloc(nx, x);
      const status = core._qkv_transformer_block_forward(acts, pp, px, n, C, h, H, causal, eps);
      ctx.inputsUnchanged(label, [[pp, params], [px, x]]);
      if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
      if (want !== STATUS.OK) { expectStatus(label, status, want); return untouched(heap, label, [[acts, 4]]); }
      if (!(Number.isFinite(f(eps)) && f(eps) > 0)) { expectStatus(label, status, STATUS.ARGUMENT); return untouched(heap, label, [[acts, na]]); }
      if (!finiteAll(x) || !finiteAll(params)) { expectStatus(label, status, STATUS.NONFINITE); return untouched(heap, label, [[acts, na]]); }
      expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
      if (status !== STATUS.OK) return;
      const a = heap.floats(acts, na);
      if (!finiteAll(a)) throw new Failure(`${label}: OK with a non-finite activation`);
      const w = a.subarray(l.acts[8], l.acts[9]);  // weights (H, n, n)
      for (let row = 0; row < H * n; row++) {
        let sum = 0;
        for (let j = 0; j < n; j++) {
          sum += w[row * n + j];
          if (causal && j > row % n && w[row * n + j] !== 0) throw new Failure(`${label}: a masked weight is ${w[row * n + j]}`);
        }
        if (!(Math.abs(sum - 1) < 1e-5)) throw new Failure(`${label}: a weights row sums to ${sum}`);
      }
    },

    _qkv_gpt_create: (ctx) => gptSequence(ctx),
  };

  // ---- GPT sequences ----

  function createStatus(V, L, H, C, T, B) {
    if (V < 2 || V > 65536 || L < 1 || L > 64 || C < 1 || C > 4096 || T < 1 || T > 4096 || B < 1 || B > 4096 || H < 1 || H > C) return STATUS.SIZE;
    if (C % H) return STATUS.SHAPE;
    return STATUS.OK;  // (the 1 GiB limit is far above what the fuzzer creates)
  }

  function gptSequence(ctx) {
    const { r, heap, core, count } = ctx;
    const edge = (small) => (r.chance(0.9) ? r.int(1, small) : r.pick([0, -1, 65537, 4097, 2147483647]));
    const H = edge(3), V = r.chance(0.9) ? r.int(2, 12) : r.pick([1, 0, 65537]);
    const C = r.chance(0.9) ? H * r.int(1, 3) + (r.chance(0.05) ? 1 : 0) : edge(8);
    const L = edge(2), T = edge(8), B = edge(3), seed = r.int(0, 0xffffffff);
    // a quarter of the sequences on a GPT for loaded weights (parameters zero, no training state:
    // loss_and_grad and step refuse it, it has no gradients), the rest on a trainable one
    const inference = r.chance(0.25);
    const create = inference
      ? (out) => { count('_qkv_gpt_create_inference'); return core._qkv_gpt_create_inference(out, V, L, H, C, T, B); }
      : (out) => core._qkv_gpt_create(out, V, L, H, C, T, B, seed);
    const label = `gpt_create${inference ? '_inference' : ''}(V ${V}, L ${L}, H ${H}, C ${C}, T ${T}, B ${B})`;
    const want = createStatus(V, L, H, C, T, B);
    const slot = heap.alloc(1, new Int32Array([12345]));
    if (r.chance(0.03)) return expectStatus(label, create(0), STATUS.NULL);
    if (want === STATUS.OK && (V * C + T * C + L * (12 * C * C + 13 * C)) * 7 + L * B * T * (30 * C + 2 * H * T) + 3 * B * T * V > 4 * BUDGET) {
      return expectStatus(`${label} (too large to run)`, create(0), STATUS.NULL);
    }
    const status = create(slot);
    const g = heap.i32[slot >> 2];
    if (want !== STATUS.OK) {
      expectStatus(label, status, want);
      if (g !== 0) throw new Failure(`${label}: refused but *out is ${g}`);
      return;
    }
    expectStatus(label, status, [STATUS.OK, STATUS.ALLOC]);
    if (status !== STATUS.OK) return;
    const state = { V, L, H, C, T, B, data: null, steps: 0, forward: false, poked: false, inference };
    try {
      const steps = r.int(1, 12);
      for (let k = 0; k < steps; k++) {
        const op = r.pick(['set_optimizer', 'set_data', 'set_data', 'loss_and_grad', 'step', 'step', 'evaluate', 'forward', 'generate',
          'generate', 'tensor', 'num_params', 'poke']);
        GPT_OPS[op](ctx, g, state);
        heap.checkGuards(`${label} after ${op}`);
      }
    } finally {
      count('_qkv_gpt_destroy');
      core._qkv_gpt_destroy(g);
      if (r.chance(0.1)) core._qkv_gpt_destroy(0);
    }
  }

  const tokensOf = (r, n, V) => Int32Array.from({ length: n }, () => (r.chance(0.98) ? r.int(0, V - 1) : r.pick([-1, V])));
  const inRange = (t, V) => t.every((x) => x >= 0 && x < V);
  const params = (ctx, g, state) => {
    const slots = ctx.heap.alloc(3);
    ctx.core._qkv_gpt_tensor(g, 0, -1, 0, slots, slots + 4, slots + 8);
    const [ptr, rows] = ctx.heap.ints(slots, 3);
    return { ptr, count: rows };
  };
  const paramCount = ({ V, L, C, T }) => V * C + T * C + L * (12 * C * C + 13 * C) + 2 * C;

  const GPT_OPS = {
    set_optimizer(ctx, g) {
      const { r, core, count } = ctx;
      count('_qkv_gpt_set_optimizer');
      const pickF = (good, bad) => (r.chance(0.85) ? good() : r.pick(bad));
      const lr = pickF(() => 10 ** (r.next() * 4 - 4), [0, -1, NaN, Infinity, 1e-50]);
      const b1 = pickF(() => r.next(), [1, -0.1, NaN, 0.99999999999]), b2 = pickF(() => r.next(), [1, 2, NaN]);
      const eps = pickF(() => 1e-8, [0, -1, NaN]), wd = pickF(() => r.next() * 0.1, [-1, NaN, Infinity]);
      const clip = pickF(() => 0.1 + r.next(), [0, -1, NaN]), warmup = pickF(() => r.int(0, 5), [-1]), total = pickF(() => r.int(0, 20), [-1]);
      const ok = Number.isFinite(f(lr)) && f(lr) > 0 && f(b1) >= 0 && f(b1) < 1 && f(b2) >= 0 && f(b2) < 1 && Number.isFinite(f(eps)) &&
        f(eps) > 0 && Number.isFinite(f(wd)) && f(wd) >= 0 && Number.isFinite(f(clip)) && f(clip) > 0 && warmup >= 0 && total >= 0;
      expectStatus(`gpt_set_optimizer(${lr}, ${b1}, ${b2}, ${eps}, ${wd}, ${clip}, ${warmup}, ${total})`,
        core._qkv_gpt_set_optimizer(g, lr, b1, b2, eps, wd, clip, warmup, total), ok ? STATUS.OK : STATUS.ARGUMENT);
    },

    set_data(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_set_data');
      const { T, V } = state;
      const nt = r.chance(0.9) ? r.int(T + 1, T + 40) : r.pick([T, 0, -1]);
      const nv = r.chance(0.9) ? r.int(T + 1, T + 20) : r.pick([T, 0]);
      const stream = (n) => tokensOf(r, Math.max(n, 1), V);
      const starts = (n) => {
        const k = r.chance(0.9) ? r.int(1, 5) : r.pick([0, -1]);
        return { k, s: Int32Array.from({ length: Math.max(k, 1) }, () => (r.chance(0.97) ? r.int(0, Math.max(0, n - T - 1)) : r.pick([-1, n - T, n]))) };
      };
      const train = stream(nt), val = stream(nv), ts = starts(nt), vs = starts(nv);
      const pt = heap.alloc(train.length, train), pv = heap.alloc(val.length, val), pts = heap.alloc(ts.s.length, ts.s), pvs = heap.alloc(vs.s.length, vs.s);
      const nullAt = r.chance(0.04) ? r.int(0, 3) : -1;
      const ptrs = [pt, pts, pv, pvs].map((p, i) => (i === nullAt ? 0 : p));
      const status = core._qkv_gpt_set_data(g, ptrs[0], nt, ptrs[1], ts.k, ptrs[2], nv, ptrs[3], vs.k);
      const label = `gpt_set_data(${nt}, ${ts.k}, ${nv}, ${vs.k}; T ${T})`;
      if (nullAt >= 0) return expectStatus(label, status, STATUS.NULL);
      if (nt <= T || nv <= T || ts.k <= 0 || vs.k <= 0) return expectStatus(label, status, STATUS.SIZE);
      if (!inRange(train.subarray(0, nt), V) || !inRange(val.subarray(0, nv), V)) return expectStatus(label, status, STATUS.TOKEN);
      const startsOk = (s, k, n) => s.subarray(0, k).every((x) => x >= 0 && x + T < n);
      if (!startsOk(ts.s, ts.k, nt) || !startsOk(vs.s, vs.k, nv)) return expectStatus(label, status, STATUS.ARGUMENT);
      expectStatus(label, status, STATUS.OK);
      state.data = { trainStarts: ts.k, valStarts: vs.k };
    },

    loss_and_grad(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_loss_and_grad');
      const { B, T, V } = state;
      const b = r.chance(0.9) ? r.int(1, B) : r.pick([0, B + 1]), n = r.chance(0.9) ? r.int(1, T) : r.pick([0, T + 1]);
      const cnt = b > 0 && n > 0 && b <= B && n <= T ? b * n : 4;
      const inputs = tokensOf(r, cnt, V), targets = tokensOf(r, cnt, V);
      const pi = heap.alloc(cnt, inputs), pt = heap.alloc(cnt, targets), loss = heap.alloc(2);
      const status = core._qkv_gpt_loss_and_grad(g, pi, pt, b, n, loss);
      const label = `gpt_loss_and_grad(${b}, ${n})`;
      if (state.inference) return expectStatus(`${label} of an inference GPT`, status, STATUS.ARGUMENT);
      if (cnt === 4 && !(b > 0 && n > 0 && b <= B && n <= T)) return expectStatus(label, status, STATUS.SIZE);
      if (!inRange(inputs, V) || !inRange(targets, V)) return expectStatus(label, status, STATUS.TOKEN);
      if (state.poked) return expectStatus(label, status, STATUS.NONFINITE);
      expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
      const value = core.HEAPF64[loss >> 3];
      if (status === STATUS.OK && !(value >= 0 && Number.isFinite(value))) throw new Failure(`${label}: loss ${value}`);
      state.forward = true;
    },

    step(ctx, g, state) {
      const { core, heap, count } = ctx;
      count('_qkv_gpt_step');
      count('_qkv_gpt_steps');
      const slots = heap.alloc(4);
      const status = core._qkv_gpt_step(g, slots, slots + 8);
      const label = 'gpt_step';
      if (!state.data || state.inference) return expectStatus(label, status, STATUS.ARGUMENT);
      if (state.poked) return expectStatus(label, status, STATUS.NONFINITE);
      expectStatus(label, status, [STATUS.OK, STATUS.DIVERGED]);
      state.forward = true;
      if (status === STATUS.OK) {
        state.steps++;
        const [loss, norm] = [core.HEAPF64[slots >> 3], core.HEAPF64[(slots >> 3) + 1]];
        if (!(loss >= 0 && norm >= 0 && Number.isFinite(loss) && Number.isFinite(norm))) throw new Failure(`${label}: loss ${loss}, norm ${norm}`);
        const p = params(ctx, g, state);
        if (!finiteAll(heap.floats(p.ptr, p.count))) throw new Failure(`${label}: OK with non-finite parameters`);
      }
      const steps = core._qkv_gpt_steps(g);
      if (steps !== state.steps) throw new Failure(`gpt_steps is ${steps}, ${state.steps} steps succeeded`);
    },

    evaluate(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_evaluate');
      const split = r.chance(0.9) ? r.int(0, 1) : r.pick([2, -1]);
      const n = state.data ? (split === 1 ? state.data.valStarts : state.data.trainStarts) : 1;
      const first = r.chance(0.9) ? r.int(0, Math.max(0, n - 1)) : r.pick([-1, n]);
      const cnt = r.chance(0.9) ? r.int(1, Math.max(1, n - Math.max(first, 0))) : r.pick([0, n + 1]);
      const sum = heap.alloc(2);
      const status = core._qkv_gpt_evaluate(g, split, first, cnt, sum);
      const label = `gpt_evaluate(${split}, ${first}, ${cnt} of ${n})`;
      if (!state.data || (split !== 0 && split !== 1)) return expectStatus(label, status, STATUS.ARGUMENT);
      if (first < 0 || cnt < 1 || first > n - cnt) return expectStatus(label, status, STATUS.SIZE);
      expectStatus(label, status, state.poked ? [STATUS.OK, STATUS.DIVERGED] : [STATUS.OK, STATUS.DIVERGED]);
      const value = core.HEAPF64[sum >> 3];
      if (status === STATUS.OK && !(value >= 0 && Number.isFinite(value))) throw new Failure(`${label}: loss sum ${value}`);
      state.forward = true;
    },

    forward(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_forward');
      const n = r.chance(0.9) ? r.int(1, state.T) : r.pick([0, state.T + 1]);
      const tokens = tokensOf(r, n > 0 && n <= state.T ? n : 4, state.V);
      const p = r.chance(0.03) ? 0 : heap.alloc(tokens.length, tokens);
      const status = core._qkv_gpt_forward(g, p, n);
      const label = `gpt_forward(${n})`;
      if (!p) return expectStatus(label, status, STATUS.NULL);
      if (!(n > 0 && n <= state.T)) return expectStatus(label, status, STATUS.SIZE);
      if (!inRange(tokens, state.V)) return expectStatus(label, status, STATUS.TOKEN);
      if (state.poked) return expectStatus(label, status, STATUS.NONFINITE);
      expectStatus(label, status, [STATUS.OK, STATUS.OVERFLOW]);
      if (status === STATUS.OK) state.forward = true;
    },

    generate(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_generate');
      const { T, V } = state;
      const np = r.chance(0.9) ? r.int(1, T) : r.pick([0, -1]);
      const mn = r.chance(0.9) ? r.int(1, Math.max(1, T - Math.max(np, 1))) : r.pick([0, T]);
      const temp = r.chance(0.85) ? r.pick([0, 0.5, 1, 2]) : r.pick([-1, NaN, Infinity, 1e-45]);
      const topK = r.chance(0.9) ? r.int(0, V + 1) : -1;
      const topP = r.chance(0.85) ? r.pick([1, 0.9, 0.5, 0.01]) : r.pick([0, -0.5, 2, NaN]);
      const seed = r.int(0, 0xffffffff);
      const ok = np >= 1 && mn >= 1 && np + mn <= T;
      const prompt = tokensOf(r, ok ? np : 4, V);
      const cap = ok ? mn : 4;
      const run = (cache) => {
        const pp = heap.alloc(prompt.length, prompt), out = heap.alloc(cap), ids = heap.alloc(cap * 5), probs = heap.alloc(cap * 5), cnt = heap.alloc(1);
        const status = core._qkv_gpt_generate(g, pp, np, mn, temp, topK, topP, seed, cache, out, ids, probs, cnt);
        return { status, out, ids, probs, n: heap.i32[cnt >> 2] };
      };
      const a = run(1);
      const label = `gpt_generate(prompt ${np}, new ${mn}, T ${temp}, topK ${topK}, topP ${topP})`;
      if (!ok) return expectStatus(label, a.status, STATUS.SIZE);
      const argOk = Number.isFinite(f(temp)) && f(temp) >= 0 && topK >= 0 && Number.isFinite(f(topP)) && f(topP) > 0 && f(topP) <= 1;
      if (!argOk) return expectStatus(label, a.status, STATUS.ARGUMENT);
      if (!inRange(prompt, V)) return expectStatus(label, a.status, STATUS.TOKEN);
      if (state.poked) return expectStatus(label, a.status, STATUS.NONFINITE);
      expectStatus(label, a.status, [STATUS.OK, STATUS.OVERFLOW]);
      if (a.status !== STATUS.OK) return;
      const tokens = heap.ints(a.out, a.n);
      if (!(a.n >= 1 && a.n <= mn) || !inRange(tokens, V)) throw new Failure(`${label}: ${a.n} tokens ${tokens.join()}`);
      for (let i = 0; i + 1 < a.n; i++) if (tokens[i] === 0) throw new Failure(`${label}: went on after the end-of-text token`);
      if (a.n < mn && tokens[a.n - 1] !== 0) throw new Failure(`${label}: stopped early without the end-of-text token`);
      const p = heap.floats(a.probs, a.n * 5);
      for (let i = 0; i < a.n; i++) {
        for (let j = 0; j < Math.min(5, V); j++) {
          if (!(p[i * 5 + j] >= 0 && p[i * 5 + j] <= 1 && (j === 0 || p[i * 5 + j] <= p[i * 5 + j - 1]))) throw new Failure(`${label}: top probabilities ${Array.from(p.subarray(i * 5, i * 5 + 5))}`);
        }
      }
      if (temp === 0 && tokens[0] !== heap.ints(a.ids, 1)[0]) throw new Failure(`${label}: greedy did not take the most likely token`);
      // the KV cache changes the cost, never the tokens
      const b = run(0);
      expectStatus(`${label} without the cache`, b.status, STATUS.OK);
      if (b.n !== a.n || heap.ints(b.out, b.n).join() !== tokens.join()) throw new Failure(`${label}: with the cache ${tokens.join()}, without ${heap.ints(b.out, b.n).join()}`);
      state.forward = false;  // generation leaves the activations as scratch
    },

    tensor(ctx, g, state) {
      const { r, core, heap, count } = ctx;
      count('_qkv_gpt_tensor');
      const group = r.int(-1, 3), layer = r.int(-2, state.L + 1), which = r.int(-1, 21);
      const slots = heap.alloc(3);
      const status = core._qkv_gpt_tensor(g, group, layer, which, r.chance(0.03) ? 0 : slots, slots + 4, slots + 8);
      const label = `gpt_tensor(${group}, ${layer}, ${which})`;
      expectStatus(label, status, [STATUS.OK, STATUS.ARGUMENT, STATUS.NULL]);
      if (status === STATUS.OK && state.inference && group === 1) throw new Failure(`${label}: gradients of an inference GPT`);
      if (status !== STATUS.OK) return;
      const [ptr, rows, cols] = heap.ints(slots, 3);
      if (!(ptr > 0 && rows > 0 && cols > 0)) throw new Failure(`${label}: ${ptr}, ${rows}×${cols}`);
      if (group === 2 && !state.forward) throw new Failure(`${label}: activations without a forward`);
    },

    num_params(ctx, g, state) {
      ctx.count('_qkv_gpt_num_params');
      const n = ctx.core._qkv_gpt_num_params(g);
      if (n !== paramCount(state)) throw new Failure(`gpt_num_params is ${n}, expected ${paramCount(state)}`);
      if (ctx.core._qkv_gpt_num_params(0) !== 0) throw new Failure('gpt_num_params(NULL) is not 0');
    },

    // a C user writing NaN into a parameter: every call that runs the model must refuse
    poke(ctx, g, state) {
      const { r, heap } = ctx;
      const p = params(ctx, g, state);
      heap.f32[(p.ptr >> 2) + r.int(0, p.count - 1)] = r.pick([NaN, Infinity, -Infinity]);
      state.poked = true;
    },
  };

  const sequenceFunctions = ['_qkv_gpt_destroy', '_qkv_gpt_create_inference', '_qkv_gpt_set_optimizer', '_qkv_gpt_set_data', '_qkv_gpt_loss_and_grad', '_qkv_gpt_step',
    '_qkv_gpt_evaluate', '_qkv_gpt_forward', '_qkv_gpt_generate', '_qkv_gpt_tensor', '_qkv_gpt_num_params', '_qkv_gpt_steps'];
  return { drivers, sequenceFunctions };
}
