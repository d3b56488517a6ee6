// page-helpers.js: what the page-*.test.js files share: open the page (served or file://) and
// read the numbers a reader sees.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, ARTIFACTS, settle } from './harness.js';

export async function openPage(env, { query = '', file = false, locale = 'en-US', ...options } = {}) {
  const page = await newPage(env, { locale, ...options });
  const url = file ? env.fileUrl('dist/qkv-lab.html') + query : env.url('index.html' + query);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  return page;
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

/** A query string from an object: q({ seed: 7 }) → '?seed=7'. */
export const q = (params) => `?${new URLSearchParams(params)}`;

/** Section `id`'s stepper on its last step, with its own button (▶| is the reader's way). */
export async function goToLast(page, id) {
  while (await page.isEnabled(`#${id} .step-forward`)) await page.click(`#${id} .step-forward`);
}

/** Puts section `id`'s stepper on step `index` (0-based) with its buttons, as a reader would. */
export async function goToStep(page, id, index) {
  if (await page.isEnabled(`#${id} .step-first`)) await page.click(`#${id} .step-first`);
  for (let k = 0; k < index; k++) await page.click(`#${id} .step-forward`);
}

/**
 * Opens the page at `query` (plus lang) for each [name, query, selector, prepare] shot, brings the
 * element into view, lets prepare(page) act on it, and checks what a reader would see: something
 * drawn, nothing sticking out sideways (wide tables scroll in their own box), no canvas of one
 * colour, no console problems. Saves tests/artifacts/<prefix>-<lang>-<width>-<name>.png.
 */
export async function screenshotShots(env, shots, { prefix, lang, width }) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const [name, query, selector, prepare] of shots) {
    const join = query ? `${query}&lang=${lang}` : `?lang=${lang}`;
    const page = await openPage(env, { query: join, width, height: 800 });
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
    await page.closeAll();
  }
}
