// bench/page.mjs: the page's speeds, measured in headless Chromium (Debian's, through
// playwright-core): how long after navigation the article's numbers are on screen (served and
// from file://, a fresh browser each run), frame times while the training section trains at 20 and at
// 100 steps per second, and frame times while the writer section trains its GPT in its Web Worker
// (the target: the page keeps 60 fps while the GPT trains; docs/gpt.md). These were assertions in the browser tests once; a speed belongs here,
// reported as medians, because CI runs on two cores that may be busy.
//
//   node bench/page.mjs [--runs N] [--seconds S] [--writer-seconds S] [--json FILE]
//   import { benchPage } from './page.mjs'   →  { timeToNumbers, frames, writerFrames, inputs }
import { openBrowser, newPage, openPage, q, openTraining, readState, bigCorpus, pasteDone, STRICT_CSP } from '../tools/browser.mjs';
import { GPT_DEFAULTS } from '../web/gpt-defaults.js';
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

/** Starts recording requestAnimationFrame timestamps and long tasks in the page (one recording at a time). */
function recordFrames(page) {
  return page.evaluate(() => {
    const rec = { frames: [], long: [], stop: false };
    rec.observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) rec.long.push(e.duration); });
    rec.observer.observe({ type: 'longtask' });
    const tick = (t) => { rec.frames.push(t); if (!rec.stop) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    window.__recording = rec;
  });
}

/** Stops recording: → { p50, p95, max (ms between frames), fps (at the median), frames, longTasks, longestTask }. */
async function framesRecorded(page) {
  const { stamps, long } = await page.evaluate(() => {
    const rec = window.__recording;
    rec.stop = true;
    rec.observer.disconnect();
    return { stamps: rec.frames, long: rec.long };
  });
  const deltas = stamps.slice(1).map((t, i) => t - stamps[i]).slice(2).sort((a, b) => a - b);
  const longest = long.length ? +Math.max(...long).toFixed(1) : 0;
  // a page that drew fewer than four frames in the whole time: nothing to take quantiles of
  if (!deltas.length) return { frames: 0, p50: null, p95: null, max: null, fps: 0, longTasks: long.length, longestTask: longest };
  return {
    frames: deltas.length,
    p50: +quantile(deltas, 0.5).toFixed(2), p95: +quantile(deltas, 0.95).toFixed(2), max: +deltas.at(-1).toFixed(2),
    fps: +(1000 / quantile(deltas, 0.5)).toFixed(1),
    longTasks: long.length, longestTask: longest,
  };
}

/** Frame intervals (requestAnimationFrame timestamps) while training at `speed` steps/s. */
async function trainingFrames(env, speed, seconds) {
  const { page, section } = await openTraining(env, { alone: false });
  await section.locator('[data-role="speed"]').selectOption(String(speed));
  await recordFrames(page);
  const load = os.loadavg()[0];
  await section.locator('button[data-role="play"]').click();
  await page.waitForTimeout(seconds * 1000);   // a benchmark samples for a fixed time; tests never do
  const f = await framesRecorded(page);
  const { step } = await readState(section);
  await page.closeAll();
  return { speed, seconds, frames: f.frames, steps: step, ...f, loadAverage: +load.toFixed(2) };
}

/**
 * Frame intervals on the page's thread while the writer section (web/page/sections/writer.js)
 * trains its GPT in its Web Worker (web/page/gpt/worker.js), from the first step for `seconds`:
 * the worker takes the steps, samples poems every 25 and evaluates; the page draws each step's
 * progress. Before that, the same for the same time with the writer paused (`idle`), so that what
 * the machine's load does to frames is told from what training does. `settings`: the writer's URL settings (none: the defaults, the GPT of GPT_DEFAULTS on
 * the quatrains). Also the steps the worker took in that time, as a throughput in the browser
 * (wall-clock: the worker's thread shares the machine with everything else). csp: the page under
 * that Content-Security-Policy (STRICT_CSP refuses the worker: the run is on the page's thread).
 */
export async function writerFrames(env, seconds, settings = {}, { csp = null } = {}) {
  const page = await openPage(env, { query: q({ section: 'writer', lang: 'en', ...settings }), csp });
  await page.locator('#writer').scrollIntoViewIfNeeded();   // the run is made when the section is seen
  await page.waitForSelector('#writer [data-role=samples] li', { timeout: 120000 });   // created, step 0 sampled
  const run = await pausedThenPlaying(page, '#writer', seconds);
  // createGPT's batch (the writer has no setting for it) × the context
  const chars = GPT_DEFAULTS.batch * (settings.gctx ?? GPT_DEFAULTS.context);
  return { settings, ...run, charsPerSecond: Math.round((run.steps * chars) / run.wall) };
}

/**
 * The page's thread while the fine-tuning section (web/page/sections/finetune.js) adapts the
 * pretrained poet in its Web Worker (LoRA, the section's defaults): frame intervals and long tasks
 * (the main thread blocked > 50 ms) for `seconds` with the run paused, then for as long with it
 * running, and the steps the worker took (wall-clock). The page as a reader opens it, at the section.
 */
export async function finetuneFrames(env, seconds) {
  const page = await openPage(env, { query: q({ section: 'finetune', lang: 'en' }) });
  await page.locator('#finetune').scrollIntoViewIfNeeded();   // the poet is loaded when the section is seen
  await page.waitForFunction(() => !document.querySelector('#finetune [data-role=play]').disabled, null, { timeout: 180000 });
  await page.waitForSelector('#finetune [data-role=poems] li', { timeout: 120000 });   // step 0's samples drawn
  return pausedThenPlaying(page, '#finetune', seconds);
}

/**
 * A section with a run (the writer, fine-tuning: its play button, its status's data-step and its
 * thread note's data-thread), ready and paused: frames for `seconds` as it is (`idle`: what the
 * machine's load alone does), then for as long after its play button is pressed. Closes the page.
 * → { seconds, frames…(framesRecorded), idle, steps, wall (s), stepsPerSecond (wall-clock), thread, loadAverage }
 */
async function pausedThenPlaying(page, section, seconds) {
  await recordFrames(page);
  await page.waitForTimeout(seconds * 1000);   // a benchmark samples for a fixed time; tests never do
  const idle = await framesRecorded(page);
  await recordFrames(page);
  const load = os.loadavg()[0];
  const stepAt = () => page.getAttribute(`${section} [data-role=status]`, 'data-step').then(Number);
  const thread = await page.getAttribute(`${section} [data-role=thread]`, 'data-thread');
  const step0 = await stepAt();
  await page.click(`${section} [data-role=play]`);
  const t0 = Date.now();
  await page.waitForTimeout(seconds * 1000);
  const f = await framesRecorded(page);
  const steps = (await stepAt()) - step0, wall = (Date.now() - t0) / 1000;
  await page.closeAll();
  return { seconds, ...f, idle, steps, wall, stepsPerSecond: +(steps / wall).toFixed(2), thread, loadAverage: +load.toFixed(2) };
}

/**
 * Long tasks (the main thread blocked > 50 ms) while the page takes in input it accepts or refuses
 * (the largest corpus it accepts and larger ones): pasting 1 MB and 68 KB of text into the corpus editor (refused), pasting
 * bigCorpus() and applying it, then batch 32 on it. Each case: { longTasks, longestTask (ms),
 * totalBlocked (ms over 50 per task), loadAverage (the machine's over the last minute: a busy
 * machine stretches every task) }. restMs: the rest before each case; playMs: how long it plays
 * (the smoke run, which only checks that every case runs, shortens both).
 */
export async function inputLongTasks(env, { restMs = 1000, playMs = 3000 } = {}) {
  const { page, section } = await openTraining(env, { alone: false });
  await section.locator('[data-role="corpus-summary"]').click();
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  // Waits, from inside the page, until the section is neither loading nor replaying, then two
  // frames more. Playwright's waitForSelector would query the whole document on every poll: with
  // 9,000 words listed that is 40 ms of the harness's own in the page's main thread, counted
  // among the long tasks being measured.
  const settled = () => page.evaluate(() => new Promise((resolve) => {
    const section = document.querySelector('section[data-section="training"]');
    const poll = () => {
      if (section.dataset.state === 'loading' || section.dataset.state === 'replaying') requestAnimationFrame(poll);
      else requestAnimationFrame(() => requestAnimationFrame(resolve));
    };
    poll();
  }));
  const measure = async (name, action) => {
    // each case from a page at rest: what the last case left to draw a frame at a time (a 9,000-word
    // list fills over 18 frames) is over before this one starts (a benchmark may wait a fixed time)
    await page.waitForTimeout(restMs);
    await page.evaluate(() => { window.__long = []; });
    await action();
    await settled();
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
    // a long paste goes in a piece a frame (corpus-panel.js): the case lasts until the last is in
    await pasteDone(editor);
  };
  // the controls' elements, found before any case: Playwright's selector engine runs in the page
  // and would take 30 ms and more of its main thread to find them in a 9,000-word page
  const control = (selector) => section.locator(selector).elementHandle();
  const [applyButton, batchSelect, dimSelect, playButton] = await Promise.all(['button[data-role="corpus-apply"]',
    'select[data-role="batch"]', 'select[data-role="dim"]', 'button[data-role="play"]'].map(control));
  const cases = [];
  cases.push(await measure('paste 1 MB', () => paste('猫'.repeat(1 << 20))));
  cases.push(await measure('paste 68 KB', () => paste('一只 猫 在 叫\n'.repeat(68 * 1024 / 9))));
  // the corpus goes into the editor as a reader puts it there (a paste), then Apply: two cases,
  // the browser's own work taking the text in, then the page's taking the corpus in
  cases.push(await measure('paste the 9,000-word corpus', () => paste(bigCorpus())));
  cases.push(await measure('apply 9,000-word corpus', () => applyButton.click()));
  cases.push(await measure('batch 32 on it', () => batchSelect.selectOption('32')));
  // playing: the section trains step after step for a while (a benchmark samples a fixed time)
  cases.push(await measure(`play ${playMs / 1000} s at batch 32 on it`, async () => {
    await playButton.click();
    await page.waitForTimeout(playMs);
    await playButton.click();
  }));
  // (dim 32 at batch 32 on it is refused: one step would be over the engine's work limit per call)
  cases.push(await measure('dim 8 on it', () => dimSelect.selectOption('8')));
  await page.closeAll();
  return cases;
}

/**
 * writer: { seconds, settings } of the writer's measurement (writerFrames): by default twice
 * `seconds` on the default GPT; bench/run.mjs --smoke gives a tiny GPT's settings.
 */
export async function benchPage({ runs = 5, seconds = 4, writer = {}, smoke = false, log = console.log } = {}) {
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
  let w = null, wc = null, ft = null;
  try {
    for (const speed of [20, 100]) {
      const f = await trainingFrames(env, speed, seconds);
      frames.push(f);
      log(`training at ${speed} steps/s for ${seconds} s: ${f.frames} frames, p50 ${f.p50} ms (${f.fps} fps), p95 ${f.p95} ms, ` +
        `max ${f.max} ms, ${f.steps} steps, ${f.longTasks} long tasks (longest ${f.longestTask} ms), load average ${f.loadAverage}`);
    }
    w = await writerFrames(env, writer.seconds ?? 2 * seconds, writer.settings ?? {});
    const shape = Object.keys(w.settings).length ? Object.entries(w.settings).map(([k, v]) => `${k}=${v}`).join(' ') : 'the default GPT';
    log(`the writer training ${shape} in its worker for ${w.seconds} s: ${w.frames} frames, p50 ${w.p50} ms (${w.fps} fps), p95 ${w.p95} ms, ` +
      `max ${w.max} ms, ${w.longTasks} long tasks (longest ${w.longestTask} ms); paused beforehand for as long: p50 ${w.idle.p50} ms, ` +
      `p95 ${w.idle.p95} ms, ${w.idle.longTasks} long tasks (longest ${w.idle.longestTask} ms); the worker took ${w.steps} steps (${w.stepsPerSecond}/s, ` +
      `${w.charsPerSecond} characters/s, wall-clock), load average ${w.loadAverage}`);
    // the same under the strict policy: the run on the page's own thread (gpt/local-run.js)
    wc = await writerFrames(env, writer.seconds ?? 2 * seconds, writer.settings ?? {}, { csp: STRICT_CSP });
    log(`the writer on the page's own thread under a strict CSP (no blob: workers) for ${wc.seconds} s: ${wc.frames} frames, p50 ${wc.p50} ms, ` +
      `p95 ${wc.p95} ms, max ${wc.max} ms, ${wc.longTasks} long tasks (longest ${wc.longestTask} ms); ${wc.steps} steps (${wc.stepsPerSecond}/s) ` +
      `in the ${wc.thread}, load average ${wc.loadAverage}`);
    ft = await finetuneFrames(env, writer.seconds ?? 2 * seconds);
    log(`fine-tuning the poet (LoRA, the section's defaults) in its ${ft.thread || '?'} for ${ft.seconds} s: ${ft.frames} frames, p50 ${ft.p50} ms (${ft.fps} fps), ` +
      `p95 ${ft.p95} ms, max ${ft.max} ms, ${ft.longTasks} long tasks (longest ${ft.longestTask} ms); paused beforehand for as long: p50 ${ft.idle.p50} ms, ` +
      `${ft.idle.longTasks} long tasks (longest ${ft.idle.longestTask} ms); ${ft.steps} steps (${ft.stepsPerSecond}/s, wall-clock), load average ${ft.loadAverage}`);
    for (const c of await inputLongTasks(env, smoke ? { restMs: 250, playMs: 1000 } : {})) {
      inputs.push(c);
      log(`${c.name}: ${c.longTasks} long tasks, longest ${c.longestTask} ms, ${c.totalBlocked} ms blocked beyond 50 ms each, load average ${c.loadAverage}`);
    }
  } finally {
    await env.close();
  }
  return { timeToNumbers: timeToNumbersResult, frames, writerFrames: w, writerFramesStrictCsp: wc, finetuneFrames: ft, inputs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const seconds = Number(arg('seconds', 4));
  const result = await benchPage({ runs: Number(arg('runs', 5)), seconds, writer: { seconds: Number(arg('writer-seconds', 2 * seconds)) } });
  const out = arg('json', null);
  if (out) fs.writeFileSync(out, JSON.stringify(result, null, 2));
}
