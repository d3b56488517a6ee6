// tables.mjs: docs/performance.md's tables, printed as Markdown from a results file that
// bench/run.mjs wrote (default bench/results.json), so that the docs state what one run
// measured and nothing typed in by hand (tools/docs-tables.mjs writes them in with tables()).
//   node bench/tables.mjs [results.json]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const time = (ms) => (ms < 0.01 ? `${(ms * 1000).toFixed(2)} µs` : ms < 1 ? `${(ms * 1000).toFixed(ms < 0.1 ? 1 : 0)} µs` : ms < 100 ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : `${ms.toFixed(0)} ms`);
const gflops = (c, impl) => c.flops / c.results[impl].median / 1e6;
const fastest = (c) => (c.results['qkv-relaxed'] ? 'qkv-relaxed' : 'qkv-simd');

function table(r, cases) {
  const impls = Object.entries(r.implementations).filter(([id]) => cases.some((c) => c.results[id]));
  const lines = [`| case | ${impls.map(([, name]) => name).join(' | ')} |`, `| --- |${impls.map(() => ' ---:|').join('')}`];
  for (const c of cases) {
    lines.push(`| ${c.label} | ${impls.map(([id]) => (c.results[id] ? time(c.results[id].median) +
      (c.flops && c.flops > 1e5 ? ` (${gflops(c, id).toFixed(1)})` : '') : '—')).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The three tables of a results object: all results, resident output only, and the peers' ratios. */
export function tables(r) {
  const all = r.cases.filter((c) => !c.methodology), resident = r.cases.filter((c) => c.methodology === 'resident');
  const ratios = ['| peer\'s time ÷ qkv-lab\'s | all results: TF.js | all results: ORT | resident, output only: TF.js | resident, output only: ORT |', '| --- | ---:| ---:| ---:| ---:|'];
  for (const c of resident) {
    const a = all.find((x) => x.label === c.label);
    const ratio = (k, peer) => (k && k.results[peer] ? (k.results[peer].median / k.results[fastest(k)].median).toFixed(2) : '—');
    ratios.push(`| ${c.label} | ${ratio(a, 'tfjs')} | ${ratio(a, 'onnx')} | ${ratio(c, 'tfjs')} | ${ratio(c, 'onnx')} |`);
  }
  return { all: table(r, all), resident: table(r, resident), ratios: ratios.join('\n') };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const file = process.argv[2] || path.join(path.dirname(fileURLToPath(import.meta.url)), 'results.json');
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  const t = tables(r);
  console.log('all results:\n' + t.all + '\n\nresident, output only:\n' + t.resident + '\n');
  console.log(t.ratios);
  const fma = r.ceilings.wasmRelaxed?.gflops, mulAdd = r.ceilings.wasm?.gflops;
  console.log(`\nceilings: relaxed FMA ${fma?.toFixed(1)} ${JSON.stringify(r.ceilings.wasmRelaxed?.byAccumulators)}, SIMD128 mul+add ${mulAdd?.toFixed(1)} ${JSON.stringify(r.ceilings.wasm?.byAccumulators)}, native ${r.ceilings.native?.fma256} / ${r.ceilings.native?.fma512}`);
  for (const c of r.cases.filter((x) => x.flops > 1e5)) {
    const pct = (impl, ceiling) => (c.results[impl] ? `${(100 * gflops(c, impl) / ceiling).toFixed(0)}%` : '—');
    console.log(`${c.methodology ? 'resident ' : ''}${c.label}: relaxed ${pct('qkv-relaxed', fma)} (kernel ${pct('relaxed-kernel', fma)}), SIMD128 ${pct('qkv-simd', mulAdd)} (kernel ${pct('simd-kernel', mulAdd)})`);
  }
  console.log(`\nload average ${r.machine.loadAverageBefore.map((x) => x.toFixed(1)).join(' ')} → ${r.machine.loadAverageAfter.map((x) => x.toFixed(1)).join(' ')}, ${r.date}, ${r.rounds} rounds`);
  console.log('page:', JSON.stringify(r.page.timeToNumbers), JSON.stringify(r.page.frames.map((f) => [f.speed, f.p50, f.p95, f.fps])));
  console.log('sizes:', JSON.stringify(r.sizes));
  for (const t of r.targets) console.log(`${t.met === null ? '—' : t.met ? 'met' : 'MISSED'}: ${t.target}: ${t.value}`);
}
