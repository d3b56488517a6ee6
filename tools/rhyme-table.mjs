// rhyme-table.mjs: writes web/data/rhyme-groups.js, the character → (modern final, modern tone)
// table that web/poetry/metrics.js reads to say whether a poem rhymes and where its 平 and 仄 fall.
// The page and the package carry this table, never pinyin-pro itself.
//
//   node tools/rhyme-table.mjs                   # write web/data/rhyme-groups.js
//   node tools/rhyme-table.mjs --check           # regenerate, compare with the committed file,
//                                                # exit 1 when they differ
//   node tools/rhyme-table.mjs --packages DIR    # use (or install) pinyin-pro in DIR and keep DIR
//
// As tools/extract-quatrains.mjs does, it installs the pinned pinyin-pro into a temporary folder
// (npm install --no-save --prefix <tmpdir>) and deletes it afterwards: pinyin-pro is not a
// dependency of qkv-lab.
//
// The characters: every Han character of the pretraining text .build/pretrain/train.txt (written
// by tools/extract-poems.mjs; the tool refuses a text whose checksum differs from the one
// web/data/poems-val.js records), of the validation poems, the fine-tuning sets and the committed
// quatrains. A character pinyin-pro cannot read (it returns the character itself: rare ones such
// as 䪥) is left out and has no group; the header counts them.
//
// One reading per character: pinyin-pro's reading of the character on its own (its commonest
// modern reading), never the reading in context. A context reading would need pinyin-pro (and its
// word dictionary) at run time, and the table would no longer be one entry per character. The
// cost: a polyphonic character at a rhyme position is read as its commonest modern reading, e.g.
// 还 as hái (ai) where a Tang poem almost always means huán (an), 看 as kàn. The header counts the
// polyphonic characters; docs/poetry-metrics.md gives the effect on the measured rates.
//
// Finals as pinyin-pro writes them ('final', toneType 'none'), with one repair: the character on its
// own is given 'ue' for yue/jue/que/xue (in a phrase pinyin-pro writes 'üe'), written 'üe' here.
// The grouping into rhyme groups (roughly 中华新韵) lives in web/poetry/metrics.js, not here, so the
// table stays a plain record of the modern readings.
// Tone: pinyin-pro's 'num' pattern, 1–4, or 0 for the neutral tone (a few particles).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { fnv1a } from './extract-poems.mjs';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { FINETUNE_SETS } from '../web/data/poems-finetune.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { installPinned, writeOrCheck } from './pinned-packages.mjs';

const PINNED = { 'pinyin-pro': '3.29.4' };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TRAIN = join(ROOT, '.build', 'pretrain', 'train.txt');
const OUT = join(ROOT, 'web', 'data', 'rhyme-groups.js');
const FORMS = ['wujue', 'qijue', 'wulv', 'qilv'];

const args = process.argv.slice(2);
const check = args.includes('--check');
const packagesAt = args.indexOf('--packages');
const keptDir = packagesAt >= 0 ? args[packagesAt + 1] : null;
if (packagesAt >= 0 && !keptDir) throw new Error('usage: --packages DIR');


/** The Han characters of every text the project scores, in code-point order. */
function characters() {
  if (!existsSync(TRAIN)) throw new Error(`${TRAIN} is missing: run node tools/extract-poems.mjs first`);
  const train = readFileSync(TRAIN, 'utf8');
  if (fnv1a(train) !== POEMS_VAL.train.checksum) {
    throw new Error(`${TRAIN} has checksum ${fnv1a(train)}, web/data/poems-val.js records ${POEMS_VAL.train.checksum}: regenerate both with tools/extract-poems.mjs`);
  }
  const texts = [train, ...FORMS.map((f) => POEMS_VAL[f]), QUATRAINS.poems,
    ...Object.values(FINETUNE_SETS).flatMap((s) => [s.train, s.val])];
  const set = new Set();
  for (const t of texts) for (const ch of t) if (/\p{Script=Han}/u.test(ch)) set.add(ch);
  return [...set].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
}

function build(prefix) {
  const require = createRequire(join(prefix, 'package.json'));
  const { pinyin } = require('pinyin-pro');
  const chars = characters();
  const entries = new Map();  // `${final}${tone}` → characters
  const unread = [];
  let polyphonic = 0;
  for (const ch of chars) {
    let final = pinyin(ch, { pattern: 'final', toneType: 'none' });
    const tone = pinyin(ch, { pattern: 'num' });
    if (!final || pinyin(ch) === ch || !/^[0-4]$/.test(tone)) { unread.push(ch); continue; }
    if (final === 'ue') final = 'üe';
    if (pinyin(ch, { multiple: true, type: 'array' }).length > 1) polyphonic++;
    const key = final + tone;
    entries.set(key, (entries.get(key) ?? '') + ch);
  }
  const keys = [...entries.keys()].sort();
  return { chars, entries, keys, unread, polyphonic };
}

function moduleText({ chars, entries, keys, unread, polyphonic }) {
  for (const k of keys) if (/[`\\$]/.test(entries.get(k))) throw new Error(`cannot write ${k} into a template literal`);
  return `// rhyme-groups.js: each character's modern final and tone, for web/poetry/metrics.js (rhyme and
// 平仄). Written by tools/rhyme-table.mjs from pinyin-pro ${PINNED['pinyin-pro']} (MIT); do not edit.
// Regenerate: node tools/rhyme-table.mjs (--check compares with this file).
//
// ${chars.length} Han characters (the pretraining text, the validation, fine-tuning and quatrain
// texts); ${unread.length} that pinyin-pro cannot read have no entry: ${unread.join('')}
// One reading per character: pinyin-pro's reading of the character alone (its commonest modern
// one); ${polyphonic} of the characters have more than one reading (docs/poetry-metrics.md).
//
// READINGS: '<final><tone>' → the characters with that reading, in code-point order. Finals as
// pinyin-pro writes them (ü written ü); tone 1–4, 0 for the neutral tone.

export const READINGS = /* @__PURE__ */ Object.freeze({
${keys.map((k) => `  '${k}': \`${entries.get(k)}\`,`).join('\n')}
});
`;
}

const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'qkv-rhyme-'));
try {
  installPinned(dir, PINNED);
  const table = build(dir);
  const text = moduleText(table);
  const size = `${Buffer.byteLength(text)} bytes, ${gzipSync(text, { level: 9 }).length} gzipped`;
  writeOrCheck([[OUT, text]], check, check ? size : `${table.chars.length - table.unread.length} characters in ${table.keys.length} readings, ` +
    `${table.unread.length} unread, ${table.polyphonic} polyphonic (${size})`);
} finally {
  if (!keptDir) rmSync(dir, { recursive: true, force: true });
}
