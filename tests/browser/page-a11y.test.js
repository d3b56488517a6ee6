// An accessibility audit with axe-core (node_modules/axe-core, injected from disk: no network).
// The served page in four configurations of language (en, zh), colour scheme (light, dark) and
// width (desktop 1280, phone 375): en light desktop, en dark phone, zh light phone and zh dark
// desktop, which hold every pair of the three (each language in each scheme and at each width,
// each scheme at each width: an orthogonal array), one load of the page each.
// Audited at four moments, in every configuration: as it opens; after every section has stepped
// forward twice (the GPT sections first drawn: the writer's first sample, generation's table) and
// the training section has trained, paused and taken one more step (its charts, heat map, batch
// and probes drawn; the step's heat-map flash frozen at its brightest), where the page must not
// scroll sideways either; with every
// section at its last step (the filled tables and their highlights); and with every section back
// at its first step. Every rule runs in two of the four configurations, en light desktop and zh
// light phone, which between them have both languages and both widths (the scheme changes only
// colours); the other two run the rules whose answer depends on the colours and the layout
// (LAYOUT_RULES), as the rest read the same DOM. Then <qkv-lab> widgets in blog posts, whose
// shadow roots axe audits too. Every violation, whatever its impact, is printed with its targets;
// serious and critical ones fail the test. No rule is disabled; a false positive would be
// excluded node by node in EXCLUDE below, with the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, ROOT, frames } from './harness.js';
import { openPage } from './page-helpers.js';
import { openBlog, waitForWidget, widgetGoToLast } from './widget-helpers.js';

const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
const BLOCKING = new Set(['serious', 'critical']);
// Nodes axe must not audit, each with its reason: [selector (an axe context entry), why]. Empty:
// everything axe reported was real and was fixed.
const EXCLUDE = [];

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/**
 * Runs axe on `include` (default: the whole document) but not on the selectors `skip` (nor
 * EXCLUDE's) and returns its violations, each { id, impact, help, nodes: [{ target, summary }] }
 * (a target inside a shadow root reads 'host >>> inner').
 */
async function audit(page, include = null, rules = null, skip = []) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async ([include, exclude, rules]) => {
    const context = include || exclude.length ? { include: include || [document], exclude } : document;
    const only = rules ? { runOnly: { type: 'rule', values: rules } } : {};
    const result = await window.axe.run(context, { resultTypes: ['violations'], ...only });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : t)).join(' '),
        summary: (n.failureSummary || '').replace(/\s+/g, ' ').trim(),
      })),
    }));
  }, [include, [...EXCLUDE.map(([selector]) => selector), ...skip], rules]);
}

/** Prints every violation with its targets; returns the lines of the blocking ones. */
function report(label, violations) {
  const blocking = [];
  for (const v of violations) {
    console.log(`${label}: ${v.id} (${v.impact}, ${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'}): ${v.help}`);
    for (const n of v.nodes) console.log(`    ${n.target}\n      ${n.summary}`);
    if (BLOCKING.has(v.impact)) blocking.push(`${label}: ${v.id} ×${v.nodes.length} (${v.nodes[0].target})`);
  }
  if (!violations.length) console.log(`${label}: no violations`);
  return blocking;
}

/**
 * Brings CSS transitions and Web Animations to their end, so colours are read as they settle
 * (the document's, and the widgets' shadow roots', which document.getAnimations() does not
 * list): each running one is finished (its end state at once, as if it had run: waiting them
 * out cost about 140 ms an audit), and any that cannot be (no end) is waited for as before. An
 * animation the test paused (the heat map's flash, held at its brightest) stays as it is.
 */
function settle(page) {
  return page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('qkv-lab')].map((el) => el.shadowRoot).filter(Boolean)];
    const running = roots.flatMap((root) => root.getAnimations()).filter((a) => a.playState !== 'paused');
    for (const a of running) {
      if (Number.isFinite(a.effect?.getComputedTiming().endTime)) a.finish();
    }
    return Promise.all(running.map((a) => a.finished.catch(() => {})));
  });
}

/** The page in configuration `config` ({ colorScheme, width, height }), changed in place, settled. */
async function showAs(page, { colorScheme, width, height }) {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height });
  await frames(page, 2);   // resize observers and media listeners have run
  await settle(page);
}

/**
 * Clicks every section's `button` ('step-forward' or 'step-first'; the training section has its
 * own controls) up to `times` times while it is enabled, from inside the page: each section
 * scrolled into view first and given two frames, so that what draws once it is seen has drawn
 * (as a reader's click scrolls it into view). A click per round trip from the test cost most of a
 * minute a load; a reader's clicks on these buttons are page-navigation's.
 */
function stepAll(page, times, button = 'step-forward') {
  return page.evaluate(async ([times, button]) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    for (const b of document.querySelectorAll(`.qkv-section .${button}`)) {
      if (b.disabled) continue;
      b.scrollIntoView({ block: 'center', behavior: 'instant' });
      await frame();
      await frame();
      for (let t = 0; t < times && !b.disabled; t++) b.click();
    }
  }, [times, button]);
}

/**
 * What axe reads of each section, per section id: a hash of its markup and its controls' values,
 * with the document's own attributes (its language, theme). A section whose hash this
 * configuration has audited already reads the same to axe: same markup, same styles, the same
 * width and scheme. (Canvas pixels and animations are not in it; axe reads neither, and the
 * audits let animations end or hold them.)
 */
function sectionHashes(page) {
  return page.evaluate(() => {
    const hash = (text) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
      return (h >>> 0).toString(16) + ':' + text.length;
    };
    const attrs = (el) => [...el.attributes].map((a) => `${a.name}=${a.value}`).join(' ');
    const root = `${attrs(document.documentElement)}|${attrs(document.body)}`;
    return Object.fromEntries([...document.querySelectorAll('.qkv-section[id]')].map((section) => {
      const values = [...section.querySelectorAll('input, select, textarea')].map((c) => `${c.value}/${c.checked}`).join(',');
      return [section.id, hash(`${root}|${section.outerHTML}|${values}`)];
    }));
  });
}

/** The training section: trains a few steps (start, pause), then one step more with its flash held at its peak. */
async function trainAndPause(page) {
  const section = page.locator('section[data-section="training"]');
  await section.scrollIntoViewIfNeeded();
  await page.waitForSelector('section[data-section="training"]:not([data-state="loading"])', { timeout: 60000 });
  await section.locator('[data-role="play"]').click();
  await page.waitForFunction(() => Number(document.querySelector('section[data-section="training"]').dataset.step) >= 12, null, { timeout: 60000 });
  await section.locator('[data-role="play"]').click();
  await page.waitForSelector('section[data-section="training"][data-state="paused"]');
  await settle(page);
  await section.locator('[data-role="step"]').scrollIntoViewIfNeeded();
  assert.ok(await stepAndHoldFlash(page) > 0, 'the step flashed no heat-map row');
}

/**
 * Clicks the training section's Step (in the document, or in widget #host's shadow root), then
 * holds its heat-map flash (450 ms) at its brightest from inside the page, on the first frame
 * that has it: a round trip from the test could arrive after a busy machine let it end.
 * → the number of flashes held.
 */
function stepAndHoldFlash(page, host = null) {
  return page.evaluate((host) => new Promise((resolve) => {
    // document.getAnimations() does not list a shadow root's: each root lists its own
    const root = host ? document.getElementById(host).shadowRoot : document;
    root.querySelector('section[data-section="training"] [data-role="step"]').click();
    const hold = (framesLeft) => {
      const flashes = root.getAnimations().filter((a) => a.effect && a.effect.target && a.effect.target.classList.contains('heat-row'));
      for (const a of flashes) { a.pause(); a.currentTime = 0; }
      if (flashes.length || framesLeft === 0) resolve(flashes.length);
      else requestAnimationFrame(() => hold(framesLeft - 1));
    };
    hold(60);
  }), host);
}

/**
 * The rules whose answer depends on the language's text, the colour scheme or the width: text
 * contrast (colours, and what overlaps what), links told from the text around them (by colour or
 * by more than colour), and scrolling boxes reachable by keyboard (which boxes scroll depends on
 * the width). axe's other rules read the DOM's structure, names and roles, the same in every
 * scheme: they run in full in the two configurations of FULL below.
 */
const LAYOUT_RULES = ['color-contrast', 'link-in-text-block', 'scrollable-region-focusable'];
const FULL = new Set(['en light desktop', 'zh light phone']);

const SIZES = { desktop: [1280, 900], phone: [375, 800] };
/** Every pair of language, scheme and width, in four configurations (see the top of the file). */
const CONFIGS = [['en-US', 'light', 'desktop'], ['en-US', 'dark', 'phone'], ['zh-CN', 'light', 'phone'], ['zh-CN', 'dark', 'desktop']]
  .map(([locale, colorScheme, kind]) => {
    const name = `${locale.slice(0, 2)} ${colorScheme} ${kind}`;
    const [width, height] = SIZES[kind];
    return { locale, colorScheme, width, height, name, rules: FULL.has(name) ? null : LAYOUT_RULES };
  });
const which = (rules) => (rules ? 'colour and layout rules' : 'every rule');

for (const { name, rules, ...config } of CONFIGS) {
  test(`axe: the page, ${name} (${which(rules)}), has no serious or critical violation`, async () => {
    const page = await openPage(env, config);
    const blocking = [];
    // the hashes of the sections audited so far (sectionHashes)
    const seen = new Set();
    /**
     * Audits the page. A section audited in the same state already (back at its first step, say)
     * is left out; the rest of the page and every other section are audited.
     */
    async function auditNow(moment) {
      await frames(page, 2);   // what the last clicks scheduled has drawn
      await settle(page);
      const hashes = await sectionHashes(page);
      const done = Object.keys(hashes).filter((id) => seen.has(hashes[id]));
      const label = `${name}, ${moment}${done.length ? ` (as audited before: ${done.join(', ')})` : ''}`;
      blocking.push(...report(label, await audit(page, null, rules, done.map((id) => `#${id}`))));
      for (const id of Object.keys(hashes)) seen.add(hashes[id]);
    }
    await auditNow('opened');

    // the GPT sections drawn (they build once seen): the writer's first sample, generation's table
    // of next characters; then every section stepped
    for (const id of ['block', 'writer', 'generate']) await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await page.waitForSelector('#writer [data-role=samples] li', { timeout: 60000 });
    await page.waitForSelector('#generate [data-role=distribution] tbody tr', { timeout: 60000 });
    await stepAll(page, 2);
    await trainAndPause(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${name}: with every section drawn and stepped, the page scrolls sideways by ${overflow} px`);
    await auditNow('stepped and trained');

    await page.evaluate(() => Promise.all(document.getAnimations().map((a) => { a.finish(); return a.finished; })));
    await stepAll(page, 80);
    await auditNow('every section at its last step');

    // back to the start: the softmax section opens at its last step, so its pending cards show only now
    // (a section with one step so far, such as the writer before its run starts, has nowhere to go back to)
    await stepAll(page, 1, 'step-first');
    await auditNow('every section back at its first step');

    assert.deepEqual(page.problems(), []);
    await page.closeAll();
    assert.deepEqual(blocking, []);
  });
}

for (const [fixture, colorScheme, width] of [['plain-post.html', 'light', 1280], ['plain-post.html', 'dark', 375], ['blog-post.html', 'light', 1280]]) {
  test(`axe: the widgets in ${fixture} (${colorScheme}, ${width}px) have no serious or critical violation`, async () => {
    const page = await openBlog(env, { name: fixture, colorScheme, width, height: 900 });
    await waitForWidget(page, 'first');
    await page.locator('#second').scrollIntoViewIfNeeded();
    await waitForWidget(page, 'second');
    const widgets = [['#first'], ['#second']];
    const label = `${fixture} ${colorScheme} ${width}px`;
    const blocking = [];
    blocking.push(...report(`${label}, drawn`, await audit(page, widgets)));
    // the walkthrough's every stage (its inputs and results), the softmax section's last step
    const forward = page.locator('#first .step-forward');
    for (let t = 0; t < 10 && await forward.isEnabled(); t++) {
      await forward.click();
      await settle(page);
      blocking.push(...report(`${label}, walkthrough step ${t + 2}`, await audit(page, [['#first']])));
    }
    const second = page.locator('#second .step-forward');
    for (let t = 0; t < 40 && await second.isEnabled(); t++) await second.click();
    await settle(page);
    blocking.push(...report(`${label}, softmax at its last step`, await audit(page, [['#second']])));
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
    assert.deepEqual(blocking, []);
  });
}

test('axe: a training widget with theme="dark" in a light blog post has no serious or critical violation', async () => {
  const page = await openBlog(env, { name: 'plain-post.html',
    transform: (html) => html.replace('<qkv-lab id="first" lang="en">', '<qkv-lab id="first" section="training" theme="dark" lang="zh">') });
  await waitForWidget(page, 'first');
  const section = page.locator('#first section[data-section="training"]');
  await page.waitForSelector('#first section[data-section="training"]:not([data-state="loading"])', { timeout: 60000 });
  const label = 'plain-post.html, training widget, theme="dark"';
  const blocking = [];
  blocking.push(...report(`${label}, ready`, await audit(page, [['#first']])));
  await section.locator('[data-role="play"]').click();
  await page.waitForFunction(() => Number(document.getElementById('first').shadowRoot.querySelector('section[data-section="training"]').dataset.step) >= 12, null, { timeout: 60000 });
  await section.locator('[data-role="play"]').click();
  await settle(page);
  await section.locator('[data-role="step"]').scrollIntoViewIfNeeded();
  assert.ok(await stepAndHoldFlash(page, 'first') > 0, 'the step flashed no heat-map row');
  blocking.push(...report(`${label}, trained, a flash held at its brightest`, await audit(page, [['#first']])));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
  assert.deepEqual(blocking, []);
});

// The one-step walkthrough draws the shared run's numbers once it is on screen: audited at every
// one of its eight stages (look-up … loss again), trained a little so that every panel has
// content, in both languages and schemes, at desktop and phone widths. In iframe mode, where it is
// the only section: its place in the page is audited above, and axe's cost grows with the page.
for (const [locale, colorScheme, width] of [['en-US', 'light', 1280], ['zh-CN', 'dark', 375]]) {
  test(`axe: the training-step walkthrough at each stage (${locale.slice(0, 2)} ${colorScheme} ${width}px) has no serious or critical violation`, async () => {
    const page = await openPage(env, { locale, colorScheme, width, height: 900, query: '?embed=1&section=trainstep&step=40' });
    const section = page.locator('section[data-section="trainstep"]');
    await section.scrollIntoViewIfNeeded();
    await page.waitForSelector('section[data-section="trainstep"][data-state="ready"]', { timeout: 60000 });
    const label = `trainstep ${locale.slice(0, 2)} ${colorScheme} ${width}px`;
    const blocking = [];
    for (const stage of ['lookup', 'positions', 'attention', 'predict', 'loss', 'backward', 'update', 'after']) {
      await section.locator(`.ts-flow button[data-stage="${stage}"]`).click();
      await settle(page);
      blocking.push(...report(`${label}, ${stage}`, await audit(page, [['section[data-section="trainstep"]']])));
    }
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
    assert.deepEqual(blocking, []);
  });
}

/**
 * The explorable interactions, all at once: d_k 4, an edited cell (the notes), K·Qᵀ shown, the dot
 * product's tips moved by keys and a preset, the softmax temperature changed, the shared
 * projection on, every code box and its setup open, a data-flow stage previewed, and the contents
 * menu open in the bar.
 */
async function useEverything(page) {
  await page.selectOption('#projections .dk-choice', '4');
  await page.click('#projections [data-matrix="X"] td[data-i="0"][data-j="1"]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.5');
  await page.keyboard.press('Enter');
  await page.check('#scores .kq-switch');
  await page.focus('#scores .tip[data-vector="a"]');
  for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowUp']) await page.keyboard.press(key);
  await page.click('#scores .geo-preset[data-preset="opposite"]');
  await page.focus('#softmax .temp-slider');
  await page.keyboard.press('ArrowLeft');
  await page.check('#symmetry .qk-switch');
  await page.evaluate(() => { for (const d of document.querySelectorAll('.code-panel, .code-panel details')) d.open = true; });
  await page.hover('#flow .flow-stage[data-stage="P"]');
  await page.click('.toc-menu summary');
}

// every rule in en light desktop and zh dark desktop (both languages' names and labels on the
// controls opened here), LAYOUT_RULES in en dark phone and zh light phone: one load per language,
// everything used once, the scheme and width then changed in place
for (const locale of ['en-US', 'zh-CN']) {
  const configs = ['en light desktop', 'en dark phone', 'zh dark desktop', 'zh light phone']
    .map((name) => CONFIGS.find((c) => c.name === name)).filter((c) => c.locale === locale)
    .map((c) => ({ ...c, rules: ['en light desktop', 'zh dark desktop'].includes(c.name) ? null : LAYOUT_RULES }));
  test(`axe: the explorable interactions (${configs.map((c) => `${c.name}: ${which(c.rules)}`).join('; ')}) have no serious or critical violation`, async () => {
    const page = await openPage(env, { locale, ...configs[0] });
    await useEverything(page);
    await settle(page);
    const blocking = [];
    for (const { name, rules, ...options } of configs) {
      await showAs(page, options);
      blocking.push(...report(`${name}, everything used`, await audit(page, null, rules)));
    }
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
    assert.deepEqual(blocking, []);
  });
}

test('axe: iframe mode with a notice (an unknown section) has no serious or critical violation', async () => {
  const page = await openPage(env, { query: '?embed=1&section=bogus&lang=zh' });
  await page.waitForFunction(() => document.documentElement.dataset.embedSection);
  const blocking = report('iframe mode, unknown section', await audit(page));
  await page.closeAll();
  assert.deepEqual(blocking, []);
});

// The three chapters after symmetry at settings the full-page audits above do not
// reach (4 heads, d_k = 512, the widest sine table), every step audited, in both languages and at
// both widths, each in iframe mode (the section alone: its place in the page is audited above, and
// axe's cost grows with the page); then each as a <qkv-lab section="…"> widget, whose shadow root
// axe audits.
for (const [locale, colorScheme, width] of [['en-US', 'light', 1280], ['zh-CN', 'dark', 375]]) {
  test(`axe: √d_k, multi-head and positions at every step, other settings (${locale.slice(0, 2)} ${colorScheme} ${width}px)`, async () => {
    const blocking = [];
    for (const id of ['scaling', 'multihead', 'positions']) {
      const page = await openPage(env, { locale, colorScheme, width, height: 900, query: `?embed=1&section=${id}&heads=4&sdk=512&ped=128` });
      const section = page.locator(`#${id}`);
      await section.scrollIntoViewIfNeeded();
      // from its first step (where every section opens; |◀ is disabled there)
      if (await section.locator('.step-first').isEnabled()) await section.locator('.step-first').click();
      for (let t = 0; t < 12; t++) {
        await settle(page);
        blocking.push(...report(`${id} step ${t + 1}`, await audit(page, [[`#${id}`]])));
        if (!(await section.locator('.step-forward').isEnabled())) break;
        await section.locator('.step-forward').click();
      }
      assert.deepEqual(page.problems(), [], id);
      await page.closeAll();
    }
    assert.deepEqual(blocking, []);
  });
}

test('axe: the three chapters as widgets, each in en and zh, light and dark, at 1280 and 375 px, have no serious or critical violation', async () => {
  const blocking = [];
  for (const [section, lang, colorScheme, width] of [['scaling', 'en', 'light', 1280], ['multihead', 'zh', 'dark', 375],
    ['positions', 'en', 'dark', 375], ['scaling', 'zh', 'dark', 375], ['multihead', 'en', 'light', 1280], ['positions', 'zh', 'light', 1280]]) {
    const page = await openBlog(env, { name: 'plain-post.html', colorScheme, width, height: 900,
      transform: (html) => html.replace('<qkv-lab id="first" lang="en">', `<qkv-lab id="first" section="${section}" lang="${lang}">`) });
    await waitForWidget(page, 'first');
    // at its last step, where every part is filled in (it opens at its first)
    await widgetGoToLast(page, 'first');
    await settle(page);
    blocking.push(...report(`widget ${section} ${lang} ${colorScheme} ${width}px`, await audit(page, [['#first']])));
    assert.deepEqual(page.problems(), [], section);
    await page.closeAll();
  }
  assert.deepEqual(blocking, []);
});
