// browser.mjs: what the browser tests (tests/browser/) and the page's benchmark (bench/page.mjs)
// share: a local server for web/, Debian's Chromium driven by playwright-core, a page wrapper
// that records console errors, page errors and every request that would leave the machine, and
// the ways to open the page and its training section and read what they show. The tests' own
// helpers (tests/browser/harness.js, page-helpers.js, training-helpers.js) re-export these.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from './serve.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Chromium's arguments for a browser whose requests cannot leave the machine: ARGS, and a proxy
 * for everything but this machine's loopback (which Chromium never sends through a proxy) that
 * is a port of ours closing every connection at once (startRefuser), so that any other request
 * fails at once (net::ERR_SOCKET_NOT_CONNECTED here; page-load.test.js lists what a refusal
 * reads as); newPage() records each such request
 * as a problem. (A route on every context did this before: it sent each request of a page load
 * through Playwright and back, about 0.35 s of a full page's 1.8 s, measured side by side. A port
 * nobody owns would do unless something listened there: then requests would hang.)
 */
export const argsWithProxy = (port) => [...ARGS, `--proxy-server=http://127.0.0.1:${port}`];

/** A local port that accepts connections and closes them at once; → { port, close() }. */
export function startRefuser() {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => new Promise((r) => server.close(r)) }));
  });
}

/**
 * Serves web/ (or root) on a free port and launches Chromium, or connects to the one the run
 * shares (QKV_BROWSER_WS, set by tests/run-all.sh: tests/browser/shared-browser.mjs). Call
 * close() when done: it closes this caller's contexts and, for a browser of its own, the browser.
 */
export async function openBrowser({ headers, root = path.join(ROOT, 'web') } = {}) {
  const server = await startServer({ root, port: 0, headers });
  const shared = process.env.QKV_BROWSER_WS;
  const refuser = shared ? null : await startRefuser();
  const browser = shared ? await chromium.connect(shared)
    : await chromium.launch({ executablePath: CHROMIUM, args: argsWithProxy(refuser.port), headless: true });
  return {
    server,
    browser,
    url: (p = '') => `${server.url}/${p}`,
    fileUrl: (p) => pathToFileURL(path.join(ROOT, 'web', p)).href,
    async close() {
      await browser.close();
      await server.close();
      await refuser?.close();
    },
  };
}

/**
 * A new page that records problems: `problems()` lists console errors, uncaught page errors,
 * and requests to anything but our server, file:, data: or blob: (which the browser's arguments
 * make fail: see argsWithProxy). `closeAll()` ends it: it closes the page's context, or gives the page back for
 * the next newPage() of this file to reuse (see reusePage). What newPage() returns is a handle on
 * the page for one test: once ended, its `problems()` still answer for its time, a second
 * `closeAll()` does nothing, and anything else throws (it would drive the next test's page).
 */
export async function newPage(env, { width = 1280, height = 900, locale = 'en-US', colorScheme = 'light', reducedMotion = 'no-preference' } = {}) {
  // the settings a context is made with and a page cannot change
  const key = `${locale}|${reducedMotion}`;
  const pool = (env.idlePages ??= []);
  let page = null;
  for (let i; !page && (i = pool.findIndex((entry) => entry.key === key)) >= 0;) {
    const idle = pool.splice(i, 1)[0].page;
    try {
      await idle.setViewportSize({ width, height });
      await idle.emulateMedia({ colorScheme, reducedMotion, media: null, forcedColors: 'none', contrast: 'no-preference' });
      page = idle;
    } catch {
      // closed or crashed while it waited
      await idle.context().close().catch(() => {});
    }
  }
  if (!page) {
    const context = await env.browser.newContext({ viewport: { width, height }, locale, colorScheme, reducedMotion });
    page = await context.newPage();
    watchForLastingChanges(page);
    // Playwright's own listeners (a closed or crashed page ends what waits on it): kept on reuse
    page.ownListeners = new Map(page.eventNames().map((name) => [name, new Set(page.rawListeners(name))]));
  }
  const problems = [];
  const allowed = (u) => u.startsWith(env.server.url) || /^(data|blob|file|about):/.test(u);
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (req) => { if (!allowed(req.url())) problems.push(`request left the machine: ${req.url()}`); });
  let ended = false;
  const own = {
    problems: () => problems.slice(),
    closeAll: async () => {
      if (ended) return;
      ended = true;
      await reusePage(env, page, key);
    },
  };
  return new Proxy(page, {
    get(target, name) {
      if (Object.hasOwn(own, name)) return own[name];
      if (ended) throw new Error(`page.${String(name)}: this page was ended with closeAll(); open another`);
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * What a caller may do to a page or its context that outlives a navigation and that reusePage
 * does not undo (a script run in every document, a function exposed to it, a fake clock,
 * permissions, a CDP session, a second page, a default timeout, a listener on the context): each
 * marks the page as one not to reuse.
 */
const LASTING = {
  page: ['addInitScript', 'exposeFunction', 'exposeBinding', 'setExtraHTTPHeaders', 'routeFromHAR', 'routeWebSocket',
    'addLocatorHandler', 'setDefaultTimeout', 'setDefaultNavigationTimeout'],
  context: ['addInitScript', 'exposeFunction', 'exposeBinding', 'setExtraHTTPHeaders', 'routeFromHAR', 'routeWebSocket',
    'grantPermissions', 'clearPermissions', 'newCDPSession', 'newPage', 'setOffline', 'setGeolocation', 'setHTTPCredentials',
    'addCookies', 'setDefaultTimeout', 'setDefaultNavigationTimeout', 'on', 'once', 'addListener', 'prependListener'],
};
function watchForLastingChanges(page) {
  const context = page.context();
  const mark = (target, name) => {
    const original = target[name];
    if (typeof original !== 'function') return;
    target[name] = function (...args) { page.lasting = true; return original.apply(this, args); };
  };
  for (const name of LASTING.page) mark(page, name);
  for (const name of LASTING.context) mark(context, name);
  // every method of the clock installs it (a fake Date and timers, in every document after)
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(page.clock))) {
    if (name !== 'constructor') mark(page.clock, name);
  }
}

/** How many ended pages a test file keeps for reuse, per context settings. */
const IDLE_PAGES = 2;

/**
 * Ends a page from newPage(). A new page costs Chromium about 0.3 s of CPU and 0.45 s before it
 * can load anything (a tab and its renderer process, measured side by side against loading the
 * same address again in a page that exists), which came to tens of seconds a test run. So a page
 * whose context holds nothing but it, that nothing marked (watchForLastingChanges), and that
 * leaves for about:blank is kept for the file's next newPage() with the same locale and reduced
 * motion: as a new one would be, it has no listeners but Playwright's own, no routes, no document
 * (its workers, timers and animations end with it; the server sends everything `no-store`, so no
 * cache carries over; the page stores nothing), the pointer outside the window, and newPage() sets
 * its size and media features. Anything else closes the context, as before.
 */
async function reusePage(env, page, key) {
  const context = page.context();
  const pool = env.idlePages;
  if (page.lasting || page.isClosed() || context.pages().length !== 1
    || pool.filter((entry) => entry.key === key).length >= IDLE_PAGES) return context.close();
  const dropAddedListeners = () => {
    for (const name of page.eventNames()) {
      for (const listener of page.rawListeners(name)) {
        if (!page.ownListeners.get(name)?.has(listener)) page.removeListener(name, listener);
      }
    }
  };
  try {
    dropAddedListeners();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    // a page with a run it has not saved asks before it is left (web/page/gpt/store.js): leave it
    page.on('dialog', (dialog) => dialog.accept().catch(() => {}));
    await page.goto('about:blank', { timeout: 10000 });
    dropAddedListeners();
    await page.mouse.move(-1, -1);
    pool.push({ key, page });
  } catch {
    await context.close().catch(() => {});
  }
}

/**
 * A new page (newPage) on an empty document of the served origin, from which a script can import
 * the API as a reader's would (`await import('/qkv-lab.js')`): the benchmarks' Chromium rows.
 */
export async function blankPage(env) {
  const page = await newPage(env);
  const blank = env.url('blank.html');
  await page.route(blank, (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>blank</title>' }));
  await page.goto(blank);
  return page;
}

/** "A strict CSP without unsafe-eval": no inline script or style, no eval, no blob: workers; WASM may compile. */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/**
 * Opens the demo page (served, or from file:// with `file`) at `query` and waits until it is
 * ready. `init`: a function run in the page before its own scripts (page.addInitScript; the page
 * is then not reused).
 */
export async function openPage(env, { query = '', file = false, locale = 'en-US', csp = null, init = null, ...options } = {}) {
  const page = await newPage(env, { locale, ...options });
  if (init) await page.addInitScript(init);
  // csp: the served index.html with this Content-Security-Policy header
  if (csp) {
    const html = fs.readFileSync(path.join(ROOT, 'web', 'index.html'), 'utf8');
    await page.route((url) => url.pathname === '/index.html', (route) => route.fulfill({
      status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp }, body: html }));
  }
  const url = file ? env.fileUrl('dist/qkv-lab.html') + query : env.url('index.html' + query);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  return page;
}

/** A query string from an object: q({ seed: 7 }) → '?seed=7'. */
export const q = (params) => `?${new URLSearchParams(params)}`;

export const TRAINING = 'section[data-section="training"]';

/**
 * index.html's address for section `id` at `query` (a query string without '?') in `lang`:
 * alone, in iframe mode with the author's tools, where it is the only section built; otherwise
 * the page (which `query` may open at the section).
 */
export function sectionAddress(id, { query = '', lang = 'en', alone = true } = {}) {
  const params = [`lang=${lang}`, ...(alone ? ['embed=1', 'tools=1', `section=${id}`] : []), ...(query ? [query] : [])];
  return `index.html?${params.join('&')}`;
}

/**
 * Opens the training section at `query`, scrolls to it and waits for its model (built and
 * replayed). Returns { page, section }. `alone` (the default): in iframe mode with the author's
 * tools (?embed=1&tools=1&section=training), where it is the only section built, a load of under
 * a second instead of the page's 2.5 s; the section is the same, and its place in the page is
 * page-*.test.js's and training-isolated's. `alone: false`: the whole page (the benchmark's).
 */
export async function openTraining(env, { query = '', lang = 'en', alone = true, ...pageOptions } = {}) {
  const page = await newPage(env, pageOptions);
  await page.goto(env.url(sectionAddress('training', { query, lang, alone })));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const section = page.locator(TRAINING);
  await section.scrollIntoViewIfNeeded();
  await trainingSettled(page);
  return { page, section };
}

/** Waits until the training run exists and no replay is under way. */
export function trainingSettled(page) {
  return page.waitForSelector(`${TRAINING}:not([data-state="loading"]):not([data-state="replaying"])`, { timeout: 60000 });
}

/**
 * The training section's observable state, all from the DOM, once its figures show its step: a
 * slow Step (a busy machine) draws the status at once and the heat map and charts a frame later
 * (web/page/sections/training/controller.js).
 */
export async function readState(section) {
  await section.page().waitForFunction((el) => /^(loading|replaying|failed)$/.test(el.dataset.state || '')
    || el.querySelector('.heatmap')?.dataset.step === el.dataset.step, await section.elementHandle(), { timeout: 30000 });
  return section.evaluate((el) => ({
    state: el.dataset.state,
    step: Number(el.dataset.step),
    loss: el.dataset.loss === '' ? null : Number(el.dataset.loss),
    lossText: el.querySelector('[data-role="loss"]').textContent,
    lossPoints: Number(el.querySelector('canvas[data-chart="loss"]').dataset.points),
    flashed: [...el.querySelectorAll('.heat-row[data-flashed]')].map((r) => Number(r.dataset.row)),
    flashedWords: [...el.querySelectorAll('.heat-row[data-flashed]')].map((r) => r.dataset.word),
    heatStep: Number(el.querySelector('.heatmap').dataset.step),
    updatedAttr: el.querySelector('.heatmap').dataset.updatedRows,
    batch: [...el.querySelectorAll('[data-role="batch"] li')].map((li) => li.dataset.sentence),
    batchText: [...el.querySelectorAll('[data-role="batch"] li')].map((li) => li.textContent),
    moments: [...el.querySelectorAll('.heat-row[data-moment]')].map((r) => Number(r.dataset.row)),
    narration: el.querySelector('[data-role="narration"]').textContent,
    text: el.innerText,
  }));
}

/** The largest corpus the training section accepts: 300 sentences × 32 words, 9,000 distinct words (19,199 characters). */
export function bigCorpus() {
  return Array.from({ length: 300 }, (_, i) => Array.from({ length: 32 }, (_, j) => String.fromCodePoint(0x4e00 + ((i * 32 + j) % 9000))).join(' ')).join('\n');
}

/**
 * Resolves once a paste into the training section's corpus editor is all in (a long one goes in
 * a piece a frame: web/page/sections/training/corpus-panel.js marks the editor data-pasting).
 */
export function pasteDone(editor) {
  return editor.evaluate((el) => new Promise((resolve) => {
    const poll = () => (el.dataset.pasting ? requestAnimationFrame(poll) : resolve());
    poll();
  }));
}
