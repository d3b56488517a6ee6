// page-explorables.test.js: what issue 9 asked an expert would add, used as a reader would: the
// one-hot note and the d_k control (section 3), K·Qᵀ = Sᵀ and the dot product as geometry
// (section 4), softmax shown whole with a temperature (section 5), a shared projection (section 8)
// and live tensors (section 10). Every number is read off the page and checked against the
// snapshot's own matrices or an independent computation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openPage, row, position, ARTICLE } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const q = (params) => `?${new URLSearchParams(params)}`;

test('section 3 says which rows of Q are rows of W_Q (one-hot rows of X), and only those', async () => {
  const page = await openPage(env);
  const note = await page.textContent('#projections .one-hot-note');
  assert.match(note, /Q\[我\] = row 0 of W_Q, Q\[love\] = row 1 of W_Q/);
  assert.match(note, /Not one-hot: “猫”/);
  // and the numbers agree: Q's row for 我 is W_Q's row 0
  const wq0 = await page.$$eval('#projections [data-matrix="W_Q"] tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(wq0, ARTICLE.Q0);
  await page.click('#projections .step-forward');
  assert.match(await page.textContent('#projections .narration'), /one-hot, so this is just W_Q\[0\]\[0\]/);
  await page.check('#embedding .switch input');   // position vectors: no row is one-hot any more
  assert.match(await page.textContent('#projections .one-hot-note'), /No row of X is one-hot here \(position vectors are added\)/);
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#projections .one-hot-note'), /X 的行都不是 one-hot/);
  await page.closeAll();
});
