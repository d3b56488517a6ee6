// package-consumer.test.js: the npm package as a developer's tools see it. The packed tarball is
// installed into a scratch project, and:
//   - esbuild (this repository's own) bundles four apps from it: Matrix only, API only, widget
//     only, API + widget. Their sizes are measured (Matrix-only is tiny; API + widget costs what
//     the widget alone costs, because the widget's ES module imports the package's own API), and
//     each runs in headless Chromium under the strict CSP of docs/widget.md: the article's numbers, no
//     console error, and exactly one WebAssembly instance where the API and the widget meet;
//     the pretrained poet's weights are one chunk of their own in each, never fetched unasked;
//   - every value the declarations export exists at run time and vice versa (tsc compares
//     `keyof typeof import('qkv-lab')` with the module's real exports, computed in Node);
//   - the JavaScript snippets of README.md and docs/*.md type-check in strict mode against the
//     installed package;
//   - the Markdown post of docs/widget.md, rendered by markdown-it with html: true, is an HTML block
//     (not inside a <p>) and draws a widget; without html: true the tags are escaped; there the
//     classic global's loadPretrained() fetches the pretrained add-on from beside the script.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build } from 'esbuild';
import MarkdownIt from 'markdown-it';
import { ROOT, packAndInstall, typecheck } from './package-helpers.js';
import { openBrowser, newPage, settle } from './browser/harness.js';
import { ARTICLE, STRICT_CSP } from './browser/widget-helpers.js';

const APPS = {
  matrix: `
    import { Matrix } from 'qkv-lab';
    const m = new Matrix(2, 3, [1, 2, 3, 4, 5, 6]);
    window.result = { rows: m.rows, cols: m.cols, row1: m.row(1), doubled: m.scale(2).toArray() };
  `,
  api: `
    import { load } from 'qkv-lab';
    const qkv = await load();
    const rng = qkv.rng(42);
    const [Wq, Wk, Wv] = [rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3)];
    const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
    const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
    window.result = { row: weights.row(0).map((w) => w.toFixed(3)) };
  `,
  widget: `
    import 'qkv-lab/widget';
    window.result = { defined: Boolean(customElements.get('qkv-lab')) };
  `,
  both: `
    import { load } from 'qkv-lab';
    import 'qkv-lab/widget';
    const qkv = await load();
    const rng = qkv.rng(42);
    const [Wq, Wk, Wv] = [rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3)];
    const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
    const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
    window.result = { row: weights.row(0).map((w) => w.toFixed(3)), same: qkv === await window.QkvLab.load() };
  `,
};
const WITH_WIDGET = new Set(['widget', 'both']);
// A WebAssembly module inlined as base64 starts with "\0asm" = "AGFzbQ".
// each inlined WebAssembly stream (dist/qkv-wasm.js: the core and the SIMD128 kernels; dist/qkv-scalar.js,
// dist/qkv-relaxed.js: the other kernel builds; DEFLATE-compressed)
const WASM_MAGIC = /deflated:"/g;

let pack;
let out;        // the bundled apps and their pages, served to Chromium
const bundles = {};
const gzipped = {};   // what a page loads at first: the entry and the chunks it imports statically
const lazy = {};      // the chunks it loads on demand
const initialRaw = {};  // what a page loads at first, minified, not compressed (bytes): webpack puts
                        // it in one asset (its splitChunks splits only on-demand chunks by default)
// webpack's default performance hints (performance.maxAssetSize and maxEntrypointSize): 250,000
// bytes, which webpack prints as 244 KiB
const WEBPACK_HINT_BYTES = 250000;
const lazyKernels = {};  // the kernel builds' chunks, loaded where they run
const mainThread = {};  // the reachable code but the GPT sections' chunk (its worker's own copy)
const lazyGPT = {};      // the GPT engine's chunks, loaded by load({ gpt: true })
const lazyModel = {};    // the trainable model's chunks (web/model.js), loaded by load({ model: true })
const chunksRaw = {};    // each on-demand file, minified, not compressed: { file, bytes, kind }
// The sizes the docs state (docs/data/sizes.json, written into docs/widget.md by tools/docs-tables.mjs)
const SIZES = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/data/sizes.json'), 'utf8'));
const pretrainedChunks = {};  // the pretrained poet's chunk (file names), loaded by qkv.loadPretrained()
const lazyPretrained = {};

before(async () => {
  pack = packAndInstall('qkv-lab-consumer-');
  const src = path.join(pack.app, 'src');
  out = path.join(pack.app, 'out');
  fs.mkdirSync(src);
  fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'web', 'favicon.svg'), path.join(out, 'favicon.svg'));
  for (const [name, code] of Object.entries(APPS)) {
    fs.writeFileSync(path.join(src, `${name}.js`), code);
    // code splitting on, as Vite, webpack and Rollup do for a dynamic import: what a page loads
    // at first is the entry and the chunks it imports statically; the training sections' chunk
    // comes only when a training section is shown
    const result = await build({
      absWorkingDir: pack.app, entryPoints: { [name]: `src/${name}.js` }, outdir: `out/${name}`,
      bundle: true, minify: true, format: 'esm', splitting: true, target: 'es2022', logLevel: 'silent', metafile: true,
    });
    assert.deepEqual(result.warnings.map((w) => w.text), [], `${name}: esbuild warnings`);
    const outputs = result.metafile.outputs;
    // the app's own entry (with splitting, esbuild also names the target of each dynamic import
    // as an entry point: which of them comes first depends on the chunks there are)
    const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint === `src/${name}.js`);
    const initial = new Set([entry]);
    for (const o of initial) for (const i of outputs[o].imports) if (i.kind === 'import-statement' && !i.external) initial.add(i.path);
    // what the app can ever load: esbuild also writes the chunk of a dynamic import whose caller
    // it dropped (load()'s kernel chunks in the Matrix-only app), which no page ever fetches
    const reachable = new Set([entry]);
    for (const o of reachable) for (const i of outputs[o].imports) if (!i.external) reachable.add(i.path);
    const size = (files) => files.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(pack.app, f)), { level: 9 }).length, 0);
    bundles[name] = [...reachable].map((f) => fs.readFileSync(path.join(pack.app, f), 'utf8')).join('\n');
    gzipped[name] = size([...initial]);
    // on demand: the training sections' chunks; apart, the chunks of the kernel builds that load()
    // imports only where it runs them (relaxed SIMD, scalar), and the GPT engine's (its WASM and
    // web/gpt.js), which only load({ gpt: true }) imports
    const isKernels = (f) => Object.keys(outputs[f].inputs).some((i) => /web\/dist\/qkv-(relaxed|scalar)\.js$/.test(i));
    // the GPT sections' chunk (web/page/gpt/: their worker and the quatrains) is a bucket of its own
    // (the widget module's chunks are named after their modules: qkv-lab-widget-gpt-sections-*.mjs)
    const isGPTSections = (f) => Object.keys(outputs[f].inputs).some((i) => /web\/page\/gpt\/|qkv-lab-widget-gpt-sections-/.test(i));
    const isGPT = (f) => !isGPTSections(f) && Object.keys(outputs[f].inputs).some((i) => /web\/(dist\/qkv-gpt|gpt)\.js$/.test(i));
    // the poet's sections: the 预训练 and fine-tuning sections (web/page/pretrained/, web/page/finetune/),
    // and what they share with generation (the poetry metrics and rhyme table, web/finetune.js): a bucket of their own
    const isPoetSections = (f) => !isGPTSections(f) && Object.keys(outputs[f].inputs)
      .some((i) => /web\/page\/(pretrained|finetune)\/|web\/poetry\/|web\/data\/rhyme-groups\.js$|web\/finetune\.js$|qkv-lab-widget-(pretrained|finetune)-sections-/.test(i));
    assert.ok(![...initial].some(isGPT), `${name}: the GPT engine is loaded at first`);
    // the trainable model likewise (no attention call needs it): a chunk load({ model: true }) fetches
    const isModel = (f) => Object.keys(outputs[f].inputs).some((i) => /web\/model\.js$/.test(i));
    assert.ok(![...initial].some(isModel), `${name}: the trainable model is loaded at first`);
    // the pretrained poet's weights: a chunk of their own wherever the API is, never loaded at first
    const isPretrained = (f) => Object.keys(outputs[f].inputs).some((i) => /web\/dist\/qkv-pretrained\.js$/.test(i));
    assert.ok(![...initial].some(isPretrained), `${name}: the pretrained model is loaded at first`);
    const modelChunks = [...reachable].filter(isPretrained);
    pretrainedChunks[name] = modelChunks.map((f) => path.basename(f));
    if (name !== 'matrix') {
      assert.equal(modelChunks.length, 1, `${name}: the pretrained model's chunks: ${modelChunks}`);
      const [[input, { bytesInOutput }]] = Object.entries(outputs[modelChunks[0]].inputs).filter(([i]) => /qkv-pretrained\.js$/.test(i));
      assert.ok(bytesInOutput > 1e6, `${name}: ${input} is ${bytesInOutput} bytes in its chunk: the package carries no model`);
      assert.deepEqual(Object.keys(outputs[modelChunks[0]].inputs), [input], `${name}: the model's chunk holds the model alone`);
    }
    lazyPretrained[name] = size(modelChunks);
    lazy[name] = size([...reachable].filter((f) => !initial.has(f) && !isKernels(f) && !isGPT(f) && !isGPTSections(f) && !isPretrained(f) && !isPoetSections(f)));
    lazyKernels[name] = size([...reachable].filter((f) => !initial.has(f) && isKernels(f)));
    lazyGPT[name] = size([...reachable].filter((f) => !initial.has(f) && isGPT(f)));
    lazyModel[name] = size([...reachable].filter((f) => !initial.has(f) && isModel(f)));
    // what runs on the page's own thread (the GPT sections' chunk carries the writer's worker,
    // a second thread with its own API and WebAssembly, as text: docs/widget.md, "Size")
    mainThread[name] = [...reachable].filter((f) => !isGPTSections(f)).map((f) => fs.readFileSync(path.join(pack.app, f), 'utf8')).join('\n');
    initialRaw[name] = [...initial].reduce((sum, f) => sum + fs.statSync(path.join(pack.app, f)).size, 0);
    // every file a page may fetch later, minified, with what it belongs to (webpack's asset hint is per file)
    chunksRaw[name] = [...reachable].filter((f) => !initial.has(f)).map((f) => ({
      file: f, bytes: fs.statSync(path.join(pack.app, f)).size,
      kind: isPretrained(f) ? 'pretrained' : isGPTSections(f) ? 'gpt-sections' : isPoetSections(f) ? 'poet-sections'
        : isKernels(f) ? 'kernels' : isGPT(f) ? 'gpt-engine' : 'training',
    }));
    const widgets = name === 'both'
      ? '<qkv-lab id="w" section="softmax" lang="en"></qkv-lab>\n<qkv-lab id="t" section="trainstep" lang="en"></qkv-lab>'
      : WITH_WIDGET.has(name) ? '<qkv-lab id="w" section="softmax" lang="en"></qkv-lab>' : '';
    fs.writeFileSync(path.join(out, `${name}.html`), page(name, widgets, `<script type="module" src="${name}/${name}.js"></script>`));
  }
  console.log(`bundled with esbuild (splitting), gzip -9, loaded at first: ${Object.entries(gzipped).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}; ` +
    `on demand (the training sections' chunks): ${Object.entries(lazy).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}; ` +
    `the relaxed-SIMD and scalar kernels' chunks: ${Object.entries(lazyKernels).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}; ` +
    `the GPT engine's chunks: ${Object.entries(lazyGPT).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}; ` +
    `the trainable model's chunks: ${Object.entries(lazyModel).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}; ` +
    `the pretrained model's chunk: ${Object.entries(lazyPretrained).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}`);
});
after(() => { pack?.remove(); });

function page(title, ...body) {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
    `<link rel="icon" href="/favicon.svg"></head>\n<body>\n${body.join('\n')}\n</body></html>\n`;
}

const kib = (bytes) => (bytes / 1024).toFixed(1);

test('sizes: Matrix alone is tiny; API + widget costs no more than the widget (one API, one WASM)', () => {
  // Matrix only: no glue, no WASM, no widget. It measured 27 KiB without package.json's
  // "sideEffects" and 1.2 KiB with it; 4 KiB leaves room for Matrix to grow, not for the API to
  // come back.
  assert.ok(gzipped.matrix < 4 * 1024, `Matrix only: ${kib(gzipped.matrix)} KiB gzipped`);
  assert.ok(!/WebAssembly/.test(bundles.matrix), 'Matrix only: the WASM glue was bundled');
  assert.equal((bundles.matrix.match(WASM_MAGIC) || []).length, 0);
  // The widget's ES module imports the API: API + widget is the widget plus the app's own lines.
  assert.ok(gzipped.both < gzipped.api + gzipped.widget,
    `API + widget ${kib(gzipped.both)} KiB is not less than API ${kib(gzipped.api)} + widget ${kib(gzipped.widget)}`);
  assert.ok(gzipped.both < gzipped.widget + 1024,
    `API + widget ${kib(gzipped.both)} KiB vs widget alone ${kib(gzipped.widget)} KiB: the API came twice`);
  // as many inlined WASM modules as the API itself carries, wherever the API is
  const copies = (name) => (mainThread[name].match(WASM_MAGIC) || []).length;
  assert.equal(copies('widget'), copies('api'));
  assert.equal(copies('both'), copies('api'));
  // and the GPT sections' chunk adds none: the writer's worker gets the page's compiled modules
  // (its copy of the API keeps the streams' names, not their bytes)
  for (const name of WITH_WIDGET) assert.equal((bundles[name].match(WASM_MAGIC) || []).length, copies('api'), `${name}: WebAssembly streams, worker included`);
  // nothing of the build machine or of the scratch project is written into a bundle (webpack
  // writes import.meta.url's file path in; esbuild leaves it, so its absence is what matters)
  for (const [name, text] of Object.entries(bundles)) {
    assert.ok(!/\bimport\.meta\b/.test(text), `${name}: import.meta in the bundle`);
    assert.ok(!text.includes(pack.scratch) && !text.includes(ROOT), `${name}: a file path in the bundle`);
  }
});

test('docs/data/sizes.json gives these sizes, which docs/widget.md states (within 10 % + 0.5 KiB: update it when they move)', () => {
  const stated = SIZES.bundles;
  const measured = { matrix: gzipped.matrix, api: gzipped.api, widget: gzipped.widget, both: gzipped.both,
    trainingSections: lazy.widget, model: lazyModel.api, gptEngine: lazyGPT.api, kernels: lazyKernels.api };
  console.log(`measured, gzip -9: ${Object.entries(measured).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}`);
  assert.deepEqual(Object.keys(stated).sort(), Object.keys(measured).sort());
  for (const [name, bytes] of Object.entries(measured)) {
    assert.ok(Math.abs(stated[name] * 1024 - bytes) <= 0.1 * bytes + 512,
      `${name}: docs/data/sizes.json says ${stated[name]} KiB, measured ${kib(bytes)} KiB`);
  }
});

// A widget app's entry and its on-demand chunks are larger than webpack's default performance
// hint, so webpack warns on every production build of one; the docs say so, with the sizes and
// the settings that raise the limits above them.
test('docs/data/sizes.json gives the minified sizes webpack warns about, and limits that cover every file', () => {
  console.log(`loaded at first, minified: ${Object.entries(initialRaw).map(([n, b]) => `${n} ${kib(b)} KiB`).join(', ')}`);
  console.log(`the widget app's on-demand files, minified: ${chunksRaw.widget.map((c) => `${path.basename(c.file)} (${c.kind}) ${kib(c.bytes)} KiB`).join(', ')}`);
  const w = SIZES.webpack;
  const over = Object.keys(initialRaw).filter((name) => initialRaw[name] > WEBPACK_HINT_BYTES);
  assert.ok(over.includes('widget') && over.includes('both') && !over.includes('api'), `over the hint: ${over}`);
  const near = (said, bytes, what) => assert.ok(Math.abs(said - bytes / 1024) <= 0.05 * bytes / 1024 + 2,
    `${what}: docs/data/sizes.json says ${said} KiB, measured ${kib(bytes)} KiB`);
  near(w.widgetEntryMinifiedKiB, initialRaw.widget, 'the widget app\'s entry');
  const largest = (kind) => Math.max(...chunksRaw.widget.filter((c) => c.kind === kind).map((c) => c.bytes));
  near(w.trainingSectionsChunkMinifiedKiB, largest('training'), 'the training sections\' chunk');
  near(w.gptSectionsChunkMinifiedKiB, largest('gpt-sections'), 'the GPT sections\' chunk');
  near(w.poetSectionsChunkMinifiedKiB, largest('poet-sections'), 'the poet\'s sections\' largest chunk (fine-tuning\'s)');
  for (const name of Object.keys(initialRaw)) {
    assert.ok(initialRaw[name] < w.maxEntrypointSize, `${name}: the entry, ${initialRaw[name]} bytes, is over maxEntrypointSize`);
    for (const c of chunksRaw[name]) assert.ok(c.bytes < w.maxAssetSize, `${name}: ${c.file}, ${c.bytes} bytes, is over maxAssetSize`);
  }
});

test('in Chromium under the strict CSP: each app works, and the API and the widget share one WebAssembly instance', async () => {
  const env = await openBrowser({ root: out, headers: (p) => (p.endsWith('.html') ? { 'content-security-policy': STRICT_CSP } : {}) });
  try {
    for (const name of Object.keys(APPS)) {
      const p = await newPage(env);
      const requested = [];
      p.on('request', (request) => requested.push(path.basename(new URL(request.url()).pathname)));
      // counts instances however the glue makes them; the page's CSP does not apply to this
      await p.addInitScript(() => {
        window.wasmInstances = 0;
        const counted = (promise) => promise.then((r) => { window.wasmInstances++; return r; });
        const { instantiate, instantiateStreaming } = WebAssembly;
        WebAssembly.instantiate = (...args) => counted(instantiate.apply(WebAssembly, args));
        if (instantiateStreaming) WebAssembly.instantiateStreaming = (...args) => counted(instantiateStreaming.apply(WebAssembly, args));
        document.addEventListener('qkv-ready', (e) => { window.widgetReady = e.detail; });
      });
      await p.goto(env.url(`${name}.html`));
      await p.waitForFunction(() => window.result !== undefined);
      if (WITH_WIDGET.has(name)) {
        await p.waitForFunction(() => window.widgetReady !== undefined);
        if (name === 'both') {
          // the training section comes from the on-demand chunk and uses the same instance
          await p.locator('#t').scrollIntoViewIfNeeded();
          await p.waitForFunction(() => document.getElementById('t').shadowRoot.querySelector('section[data-section="trainstep"]'), null, { timeout: 60000 });
        }
        // a section opens at its first step: on to the last, where every row is converted
        const forward = p.locator('#w .step-forward');
        while (await forward.isEnabled()) await forward.click();
        const weights = await p.evaluate(() => [...document.getElementById('w').shadowRoot
          .querySelectorAll('[data-matrix="A"] tbody tr:first-child td.cell')].map((td) => td.textContent));
        assert.deepEqual(weights, ARTICLE.A0, `${name}: the widget's softmax row`);
      }
      await settle(p);
      const { result, instances } = await p.evaluate(() => ({ result: window.result, instances: window.wasmInstances }));
      if (name === 'matrix') {
        assert.deepEqual(result, { rows: 2, cols: 3, row1: [4, 5, 6], doubled: [[2, 4, 6], [8, 10, 12]] });
        assert.equal(instances, 0, 'Matrix only: no WebAssembly');
      } else {
        // one qkv-lab instance is two WebAssembly instances: its core and the kernels it runs
        assert.equal(instances, 2, `${name}: ${instances} WebAssembly instances`);
      }
      if (name === 'api' || name === 'both') assert.deepEqual(result.row, ARTICLE.A0);
      if (name === 'widget') assert.equal(result.defined, true);
      if (name === 'both') assert.equal(result.same, true, 'await QkvLab.load() === await load()');
      assert.deepEqual(p.problems(), [], `${name}: console errors or requests`);
      assert.deepEqual(requested.filter((f) => pretrainedChunks[name].includes(f)), [], `${name}: the pretrained model was fetched unasked`);
      await p.closeAll();
    }
  } finally {
    await env.close();
  }
});

test('every value the declarations export exists at run time, and nothing else is exported', () => {
  const { app } = pack;
  // the real exports, as Node loads the installed package (no DOM: the widget defines nothing)
  const runtime = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', `
    const api = await import('qkv-lab');
    const widget = await import('qkv-lab/widget');
    console.log(JSON.stringify({ api: Object.keys(api), widget: Object.keys(widget) }));
  `], { cwd: app, encoding: 'utf8' }));
  assert.ok(runtime.api.includes('load') && runtime.api.includes('Matrix'), JSON.stringify(runtime));
  const union = (keys) => (keys.length ? keys.map((k) => JSON.stringify(k)).join(' | ') : 'never');
  // tsc proves both directions; an error names the export that is declared only, or real only
  const dir = path.join(app, 'exports');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'exports.ts'), `
    import * as api from 'qkv-lab';
    import * as widget from 'qkv-lab/widget';
    type RuntimeApi = ${union(runtime.api)};
    type RuntimeWidget = ${union(runtime.widget)};
    type None<T> = [T] extends [never] ? 'none' : T;
    export const apiDeclaredNotExported: None<Exclude<keyof typeof api, RuntimeApi>> = 'none';
    export const apiExportedNotDeclared: None<Exclude<RuntimeApi, keyof typeof api>> = 'none';
    export const widgetDeclaredNotExported: None<Exclude<keyof typeof widget, RuntimeWidget>> = 'none';
    export const widgetExportedNotDeclared: None<Exclude<RuntimeWidget, keyof typeof widget>> = 'none';
  `);
  tsc(dir, ['exports.ts'], 'nodenext');
});

// What the docs' snippets take from the text around them: the model snippet continues the
// API snippet's `qkv`; the events snippet calls the host page's own function; a page that
// listens for the widget's events has loaded the widget.
const README_CONTEXT = `
  import type { QkvLab } from 'qkv-lab';
  import 'qkv-lab/widget';
  import type { GPT } from 'qkv-lab';
  declare global {
    const qkv: QkvLab;
    function highlightParagraph(id: string): void;
    // the GPT pages' snippets continue a GPT made above them (docs/gpt-generation.md), and read
    // the training text from disk (docs/poetry-metrics.md)
    const gpt: GPT;
    const POEMS_VAL: typeof import('qkv-lab/data/poems-val.js').POEMS_VAL;
    const poems: string;
    const step: ReturnType<GPT['generate']>['steps'][number];
    function readFileSync(path: string, encoding: 'utf8'): string;
  }
`;

function readmeSnippets(markdown) {
  const snippets = [];
  for (const m of markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, m.index).split('\n').length + 1;
    if (/^(js|javascript|ts|typescript)$/.test(m[1])) snippets.push({ line, code: m[2] });
    if (m[1] === 'html') {
      for (const s of m[2].matchAll(/<script>([\s\S]*?)<\/script>/g)) snippets.push({ line, code: s[1] });
    }
  }
  return snippets;
}

test('the JavaScript snippets of README.md and docs/*.md type-check in strict mode against the installed package', () => {
  const documents = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const snippets = documents.flatMap((doc) => readmeSnippets(fs.readFileSync(path.join(ROOT, doc), 'utf8'))
    .map((snippet) => ({ ...snippet, doc })));
  // the API, the model, the events, the iframe's height script, npm: more may come, not fewer
  assert.ok(snippets.length >= 5, `${snippets.length} snippets`);
  assert.ok(snippets.some((s) => s.code.includes("document.addEventListener('qkv-step'")), 'the events snippet');
  for (const moduleResolution of ['bundler', 'nodenext']) {
    const dir = path.join(pack.app, `readme-${moduleResolution}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'context.d.ts'), README_CONTEXT);
    // one module per snippet, named for its document and line (tsc's errors point there)
    const files = snippets.map(({ doc, line, code }) => {
      const file = `${doc.replace(/[/.]/g, '-')}-line-${line}.ts`;
      fs.writeFileSync(path.join(dir, file), `${code}\nexport {};\n`);
      return file;
    });
    tsc(dir, ['context.d.ts', ...files], moduleResolution);
  }
});

function tsc(dir, files, moduleResolution) {
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], types: [],
      skipLibCheck: false, module: moduleResolution === 'bundler' ? 'esnext' : 'nodenext', moduleResolution,
    },
    files,
  }));
  try {
    typecheck(dir);
  } catch (error) {
    assert.fail(`moduleResolution ${moduleResolution}: ${error.message}`);
  }
}

// The post docs/widget.md shows a Markdown blogger (docs/data/markdown-post.md, which
// tools/docs-tables.mjs writes into the page; tests/docs.test.js keeps the two the same).
test('the Markdown post of docs/widget.md: markdown-it with html: true keeps the widget an HTML block, and it draws', async () => {
  const snippet = fs.readFileSync(path.join(ROOT, 'docs/data/markdown-post.md'), 'utf8');
  assert.ok(snippet.includes('<qkv-lab'), 'the post has a <qkv-lab>');
  const block = /^<qkv-lab[^\n]*>\n[\s\S]*?<\/script>$/m.exec(snippet)?.[0];
  assert.ok(block, 'the snippet\'s HTML block: <qkv-lab …> on its own line, through the script tag');

  const html = new MarkdownIt({ html: true }).render(snippet);
  assert.ok(html.includes(`\n${block}\n`), `the HTML block passed through unchanged:\n${html}`);
  assert.ok(!/<p>\s*<qkv-lab/.test(html), `the widget is inside a <p>:\n${html}`);
  assert.equal((html.match(/<p>/g) || []).length, 2, 'the paragraphs around it are still paragraphs');
  // what docs/widget.md warns of: markdown-it's default escapes the tags, and one line is inline HTML
  assert.match(new MarkdownIt().render(snippet), /&lt;qkv-lab/);
  const oneLine = snippet.replace(/(<qkv-lab[^>\n]*>)\n(<\/qkv-lab>)/, '$1$2');
  assert.notEqual(oneLine, snippet);
  assert.match(new MarkdownIt({ html: true }).render(oneLine), /<p><qkv-lab[^>]*><\/qkv-lab><\/p>/);

  // the rendered post, with the classic script at the path docs/widget.md gives, under the strict CSP
  fs.copyFileSync(path.join(pack.installed, 'web/dist/qkv-lab-widget.js'), path.join(out, 'assets', 'qkv-lab-widget.js'));
  // and its pretrained add-on beside it, which the core fetches only when the host page asks for the model
  fs.copyFileSync(path.join(pack.installed, 'web/dist/qkv-lab-widget-pretrained.js'), path.join(out, 'assets', 'qkv-lab-widget-pretrained.js'));
  // the GPT add-on beside them, as docs/widget.md asks of a post: the classic widget attaches the
  // GPT engine from it (loadPretrained attaches the engine before it reads the weights)
  fs.copyFileSync(path.join(pack.installed, 'web/dist/qkv-lab-widget-gpt.js'), path.join(out, 'assets', 'qkv-lab-widget-gpt.js'));
  fs.writeFileSync(path.join(out, 'post.html'), page('post', html));
  const env = await openBrowser({ root: out, headers: (p) => (p.endsWith('.html') ? { 'content-security-policy': STRICT_CSP } : {}) });
  try {
    const p = await newPage(env);
    await p.goto(env.url('post.html'));
    await p.waitForFunction(() => document.querySelector('qkv-lab')?.shadowRoot?.querySelector('[data-matrix="A"] td.cell'));
    const forward = p.locator('qkv-lab .step-forward');
    while (await forward.isEnabled()) await forward.click();
    const weights = await p.evaluate(() => [...document.querySelector('qkv-lab').shadowRoot
      .querySelectorAll('[data-matrix="A"] tbody tr:first-child td.cell')].map((td) => td.textContent));
    assert.deepEqual(weights, ARTICLE.A0);
    assert.equal(await p.evaluate(() => document.querySelector('qkv-lab').parentElement.tagName), 'BODY');
    // the pretrained poet through the classic global: its add-on is fetched from beside the script
    // on the first loadPretrained(), not before
    const addonTags = () => p.evaluate(() => document.querySelectorAll('script[data-qkv-lab="pretrained"]').length);
    assert.equal(await addonTags(), 0, 'the pretrained add-on was fetched unasked');
    const poet = await p.evaluate(async () => {
      const qkv = await window.QkvLab.load();
      const [a, b] = [await qkv.loadPretrained(), await qkv.loadPretrained()];
      a.dispose();
      const shape = { layers: b.layers, heads: b.heads, dim: b.dim, context: b.context, vocab: b.vocab.length, independent: a !== b && !b.disposed };
      const text = b.generate('', { seed: 1, temperature: 0.8 }).text;
      b.dispose();
      return { ...shape, wrote: typeof text === 'string' };
    });
    assert.deepEqual(poet, { layers: 4, heads: 4, dim: 128, context: 72, vocab: 6509, independent: true, wrote: true });
    assert.equal(await addonTags(), 1, 'the pretrained add-on, fetched once');
    await settle(p);
    assert.deepEqual(p.problems(), []);
    await p.closeAll();
  } finally {
    await env.close();
  }
});
