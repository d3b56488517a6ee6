// chapters-screenshots.test.js: pictures of the three chapters after the attention story ("Why divide by √d_k",
// "Multi-head attention", "Positional encoding") and of the data flow's new stages, at 1280 and
// 375 px, in zh and en, written to tests/artifacts/chapters-<lang>-<width>-<name>.png for a person
// to look at. What a picture cannot show by itself is checked here: each one is drawn (not
// empty), the canvases hold pixels of more than one colour, and nothing sticks out sideways.
import { test, before, after } from 'node:test';
import { openBrowser } from './harness.js';
import { screenshotShots, goToLast, goToStep } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/**
 * [name, query, selector, prepare(page)]. Every section opens at its first step: the pictures of a
 * whole section are taken at its last step (where every part is filled in), with ▶| as a reader would.
 */
const SHOTS = [
  ['scaling', '', '#scaling', (page) => goToLast(page, 'scaling')],
  ['scaling-dk512', '?sdk=512', '#scaling .stage', (page) => goToLast(page, 'scaling')],
  ['scaling-dk4-raw-histogram', '?sdk=4', '#scaling .scaling-hist', (page) => goToStep(page, 'scaling', 1)],
  ['multihead', '', '#multihead', (page) => goToLast(page, 'multihead')],
  ['multihead-4-heads-head2', '?heads=4', '#multihead .stage', (page) => goToStep(page, 'multihead', 3)],
  ['positions', '', '#positions', (page) => goToLast(page, 'positions')],
  ['positions-problem', `?${new URLSearchParams({ sentence: '我 爱 猫' })}`, '#positions .pe-problem', (page) => goToLast(page, 'positions')],
  ['positions-table-128', '?ped=128', '#positions .pe-picture', (page) => goToLast(page, 'positions')],
  ['positions-offsets', '?ped=16', '#positions .pe-offsets', (page) => goToLast(page, 'positions')],
  ['flow-heads', '?heads=3', '#flow .stage', async (page) => page.focus('#flow .flow-stage[data-stage="heads"]')],
];

for (const lang of ['en', 'zh']) {
  for (const width of [1280, 375]) {
    test(`screenshots of the chapters (scaling, multi-head, positions): ${lang}, ${width}px`, async () => {
      await screenshotShots(env, SHOTS, { prefix: 'chapters', lang, width });
    });
  }
}
