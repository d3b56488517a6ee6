// gpt-generation.test.js: the generation section's numbers (web/page/gpt/generation.js) against
// the C sampler, and its source's behaviour, in Node:
//   - for every sampling combination the section offers, the page's kept tokens and weights,
//     given the C sampler's own uniform number (MT19937 from the seed, as wasm/rng.c), pick the
//     token gpt.generate() picked: the page and sample_next agree, over all 3,6xx characters;
//   - the table's columns add up: the cumulative column is the running sum of the top-k column;
//   - changing a sampling setting keeps the drawn text; only a redraw draws again;
//   - a failed "use the writer's model" leaves the model that was there, still generating.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { sampling, generationSource } from '../web/page/gpt/generation.js';
import { GPT_CHOICES } from '../web/page/gpt/settings.js';
import { createState } from '../web/page/shell/state.js';
import { useModel } from '../web/page/gpt/store.js';
import { poemForm } from '../web/poem-forms.js';
import { Matrix } from '../web/matrix.js';

const qkv = await load({ gpt: true });
const PROMPT = '白日依山尽，';

/** The first uniform double of wasm/rng.c seeded with `seed` (numpy's MT19937, init_genrand). */
function firstDouble(seed) {
  const mt = new Uint32Array(624);
  mt[0] = seed >>> 0;
  for (let i = 1; i < 624; i++) { const p = mt[i - 1] ^ (mt[i - 1] >>> 30); mt[i] = (Math.imul(1812433253, p) + i) >>> 0; }
  for (let i = 0; i < 624; i++) {
    const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
    mt[i] = (mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
  }
  const temper = (y) => {
    y ^= y >>> 11; y ^= (y << 7) & 0x9d2c5680; y ^= (y << 15) & 0xefc60000; y ^= y >>> 18;
    return y >>> 0;
  };
  const a = temper(mt[0]) >>> 5, b = temper(mt[1]) >>> 6;
  return (a * 67108864 + b) / 9007199254740992;
}

test('every offered temperature, top-k and top-p: the page\'s kept tokens and weights give the C sampler\'s draw', () => {
  const gpt = qkv.createGPT({ text: QUATRAINS.poems, layers: 1, heads: 2, dim: 16, context: 16, batch: 4, seed: 3, steps: 50 });
  for (let i = 0; i < 20; i++) gpt.step();   // a little trained: peaked, with a long tail
  const trace = gpt.forward(PROMPT);
  const V = trace.logits.cols, n = trace.tokens.length;
  assert.ok(V > 3000, `the quatrains' vocabulary (${V})`);
  const logits = new Matrix(1, V, trace.logits.data.slice((n - 1) * V, n * V));
  let compared = 0;
  for (const temperature of GPT_CHOICES.gtemp.filter((t) => t > 0)) {
    for (const topK of GPT_CHOICES.gtopk) {
      for (const topP of GPT_CHOICES.gtopp) {
        const d = sampling(qkv, logits, { temperature, topK, topP });
        const label = `T ${temperature}, top-k ${topK || 'all'}, top-p ${topP}`;
        if (topP < 1) {
          // the cut: the first rank whose running sum reaches top p, over the whole vocabulary
          assert.ok(d.cumulative[d.keep - 1] >= Math.fround(topP) - 1e-12 && (d.keep === 1 || d.cumulative[d.keep - 2] < Math.fround(topP) + 1e-12), label);
          if (topK === 0) assert.ok(d.keep < V, `${label}: ${d.keep} of ${V} kept`);
          // the cumulative column is the running sum of the top-k column shown beside it
          let sum = 0;
          for (let r = 0; r < Math.min(10, d.topK); r++) { sum += d.inTopK[r]; assert.ok(Math.abs(d.cumulative[r] - sum) < 1e-12, `${label}: rank ${r}`); }
        }
        if (topK === 0 && topP === 1) { assert.equal(d.keep, V, label); continue; }   // the C walks ids, not ranks, here
        for (let seed = 0; seed < 12; seed++) {
          const drawn = gpt.generate(PROMPT, { maxTokens: 1, temperature, topK, topP, seed }).steps[0].token;
          const u = firstDouble(seed) * d.weightSum;
          let acc = 0, r = 0;
          for (; r < d.keep; r++) { acc += d.weights[r]; if (u < acc) break; }
          assert.equal(d.order[Math.min(r, d.keep - 1)], drawn, `${label}, seed ${seed}`);
          compared++;
        }
      }
    }
  }
  assert.ok(compared > 300);
  gpt.dispose();
});

/** A generation source over a writer run of tiny settings, on the page's thread (Node has no Worker). */
async function openSource(qkvFor) {
  const state = createState({ search: '?glayers=1&gdim=16&gheads=2&gctx=16&gsteps=50' });
  const ctx = { state, qkv: qkvFor };
  const source = generationSource(ctx);
  const next = (pred) => new Promise((resolve) => {
    if (pred(source.get())) { resolve(source.get()); return; }
    const off = source.subscribe((snap) => { if (pred(snap)) { off(); resolve(snap); } });
  });
  return { state, source, next };
}

test('a sampling setting changed keeps the drawn text (the table follows the setting); a redraw draws again', async () => {
  const { state, source, next } = await openSource(qkv);
  source.useWriterModel();
  const first = await next((s) => s.status === 'ready');
  assert.ok(first.steps.length > 1);
  state.set('gtemp', 1.5);
  const hot = await next((s) => s.settings.temperature === 1.5);
  assert.equal(hot.text, first.text, 'the same text');
  assert.deepEqual(hot.drawnWith, first.drawnWith);
  assert.notDeepEqual(hot.steps[0].dist.top.map((r) => r.pT), first.steps[0].dist.top.map((r) => r.pT), 'the table follows T');
  source.redraw();
  const again = await next((s) => s.draws === 1);
  assert.equal(again.drawnWith.temperature, 1.5);
  assert.equal(again.drawnWith.seed, 1);
  source.destroy();
});

test('a failed "use the writer\'s model" keeps the model that was there: it still generates, and says why', async () => {
  let refuse = false;
  const picky = Object.create(qkv, { loadGPT: { value: (bytes) => { if (refuse) throw new Error('loadGPT: refused here'); return qkv.loadGPT(bytes); } } });
  const before = qkv.heapUsed();
  const { state, source, next } = await openSource(picky);
  source.useWriterModel();
  await next((s) => s.status === 'ready');
  refuse = true;
  await source.useWriterModel();
  const failed = await next((s) => Boolean(s.takeError));
  assert.match(failed.takeError, /refused here/);
  state.set('gtopk', 3);
  const after = await next((s) => s.settings.topK === 3);
  assert.equal(after.status, 'ready');
  assert.equal(after.error, undefined, after.error && after.error.message);
  assert.ok(after.steps.length > 0);
  source.destroy();
  assert.equal(qkv.heapUsed(), before, 'the generation and the run both freed');
});

test('a model handed over (store.js useModel) writes at once, held to the form and acrostic; withdrawn, the poet writes and the page says there is no adapter', async () => {
  const base = qkv.createGPT({ layers: 1, heads: 2, dim: 16, context: 32, steps: 1, text: QUATRAINS.poems.split('\n').slice(0, 40).join('\n') });
  const ft = base.finetune({ text: QUATRAINS.poems.split('\n').slice(0, 20).join('\n'), steps: 2 });
  const state = createState({ search: '?gform=wujue&gacro=' + encodeURIComponent(Array.from(QUATRAINS.poems.split('\n')[0]).filter((_, i) => i % 6 === 0).join('')) + '&gprompt=' });
  const ctx = { state, qkv };
  const source = generationSource(ctx);
  const next = (pred) => new Promise((resolve) => {
    if (pred(source.get())) { resolve(source.get()); return; }
    const off = source.subscribe((snap) => { if (pred(snap)) { off(); resolve(snap); } });
  });
  useModel(ctx, { kind: 'adapter', gpt: ft, name: 'two steps' });
  source.setVisible(true);
  const written = await next((s) => s.status === 'ready' && s.writing.kind === 'adapter');
  assert.equal(state.get('gmodel'), 'adapter', 'the chooser follows');
  assert.equal(written.writing.name, 'two steps');
  const poem = written.prompt + written.text;
  assert.equal(poemForm(poem), 'wujue', poem);
  assert.equal(written.reading.form, 'wujue');
  assert.deepEqual(poem.split(/[，。]/u).slice(0, 4).map((l) => Array.from(l)[0]).join(''), state.get('gacro'));
  assert.equal(written.steps[0].mask.required, Array.from(state.get('gacro'))[0], 'the first step is the acrostic\'s');
  assert.throws(() => useModel(ctx, { kind: 'lora', gpt: ft }), TypeError);
  useModel(ctx, null);
  const poet = await next((s) => s.status === 'ready' && s.writing.kind === 'poet');
  assert.equal(poet.writing.fallback, 'adapter', 'the page says no adapter is loaded');
  assert.ok(!ft.disposed, 'generation never disposes a model it was given');
  source.destroy();
  ft.dispose();
  base.dispose();
});

test('an adapter file (ft.saveAdapter()) loads on the poet and writes; one for another base is refused, and the adapter there keeps writing', async () => {
  const poet = await qkv.loadPretrained();
  const known = new Set(poet.vocab);
  const text = QUATRAINS.poems.split('\n').filter((l) => Array.from(l).every((ch) => known.has(ch))).slice(0, 60).join('\n');
  const ft = poet.finetune({ text, steps: 1 });
  ft.step();
  const file = ft.saveAdapter();
  ft.dispose();
  poet.dispose();
  const state = createState({ search: '?gprompt=' });
  const source = generationSource({ state, qkv });
  const next = (pred) => new Promise((resolve) => {
    if (pred(source.get())) { resolve(source.get()); return; }
    const off = source.subscribe((snap) => { if (pred(snap)) { off(); resolve(snap); } });
  });
  await source.loadAdapterFile(file, 'one step.qkvlora');
  const written = await next((s) => s.status === 'ready' && s.writing.kind === 'adapter');
  assert.equal(written.writing.name, 'one step.qkvlora');
  assert.equal(state.get('gmodel'), 'adapter');
  assert.ok(written.steps.length > 0);
  const other = file.slice();
  other[12] ^= 1;   // the base's checksum in the header: another base
  await source.loadAdapterFile(other, 'other.qkvlora');
  const refused = source.get();
  assert.match(refused.writing.adapterError, /^loadAdapter: /);
  assert.equal(refused.writing.kind, 'adapter', 'the adapter that was there still writes');
  source.destroy();
});

test('"Measure now" on the poet: the whole context without the cache is more than one call may do, so both ways time the most one uncached call may generate', async () => {
  const state = createState({ search: '' });
  const source = generationSource({ state, qkv });
  const next = (pred) => new Promise((resolve) => {
    if (pred(source.get())) { resolve(source.get()); return; }
    const off = source.subscribe((snap) => { if (pred(snap)) { off(); resolve(snap); } });
  });
  source.setVisible(true);
  const ready = await next((s) => s.status === 'ready' && s.writing.kind === 'poet');
  const prompt = state.get('gprompt');
  const room = ready.context - 1 - Array.from(prompt).length;
  source.measure();
  const { cost } = source.get();
  assert.equal(cost.error, undefined, cost.error);
  // both ways were timed (how fast is the benchmark's business, not a test's)
  assert.deepEqual(Object.keys(cost).sort(), ['cached', 'prompt', 'tokens', 'uncached']);
  assert.equal(cost.prompt, prompt);
  // the characters timed: halving from the room, the first count one uncached call accepts. The
  // whole room is what made it fail before: refused, as every count above the accepted one
  const poet = await qkv.loadPretrained();
  const uncached = (maxTokens) => poet.generate(prompt, { maxTokens, temperature: 0, cache: false }).steps.length;
  let count = room;
  let generated = null;
  while (generated === null) {
    try {
      generated = uncached(count);
    } catch (error) {
      assert.match(error.message, /more than the limit/, `${count} characters`);
      count = Math.floor(count / 2);
    }
  }
  assert.ok(count < room, 'the whole room is more than one uncached call may do');
  assert.equal(cost.tokens, generated);
  poet.dispose();
  source.destroy();
});
