// load() under a Content-Security-Policy that does not let WebAssembly compile (script-src
// 'self' without 'wasm-unsafe-eval'): the promise rejects with a message that names the fix,
// not with the browser's CompileError about 'unsafe-eval'. (The widget under the README's policy,
// which has 'wasm-unsafe-eval', is tests/browser/widget-blog.test.js.) With it, the API loads the
// relaxed-SIMD kernels in Chromium, and their numbers meet the error bound of tests/error-bounds.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './harness.js';
import { attentionBounds, worstRatio } from '../error-bounds.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

async function loadUnder(policy) {
  const page = await newPage(env);
  try {
    // a page and its script served from web/'s origin, so that ./qkv-lab.js resolves next to them
    await page.route(env.url('csp-probe.html'), (route) => route.fulfill({
      status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy },
      body: '<!doctype html><html><head><link rel="icon" href="favicon.svg"></head><body><script type="module" src="csp-probe.js"></script></body></html>',
    }));
    await page.route(env.url('csp-probe.js'), (route) => route.fulfill({
      status: 200, headers: { 'content-type': 'text/javascript' },
      body: "import { load } from './qkv-lab.js';\n" +
        "load({ fresh: true }).then((qkv) => {\n" +
        // the relaxed build's numbers in Chromium, for the error-bound check below
        "  const g = qkv.rng(11), Q = g.randn(33, 16).scale(3), K = g.randn(40, 16).scale(3), V = g.randn(40, 5);\n" +
        "  const r = qkv.attend(Q, K, V, { causal: true });\n" +
        "  window.__attend = { Q: [...Q.data], K: [...K.data], V: [...V.data], scores: [...r.scores.data], weights: [...r.weights.data], output: [...r.output.data] };\n" +
        "  document.body.dataset.result = 'loaded ' + qkv.kernels; },\n" +
        "  (error) => { document.body.dataset.result = error.constructor.name + ': ' + error.message; });\n",
    }));
    await page.goto(env.url('csp-probe.html'));
    await page.waitForSelector('body[data-result]', { state: 'attached', timeout: 60000 });
    return { result: await page.getAttribute('body', 'data-result'), attend: await page.evaluate(() => window.__attend) };
  } finally {
    await page.closeAll();
  }
}

test("without 'wasm-unsafe-eval', load() rejects naming 'wasm-unsafe-eval' and where it goes", async () => {
  const { result } = await loadUnder("default-src 'self'; script-src 'self'");
  assert.match(result, /^Error: load: this page's Content-Security-Policy does not let WebAssembly compile: add 'wasm-unsafe-eval' to its script-src/);
  assert.match(result, /The browser said: /, 'the browser\'s own words follow');
});

test("with 'wasm-unsafe-eval', the same page loads the relaxed-SIMD kernels, whose numbers meet the float32 error bound", async () => {
  const { result, attend } = await loadUnder("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'");
  assert.equal(result, 'loaded relaxed-simd');
  const m = (rows, cols, data) => ({ rows, cols, data: Float32Array.from(data) });
  const bounds = attentionBounds(m(33, 16, attend.Q), m(40, 16, attend.K), m(40, 5, attend.V), 4, true);
  const worst = {};
  for (const [key, rows, cols] of [['scores', 33, 40], ['weights', 33, 40], ['output', 33, 5]]) {
    worst[key] = worstRatio(m(rows, cols, attend[key]), bounds[key], `Chromium relaxed-simd attend 33×16 over 40 keys, causal: ${key}`);
  }
  console.log(`Chromium, relaxed-simd: largest error ÷ bound: ${Object.entries(worst).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}`);
});
