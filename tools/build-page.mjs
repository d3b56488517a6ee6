// build-page.mjs: bundles the page (and the widget) with esbuild, after build.sh's emcc step.
//   web/dist/page.js         the demo page's script, one ES module (Chart.js and the WASM inlined)
//   web/dist/qkv-lab.html    the whole page in one file: works from file:// with no network
//   web/dist/qkv-lab-widget.js  the <qkv-lab> custom element as one classic script (<script src>)
//   web/dist/qkv-lab-widget.mjs the same element as an ES module for bundlers: it imports the
//                               package's own API instead of carrying a copy (see below)
// Nothing is fetched at run time: Chart.js comes from node_modules.
import { build, transformSync } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

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

const common = {
  bundle: true,
  minify: true,
  target: ['es2020'],
  legalComments: 'none',
  logLevel: 'warning',
  // the Emscripten glue reads import.meta.url only to locate a .wasm file; ours is inlined
  define: { 'import.meta.url': '""' },
};

async function bundle(entry, options) {
  const plugins = [chartjsPure, ...(options.plugins || [])];
  const result = await build({ ...common, entryPoints: [entry], write: false, ...options, plugins });
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

const pageEntry = path.join(web, 'page', 'main.js');
if (fs.existsSync(pageEntry)) {
  const esm = await bundle(pageEntry, { format: 'esm' });
  fs.writeFileSync(path.join(dist, 'page.js'), esm);

  // The single file: the same page with its CSS (minified), script and icon inlined.
  const iife = await bundle(pageEntry, { format: 'iife' });
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
  console.log(`page: dist/page.js ${kib(esm)}, dist/qkv-lab.html ${kib(html)}`);
}

const widgetEntry = path.join(web, 'widget', 'qkv-lab-widget.js');
if (fs.existsSync(widgetEntry)) {
  // CSS is imported as text: the widget adopts it as constructable stylesheets in its shadow
  // root (no <style> element, so no 'unsafe-inline' in a host page's CSP).
  const { gzipSync } = zlib;
  // The glue's inlined base64 WASM becomes base64 of the gzipped WASM, inflated at run time by
  // web/widget/wasm-binary.js and passed to the glue as wasmBinary (see that file for why).
  const gzipWasm = {
    name: 'qkv-core-gzip',
    setup(b) {
      b.onLoad({ filter: /[\\/]qkv-core\.js$/ }, (args) => {
        const glue = fs.readFileSync(args.path, 'utf8');
        const uri = /"data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"/.exec(glue);
        const tail = /export default (\w+);\s*$/.exec(glue);
        if (!uri || !tail) throw new Error('qkv-core.js is not the single-file Emscripten glue the widget expects');
        const packed = gzipSync(Buffer.from(uri[1], 'base64'), { level: 9 }).toString('base64');
        const inflate = JSON.stringify(path.join(web, 'widget', 'wasm-binary.js'));
        const contents = glue.replace(uri[0], '"data:application/octet-stream;base64,"').replace(tail[0], '') +
          `\nimport { gunzipBase64 } from ${inflate};\nconst PACKED = "${packed}";\n` +
          `export default (options = {}) => gunzipBase64(PACKED).then((wasmBinary) => ${tail[1]}({ ...options, wasmBinary }));\n`;
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
  // The CSS the widget imports is minified first (its comments and spaces: 1 KiB gzipped).
  // web/widget/styles.js rewrites rem, @media (max-width) and vw in this text with regexes that
  // also match esbuild's minified output (".5rem", "@media(max-width:600px)", "60vw");
  // tests/browser/widget-*.test.js render the widget from it.
  const minifyCSS = {
    name: 'qkv-minify-css',
    setup(b) {
      b.onLoad({ filter: /\.css$/ }, (args) => ({ contents: minifiedCSS(args.path), loader: 'text' }));
    },
  };
  const iife = await bundle(widgetEntry, { format: 'iife', plugins: [gzipWasm, minifyCSS] });
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget.js'), iife);
  console.log(`widget: dist/qkv-lab-widget.js ${kib(iife)} (${gzkib(iife)} gzipped)`);

  // The ES-module widget (`import 'qkv-lab/widget'` in a bundler): every module of the API that
  // the package ships (web/qkv-lab.js, matrix.js, model.js, corpus.js, dist/qkv-core.js) stays an
  // import of that same file, so a bundler sees one module where the app's own
  // `import { load } from 'qkv-lab'` and the widget meet: one copy of the API and of the WASM,
  // and one shared instance (QkvLab.load() and load() return the same object). It takes the
  // WASM as the API ships it (base64 in qkv-core.js), not gzipped: the bytes are the API's.
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
  const esm = await bundle(widgetEntry, { format: 'esm', plugins: [sharedApi, minifyCSS] });
  fs.writeFileSync(path.join(dist, 'qkv-lab-widget.mjs'), esm);
  console.log(`widget: dist/qkv-lab-widget.mjs ${kib(esm)} (${gzkib(esm)} gzipped, without the API it imports)`);
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
