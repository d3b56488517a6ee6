// gpt-writer-choices.test.js: the writer offers only the settings the engine accepts
// (web/page/gpt/limits.js asks gpt.js's own work check, the one createGPT makes). Every
// combination of the writer's select boxes that limits.js greys out at its edge is refused by
// createGPT with the same message, and the largest ones it offers are accepted. (Creating every
// model would take over a minute; one step's work grows with each of these settings, so the edges
// decide the rest.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../web/qkv-lab.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { GPT_CHOICES, clampHeads } from '../web/page/gpt/settings.js';
import { runRefusal, quatrainVocabulary } from '../web/page/gpt/limits.js';

const KEYS = ['glayers', 'gheads', 'gdim', 'gctx'];
const options = (s) => ({ layers: s.glayers, dim: s.gdim, heads: clampHeads(s.gdim, s.gheads), context: s.gctx });
const messageOf = (fn) => { try { fn(); return null; } catch (error) { return error.message; } };

test('the writer greys out exactly the combinations of its choices that createGPT refuses, with the engine\'s message', async () => {
  const qkv = await load({ gpt: true });
  // the quatrains' vocabulary as createGPT builds it (gpt.js readLines, buildVocab): 3,6xx tokens
  const V = quatrainVocabulary();
  assert.ok(V > new Set(QUATRAINS.poems.slice(0, 10000)).size && V <= new Set(QUATRAINS.poems).size + 1, `V = ${V}`);
  // ten lines holding V − 1 distinct characters between them: the quatrains' work per step
  const chars = Array.from({ length: V - 1 }, (_, i) => String.fromCodePoint(0x4e00 + i));
  const text = Array.from({ length: 10 }, (_, i) => chars.filter((_, j) => j % 10 === i).join('')).join('\n');
  let all = [{}];
  for (const k of KEYS) all = all.flatMap((s) => GPT_CHOICES[k].map((v) => ({ ...s, [k]: v })));
  const refused = all.filter((s) => runRefusal(s, V) !== null);
  assert.ok(refused.length > 0 && refused.length < all.length, `${refused.length} of ${all.length} greyed out`);
  // the smallest greyed-out ones (every smaller neighbour offered): the work grows with each setting
  const smaller = (s) => KEYS.flatMap((k) => { const i = GPT_CHOICES[k].indexOf(s[k]); return i > 0 ? [{ ...s, [k]: GPT_CHOICES[k][i - 1] }] : []; });
  const edge = refused.filter((s) => smaller(s).every((n) => runRefusal(n, V) === null));
  assert.ok(edge.length > 0);
  for (const s of edge) {
    assert.equal(messageOf(() => qkv.createGPT({ text, ...options(s) }).dispose()), runRefusal(s, V), JSON.stringify(s));
  }
  // the largest offered: accepted with each setting at the largest value offered beside the others
  const largest = (key) => all.filter((s) => runRefusal(s, V) === null).reduce((a, b) => (b[key] > a[key] || (b[key] === a[key] && KEYS.reduce((n, k) => n + b[k], 0) > KEYS.reduce((n, k) => n + a[k], 0)) ? b : a));
  for (const key of ['glayers', 'gdim', 'gctx']) {
    const s = largest(key);
    assert.equal(messageOf(() => qkv.createGPT({ text, ...options(s) }).dispose()), null, JSON.stringify(s));
  }
});
