// extract-poems.mjs: the pretraining and fine-tuning texts, from the npm package chinese-poetry.
//
//   node tools/extract-poems.mjs                   # write .build/pretrain/train.txt (regenerated,
//                                                  # not committed) and web/data/poems-*.js (committed)
//   node tools/extract-poems.mjs --check           # regenerate and compare with the committed files
//   node tools/extract-poems.mjs --packages DIR    # use (or install) the packages in DIR and keep it
//
// As tools/extract-quatrains.mjs does, it installs the pinned packages into a temporary folder
// (chinese-poetry alone is 85 MB; it is not a dependency of qkv-lab) and deletes it afterwards.
//
// What it writes:
//   - the regular-verse poems (近体诗 shapes) of the Complete Tang Poems: 五绝, 七绝, 五律, 七律, i.e.
//     4 or 8 lines of 5 or 7 Han characters, one poem per line of text, in simplified characters;
//     a fixed, poem-level split: a poem goes to validation when the FNV-1a hash of its simplified
//     text is 0 mod 20 (about 5 %), then any validation poem with a line that also occurs in a
//     training poem is dropped from validation (the Complete Tang Poems holds many poems twice
//     under other titles or poets, and excerpts: a 绝句 that is half of a 律诗). Training text:
//     .build/pretrain/train.txt (a few MB; the tool regenerates it byte for byte, and its FNV-1a
//     checksum is in web/data/poems-val.js so the pretraining report can name the text it used).
//     Validation: web/data/poems-val.js (committed: the tests and the page score the shipped model
//     on it).
//   - 宋词 under the tune 浣溪沙 (six lines of seven characters) and one poet's 绝句 (李白), each
//     with its own held-out split, for fine-tuning: web/data/poems-finetune.js (committed).
//
// The rules, in order (counts printed, and in the headers):
//   1. the paragraphs joined, NFC-normalised, white space removed; a paragraph that is only
//      punctuation (a stray '。' some entries carry) is dropped first;
//   2. a character that is neither Han nor punctuation, or an editor's bracket or note, drops the
//      poem (□ a lost character, [ ] a restored one, （…） a source note, /);
//   3. the text must split into lines of Han characters each followed by exactly one of
//      ，。？！；、 and nothing else; 4 or 8 lines (绝句, 律诗), all of 5 or all of 7 characters;
//   4. the marks are normalised: a couplet's first line ends with '，', its second with '。'
//      (the counts say how many poems used ？！；、), so the four forms have one punctuation
//      pattern each and a form-locked sampler knows where they go;
//   5. converted to simplified as tools/extract-quatrains.mjs does (opencc-js hk → t, tw → cn);
//   6. exact duplicates of an earlier poem dropped.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPinned, writeOrCheck } from './pinned-packages.mjs';

const PINNED = { 'chinese-poetry': '2.0.1', 'opencc-js': '1.4.2' };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TRAIN_OUT = join(ROOT, '.build', 'pretrain', 'train.txt');
const VAL_TEXT_OUT = join(ROOT, '.build', 'pretrain', 'val.txt');
const VAL_OUT = join(ROOT, 'web', 'data', 'poems-val.js');
const FINETUNE_OUT = join(ROOT, 'web', 'data', 'poems-finetune.js');
const POET = '李白';
const TUNE = '浣溪沙';

const args = process.argv.slice(2);
const check = args.includes('--check');
const packagesAt = args.indexOf('--packages');
const keptDir = packagesAt >= 0 ? args[packagesAt + 1] : null;
if (packagesAt >= 0 && !keptDir) throw new Error('usage: --packages DIR');

const HAN = /\p{Script=Han}/u;
const MARKS = '，。？！；、';

export function fnv1a(text) {
  const bytes = Buffer.from(text, 'utf8');
  let h = 0x811c9dc5;
  for (const b of bytes) { h ^= b; h = Math.imul(h, 0x01000193) >>> 0; }
  return h >>> 0;
}

/** The lines of a joined poem text, or null when it is not Han lines each closed by one mark. */
function splitLines(text) {
  const lines = [];
  let line = '';
  for (const ch of text) {
    if (HAN.test(ch)) line += ch;
    else if (MARKS.includes(ch)) {
      if (!line) return null;
      lines.push({ chars: line, mark: ch });
      line = '';
    } else return null;
  }
  return line ? null : lines;
}

const FORM_NAMES = { '5x4': 'wujue', '7x4': 'qijue', '5x8': 'wulv', '7x8': 'qilv' };

function main() {
  const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'qkv-poems-'));
  try {
    installPinned(dir, PINNED);
    const out = extract(dir);
    const files = [[VAL_OUT, valModule(out)], [FINETUNE_OUT, finetuneModule(out)]];
    writeOrCheck(files, check);
    mkdirSync(join(TRAIN_OUT, '..'), { recursive: true });
    writeFileSync(TRAIN_OUT, out.train.join('\n') + '\n');
    writeFileSync(VAL_TEXT_OUT, out.val.map((p) => p.text).join('\n') + '\n');
    console.log(`wrote ${TRAIN_OUT} (${out.train.length} poems, checksum ${out.trainChecksum})`);
  } finally {
    if (!keptDir) rmSync(dir, { recursive: true, force: true });
  }
}


function numbered(folder, re) {
  return readdirSync(folder)
    .map((name) => ({ name, n: re.exec(name)?.[1] }))
    .filter((f) => f.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((f) => join(folder, f.name));
}

function extract(prefix) {
  const require = createRequire(join(prefix, 'package.json'));
  const OpenCC = require('opencc-js');
  const hkToStandard = OpenCC.Converter({ from: 'hk', to: 't' });
  const twToSimplified = OpenCC.Converter({ from: 'tw', to: 'cn' });
  const toSimplified = (s) => twToSimplified(hkToStandard(s));
  const base = join(prefix, 'node_modules', 'chinese-poetry', 'dist');

  // ---- the Tang regular verse ----
  const counts = { poems: 0, strayParagraphs: 0, editorialMarks: 0, otherShapes: 0, regular: 0,
    otherMarks: 0, duplicates: 0, wujue: 0, qijue: 0, wulv: 0, qilv: 0 };
  const seen = new Set();
  const poems = [];  // { text, form, author }
  for (const file of numbered(join(base, 'quantangshi'), /^poet\.tang\.(\d+)\.json$/)) {
    for (const entry of JSON.parse(readFileSync(file, 'utf8'))) {
      counts.poems++;
      if (!Array.isArray(entry.paragraphs)) { counts.otherShapes++; continue; }
      let paragraphs = entry.paragraphs.filter((p) => typeof p === 'string').map((p) => p.normalize('NFC').replace(/\s/gu, ''));
      const kept = paragraphs.filter((p) => /\p{Script=Han}/u.test(p));
      if (kept.length !== paragraphs.length) counts.strayParagraphs++;
      paragraphs = kept;
      const source = paragraphs.join('');
      if (/[^\p{Script=Han}\p{P}]|[[\]（）()〖〗{}《》「」『』/]/u.test(source)) { counts.editorialMarks++; continue; }
      const lines = splitLines(source);
      const width = lines?.[0]?.chars.length;
      const form = lines && FORM_NAMES[`${width}x${lines.length}`];
      if (!form || !lines.every((l) => [...l.chars].length === width && l.chars.length === width)) {
        // (a line with a character beyond the BMP has more UTF-16 units: such lines are counted
        // in code points by the second test's failure, and left out as rare)
        counts.otherShapes++;
        continue;
      }
      if (lines.some((l, i) => l.mark !== (i % 2 ? '。' : '，'))) counts.otherMarks++;
      const normal = lines.map((l, i) => l.chars + (i % 2 ? '。' : '，')).join('');
      const text = toSimplified(normal);
      const again = splitLines(text);
      if (!again || again.length !== lines.length || again.some((l) => [...l.chars].length !== width)) {
        throw new Error(`「${normal}」 became 「${text}」 when simplified`);
      }
      counts.regular++;
      if (seen.has(text)) { counts.duplicates++; continue; }
      seen.add(text);
      counts[form]++;
      poems.push({ text, form, author: toSimplified(String(entry.author ?? '')) });
    }
  }

  // ---- the split ----
  const isVal = (p) => fnv1a(p.text) % 20 === 0;
  const train = poems.filter((p) => !isVal(p));
  const trainLines = new Set();
  for (const p of train) for (const l of p.text.split(/[，。]/u)) if (l) trainLines.add(l);
  const valAll = poems.filter(isVal);
  const val = valAll.filter((p) => !p.text.split(/[，。]/u).some((l) => l && trainLines.has(l)));
  counts.valCandidates = valAll.length;
  counts.valDroppedSharingALine = valAll.length - val.length;

  // ---- fine-tuning: one poet's 绝句 ----
  const poetAll = poems.filter((p) => p.author === POET && (p.form === 'wujue' || p.form === 'qijue'));
  const poetVal = poetAll.filter((p, i) => i % 10 === 9);
  const poetTrain = poetAll.filter((p, i) => i % 10 !== 9);

  // ---- fine-tuning: 浣溪沙 ----
  const ciCounts = { tune: 0, shape: 0, duplicates: 0 };
  const ci = [];
  const ciSeen = new Set();
  const patterns = new Map();
  for (const file of numbered(join(base, 'songci'), /^ci\.song\.(\d+)\.json$/)) {
    for (const entry of JSON.parse(readFileSync(file, 'utf8'))) {
      if (entry.rhythmic !== TUNE || !Array.isArray(entry.paragraphs)) continue;
      ciCounts.tune++;
      const source = entry.paragraphs.join('').normalize('NFC').replace(/\s/gu, '');
      const lines = splitLines(source);
      if (!lines || lines.length !== 6 || !lines.every((l) => [...l.chars].length === 7 && l.chars.length === 7)) continue;
      ciCounts.shape++;
      const pattern = lines.map((l) => l.mark).join('');
      patterns.set(pattern, (patterns.get(pattern) ?? 0) + 1);
      ci.push(lines);
    }
  }
  const [tunePattern] = [...patterns.entries()].sort((a, b) => b[1] - a[1])[0];
  ciCounts.commonPattern = patterns.get(tunePattern);
  const ciPoems = [];
  for (const lines of ci) {
    const text = lines.map((l, i) => l.chars + tunePattern[i]).join('');
    if (ciSeen.has(text)) { ciCounts.duplicates++; continue; }
    ciSeen.add(text);
    ciPoems.push(text);
  }
  const ciVal = ciPoems.filter((p, i) => i % 10 === 9);
  const ciTrain = ciPoems.filter((p, i) => i % 10 !== 9);

  const trainTexts = train.map((p) => p.text);
  console.log(counts, ciCounts, { tunePattern, poet: POET, poetTrain: poetTrain.length, poetVal: poetVal.length });
  return {
    counts, train: trainTexts, trainChecksum: fnv1a(trainTexts.join('\n') + '\n'), val,
    trainCharacters: trainTexts.reduce((s, t) => s + [...t].length, 0),
    trainByForm: Object.fromEntries(Object.values(FORM_NAMES).map((f) => [f, train.filter((p) => p.form === f).length])),
    poetTrain: poetTrain.map((p) => p.text), poetVal: poetVal.map((p) => p.text),
    ciTrain, ciVal, ciCounts, tunePattern,
  };
}

function guard(texts) {
  for (const t of texts) if (/[`\\$\n]/.test(t)) throw new Error(`cannot write 「${t}」 into a template literal`);
  return texts;
}

const HEADER = (what) => `// ${what} Written by tools/extract-poems.mjs; do not edit.
// Source: the npm package chinese-poetry ${PINNED['chinese-poetry']} (MIT, © 2016 JackeyGao); the poems are in the
// public domain. Simplified with opencc-js ${PINNED['opencc-js']} (MIT): hk → t, then tw → cn.
// Regenerate: node tools/extract-poems.mjs (--check compares with this file).
`;

function valModule(o) {
  const forms = Object.values(FORM_NAMES);
  const byForm = Object.fromEntries(forms.map((f) => [f, guard(o.val.filter((p) => p.form === f).map((p) => p.text))]));
  return `${HEADER('poems-val.js: the held-out regular-verse Tang poems the pretrained GPT is scored on.')}
// Of ${o.counts.poems} entries: ${o.counts.regular} regular-verse poems, ${o.counts.duplicates} exact duplicates left out,
// ${o.counts.otherMarks} normalised to '，' / '。' line ends. Validation: FNV-1a(poem) % 20 === 0, minus
// ${o.counts.valDroppedSharingALine} poems sharing a line with a training poem.

export const POEMS_VAL = /* @__PURE__ */ Object.freeze({
  counts: Object.freeze(${JSON.stringify(o.counts)}),
  /** the training text .build/pretrain/train.txt that the same run of the tool wrote */
  train: Object.freeze({ poems: ${o.train.length}, characters: ${o.trainCharacters}, checksum: ${o.trainChecksum}, byForm: Object.freeze(${JSON.stringify(o.trainByForm)}) }),
${forms.map((f) => `  ${f}: \`${byForm[f].join('\n')}\`,`).join('\n')}
});
`;
}

function finetuneModule(o) {
  return `${HEADER(`poems-finetune.js: fine-tuning texts: the 宋词 tune ${TUNE} and ${POET}'s 绝句.`)}
// ${TUNE}: ${o.ciCounts.tune} under the tune, ${o.ciCounts.shape} of six lines of seven characters, written with the tune's
// commonest marks ${o.tunePattern} (${o.ciCounts.commonPattern} of them use exactly those), ${o.ciCounts.duplicates} duplicates left out; every
// 10th held out. ${POET}: his 五绝 and 七绝 among the Tang regular verse, every 10th held out.

export const FINETUNE_SETS = /* @__PURE__ */ Object.freeze({
  huanxisha: Object.freeze({
    name: '${TUNE}', pattern: '${o.tunePattern}',
    train: \`${guard(o.ciTrain).join('\n')}\`,
    val: \`${guard(o.ciVal).join('\n')}\`,
  }),
  poet: Object.freeze({
    name: '${POET}',
    train: \`${guard(o.poetTrain).join('\n')}\`,
    val: \`${guard(o.poetVal).join('\n')}\`,
  }),
});
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
