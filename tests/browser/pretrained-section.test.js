// pretrained-section.test.js (browser): the 预训练 section as a reader meets it, on the shipped
// model, waiting on state, never on time. One load per language and width (zh, en × 375, 1280):
//   - the table's rows are drawn, the model loads when the section is seen, and the rhyme head's
//     marked cell and its row show the weight gpt.forward() gives in Node (the public API), with
//     the head's rank and the line it watches most as computed there;
//   - with ?quiz=1 the stepper holds before the rhyme head; the answer computed from that
//     attention is marked right;
//   - nothing scrolls sideways, axe finds nothing serious or critical in the section, and a
//     screenshot of each step is kept for a person to look at (tests/artifacts/pretrained-*.png);
// and a <qkv-lab section="pretrained"> widget fetches its own add-on and the weights' add-on,
// not the GPT sections' add-on, and draws the same cell.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, ROOT, ARTIFACTS } from './harness.js';
import { openPage, q } from './page-helpers.js';
import { newBlogPage, waitForWidget } from './widget-helpers.js';
import { load } from '../../web/qkv-lab.js';
import { readPoem, EXAMPLES } from '../../web/page/pretrained/poet.js';
import { fmt } from '../../web/page/shell/dom.js';

const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
let env, expected;
before(async () => {
  env = await openBrowser();
  // the reading of the section's first poem, through the API in Node
  const qkv = await load();
  const gpt = await qkv.loadPretrained();
  const r = readPoem(gpt, EXAMPLES[0]);
  const { layer, head } = r.best;
  expected = { weight: fmt(r.readings[layer][head].toRhyme), rank: r.bestRank, line: r.line, query: r.positions.query, rhyme: r.positions.rhyme, count: r.ranked.length };
  gpt.dispose();
});
after(async () => { await env.close(); });

const S = '#pretrained';

async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async (sel) => {
    const result = await window.axe.run({ include: [[sel]] }, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, S);
}

async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.locator(S).scrollIntoViewIfNeeded();
  await page.locator(S).screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

test('the section in zh and en at 375 and 1280 px: the table, the facts, the rhyme head as the API computes it, the quiz, axe', async () => {
  const blocking = [];
  for (const lang of ['zh', 'en']) {
    for (const width of [1280, 375]) {
      const label = `${lang} ${width}`;
      const page = await openPage(env, { query: q({ embed: 1, section: 'pretrained', lang, quiz: 1 }), width, height: 900 });
      await page.waitForSelector(`${S} [data-role=comparison] tbody tr`);
      assert.equal(await page.locator(`${S} [data-role=comparison] tbody tr`).count(), 7, label);
      assert.doesNotMatch(await page.textContent(S), /\{\w+\}|pre\.|NaN|undefined/, `${label}: a placeholder or key left`);
      await shot(page, `pretrained-${lang}-${width}-table`);
      await page.click(`${S} .step-forward`);
      await page.waitForFunction((s) => document.querySelector(s).dataset.preStep === '1', S);
      assert.equal(await page.locator(`${S} [data-role=facts] dt`).count(), 5, label);
      await shot(page, `pretrained-${lang}-${width}-facts`);
      // the model loads once the section is seen; the question waits before the step that answers it
      await page.waitForFunction((s) => document.querySelector(`${s} [data-role=status]`).hidden, S, { timeout: 120000 });
      await page.click(`${S} .step-forward`);
      await page.waitForSelector(`${S} [data-role=quiz] [data-role=quiz-choice]`);
      assert.ok(await page.locator(`${S} .pre-head-ready`).isHidden(), `${label}: the attention waits for the answer`);
      await page.check(`${S} [data-role=quiz] input[value="${expected.line}"]`);
      await page.click(`${S} [data-role=quiz] [data-role=quiz-check]`);
      await page.waitForFunction((s) => document.querySelector(`${s} [data-role=quiz-feedback]`)?.textContent.length > 0, S);
      assert.equal(await page.getAttribute(`${S} [data-role=quiz-feedback]`, 'data-result'), 'right', label);
      // on to the rhyme head
      if (await page.isEnabled(`${S} .step-forward`)) await page.click(`${S} .step-forward`);
      await page.waitForFunction((s) => document.querySelector(s).dataset.preStep === '2' && !document.querySelector(`${s} .pre-head-ready`).hidden, S);
      const cell = page.locator(`${S} [data-role=rhyme-cell]`);
      assert.equal(Number(await cell.getAttribute('data-query')), expected.query, label);
      assert.equal(Number(await cell.getAttribute('data-key')), expected.rhyme, label);
      const values = await page.$$eval(`${S} [data-role=query-row] .bar-value`, (els) => els.map((e) => e.textContent));
      assert.equal(values[expected.rhyme], expected.weight, `${label}: the marked weight is gpt.forward's`);
      const narration = await page.textContent(`${S} .narration`);
      assert.ok(narration.includes(String(expected.rank)) && narration.includes(String(expected.count)), `${label}: ${narration}`);
      // the rhyme head's weight, in the table and the sentence, reads apart from every other head's
      // (a head ranked above it must not show the same number)
      const cells = await page.$$eval(`${S} td[data-layer]`, (tds) => tds.map((td) => ({ best: td.classList.contains('pre-best'), w: td.textContent.split(' ')[0] })));
      const best = cells.find((c) => c.best).w;
      assert.deepEqual(cells.filter((c) => !c.best && c.w === best), [], `${label}: another head shows the rhyme head's ${best}`);
      assert.ok(narration.includes(best), `${label}: the sentence gives ${best}: ${narration}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${label}: the page scrolls sideways by ${overflow} px`);
      await shot(page, `pretrained-${lang}-${width}-head`);
      for (const v of await audit(page)) {
        console.log(`${label}: ${v.id} (${v.impact}) ${v.targets.slice(0, 3).join(', ')}`);
        if (v.impact === 'serious' || v.impact === 'critical') blocking.push(`${label}: ${v.id}`);
      }
      // a poem that is not a quatrain is refused inline, and the previous one stays
      if (lang === 'en' && width === 1280) {
        await page.fill(`${S} input[data-setting=ppoem]`, '白日依山尽');
        await page.press(`${S} input[data-setting=ppoem]`, 'Enter');
        await page.waitForSelector(`${S} [data-role=poem-msg]:not([hidden])`);
        assert.equal(await page.getAttribute(`${S} input[data-setting=ppoem]`, 'aria-invalid'), 'true');
        assert.equal(await cell.getAttribute('data-query'), String(expected.query), 'the previous poem is still shown');
      }
      assert.deepEqual(page.problems(), [], label);
      await page.closeAll();
    }
  }
  assert.deepEqual(blocking, []);
});

test('a <qkv-lab section="pretrained"> widget fetches its own add-on and the weights\', not the GPT sections\', and marks the same cell', async () => {
  const page = await newBlogPage(env, { transform: (html) => html
    .replace('<qkv-lab id="first" lang="zh" seed="42">', '<qkv-lab id="first" section="pretrained" lang="en">') });
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  await page.goto(env.url('fixtures/blog-post.html'));
  await waitForWidget(page, 'first', 60000);
  await page.locator('#first').scrollIntoViewIfNeeded();
  const inside = (sel) => page.evaluate((sel) => document.getElementById('first').shadowRoot.querySelector(sel)?.textContent ?? null, sel);
  // to the rhyme head with the widget's own ▶|, once the model is there
  await page.waitForFunction(() => document.getElementById('first').shadowRoot.querySelector('[data-role=rhyme-cell]'), null, { timeout: 120000 });
  for (const step of ['1', '2']) {
    await page.evaluate(() => document.getElementById('first').shadowRoot.querySelector('.step-forward').click());
    await page.waitForFunction((k) => document.getElementById('first').shadowRoot.querySelector('section').dataset.preStep === k, step);
  }
  const values = await page.evaluate(() => [...document.getElementById('first').shadowRoot.querySelectorAll('[data-role=query-row] .bar-value')].map((e) => e.textContent));
  assert.equal(values[expected.rhyme], expected.weight);
  assert.match(await inside('.narration'), new RegExp(`ranks ${expected.rank} of all ${expected.count} heads`));
  const fetched = (name) => seen.filter((u) => u.endsWith(`/dist/${name}`)).length;
  assert.equal(fetched('qkv-lab-widget-pretrained-section.js'), 1);
  assert.equal(fetched('qkv-lab-widget-pretrained.js'), 1);
  assert.equal(fetched('qkv-lab-widget-gpt.js'), 0, 'the GPT sections\' add-on is not needed');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
