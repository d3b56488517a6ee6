#!/usr/bin/env node
// run.mjs: fuzzes the C API for a bounded time, on every target this machine can build, and
// prints what ran. `npm run fuzz -- --seconds N` runs each target for N seconds (default 20);
// `./build.sh test` runs it with 20 s per target (about a minute in all).
//
//   --seconds N   time per target            --seed S     generator / libFuzzer seed (default 1;
//   --target T    wasm, native, native32,                 "random" picks one and prints it)
//                 a list (native,native32)   --case C     replay one WASM case (with --seed)
//                 or all (default)
//   --jobs N      targets at a time (default 1), each in a process of its own, its output printed
//                 whole when it ends: each still fuzzes for --seconds on a core of its own when
//                 N is at most the machine's cores (./build.sh test runs 2: the three targets in
//                 about 50 s instead of 80 on two cores)
//
// Targets:
//   wasm      the built modules, instantiated as load() does, SIMD128 and scalar kernels
//             (tests/fuzz/wasm-harness.js): every function build.sh exports to JavaScript,
//             results against float64 references
//   native    tests/fuzz/fuzz_api.c under libFuzzer + ASan + UBSan, 64-bit (clang)
//   native32  the same with -m32: long and size_t are 32 bits, as on wasm32 (needs Debian's
//             gcc-multilib; skipped, and said so, where it cannot link or this kernel cannot run 32-bit programs)
// A libFuzzer corpus is kept in tests/fuzz/build/ (git-ignored) so that longer local runs build
// on each other. Exits non-zero when any target finds a failure; crash inputs are written to
// tests/fuzz/build/ and the command that reproduces each one is printed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD = path.join(ROOT, 'tests/fuzz/build');

function parseArgs(argv) {
  const args = { seconds: 20, seed: '1', target: 'all', case: null, jobs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=');
    const value = () => inline ?? argv[++i];
    if (flag === '--seconds') args.seconds = Number(value());
    else if (flag === '--seed') args.seed = value();
    else if (flag === '--target') args.target = value();
    else if (flag === '--case') args.case = Number(value());
    else if (flag === '--jobs') args.jobs = Number(value());
    else throw new Error(`run.mjs: unknown argument ${argv[i]} (use --seconds N, --seed S, --target T, --case C, --jobs N)`);
  }
  if (!(args.seconds > 0)) throw new Error('run.mjs: --seconds must be a positive number');
  for (const t of args.target.split(',')) {
    if (!['all', 'wasm', 'native', 'native32'].includes(t)) throw new Error(`run.mjs: unknown target ${t}`);
  }
  if (!Number.isInteger(args.jobs) || args.jobs < 1) throw new Error('run.mjs: --jobs must be a positive integer');
  args.seed = args.seed === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(args.seed);
  if (!Number.isInteger(args.seed) || args.seed < 0) throw new Error('run.mjs: --seed must be a non-negative integer or "random"');
  return args;
}

async function fuzzWasmTarget(args) {
  const dist = path.join(ROOT, 'web/dist/qkv-wasm.js');
  if (!existsSync(dist)) return { target: 'wasm', skipped: 'web/dist/qkv-wasm.js is missing: run ./build.sh first' };
  const { fuzzWasm, exportedNames } = await import('./wasm-harness.js');
  const exportsList = exportedNames(readFileSync(path.join(ROOT, 'build.sh'), 'utf8'));
  const started = Date.now();
  const result = await fuzzWasm({
    seconds: args.seconds, seed: args.seed, exportsList, only: args.case,
    log: (line) => console.log(line),
  });
  const idle = exportsList.filter((name) => !(result.calls[name] > 0));
  const calls = Object.values(result.calls).reduce((a, b) => a + b, 0);
  const failed = result.failures.length > 0 || (args.case === null && idle.length > 0);
  if (args.case === null && idle.length) console.log(`fuzz wasm: never called: ${idle.join(', ')}`);
  return {
    target: 'wasm', failed, runs: result.cases, unit: 'call sequences', calls,
    seconds: (Date.now() - started) / 1000, exports: exportsList.length,
    fewest: Math.min(...exportsList.map((name) => result.calls[name])),
    memoryMiB: result.memoryBytes / 2 ** 20,
  };
}

function findClang() {
  for (const cc of ['clang-14', 'clang']) {
    if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0) return cc;
  }
  return null;
}

function buildNative(cc, bits) {
  mkdirSync(BUILD, { recursive: true });
  const out = path.join(BUILD, `fuzz_api-m${bits}`);
  const sources = readdirSync(path.join(ROOT, 'wasm')).filter((f) => f.endsWith('.c')).map((f) => path.join(ROOT, 'wasm', f));
  // -m32 computes in SSE2 as WebAssembly does (x87's 80-bit intermediates round differently)
  const arch = bits === 32 ? ['-m32', '-msse2', '-mfpmath=sse'] : ['-m64'];
  const result = spawnSync(cc, [...arch, '-std=c11', '-g', '-O1', '-Wall', '-Wextra', '-Werror',
    '-fsanitize=fuzzer,address,undefined', '-fno-sanitize-recover=all', `-I${path.join(ROOT, 'wasm')}`,
    ...sources, path.join(ROOT, 'tests/fuzz/fuzz_api.c'), '-lm', '-o', out], { encoding: 'utf8' });
  if (result.status !== 0) return { error: (result.stderr || result.stdout || '').trim().split('\n').slice(-3).join(' ') };
  return { binary: out };
}

/** Why a 32-bit program does not run here (some virtual machines' kernels leave IA-32 emulation
    out), or null when it runs. */
function cannotRun32(cc) {
  const probe = path.join(BUILD, 'm32-probe');
  const built = spawnSync(cc, ['-m32', '-x', 'c', '-', '-o', probe], { input: '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n', encoding: 'utf8' });
  if (built.status !== 0) return `the probe did not build: ${(built.stderr || '').trim().split('\n')[0]}`;
  // through bash, which says why an exec failed (Node's spawn hands a binary it cannot exec to /bin/sh)
  const ran = spawnSync('bash', ['-c', 'exec "$0"', probe], { encoding: 'utf8' });
  return ran.stdout === 'ok\n' ? null : ((ran.stderr || String(ran.error || '')).trim().split('\n')[0] || `exit status ${ran.status}`);
}

function fuzzNativeTarget(args, bits) {
  const target = bits === 32 ? 'native32' : 'native';
  const cc = findClang();
  if (!cc) return { target, skipped: 'no clang on PATH (Debian: apt-get install clang-14 libclang-rt-14-dev)' };
  const built = buildNative(cc, bits);
  if (built.error) {
    const hint = bits === 32 ? ' (Debian amd64: apt-get install gcc-multilib g++-multilib)' : ' (Debian: apt-get install libclang-rt-14-dev)';
    if (bits === 32) return { target, skipped: `${cc} -m32 cannot build it here${hint}: ${built.error}` };
    return { target, failed: true, error: `build failed${hint}: ${built.error}` };
  }
  const why32 = bits === 32 ? cannotRun32(cc) : null;
  if (why32) return { target, skipped: `this machine builds 32-bit programs but cannot run them, as on a kernel without IA-32 emulation: ${why32}` };
  const corpus = path.join(BUILD, `corpus-m${bits}`);
  mkdirSync(corpus, { recursive: true });
  const started = Date.now();
  const run = spawnSync(built.binary, [`-max_total_time=${Math.ceil(args.seconds)}`, `-seed=${args.seed}`,
    '-max_len=4096', '-timeout=30', '-rss_limit_mb=3072', '-print_final_stats=1', `-artifact_prefix=${BUILD}/crash-m${bits}-`,
    corpus], { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'print_stacktrace=1' }, maxBuffer: 64 << 20 });
  const log = `${run.stdout}\n${run.stderr}`;
  const runs = Number(/stat::number_of_executed_units:\s*(\d+)/.exec(log)?.[1] ?? NaN);
  const failed = run.status !== 0;
  if (failed) {
    console.log(log.split('\n').filter((l) => /ERROR|SUMMARY|fuzz_api\.c|runtime error|Test unit written|==\d+==/.test(l)).slice(0, 30).join('\n'));
    const artifact = /Test unit written to (\S+)/.exec(log)?.[1];
    if (artifact) console.log(`fuzz ${target}: reproduce with ${built.binary} ${artifact}`);
  }
  return {
    target, failed, runs, unit: 'inputs', seconds: (Date.now() - started) / 1000,
    corpus: readdirSync(corpus).length, compiler: cc,
  };
}

/**
 * Runs each target in a child process (this script with --target T), at most args.jobs at a
 * time, the natives first (their builds take seconds), and prints each child's output whole
 * when it ends. → the targets' results, from each child's summary line.
 */
async function inParallel(args, targets) {
  const order = [...targets].sort((a, b) => (a === 'wasm') - (b === 'wasm'));
  const results = new Map();
  const runOne = (target) => new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--target', target, '--seconds', String(args.seconds),
      '--seed', String(args.seed), '--quiet-summary'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => {
      const lines = out.split('\n');
      const summary = lines.find((l) => l.startsWith('fuzz result: '));
      process.stdout.write(lines.filter((l) => l && !l.startsWith('fuzz result: ')).map((l) => `${l}\n`).join(''));
      const parsed = summary ? JSON.parse(summary.slice('fuzz result: '.length)) : [];
      results.set(target, parsed.length ? parsed : [{ target, failed: true, error: `the child process ended with status ${code} and no result` }]);
      resolve();
    });
  });
  const queue = order.slice();
  await Promise.all(Array.from({ length: Math.min(args.jobs, queue.length) }, async () => {
    while (queue.length) await runOne(queue.shift());
  }));
  return targets.flatMap((t) => results.get(t));
}

const rawArgs = process.argv.slice(2);
const quietSummary = rawArgs.includes('--quiet-summary');  // a child of --jobs: its results as one JSON line
const args = parseArgs(rawArgs.filter((a) => a !== '--quiet-summary'));
if (!quietSummary) {
  console.log(`fuzz: ${args.seconds} s per target, seed ${args.seed}${args.case !== null ? `, case ${args.case}` : ''}` +
    `${args.jobs > 1 ? `, ${args.jobs} targets at a time` : ''}`);
}
const asked = new Set(args.target.split(','));
const wanted = ['wasm', 'native', 'native32'].filter((t) => (asked.has('all') || asked.has(t)) && (t === 'wasm' || args.case === null));
let results = [];
if (args.jobs > 1 && wanted.length > 1) {
  results = await inParallel(args, wanted);
} else {
  if (wanted.includes('wasm')) results.push(await fuzzWasmTarget(args));
  if (wanted.includes('native')) results.push(fuzzNativeTarget(args, 64));
  if (wanted.includes('native32')) results.push(fuzzNativeTarget(args, 32));
}
if (quietSummary) {
  // the parent prints the lines below for every target at the end
  console.log(`fuzz result: ${JSON.stringify(results)}`);
  process.exit(0);
}
for (const r of results) {
  if (r.skipped) console.log(`fuzz ${r.target}: skipped: ${r.skipped}`);
  else if (r.error) console.log(`fuzz ${r.target}: FAILED: ${r.error}`);
  else if (r.target === 'wasm') {
    console.log(`fuzz wasm: ${r.failed ? 'FAILED' : 'ok'}: ${r.runs} call sequences, ${r.calls} calls to the ` +
      `${r.exports} exports (each at least ${r.fewest} times) in ${r.seconds.toFixed(1)} s; WASM memory ended at ${r.memoryMiB.toFixed(0)} MiB`);
  } else {
    console.log(`fuzz ${r.target}: ${r.failed ? 'FAILED' : 'ok'}: ${r.runs} inputs in ${r.seconds.toFixed(1)} s ` +
      `(${r.compiler}, libFuzzer + ASan + UBSan; corpus ${r.corpus} inputs)`);
  }
}
console.log(`fuzz summary: ${JSON.stringify(results.map(({ target, runs, calls, seconds, skipped, failed }) => ({ target, runs, calls, seconds, skipped: Boolean(skipped), failed: Boolean(failed) })))}`);
process.exitCode = results.some((r) => r.failed) ? 1 : 0;
