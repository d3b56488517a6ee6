// The npm package: `npm pack` ships exactly what a user needs (the API, its declarations, the
// built WASM glue, the widget as a classic script and as an ES module, its declarations, the
// single-file page for iframe mode, the pretrained poet and the poetry metrics with their data,
// README, licence) and nothing else (no tests, no C sources, no page sources, no tools). Then the
// packed tarball is installed into a scratch project: in Node, `import 'qkv-lab'` computes the
// article's numbers and loadPretrained() gives the shipped poet, CommonJS loads it, every export
// path resolves to what docs/widget.md says, and the declarations type-check. What bundlers make of it:
// tests/package-consumer.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'esbuild';
import { ROOT, npm, packAndInstall, typecheck } from './package-helpers.js';
import { ADDONS } from '../web/widget/addon.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

const EXPECTED = [
  'LICENSE',
  'README.md',
  'CHANGELOG.md',
  // the documentation the README links to
  ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...fs.readdirSync(path.join(ROOT, 'docs/images')).filter((f) => f.endsWith('.png')).map((f) => `docs/images/${f}`),
  'package.json',
  'web/corpus.js',
  'web/corpus.d.ts',
  'web/data/quatrains.js',
  'web/data/quatrains.d.ts',
  'web/data/quatrain-form.js',
  'web/data/quatrain-form.d.ts',
  'web/inflate.js',
  'web/heap.js',
  'web/gpt.js',
  'web/gpt-file.js',
  'web/transformer-block.js',
  'web/finetune.js',
  'web/engine-sources.js',
  'web/poem-forms.js',
  'web/poem-forms.d.ts',
  'web/gpt-defaults.js',
  'web/gpt-defaults.d.ts',
  'web/dist/qkv-core.js',
  'web/dist/qkv-wasm.js',
  'web/dist/qkv-relaxed.js',
  'web/dist/qkv-gpt.js',
  'web/dist/qkv-pretrained.js',
  'web/dist/qkv-scalar.js',
  'web/dist/qkv-lab-widget.js',
  'web/dist/qkv-lab-widget-training.js',
  'web/dist/qkv-lab-widget-gpt.js',
  'web/dist/qkv-lab-widget-finetune.js',
  'web/dist/qkv-lab-widget-pretrained.js',
  'web/dist/qkv-lab-widget-pretrained-section.js',
  'web/dist/qkv-lab-widget.mjs',
  // the ES-module widget's chunks (the training sections, and what it shares with them): hashed names
  ...fs.readdirSync(path.join(ROOT, 'web/dist')).filter((f) => /^qkv-lab-widget-.+\.mjs$/.test(f)).map((f) => `web/dist/${f}`),
  'web/dist/qkv-lab.html',
  'web/matrix.js',
  'web/model.js',
  'web/pca.js',
  'web/qkv-lab.d.ts',
  'web/qkv-lab.js',
  'web/loader.js',
  'web/widget/qkv-lab-widget.d.ts',
  // the poetry metrics and the data they and the pretrained poet's report read
  'web/poetry/metrics.js',
  'web/poetry/metrics.d.ts',
  'web/poetry/ngram.js',
  'web/poetry/ngram.d.ts',
  'web/data/poems-finetune.js',
  'web/data/poems-finetune.d.ts',
  'web/data/poems-val.js',
  'web/data/poems-val.d.ts',
  'web/data/rhyme-groups.js',
  'web/data/rhyme-groups.d.ts',
  ...fs.readdirSync(path.join(ROOT, 'web/data')).filter((f) => /^pretrained-.+\.json$/.test(f)).map((f) => `web/data/${f}`),
];

// The widget's limit: under 120 KiB gzipped, WASM included (a target in docs/performance.md, "The
// targets"; docs/widget.md, "Size", has the breakdown). The training sections and Chart.js live in
// the add-on, fetched only by a post that shows one; the core is what every post loads.
const WIDGET_GZIP_BUDGET = 120 * 1024;
// The add-on (Chart.js ≈ 42 KiB, the two training sections, heat maps and panels) measured
// 82.0 KiB gzipped when it was split off; this guard catches growth, it is not a target. It was
// 95 KiB until the counting card (94.7 KiB before it, 100.9 KiB after: its zh and en text,
// 3.0 KiB, Chinese escaped as \uXXXX in a classic script; the two counting baselines and the
// measures, computed in the page; the card and the analogy's A + C alone): the guard follows
// the bytes the card added and still catches growth beyond them. Then 106 KiB: the scatter's
// labels that point only at their own dot (the placement search, shared labels, the hover list)
// and its large-corpus work (the heat map's first 200 rows, chunked word lists, one draw a frame)
// came to 104.4 KiB, measured after the scripts became UTF-8 (which took 0.6 KiB off).
// Then 110 KiB: the training run's store (training/store.js, run.js, seed-spread.js) moved here
// from the core, which only the training sections use (core 120.4 → 116.6 KiB, add-on 105.6 →
// 109.2 KiB: the bytes moved, the two together shrank); the shell's ticker and frame scheduler
// came with the training section's loop. Then 117 KiB: the trainable model (web/model.js, which
// only the training sections create) moved here from the core, which leaves it out and gets it
// from this add-on (engine-sources.js, provideModel): core 120.2 → 113.9 KiB, add-on 110.2 →
// 116.4 KiB, a post with a training section loads the same bytes, every other post 6 KiB fewer.
const ADDON_GZIP_BUDGET = 117 * 1024;
/**
 * The GPT add-on: its sections with the quatrains, and the training worker's script.
 * 231.7 KiB when it was built; since the GPT engine (18.3 KiB) left the script every post loads,
 * the add-on carries it for its own sections (263.5 KiB). Since the worker gets the page's
 * compiled WebAssembly by postMessage and carries only the API's JavaScript, 237.3 KiB: the guard
 * catches growth beyond that.
 */
// 223.5 KiB since the scripts are UTF-8 (the quatrains' Chinese unescaped); 230.1 KiB with
// form-locked generation, per-poem evaluation and reading int8 (version 2) GPT files, which the
// engine's JavaScript carries into the add-on and its worker (the guard moved 228 → 232 for them);
// 238.5 KiB with LoRA in the GPT engine's WebAssembly (the add-on carries the engine) and the
// generation section's drawn-text controls and sampling columns (232 → 240); 270.5 KiB with the
// generation section reading every poem with the poetry metrics (their rhyme table alone is
// 16.1 KiB gzipped), its form, acrostic and model controls, and loading a LoRA adapter file
// (web/finetune.js, 7.8 KiB gzipped as source) (240 → 274); 274.1 KiB with Model.step({ deadline })
// (a step a few sentences at a time) in the API's JavaScript its worker carries (274 → 275);
// 275.6 KiB with the generation section's check of the poet's lines against its whole training
// text (the search, its fetch and decoding, the notes in zh and en) and the GPT engine's file
// format and block in modules of their own (275 → 276.5); 278.4 KiB since the GPT kernels (GELU's
// loops, AdamW, the output layer's softmax: 2.5 KiB gzipped for SIMD128, 1.3 for scalar) left the
// kernels that the API's first load and the classic widget carry for a module of their own that
// travels with the engine (the classic widget 117.3 → 115.0 KiB: the bytes moved) (276.5 → 279);
// 279.1 KiB with qkv_gpt_create_inference, a loaded GPT without training state (the pretrained
// poet: 43 MB less of the heap, loadPretrained() 508 → 263 ms, medians) (279 → 279.5);
// 279.6 KiB when "Measure now" stopped failing on the poet (it times what one uncached call may
// generate, and says an error in its note), the loss chart kept its labels' size on a phone and its
// legend drew the baselines dashed as the chart does, and an untrained head's even attention was
// said as such (+572 bytes) (279.5 → 280)
const GPT_ADDON_GZIP_BUDGET = 280 * 1024;

// The modules of the API: what the ES-module widget imports instead of bundling, and what
// package.json's "sideEffects" must leave out (so that bundlers drop what an app does not use).
const API_MODULES = ['web/corpus.js', 'web/data/quatrain-form.js', 'web/data/quatrains.js', 'web/poem-forms.js', 'web/finetune.js', 'web/engine-sources.js', 'web/dist/qkv-core.js', 'web/dist/qkv-gpt.js', 'web/dist/qkv-pretrained.js', 'web/dist/qkv-relaxed.js', 'web/dist/qkv-scalar.js', 'web/dist/qkv-wasm.js',
  'web/gpt.js', 'web/gpt-file.js', 'web/transformer-block.js', 'web/gpt-defaults.js', 'web/heap.js', 'web/inflate.js', 'web/matrix.js', 'web/model.js', 'web/pca.js', 'web/qkv-lab.js', 'web/loader.js',
  'web/poetry/metrics.js', 'web/poetry/ngram.js', 'web/data/poems-finetune.js', 'web/data/poems-val.js', 'web/data/rhyme-groups.js'];
const WIDGET_BUILDS = EXPECTED.filter((f) => /^web\/dist\/qkv-lab-widget/.test(f));

let pack;
before(() => { pack = packAndInstall(); });
after(() => { pack?.remove(); });

test('npm pack --dry-run lists exactly the files a user needs', () => {
  const [report] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts']));
  const files = report.files.map((f) => f.path).sort();
  assert.deepEqual(files, [...EXPECTED].sort());
  for (const f of files) assert.ok(!/^(tests|wasm|tools|web\/page|\.ci)\//.test(f), `${f} should not ship`);
});

test('package.json: a semantic version, and every export and type points at a shipped file', () => {
  assert.match(pkg.version, /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/);
  assert.deepEqual(Object.keys(pkg.exports).sort(),
    ['.', './corpus', './data/*.js', './data/*.json', './data/quatrain-form', './data/quatrains', './gpt-defaults', './package.json',
      './poem-forms', './poetry/metrics', './poetry/ngram', './qkv-lab-widget-finetune.js', './qkv-lab-widget-gpt.js',
      './qkv-lab-widget-pretrained-section.js', './qkv-lab-widget-pretrained.js', './qkv-lab-widget-training.js', './qkv-lab-widget.js',
      './qkv-lab.html', './widget']);
  const targets = [pkg.types, ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)))];
  for (const target of targets) {
    const rel = target.replace(/^\.\//, '');
    if (rel.includes('*')) {
      // a subpath pattern: it matches shipped files (and each .js its .d.ts)
      const re = new RegExp(`^${rel.replace(/[.]/g, '\\.').replace('*', '[^/]+')}$`);
      assert.ok(EXPECTED.some((f) => re.test(f)), `${target} matches no file in the package`);
      continue;
    }
    assert.ok(EXPECTED.includes(rel), `${target} is not in the package`);
    assert.ok(fs.existsSync(path.join(ROOT, rel)), `${target} does not exist (run ./build.sh)`);
  }
  for (const f of EXPECTED.filter((e) => /^web\/data\/.+\.js$/.test(e))) {
    assert.ok(EXPECTED.includes(f.replace(/\.js$/, '.d.ts')), `${f} is exported as qkv-lab/data/*.js with types: it needs its .d.ts`);
  }
  // "import" first: bundlers and Node's import get the ES module that shares the API; every
  // other resolver (require) the classic script. "types" first of all, as TypeScript wants.
  assert.deepEqual(Object.entries(pkg.exports['./widget']), [
    ['types', './web/widget/qkv-lab-widget.d.ts'],
    ['import', './web/dist/qkv-lab-widget.mjs'],
    ['default', './web/dist/qkv-lab-widget.js'],
  ]);
  assert.equal(pkg.exports['./qkv-lab-widget.js'].default, './web/dist/qkv-lab-widget.js');
  assert.equal(pkg.exports['./qkv-lab-widget-training.js'], './web/dist/qkv-lab-widget-training.js');
  assert.equal(pkg.exports['./qkv-lab-widget-gpt.js'], './web/dist/qkv-lab-widget-gpt.js');
  assert.equal(pkg.exports['./qkv-lab.html'], './web/dist/qkv-lab.html');
});

test('package.json "sideEffects": the widget builds (scripts, ES module and its chunks) have side effects, the API modules none', () => {
  const matchers = pkg.sideEffects.map(globToRegExp);
  const hasSideEffects = (file) => matchers.some((re) => re.test(file));
  for (const file of WIDGET_BUILDS) assert.ok(hasSideEffects(file), `${file} defines <qkv-lab>: it must be listed`);
  for (const file of API_MODULES) assert.ok(!hasSideEffects(file), `${file} must not be listed (tree-shaking)`);
  // every shipped module is one or the other
  assert.deepEqual(EXPECTED.filter((f) => /\.m?js$/.test(f)).sort(), [...API_MODULES, ...WIDGET_BUILDS].sort());
  // and every glob names something the package ships: a glob for files that are not in the
  // tarball (the page's and the widget's sources) only misleads a reader of package.json
  for (const [i, re] of matchers.entries()) {
    assert.ok(EXPECTED.some((f) => re.test(f)), `"sideEffects" lists ${pkg.sideEffects[i]}, which matches no shipped file`);
  }
});

// Rollup reads every comment that holds a pure annotation (@__PURE__ or #__PURE__) and warns
// about each one it cannot attach to a call: on every build of an app that imports the package.
// An annotation is only meaningful as a block comment right before a call or a \`new\`.
test('pure annotations in the shipped modules are block comments right before a call, as Rollup reads them', () => {
  const annotation = /[@#]__(PURE|NO_SIDE_EFFECTS)__/g;
  const misplaced = [];
  for (const rel of EXPECTED.filter((f) => /\.m?js$/.test(f))) {
    const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    for (const m of text.matchAll(annotation)) {
      const before = text.slice(Math.max(0, m.index - 3), m.index);
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 200);
      const ok = /\/\* ?$/.test(before) && (m[1] === 'PURE'
        ? /^ ?\*\/\s*(new\s+)?(\(|[\w$.]+\s*\()/.test(after)
        : /^ ?\*\/\s*(export\s+)?(function|const|let|var)\b/.test(after));
      if (!ok) {
        const line = text.slice(0, m.index).split('\n').length;
        misplaced.push(`${rel}:${line}: ${text.slice(text.lastIndexOf('\n', m.index) + 1, text.indexOf('\n', m.index)).trim().slice(0, 100)}`);
      }
    }
  }
  assert.deepEqual(misplaced, [], 'annotations Rollup cannot interpret (it warns and drops them)');
});

// A sideEffects glob as webpack, Rollup and esbuild read it: ** any path, * one path segment.
function globToRegExp(glob) {
  const escaped = glob.replace(/^\.\//, '').split('**').map((part) =>
    part.split('*').map((s) => s.replace(/[.+?^$()|[\]{}\\]/g, '\\$&')).join('[^/]*'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

test('the ES-module widget and its chunks import the package\'s own API modules and each other, by relative path, and nothing else', async () => {
  const esmFiles = WIDGET_BUILDS.filter((f) => f.endsWith('.mjs'));
  assert.ok(esmFiles.length >= 2, `the training sections are a chunk of their own: ${esmFiles}`);
  const imported = new Set();
  for (const rel of esmFiles) {
    const file = path.join(ROOT, rel);
    const esm = fs.readFileSync(file, 'utf8');
    // esbuild parses the module and reports every import it finds (static and dynamic)
    const specifiers = [];
    await build({ entryPoints: [file], bundle: true, write: false, logLevel: 'silent', plugins: [{
      name: 'collect-imports',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'entry-point') return undefined;
          specifiers.push(args.path);
          return { path: args.path, external: true };
        });
      },
    }] });
    for (const s of specifiers) {
      assert.match(s, /^\.\.?\//, `${rel}: ${s}: a bare import would need a dependency the package does not declare`);
      const target = path.posix.join('web/dist', s);
      assert.ok(API_MODULES.includes(target) || esmFiles.includes(target), `${rel} imports ${target}: not one of the API's modules or the widget's chunks`);
      imported.add(target);
    }
    assert.ok(!/AGFzbQ/.test(esm), `${rel} must not carry a WASM module of its own`);
    assert.ok(!/\bimport\.meta\b/.test(esm), `${rel}: no import.meta`);
  }
  assert.ok(imported.has('web/qkv-lab.js'), 'the widget must share the API module');
});

test(`the classic widget: the script every post loads is under ${WIDGET_GZIP_BUDGET / 1024} KiB gzipped, the training add-on under ${ADDON_GZIP_BUDGET / 1024} KiB`, () => {
  const sizes = {};
  for (const [name, budget] of [['qkv-lab-widget.js', WIDGET_GZIP_BUDGET], ['qkv-lab-widget-training.js', ADDON_GZIP_BUDGET]]) {
    const script = fs.readFileSync(path.join(ROOT, 'web/dist', name));
    const gzipped = zlib.gzipSync(script, { level: 9 }).length;
    sizes[name] = gzipped;
    console.log(`${name}: ${(script.length / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    assert.ok(gzipped < budget, `${name}: ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    // classic scripts: no import/export statements left, no eval (strict CSP)
    const text = script.toString('utf8');
    assert.ok(!/^\s*(import|export)\s/m.test(text), `${name} must be a classic script`);
    assert.ok(!/\beval\(|new Function\(/.test(text), `${name}: no eval (strict CSP)`);
  }
  const total = sizes['qkv-lab-widget.js'] + sizes['qkv-lab-widget-training.js'];
  console.log(`a post with a training section loads both: ${(total / 1024).toFixed(1)} KiB gzipped`);
  // the add-on carries no WASM and none of the core's shared modules' code: only their names
  const addon = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget-training.js'), 'utf8');
  assert.ok(!/AGFzbQ|H4sI/.test(addon), 'the add-on must not carry a WASM module');
  assert.match(addon, /modules\["web\/page\/shell\/i18n\.js"\]/, 'the add-on uses the core\'s string table');
});

// The sizes docs/data/sizes.json states for the widget's scripts (docs/widget.md and the README
// list them, from it): this build's, in whole KiB raw and to 0.1 KiB gzipped, within 2 % (update
// the file when they move). Every classic script the build writes for the widget is there: the
// core and each add-on it may fetch (ADDONS), so the list a blogger copies is whole.
test('docs/data/sizes.json: every widget script and the single-file page, with the sizes it states', () => {
  const { widgetScripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/data/sizes.json'), 'utf8'));
  const addons = Object.fromEntries(Object.entries(ADDONS).map(([name, { file }]) => [name, file]));
  const files = { core: 'qkv-lab-widget.js', ...addons, page: 'qkv-lab.html' };
  assert.deepEqual(Object.keys(widgetScripts).sort(), Object.keys(files).sort());
  const built = fs.readdirSync(path.join(ROOT, 'web/dist')).filter((f) => /^qkv-lab-widget.*\.js$/.test(f));
  assert.deepEqual(built.sort(), Object.values(files).filter((f) => f.endsWith('.js')).sort(), 'the widget scripts the build writes');
  const near = (said, kib, what) => assert.ok(Math.abs(said - kib) <= 0.02 * kib, `${what}: docs/data/sizes.json says ${said} KiB, measured ${kib.toFixed(1)} KiB`);
  for (const [name, file] of Object.entries(files)) {
    const bytes = fs.readFileSync(path.join(ROOT, 'web/dist', file));
    near(widgetScripts[name].raw, bytes.length / 1024, file);
    if (widgetScripts[name].gzip !== undefined) near(widgetScripts[name].gzip, zlib.gzipSync(bytes, { level: 9 }).length / 1024, `${file}, gzip -9`);
  }
});

test('the GPT add-on: a classic script, fetched only for a GPT section, that shares the core\'s modules and carries the training worker', () => {
  // the worker runs in its own thread, so it cannot share the page's WASM instance: its script
  // (the API's JavaScript) travels inside the add-on as text, and the page sends it its compiled
  // modules and the quatrains (141 KiB gzipped of the add-on)
  const script = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget-gpt.js'));
  const gzipped = zlib.gzipSync(script, { level: 9 }).length;
  console.log(`qkv-lab-widget-gpt.js: ${(script.length / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  assert.ok(gzipped < GPT_ADDON_GZIP_BUDGET, `qkv-lab-widget-gpt.js: ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  const text = script.toString('utf8');
  assert.ok(!/^\s*(import|export)\s/m.test(text), 'the GPT add-on must be a classic script');
  assert.ok(!/\beval\(|new Function\(/.test(text), 'the GPT add-on: no eval (strict CSP)');
  assert.match(text, /modules\["web\/page\/shell\/i18n\.js"\]/, 'the GPT add-on uses the core\'s string table');
  assert.match(text, /addons\["gpt"\]/, 'it delivers to the core\'s gpt slot');
  const core = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget.js'), 'utf8');
  // the first poem's first characters, as they are or as esbuild escapes them (\u56DB…)
  const first = '四时运灰琯';
  const escaped = [...first].map((c) => `\\u${c.codePointAt(0).toString(16).toUpperCase()}`).join('');
  const holds = (t) => t.includes(first) || t.includes(escaped);
  assert.ok(!holds(core), 'the quatrains stay out of the core');
  assert.ok(holds(text), 'the quatrains travel in the GPT add-on');
  // three WebAssembly streams: the GPT engine's and its kernels' of the two builds the page runs
  // (SIMD128, scalar; not relaxed SIMD), for the page's thread (the core brings the rest); the
  // worker's copy of the API has the streams' sizes and names but not their bytes
  const streams = text.match(/deflated:\\?"/g) || [];
  assert.equal(streams.length, 3, 'WebAssembly streams in the GPT add-on');
  assert.match(text, /simd128:\{size:\d+,deflated:"/, 'the SIMD128 GPT kernels');
  assert.match(text, /scalar:\{size:\d+,deflated:"/, 'the scalar GPT kernels');
  assert.doesNotMatch(text, /"relaxed-simd":\{size:/, 'no relaxed-SIMD GPT kernels (the page runs SIMD128)');
  assert.equal((text.match(/deflated:null/g) || []).length, 5, 'the worker\'s dist/qkv-wasm.js, qkv-gpt.js (the engine, its two kernel builds), qkv-scalar.js, without their bytes');
});

// the pretrained section's add-on: its code and the measured data it reads (the n-gram baselines' file most of it)
const PRETRAINED_SECTION_GZIP_BUDGET = 40 * 1024;
test('the pretrained section\'s add-on: a classic script under its budget that shares the core\'s modules and leaves the weights to qkv.loadPretrained()', () => {
  const script = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget-pretrained-section.js'));
  const gzipped = zlib.gzipSync(script, { level: 9 }).length;
  assert.ok(gzipped < PRETRAINED_SECTION_GZIP_BUDGET, `qkv-lab-widget-pretrained-section.js: ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  const text = script.toString('utf8');
  assert.ok(!/^\s*(import|export)\s/m.test(text), 'a classic script');
  assert.match(text, /modules\["web\/page\/shell\/i18n\.js"\]/, 'it uses the core\'s string table');
  assert.match(text, /addons\["pretrained-section"\]/, 'it delivers to its own slot');
  assert.ok(!/deflated:\\?"/.test(text), 'no WebAssembly and no weights of its own');
  assert.match(fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget.js'), 'utf8'), /qkv-lab-widget-pretrained-section\.js/, 'the core knows its file');
});

// The size budget of the shipped pretrained model: at most 2 MiB gzipped (docs/pretrained.md, "Sizes").
const PRETRAINED_GZIP_BUDGET = 2 * 1024 * 1024;

test('the pretrained poet: a module of its own, under 2 MiB gzipped, that only loadPretrained() imports; the classic widget fetches it in an add-on, and no other script carries it', () => {
  const module = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-pretrained.js'), 'utf8');
  const stream = /deflated: "([^"]{64})/.exec(module)?.[1];
  assert.ok(stream, 'dist/qkv-pretrained.js holds no model: build.sh found no web/pretrained/tang-poet.qkvgpt');
  const gzipped = zlib.gzipSync(module, { level: 9 }).length;
  console.log(`qkv-pretrained.js: ${(module.length / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  assert.ok(gzipped <= PRETRAINED_GZIP_BUDGET, `dist/qkv-pretrained.js: ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  // imported in one place, dynamically: loader.js's chunk('pretrained'), for qkv.loadPretrained()
  for (const rel of API_MODULES.filter((f) => f !== 'web/dist/qkv-pretrained.js')) {
    const imports = fs.readFileSync(path.join(ROOT, rel), 'utf8').match(/\bimport\s*\(?\s*['"][^'"]*qkv-pretrained\.js['"]|from\s*['"][^'"]*qkv-pretrained\.js['"]/g) || [];
    assert.deepEqual(imports, rel === 'web/loader.js' ? ["import('./dist/qkv-pretrained.js'"] : [], rel);
  }
  // the model's stream is in its own module and the classic widget's add-on, nowhere else
  for (const rel of EXPECTED.filter((f) => /^web\/dist\/.+\.(m?js|html)$/.test(f))) {
    const holds = fs.readFileSync(path.join(ROOT, rel), 'utf8').includes(stream);
    assert.equal(holds, rel === 'web/dist/qkv-pretrained.js' || rel === 'web/dist/qkv-lab-widget-pretrained.js', `${rel} ${holds ? 'carries' : 'lacks'} the model`);
  }
  // the add-on: a classic script that delivers to the core's slot, with the GPT engine the core leaves out
  const addon = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget-pretrained.js'), 'utf8');
  assert.ok(!/^\s*(import|export)\s/m.test(addon), 'the pretrained add-on must be a classic script');
  assert.ok(!/\beval\(|new Function\(/.test(addon), 'the pretrained add-on: no eval (strict CSP)');
  assert.match(addon, /addons\["pretrained"\]/, 'it delivers to the core\'s pretrained slot');
  const engine = /deflated: "([^"]{64})/.exec(fs.readFileSync(path.join(ROOT, 'web/dist/qkv-gpt.js'), 'utf8'))[1];
  assert.ok(addon.includes(engine), 'the add-on carries the GPT engine');
  assert.match(fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget.js'), 'utf8'), /qkv-lab-widget-pretrained\.js/, 'the core knows the add-on\'s file');
});

test('installed from the tarball: the API computes the article\'s numbers; every export path resolves', () => {
  const { app } = pack;
  fs.writeFileSync(path.join(app, 'main.js'), `
    import { load } from 'qkv-lab';
    import { createRequire } from 'node:module';
    const qkv = await load({ model: true });
    const rng = qkv.rng(42);
    const [Wq, Wk, Wv] = [rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3)];
    const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
    const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
    const model = qkv.createModel({ seed: 1 });
    model.dispose();
    // the pretrained poet from the package's own chunk, and what measures its poems
    const poet = await qkv.loadPretrained();
    const pretrained = { layers: poet.layers, heads: poet.heads, dim: poet.dim, context: poet.context, vocab: poet.vocab.length,
      wrote: poet.generate('', { seed: 1, temperature: 0.8 }).text.length > 0 };
    poet.dispose();
    const { formOf } = await import('qkv-lab/poetry/metrics');
    const { createNgram } = await import('qkv-lab/poetry/ngram');
    const { POEMS_VAL } = await import('qkv-lab/data/poems-val.js');
    const { FINETUNE_SETS } = await import('qkv-lab/data/poems-finetune.js');
    const { default: baselines } = await import('qkv-lab/data/pretrained-baselines.json', { with: { type: 'json' } });
    const firstWujue = POEMS_VAL.wujue.split('\\n')[0];
    const poetry = { form: formOf(firstWujue), ngram: createNgram('unigram', FINETUNE_SETS.poet.train).kind, baselines: 'best' in baselines };
    await import('qkv-lab/widget');   // no DOM here: defines nothing, throws nothing
    const require = createRequire(import.meta.url);
    const resolved = {};
    for (const spec of ['qkv-lab', 'qkv-lab/widget', 'qkv-lab/qkv-lab-widget.js', 'qkv-lab/qkv-lab.html', 'qkv-lab/package.json',
      'qkv-lab/qkv-lab-widget-pretrained.js', 'qkv-lab/poetry/metrics', 'qkv-lab/data/rhyme-groups.js', 'qkv-lab/data/pretrained-baselines.json']) {
      resolved[spec] = { import: import.meta.resolve(spec), require: require.resolve(spec) };
    }
    console.log(JSON.stringify({ row: weights.row(0).map((w) => w.toFixed(3)), resolved, pretrained, poetry,
      customElements: typeof customElements, QkvLab: typeof globalThis.QkvLab }));
  `);
  const result = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(result.row, ['0.313', '0.337', '0.350']);
  assert.equal(result.QkvLab, 'undefined');
  const at = (spec, how) => path.relative(pack.installed, result.resolved[spec][how].replace(/^file:\/\//, ''));
  assert.equal(at('qkv-lab', 'import'), 'web/qkv-lab.js');
  assert.equal(at('qkv-lab/widget', 'import'), 'web/dist/qkv-lab-widget.mjs');
  assert.equal(at('qkv-lab/widget', 'require'), 'web/dist/qkv-lab-widget.js');
  assert.equal(at('qkv-lab/qkv-lab-widget.js', 'import'), 'web/dist/qkv-lab-widget.js');
  assert.equal(at('qkv-lab/qkv-lab.html', 'require'), 'web/dist/qkv-lab.html');
  assert.equal(at('qkv-lab/package.json', 'import'), 'package.json');
  assert.equal(at('qkv-lab/qkv-lab-widget-pretrained.js', 'import'), 'web/dist/qkv-lab-widget-pretrained.js');
  assert.equal(at('qkv-lab/poetry/metrics', 'require'), 'web/poetry/metrics.js');
  assert.equal(at('qkv-lab/data/rhyme-groups.js', 'import'), 'web/data/rhyme-groups.js');
  assert.equal(at('qkv-lab/data/pretrained-baselines.json', 'import'), 'web/data/pretrained-baselines.json');
  // the shipped shape (tests/pretrained-load.test.js, docs/pretrained.md)
  assert.deepEqual(result.pretrained, { layers: 4, heads: 4, dim: 128, context: 72, vocab: 6509, wrote: true });
  assert.deepEqual(result.poetry, { form: 'wujue', ngram: 'unigram', baselines: true });
});

// The data the docs name as importable: the corpus and its check, the training defaults, the
// GPT's limits and defaults, the quatrains and their form. Imported as a consumer does, by the
// package's subpaths, and type-checked against their declarations, which declare exactly what
// each module exports at run time.
const DATA_SUBPATHS = ['qkv-lab/corpus', 'qkv-lab/gpt-defaults', 'qkv-lab/data/quatrains', 'qkv-lab/data/quatrain-form'];

test('installed from the tarball: qkv-lab/corpus, /gpt-defaults, /data/quatrains and /data/quatrain-form import and type-check', () => {
  const { app } = pack;
  fs.writeFileSync(path.join(app, 'data.js'), `
    import { CORPUS_PRESETS, checkCorpus, TRAINING_DEFAULTS, CORPUS_LIMITS } from 'qkv-lab/corpus';
    import { GPT_LIMITS, GPT_DEFAULTS } from 'qkv-lab/gpt-defaults';
    import { QUATRAINS } from 'qkv-lab/data/quatrains';
    import { isWellFormedQuatrain } from 'qkv-lab/data/quatrain-form';
    const exports = {};
    for (const spec of ${JSON.stringify(DATA_SUBPATHS)}) exports[spec] = Object.keys(await import(spec)).sort();
    const poems = QUATRAINS.poems.split('\\n');
    console.log(JSON.stringify({ exports, presets: CORPUS_PRESETS.map((p) => p.id), lr: TRAINING_DEFAULTS.lr,
      problems: checkCorpus('<b>').problems.map((p) => p.kind), maxSentences: CORPUS_LIMITS.maxSentences,
      layers: GPT_LIMITS.layers, steps: GPT_DEFAULTS.steps, poems: poems.length, count: QUATRAINS.count,
      wellFormed: isWellFormedQuatrain(poems[0]) }));
  `);
  const result = JSON.parse(execFileSync(process.execPath, ['data.js'], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(result.presets, ['default', 'car-with-animals', 'twins', 'article']);
  assert.equal(result.lr, 0.3);
  assert.deepEqual(result.problems, ['markup']);
  assert.equal(result.maxSentences, 500);
  assert.equal(result.layers, 16);
  assert.equal(result.steps, 600);
  assert.equal(result.poems, result.count);
  assert.equal(result.wellFormed, true);
  const union = (keys) => keys.map((k) => JSON.stringify(k)).join(' | ');
  const dir = path.join(app, 'data-types');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'usage.ts'), DATA_SUBPATHS.map((spec, i) => `import * as m${i} from '${spec}';`).join('\n') + `
    import { checkCorpus, TRAINING_DEFAULTS, CORPUS_PRESETS } from 'qkv-lab/corpus';
    import { GPT_LIMITS } from 'qkv-lab/gpt-defaults';
    import { QUATRAINS } from 'qkv-lab/data/quatrains';
    const kinds: string[] = checkCorpus('a b').problems.map((p) => p.kind);
    const lr: number = TRAINING_DEFAULTS.lr;
    const ids: string[] = CORPUS_PRESETS.map((p) => p.id);
    const text: string = QUATRAINS.poems;
    console.log(kinds, lr, ids, text.length, GPT_LIMITS.context);
    // @ts-expect-error the defaults are read-only
    TRAINING_DEFAULTS.lr = 1;
    type None<T> = [T] extends [never] ? 'none' : T;
  ` + DATA_SUBPATHS.map((spec, i) => `
    export const declaredOnly${i}: None<Exclude<keyof typeof m${i}, ${union(result.exports[spec])}>> = 'none';
    export const exportedOnly${i}: None<Exclude<${union(result.exports[spec])}, keyof typeof m${i}>> = 'none';`).join(''));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [], skipLibCheck: false },
    files: ['usage.ts'],
  }));
  try {
    typecheck(dir);
  } catch (error) {
    assert.fail(error.message);
  }
});

test('from CommonJS: await import() on every Node; require() where Node can require ES modules', () => {
  const { app } = pack;
  fs.writeFileSync(path.join(app, 'main.cjs'), `
    const out = { version: require('qkv-lab/package.json').version };
    try {
      out.require = Object.keys(require('qkv-lab')).sort();
    } catch (error) {
      out.requireError = error.code;
    }
    import('qkv-lab').then(async ({ load }) => {
      const qkv = await load();
      out.imported = qkv.rng(42).randn(1, 2).toArray()[0].map((v) => v.toFixed(4));
      console.log(JSON.stringify(out));
    });
  `);
  const result = JSON.parse(execFileSync(process.execPath, ['main.cjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(result.version, pkg.version);
  // np.random.seed(42); np.random.randn(1, 2)
  assert.deepEqual(result.imported, ['0.4967', '-0.1383']);
  // docs/widget.md: require() works on Node 20.19+ and 22.12+ (process.features.require_module),
  // and throws ERR_REQUIRE_ESM before.
  if (process.features.require_module) {
    assert.deepEqual(result.require, ['Matrix', 'Model', 'QkvLab', 'load', 'simdSupported']);
  } else {
    assert.equal(result.requireError, 'ERR_REQUIRE_ESM');
  }
  const [major, minor] = process.versions.node.split('.').map(Number);
  const documented = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23;
  if (major >= 20 && major !== 21) assert.equal(Boolean(process.features.require_module), documented, `Node ${process.versions.node}`);
});

test('installed from the tarball: the widget\'s declarations type-check in strict mode', () => {
  const { app } = pack;
  fs.writeFileSync(path.join(app, 'usage.ts'), `
    import 'qkv-lab/widget';
    import type { QkvLabElement, QkvLabStepDetail } from 'qkv-lab/widget';
    const el: QkvLabElement = document.createElement('qkv-lab');
    el.section = 'softmax';
    el.seed = 7;
    el.scale = true;
    el.theme = 'dark';
    el.step = 4;
    el.steps = '2-5';
    el.loop = true;
    el.addEventListener('qkv-step', (e) => { const d: QkvLabStepDetail = e.detail; console.log(d.step, d.count); });
    el.addEventListener('qkv-train', (e) => console.log(e.detail.loss));
    // the events bubble and are composed: typed on document and window too
    document.addEventListener('qkv-step', (e) => console.log(e.detail.stage));
    window.addEventListener('qkv-ready', (e) => console.log(e.detail.section, e.detail.lang));
    // @ts-expect-error not a section
    el.section = 'nope';
    void window.QkvLab.load().then((qkv) => qkv.heapUsed());
    const Element = QkvLab.Element;
    const made: QkvLabElement = new Element();
    console.log(QkvLab.version, el.language, el.playing, made instanceof Element, Element.observedAttributes);
    document.body.append(el);
  `);
  // the pretrained poet and the poetry metrics, typed
  fs.writeFileSync(path.join(app, 'pretrained.ts'), `
    import { load, type GPT } from 'qkv-lab';
    import { formOf, rhyme, summarize, type PoemForm } from 'qkv-lab/poetry/metrics';
    import { createNgram, evaluate } from 'qkv-lab/poetry/ngram';
    import { POEMS_VAL } from 'qkv-lab/data/poems-val.js';
    const qkv = await load();
    const poet: GPT = await qkv.loadPretrained();
    const { text } = poet.generate('白日', { temperature: 0.8, seed: 1 });
    const form: PoemForm | null = formOf(text);
    const unigram = createNgram('unigram', POEMS_VAL.wujue);
    console.log(form, rhyme(text)?.lines24, summarize([text]).wellFormed, evaluate(unigram, [text]).loss);
    poet.dispose();
    // @ts-expect-error loadPretrained takes no arguments
    void qkv.loadPretrained('tang');
  `);
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], skipLibCheck: false },
    files: ['usage.ts', 'pretrained.ts'],
  }));
  try {
    typecheck(app);
  } catch (error) {
    assert.fail(error.message);
  }
});
