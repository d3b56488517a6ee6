// training-timeline.test.js: the training run's timeline (sections/training/timeline.js). Scrubbing
// back to step k shows exactly what the timeline showed live at k (recorded at k, trained on past
// the next checkpoint, scrubbed back, compared: loss, cosines, nearest words, attention, scatter),
// and what the section itself showed at k (its loss). The timeline's module loads only when the
// reader opens it. Waits on the section's state, never on time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, ROOT } from './harness.js';
import { openTraining, settled, SECTION, referenceRun } from './training-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const TL = `${SECTION} [data-role=timeline]`;

/** Everything the timeline shows, as text (the scatter's points by their coordinates). */
function readTimeline(page, run = 'timeline-current') {
  return page.evaluate(([sel, run]) => {
    const el = document.querySelector(sel);
    const q = (role) => el.querySelector(`[data-role=${role}]`);
    const column = q(run);
    return {
      slider: q('timeline-slider').value,
      shown: !column.hidden,
      title: q(`${run}-title`).textContent,
      step: q(`${run}-step`).textContent,
      nearest: q(`${run}-nearest`).textContent,
      attention: column.querySelector('.tl-attention').textContent,
      scatter: [...q(`${run}-scatter`).querySelectorAll('circle')].map((c) => `${c.getAttribute('cx')},${c.getAttribute('cy')}`).join(' '),
    };
  }, [TL, run]);
}

async function scrubTo(page, k) {
  await page.locator(`${TL} [data-role=timeline-slider]`).evaluate((el, k) => {
    el.value = String(k);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, k);
}

test('scrubbing back to step k shows what step k showed live', async () => {
  const K = 230;
  const { page, section } = await openTraining(env, { query: `step=${K}` });
  const liveLoss = await section.evaluate((el) => Number(el.dataset.loss));
  assert.equal(await section.evaluate((el) => Number(el.dataset.step)), K);
  // the module is not loaded before the reader opens the timeline
  const before = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name).filter((n) => /timeline/.test(n)));
  assert.deepEqual(before, []);
  await page.click(`${TL} [data-role=timeline-open]`);
  await page.waitForSelector(`${TL} [data-role=timeline-slider]`);
  await page.waitForFunction((sel) => /Step 230 of/.test(document.querySelector(`${sel} [data-role=timeline-current-step]`)?.textContent || ''), TL);
  const live = await readTimeline(page);
  assert.equal(live.slider, String(K));
  assert.match(live.step, new RegExp(`loss ${liveLoss.toFixed(3)} `), `the section's own loss at step ${K}: ${live.step}`);
  assert.ok(live.nearest.length > 0 && live.attention.length > 0 && live.scatter.length > 0);

  // train on past the next checkpoint (step 300), then pause
  await page.click(`${SECTION} [data-role=play]`);
  await page.waitForFunction((sel) => Number(document.querySelector(sel).dataset.step) >= 340, SECTION, { timeout: 120000 });
  await page.click(`${SECTION} [data-role=play]`);
  await settled(page);
  const now = await section.evaluate((el) => Number(el.dataset.step));
  await page.waitForFunction(([sel, n]) => document.querySelector(`${sel} [data-role=timeline-slider]`).max === String(n), [TL, now]);
  const later = await readTimeline(page);
  assert.notEqual(later.step, live.step, 'the timeline followed the run');

  await scrubTo(page, K);
  // 30 steps from checkpoint 200: past its frame's deadline the replay goes on in the next (a busy machine)
  await page.waitForFunction(([sel, k]) => new RegExp(`^Step ${k} of`).test(document.querySelector(`${sel} [data-role=timeline-current-step]`).textContent), [TL, K]);
  const scrubbed = await readTimeline(page);
  assert.deepEqual(scrubbed, live, 'step k replayed from its checkpoint reads as it did live');
  // and forward again to where the run is
  await page.click(`${TL} [data-role=timeline-follow]`);
  await page.waitForFunction(([sel, step]) => document.querySelector(`${sel} [data-role=timeline-current-step]`).textContent === step, [TL, later.step]);
  assert.deepEqual(await readTimeline(page), later);
  assert.match(await page.textContent(`${TL} [data-role=timeline-memory]`), /every 100 steps: 4 so far for the runs shown/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('axe: no serious or critical issue in the open timeline (en 1280, zh 375)', async () => {
  const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
  for (const [lang, width] of [['en', 1280], ['zh', 375]]) {
    const { page } = await openTraining(env, { query: 'step=120', lang, width });
    await page.click(`${TL} [data-role=timeline-open]`);
    await page.waitForSelector(`${TL} [data-role=timeline-current-nearest] li`);
    await scrubTo(page, 40);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async (sel) => {
      const r = await window.axe.run({ include: [[sel]] }, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
    }, TL);
    for (const v of violations) console.log(`${lang} ${width}: ${v.id} (${v.impact}) ${v.nodes.join(', ')}`);
    assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), [], `${lang} ${width}`);
    await page.locator(TL).screenshot({ path: path.join(ROOT, 'tests', 'artifacts', `timeline-${lang}-${width}.png`) });
    await page.closeAll();
  }
});

test('the timeline\'s scatter labels the grouped words where each label points at its own dot: no two labels overlap, none covers another dot', async () => {
  const { page } = await openTraining(env, { query: 'step=1500' });
  await page.click(`${TL} [data-role=timeline-open]`);
  await page.waitForFunction((sel) => /Step 1500 of/.test(document.querySelector(`${sel} [data-role=timeline-current-step]`)?.textContent || ''), TL);
  const geometry = await page.evaluate((sel) => {
    const svg = document.querySelector(`${sel} [data-role=timeline-current-scatter]`);
    const box = (el) => { const b = el.getBBox(); return { x: b.x, y: b.y, w: b.width, h: b.height }; };
    return {
      labels: [...svg.querySelectorAll('text')].map((t) => ({ word: t.textContent, ...box(t) })),
      dots: [...svg.querySelectorAll('circle')].map((c) => ({ word: c.querySelector('title').textContent, x: +c.getAttribute('cx'), y: +c.getAttribute('cy'), r: +c.getAttribute('r') })),
      lines: svg.querySelectorAll('line').length,
    };
  }, TL);
  const { labels, dots } = geometry;
  assert.ok(labels.length >= 10, `${labels.length} grouped words labelled`);
  const overlap = (a, b) => a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) assert.ok(!overlap(labels[i], labels[j]), `${labels[i].word} overlaps ${labels[j].word}`);
    for (const d of dots) {
      if (d.word === labels[i].word) continue;
      const inside = d.x > labels[i].x && d.x < labels[i].x + labels[i].w && d.y > labels[i].y && d.y < labels[i].y + labels[i].h;
      assert.ok(!inside, `${labels[i].word}'s label covers ${d.word}'s dot`);
    }
  }
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('pin the default run, switch to the car preset: both runs side by side at the same step, the pinned one as a fresh run of its settings gives', async () => {
  const { page, section } = await openTraining(env, { query: 'step=300' });
  await page.click(`${TL} [data-role=timeline-open]`);
  await page.waitForFunction((sel) => /Step 300 of/.test(document.querySelector(`${sel} [data-role=timeline-current-step]`)?.textContent || ''), TL);
  await page.click(`${TL} [data-role=timeline-pin]`);
  await page.waitForSelector(`${TL} [data-role=timeline-pin-note]:not([hidden])`);
  // one setting changed: the decisive experiment's corpus, one click
  await page.click(`${SECTION} [data-role=corpus-summary]`);
  await page.click(`${SECTION} [data-role=corpus-car]`);
  await settled(page);
  // train the new run past step 300, then look at step 300 in both
  await page.click(`${SECTION} [data-role=play]`);
  await page.waitForFunction((sel) => Number(document.querySelector(sel).dataset.step) >= 320, SECTION, { timeout: 120000 });
  await page.click(`${SECTION} [data-role=play]`);
  await settled(page);
  await scrubTo(page, 300);
  const now = await readTimeline(page, 'timeline-current');
  const pinned = await readTimeline(page, 'timeline-pinned');
  assert.ok(pinned.shown, 'the pinned run is shown');
  assert.match(now.step, /^Step 300 of/);
  assert.match(pinned.step, /^Step 300 of/, 'the two runs share the step');
  assert.match(pinned.title, /Pinned: .*Default corpus/);
  assert.match(now.title, /A car in the animals/);
  // the pinned run's cosines at 300 are a fresh run's of the default settings (computed here)
  const { model } = await referenceRun('', 300);
  const car = model.similarity('猫', '汽车');
  const dog = model.similarity('猫', '狗');
  model.dispose();
  assert.ok(pinned.step.includes(`cos(猫, 汽车) = ${car.toFixed(3)}`) && pinned.step.includes(`cos(猫, 狗) = ${dog.toFixed(3)}`), `${pinned.step} vs ${car}, ${dog}`);
  assert.notEqual(now.step, pinned.step);
  // past the pinned run's step: it trains on to the slider's step, a frame at a time, and shows it
  await scrubTo(page, 320);
  await page.waitForFunction((sel) => /^Step 320 of/.test(document.querySelector(`${sel} [data-role=timeline-pinned-step]`)?.textContent || ''), TL, { timeout: 60000 });
  assert.doesNotMatch((await readTimeline(page, 'timeline-pinned')).title, /catching up/, 'caught up, and no longer says it is catching up');
  await page.locator(TL).screenshot({ path: path.join(ROOT, 'tests', 'artifacts', 'timeline-en-1280-pinned.png') });
  // unpin: one run again
  await page.click(`${TL} [data-role=timeline-unpin]`);
  await page.waitForSelector(`${TL} [data-role=timeline-pinned][hidden]`, { state: 'attached' });
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
