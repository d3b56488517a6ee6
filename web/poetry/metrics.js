// poetry/metrics.js: what a generated (or real) regular-verse poem is: its form, whether it rhymes,
// its tones at the rhyme positions, and how much of it is copied from the training poems. Pure
// JavaScript (no DOM, no WebAssembly); the only data is web/data/rhyme-groups.js (16 KB gzipped).
// Used by tools/measure-baselines.mjs, the pretraining report, the tests and the page.
//
//   import { formOf, rhyme, tones, summarize, trainingIndex, novelty } from './poetry/metrics.js';
//   formOf('白日依山尽，黄河入海流。欲穷千里目，更上一层楼。')   // 'wujue'
//   rhyme('白日依山尽，黄河入海流。欲穷千里目，更上一层楼。').lines24   // true (流 liu, 楼 lou: group ou)
//
// A poem is the text alone: no newline or end-of-text token (the caller strips them), no title.
//
// The forms (the training text writes every poem this way, tools/extract-poems.mjs):
//   wujue 五绝: 4 lines of 5 Han characters    qijue 七绝: 4 lines of 7
//   wulv  五律: 8 lines of 5                    qilv  七律: 8 lines of 7
// every odd line closed by '，' (U+FF0C), every even line by '。' (U+3002), nothing else.
// A Han character is one code point of Unicode Script=Han, as in web/data/quatrain-form.js.
//
// Rhyme: modern finals (pinyin-pro's reading of the character alone, web/data/rhyme-groups.js)
// grouped roughly as 中华新韵 (RHYME_GROUPS below). Two characters rhyme when both have a group
// and it is the same one; a character without a reading (a rare character pinyin-pro cannot
// read) rhymes with nothing. Modern finals are a proxy for the Tang rhymes (平水韵): compare a
// model with the real poems under the same table (docs/poetry-metrics.md), never with 100 %.
// Tone: 平 = modern tones 1 and 2, 仄 = 3 and 4 (the Tang 入声 is gone from modern readings, so
// some 仄 characters read as 平 here); the neutral tone is neither (null).
import { READINGS } from '../data/rhyme-groups.js';

/** The four forms: lines and characters per line. */
export const FORMS = Object.freeze({
  wujue: Object.freeze({ lines: 4, width: 5, name: '五绝' }),
  qijue: Object.freeze({ lines: 4, width: 7, name: '七绝' }),
  wulv: Object.freeze({ lines: 8, width: 5, name: '五律' }),
  qilv: Object.freeze({ lines: 8, width: 7, name: '七律' }),
});
export const FORM_NAMES = Object.freeze(Object.keys(FORMS));

const FORM_PATTERNS = Object.entries(FORMS).map(([form, { lines, width }]) =>
  [form, new RegExp(`^(?:\\p{Script=Han}{${width}}，\\p{Script=Han}{${width}}。){${lines / 2}}$`, 'u')]);

/**
 * The rhyme groups: group id (its first final) → the modern finals it holds, roughly 中华新韵
 * (which also splits o/uo from e, and the apical -i of zhi/chi/shi/ri/zi/ci/si from i; pinyin-pro
 * writes both as 'i', so they share a group here).
 */
export const RHYME_GROUPS = Object.freeze({
  a: ['a', 'ia', 'ua'], o: ['o', 'uo'], e: ['e'], ie: ['ie', 'üe'], i: ['i', 'ü', 'er'], u: ['u'],
  ai: ['ai', 'uai'], ei: ['ei', 'ui'], ao: ['ao', 'iao'], ou: ['ou', 'iu'], an: ['an', 'ian', 'uan', 'üan'],
  en: ['en', 'in', 'un', 'ün'], ang: ['ang', 'iang', 'uang'], eng: ['eng', 'ing', 'ong', 'iong'],
});
const GROUP_OF_FINAL = new Map(Object.entries(RHYME_GROUPS).flatMap(([g, finals]) => finals.map((f) => [f, g])));

let table = null;  // character → { final, tone }, built on first use (about 6,500 entries)
function readingTable() {
  if (table) return table;
  table = new Map();
  for (const [key, chars] of Object.entries(READINGS)) {
    const final = key.slice(0, -1), tone = Number(key.slice(-1));
    for (const ch of chars) table.set(ch, { final, tone });
  }
  return table;
}

function checkText(op, name, value) {
  if (typeof value !== 'string') {
    throw new TypeError(`${op}: ${name} must be a string, got ${value === null ? 'null' : typeof value}`);
  }
}
function checkPoems(op, poems) {
  if (!Array.isArray(poems)) throw new TypeError(`${op}: poems must be an array of strings, got ${poems === null ? 'null' : typeof poems}`);
  poems.forEach((p, i) => checkText(op, `poems[${i}]`, p));
}

/**
 * A character's modern reading: { char, final, tone (1–4, 0 neutral), group (RHYME_GROUPS id),
 * level ('平' | '仄' | null) }, or null when the table has no reading for it.
 * @param {string} ch one character (code point)
 */
export function readingOf(ch) {
  checkText('readingOf', 'ch', ch);
  const r = readingTable().get(ch);
  if (!r) return null;
  return { char: ch, final: r.final, tone: r.tone, group: GROUP_OF_FINAL.get(r.final) ?? null,
    level: r.tone === 1 || r.tone === 2 ? '平' : r.tone === 3 || r.tone === 4 ? '仄' : null };
}

/** Whether two characters rhyme: both have a group, the same one. */
export function rhymes(a, b) {
  const ra = readingOf(a), rb = readingOf(b);
  return ra !== null && rb !== null && ra.group !== null && ra.group === rb.group;
}

/**
 * The form of `poem`: 'wujue' | 'qijue' | 'wulv' | 'qilv', or null when it is none of them.
 * @param {string} poem
 */
export function formOf(poem) {
  checkText('formOf', 'poem', poem);
  for (const [form, re] of FORM_PATTERNS) if (re.test(poem)) return form;
  return null;
}

/** The lines of a well-formed poem (Han characters only, marks dropped), or null. */
export function linesOf(poem) {
  checkText('linesOf', 'poem', poem);
  if (!formOf(poem)) return null;
  return poem.split(/[，。]/u).slice(0, -1);
}

const lastChar = (line) => [...line].at(-1);

/**
 * Whether a well-formed poem rhymes: the last characters of its even lines (2, 4 for a 绝句;
 * 2, 4, 6, 8 for a 律诗). null for a poem of none of the forms.
 * → { form, lines24 (lines 2 and 4 rhyme), allEven (every even line's last character in one
 *     group; for a 绝句 the same as lines24), lines12 (lines 1 and 2: need not rhyme, a reference),
 *     ends: [{ line (1-based), char, final, group }] for the even lines }
 * @param {string} poem
 */
export function rhyme(poem) {
  checkText('rhyme', 'poem', poem);
  const form = formOf(poem);
  if (!form) return null;
  const lines = linesOf(poem);
  const ends = [];
  for (let i = 1; i < lines.length; i += 2) {
    const char = lastChar(lines[i]);
    const r = readingOf(char);
    ends.push({ line: i + 1, char, final: r ? r.final : null, group: r ? r.group : null });
  }
  const same = (a, b) => a.group !== null && a.group === b.group;
  return {
    form,
    lines24: same(ends[0], ends[1]),
    allEven: ends.every((e) => same(e, ends[0])),
    lines12: rhymes(lastChar(lines[0]), lastChar(lines[1])),
    ends,
  };
}

/**
 * 平 / 仄 at the rhyme positions (the even lines' last characters; the first line's last character
 * too, which often rhymes in the Tang poems). null for a poem of none of the forms.
 * → { form, positions: [{ line, char, tone, level }], levelShare (share of the even lines' ends that
 *     are 平, among those with a level) }
 * @param {string} poem
 */
export function tones(poem) {
  checkText('tones', 'poem', poem);
  const form = formOf(poem);
  if (!form) return null;
  const lines = linesOf(poem);
  const positions = [];
  for (let i = 0; i < lines.length; i++) {
    if (i !== 0 && i % 2 === 0) continue;
    const char = lastChar(lines[i]);
    const r = readingOf(char);
    positions.push({ line: i + 1, char, tone: r ? r.tone : null, level: r ? r.level : null });
  }
  const even = positions.filter((p) => p.line % 2 === 0 && p.level !== null);
  return { form, positions, levelShare: even.length ? even.filter((p) => p.level === '平').length / even.length : null };
}

/**
 * The chance that two line-final characters drawn independently from `poems` (well-formed ones;
 * the even lines' ends) share a rhyme group: Σ_g p_g², p_g the share of those ends in group g
 * (an end without a group counts in the total and matches nothing). The reference a model's
 * rhyme rate is read against.
 * @param {readonly string[]} poems
 */
export function chanceRhyme(poems) {
  checkPoems('chanceRhyme', poems);
  const counts = new Map();
  let n = 0;
  for (const poem of poems) {
    const r = rhyme(poem);
    if (!r) continue;
    for (const e of r.ends) { n++; if (e.group !== null) counts.set(e.group, (counts.get(e.group) ?? 0) + 1); }
  }
  let p2 = 0;
  for (const c of counts.values()) p2 += (c / n) ** 2;
  return n ? p2 : null;
}

// ---- novelty: how much is copied from the training poems ----

const LINE_SPLIT = /[\p{P}\s]+/u;

/**
 * An index of the training text (one poem per line), built once, for novelty(): the set of its
 * poems, the set of its lines (the runs of characters between marks), and for each pair of
 * adjacent characters where it occurs, so that the longest copied substring of a poem costs a few
 * comparisons per character. 3.5 s for the 1.5 M characters of the pretraining text on a busy
 * 2-core machine; two Int32Arrays of the text's length and the two sets.
 * @param {string} text
 */
export function trainingIndex(text) {
  checkText('trainingIndex', 'text', text);
  const poems = new Set();
  const lines = new Set();
  for (const poem of text.split('\n')) {
    if (!poem) continue;
    poems.add(poem);
    for (const l of poem.split(LINE_SPLIT)) if (l) lines.add(l);
  }
  // the text as ids (0 = '\n', so a match never runs across two poems), and every position where
  // two characters follow each other, sorted by that pair (a two-pass counting sort): the
  // positions of a pair (a, b) are a run inside the run of a, found by binary search on b
  const ids = new Map([['\n', 0]]);
  const idOfCode = new Int32Array(0x110000).fill(-1);
  idOfCode[10] = 0;
  const seqAll = new Int32Array(text.length + 1);
  let n = 0;
  for (let u = 0; u < text.length; u++) {
    const cp = text.codePointAt(u);
    if (cp > 0xffff) u++;
    let id = idOfCode[cp];
    if (id < 0) { id = idOfCode[cp] = ids.size; ids.set(String.fromCodePoint(cp), id); }
    seqAll[n++] = id;
  }
  const seq = seqAll.slice(0, n + 1);  // seq[n] = 0: the end stops every match
  const V = ids.size;
  const byFollower = countingSort(seq, V, 1, null, n);
  const positions = countingSort(seq, V, 0, byFollower, n);
  const firstStart = new Int32Array(V + 1);
  for (const pos of positions) firstStart[seq[pos] + 1]++;
  for (let a = 0; a < V; a++) firstStart[a + 1] += firstStart[a];
  return Object.freeze({ poems, lines, ids, seq, V, firstStart, positions });
}

/** Positions i (seq[i] and seq[i+1] both characters) stably sorted by seq[i + offset]. */
function countingSort(seq, V, offset, order, n) {
  const count = new Int32Array(V + 1);
  let total = 0;
  const each = (f) => {
    if (order) { for (let k = 0; k < order.length; k++) f(order[k]); return; }
    for (let i = 0; i + 1 < n; i++) if (seq[i] !== 0 && seq[i + 1] !== 0) f(i);
  };
  each((i) => { count[seq[i + offset] + 1]++; total++; });
  for (let v = 0; v < V; v++) count[v + 1] += count[v];
  const out = new Int32Array(total);
  each((i) => { out[count[seq[i + offset]]++] = i; });
  return out;
}

/** The run [lo, hi) of index.positions where the pair (a, b) starts. */
function pairRun(index, a, b) {
  const { seq, firstStart, positions } = index;
  const bound = (lo, hi, strict) => {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = seq[positions[mid] + 1];
      if (v < b || (strict && v === b)) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  const lo = bound(firstStart[a], firstStart[a + 1], false);
  return [lo, bound(lo, firstStart[a + 1], true)];
}

function checkIndex(op, index) {
  if (!index || !(index.poems instanceof Set) || !(index.seq instanceof Int32Array)) {
    throw new TypeError(`${op}: index must be what trainingIndex(text) returns`);
  }
}

/**
 * The longest substring of `poem` (marks included, counted in code points) that occurs in one
 * training poem: { length, text }.
 */
export function longestCopied(poem, index) {
  checkText('longestCopied', 'poem', poem);
  checkIndex('longestCopied', index);
  const p = [...poem].map((ch) => index.ids.get(ch) ?? -1);
  const { seq, positions } = index;
  let best = 0, bestAt = 0;
  for (let i = 0; i < p.length && best < p.length - i; i++) {
    if (p[i] <= 0) continue;
    if (best < 1) { best = 1; bestAt = i; }
    if (i + 1 >= p.length || p[i + 1] <= 0) continue;
    const [lo, hi] = pairRun(index, p[i], p[i + 1]);
    for (let s = lo; s < hi; s++) {
      const pos = positions[s];
      // only a match that agrees at offset `best` can be longer than `best`
      if (best >= 2 && seq[pos + best] !== p[i + best]) continue;
      let len = 2;
      while (i + len < p.length && seq[pos + len] === p[i + len]) len++;
      if (len > best) { best = len; bestAt = i; if (i + len === p.length) break; }
    }
  }
  return { length: best, text: [...poem].slice(bestAt, bestAt + best).join('') };
}

/**
 * How much of `poems` is copied from the training poems (index: trainingIndex(trainingText)):
 * → { poems, lines, copiedLines, lineShare (copied lines / lines: a line is a run of characters
 *     between marks, found verbatim among the training lines), copiedPoems (poems equal to a
 *     training poem), meanLongest (mean over the poems of longestCopied().length) }
 * @param {readonly string[]} poems
 */
export function novelty(poems, index) {
  checkPoems('novelty', poems);
  checkIndex('novelty', index);
  let lines = 0, copiedLines = 0, copiedPoems = 0, longest = 0;
  for (const poem of poems) {
    if (index.poems.has(poem)) copiedPoems++;
    for (const l of poem.split(LINE_SPLIT)) {
      if (!l) continue;
      lines++;
      if (index.lines.has(l)) copiedLines++;
    }
    longest += longestCopied(poem, index).length;
  }
  return { poems: poems.length, lines, copiedLines, lineShare: lines ? copiedLines / lines : 0, copiedPoems,
    meanLongest: poems.length ? longest / poems.length : 0 };
}

// ---- a batch ----

/**
 * A batch of poems in numbers. options.index (trainingIndex) adds novelty.
 * → { poems, byForm: { wujue: n, …, none: n }, wellFormed (share), rhyme: { all: { poems, lines24,
 *     allEven } (shares among the well-formed), wujue: {…}, … }, level (share of 平 at the even
 *     lines' ends), novelty? }
 * @param {readonly string[]} poems
 * @param {{ index?: ReturnType<typeof trainingIndex> }} [options]
 */
export function summarize(poems, options = {}) {
  checkPoems('summarize', poems);
  const byForm = Object.fromEntries([...FORM_NAMES, 'none'].map((f) => [f, 0]));
  const tally = Object.fromEntries([...FORM_NAMES, 'all'].map((f) => [f, { poems: 0, lines24: 0, allEven: 0 }]));
  let level = 0, levelled = 0;
  for (const poem of poems) {
    const r = rhyme(poem);
    if (!r) { byForm.none++; continue; }
    byForm[r.form]++;
    for (const t of [tally[r.form], tally.all]) {
      t.poems++;
      if (r.lines24) t.lines24++;
      if (r.allEven) t.allEven++;
    }
    for (const p of tones(poem).positions) {
      if (p.line % 2 === 0 && p.level !== null) { levelled++; if (p.level === '平') level++; }
    }
  }
  const share = (a, b) => (b ? a / b : null);
  const rhymeRates = Object.fromEntries(Object.entries(tally).map(([f, t]) =>
    [f, { poems: t.poems, lines24: share(t.lines24, t.poems), allEven: share(t.allEven, t.poems) }]));
  const out = { poems: poems.length, byForm, wellFormed: share(poems.length - byForm.none, poems.length) ?? 0,
    rhyme: rhymeRates, level: share(level, levelled) };
  if (options.index !== undefined) out.novelty = novelty(poems, options.index);
  return out;
}
