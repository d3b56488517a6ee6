// training-settings.test.js: the run's settings in the training section (batch, learning rate,
// dimension, optimizer, its own seed) as a reader uses them: in the link and back, the text always
// says what a step does (one sentence, or the real count), the flash shows the rows that really
// changed (with Adam, rows outside the batch too, marked and explained), and defects found
// earlier, kept fixed: one seed no longer drives the whole page, the narration says steps "per
// second", one Step does not relabel Start as Resume, and a link to step 1000000 replays in
// chunks with its progress shown instead of freezing the page. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openTraining, readState, referenceRun, settled, badNumbers, SECTION } from './training-helpers.js';
import { DEFAULT_SPEED } from '../../web/page/sections/training/layout.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

test('a link with every setting reproduces the run, the controls show it, and a change goes back into the link', async () => {
  const query = 'tseed=5&batch=2&lr=0.3&dim=8&step=15';
  const { page, section } = await openTraining(env, { query });
  const s = await readState(section);
  const { steps, model } = await referenceRun(query, 15);
  assert.equal(s.step, 15);
  assert.equal(s.loss, steps[14].loss);
  assert.deepEqual(s.flashed, steps[14].updatedRows);
  assert.deepEqual(await section.evaluate((el) => ['batch', 'lr', 'dim', 'optimizer', 'seed'].map((r) => el.querySelector(`[data-role="${r}"]`).value)),
    ['2', '0.3', '8', 'sgd', '5']);
  assert.match(await section.locator('.heatmap').evaluate((h) => h.closest('.tr-card').querySelector('h3').textContent), /8 dimensions/);
  model.dispose();
  await section.locator('[data-role="dim"]').selectOption('4');
  await settled(page);
  assert.equal(new URL(page.url()).searchParams.get('dim'), '4');
  assert.equal(new URL(page.url()).searchParams.get('step'), null, 'a new run starts at step 0');
  assert.equal((await readState(section)).step, 0);
  assert.match((await readState(section)).narration, /^A new run: 2 sentences, learning rate 0\.3, dimension 4, SGD\. Starting at step 0\.$/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the text says what a step does: one sentence when the batch is one, the real count otherwise', async () => {
  for (const [batch, one] of [[1, true], [4, false]]) {
    const { page, section } = await openTraining(env, { query: `batch=${batch}` });
    const intro = () => section.locator('.tr-intro p').nth(1).textContent();
    const title = () => section.locator('.tr-batch h3').textContent();
    if (one) {
      assert.match(await intro(), /each step takes one sentence,/);
      assert.equal(await title(), 'This step’s sentence');
    } else {
      assert.match(await intro(), /each step takes 4 sentences,.* averages the loss over the 4 sentences/);
      assert.equal(await title(), 'This step’s 4 sentences');
    }
    await section.locator('button[data-role="step"]').click();
    const s = await readState(section);
    const { steps } = await referenceRun(`batch=${batch}`, 1);
    assert.equal(s.batch.length, steps[0].batch.length);
    assert.equal(s.batch.length, batch);
    assert.match(s.narration, one ? /^Step 1\. Sentence: \S/ : /^Step 1\. 4 sentences: .+ \/ .+ Mean loss/);
    assert.deepEqual(s.flashed, steps[0].updatedRows, 'the flash shows the rows the step changed');
    assert.deepEqual(s.moments, [], 'SGD moves no row outside the batch');
    assert.equal(await section.locator('[data-role="adam-note"]').isVisible(), false);
    // the rows changed are the batch's words and <s>, all of them
    assert.deepEqual(new Set(s.flashedWords), new Set(['<s>', ...steps[0].batch.flat()]));
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('Adam: rows outside the batch move too, they are marked apart, and a sentence says why', async () => {
  const { page, section } = await openTraining(env, { query: 'batch=1' });
  await section.locator('[data-role="optimizer"]').selectOption('adam');
  await settled(page);
  assert.equal(new URL(page.url()).searchParams.get('opt'), 'adam');
  assert.equal(new URL(page.url()).searchParams.get('lr'), '0.01', 'Adam starts from its own learning rate');
  assert.equal(await section.locator('[data-role="adam-note"]').isVisible(), true);
  assert.match(await section.locator('[data-role="adam-note"]').textContent(), /With Adam, rows outside the step move too/);
  for (let i = 0; i < 3; i++) await section.locator('button[data-role="step"]').click();
  const s = await readState(section);
  const { steps, model } = await referenceRun('batch=1&opt=adam&lr=0.01', 3);
  const last = steps[2];
  const own = new Set([0, ...last.batch.flat().map((w) => model.vocab.indexOf(w))]);
  const others = last.updatedRows.filter((r) => !own.has(r));
  assert.ok(others.length > 0, 'after three Adam steps, earlier rows still move');
  assert.deepEqual(s.flashed, last.updatedRows, 'every changed row flashes');
  assert.deepEqual(s.moments, others, 'and those outside the batch are marked as moved by the moments');
  assert.match(await section.locator('[data-role="updated-words"]').textContent(),
    new RegExp(`^Rows changed by this step: ${last.updatedRows.length}\\. ${own.size} are this step’s words .*; the other ${others.length} are not in this step at all and moved on Adam’s moments alone\\.$`));
  assert.match(s.narration, new RegExp(`${last.updatedRows.length} rows changed \\(${own.size} of them this step’s words\\)`));
  model.dispose();
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the run has its own seed: the projections section\'s seed leaves it alone, and the page says which seed is whose', async () => {
  const { page, section } = await openTraining(env, { alone: false });   // the projections section's seed, above it on the page
  for (let i = 0; i < 3; i++) await section.locator('button[data-role="step"]').click();
  const before = await readState(section);
  assert.match(await section.locator('.tr-seed-own').textContent(), /This seed is the run’s own; the attention examples above have theirs \(42\)\./);
  // the projections section's "New seed" draws new W for the sections projections to symmetry …
  await page.locator('section[data-section="projections"] .seed-input').fill('7');
  await page.locator('section[data-section="projections"] .seed-input').press('Enter');
  await section.scrollIntoViewIfNeeded();
  const after = await readState(section);
  // … and the run goes on where it was
  assert.equal(after.step, before.step);
  assert.equal(after.loss, before.loss);
  assert.match(await section.locator('.tr-seed-own').textContent(), /have theirs \(7\)\./);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('seed'), '7');
  assert.equal(url.searchParams.get('step'), '3');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('Step leaves Start as Start; only a pause makes it Resume; the narration says steps per second', async () => {
  const { page, section } = await openTraining(env, { alone: false });   // the page's language button
  const play = section.locator('button[data-role="play"]');
  assert.equal(await play.textContent(), 'Start');
  await section.locator('button[data-role="step"]').click();
  assert.equal(await play.textContent(), 'Start', 'one Step is not a pause');
  await play.click();
  assert.equal((await readState(section)).narration, `Training started, ${DEFAULT_SPEED} steps per second.`);
  await page.waitForFunction((sel) => Number(document.querySelector(sel).dataset.step) >= 4, SECTION, { timeout: 60000 });
  await play.click();
  assert.equal(await play.textContent(), 'Resume');
  await section.locator('button[data-role="step"]').click();
  assert.equal(await play.textContent(), 'Start');
  await page.locator('.lang-btn[data-lang="zh"]').click();
  assert.equal(await section.locator('[data-role="speed"] option:checked').textContent(), `每秒 ${DEFAULT_SPEED} 步`);
  assert.match((await readState(section)).narration, /^第 \d+ 步。句子：/, 'the narration follows the language');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a link to step 1000000 replays in chunks with its progress shown, and ends at the schedule\'s end', async () => {
  const page = await (await import('./harness.js')).newPage(env);
  // record, from the start, every state the section passes through and the frames painted while replaying
  await page.addInitScript((sel) => {
    window.__replay = { states: [], frames: 0, progress: [] };
    const tick = () => {
      const el = document.querySelector(sel);
      if (el && el.dataset.state === 'replaying') {
        window.__replay.frames++;
        window.__replay.progress.push(el.querySelector('[data-role="progress"]').textContent);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new MutationObserver(() => {
      const el = document.querySelector(sel);
      if (el && window.__replay.states.at(-1) !== el.dataset.state) window.__replay.states.push(el.dataset.state);
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
  }, SECTION);
  await page.goto(env.url('index.html?lang=en&section=training&step=1000000'));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${SECTION}[data-state="finished"]`, { timeout: 60000 });
  const replay = await page.evaluate(() => window.__replay);
  assert.ok(replay.states.includes('replaying'), `states: ${replay.states}`);
  // 25 steps at most per frame: the schedule's hundreds of steps take many painted frames
  assert.ok(replay.frames >= 5, `${replay.frames} frames painted while replaying`);
  assert.match(replay.progress[0], /^Replaying from seed 1: step \d+ of \d+…$/);
  const s = await readState(page.locator(SECTION));
  assert.match(await page.locator(`${SECTION} [data-role="notice"]`).textContent(), /^The link asked for step 1000000, past the end of the schedule \((\d+) steps\): showing step \1\.$/);
  assert.equal(new URL(page.url()).searchParams.get('step'), String(s.step));
  assert.deepEqual(badNumbers(s.text), []);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
