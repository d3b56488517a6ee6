// bench/page.mjs: the page's speeds, measured in headless Chromium (Debian's, through
// playwright-core): how long after navigation the article's numbers are on screen (served and
// from file://, a fresh browser each run), and frame times while the training section trains at 20 and at
// 100 steps per second. These were assertions in the browser tests once; a speed belongs here,
// reported as medians, because CI runs on two cores that may be busy.
//
//   node bench/page.mjs [--runs N] [--seconds S] [--json FILE]
//   import { benchPage } from './page.mjs'   →  { timeToNumbers, frames }
import { openBrowser, newPage } from '../tests/browser/harness.js';
import { openTraining, readState } from '../tests/browser/training-helpers.js';
import os from 'node:os';
import fs from 'node:fs';

export function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * ms from navigation start to the article's first numbers on screen (body[data-numbers-at]: the
 * sections in view are built; the rest follow after the first paint, until body[data-ready-at]), and what
 * that time went to, from Navigation Timing, the page script's Resource Timing (served) and the
 * User Timing marks load() sets (web/qkv-lab.js): the document arriving and parsing, the page's
 * script arriving, parsing and running up to load(), inflating the WebAssembly, compiling the
 * two modules, instantiating them, and building the sections with the first snapshot.
 */
async function timeToNumbers(file) {
  const env = await openBrowser();   // a fresh browser: nothing cached, nothing compiled
  try {
    const page = await newPage(env);
    const url = file ? env.fileUrl('dist/qkv-lab.html') : env.url('index.html');
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
    const at = Number(await page.getAttribute('body', 'data-numbers-at'));
    const all = Number(await page.getAttribute('body', 'data-ready-at'));
    const built = Number(await page.getAttribute('body', 'data-sections-at-numbers'));
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const script = performance.getEntriesByType('resource').find((r) => /dist\/page\.js$/.test(r.name));
      const marks = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('qkv-lab:'))
        .map((m) => [m.name.slice(8), m.startTime]));
      return { responseEnd: nav.responseEnd, domInteractive: nav.domInteractive, scriptEnd: script ? script.responseEnd : null, ...marks };
    });
    await page.closeAll();
    // served, the page's script is a module (dist/page.js) that runs once it has arrived and
    // the document is parsed; from file:// it is inline (dist/qkv-lab.html), parsed with the
    // document
    const stages = {
      document: t.responseEnd,
      ...(t.scriptEnd === null ? { 'parse the page and its script, run it until load()': t.load - t.responseEnd }
        : { 'parse, the script arriving': Math.max(t.scriptEnd, t.domInteractive) - t.responseEnd,
          'the script until load()': t.load - Math.max(t.scriptEnd, t.domInteractive) }),
      inflate: t.inflated - t.load,
      compile: t.compiled - t.inflated,
      instantiate: t.instantiated - t.compiled,
      'sections in view and first snapshot': at - t.instantiated,
    };
    return { at, all, built, stages: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, +v.toFixed(1)])) };
  } finally {
    await env.close();
  }
}

/** Frame intervals (requestAnimationFrame timestamps) while training at `speed` steps/s. */
async function trainingFrames(env, speed, seconds) {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="speed"]').selectOption(String(speed));
  await page.evaluate(() => {
    window.__frames = [];
    window.__long = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
      .observe({ type: 'longtask' });
    const tick = (t) => { window.__frames.push(t); if (!window.__stop) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  const load = os.loadavg()[0];
  await section.locator('button[data-role="play"]').click();
  await page.waitForTimeout(seconds * 1000);   // a benchmark samples for a fixed time; tests never do
  const { stamps, long } = await page.evaluate(() => { window.__stop = true; return { stamps: window.__frames, long: window.__long }; });
  const { step } = await readState(section);
  await page.closeAll();
  const deltas = stamps.slice(1).map((t, i) => t - stamps[i]).slice(2).sort((a, b) => a - b);
  return {
    speed, seconds, frames: deltas.length, steps: step,
    p50: +quantile(deltas, 0.5).toFixed(2), p95: +quantile(deltas, 0.95).toFixed(2), max: +deltas.at(-1).toFixed(2),
    fps: +(1000 / quantile(deltas, 0.5)).toFixed(1),
    longTasks: long.length, longestTask: long.length ? +Math.max(...long).toFixed(1) : 0,
    loadAverage: +load.toFixed(2),
  };
}

/** The review's largest accepted corpus: 300 sentences × 32 words, 9,000 distinct words (19,199 characters). */
export function bigCorpus() {
  return Array.from({ length: 300 }, (_, i) => Array.from({ length: 32 }, (_, j) => String.fromCodePoint(0x4e00 + ((i * 32 + j) % 9000))).join(' ')).join('\n');
}

/**
 * Long tasks (the main thread blocked > 50 ms) while the page takes in input it accepts or refuses
 * (issue 20 item 2): pasting 1 MB and 68 KB of text into the corpus editor (refused), pasting
 * bigCorpus() and applying it, then batch 32 on it. Each case: { longTasks, longestTask (ms),
 * totalBlocked (ms over 50 per task), loadAverage (the machine's over the last minute: a busy
 * machine stretches every task) }.
 */
export async function inputLongTasks(env) {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  const measure = async (name, action) => {
    await page.evaluate(() => { window.__long = []; });
    await action();
    await page.waitForSelector('section[data-section="training"]:not([data-state="loading"]):not([data-state="replaying"])', { timeout: 120000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const long = await page.evaluate(() => window.__long.slice());
    return { name, longTasks: long.length, longestTask: long.length ? +Math.max(...long).toFixed(1) : 0, totalBlocked: +long.reduce((n, d) => n + d - 50, 0).toFixed(1),
      loadAverage: +os.loadavg()[0].toFixed(2) };
  };
  const editor = section.locator('textarea[data-role="corpus-text"]');
  // a paste as a reader makes it (the clipboard and Ctrl+V: a synthetic paste event inserts nothing)
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const paste = async (text) => {
    await editor.fill('');
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await editor.focus();
    await page.keyboard.press('Control+V');
  };
  const cases = [];
  cases.push(await measure('paste 1 MB', () => paste('猫'.repeat(1 << 20))));
  cases.push(await measure('paste 68 KB', () => paste('一只 猫 在 叫\n'.repeat(68 * 1024 / 9))));
  // the corpus goes into the editor as a reader puts it there (a paste), then Apply: two cases,
  // the browser's own work taking the text in, then the page's taking the corpus in
  cases.push(await measure('paste the 9,000-word corpus', () => paste(bigCorpus())));
  cases.push(await measure('apply 9,000-word corpus', () => section.locator('button[data-role="corpus-apply"]').click()));
  cases.push(await measure('batch 32 on it', () => section.locator('select[data-role="batch"]').selectOption('32')));
  await page.closeAll();
  return cases;
}

export async function benchPage({ runs = 5, seconds = 4, log = console.log } = {}) {
  const timeToNumbersResult = {};
  for (const [name, file] of [['served', false], ['file', true]]) {
    const measured = [];
    for (let r = 0; r < runs; r++) measured.push(await timeToNumbers(file));
    const times = measured.map((m) => m.at);
    const stages = Object.fromEntries(Object.keys(measured[0].stages).map((k) => [k, +median(measured.map((m) => m.stages[k])).toFixed(1)]));
    const alls = measured.map((m) => m.all);
    timeToNumbersResult[name] = { median: +median(times).toFixed(1), runs: times.map((t) => +t.toFixed(1)), stages,
      allSections: { median: +median(alls).toFixed(1), runs: alls.map((t) => +t.toFixed(1)) },
      sectionsAtNumbers: measured.map((m) => m.built) };
    log(`time to numbers, ${name}: median ${median(times).toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')}); ` +
      `${measured.map((m) => m.built).join('/')} section(s) built by then, every section: median ${median(alls).toFixed(0)} ms; ` +
      `median stages: ${Object.entries(stages).map(([k, v]) => `${k} ${v}`).join(', ')} ms`);
  }
  const env = await openBrowser();
  const frames = [];
  const inputs = [];
  try {
    for (const speed of [20, 100]) {
      const f = await trainingFrames(env, speed, seconds);
      frames.push(f);
      log(`training at ${speed} steps/s for ${seconds} s: ${f.frames} frames, p50 ${f.p50} ms (${f.fps} fps), p95 ${f.p95} ms, ` +
        `max ${f.max} ms, ${f.steps} steps, ${f.longTasks} long tasks (longest ${f.longestTask} ms), load average ${f.loadAverage}`);
    }
    for (const c of await inputLongTasks(env)) {
      inputs.push(c);
      log(`${c.name}: ${c.longTasks} long tasks, longest ${c.longestTask} ms, ${c.totalBlocked} ms blocked beyond 50 ms each, load average ${c.loadAverage}`);
    }
  } finally {
    await env.close();
  }
  return { timeToNumbers: timeToNumbersResult, frames, inputs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const result = await benchPage({ runs: Number(arg('runs', 5)), seconds: Number(arg('seconds', 4)) });
  const out = arg('json', null);
  if (out) fs.writeFileSync(out, JSON.stringify(result, null, 2));
}
