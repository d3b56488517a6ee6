// extract-quatrains.mjs: writes web/data/quatrains.js, the GPT's default training text: every
// five-character quatrain (五言绝句) of the Complete Tang Poems in the npm package chinese-poetry,
// in simplified characters, one poem per line.
//
//   node tools/extract-quatrains.mjs                  # write web/data/quatrains.js
//   node tools/extract-quatrains.mjs --check          # regenerate, compare with the committed file,
//                                                     # exit 1 when they differ
//   node tools/extract-quatrains.mjs --packages DIR   # use the two packages installed in DIR (or
//                                                     # install them there), and keep DIR
//
// The two source packages are NOT dependencies of qkv-lab (chinese-poetry alone is 85 MB): the
// script installs the pinned versions below into a fresh temporary folder with
//   npm install --no-save --prefix <tmpdir> chinese-poetry@2.0.1 opencc-js@1.4.2
// (the npm registry, or npm's cache), reads them from there and deletes the folder when done.
// The output is committed, so neither the build nor the tests need the packages.
//
// What it keeps, in order (the counts are printed, and written into the output's header):
//   1. the files dist/quantangshi/poet.tang.<N>.json (not the folder error/, which holds rejected
//      entries), in the order of N, and each file's poems in their order;
//   2. poems of exactly two paragraphs (lines);
//   3. each line NFC-normalised with any white space removed (the data holds none: the count
//      printed says so), then exactly 5 Han characters, '，', 5 Han characters, '。'
//      (web/data/quatrain-form.js; the data writes U+FF0C and U+3002 throughout, no ASCII
//      commas). Poems are dropped, first rule that applies, for: a character that is neither Han
//      nor punctuation (□ for a lost character, [ ] around an editor's restored one, （…） notes
//      naming a source, /); the 5 + 5 shape with another mark (？ ！ ；); other line lengths
//      (the seven-character quatrains, mostly);
//   4. converted to simplified (below), and still of the form (the script stops if not);
//   5. exact duplicates of an earlier poem dropped (the Complete Tang Poems holds many poems twice,
//      under two poets or two titles; some differ only in variant traditional forms and become
//      one after conversion).
// No author or title: the text is what trains, and they would make the file about 38 % larger
// (28 bytes of UTF-8 a poem, against the poem's 73).
//
// Traditional → simplified: opencc-js's 'hk' → 't' (Hong Kong variant forms to OpenCC's
// standard traditional), then 'tw' → 'cn'. Measured on the 3,903 quatrains against 't' → 'cn'
// alone, the only differences are: 'tw' → 'cn' writes 著 as 着 (61 times; the data, as Taiwan
// does, writes 著 for zhuó/zhe: 不着, 着处, 身着; one of the 61 is 著文 'to write', which becomes
// 着文) and 簷 as the standard 檐 (13); 'hk' → 't' first turns the variants 粧 and 衞 into 妆
// and 卫 (2 each). 'twp' (Taiwan phrases) was not taken: it rewrites modern idioms and turned
// 元 into 符 and 效 into 性 in Tang lines. OpenCC leaves variant forms that are not
// traditional (疎, 煖, 緜 …) as they are, and simplifies a few characters to code points beyond
// the BMP (鑪 → 𬬻, 鶱 → 𬸣, 絺 → 𫄨, as the 2013 通用规范汉字表 does): the output's header
// counts them; a character is a code point, never a UTF-16 unit.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWellFormedQuatrain, QUATRAIN_LENGTH } from '../web/data/quatrain-form.js';
import { installPinned, writeOrCheck } from './pinned-packages.mjs';

const PINNED = { 'chinese-poetry': '2.0.1', 'opencc-js': '1.4.2' };
const SOURCE_GLOB = 'dist/quantangshi/poet.tang.*.json';
const OUT = fileURLToPath(new URL('../web/data/quatrains.js', import.meta.url));

const args = process.argv.slice(2);
const check = args.includes('--check');
const packagesAt = args.indexOf('--packages');
const keptDir = packagesAt >= 0 ? args[packagesAt + 1] : null;
if (packagesAt >= 0 && !keptDir) throw new Error('usage: --packages DIR');

const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'qkv-quatrains-'));
try {
  installPinned(dir, PINNED);
  const text = moduleText(extract(dir));
  writeOrCheck([[OUT, text]], check, `${Buffer.byteLength(text)} bytes`);
} finally {
  if (!keptDir) rmSync(dir, { recursive: true, force: true });
}


/** The quatrains, simplified and deduplicated, in source order, with the count each rule dropped. */
function extract(prefix) {
  const require = createRequire(join(prefix, 'package.json'));
  const OpenCC = require('opencc-js');
  const hkToStandard = OpenCC.Converter({ from: 'hk', to: 't' });
  const twToSimplified = OpenCC.Converter({ from: 'tw', to: 'cn' });
  const toSimplified = (s) => twToSimplified(hkToStandard(s));

  const folder = join(prefix, 'node_modules', 'chinese-poetry', 'dist', 'quantangshi');
  const files = readdirSync(folder)
    .map((name) => ({ name, n: /^poet\.tang\.(\d+)\.json$/.exec(name)?.[1] }))
    .filter((f) => f.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n));
  if (files.length === 0) throw new Error(`no poet.tang.*.json in ${folder}`);

  const counts = { files: files.length, poems: 0, notTwoLines: 0, editorialMarks: 0, otherMarks: 0,
    otherLengths: 0, linesNormalised: 0, quatrains: 0, duplicates: 0, duplicatesInSource: 0 };
  const seenSimplified = new Set();
  const seenSource = new Set();
  const poems = [];
  for (const { name } of files) {
    const entries = JSON.parse(readFileSync(join(folder, name), 'utf8'));
    for (const entry of entries) {
      counts.poems++;
      const lines = entry.paragraphs;
      if (!Array.isArray(lines) || lines.length !== 2 || !lines.every((l) => typeof l === 'string')) {
        counts.notTwoLines++;
        continue;
      }
      const normal = lines.map((l) => l.normalize('NFC').replace(/\s/gu, ''));
      counts.linesNormalised += normal.filter((l, i) => l !== lines[i]).length;
      const source = normal.join('');
      if (!isWellFormedQuatrain(source)) {
        counts[whyNot(source)]++;
        continue;
      }
      counts.quatrains++;
      const poem = toSimplified(source);
      if (!isWellFormedQuatrain(poem)) throw new Error(`${name}: 「${source}」 became 「${poem}」, not a quatrain`);
      if (seenSimplified.has(poem)) {
        counts.duplicates++;
        if (seenSource.has(source)) counts.duplicatesInSource++;
        continue;
      }
      seenSimplified.add(poem);
      seenSource.add(source);
      poems.push(poem);
    }
  }
  console.log(counts);
  return { poems, counts };
}

/** Which rule a two-line poem that is not a quatrain breaks first (see the header, rule 3). */
function whyNot(text) {
  if (/[^\p{Script=Han}\p{P}]|[[\]（）()〖〗{}《》「」『』/]/u.test(text)) return 'editorialMarks';
  if (/^(?:\p{Script=Han}{5}\p{P}\p{Script=Han}{5}\p{P}){2}$/u.test(text)) return 'otherMarks';
  return 'otherLengths';
}

/** Figures about the text, computed the way tests/quatrains-data.test.js computes them. */
function textFigures(poems) {
  const chars = poems.flatMap((p) => [...p]);
  const distinct = new Set(chars);
  const han = (c) => /\p{Script=Han}/u.test(c);
  const astral = (c) => c.codePointAt(0) > 0xffff;
  return {
    poems: poems.length,
    characters: chars.length,
    han: chars.filter(han).length,
    distinct: distinct.size,
    distinctHan: [...distinct].filter(han).length,
    astralDistinct: [...distinct].filter(astral).length,
    astral: chars.filter(astral).length,
  };
}

function moduleText({ poems, counts }) {
  for (const p of poems) {
    if ([...p].length !== QUATRAIN_LENGTH || /[`\\$]/.test(p)) throw new Error(`cannot write 「${p}」 into a template literal`);
  }
  const f = textFigures(poems);
  const n = (x) => x.toLocaleString('en-US');
  const bytes = Buffer.byteLength(poems.join('\n'));
  return `// quatrains.js: the five-character quatrains (五言绝句) of the Complete Tang Poems, in simplified
// characters: the GPT's default training text. Written by tools/extract-quatrains.mjs; do not edit.
// Regenerate (it installs chinese-poetry and opencc-js into a temporary folder, never into the project):
//   node tools/extract-quatrains.mjs            (--check compares with this file)
//
// Source: the npm package chinese-poetry ${PINNED['chinese-poetry']} (MIT, © 2016 JackeyGao), ${SOURCE_GLOB};
// the poems themselves are in the public domain. Converted with opencc-js ${PINNED['opencc-js']} (MIT):
// Hong Kong variants → OpenCC traditional, then Taiwan traditional → mainland simplified.
//
// Of ${n(counts.poems)} poems in ${counts.files} files: ${n(counts.notTwoLines)} have not exactly two lines; of the two-line ones,
// ${n(counts.editorialMarks)} hold a lost-character mark, an editor's bracket or note, ${n(counts.otherMarks)} use ？ ！ or ； in the 5 + 5
// shape, ${n(counts.otherLengths)} have other line lengths; ${n(counts.quatrains)} are quatrains, of which ${n(counts.duplicates)} repeat an earlier
// poem (${n(counts.duplicatesInSource)} already in the traditional text, ${n(counts.duplicates - counts.duplicatesInSource)} once simplified) and are left out.
//
// Figures (tests/quatrains-data.test.js computes them from the text and compares):
//   poems: ${n(f.poems)}
//   characters: ${n(f.characters)} (${n(f.han)} Han, the rest '，' and '。'; newlines not counted)
//   distinct characters: ${n(f.distinct)} (${n(f.distinctHan)} Han, '，' and '。')
//   beyond the BMP: ${n(f.astralDistinct)} distinct characters, ${n(f.astral)} occurrences (one character, two UTF-16 units each)
//
// poems: one poem per line, ${QUATRAIN_LENGTH} characters each (xxxxx，xxxxx。xxxxx，xxxxx。), '\\n' between
// lines and none at the end, in source order (file, then index). ${n(bytes)} bytes of UTF-8.

export const QUATRAINS = /* @__PURE__ */ Object.freeze({
  source: 'chinese-poetry (npm), ${SOURCE_GLOB}',
  version: '${PINNED['chinese-poetry']}',
  converter: 'opencc-js ${PINNED['opencc-js']}: hk → t, then tw → cn',
  license: 'chinese-poetry: MIT; the Tang poems: public domain',
  count: ${poems.length},
  poems: \`${poems.join('\n')}\`,
});
`;
}
