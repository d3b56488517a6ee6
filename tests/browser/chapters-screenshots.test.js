// chapters-screenshots.test.js: pictures of the sections issue 12 added ("Why divide by √d_k",
// "Multi-head attention", "Positional encoding") and of the data flow's new stages, at 1280 and
// 375 px, in zh and en, written to tests/artifacts/issue12-<lang>-<width>-<name>.png for a person
// to look at. What a picture cannot show by itself is checked here: each one is drawn (not
// empty), the canvases hold pixels of more than one colour, and nothing sticks out sideways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, ARTIFACTS, settle } from './harness.js';
import { openPage } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/** [name, query, selector, prepare(page)] */
const SHOTS = [
  ['scaling', '', '#scaling', async () => {}],
  ['scaling-dk512', '?sdk=512', '#scaling .stage', async () => {}],
  ['scaling-dk4-raw-histogram', '?sdk=4', '#scaling .scaling-hist', async (page) => page.click('#scaling .step-first')
    .then(() => page.click('#scaling .step-forward'))],
  ['multihead', '', '#multihead', async () => {}],
  ['multihead-4-heads-head2', '?heads=4', '#multihead .stage', async (page) => {
    await page.click('#multihead .step-first');
    for (let k = 0; k < 3; k++) await page.click('#multihead .step-forward');
  }],
  ['positions', '', '#positions', async () => {}],
  ['positions-problem', `?${new URLSearchParams({ sentence: '我 爱 猫' })}`, '#positions .pe-problem', async () => {}],
  ['positions-table-128', '?ped=128', '#positions .pe-picture', async () => {}],
  ['positions-offsets', '?ped=16', '#positions .pe-offsets', async () => {}],
  ['flow-heads', '?heads=3', '#flow .stage', async (page) => page.focus('#flow .flow-stage[data-stage="heads"]')],
];

for (const lang of ['en', 'zh']) {
  for (const width of [1280, 375]) {
    test(`screenshots of issue 12's sections: ${lang}, ${width}px`, async () => {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      for (const [name, query, selector, prepare] of SHOTS) {
        const join = query ? `${query}&lang=${lang}` : `?lang=${lang}`;
        const page = await openPage(env, { query: join, width, height: 800 });
        const target = page.locator(selector).first();
        await target.scrollIntoViewIfNeeded();
        await prepare(page);
        await settle(page);
        const box = await target.boundingBox();
        assert.ok(box && box.width > 50 && box.height > 30, `${name}: nothing drawn`);
        const overflow = await target.evaluate((el) => [...el.querySelectorAll('*')].filter((c) => {
          if (c.closest('.matrix-scroll, .heat-table-scroll')) return false;   // wide tables scroll in their own box
          const r = c.getBoundingClientRect();
          return r.width > 0 && r.right > document.documentElement.clientWidth + 1;
        }).map((c) => c.className.baseVal ?? c.className ?? c.tagName).slice(0, 3));
        assert.deepEqual(overflow, [], `${name}: sticks out sideways`);
        // every canvas shown holds a picture: more than one colour
        const flat = await target.evaluate((el) => [...el.querySelectorAll('canvas')].filter((c) => {
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          const colours = new Set();
          for (let k = 0; k < data.length; k += 4) colours.add(`${data[k]},${data[k + 1]},${data[k + 2]}`);
          return colours.size < 3;
        }).length);
        assert.equal(flat, 0, `${name}: a canvas of one colour`);
        await target.screenshot({ path: path.join(ARTIFACTS, `issue12-${lang}-${width}-${name}.png`), style: '.page-bar { visibility: hidden; }' });
        assert.deepEqual(page.problems(), [], name);
        await page.closeAll();
      }
    });
  }
}
