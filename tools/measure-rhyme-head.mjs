// measure-rhyme-head.mjs: does a head of the pretrained poet look from a quatrain's second rhyme
// character back at its first? Over every validation 五绝 and 七绝 (web/data/poems-val.js), for
// every layer and head of the shipped model, the attention of line 4's last character on line 2's
// last character against its mean over the other earlier tokens (web/page/pretrained/rhyme-head.js
// says exactly what is measured). Writes web/data/rhyme-head.json, which the 预训练 section shows
// as the report's average beside what it computes for the reader's poem. A measurement of a
// minute or two, not a test; the same model and poems give the same file byte for byte.
//
//   node tools/measure-rhyme-head.mjs            # write web/data/rhyme-head.json
//   node tools/measure-rhyme-head.mjs --check    # recompute, exit 1 when the committed file differs
//
// It also measures the same from the token before line 4's last character (the position whose
// output predicts the rhyme character), as `predicting`: the head that writes a rhyme would look
// back from there.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../web/qkv-lab.js';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { rhyme } from '../web/poetry/metrics.js';
import { quatrainPositions, headReading, rankHeads, mostWatchedLine } from '../web/page/pretrained/rhyme-head.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODEL = join(ROOT, 'web', 'pretrained', 'tang-poet.qkvgpt');
const OUT = join(ROOT, 'web', 'data', 'rhyme-head.json');
const EXAMPLES = 4;  // validation poems of each form the page offers as "your poem"
const round = (x, d = 5) => Number(x.toFixed(d));

const qkv = await load({ gpt: true });
const bytes = new Uint8Array(readFileSync(MODEL));
const gpt = qkv.loadGPT(bytes);
const inVocab = new Set(gpt.vocab);

const poems = [];
let skipped = 0;
for (const form of ['wujue', 'qijue']) {
  for (const poem of POEMS_VAL[form].split('\n').filter(Boolean)) {
    if (!quatrainPositions(poem) || Array.from(poem).some((ch) => !inVocab.has(ch))) { skipped++; continue; }
    poems.push({ form, poem });
  }
}

/** Sums over the poems, per layer and head, for one choice of query. */
function tally(queryOf) {
  const sums = Array.from({ length: gpt.layers }, () => Array.from({ length: gpt.heads }, () =>
    ({ toRhyme: 0, others: 0, lineEnds: [0, 0, 0], line2Most: 0 })));
  return {
    add(trace, positions) {
      const at = { ...positions, query: queryOf(positions) };
      trace.blocks.forEach((block, l) => block.attention.heads.forEach((head, hh) => {
        const r = headReading(head.weights, at);
        const s = sums[l][hh];
        s.toRhyme += r.toRhyme;
        s.others += r.others;
        r.toLineEnds.forEach((w, k) => { s.lineEnds[k] += w; });
        if (mostWatchedLine(r) === 2) s.line2Most++;
      }));
    },
    result(count) {
      const heads = sums.map((row) => row.map((s) => ({
        toRhyme: round(s.toRhyme / count), others: round(s.others / count), ratio: round(s.toRhyme / s.others, 4),
        lineEnds: s.lineEnds.map((w) => round(w / count)), line2Most: round(s.line2Most / count, 4),
      })));
      const ranked = rankHeads(heads.map((row) => row.map((x) => x.ratio)));
      return { heads, best: { layer: ranked[0].layer, head: ranked[0].head, ratio: ranked[0].ratio },
        second: { layer: ranked[1].layer, head: ranked[1].head, ratio: ranked[1].ratio } };
    },
  };
}

const atRhyme = tally((p) => p.query);
const predicting = tally((p) => p.query - 1);
let rhyming = 0;
for (const { poem } of poems) {
  const positions = quatrainPositions(poem);
  const trace = gpt.forward(poem);
  atRhyme.add(trace, positions);
  predicting.add(trace, positions);
  if (rhyme(poem)?.lines24) rhyming++;
}

const byForm = { wujue: poems.filter((p) => p.form === 'wujue').length, qijue: poems.filter((p) => p.form === 'qijue').length };
const examples = ['wujue', 'qijue'].flatMap((form) => poems.filter((p) => p.form === form && rhyme(p.poem)?.lines24).slice(0, EXAMPLES).map((p) => p.poem));
const report = {
  about: 'Written by tools/measure-rhyme-head.mjs from web/pretrained/tang-poet.qkvgpt and the 五绝 and 七绝 of web/data/poems-val.js; do not edit.',
  model: { file: 'web/pretrained/tang-poet.qkvgpt', bytes: bytes.length, layers: gpt.layers, heads: gpt.heads },
  poems: { ...byForm, all: poems.length, skipped, rhymingLines24: rhyming },
  measure: 'per layer and head, means over the poems: toRhyme, the weight line 4\'s last character gives line 2\'s last character; others, its mean weight on every other earlier token (the start token included); ratio = toRhyme / others (of the means); lineEnds, the weights on the ends of lines 1, 2, 3; line2Most, the share of poems where line 2\'s end gets more than the ends of lines 1 and 3',
  atRhyme: atRhyme.result(poems.length),
  predicting: predicting.result(poems.length),
  examples,
};
const text = `${JSON.stringify(report, null, 1)}\n`;
if (process.argv.includes('--check')) {
  const same = readFileSync(OUT, 'utf8') === text;
  console.log(same ? 'web/data/rhyme-head.json is up to date' : 'web/data/rhyme-head.json differs from a new measurement');
  process.exit(same ? 0 : 1);
}
writeFileSync(OUT, text);
gpt.dispose();
const show = (r) => `best layer ${r.best.layer + 1} head ${r.best.head + 1} ratio ${r.best.ratio}, second ${r.second.ratio}`;
console.log(`${poems.length} quatrains (${skipped} skipped): at the rhyme character ${show(report.atRhyme)}; predicting it ${show(report.predicting)}`);
