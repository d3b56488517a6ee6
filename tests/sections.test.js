// sections.test.js: the section contract. One registry (web/page/sections/index.js) lists the
// sections; every other list of them derives from it or must agree with it: the URL state, the
// widget's `section` attribute, the declarations' QkvLabSection type and the docs' tables.
// Stepped sections turn a snapshot into DOM: they never call the WebAssembly API themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGE_SECTIONS, ALL_SECTIONS, SECTION_IDS, WIDGET_SECTION_IDS, DEFAULT_SECTION, sectionById } from '../web/page/sections/index.js';
import { SECTION_IDS as STATE_SECTION_IDS, PROPERTIES } from '../web/page/shell/state.js';
import { WIDGET_SECTIONS } from '../web/widget/attributes.js';
import { CHOICE_KEYS } from '../web/page/shell/context.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => fs.readFileSync(path.join(ROOT, p), 'utf8');

test('the registry: unique ids, each loads a definition with that id and a create(), the walkthrough first among the widget\'s', async () => {
  const ids = ALL_SECTIONS.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids}`);
  for (const entry of ALL_SECTIONS) {
    assert.equal(typeof entry.id, 'string');
    assert.equal(typeof entry.load, 'function', `${entry.id}: load`);
    const definition = await entry.load();
    assert.equal(definition.id, entry.id, `${entry.id}: the definition it loads`);
    assert.equal(typeof definition.create, 'function', `${entry.id}: create`);
    assert.equal(await entry.load(), definition, `${entry.id}: loaded once`);
    assert.equal(sectionById(entry.id), entry);
  }
  assert.equal(sectionById('nope'), undefined);
  assert.equal(DEFAULT_SECTION, 'walkthrough');
  assert.deepEqual(WIDGET_SECTION_IDS, ['walkthrough', ...SECTION_IDS]);
  assert.deepEqual(SECTION_IDS, PAGE_SECTIONS.map((s) => s.id));
});

test('each entry declares its kind, URL properties and choices without loading; the definition it loads agrees, and the state reads them', async () => {
  const names = PROPERTIES.map((p) => p.name);
  assert.equal(new Set(names).size, names.length, `a URL property declared twice: ${names}`);
  for (const entry of ALL_SECTIONS) {
    assert.ok(['attention', 'data', 'live'].includes(entry.kind), `${entry.id}: kind ${entry.kind}`);
    const definition = await entry.load();
    assert.equal(definition.kind, entry.kind, `${entry.id}: the entry says ${entry.kind}, its definition ${definition.kind}`);
    for (const p of entry.properties) assert.equal(PROPERTIES.find((q) => q.name === p.name), p, `${entry.id}: ${p.name} is in the URL state`);
    for (const key of definition.choices) assert.ok(CHOICE_KEYS.includes(key), `${entry.id}: choice ${key}`);
  }
  // a setting an attention section owns is a choice: the snapshot holds every value of it
  assert.deepEqual([...CHOICE_KEYS].sort(), ['heads', 'kq', 'ped', 'pull', 'qk', 'temp']);
});

test('the URL state and the widget attribute accept exactly the registry\'s ids', () => {
  assert.deepEqual(STATE_SECTION_IDS, SECTION_IDS);
  assert.deepEqual(PROPERTIES.find((p) => p.name === 'section').values, SECTION_IDS);
  assert.deepEqual([...WIDGET_SECTIONS], [...WIDGET_SECTION_IDS]);
});

test('the declarations\' QkvLabSection type is what tools/section-types.mjs writes from the registry, every widget section in it', async () => {
  const { DECLARATIONS, GENERATORS, regenerate } = await import('../tools/section-types.mjs');
  const used = new Set();
  for (const file of DECLARATIONS) {
    const text = read(file);
    const { text: fresh, names } = regenerate(text);
    names.forEach((n) => used.add(n));
    assert.equal(text, fresh, `${file}: a generated part (${names.join(', ')}) is out of date: run node tools/section-types.mjs (./build.sh does)`);
  }
  assert.deepEqual([...used].sort(), Object.keys(GENERATORS).sort(), 'a generator no declaration file uses');
  // what it writes: one string literal per widget section, in the registry's order
  const union = /export type QkvLabSection =([^;]+);/.exec(GENERATORS['widget-sections']());
  assert.deepEqual([...union[1].matchAll(/'([a-z-]+)'/g)].map((m) => m[1]), [...WIDGET_SECTION_IDS]);
});

test('a section added to the registry becomes a value of QkvLabSection (the generator reads the registry, not a list of its own)', async () => {
  const { stringUnion } = await import('../tools/section-types.mjs');
  const ids = [...WIDGET_SECTION_IDS, 'a-new-section', 'another-one'];
  const text = stringUnion('QkvLabSection', ids);
  assert.deepEqual([...text.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]), ids);
  for (const line of text.split('\n')) assert.ok(line.length <= 100, `a line over 100 columns: ${line}`);
  const tool = read('tools/section-types.mjs');
  assert.match(tool, /import \{[^}]*WIDGET_SECTION_IDS[^}]*\} from '\.\.\/web\/page\/sections\/index\.js'/);
});

test('the docs\' section notes cover exactly the registry\'s sections (tools/docs-tables.mjs writes the tables from both)', async () => {
  // docs/page.md's table lists SECTION_IDS in story order, each with its note; docs/widget.md's
  // `section` row lists WIDGET_SECTION_IDS (tests/docs.test.js keeps both written as the tool writes them)
  const notes = JSON.parse(read('docs/data/sections.json'));
  assert.deepEqual(Object.keys(notes).sort(), [...SECTION_IDS].sort());
  const { GENERATORS } = await import('../tools/docs-tables.mjs');
  const rows = [...GENERATORS.sections().matchAll(/^\| (\d+) \| `([a-z]+)` \|/gm)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(rows, SECTION_IDS.map((id, i) => [i + 1, id]), 'the demo page table, numbered in story order');
  const attr = /^\| `section` \| (.+) \| `walkthrough` \|$/m.exec(GENERATORS['widget-attributes']());
  assert.ok(attr, 'the widget attribute table has a section row');
  assert.deepEqual([...attr[1].matchAll(/`([a-z]+)`/g)].map((m) => m[1]), WIDGET_SECTION_IDS);
});

test('sections never call the WebAssembly API or a model: they draw the snapshot or the training run', () => {
  const dir = path.join(ROOT, 'web/page/sections');
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js') && f !== 'index.js');
  const made = files.filter((f) => /defineSection\(/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  assert.deepEqual(made.map((f) => f.replace(/\.js$/, '')).sort(), ALL_SECTIONS.map((s) => s.id).sort(),
    'every section, the training run included, is made by defineSection (one file per section)');
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(text, /(?<![\w-])qkv(?![\w-])|\.(selfAttention|multiHeadAttention|positionalEncoding|attend|matmul|softmaxRows|transpose|rng|createModel)\(/,
      `${file} computes: numbers belong in the snapshot (snapshot-derived.js) or the training run (training/)`);
    assert.doesNotMatch(text, /\.model\b/, `${file} reaches into a model: the training run (training/run.js) computes once per step`);
  }
});

/**
 * Sections that still take a live process's steps themselves, and why. Empty this list as they
 * move onto the shell's ticker (shell/ticker.js); never add to it without a reason.
 */
const STEPS_THEMSELVES = new Map([]);

test('sections never ask for animation frames or take a live process\'s steps: the shell\'s ticker and frame scheduler do', () => {
  const dir = path.join(ROOT, 'web/page/sections');
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    assert.doesNotMatch(text, /\b(requestAnimationFrame|cancelAnimationFrame)\b/, `${file} asks for frames: use shell/frames.js (createFrameScheduler) or the ticker`);
    const allowed = STEPS_THEMSELVES.get(file);
    const calls = [...text.matchAll(/(\w+)\.(advance|step|stepOn|train|evaluate)\(/g)].filter((m) => m[1] !== 'ticker' && !(allowed && allowed.test(m[0])));
    assert.deepEqual(calls.map((m) => m[0]), [], `${file} steps a live process itself: play, pause and step it through shell/ticker.js`);
  }
  for (const [file, call] of STEPS_THEMSELVES) assert.match(fs.readFileSync(path.join(dir, file), 'utf8'), call, `${file} no longer needs its exception: remove it`);
});

test('the pieces sections draw with never call the WebAssembly API either (numbers come from the snapshot)', () => {
  // dot-geometry.js gets its numbers through ctx.measureDot (snapshot-derived.js's dotGeometry)
  const views = [...fs.readdirSync(path.join(ROOT, 'web/page/views'), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => `views/${f}`),
    'shell/navigation.js', 'shell/section-shell.js'];
  assert.ok(views.includes('views/dot-geometry.js'));
  for (const file of views) {
    const text = read(`web/page/${file}`).replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(text, /(?<![\w-])qkv(?![\w-])|\.(selfAttention|multiHeadAttention|positionalEncoding|attend|matmul|softmaxRows|transpose|rng|createModel)\(/,
      `${file} computes: numbers belong in the snapshot (snapshot-derived.js)`);
  }
  // code-lines.js writes qkv.* calls as text for the reader, so it is checked by what it imports:
  // constants only, no function that computes
  const imports = [...read('web/page/models/code-lines.js').matchAll(/^import \{([^}]*)\} from '([^']+)'/gm)];
  assert.ok(imports.length > 0);
  for (const [, names] of imports) {
    for (const name of names.split(',').map((n) => n.trim()).filter(Boolean)) assert.match(name, /^[A-Z][A-Z0-9_]*$/, `code-lines.js imports ${name}`);
  }
});

test('web/page is folders by role, each explained in docs/data/layout.json (docs/architecture.md\'s layout), with no file loose at its top', () => {
  const dir = path.join(ROOT, 'web/page');
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  assert.deepEqual(entries.filter((e) => !e.isDirectory()).map((e) => e.name), [], 'files belong in a folder by role');
  const notes = JSON.parse(read('docs/data/layout.json'));
  assert.deepEqual(Object.keys(notes).sort(), entries.filter((e) => e.isDirectory()).map((e) => e.name).sort(),
    'docs/data/layout.json explains every folder of web/page, and only those');
});

test('no section keeps a copy of a setting: settings reach stepped sections in the snapshot only', () => {
  // settings flow URL / attributes → state → snapshot (snap.choices, context.js) → sections:
  // a section that read the state itself would need its host to rebuild it when a setting changes
  const dir = path.join(ROOT, 'web/page/sections');
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(text, /\b(let|var)\s+\w+\s*=\s*[\w.]*state\.get\(/, `${file} keeps a copy of a setting`);
    // (the training section, shell: false, shows and edits the training run's own settings, which
    // its store reads from the state: it may read them too, but keeps no copy)
    if (/defineSection\(/.test(text) && !/shell: false/.test(text)) {
      assert.doesNotMatch(text, /state\.(get|onChange)\(/, `${file} reads the state: its settings belong in frame.snap`);
    }
  }
  // and the widget host hands every setting attribute to its context the same way
  const element = read('web/widget/element.js').replace(/\/\/.*$/gm, '');
  assert.match(element, /for \(const key of SETTING_ATTRIBUTES\)/);
  assert.doesNotMatch(element, /rebuild/i, 'the widget rebuilds no section for a setting');
});

test('the zh and en tables live in x.strings.js beside the module x.js that shows them, as data', () => {
  const dir = path.join(ROOT, 'web/page');
  const files = fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js'));
  const source = new Map(files.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));   // each file read once
  const tables = files.filter((f) => f.endsWith('.strings.js'));
  for (const file of files.filter((f) => !f.endsWith('.strings.js'))) {
    const text = source.get(file).replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(text, /addStrings\(\{/, `${file} holds a string table: move it to ${file.replace(/\.js$/, '.strings.js')}`);
  }
  assert.ok(tables.length >= 40, `${tables.length} tables found`);
  for (const file of tables) {
    const text = source.get(file);
    assert.match(text, /export const \w+_STRINGS = /, `${file} exports a table`);
    assert.doesNotMatch(text, /^import /m, `${file} is data only`);
    // beside the module that shows it; a table that several modules of one folder show (the
    // exercises of the GPT sections, of the training sections) sits in that folder
    const folder = path.dirname(file);
    const users = files.filter((f) => f !== file && path.dirname(f) === folder && source.get(f).includes(`'./${path.basename(file)}'`));
    const owner = file.replace(/\.strings\.js$/, '.js');
    assert.ok(files.includes(owner) ? users.includes(owner) : users.length >= 2,
      `${file}: beside ${owner}, which shows it (or in the folder of the modules that share it)`);
  }
});
