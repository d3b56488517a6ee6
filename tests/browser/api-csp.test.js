// load() under a Content-Security-Policy that does not let WebAssembly compile (script-src
// 'self' without 'wasm-unsafe-eval'): the promise rejects with a message that names the fix,
// not with the browser's CompileError about 'unsafe-eval'. (The widget under the README's policy,
// which has 'wasm-unsafe-eval', is tests/browser/widget-blog.test.js.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './harness.js';

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
        "load({ fresh: true }).then((qkv) => { document.body.dataset.result = 'loaded ' + qkv.kernels; },\n" +
        "  (error) => { document.body.dataset.result = error.constructor.name + ': ' + error.message; });\n",
    }));
    await page.goto(env.url('csp-probe.html'));
    await page.waitForSelector('body[data-result]', { state: 'attached', timeout: 60000 });
    return await page.getAttribute('body', 'data-result');
  } finally {
    await page.closeAll();
  }
}

test("without 'wasm-unsafe-eval', load() rejects naming 'wasm-unsafe-eval' and where it goes", async () => {
  const result = await loadUnder("default-src 'self'; script-src 'self'");
  assert.match(result, /^Error: load: this page's Content-Security-Policy does not let WebAssembly compile: add 'wasm-unsafe-eval' to its script-src/);
  assert.match(result, /The browser said: /, 'the browser\'s own words follow');
});

test("with 'wasm-unsafe-eval', the same page loads, with the relaxed-SIMD kernels in Chromium", async () => {
  assert.equal(await loadUnder("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"), 'loaded relaxed-simd');
});
