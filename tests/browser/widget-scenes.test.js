// Scenes: <qkv-lab step="3" steps="2-4" loop autoplay>, the same as page and
// iframe links. A scene opens at its step and its stepper stays in its range whatever moves it
// (buttons, keys, next(), play); loop wraps from the range's end to its start; bad values get the
// widget's one-line notice and fall back; a property set later moves the built widget. And the
// static fallback: what the author puts inside <qkv-lab> shows where scripts never run,
// and is replaced by the widget where they do. Every wait is on state (events, attributes, DOM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage, settle } from './harness.js';
import { waitForWidget, widget } from './widget-helpers.js';
import { openPage, position, goToLast } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/** A fresh post at /dist/<name> (so that the tag's src="qkv-lab-widget.js" resolves) holding `body`. */
async function post(body, { name = 'scene-post.html', javaScriptEnabled = true } = {}) {
  let page;
  if (javaScriptEnabled) {
    page = await newPage(env);
  } else {
    const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 }, javaScriptEnabled: false });
    page = await context.newPage();
    page.closeAll = () => context.close();
    page.problems = () => [];
  }
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>post</title></head><body><article style="max-width:720px">${body}</article></body></html>`;
  await page.route(env.url(`dist/${name}`), (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html }));
  await page.goto(env.url(`dist/${name}`));
  return page;
}

/** Records every qkv-step event of widget #id in window.steps (0-based detail.step). */
const recordSteps = (page, id) => page.evaluate((id) => {
  window.steps = [];
  document.getElementById(id).addEventListener('qkv-step', (e) => window.steps.push(e.detail.step));
}, id);

const inShadow = (page, id, fn, arg) => page.evaluate(([id, source, arg]) => {
  const root = document.getElementById(id).shadowRoot;
  // eslint-disable-next-line no-new-func
  return new Function('root', 'arg', source)(root, arg);
}, [id, fn, arg]);

test('a widget scene opens at its step and stays in its range: buttons, keys and next() stop at its ends', async () => {
  const page = await post('<qkv-lab id="w" section="softmax" step="3" steps="2-4"></qkv-lab><script src="qkv-lab-widget.js"></script>');
  await waitForWidget(page, 'w');
  let w = await widget(page, 'w');
  assert.equal(w.position, 'step 3 of 4');
  assert.equal(w.notice, '');
  // forward to the range's end, then once more: it stays, and ▶| is disabled there
  await inShadow(page, 'w', "root.querySelector('.step-forward').click()");
  assert.equal((await widget(page, 'w')).position, 'step 4 of 4');
  assert.equal(await inShadow(page, 'w', "return root.querySelector('.step-forward').disabled"), true);
  await page.evaluate(() => document.getElementById('w').next());
  assert.equal((await widget(page, 'w')).position, 'step 4 of 4');
  // back to its start: |◀ goes to step 2, not 1; ◀ and ← stop there
  await inShadow(page, 'w', "root.querySelector('.step-first').click()");
  assert.equal((await widget(page, 'w')).position, 'step 2 of 4');
  assert.equal(await inShadow(page, 'w', "return root.querySelector('.step-back').disabled"), true);
  await inShadow(page, 'w', "root.querySelector('.stage').focus()");
  await page.keyboard.press('ArrowLeft');
  await page.evaluate(() => document.getElementById('w').previous());
  assert.equal((await widget(page, 'w')).position, 'step 2 of 4');
  // the properties mirror the attributes, and a property set later moves the built widget
  assert.deepEqual(await page.evaluate(() => { const el = document.getElementById('w'); return [el.step, el.steps, el.loop, el.autoplay]; }), [3, '2-4', false, false]);
  await page.evaluate(() => { document.getElementById('w').step = 4; });
  await page.waitForFunction(() => document.getElementById('w').shadowRoot.querySelector('.step-position').textContent === 'step 4 of 4');
  await page.evaluate(() => { document.getElementById('w').steps = null; });
  await page.waitForFunction(() => document.getElementById('w').getAttribute('steps') === null);
  await inShadow(page, 'w', "root.querySelector('.step-first').click()");
  w = await widget(page, 'w');
  assert.equal(w.position, 'step 1 of 4', 'without steps the whole section is reachable again');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('play stops at the range\'s end; with loop it wraps round to the range\'s start', async () => {
  const page = await post('<qkv-lab id="p" section="softmax" steps="2-3"></qkv-lab><qkv-lab id="l" section="softmax" steps="2-3" loop autoplay></qkv-lab><script src="qkv-lab-widget.js"></script>');
  await waitForWidget(page, 'p');
  await recordSteps(page, 'p');
  await page.evaluate(() => document.getElementById('p').play());
  await page.waitForFunction(() => !document.getElementById('p').playing);
  assert.equal((await widget(page, 'p')).position, 'step 3 of 4', 'play ends on the range\'s last step');
  assert.ok(!(await page.evaluate(() => window.steps)).includes(3), 'play never went past the range');

  await page.locator('#l').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'l');
  await recordSteps(page, 'l');
  // autoplay + loop: 2 → 3 → 2 → 3 (0-based 1, 2, 1, 2), and it is still playing
  await page.waitForFunction(() => window.steps.join(',').includes('2,1,2'), null, { timeout: 30000 });
  const seen = await page.evaluate(() => window.steps);
  assert.ok(seen.every((s) => s === 1 || s === 2), `left the range: ${seen}`);
  assert.equal(await page.evaluate(() => document.getElementById('l').playing), true);
  await page.evaluate(() => document.getElementById('l').pause());
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('bad scene values get the one-line notice and fall back', async () => {
  const page = await post([
    '<qkv-lab id="a" section="softmax" steps="4-2"></qkv-lab>',
    '<qkv-lab id="b" section="softmax" step="4" steps="1-2"></qkv-lab>',
    '<qkv-lab id="c" section="softmax" loop="sometimes" step="-1"></qkv-lab>',
    '<script src="qkv-lab-widget.js"></script>'].join(''));
  for (const id of ['a', 'b', 'c']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await waitForWidget(page, id);
  }
  const a = await widget(page, 'a');
  assert.match(a.notice, /steps="4-2" is not valid/);
  assert.equal(a.notice.split('\n').length, 1);
  const b = await widget(page, 'b');
  assert.match(b.notice, /step="4" is not valid; using the default, 1\./);
  assert.equal(b.position, 'step 1 of 4');
  const c = await widget(page, 'c');
  assert.match(c.notice, /loop="sometimes"/);
  assert.match(c.notice, /step="-1"/);
  await page.closeAll();
});

test('a step past the section\'s last, or a range that ends past it: the one-line notice (zh and en) and the fallback, in the widget, on the page and in iframe mode', async () => {
  // softmax on the default sentence has 4 steps
  const page = await post([
    '<qkv-lab id="d" section="softmax" lang="en" step="9"></qkv-lab>',
    '<qkv-lab id="e" section="softmax" lang="en" steps="2-9"></qkv-lab>',
    '<qkv-lab id="z" section="softmax" lang="zh" step="9"></qkv-lab>',
    '<script src="qkv-lab-widget.js"></script>'].join(''));
  for (const id of ['d', 'e', 'z']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await waitForWidget(page, id);
  }
  const d = await widget(page, 'd');
  assert.equal(d.notice, 'step="9" is not valid; using the default.');
  assert.equal(d.position, 'step 1 of 4', 'the section\'s own opening step');
  const e = await widget(page, 'e');
  assert.equal(e.notice, 'steps="2-9" is not valid; using the default.');
  await inShadow(page, 'e', "root.querySelector('.step-first').click()");
  assert.equal((await widget(page, 'e')).position, 'step 1 of 4', 'every step is reachable');
  const z = await widget(page, 'z');
  assert.equal(z.notice, '属性 step="9" 无效，已改用默认值。');
  // a step set later: a good one clears the notice, a bad one brings it back
  await page.evaluate(() => { document.getElementById('d').step = 3; });
  await page.waitForFunction(() => document.getElementById('d').shadowRoot.querySelector('.step-position').textContent === 'step 3 of 4');
  assert.equal((await widget(page, 'd')).notice, '');
  await page.evaluate(() => { document.getElementById('d').step = 12; });
  await page.waitForFunction(() => /step="12" is not valid/.test(document.getElementById('d').shadowRoot.querySelector('.widget-notice').textContent));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();

  // the page's link, in English and in Chinese
  const en = await openPage(env, { query: '?lang=en&section=softmax&step=9' });
  assert.equal(await position(en, 'softmax'), 'step 1 of 4');
  assert.equal(await en.textContent('header .notice'), 'These link parameters were not valid and fell back to their defaults: step.');
  const zh = await openPage(env, { query: '?lang=zh&section=softmax&steps=2-9' });
  assert.equal(await zh.textContent('header .notice'), '链接里的这些参数无效，已改用默认值：steps。');
  // iframe mode: the notice above the one section shown
  const frame = await openPage(env, { query: '?embed=1&lang=en&section=softmax&step=9&steps=1-9' });
  assert.equal(await position(frame, 'softmax'), 'step 1 of 4');
  assert.equal(await frame.isDisabled('#softmax .step-forward'), false, 'the range fell back to every step');
  assert.equal(await frame.textContent('.embed-notice'), 'These link parameters were not valid and fell back to their defaults: steps, step.');
  assert.equal(await frame.isVisible('.embed-notice'), true);
  // a step that exists is no notice
  const good = await openPage(env, { query: '?embed=1&lang=en&section=softmax&step=4' });
  assert.equal(await position(good, 'softmax'), 'step 4 of 4');
  assert.equal(await good.isVisible('.embed-notice'), false);
  assert.deepEqual([...en.problems(), ...zh.problems(), ...frame.problems(), ...good.problems()], []);
  for (const p of [en, zh, frame, good]) await p.closeAll();
});

test('page and iframe links: ?section=…&step=…&steps=… open that section at that step, within that range', async () => {
  const page = await openPage(env, { query: '?lang=en&section=scores&step=2&steps=2-3' });
  assert.equal(await position(page, 'scores'), 'step 2 of 11');
  assert.equal(await page.isDisabled('#scores .step-back'), true);
  await page.click('#scores .step-forward');
  assert.equal(await position(page, 'scores'), 'step 3 of 11');
  assert.equal(await page.isDisabled('#scores .step-forward'), true);
  // the other sections are not touched by the scene: softmax opens at its own first step and
  // reaches its last, past the range 2-3
  assert.equal(await position(page, 'softmax'), 'step 1 of 4');
  await goToLast(page, 'softmax');
  assert.equal(await position(page, 'softmax'), 'step 4 of 4');
  await page.closeAll();

  const frame = await openPage(env, { query: '?embed=1&lang=en&section=softmax&step=3&steps=2-3&loop=1' });
  assert.equal(await position(frame, 'softmax'), 'step 3 of 4');
  assert.equal(await frame.isDisabled('#softmax .step-forward'), true, 'step 3 is the range\'s end');
  await frame.click('#softmax .step-first');
  assert.equal(await position(frame, 'softmax'), 'step 2 of 4');
  // a step outside the range: the usual notice, and the range's start
  const bad = await openPage(env, { query: '?embed=1&lang=en&section=softmax&step=4&steps=1-2' });
  assert.equal(await position(bad, 'softmax'), 'step 1 of 4');
  assert.match(await bad.textContent('.embed-notice'), /step/);
  assert.deepEqual([...page.problems(), ...frame.problems(), ...bad.problems()], []);
  await frame.closeAll();
  await bad.closeAll();
});

const FALLBACK = '<qkv-lab id="f" section="softmax" lang="en"><p class="fallback">Softmax turns each row of scores into weights: 0.313, 0.337, 0.350.</p><img class="fallback-img" src="../favicon.svg" alt="the softmax step" width="120" height="120"></qkv-lab><script src="qkv-lab-widget.js"></script>';

test('the static fallback inside <qkv-lab> shows with JavaScript disabled', async () => {
  const page = await post(FALLBACK, { javaScriptEnabled: false, name: 'fallback-nojs.html' });
  const seen = await page.evaluate(() => {
    const p = document.querySelector('.fallback');
    const img = document.querySelector('.fallback-img');
    return { text: p.innerText, p: p.getBoundingClientRect().height, img: img.getBoundingClientRect().width, complete: img.complete && img.naturalWidth > 0, shadow: Boolean(document.getElementById('f').shadowRoot) };
  }).catch(async () => null);
  // evaluate still runs with scripts disabled for the page (playwright's own evaluation)
  assert.ok(seen, 'could not read the page');
  assert.equal(seen.shadow, false, 'the element did not upgrade');
  assert.match(seen.text, /0\.313, 0\.337, 0\.350/);
  assert.ok(seen.p > 0 && seen.img === 120 && seen.complete, `fallback not shown: ${JSON.stringify(seen)}`);
  await page.closeAll();
});

test('the fallback is replaced once the element upgrades', async () => {
  const page = await post(FALLBACK, { name: 'fallback-js.html' });
  await waitForWidget(page, 'f');
  const seen = await page.evaluate(() => ({
    p: document.querySelector('.fallback').getBoundingClientRect().height,
    img: document.querySelector('.fallback-img').getBoundingClientRect().width,
    still: document.querySelector('.fallback').isConnected,
  }));
  assert.deepEqual(seen, { p: 0, img: 0, still: true }, 'the fallback stays in the document (for feeds that read it) but is not drawn');
  assert.match((await widget(page, 'f')).text, /0\.313/);
  await page.closeAll();
});

test('iframe mode: autoplay with loop plays the range round while the section is shown', async () => {
  const frame = await openPage(env, { query: '?embed=1&lang=en&section=softmax&steps=2-3&loop=1&autoplay=1' });
  // every position the stepper shows, as it shows it
  await frame.evaluate(() => {
    window.seen = [document.querySelector('#softmax .step-position').textContent];
    new MutationObserver(() => window.seen.push(document.querySelector('#softmax .step-position').textContent))
      .observe(document.querySelector('#softmax .step-position'), { childList: true, characterData: true, subtree: true });
  });
  await frame.waitForFunction(() => window.seen.join('|').includes('step 3 of 4|step 2 of 4|step 3 of 4'), null, { timeout: 30000 });
  const seen = await frame.evaluate(() => window.seen);
  assert.ok(seen.every((s) => s === 'step 2 of 4' || s === 'step 3 of 4'), `left the range: ${seen}`);
  assert.deepEqual(frame.problems(), []);
  await frame.closeAll();
});

test('on the page, a link\'s scene leaves the address once the reader scrolls on to another section', async () => {
  const page = await openPage(env, { query: '?lang=en&section=softmax&step=3&steps=2-4&loop=1' });
  assert.equal(await position(page, 'softmax'), 'step 3 of 4');
  assert.match(await page.evaluate(() => location.search), /step=3&steps=2-4&loop=1/);
  // the reader scrolls (a wheel: the page's jump to the section lets go) down to another section
  await page.mouse.wheel(0, 10);
  await page.evaluate(() => document.getElementById('flow').scrollIntoView());
  await page.waitForFunction(() => new URLSearchParams(location.search).get('section') === 'flow');
  const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  assert.deepEqual(['step', 'steps', 'loop'].filter((name) => name in params), [], JSON.stringify(params));
  // what the section showed stays: the scene is in the section, the address no longer claims it
  assert.equal(await position(page, 'softmax'), 'step 3 of 4');
  await page.closeAll();
});
