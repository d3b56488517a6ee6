// docs-tables.mjs: the parts of README.md and docs/*.md that state what the code or a data file
// holds, written from them. Each part sits between `<!-- generated:NAME -->` and
// `<!-- /generated:NAME -->`; everything else in the docs is prose that no test parses.
//   node tools/docs-tables.mjs            rewrite every generated part in place
//   node tools/docs-tables.mjs --check    exit 1, naming the part, where the docs differ
// The numbers come from: the section registry and the URL state (web/page/), createModel's
// defaults (web/model.js), the work rule (web/matrix.js), the training claims
// (web/page/training/claims.js), the quatrains (web/data/quatrains.js) and, for what only a
// measurement can give, docs/data/*.json, which the tests that measure compare with.
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECTION_IDS } from '../web/page/sections/index.js';
import { PROPERTIES } from '../web/page/shell/state.js';
import { ATTRIBUTES, WIDGET_SECTIONS } from '../web/widget/attributes.js';
import { MODEL_DEFAULTS, DEFAULT_LR } from '../web/model.js';
import { WORK_WEIGHTS, MAX_WORK, workOf } from '../web/matrix.js';
import { TRAINING_CLAIMS } from '../web/page/training/claims.js';
import { QUATRAINS } from '../web/data/quatrains.js';
import { readmeTable } from './training-measures.mjs';
import { tables as benchTables } from '../bench/tables.mjs';
import { FINETUNE_DEFAULTS } from '../web/finetune.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(ROOT, p), 'utf8');
const json = (p) => JSON.parse(read(p));
const grouped = (n) => n.toLocaleString('en-US');

/** A paragraph wrapped at `width` columns, at spaces outside `code`, as the docs' prose is. */
export function wrap(text, width = 100) {
  const lines = [];
  let line = '';
  let ticks = 0;  // backticks so far: odd inside a code span
  for (const word of text.split(' ')) {
    if (line && ticks % 2 === 0 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
    ticks += (word.match(/`/g) || []).length;
  }
  return [...lines, line].join('\n');
}

/** The documents that hold generated parts. */
export const DOCUMENTS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

// ---- the pretrained poet against counting and the real poems ----

/** web/data/pretrained-report.json (tools/pretrained-report.mjs) beside web/data/pretrained-baselines.json */
function pretrainedTable() {
  const r = json('web/data/pretrained-report.json');
  const b = json('web/data/pretrained-baselines.json');
  const forms = ['wujue', 'qijue', 'wulv', 'qilv'];
  const pct = (x) => (x === null || x === undefined ? '—' : x > 0 && x < 0.01 ? `${(100 * x).toFixed(2)} %` : `${Math.round(100 * x)} %`);
  const span = (range) => (!range ? '—' : pct(range[0]) === pct(range[1]) ? pct(range[0]) : `${pct(range[0])}–${pct(range[1])}`);
  const spread = (x, range) => (range ? `${pct(x)} (${span(range)})` : pct(x));
  const nats = (x) => x.toFixed(3);
  const rhymes = (f) => forms.map(f).join(' / ');
  const s = r.sampling;
  const rows = [
    '| | val. loss 五绝 | val. loss, all forms | well-formed | lines 2 and 4 rhyme (五绝 / 七绝 / 五律 / 七律) | lines found in the training poems |',
    '| --- | --- | --- | --- | --- | --- |',
    `| real held-out poems | | | 100 % | ${rhymes((f) => pct(b.real[f].lines24))} | ${pct(b.real.wujue.novelty.lineShare)} |`,
    `| **pretrained GPT** (the shipped int8 file; ${grouped(s.seeds[1] + 1)} samples: ${s.byForm.wujue} / ${s.byForm.qijue} / ${s.byForm.wulv} / ${s.byForm.qilv} of the four forms; in brackets the range over blocks of ${s.blocks.size} seeds) | **${nats(r.validation.shipped.wujue.loss)}** | ` +
      `**${nats(r.validation.shipped.all.loss)}** | ${spread(s.wellFormed, s.blocks.wellFormed)} | ${rhymes((f) => spread(s.rhyme[f].lines24, s.blocks.lines24[f]))} | ${pct(s.novelty.lineShare)} |`,
    `| position-aware bigram (all forms; 200 samples × 5 seeds) | ${nats(b.baselines.positional.val.wujue.loss)} | ` +
      `${nats(b.baselines.positional.val.all.loss)} | ${span(b.baselines.positional.samples.ranges.wellFormed)} | — | ${span(b.baselines.positional.samples.ranges.lineShare)} |`,
    `| interpolated trigram (all forms) | ${nats(b.baselines.trigram.val.wujue.loss)} | ${nats(b.baselines.trigram.val.all.loss)} | ` +
      `${span(b.baselines.trigram.samples.ranges.wellFormed)} | — | ${span(b.baselines.trigram.samples.ranges.lineShare)} |`,
    `| unigram | ${nats(b.baselines.unigram.val.wujue.loss)} | ${nats(b.baselines.unigram.val.all.loss)} | ` +
      `${span(b.baselines.unigram.samples.ranges.wellFormed)} | — | — |`,
    `| position-aware bigram trained on one form (五绝 / 七绝 / 五律 / 七律) | ${nats(b.perForm.positional.wujue.val.loss)} | | ` +
      `${rhymes((f) => span(b.perForm.positional[f].samples.ranges.wellFormed))} | ${rhymes((f) => span(b.perForm.positional[f].samples.ranges.lines24))} | |`,
    `| chance: two even-line ends drawn at random | | | | ${rhymes((f) => pct(b.real[f].chance))} | |`,
  ];
  return rows.join('\n');
}

/** How the shipped poet was trained and what quantization cost (web/data/pretrained-report.json) */
function pretrainedTraining() {
  const r = json('web/data/pretrained-report.json');
  const t = r.training, c = t.config, v = r.validation;
  const minutes = (x) => Math.round(x / 60);
  const cost = (k) => (v.shipped[k].loss - v.float32[k]).toFixed(4);
  return [
    '| | |', '| --- | --- |',
    `| model | ${c.layers} layers, ${c.heads} heads, width ${c.dim}, context ${c.context}; ${grouped(r.model.parameters)} parameters; vocabulary ${grouped(r.model.vocab)} |`,
    `| text | ${grouped(t.text.poems)} poems, ${grouped(t.text.characters)} characters (五绝 ${grouped(t.text.byForm.wujue)}, 七绝 ${grouped(t.text.byForm.qijue)}, 五律 ${grouped(t.text.byForm.wulv)}, 七律 ${grouped(t.text.byForm.qilv)}); FNV-1a ${t.text.checksum} |`,
    `| schedule | ${grouped(c.steps)} AdamW steps of ${c.batch} windows × ${c.context} tokens (${grouped(c.steps * c.batch * c.context)} tokens), lr ${c.lr}, ${c.warmup} warm-up steps, cosine to lr / 10, seed ${c.seed} |`,
    `| time | ${minutes(t.cpuSeconds)} min of CPU, ${minutes(t.wallSeconds)} min wall, on ${t.hardware} |`,
    `| training loss | ${t.lossCurve.at(-1)[1].toFixed(3)} at step ${grouped(t.lossCurve.at(-1)[0])} (the mean of the last 50 steps) |`,
    `| shipped file | ${(r.model.bytes / 1024).toFixed(0)} KiB, ${(r.model.gzipBytes / 1024).toFixed(0)} KiB gzipped: int8 matrices with a float32 scale per row |`,
    `| quantization cost | ${cost('all')} nats per character on all validation poems (五绝 ${cost('wujue')}, 七律 ${cost('qilv')}) against the float32 weights |`,
  ].join('\n');
}

// ---- the demo page's sections and the widget's attributes ----

/** The page's sections in story order, each with what docs/data/sections.json says it shows. */
/** A load average before and after a run, to one decimal: "0.3", or "0.3 to 0.6" when they differ. */
const loadRange = (before, after) => (before.toFixed(1) === after.toFixed(1) ? before.toFixed(1) : `${before.toFixed(1)} to ${after.toFixed(1)}`);

/** bench/pretrained-results.json (bench/pretrained.mjs, run by npm run bench): the poet's speed beside TF.js */
function pretrainedSpeed() {
  const r = json('bench/pretrained-results.json');
  const g = r.generation, n = (x) => grouped(Math.round(x));
  const label = { 'qkv-lab free': `qkv-lab (${r.kernels} kernels), free poems`, 'qkv-lab wujue': `qkv-lab (${r.kernels} kernels), locked to 五绝`,
    'TF.js free': `TF.js ${r.tfjsBackend ?? ''} backend, one thread, the same weights, free poems`,
    'qkv-lab free, Chromium': `qkv-lab in headless Chromium${r.chromium ? ` ${r.chromium.version.split('.')[0]}` : ''} (${r.chromium?.kernels ?? '?'} kernels), free poems, wall-clock` };
  const rows = Object.entries(g).map(([id, x]) => `| ${label[id] ?? id} | ${n(x.charsPerSecond)} | ${x.msPerPoem.toFixed(1)} |`);
  const ratio = r.ratio ? Object.values(r.ratio)[0] : null;
  const l = r.load, date = r.date.slice(0, 10);
  return ['| with the KV cache, T = 0.8 | characters per second | ms per poem |', '| --- | --- | --- |', ...rows, '',
    wrap(`Measured on ${date} by \`npm run bench\` (\`bench/pretrained.mjs\`): ${r.rounds} interleaved rounds of ${r.poemsPerBatch} ` +
      `poems per row, the median of the process's CPU time (the page's wall-clock time in Chromium, which has no CPU clock), on ${r.machine.cpus} cores (${r.machine.cpu}) with a load average of ` +
      `${loadRange(r.machine.loadAverageBefore[0], r.machine.loadAverageAfter[0])}.` +
      (ratio ? ` qkv-lab writes ${ratio.toFixed(1)}× as many characters per second as TF.js on the same weights.` : '') +
      ` From \`loadPretrained()\` to the first finished 五绝, in a fresh Node process: ${n(l.msToFirstPoem)} ms wall-clock, ` +
      `${n(l.cpuMsToFirstPoem)} ms of CPU (median of ${l.runs.length}).`)].join('\n');
}

function sectionsTable() {
  const notes = json('docs/data/sections.json');
  const missing = SECTION_IDS.filter((id) => !Object.hasOwn(notes, id));
  const extra = Object.keys(notes).filter((id) => !SECTION_IDS.includes(id));
  if (missing.length || extra.length) throw new Error(`docs/data/sections.json: no note for ${missing}; not a section: ${extra}`);
  return ['| # | id | what it shows |', '| --- | --- | --- |',
    ...SECTION_IDS.map((id, i) => `| ${i + 1} | \`${id}\` | ${notes[id]} |`)].join('\n');
}

/** A property's default as the attribute table writes it. */
function formatDefault(prop) {
  if (prop.type === 'bool') return prop.default ? 'on' : 'off';
  return `\`${prop.default}\``;
}

/** Every attribute of <qkv-lab>: values from docs/data/widget-attributes.json, defaults from state.js. */
function attributesTable() {
  const notes = json('docs/data/widget-attributes.json');
  const missing = ATTRIBUTES.filter((a) => !Object.hasOwn(notes, a));
  const extra = Object.keys(notes).filter((a) => !ATTRIBUTES.includes(a));
  if (missing.length || extra.length) throw new Error(`docs/data/widget-attributes.json: no row for ${missing}; not an attribute: ${extra}`);
  const rows = ATTRIBUTES.map((name) => {
    const note = notes[name];
    let values = note.values;
    if (name === 'section') {
      values = WIDGET_SECTIONS.map((id) => (id === 'walkthrough' ? `\`walkthrough\` (${note.walkthrough})` : `\`${id}\``)).join(', ') + ` (${note.values})`;
    }
    // a default the note does not word itself is the one state.js applies
    const prop = PROPERTIES.find((p) => p.name === name);
    const def = note.default ?? formatDefault(prop);
    return `| \`${name}\` | ${values} | ${def} |`;
  });
  return ['| attribute | values | default |', '| --- | --- | --- |', ...rows].join('\n');
}

// ---- the API's numbers ----

/** createModel's signature with the defaults it applies. */
function createModelSignature() {
  const d = MODEL_DEFAULTS;
  return '```text\n' +
    `qkv.createModel({ corpus, dim = ${d.dim}, seed = ${d.seed}, optimizer = '${d.optimizer}', ` +
    `lr = ${DEFAULT_LR.sgd} (sgd) / ${DEFAULT_LR.adam} (adam), batchSize = ${d.batchSize}, steps = ${d.steps}, ` +
    `beta1 = ${d.beta1}, beta2 = ${d.beta2}, eps = ${d.eps} })\n` + '```';
}

/** The largest n whose call of cost(n) the work rule lets through. */
export function largest(cost) {
  let n = 1;
  while (workOf(cost(n + 1)) <= MAX_WORK) n++;
  return n;
}

/** The work rule's weights and the largest calls it allows, as the Limits section states them. */
export function workRuleFacts() {
  return {
    weights: { ...WORK_WEIGHTS },
    matmul: largest((n) => ({ multiplyAdds: n ** 3, elements: 3 * n * n })),
    transpose: largest((n) => ({ elements: 2 * n * n })),
    softmaxRows: largest((n) => ({ exps: n * n, elements: 2 * n * n })),
    randn: largest((n) => ({ draws: n * n, elements: n * n })),
    selfAttentionTokens: largest((n) => ({ multiplyAdds: 3 * n + 2 * n * n, exps: n * n, elements: 2 * n * n + 5 * n + 3 })),
    positionalEncodingWidthAt2e16: largest((d) => ({ table: d * 2 ** 16, elements: d * 2 ** 16 })),
    positionalEncodingWidthAt2e20: largest((d) => ({ table: d * 2 ** 20, elements: d * 2 ** 20 })),
    modelMillionParameters: Math.round(MAX_WORK / WORK_WEIGHTS.parameters / 1e4) / 100,
  };
}

function workRule() {
  const f = workRuleFacts();
  const w = f.weights;
  return wrap(`Besides its multiply-adds, a call is charged, per unit, the weights \`WORK_WEIGHTS\` ` +
    `(a constant of \`web/matrix.js\`, not a package export, measured by \`node tools/measure-work.mjs\`): every float copied in or out ` +
    `or written (\`elements\` ${w.elements}), every softmax entry (\`exps\` ${w.exps}), every positional-encoding ` +
    `entry (\`table\` ${w.table}), every normal draw of \`randn\` (\`draws\` ${w.draws}), every parameter ` +
    `\`createModel\` makes (\`parameters\` ${w.parameters}) and every parameter a training step updates ` +
    `(\`sgd\` ${w.sgd}, \`adam\` ${w.adam}). So the largest calls allowed are: a square \`matmul\` of ` +
    `${f.matmul}³, \`transpose\` of ${f.transpose}², \`softmaxRows\` of ${f.softmaxRows}², \`randn\` of ${f.randn}², ` +
    `\`selfAttention\` with d = 1 over ${grouped(f.selfAttentionTokens)} tokens, \`positionalEncoding\` of ` +
    `2²⁰ × ${f.positionalEncodingWidthAt2e20} or 2¹⁶ × ${f.positionalEncodingWidthAt2e16}, and a model of about ` +
    `${f.modelMillionParameters} million parameters.`);
}

// ---- training: the claims table and the findings stated beside it ----

function claimsTable() {
  return readmeTable(TRAINING_CLAIMS);
}

/** "within 3,000 steps … no seed diverged at 0.3 or 0.4, 1 of 30 at 0.5 (seed 11, at step 2,959), …" */
function divergenceSentence() {
  const { steps, seeds, byLr } = json('docs/data/training-findings.json').divergence;
  const none = byLr.filter((r) => r.count === 0).map((r) => r.lr);
  const some = byLr.filter((r) => r.count > 0).map((r) => `${r.count} of ${seeds} at ${r.lr}` +
    (r.diverged ? ` (${r.diverged.map((d) => `seed ${d.seed}, at step ${grouped(d.step)}`).join('; ')})` : ''));
  return wrap(`Over seeds 0–${seeds - 1}, within ${grouped(steps)} steps (twice the schedule), no seed diverged at ` +
    `${none.join(' or ')}, ${some.slice(0, -1).join(', ')} and ${some.at(-1)}.`);
}

function countingParagraph() {
  const c = json('docs/data/training-findings.json').counting;
  return wrap(`On the strict test (every animal nearer every other animal than any vehicle), training passes it on ` +
    `${c.strictPasses} of 30 seeds, where both counts pass. Training leaves 猫 and 狗 less alike than the next-word ` +
    `counts do on ${c.catDogBelowNextWord} of 30 seeds and than PPMI-SVD on ${c.catDogBelowPpmi}. The one place ` +
    `training goes further is the vehicles: 汽车 ends further from 猫 than under either count on ${c.catCarBelowBoth} ` +
    `of 30 seeds. 国王 − 男人 + 女人 gives 女王 on ${c.analogyQueen} of 30 seeds, and 国王 + 女人 alone, with no − 男人, ` +
    `on ${c.sumQueen} of 30, so closeness to 国王 and 女人 together finds it nearly as well; both beat 国王's own ` +
    `nearest word and the nonsense 国王 − 猫 + 狗, which give 女王 on ${c.kingNearestQueen} and ${c.controlQueen} ` +
    `of 30 seeds. The next-word counts answer even 国王 + 女人 alone and the nonsense 国王 − 猫 + 狗 with 女王; with ` +
    `PPMI-SVD the offset does matter: 国王 + 女人 alone puts ${c.ppmiSumTop} first and 女王 second.`);
}

// ---- sizes that a measurement gives (docs/data/sizes.json; the tests that measure compare) ----

function bundleTable() {
  const { bundles } = json('docs/data/sizes.json');
  const b = Object.fromEntries(Object.entries(bundles).map(([k, v]) => [k, v.toFixed(1)]));
  return ['| app | imports | gzipped |', '| --- | --- | --- |',
    `| Matrix only | \`import { Matrix } from 'qkv-lab'\` | ${b.matrix} KiB |`,
    `| API only | \`import { load } from 'qkv-lab'\` | ${b.api} KiB |`,
    `| widget only | \`import 'qkv-lab/widget'\` | ${b.widget} KiB |`,
    `| API + widget | both | ${b.both} KiB |`,
    `| training sections, on demand | the chunks the training sections fetch (the timeline's and the trainable model's included) | ${b.trainingSections} KiB |`,
    `| trainable model, on demand | the chunk \`load({ model: true })\` fetches (\`web/model.js\` with the corpus and the PCA; \`createModel\` needs it, no attention call does) | ${b.model} KiB |`,
    `| GPT engine, on demand | the chunks \`load({ gpt: true })\` fetches (its WebAssembly module and \`web/gpt.js\`) | ${b.gptEngine} KiB |`,
    `| other kernel builds, on demand | the relaxed-SIMD and the scalar kernels' chunks, each fetched only by an engine that runs it | ${b.kernels} KiB both |`,
  ].join('\n');
}

function widgetFilesTable() {
  const { widgetScripts: w } = json('docs/data/sizes.json');
  const kib = (x) => x.toFixed(1);
  return ['| file | what it holds | size | gzip -9 |', '| --- | --- | --- | --- |',
    `| \`qkv-lab-widget.js\` | the element, every attention and data-flow section, the API and its WebAssembly (the GPT engine and the trainable model aside) | ${w.core.raw} KiB | ${kib(w.core.gzip)} KiB |`,
    `| \`qkv-lab-widget-training.js\` | \`trainstep\` and \`training\`, the trainable model (\`createModel\`), with Chart.js; fetched the first time a post shows one | ${w.training.raw} KiB | ${kib(w.training.gzip)} KiB |`,
    `| \`qkv-lab-widget-gpt.js\` | \`block\`, \`writer\` and \`generate\`, the writer's worker and the Tang quatrains; fetched the first time a post shows one | ${w.gpt.raw} KiB | ${kib(w.gpt.gzip)} KiB |`,
    `| \`qkv-lab-widget-finetune.js\` | \`finetune\`, its worker, the fine-tuning poems and the Tang validation poems, with Chart.js; fetched the first time a post shows it | ${w.finetune.raw} KiB | ${kib(w.finetune.gzip)} KiB |`,
    `| \`qkv-lab-widget-pretrained-section.js\` | \`pretrained\` and the measurements it shows (the training report, the baselines, the rhyme head); fetched the first time a post shows it | ${w['pretrained-section'].raw} KiB | ${kib(w['pretrained-section'].gzip)} KiB |`,
    `| \`qkv-lab-widget-pretrained.js\` | the pretrained poet's weights and the GPT engine: fetched by \`qkv.loadPretrained()\`, which \`pretrained\`, \`finetune\` and \`generate\` (with its default model, the poet) call when first seen | ${w.pretrained.raw} KiB | ${kib(w.pretrained.gzip)} KiB |`,
  ].join('\n');
}

function webpackNote() {
  const { webpack: w } = json('docs/data/sizes.json');
  // webpack's production builds hint at any asset and any entrypoint above 250,000 bytes
  const HINT_KIB = 250000 / 1024;
  const files = [
    [`a widget app's entry`, w.widgetEntryMinifiedKiB],
    [`the training sections' chunk`, w.trainingSectionsChunkMinifiedKiB],
    [`the GPT sections' chunk (their worker and the Tang quatrains)`, w.gptSectionsChunkMinifiedKiB],
    [`the fine-tuning section's chunk (its worker and poems)`, w.poetSectionsChunkMinifiedKiB],
  ];
  const over = files.filter(([, kib]) => kib > HINT_KIB).map(([what]) => what.replace(/ \(.*\)$/, ''));
  const list = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
  return wrap(`Built with esbuild's minifier, as the consumer test builds them, ` +
    `${list(files.map(([what, kib]) => `${what} comes to about ${kib} KiB`))}. ` +
    `webpack's production builds hint at any asset and any entrypoint above 250,000 bytes (printed as 244 KiB), ` +
    `so it warns about ${list(over)}. What a page ` +
    `transfers is the gzipped size in the table above, and the chunks come only when a post shows their sections. ` +
    `To raise the limits above them, in \`webpack.config.js\` (or \`performance: { hints: false }\` to turn ` +
    `the hints off):`) + '\n\n' +
    '```js\n' + `export default {\n  performance: { maxAssetSize: ${w.maxAssetSize}, maxEntrypointSize: ${w.maxEntrypointSize} },\n};\n` + '```';
}

function installSizes() {
  const { install: i } = json('docs/data/sizes.json');
  return wrap(`\`npm ci\` installs about ${i.nodeModulesMB} MB into \`node_modules\`: esbuild, Chart.js, playwright-core, ` +
    `TypeScript 7 and 5, and a few small packages. What only the benchmark compares with, TensorFlow.js and ` +
    `onnxruntime-web, is declared in \`bench/package.json\` and installed the first time the benchmark runs, into ` +
    `\`bench/node_modules\` (about ${i.benchNodeModulesMB} MB).`);
}

// ---- the benchmark's run (bench/results.json, as bench/tables.mjs prints it) ----

const bench = () => benchTables(json('bench/results.json'));

// ---- the GPT step's kernels (bench/gpt-compare.mjs → bench/gpt-kernels.json, bench/gpt-profile.mjs → bench/gpt-profile.json) ----

/** performance.md's before/after table of a GPT training step, from bench/gpt-compare.mjs's JSON (round three's: bench/gpt-kernels.json) */
function gptKernelsTable(file = 'bench/gpt-kernels.json') {
  const r = json(file);
  const names = { 'relaxed-simd': 'relaxed SIMD (FMA)', simd128: 'SIMD128', scalar: 'scalar' };
  const lines = [`| build | before ms (${r.rounds} rounds) | after ms (${r.rounds} rounds) | before → after | GFLOP/s, share of its ceiling |`, "|---|---|---|---|---|"];
  const builds = [...new Set(Object.keys(r.rows).map((id) => id.replace(/ (before|after)$/, '')))];
  for (const b of builds) {
    const x = r.rows[`${b} before`], y = r.rows[`${b} after`];
    const runs = (row) => `${row.msPerStep.toFixed(1)} (${Math.min(...row.runs).toFixed(1)}–${Math.max(...row.runs).toFixed(1)})`;
    const share = (row) => (row.share === null ? '' : ` (${Math.round(100 * row.share)}%)`);
    lines.push(`| ${names[b] ?? b} | ${runs(x)} | ${runs(y)} | ${(x.msPerStep / y.msPerStep).toFixed(2)}× | ` +
      `${x.gflops.toFixed(1)}${share(x)} → ${y.gflops.toFixed(1)}${share(y)} |`);
  }
  return lines.join('\n');
}

/** performance.md's profile of a GPT step, before and after, from bench/gpt-profile.mjs's JSON (round three's: bench/gpt-profile.json) */
function gptProfileTable(file = 'bench/gpt-profile.json') {
  const r = json(file);
  // one row per product whatever entry point ran it (C + A·B or A·B; matmul_backward's dA or matmul_abt)
  const canonical = (key) => key.replace(/^(dA|dB): /, '').replace(/^C\+/, '')
    .replace(/^the GPT engine's own code \(.*\)$/, 'the GPT engine\'s own code (all that no timer takes)')
    .replace(/^(softmax rows (\d+×\d+)|softmax_crossentropy_rows)$/, 'softmax rows of the logits (after: with the cross-entropy gradient)');
  const builds = r.builds.map((b) => {
    const rows = [];
    for (const row of b.rows) {
      const key = canonical(row.key), same = rows.find((x) => x.key === key);
      if (same) same.ms += row.ms; else rows.push({ ...row, key });
    }
    return { ...b, rows };
  });
  const keys = [];
  for (const b of builds) for (const row of b.rows) if (!keys.includes(row.key)) keys.push(row.key);
  const cell = (b, key) => { const row = b.rows.find((x) => x.key === key); return row ? `${row.ms.toFixed(1)} (${(100 * row.ms / b.stepMs).toFixed(0)}%)` : '—'; };
  const lines = [`| ms/step (share) | ${builds.map((b) => `${b.kernels === 'relaxed-simd' ? 'relaxed' : 'SIMD128'} ${b.when}`).join(' | ')} |`,
    `|---|${builds.map(() => '---:').join('|')}|`,
    `| **the step** | ${builds.map((b) => `**${b.stepMs.toFixed(1)}**`).join(' | ')} |`];
  for (const key of keys) lines.push(`| ${key} | ${builds.map((b) => cell(b, key)).join(' | ')} |`);
  return lines.join('\n');
}

/** gpt.md's "Speed": bench/gpt.mjs's last full run (bench/gpt-results.json), each row's median over its rounds and their range, and the targets as the benchmark judged them. */
function gptSpeed() {
  const r = json('bench/gpt-results.json');
  const names = {
    relaxed: 'qkv-lab, relaxed-SIMD kernels (FMA)', simd: 'qkv-lab, SIMD128 kernels', scalar: 'qkv-lab, scalar kernels',
    native: 'the same C natively, gcc -O3 -march=native', 'native-fast': 'the same C natively, gcc -O3 -march=native -ffast-math',
    tfjs: 'TF.js WASM, autodiff and Adam',
    'tfjs-xnnpack': 'TF.js WASM, matrix-product gradients by hand', chromium: `qkv-lab in headless Chromium (${({ 'relaxed-simd': 'relaxed SIMD', simd128: 'SIMD128', scalar: 'scalar' })[r.chromium?.kernels] ?? r.chromium?.kernels}, wall-clock)`,
  };
  const grouped = (x) => Math.round(x).toLocaleString('en-US');
  const load = r.machine.loadAverageBefore && r.machine.loadAverageAfter ? `, load average ${r.machine.loadAverageBefore[0]} → ${r.machine.loadAverageAfter[0]}` : '';
  const lines = [`One run of \`node bench/gpt.mjs\`, ${r.date.slice(0, 10)}, ${r.machine.cpus} cores (${r.machine.cpu}${load}), ${r.rounds} rounds of ${r.stepsPerBatch} steps per row:`, '',
    '| | ms per step (range over the rounds) | characters per second |', '| --- | --- | --- |'];
  for (const [id, row] of Object.entries(r.training)) {
    const range = row.runs ? ` (${Math.min(...row.runs).toFixed(1)}–${Math.max(...row.runs).toFixed(1)})` : '';
    const bold = id === 'relaxed' || id === 'simd' ? (x) => `**${x}**` : (x) => x;
    lines.push(`| ${names[id] ?? row.label} | ${row.msPerStep.toFixed(1)}${range} | ${bold(grouped(row.charsPerSecond))} |`);
  }
  lines.push('', '| target | measured in that run | |', '| --- | --- | --- |');
  for (const t of r.targets) lines.push(`| ${t.target} | ${t.value} | ${t.met ? 'met' : '**missed**'} |`);
  return lines.join('\n');
}

/** gpt.md's "It learns": bench/gpt-learning.json (tools/measure-gpt.mjs), ranges over its seeds. */
function gptLearning() {
  const r = json('bench/gpt-learning.json');
  const steps = r.runs[0].points.map((p) => p.step);
  const range = (values, f) => {
    const [lo, hi] = [Math.min(...values), Math.max(...values)].map(f);
    return lo === hi ? lo : `${lo}–${hi}`;
  };
  const rows = steps.map((step) => {
    const points = r.runs.map((run) => run.points.find((p) => p.step === step));
    return `| ${step} | ${range(points.map((p) => p.seconds), (x) => String(Math.round(x)))} | ` +
      `${range(points.map((p) => p.val), (x) => x.toFixed(2))} | ${range(points.map((p) => p.train), (x) => x.toFixed(2))} | ` +
      `${range(points.map((p) => p.form), (x) => String(Math.round(100 * x)))}% |`;
  });
  return ['| step | seconds of training (CPU, one core) | validation loss | training loss | well formed (of 50 poems) |',
    '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/**
 * page-pretrained.md's rhyme head: web/data/rhyme-head.json (tools/measure-rhyme-head.mjs), every
 * layer and head from the row that writes line 4's last character, and from that character's own row.
 */
function rhymeHead() {
  const r = json('web/data/rhyme-head.json');
  const cell = (x) => `${x.toRhyme.toFixed(3)} (${x.ratio >= 100 ? Math.round(x.ratio) : x.ratio.toFixed(1)}×, ${Math.round(100 * x.line2Most)} %)`;
  const table = (part) => ['| | ' + r.predicting.heads[0].map((_, h) => `head ${h + 1}`).join(' | ') + ' |',
    '| --- | ' + r.predicting.heads[0].map(() => '---').join(' | ') + ' |',
    ...part.heads.map((row, l) => `| layer ${l + 1} | ${row.map(cell).join(' | ')} |`)].join('\n');
  return `Over ${r.poems.all} held-out quatrains (${r.poems.wujue} 五绝, ${r.poems.qijue} 七绝; ${r.poems.skipped} with a character outside ` +
    'the vocabulary left out). Each cell: the mean weight on line 2\'s last character, that as a multiple of the mean weight on ' +
    'the other earlier tokens, and the share of poems where line 2\'s end gets more than the ends of lines 1 and 3.\n\n' +
    `From the row that writes line 4's last character (the character before it):\n\n${table(r.predicting)}\n\n` +
    `From line 4's last character itself:\n\n${table(r.atRhyme)}`;
}

// ---- fine-tuning (docs/finetune.md) ----

/** gpt.finetune's options with the defaults the code applies (FINETUNE_DEFAULTS, web/finetune.js). */
function finetuneOptions() {
  const d = FINETUNE_DEFAULTS;
  const lr = (x) => x.toExponential().replace('e-', 'e-').replace(/\.0+e/, 'e');
  return [
    '| option | default | meaning |',
    '| --- | --- | --- |',
    '| `text` | required | one document per line, at least 10 lines; every 10th line is held out (`val`) |',
    `| \`method\` | \`'${d.method}'\` | \`'lora'\` or \`'full'\` |`,
    `| \`rank\` | ${d.rank} | r, 1–64 (LoRA) |`,
    `| \`alpha\` | ${d.alpha} | α: the adapters are scaled by α/r (LoRA) |`,
    `| \`targets\` | \`[${d.targets.map((t) => `'${t}'`).join(', ')}]\` | the adapted matrices (LoRA) |`,
    `| \`lr\` | ${lr(d.lr.lora)} (LoRA), ${lr(d.lr.full)} (full) | AdamW's peak learning rate |`,
    `| \`batch\` | ${d.batch} | windows of \`context\` tokens per step, each starting at a document's start |`,
    `| \`steps\` | ${d.steps} | the default schedule (\`train()\` runs the rest of it) |`,
    `| \`seed\` | ${d.seed} | draws A and the windows |`,
    '| `baseText` | the base\'s validation text | text `evaluate().baseVal` scores (every line; at most 64 windows, evenly spaced) |',
  ].join('\n');
}

/** README's one line on fine-tuning, from web/data/finetune-report.json. */
function finetuneReadme() {
  const r = json('web/data/finetune-report.json');
  const lora = r.summary['lora-r4'];
  const pct = ([lo, hi]) => (lo === hi ? `${Math.round(100 * lo)} %` : `${Math.round(100 * lo)}–${Math.round(100 * hi)} %`);
  const secs = ([lo, hi]) => (Math.round(lo) === Math.round(hi) ? `${Math.round(lo)} s` : `${Math.round(lo)}–${Math.round(hi)} s`);
  return wrap(`Fine-tuned with the defaults (LoRA r ${lora.config.rank} on ${lora.config.targets.join(' and ')}: ` +
    `${grouped(lora.trainable)} trainable floats, ${(100 * lora.share).toFixed(1)} % of the model; ${lora.config.steps} steps, ` +
    `${secs(lora.cpuSeconds)} of one core), the pretrained poet writes the 宋词 tune 浣溪沙, which it never saw, in ` +
    `${pct(lora.huanxishaForm)} of unprompted samples (${pct([r.base.huanxishaForm, r.base.huanxishaForm])} before; seeds ` +
    `${lora.seeds.join(', ')}): [docs/finetune.md](docs/finetune.md#measured).`);
}

/** web/data/finetune-report.json (tools/measure-finetune.mjs): ranges over the seeds. */
function finetuneReport() {
  const r = json('web/data/finetune-report.json');
  const s = r.summary;
  const pct = (x) => `${Math.round(100 * x)} %`;
  const span = ([lo, hi], f) => (f(lo) === f(hi) ? f(lo) : `${f(lo)}–${f(hi)}`.replace(/ %–/, '–'));
  const nats = (x) => x.toFixed(3);
  const seeds = (x) => x.seeds.join(', ');
  const names = ['lora-r4', 'full', 'lora-r1', 'lora-r16'].filter((n) => s[n]);
  const e = (x) => x.toExponential().replace('+', '');
  const head = (n) => (s[n].config.method === 'full' ? `full, lr ${e(s[n].config.lr)}` :
    `LoRA r ${s[n].config.rank}, α ${s[n].config.alpha}, ${s[n].config.targets.join(' + ')}, lr ${e(s[n].config.lr)}`);
  const row = (label, f) => `| ${label} | ${names.map((n) => f(s[n])).join(' | ')} |`;
  const kib = (b) => `${(b / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB`;
  const huanxisha = [
    `| 浣溪沙 (${r.sets.huanxisha.train} poems; ${r.samples} samples a model) | ${names.map(head).join(' | ')} |`,
    `| --- |${names.map(() => ' --- |').join('')}`,
    row('seeds', seeds),
    row('schedule', (x) => `${x.config.steps} steps of ${x.config.batch} window`),
    row('CPU seconds of the schedule (one core)', (x) => span(x.cpuSeconds, (v) => v.toFixed(1))),
    row('steps per CPU second', (x) => span(x.stepsPerSecond, (v) => v.toFixed(1))),
    row(`浣溪沙 form rate (base ${pct(r.base.huanxishaForm)}) → after`, (x) => span(x.huanxishaForm, pct)),
    row(`浣溪沙 held-out loss (base ${nats(r.base.heldOut.huanxisha)}) → after`, (x) => span(x.heldOut.after, nats)),
    row(`baseVal, the Tang poems (base ${nats(s[names[0]].baseVal.before[0])}) → after`, (x) => span(x.baseVal.after, nats)),
    row(`五绝 asked for: lines 2, 4 rhyme (base ${pct(r.base.wujueRhyme)}) → after`, (x) => span(x.wujueRhyme, pct)),
    row('trainable floats (share)', (x) => `${grouped(x.trainable)} (${(100 * x.share).toFixed(2)} %)`),
    row('adapter file', (x) => (x.config.method === 'full' ? `${kib(x.adapterBytes)} (every parameter)` : kib(x.adapterBytes))),
    row('memory the run adds', (x) => `${(x.memoryBytes / 2 ** 20).toFixed(1)} MiB`),
  ];
  const poets = ['poet-lora-r4', 'poet-full'].filter((n) => s[n]);
  const poet = poets.length ? [
    '',
    `| ${r.sets.poet.name} (${r.sets.poet.train} poems, ${r.sets.poet.heldOut} held out) | ${poets.map(head).join(' | ')} |`,
    `| --- |${poets.map(() => ' --- |').join('')}`,
    `| seeds | ${poets.map((n) => seeds(s[n])).join(' | ')} |`,
    `| CPU seconds of the schedule | ${poets.map((n) => span(s[n].cpuSeconds, (v) => v.toFixed(1))).join(' | ')} |`,
    `| held-out loss (base ${nats(r.base.heldOut.poet)}) → after | ${poets.map((n) => span(s[n].heldOut.after, nats)).join(' | ')} |`,
    `| baseVal → after | ${poets.map((n) => span(s[n].baseVal.after, nats)).join(' | ')} |`,
    `| 五绝 rhyme → after | ${poets.map((n) => span(s[n].wujueRhyme, pct)).join(' | ')} |`,
    `| trainable share, adapter file | ${poets.map((n) => `${(100 * s[n].share).toFixed(2)} %, ${kib(s[n].adapterBytes)}`).join(' | ')} |`,
  ] : [];
  const speed = r.speed ? ['', `LoRA r ${s['lora-r4'].config.rank} steps ${span(r.speed.ratio, (v) => v.toFixed(2))}× as fast as full ` +
    `fine-tuning (seed by seed, one after the other in one process; seeds ${r.speed.seeds.map((x) => x.seed).join(', ')}).`] : [];
  return [...huanxisha, ...poet, ...speed].join('\n');
}

// ---- data ----

/** The figures of web/data/quatrains.js: its header's extraction funnel and the text's own counts. */
export function quatrainFacts() {
  const bytes = readFileSync(path.join(ROOT, 'web/data/quatrains.js'));
  const header = bytes.toString('utf8').split('\nexport ')[0];
  const number = (re) => Number(re.exec(header)[1].replaceAll(',', ''));
  const lines = QUATRAINS.poems.split('\n');
  const chars = lines.flatMap((line) => [...line]);
  const distinct = new Set(chars);
  return {
    poems: lines.length, characters: chars.length, distinct: distinct.size,
    astral: [...distinct].filter((c) => c.codePointAt(0) > 0xffff).length,
    sourcePoems: number(/Of ([\d,]+) poems/), notTwoLines: number(/([\d,]+) have not exactly two lines/),
    otherPunctuation: number(/([\d,]+) use ？ ！ or ；/), quatrains: number(/([\d,]+) are quatrains/),
    repeats: number(/of which ([\d,]+) repeat/),
    version: QUATRAINS.version, converter: QUATRAINS.converter.split(':')[0],
    kib: (bytes.length / 1024).toFixed(1),
    // whole KiB: zlib builds differ by a few bytes at level 9 (gzip(1) and Node's by 25 here)
    gzipKib: String(Math.round(gzipSync(bytes, { level: 9 }).length / 1024)),
  };
}

function quatrainsTable() {
  const f = quatrainFacts();
  return ['| file | what it is | source and licence | size |', '| --- | --- | --- | --- |',
    `| \`web/data/quatrains.js\` | \`QUATRAINS\`: ${grouped(f.poems)} five-character quatrains (五言绝句) of the Complete ` +
    `Tang Poems in simplified characters, one poem per line (\`xxxxx，xxxxx。xxxxx，xxxxx。\`, 24 characters), in source ` +
    `order, without repeats: ${grouped(f.characters)} characters, ${grouped(f.distinct)} distinct | the npm package ` +
    `\`chinese-poetry\` ${f.version} (MIT), converted to simplified with \`${f.converter}\` (MIT); the poems are in ` +
    `the public domain | ${f.kib} KiB, ${f.gzipKib} KiB gzip -9 |`,
    '| `web/data/quatrain-form.js` | `isWellFormedQuatrain(text)`: exactly 5 + 5 Han characters (`/\\p{Script=Han}/u`, ' +
    'one code point each), `，`, 5 + 5, `。`, nothing around them; `wellFormedShare(poems)` | ours (MIT) | under 3 KiB |',
    '',
    wrap(`The rule that gives ${grouped(f.poems)}: of the ${grouped(f.sourcePoems)} poems in the source, a poem is kept when ` +
    `it is stored as exactly two lines, each of the shape \`xxxxx，xxxxx。\` (five Han characters, \`，\`, five, \`。\`), ` +
    `and is not a repeat: ${grouped(f.quatrains)} are of that shape, ${grouped(f.repeats)} of them repeat an earlier poem. ` +
    `So four-line five-character poems stored otherwise are left out: the ${grouped(f.otherPunctuation)} of the ` +
    `5 + 5 shape that use ？, ！ or ；, poems stored as one line, and poems with a stray third line (a lone \`。\`) ` +
    `among the ${grouped(f.notTwoLines)} that are not two lines. ${f.astral} distinct characters lie beyond the BMP ` +
    `(鑪 becomes 𬬻): count characters by code point, not \`length\`.`),
  ].join('\n');
}

// ---- where things are ----

/** web/page's folders, each with what docs/data/layout.json says it holds. */
function pageLayout() {
  const notes = json('docs/data/layout.json');
  const folders = readdirSync(path.join(ROOT, 'web/page'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const missing = folders.filter((f) => !Object.hasOwn(notes, f));
  const extra = Object.keys(notes).filter((f) => !folders.includes(f));
  if (missing.length || extra.length) throw new Error(`docs/data/layout.json: no note for web/page/${missing}; no such folder: ${extra}`);
  const width = Math.max(...folders.map((f) => f.length)) + 3;
  const indent = (f) => wrap(notes[f], 100 - width).split('\n').map((l, i) => (i === 0 ? (f + '/').padEnd(width) : ' '.repeat(width)) + l).join('\n');
  return '```text\n' + folders.map(indent).join('\n') + '\n```';
}

// ---- the Markdown post a blogger copies (docs/data/markdown-post.md, rendered by the consumer test) ----

function markdownPost() {
  return '```markdown\n' + read('docs/data/markdown-post.md') + '```';
}

export const GENERATORS = {
  sections: sectionsTable,
  'widget-attributes': attributesTable,
  'create-model': createModelSignature,
  'work-rule': workRule,
  'training-claims': claimsTable,
  divergence: divergenceSentence,
  counting: countingParagraph,
  'bundle-sizes': bundleTable,
  'widget-files': widgetFilesTable,
  'webpack-limits': webpackNote,
  'install-sizes': installSizes,
  quatrains: quatrainsTable,
  'page-layout': pageLayout,
  'bench-all-results': () => bench().all,
  'bench-resident': () => bench().resident,
  'bench-ratios': () => bench().ratios,
  'gpt-learning': gptLearning,
  'gpt-speed': gptSpeed,
  'gpt-kernels': () => gptKernelsTable(),
  'gpt-profile': () => gptProfileTable(),
  // the engine's own code as kernels (GELU, AdamW): bench/gpt-compare.mjs and bench/gpt-profile.mjs against the commit before
  'gpt-own-code-kernels': () => gptKernelsTable('bench/gpt-own-code-compare.json'),
  'gpt-own-code-profile': () => gptProfileTable('bench/gpt-own-code-profile.json'),
  'pretrained-table': pretrainedTable,
  'pretrained-training': pretrainedTraining,
  'rhyme-head': rhymeHead,
  'pretrained-speed': pretrainedSpeed,
  'finetune-options': finetuneOptions,
  'finetune-report': finetuneReport,
  'finetune-readme': finetuneReadme,
  'markdown-post': markdownPost,
};

const BLOCK = /<!-- generated:([\w-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g;

/** The document's text with every generated part written anew, and the names of those it holds. */
export function regenerate(text) {
  const names = [];
  const out = text.replace(BLOCK, (all, name) => {
    const generate = GENERATORS[name];
    if (!generate) throw new Error(`no generator named ${name}`);
    names.push(name);
    return `<!-- generated:${name} -->\n${generate()}\n<!-- /generated:${name} -->`;
  });
  return { text: out, names };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const doc of DOCUMENTS) {
    const before = read(doc);
    const { text, names } = regenerate(before);
    if (text === before) continue;
    if (check) {
      stale++;
      console.error(`${doc}: a generated part is out of date (${names.join(', ')}): run node tools/docs-tables.mjs`);
    } else {
      writeFileSync(path.join(ROOT, doc), text);
      console.log(`wrote ${doc} (${names.join(', ')})`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
