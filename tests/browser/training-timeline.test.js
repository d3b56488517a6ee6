// training-timeline.test.js: the training run's timeline (sections/training/timeline.js). Scrubbing
// back to step k shows exactly what the timeline showed live at k (recorded at k, trained on past
// the next checkpoint, scrubbed back, compared: loss, cosines, nearest words, attention, scatter),
// and what the section itself showed at k (its loss). The timeline's module loads only when the
// reader opens it. Waits on the section's state, never on time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, ROOT } from './harness.js';
import { openTraining, settled, SECTION } from './training-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const TL = `${SECTION} [data-role=timeline]`;

/** Everything the timeline shows, as text (the scatter's points by their coordinates). */
function readTimeline(page) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    const q = (role) => el.querySelector(`[data-role=${role}]`);
    return {
      slider: q('timeline-slider').value,
      step: q('timeline-step').textContent,
      nearest: q('timeline-nearest').textContent,
      attention: el.querySelector('.tl-attention').textContent,
      scatter: [...q('timeline-scatter').querySelectorAll('circle')].map((c) => `${c.getAttribute('cx')},${c.getAttribute('cy')}`).join(' '),
    };
  }, TL);
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
  await page.waitForFunction((sel) => /Step 230 of/.test(document.querySelector(`${sel} [data-role=timeline-step]`)?.textContent || ''), TL);
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
  const scrubbed = await readTimeline(page);
  assert.deepEqual(scrubbed, live, 'step k replayed from its checkpoint reads as it did live');
  // and forward again to where the run is
  await page.click(`${TL} [data-role=timeline-follow]`);
  assert.deepEqual(await readTimeline(page), later);
  assert.match(await page.textContent(`${TL} [data-role=timeline-memory]`), /every 100 steps: 4 so far/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('axe: no serious or critical issue in the open timeline (en 1280, zh 375)', async () => {
  const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
  for (const [lang, width] of [['en', 1280], ['zh', 375]]) {
    const { page } = await openTraining(env, { query: 'step=120', lang, width });
    await page.click(`${TL} [data-role=timeline-open]`);
    await page.waitForSelector(`${TL} [data-role=timeline-nearest] li`);
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
