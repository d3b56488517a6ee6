// build-page.mjs: bundles the page (and the widget) with esbuild, after build.sh's emcc step.
//   web/dist/page.js         the demo page's script, one ES module (Chart.js and the WASM inlined)
//   web/dist/qkv-lab.html    the whole page in one file: works from file:// with no network
//   web/dist/qkv-lab-widget.js  the <qkv-lab> custom element as a classic script (<script src>),
//                               every section but the two training ones
//   web/dist/qkv-lab-widget-training.js  the training sections (and Chart.js), a second classic
//                               script the first fetches from beside itself when one is shown
//                               (web/widget/addon.js says how the two share their modules)
//   web/dist/qkv-lab-widget-gpt.js, qkv-lab-widget-pretrained.js  the GPT sections, and the
//                               pretrained poet with the GPT engine (qkv.loadPretrained()): add-ons
//                               fetched likewise, when asked for
//   web/dist/qkv-lab-widget.mjs the element as an ES module for bundlers: it imports the
//                               package's own API instead of carrying a copy, and loads the
//                               training sections from a chunk (qkv-lab-widget-*.mjs) on demand
// Nothing is fetched at run time: Chart.js comes from node_modules.
import { build, transformSync } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { ADDON_WRAPPER, ADDONS, WIDGET_KEY } from '../web/widget/addon.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const dist = path.join(web, 'dist');
fs.mkdirSync(dist, { recursive: true });

// Chart.js exports every scale, and three of them keep their classes in any bundle, used or not:
// a static default reads a property of another module-level object (Ticks.formatters.logarithmic,
// Ticks.formatters.numeric, TimeScale.defaults), which esbuild must assume may have a side effect.
// Wrapped in a /* @__PURE__ */ arrow called at once, each reads the same value at the same time,
// and the unused logarithmic, radial, time and time-series scales (with the date adapter) drop
// out: 6.5 KiB of the widget, gzipped. Nothing is changed in node_modules; if a Chart.js update
// no longer has these expressions, the build says so and the bundles are just bigger.
const chartjsPure = {
  name: 'qkv-chartjs-pure',
  setup(b) {
    b.onLoad({ filter: /[\\/]chart\.js[\\/]dist[\\/]chart\.js$/ }, (args) => {
      let count = 0;
      const contents = fs.readFileSync(args.path, 'utf8').replace(
        /(\bcallback:\s*|\bstatic defaults\s*=\s*)(Ticks\.formatters\.\w+|TimeScale\.defaults)\b/g,
        (_, head, read) => { count++; return `${head}/* @__PURE__ */ (() => ${read})()`; });
      if (count === 0) console.warn('build-page.mjs: Chart.js no longer has the static defaults qkv-chartjs-pure wraps (see there)');
      return { contents, loader: 'js' };
    });
  },
};

// The page's and the widget's own modules (web/page/, web/widget/) are not shipped, so
// package.json's "sideEffects" does not list them; several are imported only for what they do
// (a section registering its strings, the element defining itself). This tells esbuild so for
// every build here. It comes last in each plugin list: a path another plugin claims stays its.
const sourceDirs = [path.join(web, 'page') + path.sep, path.join(web, 'widget') + path.sep];
const sourcesHaveSideEffects = {
  name: 'qkv-sources-have-side-effects',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (args) => {
      if (args.pluginData !== undefined || !(path.isAbsolute(args.path) || /^\.\.?\//.test(args.path))) return undefined;
      const file = path.resolve(args.resolveDir, args.path);
      if (!sourceDirs.some((dir) => file.startsWith(dir)) || !fs.existsSync(file)) return undefined;
      return { path: file, sideEffects: true };
    });
  },
};

const common = {
  bundle: true,
  minify: true,
  target: ['es2020'],
  legalComments: 'none',
  logLevel: 'warning',
  // the Emscripten glue reads import.meta.url only to locate a .wasm file; ours is inlined
  define: { 'import.meta.url': '""' },
};

// The page and the classic widget leave out the relaxed-SIMD kernels (dist/qkv-relaxed.js,
// which a page script cannot load lazily: it would inline them, 8 KiB gzipped) and run SIMD128:
// their sections compute 3×4 to 16×16 matrices and a d = 16 model, where fused multiply-add
// gains nothing measurable (a training step 18.2 against 18.8 µs, bench/results.json), and the
// numbers they show stay bit for bit the ones the API gives in Node by default (the browser
// tests compare them). An app's bundler still gets the relaxed chunk, loaded where it runs.
// So do the GPT kernels' relaxed build in dist/qkv-gpt.js (withoutRelaxedGPTKernels).
const RELAXED_GPT_KERNELS = /^ +"relaxed-simd": \{ size: \d+, deflated: "[^"]*" \},\n/m;
const withoutRelaxedGPTKernels = (source) => source.replace(RELAXED_GPT_KERNELS, '');
const noRelaxed = {
  name: 'qkv-no-relaxed-kernels',
  setup(b) {
    b.onResolve({ filter: /qkv-relaxed\.js$/ }, () => ({ path: 'qkv-relaxed', namespace: 'qkv-no-relaxed' }));
    b.onLoad({ filter: /.*/, namespace: 'qkv-no-relaxed' }, () => ({ contents: 'export const relaxed = null;\n', loader: 'js' }));
    b.onLoad({ filter: /[\\/]dist[\\/]qkv-gpt\.js$/, namespace: 'file' }, (args) => ({ contents: withoutRelaxedGPTKernels(fs.readFileSync(args.path, 'utf8')), loader: 'js' }));
  },
};

// The GPT sections train in a Web Worker (web/page/gpt/worker.js: the API's JavaScript in one
// classic script). Every bundle that holds the GPT sections carries that worker as text, in place
// of web/page/gpt/worker-source.js, and starts it from a blob: URL, so that the single file works
// from file:// and the widget needs no file of its own for it. The worker instantiates the page's
// compiled WebAssembly modules, which the page sends it (gpt/store.js), and trains on the text
// the page sends: its copy of dist/qkv-wasm.js, qkv-gpt.js and qkv-scalar.js keeps their sizes and
// names but not their bytes (deflated: null), 26 KiB gzipped less in every bundle. (qkv-gpt.js
// holds the engine's stream and one per build of its kernels.)
const noWasmBytes = {
  name: 'qkv-worker-no-wasm-bytes',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]qkv-(wasm|gpt|scalar)\.js$/ }, (args) => {
      let count = 0;
      // (listed before noRelaxed, so that this load of qkv-gpt.js is the one used: it drops the relaxed kernels too)
      const source = withoutRelaxedGPTKernels(fs.readFileSync(args.path, 'utf8'));
      const expected = /qkv-gpt\.js$/.test(args.path) ? 1 + (source.match(/^ +"[\w-]+": \{ size: \d+, deflated: "/gm) || []).length : 1;
      const contents = source.replace(/\bdeflated: "[^"]*"/g, () => { count++; return 'deflated: null'; });
      if (count !== expected) throw new Error(`build-page.mjs: ${args.path} must hold ${expected} deflated: "…" string(s) (it has ${count})`);
      return { contents, loader: 'js' };
    });
  },
};
// The fine-tuning section's worker (web/page/finetune/worker.js) is carried the same way, in place
// of web/page/finetune/worker-source.js.
const workerTexts = new Map();   // folder ('gpt' | 'finetune') → the worker's script
const gptWorker = {
  name: 'qkv-gpt-worker',
  setup(b) {
    b.onLoad({ filter: /[\\/]page[\\/](gpt|finetune)[\\/]worker-source\.js$/ }, async (args) => {
      const folder = path.basename(path.dirname(args.path));
      if (!workerTexts.has(folder)) {
        const worker = await build({ ...common, entryPoints: [path.join(web, 'page', folder, 'worker.js')], write: false, charset: 'utf8',
          format: 'iife', metafile: true, plugins: [chartjsPure, noWasmBytes, noRelaxed, noPretrained(`the ${folder} worker carries no pretrained model`)] });
        checkNoPretrained(worker, `the ${folder} worker`);
        workerTexts.set(folder, worker.outputFiles[0].text);
      }
      return { contents: `export const WORKER_SOURCE = ${JSON.stringify(workerTexts.get(folder))};\nexport const workerURL = null;\n`, loader: 'js' };
    });
  },
};

// The classic widget script leaves out the GPT engine (dist/qkv-gpt.js, web/gpt.js and web/finetune.js, which
// load({ gpt: true }) imports on demand and a classic script would inline: about 17 KiB
// gzipped): no widget section runs a GPT. There, loadGPTEngine() rejects saying so.
const noGPT = {
  name: 'qkv-no-gpt-engine',
  setup(b) {
    b.onResolve({ filter: /(^|[\\/])(dist[\\/]qkv-gpt|gpt|finetune)\.js$/ }, (args) =>
      (/[\\/]web$/.test(args.resolveDir) ? { path: args.path, namespace: 'qkv-no-gpt' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'qkv-no-gpt' }, () => ({ contents: 'export const gpt = null;\n', loader: 'js' }));
  },
};

// The classic widget's core leaves out the trainable model (web/model.js, about 7 KiB gzipped):
// only the training sections create one, and they come in the training add-on, which carries
// model.js and provides it (engine-sources.js, provideModel). In the core, the API's createModel
// builds the provided class; the model.js that its loadModelEngine() imports on demand is this
// stand-in, whose Model is null and whose provided() fetches the training add-on (which provides
// the class when it runs), as load({ gpt: true }) fetches the GPT add-on.
const noModel = {
  name: 'qkv-model-from-the-training-add-on',
  setup(b) {
    b.onResolve({ filter: /^\.\/model\.js$/ }, (args) =>
      (/[\\/]web[\\/]qkv-lab\.js$/.test(args.importer) ? { path: args.path, namespace: 'qkv-no-model' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'qkv-no-model' }, () => ({
      resolveDir: path.join(root, 'web'), loader: 'js',
      contents: `import { loadAddon } from ${JSON.stringify(path.join(root, 'web', 'widget', 'addon.js'))};
export const Model = null;
export const provided = () => loadAddon('training');
`,
    }));
  },
};

// The pretrained poet's weights (dist/qkv-pretrained.js, about 1.7 MB, imported only by
// qkv.loadPretrained()) stay out of every bundle that would inline them: the single file and the
// GPT worker's script (which never loads them) get this stand-in, whose loadPretrained() rejects
// with `why`; the classic widget's core script fetches them in an add-on of their own instead
// (classicWidget). The split page (dist/page.js) and users' bundlers get them as a chunk.
const noPretrained = (why) => ({
  name: 'qkv-no-pretrained',
  setup(b) {
    b.onResolve({ filter: /(^|[\\/])dist[\\/]qkv-pretrained\.js$/ }, (args) =>
      (/[\\/]web$/.test(args.resolveDir) ? { path: 'qkv-pretrained', namespace: 'qkv-no-pretrained' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'qkv-no-pretrained' }, () => ({
      contents: `export const pretrained = () => Promise.reject(new Error(${JSON.stringify(`loadPretrained: ${why}`)}));\n`, loader: 'js',
    }));
  },
});

// The single file cannot load the pretrained poet (noPretrained), so it leaves out the one section
// that needs it: fine-tuning (web/page/finetune/finetune-sections.js, with its worker and poems, 870 KiB).
// The registry's load() of that section then rejects saying why, and the page shows that.
const noFineTune = {
  name: 'qkv-no-finetune',
  setup(b) {
    b.onResolve({ filter: /(^|[\\/])finetune[\\/]finetune-sections\.js$/ }, () => ({ path: 'qkv-finetune', namespace: 'qkv-no-finetune' }));
    b.onLoad({ filter: /.*/, namespace: 'qkv-no-finetune' }, () => ({
      contents: `export const finetuneSections = () => Promise.reject(new Error(${JSON.stringify(
        'the single-file page (qkv-lab.html) does not carry the fine-tuning section, which needs the pretrained model: serve the page (dist/page.js) to fine-tune')}));\n`,
      loader: 'js',
    }));
  },
};

/** A bundle that must not carry the pretrained weights (see noPretrained) and took them in fails here. */
function checkNoPretrained(result, name) {
  const inlined = Object.keys(result.metafile.inputs).filter((f) => /qkv-pretrained\.js$/.test(f));
  if (inlined.length) throw new Error(`build-page.mjs: ${name} bundles the pretrained model (${inlined.join(', ')}); add the noPretrained plugin to its build`);
}

async function bundle(entry, options) {
  const plugins = [chartjsPure, noRelaxed, gptWorker, ...(options.plugins || []), sourcesHaveSideEffects];
  const result = await build({ ...common, entryPoints: [entry], write: false, metafile: true, ...options, plugins });
  checkNoRelaxed(result, entry);
  checkNoPretrained(result, entry);
  // package.json's "sideEffects" lets users' bundlers drop the API modules they do not use; it
  // applies to this build too. A module imported only for its effect but not listed there would
  // be dropped without an error: make that one.
  const dropped = result.warnings.filter((w) => w.id === 'ignored-bare-import');
  if (dropped.length) {
    throw new Error(`build-page.mjs: ${dropped.map((w) => `${w.location.file}: ${w.text}`).join('; ')}. ` +
      'List the module in package.json "sideEffects"');
  }
  return result.outputFiles[0].text;
}

const pageEntry = path.join(web, 'page', 'shell', 'main.js');
if (fs.existsSync(pageEntry)) {
  // page.js and its on-demand chunks (page-*.js: the GIF encoder of export/animation.js), which
  // it imports only when asked for; the single file below inlines them (file:// loads no module)
  for (const old of fs.readdirSync(dist)) if (/^page-.+\.js$/.test(old)) fs.rmSync(path.join(dist, old));
  const split = await build({
    ...common, absWorkingDir: root, entryPoints: { page: pageEntry }, format: 'esm', splitting: true,
    outdir: dist, chunkNames: 'page-[name]-[hash]', write: false, metafile: true, plugins: [chartjsPure, noRelaxed, gptWorker],
  });
  checkSideEffects(split);
  checkNoRelaxed(split, 'dist/page.js');
  for (const out of split.outputFiles) fs.writeFileSync(out.path, out.text);
  const esm = split.outputFiles.find((o) => path.basename(o.path) === 'page.js').text;
  const pageChunks = split.outputFiles.filter((o) => path.basename(o.path) !== 'page.js');

  // The single file: the same page with its CSS (minified), script and icon inlined.
  const iife = await bundle(pageEntry, { format: 'iife', plugins: [noFineTune, noPretrained(
    'the single-file page (qkv-lab.html) does not carry the pretrained model; load its file, tang-poet.qkvgpt (the repository\'s web/pretrained/), with the writer\'s “Load a model file”, or serve the page (dist/page.js loads it on demand)')] });
  let html = fs.readFileSync(path.join(web, 'index.html'), 'utf8');
  html = html.replace(/<link rel="stylesheet" href="([^"]+)">/g, (_, href) =>
    `<style>\n${minifiedCSS(path.join(web, href))}</style>`);
  html = html.replace(/<link rel="icon" href="([^"]+)"[^>]*>/g, (_, href) => {
    const svg = fs.readFileSync(path.join(web, href));
    return `<link rel="icon" href="data:image/svg+xml;base64,${svg.toString('base64')}">`;
  });
  const tag = /<script type="module" src="dist\/page\.js"><\/script>/;
  if (!tag.test(html)) throw new Error('web/index.html must load <script type="module" src="dist/page.js"></script>');
  // a closing script tag inside the bundle would end the inline script early
  const safe = iife.replace(/<\/script/gi, '<\\/script');
  html = html.replace(tag, () => `<script>\n${safe}\n</script>`);
  fs.writeFileSync(path.join(dist, 'qkv-lab.html'), html);
  console.log(`page: dist/page.js ${kib(esm)} (${gzkib(esm)} gzipped), on demand ${pageChunks.map((c) => `${path.basename(c.path)} ${gzkib(c.text)}`).join(', ')} gzipped; dist/qkv-lab.html ${kib(html)}`);
}

const widgetEntry = path.join(web, 'widget', 'qkv-lab-widget.js');
if (fs.existsSync(widgetEntry)) {
  // CSS is imported as text: the widget adopts it as constructable stylesheets in its shadow
  // root (no <style> element, so no 'unsafe-inline' in a host page's CSP).
  // (The WebAssembly modules arrive compressed already: dist/qkv-wasm.js, see tools/wasm-bundle.mjs.)
  // The CSS the widget imports is minified first (its comments and spaces: 1 KiB gzipped).
  // web/widget/styles.js rewrites rem, @media (max-width) and vw in this text with regexes that
  // also match esbuild's minified output (".5rem", "@media(max-width:600px)", "60vw");
  // tests/browser/widget-*.test.js render the widget from it.
  const minifyCSS = {
    name: 'qkv-minify-css',
    setup(b) {
      b.onLoad({ filter: /\.css$/ }, (args) => ({ contents: minifiedCSS(args.path), loader: 'text' }));
      // a section's sheet kept as a JavaScript string (sections/training/training-css.js,
      // gpt/gpt-css.js: they travel with their sections' add-on), minified likewise
      b.onLoad({ filter: /-css\.js$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        const m = /export const (\w+) = `([^`]*)`;/.exec(source);
        if (!m) throw new Error(`build-page.mjs: ${args.path} must hold one export const NAME = \`…\`; of CSS`);
        const css = transformSync(m[2], { loader: 'css', minify: true, logLevel: 'warning' }).code;
        return { contents: `export const ${m[1]} = ${JSON.stringify(css)};\n`, loader: 'js' };
      });
    },
  };
  const { core, addons } = await classicWidget({ minifyCSS, extraPlugins: [gptWorker] });
  const BOM = '\ufeff';   // see classicWidget's options: the scripts are UTF-8
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget.js'), BOM + core);
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget-training.js'), BOM + addons.training);
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget-gpt.js'), BOM + addons.gpt);
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget-finetune.js'), BOM + addons.finetune);
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget-pretrained.js'), BOM + addons.pretrained);
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget-pretrained-section.js'), BOM + addons['pretrained-section']);
  console.log(`widget: dist/qkv-lab-widget.js ${kib(core)} (${gzkib(core)} gzipped), ` +
    `dist/qkv-lab-widget-training.js ${kib(addons.training)} (${gzkib(addons.training)} gzipped, fetched only for a training section), ` +
    `dist/qkv-lab-widget-gpt.js ${kib(addons.gpt)} (${gzkib(addons.gpt)} gzipped, fetched only for a GPT section), ` +
    `dist/qkv-lab-widget-finetune.js ${kib(addons.finetune)} (${gzkib(addons.finetune)} gzipped, fetched only for the fine-tuning section), ` +
    `dist/qkv-lab-widget-pretrained.js ${kib(addons.pretrained)} (${gzkib(addons.pretrained)} gzipped, fetched only by qkv.loadPretrained()), ` +
    `dist/qkv-lab-widget-pretrained-section.js ${kib(addons["pretrained-section"])} (${gzkib(addons["pretrained-section"])} gzipped, fetched only for the pretrained section)`);

  // The ES-module widget (`import 'qkv-lab/widget'` in a bundler): every module of the API that
  // the package ships (web/qkv-lab.js, heap.js, matrix.js, model.js, pca.js, corpus.js, inflate.js, dist/qkv-core.js,
  // dist/qkv-wasm.js) stays an
  // import of that same file, so a bundler sees one module where the app's own
  // `import { load } from 'qkv-lab'` and the widget meet: one copy of the API and of the WASM,
  // and one shared instance (QkvLab.load() and load() return the same object). It takes the
  // WASM as the API ships it (dist/qkv-wasm.js): the bytes are the API's.
  // The training sections stay a dynamic import: a chunk, qkv-lab-widget-*.mjs, that an app's
  // bundler splits off in turn. Each on-demand chunk is named after its module (training-sections,
  // gpt-sections, pretrained-sections, finetune-sections). UTF-8 as it is: an ES module is always
  // read as UTF-8, and the poems' characters escaped as \uXXXX would take twice the bytes.
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const apiFiles = new Set(pkg.files.filter((f) => f.endsWith('.js') && !/widget/.test(f)).map((f) => path.join(root, f)));
  const sharedApi = {
    name: 'qkv-shared-api',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const file = path.resolve(args.resolveDir, args.path);
        if (!apiFiles.has(file)) return undefined;
        const spec = path.relative(dist, file).split(path.sep).join('/');
        return { path: spec.startsWith('.') ? spec : `./${spec}`, external: true };
      });
    },
  };
  for (const old of fs.readdirSync(dist)) if (/^qkv-lab-widget-.+\.mjs$/.test(old)) fs.rmSync(path.join(dist, old));
  const esm = await build({
    ...common, absWorkingDir: root, entryPoints: { 'qkv-lab-widget': widgetEntry }, format: 'esm',
    splitting: true, outdir: dist, outExtension: { '.js': '.mjs' }, charset: 'utf8', chunkNames: 'qkv-lab-widget-[name]-[hash]',
    write: false, plugins: [chartjsPure, gptWorker, sharedApi, minifyCSS, sourcesHaveSideEffects],
  });
  checkSideEffects(esm);
  let entrySize = '';
  for (const out of esm.outputFiles) {
    fs.writeFileSync(out.path, out.text);
    if (path.basename(out.path) === 'qkv-lab-widget.mjs') entrySize = `${kib(out.text)} (${gzkib(out.text)} gzipped`;
  }
  const chunks = esm.outputFiles.filter((o) => path.basename(o.path) !== 'qkv-lab-widget.mjs');
  console.log(`widget: dist/qkv-lab-widget.mjs ${entrySize}, without the API it imports), ` +
    `${chunks.length} chunk(s) ${chunks.map((c) => `${path.basename(c.path)} ${gzkib(c.text)}`).join(', ')} gzipped`);
}

/**
 * The classic widget as a core and add-on scripts that share their modules (see web/widget/addon.js):
 *   core:   the widget's entry; the registry's on-demand imports (training-sections.js,
 *           gpt/gpt-sections.js) become addon.js's loader, and every module an add-on also imports
 *           is handed to it by path
 *   addons: one script per add-on; each module the core has is read from what the core shared
 *           (the same instances: one string table, one WASM instance), the rest is bundled
 */
async function classicWidget({ minifyCSS, extraPlugins = [] }) {
  const addonList = [
    { name: 'training', module: path.join(web, 'page', 'sections', 'training-sections.js'), exported: 'trainingSections',
      pattern: /training-sections\.js$/ },
    { name: 'gpt', module: path.join(web, 'page', 'gpt', 'gpt-sections.js'), exported: 'gptSections',
      pattern: /gpt\/gpt-sections\.js$/ },
    { name: 'finetune', module: path.join(web, 'page', 'finetune', 'finetune-sections.js'), exported: 'finetuneSections',
      pattern: /finetune\/finetune-sections\.js$/ },
    // qkv.loadPretrained()'s import of dist/qkv-pretrained.js: in the core, a function that
    // fetches this add-on (web/qkv-lab.js calls it), which brings the weights and the GPT engine
    { name: 'pretrained', module: path.join(web, 'widget', 'pretrained-addon.js'), exported: 'pretrained',
      pattern: /dist\/qkv-pretrained\.js$/ },
    // the 预训练 section (its data; the weights come through the add-on above when it is seen)
    { name: 'pretrained-section', module: path.join(web, 'page', 'pretrained', 'pretrained-sections.js'), exported: 'pretrainedSections',
      pattern: /pretrained\/pretrained-sections\.js$/ },
  ];
  const loader = path.join(web, 'widget', 'addon.js');
  const rel = (file) => path.relative(root, file).split(path.sep).join('/');
  const stub = {
    name: 'qkv-addons-on-demand',
    setup(b) {
      for (const addon of addonList) {
        b.onResolve({ filter: addon.pattern }, (args) => (args.kind === 'dynamic-import'
          ? { path: addon.name, namespace: 'qkv-on-demand' } : undefined));
      }
      b.onLoad({ filter: /.*/, namespace: 'qkv-on-demand' }, (args) => {
        const addon = addonList.find((a) => a.name === args.path);
        return {
          contents: `import { loadAddon } from ${JSON.stringify(loader)};\n` +
            `export const ${addon.exported} = () => loadAddon(${JSON.stringify(addon.name)});\n`,
          loader: 'js', resolveDir: web,
        };
      });
    },
  };
  // UTF-8 text, not \uXXXX escapes (half the bytes for Chinese); the files start with a byte order
  // mark, which makes a browser read a classic script as UTF-8 whatever the host page's encoding
  const options = { ...common, charset: 'utf8', absWorkingDir: root, write: false, metafile: true, logLevel: 'warning' };
  const entry = (contents) => ({ stdin: { contents, resolveDir: root, sourcefile: 'entry.js', loader: 'js' } });

  // the core script's build settings, for the pass that lists its modules (1) and the real one (3)
  const coreScript = { ...options, format: 'iife', plugins: [chartjsPure, ...extraPlugins, stub, noRelaxed, noGPT, noModel, minifyCSS, sourcesHaveSideEffects] };
  // 1. what the core holds: a build of the bare element, read only for its list of inputs
  const bare = await build({ ...coreScript, ...entry(`import ${JSON.stringify(widgetEntry)};`) });
  const coreFiles = new Set(Object.keys(bare.metafile.inputs).filter((f) => !f.includes(':')));
  // 2. which of those the add-ons import
  const crossing = new Set();
  const probe = {
    name: 'qkv-crossing',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === 'probe') return undefined;
        const found = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'probe' });
        if (found.errors.length || !found.path) return undefined;
        if (!coreFiles.has(rel(found.path))) return undefined;
        crossing.add(found.path);
        return { path: found.path, external: true };
      });
    },
  };
  for (const addon of addonList) {
    await build({ ...options, ...entry(`import ${JSON.stringify(addon.module)};`), format: 'esm', plugins: [chartjsPure, ...extraPlugins, probe, minifyCSS, sourcesHaveSideEffects] });
  }
  const shared = [...crossing].sort();
  // 3. the core, handing those modules over
  const coreEntry = [`import ${JSON.stringify(widgetEntry)};`, `import { shareModules } from ${JSON.stringify(loader)};`,
    ...shared.map((file, k) => `import * as m${k} from ${JSON.stringify(file)};`),
    `shareModules({ ${shared.map((file, k) => `${JSON.stringify(rel(file))}: m${k}`).join(', ')} });`].join('\n');
  const core = await build({ ...coreScript, ...entry(coreEntry) });
  // QKV_METAFILE=file: what each module adds to the core script (for trimming it to its budget)
  if (process.env.QKV_METAFILE) fs.writeFileSync(process.env.QKV_METAFILE, JSON.stringify(core.metafile));
  checkSideEffects(core);
  checkNoRelaxed(core, 'dist/qkv-lab-widget.js');
  checkNoPretrained(core, 'dist/qkv-lab-widget.js');
  // 4. the add-ons, reading them back
  const names = new Map();
  for (const file of shared) {
    const one = await build({ entryPoints: [file], bundle: false, write: false, metafile: true, format: 'esm', outdir: dist, logLevel: 'silent' });
    names.set(file, Object.values(one.metafile.outputs)[0].exports);
  }
  const key = `globalThis[Symbol.for(${JSON.stringify(WIDGET_KEY.description)})]`;
  const fromCore = {
    name: 'qkv-from-core',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === 'probe') return undefined;
        const found = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'probe' });
        return found.path && names.has(found.path) ? { path: found.path, namespace: 'qkv-from-core' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'qkv-from-core' }, (args) => {
        const list = names.get(args.path);
        const plain = list.filter((n) => n !== 'default');
        const lines = [`const m = ${key}.modules[${JSON.stringify(rel(args.path))}];`];
        if (plain.length) lines.push(`export const { ${plain.join(', ')} } = m;`);
        if (list.includes('default')) lines.push('export default m.default;');
        return { contents: lines.join('\n'), loader: 'js' };
      });
    },
  };
  const addons = {};
  for (const addon of addonList) {
    const target = addon.name === 'training' ? key : `${key}.addons[${JSON.stringify(addon.name)}]`;
    const addonEntry = `import { ${addon.exported} } from ${JSON.stringify(addon.module)};\n${target}.deliver(${addon.exported}());\n`;
    const built = await build({ ...options, ...entry(addonEntry), format: 'esm', plugins: [chartjsPure, noRelaxed, ...extraPlugins, fromCore, minifyCSS, sourcesHaveSideEffects] });
    checkSideEffects(built);
    checkNoRelaxed(built, `dist/${ADDONS[addon.name].file}`);
    const body = built.outputFiles[0].text;
    if (/^\s*(import|export)\b/m.test(body)) throw new Error(`build-page.mjs: the ${addon.name} add-on still has an import or export`);
    addons[addon.name] = ADDON_WRAPPER(body, addon.name);
  }
  return { core: core.outputFiles[0].text, addons };
}

/**
 * The page and the classic widget run SIMD128 (see noRelaxed): a build of theirs that took in
 * dist/qkv-relaxed.js (a build that forgot the plugin: the split page build once did, and
 * Chromium then ran relaxed kernels whose numbers differ from Node's by FMA rounding) fails here.
 */
function checkNoRelaxed(result, name) {
  const relaxed = Object.keys(result.metafile.inputs).filter((f) => /qkv-relaxed\.js$/.test(f));
  if (relaxed.length) throw new Error(`build-page.mjs: ${name} bundles the relaxed-SIMD kernels (${relaxed.join(', ')}); add the noRelaxed plugin to its build`);
  // nor the GPT kernels' relaxed build, which dist/qkv-gpt.js carries (withoutRelaxedGPTKernels)
  const carrying = (result.outputFiles || []).filter((f) => /"relaxed-simd":\{size:\d+,deflated:"/.test(f.text)).map((f) => path.basename(f.path));
  if (carrying.length) throw new Error(`build-page.mjs: ${name} bundles the relaxed-SIMD GPT kernels (${carrying.join(', ')}); add the noRelaxed plugin to its build`);
}

/** The same check bundle() makes, for builds made directly. */
function checkSideEffects(result) {
  const dropped = result.warnings.filter((w) => w.id === 'ignored-bare-import');
  if (dropped.length) {
    throw new Error(`build-page.mjs: ${dropped.map((w) => `${w.location.file}: ${w.text}`).join('; ')}. ` +
      'List the module in package.json "sideEffects"');
  }
}

function gzkib(text) {
  return `${(zlib.gzipSync(text, { level: 9 }).length / 1024).toFixed(1)} KiB`;
}

function minifiedCSS(file) {
  return transformSync(fs.readFileSync(file, 'utf8'), { loader: 'css', minify: true, logLevel: 'warning' }).code;
}

function kib(text) {
  return `${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`;
}
