// widget-addon.test.js: the widget's classic script carries every section but the two training
// ones, which live in qkv-lab-widget-training.js (web/widget/addon.js). A post with attention
// sections only never fetches the add-on; a training section fetches it once, from beside the
// widget's script (or from data-training-src), however many widgets ask; a post may include it
// itself, before or after the core; a missing add-on is a clear message, not a broken page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, settle, ROOT } from './harness.js';
import { newBlogPage, waitForWidget, widget, STRICT_CSP } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const ADDON = /\/qkv-lab-widget-training\.js(\?|$)/;
const CORE_TAG = '<script src="/dist/qkv-lab-widget.js"></script>';

/** The blog post, with every request it makes recorded from the start: { page, seen }. */
async function openPost(options = {}, before = null) {
  const page = await newBlogPage(env, options);
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  if (before) await before(page);
  await page.goto(env.url('fixtures/blog-post.html'));
  return { page, seen };
}

/** The blog post with its first widget turned into a training section (and more, optionally). */
const training = (extra = '') => (html) => html
  .replace('<qkv-lab id="first" lang="zh" seed="42">', `<qkv-lab id="first" section="training" lang="en">`)
  .replace('</article>', `${extra}</article>`);

async function trained(page, id) {
  await waitForWidget(page, id, 60000);
  await page.waitForFunction((id) => document.getElementById(id).shadowRoot.querySelector('section[data-section="training"]:not([data-state="loading"])'), id, { timeout: 60000 });
}

test('a post with attention sections only never fetches the training add-on', async () => {
  const { page, seen } = await openPost({ csp: STRICT_CSP });
  await waitForWidget(page, 'first');
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
  await settle(page);
  assert.equal(seen.filter((u) => ADDON.test(u)).length, 0, seen.join('\n'));
  assert.equal(await page.evaluate(() => document.querySelectorAll('script[data-qkv-lab]').length), 0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('two training widgets fetch the add-on once, from beside the widget\'s script, under the strict CSP', async () => {
  const { page, seen } = await openPost({ csp: STRICT_CSP,
    transform: training('<qkv-lab id="third" section="trainstep" lang="zh"></qkv-lab>') });
  await trained(page, 'first');
  await page.locator('#third').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'third', 60000);
  await settle(page);
  const fetched = seen.filter((u) => ADDON.test(u));
  assert.deepEqual(fetched, [`${env.server.url}/dist/qkv-lab-widget-training.js`]);
  assert.equal((await widget(page, 'third')).section, 'trainstep');
  // one string table, one WASM instance: the add-on's sections use the core's modules
  assert.match((await widget(page, 'third')).title, /训练/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the add-on included by the post itself, before the core, is used and not fetched again', async () => {
  const { page, seen } = await openPost({ transform: (html) => training()(html)
    .replace(CORE_TAG, '<script src="/dist/qkv-lab-widget-training.js"></script>\n' + CORE_TAG) });
  await trained(page, 'first');
  await settle(page);
  assert.equal(seen.filter((u) => ADDON.test(u)).length, 1, 'only the post\'s own tag');
  assert.equal(await page.evaluate(() => document.querySelectorAll('script[data-qkv-lab]').length), 0, 'nothing injected');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('data-training-src points the core elsewhere; a missing add-on shows a message and a qkv-error', async () => {
  const { page } = await openPost({ transform: (html) => training()(html)
    .replace(CORE_TAG, '<script src="/dist/qkv-lab-widget.js" data-training-src="/nowhere/training.js"></script>') },
  (p) => p.addInitScript(() => {
    window.__errors = [];
    document.addEventListener('qkv-error', (e) => window.__errors.push({ target: e.target.id, message: e.detail.message }));
  }));
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('.widget-status.failed'), null, { timeout: 60000 });
  const text = (await widget(page, 'first')).text;
  assert.match(text, /nowhere\/training\.js/);
  assert.match(text, /next to qkv-lab-widget\.js/);
  const errors = await page.evaluate(() => window.__errors);
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0].target, 'first');
  assert.match(errors[0].message, new RegExp(`${env.server.url.replace(/[.:/]/g, '\\$&')}/nowhere/training\\.js`));
  // the walkthrough widget on the same page is unaffected
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
  // the failed load is the only problem: the browser reports the 404, nothing throws
  assert.deepEqual(page.problems().filter((p) => !/404|Failed to load resource/.test(p)), []);
  await page.closeAll();
});

test('the pretrained poet\'s file missing: fine-tuning and generation say so in the widget and fire qkv-error, as a missing add-on does', async () => {
  const { page } = await openPost({ transform: (html) => html
    .replace('<qkv-lab id="first" lang="zh" seed="42">', '<qkv-lab id="first" section="finetune" lang="en" ftsteps="25">')
    .replace('<qkv-lab id="second" section="softmax" lang="en">', '<qkv-lab id="second" section="generate" lang="en">')
    .replace(CORE_TAG, '<script src="/dist/qkv-lab-widget.js" data-pretrained-src="/nowhere/pretrained.js"></script>') },
  (p) => p.addInitScript(() => {
    window.__errors = [];
    document.addEventListener('qkv-error', (e) => window.__errors.push({ target: e.target.id, message: e.detail.message }));
  }));
  await waitForWidget(page, 'first', 60000);
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second', 60000);
  await page.waitForFunction(() => window.__errors.length === 2, null, { timeout: 60000 });
  const errors = await page.evaluate(() => window.__errors);
  assert.deepEqual(errors.map((e) => e.target).sort(), ['first', 'second']);
  for (const e of errors) assert.match(e.message, /\/nowhere\/pretrained\.js/);
  // the section draws what its store says at its own pace: wait for the message
  await page.waitForFunction(() => /could not be loaded/.test(document.getElementById('first').shadowRoot.querySelector('.qkv').innerText), null, { timeout: 60000 });
  const first = (await widget(page, 'first')).text;
  assert.match(first, /The pretrained model could not be loaded, so this section cannot fine-tune/);
  assert.match(first, /Without the pretrained model there are no samples/);
  assert.doesNotMatch(first, /Loading the pretrained/);
  // the failed loads are the only problems: the browser reports the 404s, nothing throws
  assert.deepEqual(page.problems().filter((p) => !/404|Failed to load resource/.test(p)), []);
  await page.closeAll();
});

const GPT_ADDON = /\/qkv-lab-widget-gpt\.js(\?|$)/;
/** The blog post with its first widget showing the Transformer block (an add-on section), in English. */
const block = (html) => html.replace('<qkv-lab id="first" lang="zh" seed="42">', '<qkv-lab id="first" section="block" lang="en">');

test('the widget\'s script twice on a page (two pasted embeds): the add-on sections still get the first copy\'s engine and words', async () => {
  const { page } = await openPost({ transform: (html) => block(html)
    .replace('</article>', '<qkv-lab id="third" section="trainstep" lang="en"></qkv-lab></article>')
    .replace(CORE_TAG, `${CORE_TAG}\n${CORE_TAG}`) });
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('.qkv-section[data-section="block"], .widget-status.failed'), null, { timeout: 60000 });
  const first = await widget(page, 'first');
  assert.equal(first.section, 'block', first.text);
  assert.match(first.title, /Transformer block/);
  await page.locator('#third').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'third', 60000);
  const third = await widget(page, 'third');
  assert.doesNotMatch(third.text, /\bts\.[a-z]+\.|could not load/, 'no raw string keys, no failure');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the classic script loaded as type="module" finds its add-ons beside itself; QkvLab.load({ gpt: true }) works before any GPT section was shown', async () => {
  const { page, seen } = await openPost({ transform: (html) => html
    .replace(CORE_TAG, '<script type="module" src="/dist/qkv-lab-widget.js"></script>')
    .replace('</article>', '<qkv-lab id="third" section="block" lang="en"></qkv-lab></article>') });
  await waitForWidget(page, 'first', 60000);
  // no GPT section drawn yet: the API still gets its engine (the core fetches its GPT add-on)
  const engine = await page.evaluate(() => window.QkvLab.load({ gpt: true }).then((qkv) => qkv.gptLoaded, (e) => e.message));
  assert.equal(engine, true);
  // from beside the core's own script, not from the page's folder
  assert.deepEqual(seen.filter((u) => GPT_ADDON.test(u)), [`${env.server.url}/dist/qkv-lab-widget-gpt.js`]);
  await page.locator('#third').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('third').shadowRoot.querySelector('.qkv-section[data-section="block"], .widget-status.failed'), null, { timeout: 60000 });
  assert.equal((await widget(page, 'third')).section, 'block');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

// Under Trusted Types a string may not become a script's src: the core passes the add-on's URL
// through a policy of its own ('qkv-lab'); where the page's CSP does not allow that policy, the
// message names the file and the two ways out.
const TRUSTED_TYPES = `${STRICT_CSP}; require-trusted-types-for 'script'`;

test('under Trusted Types (require-trusted-types-for \'script\') the training add-on still loads, through the qkv-lab policy', async () => {
  const { page, seen } = await openPost({ csp: TRUSTED_TYPES, transform: training() });
  await trained(page, 'first');
  assert.equal(seen.filter((u) => ADDON.test(u)).length, 1);
  assert.doesNotMatch((await widget(page, 'first')).text, /could not load|Failed to set/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('under Trusted Types that do not allow the qkv-lab policy, the message names the add-on file and what to do', async () => {
  const { page } = await openPost({ csp: `${TRUSTED_TYPES}; trusted-types blog-only`, transform: training() });
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('.widget-status.failed'), null, { timeout: 60000 });
  const text = (await widget(page, 'first')).text;
  assert.match(text, /could not load http:\/\/[^ ]+\/dist\/qkv-lab-widget-training\.js/);
  assert.match(text, /Trusted Types/);
  assert.match(text, /<script src="http:\/\/[^"]+\/dist\/qkv-lab-widget-training\.js"><\/script>/);
  assert.match(text, /trusted-types qkv-lab/);
  await page.closeAll();
});

test('on a page in a legacy encoding (windows-1252) the classic scripts still read as UTF-8 (their byte order mark): the core\'s and the training add-on\'s Chinese are right', async () => {
  const { SOFTMAX_STRINGS } = await import('../../web/page/sections/softmax.strings.js');
  const { TRAINSTEP_STRINGS } = await import('../../web/page/sections/trainstep.strings.js');
  const page = await newPage(env);
  const html = '<!doctype html><html><head><meta charset="windows-1252"><title>caf\xe9</title></head><body>' +
    '<qkv-lab id="a" section="softmax" lang="zh"></qkv-lab><qkv-lab id="b" section="trainstep" lang="zh"></qkv-lab>' +
    '<script src="qkv-lab-widget.js"></script></body></html>';
  await page.route(env.url('dist/legacy.html'), (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=windows-1252' }, body: Buffer.from(html, 'latin1') }));
  // the scripts as a server that names no charset sends them: the page's encoding would apply
  await page.route(/qkv-lab-widget(-training)?\.js$/, async (route) => {
    const file = path.join(ROOT, 'web', 'dist', path.basename(new URL(route.request().url()).pathname));
    await route.fulfill({ status: 200, headers: { 'content-type': 'text/javascript' }, body: fs.readFileSync(file) });
  });
  await page.goto(env.url('dist/legacy.html'));
  assert.equal(await page.evaluate(() => document.characterSet), 'windows-1252');
  const title = (id) => page.waitForFunction((id) => document.getElementById(id)?.shadowRoot?.querySelector('.section-title')?.textContent, id, { timeout: 60000 }).then((h) => h.jsonValue());
  assert.equal(await title('a'), SOFTMAX_STRINGS.zh['softmax.title']);
  await page.locator('#b').scrollIntoViewIfNeeded();
  assert.equal(await title('b'), TRAINSTEP_STRINGS.zh['ts.title']);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the classic script\'s API: createModel says what to call; load({ model: true }) fetches the training add-on once, and then createModel works', async () => {
  const { page, seen } = await openPost();
  await waitForWidget(page, 'first');
  assert.equal(seen.filter((u) => ADDON.test(u)).length, 0);
  const result = await page.evaluate(async () => {
    const qkv = await window.QkvLab.load();
    let create;
    try { qkv.createModel({ seed: 1 }); } catch (error) { create = error.message; }
    const before = qkv.modelLoaded;
    const [a, b] = await Promise.all([window.QkvLab.load({ model: true }), qkv.loadModelEngine()]);
    const model = qkv.createModel({ seed: 1 });
    const { loss } = model.step();
    model.dispose();
    return { create, before, after: qkv.modelLoaded, same: a === qkv && b === qkv, loss };
  });
  assert.match(result.create, /^createModel: the trainable model is not loaded: .*load\(\{ model: true \}\)/);
  assert.equal(result.before, false);
  assert.equal(result.after, true);
  assert.equal(result.same, true);
  assert.ok(Number.isFinite(result.loss), String(result.loss));
  assert.deepEqual(seen.filter((u) => ADDON.test(u)), [`${env.server.url}/dist/qkv-lab-widget-training.js`]);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
