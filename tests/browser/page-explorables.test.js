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

/** Section `id`'s stepper on its last step, with its own button (▶| is the reader's way). */
async function goToLast(page, id) {
  while (await page.isEnabled(`#${id} .step-forward`)) await page.click(`#${id} .step-forward`);
}

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

test('d_k (2–4) in section 3: every shape downstream follows, the link keeps it, 3 gives the article back', async () => {
  const page = await openPage(env);
  const shape = (section, name) => page.textContent(`#${section} [data-matrix="${name}"] .matrix-shape`);
  await page.selectOption('#projections .dk-choice', '2');
  assert.match(page.url(), /dk=2/);
  assert.equal(await shape('projections', 'W_Q'), 'W_Q: 4×2');
  assert.equal(await shape('projections', 'Q'), 'Q: 3×2');
  assert.equal(await shape('scores', 'Kt'), 'Kᵀ: 2×3');
  assert.equal(await shape('scores', 'S'), 'S: 3×3');
  assert.equal(await shape('mixing', 'O'), 'O: 3×2');
  assert.equal(await position(page, 'projections'), 'step 1 of 19');
  assert.match(await page.textContent('#projections .section-intro'), /randn\(4, 2\)/);
  await page.check('#softmax .scale-switch');
  assert.match(await page.textContent('#softmax .section-intro'), /d_k = 2, √2 ≈ 1\.414/);
  const flow = await page.$$eval('#flow .flow-stage .shape', (els) => els.map((e) => e.textContent));
  assert.deepEqual(flow.slice(0, 6), ['[3]', '[3, 4]', '[3, 2]', '[3, 3]', '[3, 3]', '[3, 2]']);
  // the link reproduces it
  const url = page.url();
  const again = await openPage(env, { query: url.slice(url.indexOf('?')) });
  assert.equal(await again.inputValue('#projections .dk-choice'), '2');
  assert.deepEqual(await row(again, 'softmax', 'A', 0), await row(page, 'softmax', 'A', 0));
  await again.closeAll();
  // d_k = 4: n = 3 ≠ 4, so Q × K is refused for this very sentence
  await page.selectOption('#projections .dk-choice', '4');
  assert.equal(await shape('scores', 'Q'), 'Q: 3×4');
  assert.match(await page.textContent('#scores .error-box'), /A is 3×4 but B is 3×4/);
  await page.uncheck('#softmax .scale-switch');
  await page.selectOption('#projections .dk-choice', '3');
  assert.doesNotMatch(page.url(), /dk=/);
  assert.deepEqual(await row(page, 'scores', 'Q', 0), ARTICLE.Q0);
  assert.deepEqual(await row(page, 'softmax', 'A', 0), ARTICLE.A0);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('section 4: K·Qᵀ = Sᵀ, the same numbers with rows and columns swapped, linked cell to cell', async () => {
  const page = await openPage(env);
  assert.equal(await page.isVisible('#scores [data-matrix="KQt"]'), false);
  await page.check('#scores .kq-switch');
  assert.match(page.url(), /kq=1/);
  await goToLast(page, 'scores');
  const S = await page.$$eval('#scores [data-matrix="S"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const KQ = await page.$$eval('#scores [data-matrix="KQt"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  assert.deepEqual(KQ, S[0].map((_, j) => S.map((r) => r[j])), 'K·Qᵀ is Sᵀ');
  assert.match(await page.textContent('#scores [data-matrix="KQt"] caption'), /K·Qᵀ = Sᵀ/);
  // hovering S[我][love] marks (K·Qᵀ)[love][我], and the other way round
  await page.hover('#scores [data-matrix="S"] td[data-i="0"][data-j="1"]');
  assert.match(await page.textContent('#scores .dot'), /S\[我\]\[love\].*= 0\.006, which is \(K·Qᵀ\)\[love\]\[我\]/);
  assert.ok(await page.$eval('#scores [data-matrix="KQt"] td[data-i="1"][data-j="0"]', (td) => td.classList.contains('hl-pair')));
  await page.hover('#scores [data-matrix="KQt"] td[data-i="2"][data-j="0"]');
  assert.match(await page.textContent('#scores .dot'), /S\[我\]\[猫\]/);
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#scores .kq-row .note'), /行列互换/);
  await page.closeAll();
});
