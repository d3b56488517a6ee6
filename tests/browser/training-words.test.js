// training-words.test.js: the words of the training section on the English page, and what is
// measured about them. Chinese words carry English glosses wherever words are listed
// (neighbours, the analogy and its baseline, heat-map rows, scatter labels and hovers); the
// scatter's labels never overlap, on a desktop and on a 375-px phone, and each points at its own
// dot only, with leader lines that stand out (the car preset's dense cluster); the analogy's baseline is
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
  const { page, section } = await openTraining(env, { query: 'step=200', alone: false });   // the page's language button
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

/** Distance from (px, py) to the box [x, y, w, h] (0 inside), and from p to the segment a–b. */
const boxDistance = ([x, y, w, h], px, py) => Math.hypot(Math.max(x - px, 0, px - (x + w)), Math.max(y - py, 0, py - (y + h)));
const nearestOnBox = ([x, y, w, h], px, py) => [Math.max(x, Math.min(px, x + w)), Math.max(y, Math.min(py, y + h))];
function segmentDistance([ax, ay], [bx, by], [px, py]) {
  const vx = bx - ax, vy = by - ay, len2 = vx * vx + vy * vy;
  const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * vx + (py - ay) * vy) / len2)) : 0;
  return Math.hypot(ax + t * vx - px, ay + t * vy - py);
}
/** WCAG contrast ratio of two [r, g, b] colours (0–255). */
function contrast(a, b) {
  const lum = (c) => c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((m, v, k) => m + v * [0.2126, 0.7152, 0.0722][k], 0);
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// In the car preset's dense cluster (seed 1, step 1,500) every label points at
// its own dot only. Beside its dot, a label is nearer to it than to any other dot, grey words'
// included; away from it, its leader line runs from its dot to the label without passing through
// another dot (a grey dot whose disc touches the word's own cannot be told apart by any line: the
// hover names both). Dots whose discs touch (猫 and 香蕉 here) share one label that names them all,
// so both stay findable. Leader lines are drawn in a colour that contrasts with the plot, in
// either theme. Radii: a labelled word's dot is 5 px, a grey word's 3 (embedding-scatter.js).
const R = { 1: 5, 0: 3 };
for (const [width, lang, colorScheme] of [[1280, 'zh', 'light'], [1280, 'en', 'dark'], [375, 'en', 'light'], [375, 'zh', 'dark']]) {
  test(`every scatter label points at its own dot only (car preset, seed 1, step 1500; ${width} px, ${lang}, ${colorScheme})`, async () => {
    const { page, section } = await openTraining(env, { query: 'corpus=car-with-animals&tseed=1&step=1500', lang, width, colorScheme, reducedMotion: 'reduce' });
    const canvas = section.locator('canvas[data-chart="scatter"]');
    await canvas.scrollIntoViewIfNeeded();
    const labels = JSON.parse(await canvas.getAttribute('data-labels'));
    const dots = JSON.parse(await canvas.getAttribute('data-dots'));
    assert.ok(dots.filter((d) => d[3] === 0).length > 20, 'the grey words are drawn too');
    const shown = labels.filter(([, box]) => box);
    assert.ok(shown.length >= labels.length - 1, `${shown.length} of ${labels.length} labels placed`);
    const dotOf = new Map(dots.map((d) => [d[0], d]));
    for (const word of ['猫', '香蕉']) {
      const entry = labels.find(([w, , , together]) => w === word || together?.includes(word));
      assert.ok(entry && entry[1], `${word} has a label`);
    }
    // 猫 and 香蕉: touching dots, one label names both (measured: their dots are under 11 px apart)
    const [cat, banana] = [dotOf.get('猫'), dotOf.get('香蕉')];
    if (Math.hypot(cat[1] - banana[1], cat[2] - banana[2]) < 11) {
      const entry = labels.find(([, , , together]) => together?.includes('猫'));
      assert.ok(entry?.[3].includes('香蕉'), '猫 and 香蕉 touch: one label names both');
    }
    const leaders = [];
    for (const [word, box, leader, together] of shown) {
      const mine = (together || [word]).map((w) => dotOf.get(w));
      mine.forEach((d, k) => assert.ok(d, `${(together || [word])[k]}'s dot is drawn`));
      const own = [mine.reduce((m, d) => m + d[1], 0) / mine.length, mine.reduce((m, d) => m + d[2], 0) / mine.length];
      const others = dots.filter((d) => !mine.includes(d));
      for (const d of others) assert.ok(boxDistance(box, d[1], d[2]) > R[d[3]], `${word}'s label covers ${d[0]}'s dot`);
      if (!leader) {
        const near = Math.min(...mine.map((d) => boxDistance(box, d[1], d[2])));
        const nearest = others.reduce((best, d) => (boxDistance(box, d[1], d[2]) < boxDistance(box, best[1], best[2]) ? d : best));
        assert.ok(boxDistance(box, nearest[1], nearest[2]) > near, `${word}'s label (no leader) is as near ${nearest[0]}'s dot as its own`);
      } else {
        const end = nearestOnBox(box, ...own);
        for (const d of others) {
          if (mine.some((m) => Math.hypot(d[1] - m[1], d[2] - m[2]) <= R[1] + R[d[3]] + 1)) continue;  // touches the word's own dot
          assert.ok(segmentDistance(own, end, [d[1], d[2]]) > R[d[3]], `${word}'s leader line runs through ${d[0]}'s dot`);
        }
        // the line runs from outside its own dots' discs (all of them, for dots that share a
        // label) to the label: there must be room for it, and what is drawn of it is sampled
        const start = Math.max(...mine.map((d) => Math.hypot(d[1] - own[0], d[2] - own[1]) + R[d[3]]));
        const len = Math.hypot(end[0] - own[0], end[1] - own[1]);
        assert.ok(len > start, `${word}'s leader line has no room outside its dots (${len.toFixed(1)} ≤ ${start.toFixed(1)} px)`);
        const t = (start + (len - start) / 2) / len;
        leaders.push({ word, box, own, end, middle: [own[0] + (end[0] - own[0]) * t, own[1] + (end[1] - own[1]) * t] });
      }
    }
    assert.ok(leaders.length > 0, 'the dense cluster needs leader lines');
    // each leader line, half-way along what is drawn of it (outside the dots, where no label sits),
    // contrasts with the plot's background
    const samples = await canvas.evaluate((c, lines) => {
      const ctx = c.getContext('2d'), k = c.width / c.clientWidth;
      const px = (x, y) => [...ctx.getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data].slice(0, 3);
      return { background: px(3, 3), lines: lines.map(({ middle: [mx, my] }) => {
        const around = [];
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) around.push(px(mx + dx, my + dy));
        return around;
      }) };
    }, leaders);
    const inLabel = (x, y) => shown.some(([, [bx, by, bw, bh]]) => x >= bx - 2 && x <= bx + bw + 2 && y >= by - 2 && y <= by + bh + 2);
    leaders.forEach(({ word, middle }, k) => {
      if (inLabel(...middle)) return;
      const best = Math.max(...samples.lines[k].map((c) => contrast(c, samples.background)));
      assert.ok(best >= 4.5, `${word}'s leader line contrasts ${best.toFixed(2)}:1 with the plot (${colorScheme})`);
    });
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
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

  const qkv = await load({ model: true });
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
