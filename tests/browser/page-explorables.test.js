// page-explorables.test.js: what a review asked for, the additions an expert would make, used as
// a reader would: the
// one-hot note and the d_k control (the projections section), K·Qᵀ = Sᵀ and the dot product as geometry
// (the scores section), softmax shown whole with a temperature (the softmax section), a shared projection (the symmetry section)
// and live tensors (the data flow). Every number is read off the page and checked against the
// snapshot's own matrices or an independent computation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, frames } from './harness.js';
import { openPage, row, position, ARTICLE, goToStep, goToLast, q, landedOn } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });



test('the projections section says which rows of Q are rows of W_Q (one-hot rows of X), and only those', async () => {
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

test('d_k (2–4) in the projections section: every shape downstream follows, the link keeps it, 3 gives the article back', async () => {
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
  // ids, the sine positions (n × 4, whatever d_k), X, Q, S, A, O
  assert.deepEqual(flow.slice(0, 7), ['[3]', '[3, 4]', '[3, 4]', '[3, 2]', '[3, 3]', '[3, 3]', '[3, 2]']);
  // the link reproduces it
  const url = page.url();
  const again = await openPage(env, { query: url.slice(url.indexOf('?')) });
  assert.equal(await again.inputValue('#projections .dk-choice'), '2');
  // softmax's weights are shown from its last step on (every section opens at its first)
  for (const p of [page, again]) await goToLast(p, 'softmax');
  assert.doesNotMatch((await row(page, 'softmax', 'A', 0)).join(' '), /·/);
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

test('scores: K·Qᵀ = Sᵀ, the same numbers with rows and columns swapped, linked cell to cell', async () => {
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

/** The scores section's picture as the reader sees it: the vectors, a·b, |a|, |b|, cos θ and the verdict. */
function geometry(page) {
  return page.evaluate(() => {
    const root = document.querySelector('#scores .dot-geometry');
    const nums = (sel) => (root.querySelector(sel).textContent.match(/-?\d+\.\d+/g) || []).map(Number);
    return {
      a: nums('.geo-a'), b: nums('.geo-b'), sum: nums('.geo-sum'), polar: nums('.geo-polar'),
      verdict: root.querySelector('.geo-verdict').dataset.verdict, text: root.querySelector('.geo-verdict').textContent,
    };
  });
}

/** The page coordinates of plane point (x, y) in the scores section's picture. */
function planeToPage(page, [x, y]) {
  return page.$eval('#scores .dot-plane', (svg, [x, y]) => {
    const p = new DOMPoint(x * 40, -y * 40).matrixTransform(svg.getScreenCTM());
    return { x: p.x, y: p.y };
  }, [x, y]);
}

/**
 * The numbers on screen agree with each other: a·b = a_x b_x + a_y b_y = |a| |b| cos θ. Every
 * number is shown to 3 decimals, so it is within 0.0005 of the value computed; a product of shown
 * coordinates is then off by at most 0.0005 × (the sum of the coordinates' sizes), plus 0.0005
 * for the shown a·b itself (and 1e-6 for float32).
 */
function consistent(g, where) {
  const [ax, ay] = g.a, [bx, by] = g.b;
  const dot = g.sum.at(-1);
  const tol = 0.0005 * (Math.abs(ax) + Math.abs(ay) + Math.abs(bx) + Math.abs(by)) + 0.0005 + 1e-6;
  assert.ok(Math.abs(dot - (ax * bx + ay * by)) <= tol, `${where}: a·b = ${dot} from ${g.a} and ${g.b}`);
  const [la, lb, cos] = g.polar;
  assert.ok(Math.abs(la - Math.hypot(ax, ay)) <= 0.0015 && Math.abs(lb - Math.hypot(bx, by)) <= 0.0015, `${where}: lengths`);
  assert.ok(Math.abs(cos * la * lb - dot) <= tol + 0.0005 * (la + lb + la * lb), `${where}: |a| |b| cos θ`);
  assert.ok(Math.abs(g.polar.at(-1) - dot) <= 0.001, `${where}: the printed |a| |b| cos θ is a·b`);
}

test('scores: the dot product as geometry, by keyboard, mouse and touch (same direction → right angles → opposite)', async () => {
  const page = await openPage(env);
  let g = await geometry(page);
  consistent(g, 'at first');
  assert.equal(g.verdict, 'acute');
  // the presets, by keyboard
  for (const [preset, verdict, sign] of [['same', 'same', 1], ['right', 'right', 0], ['opposite', 'opposite', -1]]) {
    await page.focus(`#scores .geo-preset[data-preset="${preset}"]`);
    await page.keyboard.press('Enter');
    g = await geometry(page);
    consistent(g, preset);
    assert.equal(g.verdict, verdict, preset);
    assert.equal(Math.sign(Math.round(g.sum.at(-1) * 1000)), sign, `${preset}: a·b = ${g.sum.at(-1)}`);
  }
  assert.match(g.text, /as negative as these lengths allow, −\d\.\d{3}/);
  // the tip of b by keys: → turns it clockwise by 5°, ↑ lengthens it; the stepper does not move
  const before = await position(page, 'scores');
  await page.focus('#scores .tip[data-vector="b"]');
  const valueBefore = await page.getAttribute('#scores .tip[data-vector="b"]', 'aria-valuenow');
  for (let k = 0; k < 18; k++) await page.keyboard.press('ArrowRight');   // 90° round
  await page.keyboard.press('ArrowUp');
  g = await geometry(page);
  consistent(g, 'keys');
  assert.equal(g.verdict, 'right');
  assert.equal(Number(await page.getAttribute('#scores .tip[data-vector="b"]', 'aria-valuenow')), (Number(valueBefore) + 270) % 360);
  assert.equal(await position(page, 'scores'), before, 'the arrow keys stepped the section too');
  // the mouse drags a's tip to (2, 0)
  const from = await planeToPage(page, g.a);
  const to = await planeToPage(page, [2, 0]);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 5 });
  await page.mouse.up();
  g = await geometry(page);
  assert.deepEqual(g.a, [2, 0]);
  consistent(g, 'mouse');
  await page.closeAll();

  // touch, on a phone: b's tip to (0, -1.5), and the page does not scroll while dragging
  const context = await env.browser.newContext({ viewport: { width: 375, height: 800 }, hasTouch: true, isMobile: true });
  const phone = await context.newPage();
  await phone.goto(env.url('index.html?lang=zh'));
  await phone.waitForSelector('body[data-ready="true"]');
  await phone.locator('#scores .dot-plane').scrollIntoViewIfNeeded();
  const start = await planeToPage(phone, (await geometry(phone)).b);
  const end = await planeToPage(phone, [0, -1.5]);
  const scrolled = await phone.evaluate(() => scrollY);
  const cdp = await context.newCDPSession(phone);
  const touch = (type, p) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: p ? [{ x: p.x, y: p.y }] : [] });
  await touch('touchStart', start);
  for (let k = 1; k <= 6; k++) await touch('touchMove', { x: start.x + (end.x - start.x) * k / 6, y: start.y + (end.y - start.y) * k / 6 });
  await touch('touchEnd');
  g = await geometry(phone);
  assert.deepEqual(g.b, [0, -1.5]);
  consistent(g, 'touch');
  assert.equal(await phone.evaluate(() => scrollY), scrolled, 'the drag scrolled the page');
  assert.match(await phone.textContent('#scores .geo-verdict'), /点积/);
  await context.close();
});

/** The softmax section's written-out softmax, as shown: T, the rows (token, s, z, exp, weight) and the total. */
function whole(page) {
  return page.evaluate(() => {
    const root = document.querySelector('#softmax .softmax-whole');
    const rows = [...root.querySelectorAll('tbody tr')].map((tr) => [tr.querySelector('th').textContent, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]);
    return {
      t: Number(/T = ([\d.]+)/.exec(root.querySelector('.range .num').textContent)[1]),
      rows, total: root.querySelector('td.total').textContent,
      title: root.querySelector('.sub-title').textContent,
      overflow: !root.querySelector('.whole-overflow').hidden,
    };
  });
}

test('softmax: softmax shown whole (exp per score, the row total, the division) with a temperature slider', async () => {
  const page = await openPage(env);
  assert.equal(await position(page, 'softmax'), 'step 1 of 4', 'every section opens at its first step');
  await goToLast(page, 'softmax');
  let w = await whole(page);
  assert.equal(w.t, 1);
  assert.match(w.title, /row of “猫”/);   // the last step: row 3
  // at T = 1 the weights are A's row, digit for digit
  assert.deepEqual(w.rows.map((r) => r[4]), await row(page, 'softmax', 'A', 2));
  const check = (w) => {
    const exps = w.rows.map((r) => Number(r[3]));
    const total = Number(w.total);
    w.rows.forEach(([, s, z, e, weight]) => {
      // z = s / T from the shown s (3 decimals: off by 0.0005 / T at most), exp(z) from the shown z
      assert.ok(Math.abs(Number(z) - Number(s) / w.t) <= 0.0005 / w.t + 0.0005, `z ${z} for s ${s} at T ${w.t}`);
      assert.ok(Math.abs(Number(e) - Math.exp(Number(z))) <= Math.exp(Number(z)) * 0.0006 + 0.0005, `exp ${e} for z ${z}`);
      assert.ok(Math.abs(Number(weight) - Number(e) / total) <= 0.0015, `weight ${weight} = ${e} / ${total}`);
    });
    assert.ok(Math.abs(total - exps.reduce((a, b) => a + b, 0)) <= 0.002 * exps.length, `total ${total}`);
  };
  check(w);
  const atOne = w.rows.map((r) => Number(r[4]));
  // the slider by keyboard: ← lowers T (sharper), → raises it (flatter); the link keeps it
  await page.focus('#softmax .temp-slider');
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowLeft');
  w = await whole(page);
  assert.equal(w.t, 0.1);
  check(w);
  assert.ok(Math.max(...w.rows.map((r) => Number(r[4]))) > Math.max(...atOne) + 0.1, 'T = 0.1 sharpens');
  assert.match(page.url(), /temp=0\.1/);
  assert.equal(await position(page, 'softmax'), 'step 4 of 4', 'the slider\'s arrows moved the stepper');
  for (let k = 0; k < 6; k++) await page.keyboard.press('ArrowRight');
  w = await whole(page);
  assert.equal(w.t, 10);
  check(w);
  for (const r of w.rows) assert.ok(Math.abs(Number(r[4]) - 1 / 3) < 0.01, `T = 10 flattens: ${r}`);
  // the stepper chooses the row
  await goToStep(page, 'softmax', 1);
  assert.match((await whole(page)).title, /row of “我”/);
  // exp too large for float32: shown as —, and said why
  await page.click('#projections [data-matrix="X"] td[data-i="0"][data-j="0"]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('1000');
  await page.keyboard.press('Enter');
  await page.focus('#softmax .temp-slider');
  for (let k = 0; k < 6; k++) await page.keyboard.press('ArrowLeft');
  w = await whole(page);
  assert.equal(w.overflow, true);
  assert.ok(w.rows.some((r) => r[3] === '—'));
  assert.ok(!/NaN/.test(await page.textContent('#softmax')));
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#softmax .whole-overflow'), /float32/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('symmetry: a shared projection Q = K = X·W_Q gives a symmetric S with real values, and the page says where each row peaks', async () => {
  const page = await openPage(env);
  const table = (name) => page.$$eval(`#${name} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
  await page.check('#symmetry .qk-switch');
  const S = await table('symmetry [data-matrix="S"]');
  const Q = await table('scores [data-matrix="Q"]');
  // S = Q·Qᵀ from the Q on the page (3 decimals each: off by at most 0.0005 × Σ|q|, plus rounding)
  S.forEach((r, i) => r.forEach((x, j) => {
    const expected = Q[i].reduce((sum, q, c) => sum + q * Q[j][c], 0);
    const tol = 0.0005 * Q[i].concat(Q[j]).reduce((a, b) => a + Math.abs(b), 0) + 0.0006;
    assert.ok(Math.abs(x - expected) <= tol, `S[${i}][${j}] = ${x}, Q·Qᵀ gives ${expected}`);
    assert.equal(x, S[j][i], 'symmetric');
  }));
  assert.ok(S.some((r, i) => r.some((x, j) => i !== j && Math.abs(x) >= 0.01)), 'the off-diagonal is not all zeros');
  assert.doesNotMatch(await page.textContent('#symmetry .narration'), /0\.000 and S\[love\]\[我\] = 0\.000/);
  // the text counts what the table shows: rows whose largest score is on the diagonal
  const onDiagonal = S.filter((r, i) => r.indexOf(Math.max(...r)) === i).length;
  const text = await page.textContent('#symmetry .diagonal');
  assert.match(text, new RegExp(`here ${onDiagonal} of the 3 rows have their largest score on the diagonal`));
  const bold = await page.$$eval('#symmetry [data-matrix="S"] td.row-max', (tds) => tds.map((td) => `${td.dataset.i},${td.dataset.j}`));
  assert.deepEqual(bold, S.map((r, i) => `${i},${r.indexOf(Math.max(...r))}`));
  for (const [i, r] of S.entries()) {
    const j = r.indexOf(Math.max(...r));
    if (j !== i) assert.ok(S[j][j] > S[i][i], 'a row that peaks off the diagonal peaks at a longer vector');
  }
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match(await page.textContent('#symmetry .diagonal'), /对角线/);
  await page.closeAll();
});

test('the data flow: live tensors on hover and focus, a jump on click, and the next-token prediction [n, V]', async () => {
  const page = await openPage(env, { query: q({ sentence: '我 养了 一只 兔' }) });
  const shapes = await page.$$eval('#flow .flow-stage .shape', (els) => els.map((e) => e.textContent));
  // the sine positions after the ids, the heads (2 by default, d_k = 12 / 2) after O
  assert.deepEqual(shapes, ['[4]', '[4, 4]', '[4, 4]', '[4, 3]', '[4, 4]', '[4, 4]', '[4, 3]', '2 × [4, 6] → [4, 12] → [4, 4]', '…', '[4, 15]', '[1]', '∇']);
  const preview = () => page.evaluate(() => {
    const root = document.querySelector('#flow .tensor-preview');
    return {
      heading: root.querySelector('.tensor-heading').textContent,
      tables: [...root.querySelectorAll('[data-matrix]')].map((f) => f.dataset.matrix),
      first: [...root.querySelectorAll('[data-matrix] tbody tr:first-child td')].map((td) => td.textContent),
    };
  });
  // softmax's table shows A from its last step on (every section opens at its first)
  await goToLast(page, 'softmax');
  // the training sections above draw themselves once scrolled near, which moves this one: hover
  // only once it has stopped moving (the same top for a few frames in a row)
  await page.locator('#flow').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => {
    const top = document.getElementById('flow').getBoundingClientRect().top;
    window.__tops = [...(window.__tops || []), top].slice(-10);
    return window.__tops.length === 10 && window.__tops.every((t) => t === top);
  }, null, { polling: 'raf' });
  // hover a stage: its tensor, with the values the other sections show
  await page.hover('#flow .flow-stage[data-stage="QKV"]');
  let p = await preview();
  assert.deepEqual(p.tables, ['Q', 'K', 'V']);
  assert.match(p.heading, /Q, K, V, shape \[4, 3\]/);
  assert.deepEqual(p.first.slice(0, 3), await row(page, 'scores', 'Q', 0));
  await page.hover('#flow .flow-stage[data-stage="A"]');
  const shownA = await row(page, 'softmax', 'A', 0);
  assert.doesNotMatch(shownA.join(' '), /·/);
  assert.deepEqual((await preview()).first, shownA);
  // leaving returns to the stepper's stage (the first)
  await page.mouse.move(5, 5);
  assert.match((await preview()).heading, /token ids/);
  // by keyboard: focus the prediction stage
  await page.focus('#flow .flow-stage[data-stage="P"]');
  p = await preview();
  assert.deepEqual(p.tables, ['P']);
  assert.equal(p.first.length, 15);
  const probs = p.first.map(Number);
  assert.ok(Math.abs(probs.reduce((a, b) => a + b, 0) - 1) <= 15 * 0.0005 + 1e-6, 'a row of probabilities sums to 1');
  assert.equal(await page.$$eval('#flow .tensor-extra .tops li', (els) => els.length), 4);
  assert.match(await page.textContent('#flow .tensor-extra'), /random \(untrained\)/);
  // a redraw while the reader is on a stage (a setting changed elsewhere, the number of heads,
  // chosen from a script so that the focus stays here) keeps the focus and its preview
  for (const heads of ['4', '2']) {
    await page.evaluate((heads) => document.querySelector(`#multihead .heads-picker input[value="${heads}"]`).click(), heads);
    await page.waitForFunction((heads) => (new URLSearchParams(location.search).get('heads') ?? '2') === heads, heads);
    await frames(page, 2);
    assert.match(await page.textContent('#flow .flow-stage[data-stage="heads"]'), new RegExp(`^${heads} heads`), 'the data flow has redrawn');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.stage), 'P', `${heads} heads: the focus stays on the stage`);
    assert.deepEqual((await preview()).tables, ['P'], `${heads} heads: its preview stays`);
  }
  // stepping onto it narrates the shape [n, V]
  // (the prediction is the 10th stage: after the sine positions and the heads)
  await goToStep(page, 'flow', 9);
  assert.match(await page.textContent('#flow .narration'), /shape \[n, V\] = \[4, 15\]/);
  // a click jumps, as before
  await page.click('#flow .flow-stage[data-stage="S"]');
  await page.waitForFunction(() => /section=scores/.test(location.search));
  // (landed: a smooth scroll still under way would move the stage from under the pointer below)
  await landedOn(page, 'scores');
  await page.click('.lang-btn[data-lang="zh"]');
  await page.hover('#flow .flow-stage[data-stage="P"]');
  assert.match((await preview()).heading, /此刻的张量：预测下一个词/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the widget carries all of it: d_k as an attribute, the dot product, softmax written out, live tensors, code boxes', async () => {
  const { openBlog, waitForWidget } = await import('./widget-helpers.js');
  const page = await openBlog(env, { name: 'plain-post.html', transform: (html) => html
    .replace('<qkv-lab id="first" lang="en">', '<qkv-lab id="first" lang="en" section="scores" dk="4">')
    .replace('<qkv-lab id="second" section="softmax" lang="zh">', '<qkv-lab id="second" section="flow" lang="zh" dk="nine">') });
  await waitForWidget(page, 'first');
  /** The text (or dataset.verdict, or a count) of what matches `selector` in widget #first. */
  const first = (selector, what = 'text') => page.evaluate(([selector, what]) => {
    const found = document.getElementById('first').shadowRoot.querySelectorAll(selector);
    if (what === 'count') return found.length;
    return what === 'verdict' ? found[0].dataset.verdict : found[0].textContent;
  }, [selector, what]);
  assert.equal(await page.evaluate(() => document.getElementById('first').dk), 4);
  assert.equal(await first('[data-matrix="Q"] .matrix-shape'), 'Q: 3×4');
  // the dot product's preset, inside the shadow root
  await page.locator('#first .geo-preset[data-preset="right"]').click();
  assert.equal(await first('.geo-verdict', 'verdict'), 'right');
  assert.equal(await first('.code-panel', 'count'), 1);
  // an invalid dk falls back to 3 with a notice; the flow section previews on focus
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
  const notice = await page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('.widget-notice').innerText);
  assert.match(notice, /dk/);
  await page.locator('#second .flow-stage[data-stage="P"]').focus();
  assert.deepEqual(await page.evaluate(() => [...document.getElementById('second').shadowRoot.querySelectorAll('.tensor-preview [data-matrix]')].map((e) => e.dataset.matrix)), ['P']);
  // a click on a stage shows that section in the widget
  await page.locator('#second .flow-stage[data-stage="A"]').click();
  await page.waitForFunction(() => document.getElementById('second').getAttribute('section') === 'softmax');
  await waitForWidget(page, 'second');
  await page.waitForFunction(() => document.getElementById('second').shadowRoot.querySelector('.softmax-whole'));
  await page.locator('#second .temp-slider').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('.softmax-whole .range').textContent), /T = 2/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the multi-head verdict counts the rows where the heads\' largest weights differ, as the head tables show them, and says the weights are untrained', async () => {
  for (const [lang, heads] of [['en', 2], ['zh', 3], ['en', 4]]) {
    const page = await openPage(env, { query: q({ section: 'multihead', lang, heads }) });
    await page.waitForSelector(`#multihead .mh-heads [data-matrix="A${heads - 1}"] tbody td`);
    const tops = await page.$$eval('#multihead .mh-heads [data-matrix^="A"] table', (tables) => tables.map((t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) => { const v = [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)); return v.indexOf(Math.max(...v)); })));
    assert.equal(tops.length, heads);
    const rows = tops[0].length;
    const differ = tops[0].filter((_, i) => new Set(tops.map((t) => t[i])).size > 1).length;
    const verdict = await page.textContent('#multihead .mh-verdict');
    const where = `${lang}, ${heads} heads`;
    if (differ === 0) assert.match(verdict, lang === 'en' ? /happen to fall on the same token/ : /恰好都落在同一个词上/, where);
    else if (lang === 'en') assert.match(verdict, new RegExp(`^In ${differ} of the ${rows} rows .*untrained`), where);
    else assert.match(verdict, new RegExp(`^${rows} 行里有 ${differ} 行.*没训练过`), where);
    await page.closeAll();
  }
});
