// training-words.test.js: the words of the training section on the English page, and what is
// measured about them. Chinese words carry English glosses wherever words are listed
// (neighbours, the analogy and its baseline, heat-map rows, scatter labels and hovers); the
// scatter's labels never overlap, on a desktop and on a 375-px phone; the analogy's baseline is
// A's own neighbours; and "Train seeds 0–29" measures the spread live, in chunks (the page keeps
// painting), equal to the same measurement in Node. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openTraining, SECTION } from './training-helpers.js';
import { load } from '../../web/qkv-lab.js';
import { createState } from '../../web/page/shell/state.js';
import { modelOptions, resolveCorpus } from '../../web/page/training/settings.js';
import { measureModel, median, SPREAD_SEEDS } from '../../web/page/training/seed-spread.js';
import { GLOSSES } from '../../web/corpus.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const overlap = (a, b) => a[0] < b[0] + b[2] - 1 && b[0] < a[0] + a[2] - 1 && a[1] < b[1] + b[3] - 1 && b[1] < a[1] + a[3] - 1;

test('English glosses beside the Chinese words: neighbours, analogy and baseline, heat-map rows, scatter', async () => {
  const { page, section } = await openTraining(env, { query: 'step=200' });
  const nearest = await section.locator('[data-role="nearest-results"] li span:first-child').allTextContents();
  const words = await section.locator('[data-role="nearest-results"] li').evaluateAll((ls) => ls.map((l) => l.dataset.word));
  nearest.forEach((text, i) => assert.equal(text, GLOSSES[words[i]] ? `${words[i]} (${GLOSSES[words[i]]})` : words[i]));
  assert.match(await section.locator('.tr-baseline-title').textContent(), /^Baseline, no arithmetic: the words nearest to 国王 \(king\) itself$/);
  assert.equal(await section.locator('[data-role="baseline-results"] li').count(), 3);
  assert.match(await section.locator('[data-role="baseline-verdict"]').textContent(), /^The answer, \S+ \(.+\), (is already one of|is not among) 国王 \(king\)’s own/);
  assert.equal(await section.locator('.heat-row[data-word="猫"] .heat-word').textContent(), '猫 cat');
  const labels = JSON.parse(await section.locator('canvas[data-chart="scatter"]').getAttribute('data-labels'));
  const cat = labels.find(([w]) => w === '猫');
  assert.ok(cat, 'the scatter labels 猫');
  await page.locator('.lang-btn[data-lang="zh"]').click();
  assert.equal(await section.locator('.heat-row[data-word="猫"] .heat-word').textContent(), '猫');
  assert.doesNotMatch((await section.locator('[data-role="nearest-results"]').textContent()), /\(/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

for (const [width, name] of [[1280, 'desktop'], [375, 'phone']]) {
  test(`scatter labels never overlap (${name}, ${width} px), and the analogy's parallelogram is drawn`, async () => {
    for (const step of [0, 60, 300]) {
      const { page, section } = await openTraining(env, { query: `step=${step}`, width });
      const canvas = section.locator('canvas[data-chart="scatter"]');
      await canvas.scrollIntoViewIfNeeded();
      const labels = JSON.parse(await canvas.getAttribute('data-labels'));
      const boxes = labels.filter(([, box]) => box).map(([w, box]) => [w, box]);
      assert.ok(boxes.length >= 8, `${name} step ${step}: ${boxes.length} labels placed`);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          assert.ok(!overlap(boxes[i][1], boxes[j][1]), `${name} step ${step}: ${boxes[i][0]} and ${boxes[j][0]} overlap`);
        }
      }
      const size = await canvas.evaluate((c) => [c.width, c.height]);
      for (const [w, b] of boxes) assert.ok(b[0] >= 0 && b[1] >= 0 && b[0] + b[2] <= size[0] + 1 && b[1] + b[3] <= size[1] + 1, `${w} inside the canvas`);
      assert.equal(await canvas.getAttribute('data-arrows'), '男人→女人 国王→女王');
      assert.deepEqual(page.problems(), []);
      await page.closeAll();
    }
  });
}

test('Train seeds 0–29: measured in the browser, in chunks, equal to the same measurement in Node', async () => {
  const { page, section } = await openTraining(env);
  const card = section.locator('[data-role="seeds"]');
  await card.scrollIntoViewIfNeeded();
  await page.evaluate((sel) => {
    window.__frames = 0;
    const tick = () => { if (document.querySelector(`${sel} [data-role="seeds-stop"]`).hidden === false) window.__frames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }, SECTION);
  await card.locator('[data-role="seeds-run"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-role="seeds-results"] table`), SECTION, { timeout: 300000 });
  assert.ok(await page.evaluate(() => window.__frames) > 30, 'the page painted frames all through');
  const table = await card.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.dataset.measure, ...[...r.querySelectorAll('td')].map((td) => td.textContent)]));
  const counts = await card.locator('li[data-count]').evaluateAll((ls) => Object.fromEntries(ls.map((l) => [l.dataset.count, l.textContent])));

  const qkv = await load();
  const state = createState({ search: '' });
  const options = modelOptions(state, resolveCorpus(state.get('corpus')).sentences);
  const rows = SPREAD_SEEDS.map((seed) => {
    const model = qkv.createModel({ ...options, seed });
    model.train();
    const m = measureModel(model);
    model.dispose();
    return m;
  });
  const line = (vs) => [Math.min(...vs), median(vs), Math.max(...vs)].map((v) => v.toFixed(3));
  assert.deepEqual(table.find(([m]) => m === 'cos(猫, 狗)').slice(1), line(rows.map((r) => r.catDog)));
  assert.deepEqual(table.find(([m]) => m === 'cos(猫, 汽车)').slice(1), line(rows.map((r) => r.catCar)));
  assert.equal(counts.queen, `女王 (queen) first for 国王 − 男人 + 女人: ${rows.filter((r) => r.queen).length} of 30 seeds`);
  assert.equal(counts.closer, `animals closer to each other than to the vehicles: ${rows.filter((r) => r.closer).length} of 30 seeds`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
