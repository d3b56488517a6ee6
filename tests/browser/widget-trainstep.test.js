// widget-trainstep.test.js: the one-step walkthrough outside the page: as <qkv-lab
// section="trainstep"> in a blog post under the strict CSP (its own run, stepped by the host
// page's calls, qkv-step events naming each stage, every byte freed when removed) and in iframe
// mode (?embed=1&section=trainstep shows it alone). Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './harness.js';
import { openBlog, waitForWidget, STRICT_CSP } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

test('<qkv-lab section="trainstep">: its own run, stepped from the host page, events per stage, memory freed', async () => {
  const page = await openBlog(env, { csp: STRICT_CSP });
  await waitForWidget(page, 'first');
  const baseline = await page.evaluate(async () => (await window.QkvLab.load()).heapUsed());
  await page.evaluate(() => {
    const el = document.createElement('qkv-lab');
    el.id = 'walk';
    el.setAttribute('section', 'trainstep');
    el.setAttribute('lang', 'en');
    window.__steps = [];
    el.addEventListener('qkv-step', (e) => window.__steps.push(e.detail));
    document.querySelector('article').append(el);
  });
  await page.locator('#walk').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'walk');
  // built near the viewport; the walkthrough computes once it is on screen
  await page.locator('#walk').evaluate((el) => el.scrollIntoView());
  await page.waitForFunction(() => document.getElementById('walk').shadowRoot.querySelector('.qkv-section[data-state="ready"]'), null, { timeout: 60000 });
  assert.ok(await page.evaluate(async () => (await window.QkvLab.load()).heapUsed()) > baseline, 'the widget\'s run lives on the heap');
  await page.evaluate(() => { const el = document.getElementById('walk'); el.next(); el.next(); el.next(); });
  const steps = await page.evaluate(() => window.__steps);
  assert.deepEqual(steps.map((s) => s.stage), ['positions', 'attention', 'predict']);
  assert.deepEqual(steps.at(-1), { section: 'trainstep', step: 3, count: 8, stage: 'predict' });
  const readOff = await page.locator('#walk [data-role="ts-readoff"]').textContent();
  assert.match(readOff, /^p\(果 \| 我 爱 吃 苹\) = \d\.\d{3}$/);
  // the widget's own run can be trained from inside it
  await page.locator('#walk [data-role="ts-end"]').click();
  await page.waitForFunction(() => {
    const s = document.getElementById('walk').shadowRoot.querySelector('.qkv-section');
    return s.dataset.state === 'ready' && Number(s.dataset.step) > 0;
  }, null, { timeout: 60000 });
  await page.evaluate(() => document.getElementById('walk').remove());
  assert.equal(await page.evaluate(async () => (await window.QkvLab.load()).heapUsed()), baseline, 'heap back to where it was');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('iframe mode: ?embed=1&section=trainstep shows the walkthrough alone, with its numbers', async () => {
  const page = await newPage(env);
  await page.goto(env.url('index.html?embed=1&section=trainstep&lang=zh'));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.waitForSelector('section[data-section="trainstep"][data-state="ready"]', { timeout: 60000 });
  const visible = await page.evaluate(() => [...document.querySelectorAll('.qkv-section')].filter((s) => s.offsetParent !== null).map((s) => s.dataset.section));
  assert.deepEqual(visible, ['trainstep']);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.embedSection), 'trainstep');
  assert.match(await page.locator('[data-role="ts-readoff"]').textContent(), /^p\(果 \| 我 爱 吃 苹\) = \d\.\d{3}$/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
