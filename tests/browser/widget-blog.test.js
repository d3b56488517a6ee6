// <qkv-lab> in a hostile blog post (tests/browser/fixtures/blog-post.html + hostile.css: forced
// display, fonts, colours, margins, borders on every element, the root font shrunk, the widget's
// own tag squeezed and hidden). Two widgets, different sections and languages: both render at a
// real size with the article's numbers; they do not influence each other; attributes and
// properties mirror each other and invalid values fall back with a notice; events bubble out;
// nothing starts before it is scrolled to and a playing animation stops out of view; a removed
// widget frees its WASM memory; no console error, no request leaving the machine, one global.
// Then the same page under a strict Content-Security-Policy (no unsafe-eval, no unsafe-inline).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, screenshot, settle, ARTIFACTS, ROOT } from './harness.js';
import { openBlog, waitForWidget, widget, widgetRow, widgetGoToLast, ARTICLE, STRICT_CSP } from './widget-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const COLUMN = 720;  // the fixture's article width

async function bothDrawn(page) {
  await waitForWidget(page, 'first');
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
}

async function checkBothWidgets(page) {
  const first = await widget(page, 'first');
  const second = await widget(page, 'second');
  // real size, in spite of `qkv-lab { width: 50px; height: 20px; display: inline; … }`
  for (const [name, w] of [['first', first], ['second', second]]) {
    assert.ok(w.width >= COLUMN - 1 && w.width <= COLUMN + 1, `${name}: width ${w.width}, the column is ${COLUMN}`);
    assert.ok(w.height > 250, `${name}: height ${w.height}`);
    assert.ok(!w.overflowing, `${name}: content wider than the widget`);
    assert.ok(!/NaN/.test(w.text), `${name}: NaN on screen`);
    // the page's fonts and colours did not get in
    assert.ok(!/comic|courier/i.test(w.fontFamily), `${name}: font ${w.fontFamily}`);
    assert.notEqual(w.color, 'rgb(238, 0, 255)', `${name}: the page's colour leaked in`);
  }
  assert.equal(first.section, 'walkthrough');
  assert.equal(first.lang, 'zh-CN');
  assert.match(first.title, /自注意力/);
  assert.deepEqual(await widgetRow(page, 'first', 'X', 2), ARTICLE.X2);
  assert.equal(second.section, 'softmax');
  assert.equal(second.lang, 'en');
  assert.match(second.title, /Softmax/);
  // softmax's weights are filled in from its last step (it opens at its first)
  await widgetGoToLast(page, 'second');
  assert.deepEqual(await widgetRow(page, 'second', 'S', 0), ARTICLE.S0);
  assert.deepEqual(await widgetRow(page, 'second', 'A', 0), ARTICLE.A0);
  // the walkthrough reaches the article's weights and output
  await page.locator('#first .step-forward').click();
  await page.locator('#first .step-forward').click();
  assert.deepEqual(await widgetRow(page, 'first', 'scores', 0), ARTICLE.S0);
  await page.locator('#first .step-forward').click();
  assert.deepEqual(await widgetRow(page, 'first', 'weights', 0), ARTICLE.A0);
  await page.locator('#first .step-forward').click();
  assert.deepEqual(await widgetRow(page, 'first', 'output', 0), ARTICLE.O0);
  assert.match((await widget(page, 'first')).text, /0\.313.*0\.337.*0\.350|-0\.099, 0\.161, -0\.165/s);
}

test('two widgets in a hostile blog post: real size, the article\'s numbers, their own languages', async () => {
  const page = await openBlog(env);
  await bothDrawn(page);
  await checkBothWidgets(page);
  await page.locator('#first').scrollIntoViewIfNeeded();
  await screenshot(page, 'widget-blog');
  await settle(page);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the same page under a strict CSP (no unsafe-eval, no unsafe-inline) works the same', async () => {
  const page = await openBlog(env, { csp: STRICT_CSP });
  const violations = [];
  page.on('console', (msg) => { if (/Content.Security.Policy|Refused/i.test(msg.text())) violations.push(msg.text()); });
  await bothDrawn(page);
  await checkBothWidgets(page);
  // the policy really was in force (the fixture has no inline script or style of its own)
  assert.equal(page.response.headers()['content-security-policy'], STRICT_CSP);
  await screenshot(page, 'widget-blog-csp');
  await settle(page);
  assert.deepEqual(violations, []);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a training widget under the strict CSP trains with no violation', async () => {
  const page = await openBlog(env, { csp: STRICT_CSP,
    transform: (html) => html.replace('<qkv-lab id="first" lang="zh" seed="42">', '<qkv-lab id="first" section="training" lang="zh">') });
  await waitForWidget(page, 'first');
  await page.waitForSelector('#first [data-role="play"]:not([disabled])');
  await page.locator('#first [data-role="step"]').click();
  await page.locator('#first [data-role="play"]').click();
  await page.waitForFunction(() => /[1-9]\d* \/ \d+/.test(document.getElementById('first').shadowRoot.querySelector('.qkv-section').innerText), null, { timeout: 60000 });
  // the charts' HTML legends and hover readout, styled by the widget's (minified) stylesheets
  assert.deepEqual(await page.locator('#first .tr-legend li').allTextContents(), ['每步损失', '滑动平均', 'cos(猫, 狗)', 'cos(猫, 汽车)']);
  const scatter = page.locator('#first canvas[data-chart="scatter"]');
  await scatter.scrollIntoViewIfNeeded();
  const box = await scatter.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const readout = page.locator('#first .tr-card:has(canvas[data-chart="scatter"]) [data-role="readout"]');
  await readout.waitFor({ state: 'visible', timeout: 60000 });
  // one line a word: the nearest, and any whose dot touches it (the scatter names both)
  const lines = await readout.evaluate((el) => [...el.children].map((row) => row.textContent));
  assert.ok(lines.length >= 1);
  for (const line of lines) assert.match(line, /^\S+ \(-?\d+\.\d{3}, -?\d+\.\d{3}\)$/);
  const r = await readout.evaluate((el) => {
    const a = el.getBoundingClientRect(), c = el.parentNode.getBoundingClientRect();
    return { position: getComputedStyle(el).position, inside: a.left >= c.left - 1 && a.right <= c.right + 1 && a.top >= c.top - 1 && a.bottom <= c.bottom + 1 };
  });
  assert.deepEqual(r, { position: 'absolute', inside: true });
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('interacting with one widget does not change the other', async () => {
  const page = await openBlog(env);
  await bothDrawn(page);
  await widgetGoToLast(page, 'second');   // A filled in (softmax opens at its first step)
  const before = await widget(page, 'second');
  const rowBefore = await widgetRow(page, 'second', 'A', 0);
  assert.deepEqual(rowBefore, ARTICLE.A0);
  await page.locator('#first .step-forward').click();
  await page.locator('#first .step-forward').click();
  assert.equal((await widget(page, 'first')).stage, 'scores');
  // a new seed and a new language for the first one only
  await page.evaluate(() => { const el = document.getElementById('first'); el.seed = 7; el.setAttribute('lang', 'en'); });
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('.qkv').getAttribute('lang') === 'en');
  const first = await widget(page, 'first');
  assert.match(first.title, /Self-attention/);
  assert.notDeepEqual(await widgetRow(page, 'first', 'scores', 0), ARTICLE.S0, 'seed 7 gives other scores');
  assert.equal(first.stage, 'scores', 'the stepper kept its place through the new numbers');
  const after = await widget(page, 'second');
  assert.equal(after.position, before.position);
  assert.equal(after.text, before.text);
  assert.deepEqual(await widgetRow(page, 'second', 'A', 0), rowBefore);
  // and the other way round: the second one's switch leaves the first alone
  const firstRow = await widgetRow(page, 'first', 'scores', 0);
  await page.locator('#second input[type="checkbox"]').first().check();
  await page.waitForFunction(() => document.getElementById('second').shadowRoot
    .querySelector('[data-matrix="A"] tbody td.cell').textContent !== '0.313');
  assert.deepEqual(await widgetRow(page, 'first', 'scores', 0), firstRow);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('attributes and properties mirror each other; invalid values fall back with a notice', async () => {
  const page = await openBlog(env);
  await waitForWidget(page, 'first');
  const mirrored = await page.evaluate(() => {
    const el = document.getElementById('first');
    const out = { initial: { section: el.section, seed: el.seed, sentence: el.sentence, scale: el.scale, pos: el.pos, theme: el.theme, autoplay: el.autoplay, language: el.language } };
    el.seed = 12;
    el.scale = true;
    el.sentence = '我 爱 猫';
    out.attributes = { seed: el.getAttribute('seed'), scale: el.getAttribute('scale'), sentence: el.getAttribute('sentence') };
    el.scale = false;
    out.scaleRemoved = !el.hasAttribute('scale');
    el.setAttribute('scale', 'false');
    out.scaleFalse = el.scale;
    el.setAttribute('pos', '');
    out.posOn = el.pos;
    return out;
  });
  assert.deepEqual(mirrored.initial, { section: 'walkthrough', seed: 42, sentence: '我 love 猫', scale: false, pos: false, theme: 'auto', autoplay: false, language: 'zh' });
  assert.deepEqual(mirrored.attributes, { seed: '12', scale: '', sentence: '我 爱 猫' });
  assert.equal(mirrored.scaleRemoved, true);
  assert.equal(mirrored.scaleFalse, false);
  assert.equal(mirrored.posOn, true);
  await page.waitForFunction(() => /我 爱 猫/.test(document.getElementById('first').shadowRoot.querySelector('.section-intro').textContent));

  // a new widget full of mistakes: each falls back to its default, and says so
  await page.evaluate(() => {
    const el = document.createElement('qkv-lab');
    el.id = 'bad';
    for (const [k, v] of Object.entries({ section: 'nope', lang: 'klingon', seed: '-3', sentence: '<img src=x onerror=alert(1)> 猫', scale: 'maybe', theme: 'neon', autoplay: 'sometimes' })) el.setAttribute(k, v);
    document.querySelector('article').prepend(el);
  });
  await waitForWidget(page, 'bad');
  const bad = await widget(page, 'bad');
  assert.equal(bad.section, 'walkthrough');
  assert.equal(bad.lang, 'en', 'the page is lang="en"');
  for (const name of ['section', 'lang', 'seed', 'sentence', 'scale', 'theme', 'autoplay']) {
    assert.match(bad.notice, new RegExp(`${name}="`), `no notice for ${name}`);
  }
  assert.match(bad.notice, /seed="-3" is not valid; using the default, 42/);
  assert.deepEqual(await widgetRow(page, 'bad', 'X', 2), ARTICLE.X2, 'the defaults give the article\'s X');
  assert.equal(await page.evaluate(() => document.getElementById('bad').shadowRoot.querySelectorAll('img').length), 0);
  // fixing the attribute clears its notice
  await page.evaluate(() => document.getElementById('bad').setAttribute('seed', '42'));
  await page.waitForFunction(() => !/seed="/.test(document.getElementById('bad').shadowRoot.querySelector('.widget-notice').textContent));
  // section switch through the property
  await page.evaluate(() => { document.getElementById('bad').section = 'scores'; });
  await page.waitForFunction(() => document.getElementById('bad').shadowRoot.querySelector('.qkv-section')?.dataset.section === 'scores');
  assert.equal(await page.getAttribute('#bad', 'section'), 'scores');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('events: qkv-ready and qkv-step bubble out of the widget (composed) to the host page', async () => {
  const page = await openBlog(env);
  await page.evaluate(() => {
    window.__events = [];
    for (const type of ['qkv-ready', 'qkv-step', 'qkv-train']) {
      document.addEventListener(type, (e) => window.__events.push({ type, target: e.target.id, bubbles: e.bubbles, composed: e.composed, detail: e.detail }));
    }
  });
  await waitForWidget(page, 'first');
  await page.locator('#first .step-forward').click();
  await page.locator('#first').focus();
  await page.locator('#first .stage').focus();
  await page.keyboard.press('ArrowRight');
  await page.evaluate(() => document.getElementById('first').next());
  await page.waitForFunction(() => window.__events.filter((e) => e.type === 'qkv-step').length >= 3);
  const events = await page.evaluate(() => window.__events.filter((e) => e.target === 'first'));
  const steps = events.filter((e) => e.type === 'qkv-step');
  assert.deepEqual(steps.map((e) => [e.detail.step, e.detail.stage]), [[1, 'QKV'], [2, 'scores'], [3, 'weights']]);
  // new numbers (another seed) redraw the widget but move no step: the next event is next()'s
  await page.evaluate(() => { document.getElementById('first').seed = 7; });
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('[data-matrix="weights"] td.cell').textContent !== '0.313');
  await page.evaluate(() => document.getElementById('first').next());
  await page.waitForFunction(() => window.__events.filter((e) => e.type === 'qkv-step').length >= 4);
  const after = (await page.evaluate(() => window.__events)).filter((e) => e.type === 'qkv-step' && e.target === 'first');
  assert.deepEqual(after.slice(3).map((e) => [e.detail.step, e.detail.stage]), [[4, 'output']]);
  for (const e of steps) {
    assert.equal(e.bubbles, true);
    assert.equal(e.composed, true);
    assert.equal(e.detail.section, 'walkthrough');
    assert.equal(e.detail.count, 5);
  }
  // the ready event came before the steps (it may have fired before the listener: the page
  // script ran first, so only check it when seen)
  assert.ok(events.every((e) => e.type !== 'qkv-train'));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a widget starts only when scrolled near, and stops animating out of view', async () => {
  const page = await openBlog(env, { height: 700 });
  await waitForWidget(page, 'first');
  // the second widget is far below the fold: nothing built yet
  assert.equal(await page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('.qkv-section')), null);
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
  // play the first one, scroll it away: it pauses; scroll back: it plays on
  await page.locator('#first').scrollIntoViewIfNeeded();
  await page.evaluate(() => document.getElementById('first').play());
  assert.equal(await page.evaluate(() => document.getElementById('first').playing), true);
  await page.locator('#second').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('first').playing === false);
  // out of view it is paused; the steps it takes after coming back start where it stopped,
  // so none was taken while it was away (checked on the events, not by waiting on the clock)
  const stage = (await widget(page, 'first')).stage;
  const stopped = await page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('.step-position').textContent);
  await page.evaluate(() => {
    window.__firstSteps = [];
    document.getElementById('first').addEventListener('qkv-step', (e) => window.__firstSteps.push(e.detail.step));
  });
  assert.equal((await widget(page, 'first')).stage, stage, 'no steps while out of view');
  await page.locator('#first').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__firstSteps.length > 0 || document.getElementById('first').shadowRoot.querySelector('.qkv-section').dataset.stage === 'output');
  const steps = await page.evaluate(() => window.__firstSteps);
  const at = Number(/(\d+)/.exec(stopped)[1]) - 1;  // "step i of n" is 1-based; events are 0-based
  if (steps.length) assert.equal(steps[0], at + 1, `resumed from step ${at}, not later: ${steps}`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the script in <head>, before the elements exist, works the same', async () => {
  const page = await openBlog(env, { transform: (html) => html
    .replace('<script src="/dist/qkv-lab-widget.js"></script>\n</body>', '</body>')
    .replace('</head>', '<script src="/dist/qkv-lab-widget.js"></script>\n</head>') });
  assert.match(await page.content(), /<head>[\s\S]*qkv-lab-widget\.js[\s\S]*<\/head>/);
  await bothDrawn(page);
  await widgetGoToLast(page, 'second');
  assert.deepEqual(await widgetRow(page, 'second', 'A', 0), ARTICLE.A0);
  assert.equal((await widget(page, 'first')).lang, 'zh-CN');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('autoplay plays once the widget is in view', async () => {
  const page = await openBlog(env, { transform: (html) => html.replace('<qkv-lab id="first"', '<qkv-lab id="first" autoplay') });
  await waitForWidget(page, 'first');
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('.qkv-section').dataset.stage !== 'X');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

// The classic script carries the SIMD128 kernels only (tools/build-page.mjs, noRelaxed), so a
// post's numbers are the API's defaults in Node bit for bit, also in a Chromium with relaxed SIMD.
test('the classic widget runs the SIMD128 kernels, not relaxed SIMD', async () => {
  const page = await openBlog(env);
  await waitForWidget(page, 'first');
  assert.equal(await page.evaluate(async () => (await window.QkvLab.load()).kernels), 'simd128');
  await page.closeAll();
});

test('a removed widget frees its WebAssembly memory; the other keeps working', async () => {
  const page = await openBlog(env);
  await bothDrawn(page);
  const baseline = await page.evaluate(async () => (await window.QkvLab.load()).heapUsed());
  // a training widget owns a model on the WASM heap
  await page.evaluate(() => {
    const el = document.createElement('qkv-lab');
    el.id = 'trainer';
    el.setAttribute('section', 'training');
    el.setAttribute('lang', 'en');
    document.querySelector('article').append(el);
  });
  await page.locator('#trainer').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'trainer');
  await page.waitForFunction(async () => (await window.QkvLab.load()).heapUsed() > 0 &&
    document.getElementById('trainer').shadowRoot.querySelector('[data-role="play"]:not([disabled])'), null, { timeout: 60000 });
  await page.evaluate(() => {
    window.__trainEvents = [];
    document.getElementById('trainer').addEventListener('qkv-train', (e) => window.__trainEvents.push(e.detail));
  });
  await page.locator('#trainer [data-role="step"]').click();
  await page.locator('#trainer [data-role="step"]').click();
  const withModel = await page.evaluate(async () => (await window.QkvLab.load()).heapUsed());
  assert.ok(withModel > baseline, `the training widget allocated nothing? ${withModel} vs ${baseline}`);
  await page.waitForFunction(() => window.__trainEvents.length >= 2 && window.__trainEvents.at(-1).step === 2);
  const events = await page.evaluate(() => window.__trainEvents);
  assert.ok(events.length >= 2, `qkv-train events: ${JSON.stringify(events)}`);
  assert.equal(events.at(-1).step, 2);
  assert.ok(Number.isFinite(events.at(-1).loss));
  await page.evaluate(() => document.getElementById('trainer').remove());
  const afterRemove = await page.evaluate(async () => (await window.QkvLab.load()).heapUsed());
  assert.equal(afterRemove, baseline, 'heap back to where it was');
  // removing a walkthrough widget is clean too, and the remaining one still computes
  await page.evaluate(() => document.getElementById('first').remove());
  assert.equal(await page.evaluate(async () => (await window.QkvLab.load()).heapUsed()), baseline);
  await widgetGoToLast(page, 'second');   // A filled in (softmax opens at its first step)
  assert.deepEqual(await widgetRow(page, 'second', 'A', 0), ARTICLE.A0);
  await page.evaluate(() => { document.getElementById('second').shadowRoot.querySelector('input[type="checkbox"]').click(); });
  const scaled = await widgetRow(page, 'second', 'A', 0);
  assert.doesNotMatch(scaled.join(' '), /·/);
  assert.notDeepEqual(scaled, ARTICLE.A0, 'the √d_k switch still recomputes');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('at most one new global (QkvLab), and the element is defined once', async () => {
  const without = await openBlog(env, { transform: (html) => html.replace(/<script src="\/dist\/qkv-lab-widget\.js"><\/script>/, '') });
  const keysBefore = await without.evaluate(() => Object.keys(window));
  await without.closeAll();
  const page = await openBlog(env);
  await waitForWidget(page, 'first');
  const keysAfter = await page.evaluate(() => Object.keys(window));
  const added = keysAfter.filter((k) => !keysBefore.includes(k));
  assert.deepEqual(added, ['QkvLab']);
  const info = await page.evaluate(() => ({ version: window.QkvLab.version, sections: [...window.QkvLab.sections], defined: customElements.get('qkv-lab') === window.QkvLab.Element }));
  assert.match(info.version, /^\d+\.\d+\.\d+/);
  assert.equal(info.defined, true);
  assert.equal(info.sections[0], 'walkthrough');
  // a second copy of the script (two plugins on one blog) defines nothing and throws nothing
  await page.evaluate(() => new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = '/dist/qkv-lab-widget.js';
    s.onload = resolve; s.onerror = reject;
    document.body.append(s);
  }));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('in an ordinary blog theme, on a phone (375 px), both widgets fit the screen', async () => {
  const page = await openBlog(env, { name: 'plain-post.html', width: 375, height: 740 });
  await bothDrawn(page);
  for (const id of ['first', 'second']) {
    const w = await widget(page, id);
    assert.ok(w.width > 300, `${id}: width ${w.width}`);
    assert.ok(w.left >= 0 && w.right <= 375, `${id}: ${w.left}…${w.right} leaves the screen`);
    assert.ok(!w.overflowing, `${id}: content wider than the widget`);
  }
  await page.locator('#first').scrollIntoViewIfNeeded();
  for (let k = 0; k < 4; k++) await page.locator('#first .step-forward').click();
  assert.ok(!(await widget(page, 'first')).overflowing);
  await screenshot(page, 'widget-phone');
  await page.closeAll();
});

test('in an ordinary blog theme at desktop width: the README screenshot', async () => {
  const page = await openBlog(env, { name: 'plain-post.html', width: 1000, height: 1000 });
  await bothDrawn(page);
  await page.locator('#first').scrollIntoViewIfNeeded();
  for (let k = 0; k < 3; k++) await page.locator('#first .step-forward').click();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${ARTIFACTS}/widget-in-a-post.png`, clip: { x: 0, y: 0, width: 1000, height: 1000 } });
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('boolean properties mean what the attribute means: el.scale = "false" is off, not truthy', async () => {
  const page = await openBlog(env);
  await waitForWidget(page, 'first');
  const seen = await page.evaluate(() => {
    const el = document.getElementById('first');
    const out = {};
    for (const value of ['false', '0', 'true', '1', '', 'scale', true, false, 0, 1, null, undefined, 'maybe']) {
      el.scale = value;
      out[typeof value === 'string' ? JSON.stringify(value) : String(value)] = { attribute: el.getAttribute('scale'), scale: el.scale };
    }
    el.pos = 'false';
    out.pos = el.pos;
    el.autoplay = 'false';
    out.autoplay = el.autoplay;
    el.autoplay = '0';
    out.autoplay0 = el.autoplay;
    return out;
  });
  assert.deepEqual(seen, {
    '"false"': { attribute: 'false', scale: false },
    '"0"': { attribute: '0', scale: false },
    '"true"': { attribute: 'true', scale: true },
    '"1"': { attribute: '1', scale: true },
    '""': { attribute: '', scale: true },
    '"scale"': { attribute: 'scale', scale: true },
    true: { attribute: '', scale: true },
    false: { attribute: null, scale: false },
    0: { attribute: '0', scale: false },
    1: { attribute: '1', scale: true },
    null: { attribute: null, scale: false },
    undefined: { attribute: null, scale: false },
    '"maybe"': { attribute: 'maybe', scale: false },  // invalid: the default, with a notice
    pos: false,
    autoplay: false,
    autoplay0: false,
  });
  await page.waitForFunction(() => /scale="maybe"/.test(document.getElementById('first').shadowRoot.querySelector('.widget-notice').textContent));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
