// page-chapters.test.js: the numbers behind the sections "Why divide by √d_k", "Multi-head
// attention" and "Positional encoding" (web/page/models/scaling.js, heads-positions.js), checked
// in Node against the same quantities computed another way, over seeds and sentences, so that
// what the sections say holds whatever the reader picks; and their URL state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from 'qkv-lab';
import { computeSnapshot, SENTENCES } from '../web/page/models/attention.js';
import { deriveSnapshot } from '../web/page/models/snapshot-derived.js';
import { draws, scalingModel, SCALING_DKS, ROW_KEYS, COLLAPSED } from '../web/page/models/scaling.js';
import { headWeights, reordering, HEAD_COUNTS, D_MODEL_HEADS, PE_WIDTHS, PE_POSITIONS } from '../web/page/models/heads-positions.js';
import { createState } from '../web/page/shell/state.js';
import { POET_CONTEXT } from '../web/page/gpt/settings.js';
import PRETRAINED_REPORT from '../web/data/pretrained-report.json' with { type: 'json' };
import { toNested } from './helpers.js';

const qkv = await load();
const SEEDS = [0, 1, 7, 42, 123];

function snapshotFor(settings) {
  const snap = computeSnapshot(qkv, { seed: 42, sentence: '我 love 猫', scale: false, pos: false, ...settings });
  snap.derived = deriveSnapshot(qkv, snap);
  return snap;
}

test('√d_k: the histogram holds every q·k, its spread grows like √d_k and divided by √d_k stays near 1 (seeds 0–9, every stop)', () => {
  for (let seed = 0; seed < 10; seed++) {
    const drawn = draws(qkv, seed);
    for (const dk of SCALING_DKS) {
      const d = scalingModel(qkv, drawn, dk);
      assert.equal(d.raw.counts.reduce((a, b) => a + b, 0), d.count);
      assert.equal(d.scaled.counts.reduce((a, b) => a + b, 0), d.count);
      // 2048 products of sums of dk unit-variance products: over seeds 0–29 the measured std / √d_k
      // ranged 0.63–1.27 (the small d_k's few distinct components); well inside 0.5–1.5
      const ratio = d.raw.std / Math.sqrt(dk);
      assert.ok(ratio > 0.5 && ratio < 1.5, `seed ${seed} d_k ${dk}: std ${d.raw.std} against √d_k ${Math.sqrt(dk)}`);
      assert.ok(Math.abs(d.scaled.std - d.raw.std / Math.sqrt(dk)) < 1e-4 * d.raw.std, 'scaled = raw / √d_k');
      // q₀·k₀ is the first score, and equals the dot product of the shown... full vectors
      let dot = 0;
      for (let j = 0; j < dk; j++) dot += drawn.Q.data[j] * drawn.K.data[j];
      assert.ok(Math.abs(d.sample.dot - dot) < 1e-4 * Math.max(1, Math.abs(dot)), `seed ${seed} d_k ${dk}: q₀·k₀`);
    }
  }
});

test('√d_k: unscaled rows collapse as d_k grows, scaled ones never do; collapsed rows have almost no Jacobian', () => {
  for (const seed of SEEDS) {
    const drawn = draws(qkv, seed);
    const small = scalingModel(qkv, drawn, 1), large = scalingModel(qkv, drawn, 512);
    assert.equal(large.row.scaled.collapsed, 0, `seed ${seed}`);
    assert.ok(large.row.unscaled.collapsed >= 10, `seed ${seed}: ${large.row.unscaled.collapsed} of 32 collapsed at 512`);
    assert.ok(large.row.unscaled.collapsed > small.row.unscaled.collapsed);
    assert.ok(large.row.unscaled.mean.jacobian < large.row.scaled.mean.jacobian / 1.5, `seed ${seed}: the Jacobian shrinks`);
    assert.ok(large.row.unscaled.mean.entropy < large.row.scaled.mean.entropy);
    // the row shown: query 0 against keys 0 … 15, as attend gives it
    const q = [Array.from(drawn.Q.data.subarray(0, 512))];
    const K = Array.from({ length: ROW_KEYS }, (_, i) => Array.from(drawn.K.data.subarray(i * 512, (i + 1) * 512)));
    const w = qkv.attend(q, K, K.map(() => [0]), { scale: true }).weights.row(0);
    assert.deepEqual(large.row.scaled.first.weights, w);
    // a one-hot row's Jacobian diag(w) − w wᵀ is 0; any row's is at most 1/√2 in size
    for (const r of [large.row.unscaled.first, large.row.scaled.first]) {
      assert.ok(r.jacobian >= 0 && r.jacobian < Math.SQRT1_2);
      if (r.max > COLLAPSED) assert.ok(r.jacobian < 0.02, `a collapsed row's Jacobian ${r.jacobian}`);
    }
  }
});

test('multi-head: the heads are the API\'s multiHeadAttention on X; Q, K, V cut by columns; the same parameters for every H', () => {
  for (const seed of SEEDS) {
    for (const sentence of SENTENCES.slice(0, 3)) {
      const snap = snapshotFor({ seed, sentence, pos: seed % 2 === 1 });
      const mh = snap.derived.multiHead;
      const W = headWeights(qkv, seed);
      for (const H of HEAD_COUNTS) {
        const again = qkv.multiHeadAttention(snap.X, W, { heads: H });
        const res = mh.byHeads[H];
        assert.deepEqual(Array.from(res.output.data), Array.from(again.output.data), `${seed} ${sentence} H=${H}`);
        const dk = D_MODEL_HEADS / H;
        res.heads.forEach((head, k) => {
          assert.deepEqual(toNested(head.Q), toNested(mh.Q).map((row) => row.slice(k * dk, (k + 1) * dk)));
          assert.deepEqual(toNested(head.V), toNested(mh.V).map((row) => row.slice(k * dk, (k + 1) * dk)));
        });
      }
      assert.equal(mh.params.projections + mh.params.output, 3 * 4 * 12 + 12 * 4);
    }
  }
});

test('positions: without positions the reordered sentence\'s outputs are the same rows (to float32 rounding); with PE they are not', () => {
  let cases = 0;
  for (const seed of SEEDS) {
    for (const sentence of SENTENCES) {
      for (const scale of [false, true]) {
        const snap = snapshotFor({ seed, sentence, scale });
        const p = snap.derived.positions;
        assert.deepEqual([...p.order].sort(), snap.words.map((_, i) => i), 'a reordering');
        assert.notDeepEqual(p.words, snap.words, `${sentence}: reordered differently`);
        // the same dot products in the same order; only softmax's row sums add in another order
        assert.ok(p.gapPlain < 1e-6, `${seed} ${sentence} scale ${scale}: gap without positions ${p.gapPlain}`);
        assert.ok(p.gapPE > 1e-3, `${seed} ${sentence} scale ${scale}: gap with positions ${p.gapPE}`);
        // X = E + PE row for row, PE by position
        for (let i = 0; i < snap.n; i++) {
          for (let j = 0; j < 4; j++) {
            assert.equal(p.X.get(i, j), Math.fround(p.E.get(i, j) + p.PE.get(i, j)));
            assert.equal(p.Xo.get(i, j), Math.fround(p.E.get(p.order[i], j) + p.PE.get(i, j)));
          }
        }
        cases++;
      }
    }
  }
  assert.equal(cases, SEEDS.length * SENTENCES.length * 2);
  // a sentence whose reversal reads the same is moved round instead; one word repeated is trivial
  assert.deepEqual(reordering(['猫', '爱', '猫']), [1, 2, 0]);
  assert.deepEqual(reordering(['我', 'love', '猫']), [2, 1, 0]);
  const same = snapshotFor({ sentence: '猫 猫' }).derived.positions;
  assert.equal(same.trivial, true);
});

test('positions: the pictured tables are the sine formula, and PE(p)·PE(p+k) reads the same down every column', () => {
  const snap = snapshotFor({});
  for (const d of PE_WIDTHS) {
    const { table, gram, offsets } = snap.derived.positions.tables[d];
    assert.equal(table.rows, PE_POSITIONS);
    for (let p = 0; p < PE_POSITIONS; p += 7) {
      for (let i = 0; i < d; i++) {
        const angle = p / 10000 ** ((i - (i % 2)) / d);
        assert.ok(Math.abs(table.get(p, i) - (i % 2 ? Math.cos(angle) : Math.sin(angle))) < 2e-7);
      }
    }
    for (let k = 0; k < offsets.cols; k++) {
      const column = Array.from({ length: offsets.rows }, (_, r) => offsets.get(r, k));
      // float32 sums of d products of entries ≤ 1, the sum up to d/2: each of the d additions rounds
      // by at most half an ulp of d/2 (d/2 · 6e-8), so two sums can differ by up to d² · 6e-8
      assert.ok(Math.max(...column) - Math.min(...column) < 6e-8 * d * d, `d ${d}, offset column ${k}: ${column}`);
    }
    assert.ok(Math.abs(gram.get(5, 5) - d / 2) < 1e-4 * d);
  }
});

test('the sections\' URL state: sdk, heads and ped round-trip, and refuse values off their lists', () => {
  const state = createState({ search: '?sdk=128&heads=3&ped=16' });
  assert.deepEqual([state.get('sdk'), state.get('heads'), state.get('ped')], [128, 3, 16]);
  assert.deepEqual(state.rejected, []);
  assert.equal(createState({ search: state.toSearch() }).toSearch(), state.toSearch());
  assert.match(state.toSearch(), /sdk=128/);
  const bad = createState({ search: '?sdk=17&heads=5&ped=7' });
  assert.deepEqual([bad.get('sdk'), bad.get('heads'), bad.get('ped')], [64, 2, 64]);
  assert.deepEqual(bad.rejected, ['sdk', 'heads', 'ped']);
  for (const raw of ['0', '17', '513', '-4', '1e3', '<script>', '64.5', '']) {
    assert.deepEqual(createState({ search: `?sdk=${encodeURIComponent(raw)}` }).rejected, ['sdk'], raw);
  }
  assert.equal(state.set('heads', 5), false);
  assert.equal(state.set('heads', 4), true);
  assert.equal(state.get('heads'), 4);
  assert.equal(state.set('sdk', 100), false);
  assert.equal(state.set('sdk', 512), true);
  // defaults stay out of the URL
  assert.equal(createState({ search: '?sdk=64&heads=2&ped=64' }).toSearch(), '');
});

test('a gprompt longer than the writing model\'s context leaves room for is refused where it is given (link or attribute)', () => {
  // the writer's run (gmodel=writer): its context, gctx (default 32: 30 fit with the start and end tokens)
  const long = '白'.repeat(31);
  const refused = createState({ search: `?gmodel=writer&gprompt=${encodeURIComponent(long)}` });
  assert.deepEqual(refused.rejected, ['gprompt']);
  assert.equal(refused.get('gprompt'), '白日依山尽，');
  const fits = createState({ search: `?gmodel=writer&gctx=64&gprompt=${encodeURIComponent(long)}` });
  assert.deepEqual(fits.rejected, []);
  assert.equal(fits.get('gprompt'), long);
  assert.deepEqual(createState({ search: `?gmodel=writer&gprompt=${encodeURIComponent('白'.repeat(30))}` }).rejected, []);
  // the pretrained poet (the default): the shipped model's context
  assert.equal(POET_CONTEXT, PRETRAINED_REPORT.model.context, 'the page\'s poet context is the shipped model\'s');
  const poet = (n) => createState({ search: `?gprompt=${encodeURIComponent('白'.repeat(n))}` }).rejected;
  assert.deepEqual(poet(31), [], 'what the writer refuses fits the poet');
  assert.deepEqual(poet(POET_CONTEXT - 1), ['gprompt']);
});
