// page-helpers.js: what the page-*.test.js files share: open the page (served or file://) and
// read the numbers a reader sees.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, settle } from './harness.js';
import { PROPERTIES } from '../../web/page/shell/state.js';
import { SCALING_DKS } from '../../web/page/models/scaling.js';
import { TEMPERATURES } from '../../web/page/models/snapshot-derived.js';

// opening the page, and q({ seed: 7 }) → '?seed=7' (tools/browser.mjs: the benchmark's too)
export { openPage, q } from '../../tools/browser.mjs';
import { openPage } from '../../tools/browser.mjs';

/**
 * An init script (openPage's `init`) that lets a test choose the order of a run's messages: the
 * messages of the page's workers whose type is in window.__holdTypes (a Set, empty at first) are
 * held in window.__held, each { data, deliver }, until window.__release() delivers them in order;
 * window.__seen counts the messages of each type the page has been given.
 */
export function holdWorkerMessages() {
  const Real = window.Worker;
  Object.assign(window, { __holdTypes: new Set(), __held: [], __seen: {} });
  window.__release = () => { for (const { deliver } of window.__held.splice(0)) deliver(); };
  window.Worker = class extends Real {
    set onmessage(fn) {
      super.onmessage = (event) => {
        const type = event.data?.type;
        const deliver = () => { window.__seen[type] = (window.__seen[type] || 0) + 1; fn(event); };
        if (window.__holdTypes.has(type)) window.__held.push({ data: event.data, deliver });
        else deliver();
      };
    }
    get onmessage() { return super.onmessage; }
  };
}

/** The exercise of section `id`, and its feedback line (?quiz=1, or the page's switch). */
export const quizOf = (id) => `#${id} [data-role=quiz]`;
export const feedback = (id) => `${quizOf(id)} [data-role=quiz-feedback]`;

/**
 * Waits until section `id` sits just below the bar (or, for a section too near the end to reach
 * the top, the page is scrolled to its end with the section below the bar), and has stopped there:
 * a jump (the contents, a link, a data-flow stage) has landed, and nothing it scrolls moves any more.
 */
export async function landedOn(page, id) {
  await page.evaluate(() => { window.__stillFrames = 0; window.__lastTop = NaN; });
  return page.waitForFunction((id) => {
    const top = document.getElementById(id).getBoundingClientRect().top;
    const bar = document.querySelector('.page-bar').getBoundingClientRect().bottom;
    // still: neither the scroll nor the section (the page growing or shrinking above it) has
    // moved for three frames in a row
    const same = window.__lastY === scrollY && window.__lastTop === top;
    window.__stillFrames = same ? (window.__stillFrames || 0) + 1 : 0;
    window.__lastY = scrollY;
    window.__lastTop = top;
    const still = window.__stillFrames >= 3;
    const atEnd = scrollY + innerHeight >= document.documentElement.scrollHeight - 1;
    return still && top >= bar - 1 && (top <= bar + 40 || (atEnd && top < innerHeight / 2));
  }, id, { polling: 'raf', timeout: 20000 });
}

/**
 * Steps forward with the ▶| button until the section's question shows (or the last step): the
 * section scrolled into view, then each click inside the page and a frame after it before the
 * question is looked for again (three round trips a step from the test cost about 180 ms).
 */
export async function forwardToQuestion(page, id) {
  await page.locator(`#${id} .step-forward`).scrollIntoViewIfNeeded();
  await page.evaluate(async ([id, quiz]) => {
    const shown = () => { const q = document.querySelector(quiz); return Boolean(q && !q.hidden && q.getClientRects().length); };
    const forward = document.querySelector(`#${id} .step-forward`);
    for (let k = 0; k < 60 && !shown() && !forward.disabled; k++) {
      forward.click();
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    }
  }, [id, quizOf(id)]);
  assert.ok(await page.isVisible(quizOf(id)), `${id}: no question shown`);
}

/** The texts of row i of the matrix `name` inside section `section`. */
export function row(page, section, name, i) {
  return page.$$eval(`#${section} [data-matrix="${name}"] tbody tr:nth-child(${i + 1}) td.cell`, (tds) => tds.map((td) => td.textContent));
}

export function position(page, section) {
  return page.textContent(`#${section} .step-position`);
}

export const ARTICLE = {
  Q0: ['0.149', '-0.041', '0.194'],
  S0: ['-0.066', '0.006', '0.044'],
  A0: ['0.313', '0.337', '0.350'],
  O0: ['-0.099', '0.161', '-0.165'],
};


/**
 * Clicks section `id`'s stepper buttons inside the page, the section scrolled into view first (as
 * a reader's click would bring it): |◀ first when `first`, then ▶| `times` times or until it is
 * disabled. A click per round trip from the test cost about 60 ms each (57 clicks to put eight
 * sections on their last step: 4.1 s, against 0.8 s here); a reader's own clicks on these buttons,
 * pointer and keyboard, are page-interaction's and page-navigation's.
 */
async function clickStepper(page, id, { first = false, times = 1e4 } = {}) {
  await page.locator(`#${id} .step-forward`).scrollIntoViewIfNeeded();
  await page.evaluate(([id, first, times]) => {
    const button = (name) => document.querySelector(`#${id} .${name}`);
    if (first && !button('step-first').disabled) button('step-first').click();
    const forward = button('step-forward');
    for (let k = 0; k < times && !forward.disabled; k++) forward.click();
  }, [id, first, times]);
}

/** Section `id`'s stepper on its last step, with its own button (▶| is the reader's way). */
export function goToLast(page, id) {
  return clickStepper(page, id);
}

/** Puts section `id`'s stepper on step `index` (0-based) with its buttons, as a reader would. */
export function goToStep(page, id, index) {
  return clickStepper(page, id, { first: true, times: index });
}

/**
 * Opens the page at `query` (plus lang) for each [name, query, selector, prepare] shot, brings the
 * element into view, lets prepare(page) act on it, and checks what a reader would see
 * (checkShot). One fresh load a shot: for a shot that needs one (a query no control sets, such
 * as iframe mode). Shots whose settings the page's own controls reach share one load:
 * screenshotShotsInOneLoad.
 */
export async function screenshotShots(env, shots, { prefix, lang, width }) {
  for (const [name, query, selector, prepare] of shots) {
    const join = query ? `${query}&lang=${lang}` : `?lang=${lang}`;
    const page = await openPage(env, { query: join, width, height: 800 });
    await checkShot(page, [name, selector, prepare], { prefix, lang, width });
    await page.closeAll();
  }
}

/**
 * The reader's controls for URL settings a shot may need, each set as a reader sets it (the
 * slider's input event, a radio, a select). The page writes the setting to its URL (checked).
 */
const SETTING_CONTROLS = {
  seed: (page, value) => setValue(page, '#projections .seed-input', value, 'change'),
  dk: (page, value) => page.selectOption('#projections .dk-choice', String(value)),
  kq: (page, value) => page.setChecked('#scores .kq-switch', value),
  scale: (page, value) => page.setChecked('#softmax .scale-switch', value),
  temp: (page, value) => setValue(page, '#softmax .temp-slider', TEMPERATURES.indexOf(value), 'input'),
  pull: (page, value) => setValue(page, '#learnable .pull-slider', value, 'input'),
  qk: (page, value) => page.setChecked('#symmetry .qk-switch', value),
  sdk: (page, value) => page.locator('#scaling .sdk-slider').evaluate((slider, index) => {
    slider.value = String(index);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
  }, SCALING_DKS.indexOf(value)),
  heads: (page, value) => page.check(`#multihead .heads-picker input[value="${value}"]`),
  ped: (page, value) => page.selectOption('#positions .ped-select', String(value)),
  sentence: (page, value) => page.selectOption('#embedding .sentence-select', value),
  quiz: (page, value) => page.setChecked('[data-role=quiz-switch]', value),
};
/** Sets an input's value and sends the event its section listens to, as the reader's edit does. */
function setValue(page, selector, value, event) {
  return page.locator(selector).evaluate((input, [v, type]) => {
    input.value = v;
    input.dispatchEvent(new Event(type, { bubbles: true }));
  }, [String(value), event]);
}
const DEFAULT_OF = Object.fromEntries(PROPERTIES.map((p) => [p.name, p.default]));

/**
 * One load of the page (lang, width, and `query`'s settings, such as quiz=1) for every [name,
 * settings, selector, prepare, prefix] shot (prefix: the picture's, if not the call's): before each, the settings it names are set with the page's
 * controls and every other one that an earlier shot changed is put back to its default, so each
 * shot sees the state a fresh load of its query gives; then checkShot. onLoad(page) runs first,
 * on the page as it opened. Returns the page (for further checks on the same load); close it.
 */
export async function screenshotShotsInOneLoad(env, shots, { prefix, lang, width, colorScheme = 'light', query = '', onLoad = async () => {} }) {
  const page = await openPage(env, { query: `?lang=${lang}${query ? `&${query}` : ''}`, width, height: 800, colorScheme });
  await onLoad(page);
  const current = {};
  for (const [name, settings, selector, prepare, shotPrefix = prefix] of shots) {
    const wanted = { ...Object.fromEntries(Object.keys(current).map((k) => [k, DEFAULT_OF[k]])), ...settings };
    for (const [key, value] of Object.entries(wanted)) {
      if ((current[key] ?? DEFAULT_OF[key]) === value) continue;
      assert.ok(SETTING_CONTROLS[key], `${name}: no control sets ${key} in place (give the shot a load of its own)`);
      await SETTING_CONTROLS[key](page, value);
      // the page's URL says the new value (a default may also be left out of it)
      await page.waitForFunction(([k, v, isDefault]) => {
        const said = new URLSearchParams(location.search).get(k);
        return said === v || (isDefault && said === null);
      }, [key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value), value === DEFAULT_OF[key]]);
      current[key] = value;
    }
    await settle(page);
    await checkShot(page, [name, selector, prepare], { prefix: shotPrefix, lang, width });
  }
  return page;
}

/**
 * Brings the element into view, lets prepare(page) act on it, and checks what a reader would see:
 * something drawn, nothing sticking out sideways (wide tables scroll in their own box), no canvas
 * of one colour, no console problems. Saves tests/artifacts/<prefix>-<lang>-<width>-<name>.png.
 */
async function checkShot(page, [name, selector, prepare], { prefix, lang, width }) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const target = page.locator(selector).first();
  // in view first, then used: a hover must not be undone by the scroll that follows it
  await target.scrollIntoViewIfNeeded();
  await prepare(page);
  await settle(page);
  const box = await target.boundingBox();
  assert.ok(box && box.width > 50 && box.height > 30, `${name}: nothing drawn`);
  const overflow = await target.evaluate((el) => [...el.querySelectorAll('*')].filter((c) => {
    if (c.closest('.matrix-scroll, .whole-scroll, .heat-table-scroll')) return false;
    const r = c.getBoundingClientRect();
    return r.width > 0 && r.right > document.documentElement.clientWidth + 1;
  }).map((c) => c.className.baseVal ?? c.className ?? c.tagName).slice(0, 3));
  assert.deepEqual(overflow, [], `${name}: sticks out sideways`);
  // every canvas shown holds a picture: more than one colour
  const flat = await target.evaluate((el) => [...el.querySelectorAll('canvas')].filter((c) => {
    if (c.getBoundingClientRect().width === 0) return false;   // not shown (another section, in iframe mode)
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let k = 0; k < data.length; k += 4) colours.add(`${data[k]},${data[k + 1]},${data[k + 2]}`);
    return colours.size < 3;
  }).length);
  assert.equal(flat, 0, `${name}: a canvas of one colour`);
  // the bar that stays at the top of the window would lie across a picture of one element
  await target.screenshot({ path: path.join(ARTIFACTS, `${prefix}-${lang}-${width}-${name}.png`), style: '.page-bar { visibility: hidden; }' });
  assert.deepEqual(page.problems(), [], name);
}
