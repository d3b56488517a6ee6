// chapters-screenshots.test.js: pictures of the sections issue 12 added ("Why divide by √d_k",
// "Multi-head attention", "Positional encoding") and of the data flow's new stages, at 1280 and
// 375 px, in zh and en, written to tests/artifacts/issue12-<lang>-<width>-<name>.png for a person
// to look at. What a picture cannot show by itself is checked here: each one is drawn (not
// empty), the canvases hold pixels of more than one colour, and nothing sticks out sideways.
import { test, before, after } from 'node:test';
import { openBrowser } from './harness.js';
import { screenshotShots } from './page-helpers.js';

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
      await screenshotShots(env, SHOTS, { prefix: 'issue12', lang, width });
    });
  }
}
