// The npm package: `npm pack` ships exactly what a user needs (the API, its declarations, the
// built WASM glue, the widget and its declarations, the single-file page for iframe mode, README,
// licence) and nothing else (no tests, no C sources, no page sources, no tools). Then the packed
// tarball is installed into a scratch node_modules: `import 'qkv-lab'` computes the article's
// numbers, 'qkv-lab/widget' resolves to the widget, and the widget's declarations type-check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

const EXPECTED = [
  'LICENSE',
  'README.md',
  'package.json',
  'web/corpus.js',
  'web/dist/qkv-core.js',
  'web/dist/qkv-lab-widget.js',
  'web/dist/qkv-lab.html',
  'web/matrix.js',
  'web/model.js',
  'web/qkv-lab.d.ts',
  'web/qkv-lab.js',
  'web/widget/qkv-lab-widget.d.ts',
];

// The issue asks for under 120 KiB gzipped for the widget, Chart.js and WASM included (see the
// README's widget section for the breakdown).
const WIDGET_GZIP_BUDGET = 120 * 1024;

const npm = (args, options = {}) => execFileSync('npm', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });

let scratch;
before(() => { scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'qkv-lab-pack-')); });
after(() => { fs.rmSync(scratch, { recursive: true, force: true }); });

test('npm pack --dry-run lists exactly the files a user needs', () => {
  const [report] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts']));
  const files = report.files.map((f) => f.path).sort();
  assert.deepEqual(files, [...EXPECTED].sort());
  for (const f of files) assert.ok(!/^(tests|wasm|tools|web\/page|\.ci)\//.test(f), `${f} should not ship`);
});

test('package.json: a semantic version, and every export and type points at a shipped file', () => {
  assert.match(pkg.version, /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/);
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './widget']);
  const targets = [pkg.types, ...Object.values(pkg.exports).flatMap((e) => Object.values(e))];
  for (const target of targets) {
    const rel = target.replace(/^\.\//, '');
    assert.ok(EXPECTED.includes(rel), `${target} is not in the package`);
    assert.ok(fs.existsSync(path.join(ROOT, rel)), `${target} does not exist (run ./build.sh)`);
  }
  assert.equal(pkg.exports['./widget'].default, './web/dist/qkv-lab-widget.js');
});

test(`the widget is under its size budget gzipped (${WIDGET_GZIP_BUDGET / 1024} KiB)`, () => {
  const widget = fs.readFileSync(path.join(ROOT, 'web/dist/qkv-lab-widget.js'));
  const gzipped = zlib.gzipSync(widget, { level: 9 }).length;
  console.log(`widget: ${(widget.length / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  assert.ok(gzipped < WIDGET_GZIP_BUDGET, `${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  // one classic script: no import/export statements left, nothing fetched by name
  const text = widget.toString('utf8');
  assert.ok(!/^\s*(import|export)\s/m.test(text), 'the widget must be a classic script');
  assert.ok(!/\beval\(|new Function\(/.test(text), 'no eval (strict CSP)');
});

test('installed from the tarball: the API computes the article\'s numbers; ./widget resolves; types check', () => {
  const out = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch]));
  const tarball = path.join(scratch, out[0].filename);
  const app = path.join(scratch, 'app');
  const installed = path.join(app, 'node_modules', 'qkv-lab');
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module', private: true }));
  fs.writeFileSync(path.join(app, 'main.js'), `
    import { load } from 'qkv-lab';
    const qkv = await load();
    const rng = qkv.rng(42);
    const [Wq, Wk, Wv] = [rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3), rng.randn(4, 3).scale(0.3)];
    const X = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]];
    const { weights } = qkv.selfAttention(X, Wq, Wk, Wv, { scale: false });
    const model = qkv.createModel({ seed: 1 });
    model.dispose();
    console.log(JSON.stringify({ row: weights.row(0).map((w) => w.toFixed(3)), widget: import.meta.resolve('qkv-lab/widget') }));
  `);
  const result = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(result.row, ['0.313', '0.337', '0.350']);
  assert.ok(result.widget.endsWith('/node_modules/qkv-lab/web/dist/qkv-lab-widget.js'), result.widget);

  fs.writeFileSync(path.join(app, 'usage.ts'), `
    import 'qkv-lab/widget';
    import type { QkvLabElement, QkvLabStepDetail } from 'qkv-lab/widget';
    const el: QkvLabElement = document.createElement('qkv-lab');
    el.section = 'softmax';
    el.seed = 7;
    el.scale = true;
    el.theme = 'dark';
    el.addEventListener('qkv-step', (e) => { const d: QkvLabStepDetail = e.detail; console.log(d.step, d.count); });
    el.addEventListener('qkv-train', (e) => console.log(e.detail.loss));
    // @ts-expect-error not a section
    el.section = 'nope';
    void window.QkvLab.load().then((qkv) => qkv.heapUsed());
    console.log(QkvLab.version, el.language, el.playing);
    document.body.append(el);
  `);
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], skipLibCheck: false },
    files: ['usage.ts'],
  }));
  const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
  try {
    execFileSync(tsc, ['--noEmit', '-p', app], { cwd: app, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  }
});
