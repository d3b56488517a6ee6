// The demo page loads (served and as the single file, zh and en) with no console error and no
// request leaving the machine, and shows the article's numbers (its pictures are
// screenshots.test.js's). How fast the numbers appear is a speed, so it lives in the
// benchmark (bench/page.mjs), not here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, settle } from './harness.js';
import { openPage, row, ARTICLE, goToLast } from './page-helpers.js';
import { SECTION_IDS } from '../../web/page/sections/index.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

for (const file of [false, true]) {
  for (const locale of ['zh-CN', 'en-US']) {
    const lang = locale.slice(0, 2);
    test(`${file ? 'single file (file://)' : 'served page'} in ${lang}: article numbers, no errors, no network`, async () => {
      const page = await openPage(env, { file, locale });
      assert.equal(await page.getAttribute('html', 'lang'), lang === 'zh' ? 'zh-CN' : 'en');
      assert.deepEqual(await row(page, 'scores', 'Q', 0), ARTICLE.Q0);
      // softmax fills in A from its last step (every section opens at its first): ▶| as a reader would
      await goToLast(page, 'softmax');
      assert.deepEqual(await row(page, 'softmax', 'S', 0), ARTICLE.S0);
      assert.deepEqual(await row(page, 'softmax', 'A', 0), ARTICLE.A0);
      assert.deepEqual(await row(page, 'mixing', 'O', 0), ARTICLE.O0);
      const text = await page.innerText('#app');
      assert.match(text, /0\.873/);   // the pull experiment, unscaled
      assert.match(text, /0\.695/);   // … and scaled, as the article prints it
      assert.ok(!/NaN/.test(text), 'NaN on screen');
      const sections = await page.$$eval('.qkv-section', (els) => els.map((e) => e.dataset.section));
      assert.deepEqual(sections, SECTION_IDS);
      await settle(page);
      // every heading a reader (or a screen reader) can reach says something, before any run is built
      const empty = await page.$$eval('h1, h2, h3, h4, h5, h6', (hs) => hs.filter((h) => h.checkVisibility() && !h.textContent.trim()).map((h) => h.outerHTML));
      assert.deepEqual(empty, []);
      assert.deepEqual(page.problems(), []);
      await page.closeAll();
    });
  }
}

// The page runs SIMD128, never relaxed SIMD (tools/build-page.mjs leaves those kernels out), even
// in a Chromium that validates relaxed SIMD: the numbers it shows are the ones the API gives in
// Node by default, bit for bit (training-run.test.js compares them).
// f32x4.relaxed_madd of three splats (web/qkv-lab.js's probe): whether this engine runs relaxed SIMD
const RELAXED_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0,
  10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11];
test('served and as the single file, the page runs the SIMD128 kernels, not relaxed SIMD', async () => {
  for (const file of [false, true]) {
    const page = await openPage(env, { file });
    assert.ok(await page.evaluate((bytes) => WebAssembly.validate(new Uint8Array(bytes)), RELAXED_PROBE),
      'this Chromium does not validate relaxed SIMD, so the test cannot tell');
    assert.equal(await page.getAttribute('body', 'data-kernels'), 'simd128', file ? 'file://' : 'served');
    await page.closeAll();
  }
});

// The page at phone and desktop widths, in both languages and the dark scheme (no wider than the
// window, and its pictures): screenshots.test.js, on its one load per language and width.

// What "no network" above rests on: a request for anything off this machine goes to the tests'
// Chromium's proxy, a port of ours that refuses it (tools/browser.mjs, argsWithProxy), by host
// name or by address, and newPage() records it, so a page that asked for a CDN's script would show
// it in problems() rather than load it. (The test asserts the proxy's refusal, not just a failure: on a
// machine with no network at all, any fetch fails.)
test('the tests\' browser lets no request leave the machine, and records any that tries', async () => {
  const page = await openPage(env, { query: '?embed=1&section=bogus' });
  const failures = [];
  page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
  const tried = ['https://cdn.jsdelivr.net/npm/chart.js', 'http://93.184.216.34/'];
  const results = await page.evaluate((urls) => Promise.all(urls.map((u) => fetch(u, { mode: 'no-cors' })
    .then(() => 'loaded', (e) => `failed: ${e.message}`))), tried);
  assert.deepEqual(results, tried.map(() => 'failed: Failed to fetch'));
  // the proxy closed them (as it does at once); without it, no network at all reads
  // ERR_NAME_NOT_RESOLVED or ERR_ADDRESS_UNREACHABLE, and a network would load them
  assert.equal(failures.length, tried.length, failures.join('; '));
  for (const failure of failures) assert.match(failure, /net::ERR_(PROXY_CONNECTION_FAILED|SOCKET_NOT_CONNECTED|EMPTY_RESPONSE|CONNECTION_CLOSED|CONNECTION_RESET)$/);
  assert.deepEqual(page.problems().filter((p) => p.startsWith('request left the machine')),
    tried.map((u) => `request left the machine: ${u}`));
  await page.closeAll();
});
