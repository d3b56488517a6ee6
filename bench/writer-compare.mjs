// writer-compare.mjs: the page's writer (the GPT section that trains in a Web Worker) of two trees
// side by side, in headless Chromium, in turns:
//   node bench/writer-compare.mjs --before DIR [--rounds N] [--from S] [--to S]
// DIR holds another tree's web/ with its dist/ built (git worktree add DIR COMMIT; ./build.sh build
// there). Each round opens the writer alone (index.html?embed=1&section=writer) from each tree's own
// server, presses play, and times steps FROM to TO by the step the section shows (wall-clock: a
// page has no CPU clock; the worker's samples of poems on the way are included, as a reader sees
// them). The rounds alternate which tree goes first. Prints every round's steps per second and the
// median. A benchmark: nothing passes or fails.
import path from 'node:path';
import { ROOT, openBrowser } from '../tools/browser.mjs';
import { startServer } from '../tools/serve.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const BEFORE = option('before', null);
if (!BEFORE) {
  console.error('usage: node bench/writer-compare.mjs --before DIR (DIR/web with its dist/ built) [--rounds N] [--from S] [--to S]');
  process.exit(2);
}
const ROUNDS = Number(option('rounds', '5'));
const FROM = Number(option('from', '10'));
const TO = Number(option('to', '150'));
if (!(ROUNDS >= 1 && FROM >= 1 && TO > FROM)) {
  console.error('writer-compare: --rounds at least 1, and 1 <= --from < --to');
  process.exit(2);
}

// the browser tests' Chromium (no request leaves the machine) with the before tree's server; the
// after tree's server beside it
const before = path.resolve(BEFORE, 'web'), after = path.join(ROOT, 'web');
const env = await openBrowser({ root: before });
const { browser } = env;
const trees = [{ name: 'before', root: before, server: env.server, rates: [] },
  { name: 'after', root: after, server: await startServer({ root: after }), rates: [] }];
const shown = () => Number(document.querySelector('#writer [data-role=status]')?.dataset.step || 0);
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const tree of r % 2 ? trees.slice().reverse() : trees) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${tree.server.url}/index.html?embed=1&section=writer&lang=en`);
      await page.click('#writer [data-role=play]');
      const reach = (step) => page.waitForFunction((s) => Number(document.querySelector('#writer [data-role=status]')?.dataset.step) >= s,
        step, { timeout: 600000, polling: 5 });
      await reach(FROM);
      const s0 = await page.evaluate(shown), t0 = performance.now();
      await reach(TO);
      const s1 = await page.evaluate(shown), t1 = performance.now();
      await page.close();
      if (errors.length) throw new Error(`${tree.name}: ${errors.join('; ')}`);
      tree.rates.push((s1 - s0) / ((t1 - t0) / 1000));
    }
  }
} finally {
  await env.close();
  await trees[1].server.close();
}
console.log(`the writer in headless Chromium, steps ${FROM} to ${TO}, wall-clock, ${ROUNDS} rounds in turns:`);
for (const tree of trees) {
  console.log(`${tree.name} (${tree.root}): ${tree.rates.map((x) => x.toFixed(1)).join(', ')} steps/s; median ${median(tree.rates).toFixed(1)}`);
}
const [b, a] = trees.map((t) => median(t.rates));
console.log(`after ÷ before: ${(a / b).toFixed(2)}×`);
