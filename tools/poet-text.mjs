// poet-text.mjs: the pretrained poet's whole training text, shipped for the page's novelty check
// (docs/page-gpt.md, "Generation: the poem as the metrics read it"): a line the poet writes that
// occurs verbatim among its 34,485 training poems is marked there with the poem it comes from.
//
//   node tools/poet-text.mjs            # .build/pretrain/train.txt → web/pretrained/tang-poet-train.bin
//   node tools/poet-text.mjs --check    # the shipped file against the text the report names
//
// The text is what tools/extract-poems.mjs writes to .build/pretrain/train.txt (regenerated, not
// committed: it needs the 85 MB chinese-poetry package) and what tools/pretrain.sh trained on; its
// poem count, character count and FNV-1a checksum are in web/data/poems-val.js (POEMS_VAL.train),
// which the pretraining report names. Writing refuses a text that differs from them; --check
// needs only the shipped file (the tests run it).
//
// The file: "QKVTEXT1" (8 bytes), then little-endian uint32 the text's UTF-8 byte length and its
// FNV-1a checksum, then the text as one raw DEFLATE stream (zlib, level 9: zopfli takes minutes on
// 4.6 MB for a few per cent). web/page/gpt/poet-text.js reads it in the page.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { POEMS_VAL } from '../web/data/poems-val.js';
import { fnv1a } from '../web/gpt-file.js';   // the checksum of GPT files, and extract-poems.mjs's of the text

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEXT = path.join(ROOT, '.build', 'pretrain', 'train.txt');
export const POET_TEXT_FILE = path.join(ROOT, 'web', 'pretrained', 'tang-poet-train.bin');
const MAGIC = Buffer.from('QKVTEXT1', 'latin1');

/** What the text must be: POEMS_VAL.train's counts and checksum. Throws, saying what differs. */
function checkText(bytes, where) {
  const want = POEMS_VAL.train;
  const text = bytes.toString('utf8');
  const poems = text.split('\n').filter(Boolean).length;
  const characters = Array.from(text.replaceAll('\n', '')).length;
  const checksum = fnv1a(bytes);
  const got = { poems, characters, checksum };
  for (const key of Object.keys(got)) {
    if (got[key] !== want[key]) {
      throw new Error(`${where}: ${key} ${got[key]}, but web/data/poems-val.js names a training text of ${want[key]} ` +
        '(regenerate it with node tools/extract-poems.mjs)');
    }
  }
  return got;
}

/** The shipped file → the text's bytes, refusing a file that is not one or does not hold what its header says. */
export function readPoetText(file = POET_TEXT_FILE) {
  const packed = fs.readFileSync(file);
  if (packed.length < 16 || !packed.subarray(0, 8).equals(MAGIC)) throw new Error(`${file}: not a QKVTEXT1 file`);
  const size = packed.readUInt32LE(8), checksum = packed.readUInt32LE(12);
  const bytes = zlib.inflateRawSync(packed.subarray(16));
  if (bytes.length !== size || fnv1a(bytes) !== checksum) throw new Error(`${file}: the text does not match its header`);
  return bytes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--check')) {
    const got = checkText(readPoetText(), path.relative(ROOT, POET_TEXT_FILE));
    console.log(`${path.relative(ROOT, POET_TEXT_FILE)}: ${got.poems} poems, ${got.characters} characters, checksum ${got.checksum}: the text web/data/poems-val.js names`);
  } else {
    if (!fs.existsSync(TEXT)) throw new Error(`${TEXT} is missing: run node tools/extract-poems.mjs first`);
    const bytes = fs.readFileSync(TEXT);
    const got = checkText(bytes, path.relative(ROOT, TEXT));
    const header = Buffer.alloc(8);
    header.writeUInt32LE(bytes.length, 0);
    header.writeUInt32LE(got.checksum, 4);
    const out = Buffer.concat([MAGIC, header, zlib.deflateRawSync(bytes, { level: 9 })]);
    fs.writeFileSync(POET_TEXT_FILE, out);
    console.log(`wrote ${path.relative(ROOT, POET_TEXT_FILE)}: ${(out.length / 1024).toFixed(0)} KiB for ${got.poems} poems (${(bytes.length / 1024).toFixed(0)} KiB of text)`);
  }
}
