// finetune-section.test.js: the fine-tuning section (section=finetune) as a reader and a blogger
// meet it, on the shipped pretrained poet with the shortest schedule (ftsteps=25), in one shared
// browser:
//   - it draws in zh and en at 375 and 1280 px, without sideways scrolling (screenshots in
//     tests/artifacts/finetune-*.png, for a person to look at), axe finds nothing serious, and
//     the reader's own text in characters the poet does not know is refused in the page's words;
//   - as a widget (the classic script and its fine-tuning add-on): the run takes its steps in the
//     worker; the held-out loss on the new text at the end is below step 0's, the adapter drawing
//     moves from (α/r)·A·B = 0 to something else, and the steps are the worker's (how long the
//     page's own tasks are meanwhile is wall time: the benchmark's, not a test's); Compare writes
//     with both models;
//   - Save writes the adapter file (QKVLORA\n…, ft.saveAdapter()'s format);
//   - the worker is terminated when the widget's section changes and when the widget goes away;
//   - under a CSP that refuses blob: workers, the run is on the page's own thread, said, and steps.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { openBrowser, newPage, downloadBytes, frames, ARTIFACTS, ROOT } from './harness.js';
import { openPage, q, holdWorkerMessages } from './page-helpers.js';
import { newBlogPage, waitForWidget, STRICT_CSP } from './widget-helpers.js';
import { QUATRAINS } from '../../web/data/quatrains.js';

const env = await openBrowser();
after(() => env.close());
const SHORT = { ftsteps: 25 };
fs.mkdirSync(ARTIFACTS, { recursive: true });

test('the section draws in zh and en at 375 and 1280 px (screenshots)', async () => {
  for (const lang of ['en', 'zh']) {
    // a load a width: a page resized lays its other sections out again above this one, which then
    // moves for as long as they take
    for (const width of [1280, 375]) {
      const page = await openPage(env, { query: q({ embed: 1, lang, section: 'finetune', ...SHORT }), width, height: 800 });
      await page.evaluate(() => document.getElementById('finetune').scrollIntoView());
      await page.waitForFunction(() => !document.querySelector('#finetune [data-role=play]').disabled, null, { timeout: 120000 });
      await page.waitForSelector('#finetune [data-role=poems] li');
      await page.waitForSelector('#finetune [data-role=adapter-view] canvas');
      const status = await page.textContent('#finetune [data-role=status]');
      assert.match(status, lang === 'zh' ? /^第 0 \/ 25 步/ : /^Step 0 of 25/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${lang} ${width}: the page scrolls sideways by ${overflow} px`);
      const sticking = await page.evaluate(() => [...document.querySelectorAll('#finetune *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName));
      assert.deepEqual(sticking, [], `${lang} ${width}: parts of the section reach past the window`);
      // each line of a sample stays inside its card; a line longer than the card wraps (a model
      // that has not learned the form writes such lines: one of 32 characters, wider than any
      // card, is added to the first card)
      // (added, measured and removed in one task: a sample arriving in between redraws the cards)
      const { outside, measuredLong } = await page.evaluate(() => {
        const line = document.querySelector('#finetune [data-role=poems] .poem-line');
        const long = line.cloneNode(false);
        long.textContent = '湖流年华市楼应唱早行悬山光日照频看雪雾晴春冬梅絮晚春开恐失枫枝。';
        line.parentNode.append(long);
        const lines = [...document.querySelectorAll('#finetune [data-role=poems] .poem-line')];
        const result = {
          measuredLong: lines.includes(long),
          outside: lines.filter((l) => {
            const card = l.closest('li');
            const style = getComputedStyle(card);
            const inner = card.getBoundingClientRect().right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
            return l.getBoundingClientRect().right > inner + 0.5 || l.scrollWidth > l.clientWidth;
          }).map((l) => l.textContent),
        };
        long.remove();
        return result;
      });
      assert.ok(measuredLong, `${lang} ${width}: the long line was measured`);
      assert.deepEqual(outside, [], `${lang} ${width}: sample lines reach past their cards`);
      if (width === 1280) {
        // the reader's own text: refused with the engine's reason in the page's language; the run stays
        await page.fill('#finetune [data-role=own-text]', Array.from({ length: 12 }, (_, i) => `hello world ${i}`).join('\n'));
        await page.click('#finetune [data-role=train-own]');
        await page.waitForFunction(() => document.querySelector('#finetune [data-role=own-error]').textContent.length > 0, null, { timeout: 60000 });
        assert.match(await page.textContent('#finetune [data-role=own-error]'), lang === 'zh'
          ? /^这段文本不能用来微调（原文保留在上面，当前这次微调照旧）：文本里有 \d+ 个字不在预训练模型的词表里/
          : /^This text cannot be fine-tuned on \(it stays above as you typed it; the current fine-tune goes on\): finetune: the text has \d+ characters outside the base's vocabulary/);
        assert.match(await page.inputValue('#finetune [data-role=own-text]'), /^hello world 0/);
        await page.addScriptTag({ path: path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
        const violations = await page.evaluate(async () => (await window.axe.run({ include: [['#finetune']] }, { resultTypes: ['violations'] }))
          .violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`));
        assert.deepEqual(violations.filter((v) => /\((serious|critical)\)/.test(v)), [], `${lang}: axe`);
      }
      await frames(page, 3);
      await page.locator('#finetune').screenshot({ path: path.join(ARTIFACTS, `finetune-${lang}-${width}.png`), timeout: 120000 });
      assert.deepEqual(page.problems(), []);
      await page.closeAll();
    }
  }
});

test('a widget fine-tunes in its worker: the held-out loss falls, the adapter drawing moves, its steps run in the worker; its worker ends with the section and the widget', async () => {
  const page = await newBlogPage(env, { transform: (html) => html
    .replace('<qkv-lab id="first" lang="zh" seed="42"></qkv-lab>', '<qkv-lab id="ft" section="finetune" lang="en" ftsteps="25"></qkv-lab>') });
  await page.addInitScript(() => {
    const Real = window.Worker;
    window.workerLog = [];
    window.Worker = class extends Real {
      constructor(...args) { super(...args); window.workerLog.push('made'); }
      terminate() { window.workerLog.push('terminated'); super.terminate(); }
    };
  });
  await page.goto(env.url('fixtures/blog-post.html'));
  await waitForWidget(page, 'ft', 60000);
  const inFt = (fn, arg) => page.evaluate(([source, a]) => new Function('root', 'a', `return (${source})(root, a);`)(document.getElementById('ft').shadowRoot, a), [fn.toString(), arg]);
  const ready = () => page.waitForFunction(() => {
    const b = document.getElementById('ft')?.shadowRoot?.querySelector('[data-role=play]');
    return b && !b.disabled;
  }, null, { timeout: 120000 });
  await ready();
  assert.deepEqual(await page.evaluate(() => window.workerLog), ['made']);
  // step 0: B = 0, so (α/r)·A·B is zero everywhere
  await page.waitForFunction(() => document.getElementById('ft').shadowRoot.querySelector('[data-role=adapter-view]')?.dataset.step === '0');
  const deltaPixels = () => inFt((root) => root.querySelector('.ft-figure-delta canvas').toDataURL());
  const zero = await deltaPixels();
  await inFt((root) => root.querySelector('[data-role=play]').click());
  await page.waitForFunction(() => document.getElementById('ft').shadowRoot.querySelector('[data-role=status]').dataset.done === 'true', null, { timeout: 300000 });
  // the evaluation of step 25 arrives after its step: wait for it in the chart's description
  await page.waitForFunction(() => /step 25:/.test(document.getElementById('ft').shadowRoot.querySelector('[data-role=loss-chart]').getAttribute('aria-label'))
    && /went from/.test(document.getElementById('ft').shadowRoot.querySelector('[data-role=forgetting]').textContent), null, { timeout: 120000 });
  const forgetting = await inFt((root) => root.querySelector('[data-role=forgetting]').textContent);
  const [, vFrom, vTo] = /new text's held-out lines from (\d+\.\d+) to (\d+\.\d+)/.exec(forgetting);
  assert.ok(Number(vTo) < Number(vFrom), `the held-out loss on 浣溪沙 fell: ${forgetting}`);
  const drawnStep = Number(await inFt((root) => root.querySelector('[data-role=adapter-view]').dataset.step));
  assert.ok(drawnStep > 0, `the adapter drawing followed the run (step ${drawnStep})`);
  assert.notEqual(await deltaPixels(), zero, '(α/r)·A·B is no longer zero');
  assert.equal(await inFt((root) => root.querySelector('[data-role=thread]').dataset.thread), 'worker', 'the steps ran in the worker');
  // Save: the adapter file, as ft.saveAdapter() writes it
  const [download] = await Promise.all([page.waitForEvent('download'), inFt((root) => root.querySelector('[data-role=save]').click())]);
  const file = await downloadBytes(download);
  assert.equal(file.subarray(0, 8).toString('latin1'), 'QKVLORA\n');
  assert.match(download.suggestedFilename(), /^qkv-lora-huanxisha-step25\.qkvlora$/);
  // Compare: both models write from the same beginning
  await inFt((root) => root.querySelector('[data-role=compare]').click());
  await page.waitForFunction(() => document.getElementById('ft').shadowRoot.querySelector('[data-role=compare-tuned] li'), null, { timeout: 60000 });
  const noteNow = () => inFt((root) => root.querySelector('[data-role=compare-note]').textContent);
  // the note's wording: a figure per character for each model, and the merge state (how large the
  // figures are is the machine's business: the benchmark's, not this test's)
  const [, baseFigure, tunedFigure] = /^each character written: original (\S+) ms, fine-tuned (\S+) ms \(not merged\)$/.exec(await noteNow()) ?? [];
  assert.ok(Number.isFinite(Number(baseFigure)) && Number.isFinite(Number(tunedFigure)), `the note gives both figures: ${await noteNow()}`);
  const tunedPoem = await inFt((root) => root.querySelector('[data-role=compare-tuned] li').textContent);
  // merged: both write again, and the note under them says so (the same characters)
  await inFt((root) => root.querySelector('[data-role=merge]').click());
  await page.waitForFunction(() => /^Merged, /.test(document.getElementById('ft').shadowRoot.querySelector('[data-role=compare-note]').textContent), null, { timeout: 60000 });
  assert.equal(await inFt((root) => root.querySelector('[data-role=compare-tuned] li').textContent), tunedPoem);
  await page.locator('#ft').screenshot({ path: path.join(ARTIFACTS, 'finetune-widget-en-after.png') });
  await inFt((root) => root.querySelector('[data-role=merge]').click());
  await page.waitForFunction(() => /\(not merged\)$/.test(document.getElementById('ft').shadowRoot.querySelector('[data-role=compare-note]').textContent), null, { timeout: 60000 });
  // the section goes (another section shown): its worker is terminated; the widget goes: so is the next one's
  await page.evaluate(() => document.getElementById('ft').setAttribute('section', 'softmax'));
  await page.waitForFunction(() => window.workerLog.join() === 'made,terminated');
  await page.evaluate(() => document.getElementById('ft').setAttribute('section', 'finetune'));
  await page.locator('#ft').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.workerLog.length === 3, null, { timeout: 60000 });
  await page.evaluate(() => document.getElementById('ft').remove());
  await page.waitForFunction(() => window.workerLog.join() === 'made,terminated,made,terminated');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('under a CSP that refuses blob: workers the fine-tune runs on the page\'s own thread, says so, and steps', async () => {
  const page = await newPage(env, { width: 1280, height: 800 });
  const html = fs.readFileSync(path.join(ROOT, 'web', 'index.html'), 'utf8');
  await page.route((url) => url.pathname === '/index.html', (route) => route.fulfill({
    status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': STRICT_CSP }, body: html }));
  await page.goto(env.url(`index.html${q({ section: 'finetune', lang: 'en', ...SHORT })}`));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await page.locator('#finetune').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => !document.querySelector('#finetune [data-role=play]').disabled, null, { timeout: 120000 });
  const notice = page.locator('#finetune [data-role=thread]');
  assert.equal(await notice.getAttribute('data-thread'), 'page');
  assert.match(await notice.textContent(), /^This page's Content-Security-Policy does not let it start a background thread, so the fine-tune runs on the page's own thread/);
  await page.click('#finetune [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#finetune [data-role=status]').dataset.step === '1', null, { timeout: 60000 });
  assert.match(await page.textContent('#finetune [data-role=status]'), /^Step 1 of 25 · last step's loss \d+\.\d+/);
  // the browser's own report of the refused worker is the only problem
  assert.ok(page.problems().every((p) => /Content Security Policy/.test(p)), page.problems().join('\n'));
  await page.closeAll();
});

test('the question (quiz=1): once the run is made the stepper holds before it; the share computed from the model\'s shapes is right, another wrong', async () => {
  // LoRA r 4 on Wq and Wv (the defaults): per layer r·(d + d) for each of the two matrices
  const report = JSON.parse(fs.readFileSync(path.join(ROOT, 'web/data/pretrained-report.json'), 'utf8')).model;
  const trainable = report.layers * 2 * 4 * (report.dim + report.dim);
  const share = Math.round(1000 * trainable / report.parameters) / 10;
  for (const [given, result] of [[share, 'right'], [share + 1, 'wrong']]) {
    const page = await openPage(env, { query: q({ embed: 1, quiz: 1, lang: 'en', section: 'finetune', ...SHORT }) });
    await page.evaluate(() => document.getElementById('finetune').scrollIntoView());
    await page.waitForFunction(() => !document.querySelector('#finetune [data-role=play]').disabled, null, { timeout: 120000 });
    // asked once the run is made, before its first step: the stepper holds before the second sample
    await page.waitForSelector('#finetune [data-role=quiz]:not([hidden])', { timeout: 120000 });
    assert.equal(await page.isEnabled('#finetune .step-forward'), false, 'the stepper holds before the question is answered');
    assert.match(await page.textContent('#finetune [data-role=quiz] .quiz-prompt'), /^What percentage of the model's parameters does this LoRA fine-tune train\?/);
    await page.fill('#finetune [data-role=quiz] [data-role=quiz-input]', String(given));
    await page.click('#finetune [data-role=quiz] [data-role=quiz-check]');
    await page.waitForSelector(`#finetune [data-role=quiz] [data-role=quiz-feedback][data-result="${result}"]`);
    assert.ok((await page.textContent('#finetune [data-role=quiz] [data-role=quiz-feedback]')).includes(`${trainable.toLocaleString('en-US')} / ${report.parameters.toLocaleString('en-US')}`));
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('a preset or a setting chosen while the reader\'s own text is still being built is not lost to the run being built: a preset goes back to the presets, a setting is the new run\'s; the embed code carries no step', async () => {
  // the run's 'created' messages are held while the test says: the reader's next choice then
  // comes before the page knows the run it asked for
  const page = await openPage(env, { query: q({ embed: 1, tools: 1, lang: 'en', section: 'finetune', ...SHORT }), init: holdWorkerMessages });
  await page.evaluate(() => document.getElementById('finetune').scrollIntoView());
  await page.waitForFunction(() => !document.querySelector('#finetune [data-role=step]').disabled, null, { timeout: 120000 });
  assert.equal(await page.getAttribute('#finetune [data-role=thread]', 'data-thread'), 'worker');
  assert.equal(await page.evaluate(() => window.__seen.created), 1);
  // the embed code: the settings and the seed, no step (a link fine-tunes again from step 0; the
  // stepper's steps are this run's samples), and the note that says so
  await page.click('#finetune .tool-embed');
  await page.waitForFunction(() => document.querySelector('#finetune .embed-code').value.includes('</qkv-lab>'));
  const code = await page.inputValue('#finetune .embed-code');
  assert.match(code, /<qkv-lab section="finetune"[^>]* ftsteps="25"/);
  assert.doesNotMatch(code, /\sstep(s)?="/, code);
  assert.match(await page.textContent('#finetune [data-role=embed-note]'), /^A link carries the settings and the seed, not the weights/);
  // a run with a step: a preset changed now is pending, not a new run at once
  await page.click('#finetune [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#finetune [data-role=status]').dataset.step === '1');
  // another preset chosen for a run with steps: the run stays until the reader starts over, and
  // its samples are still read against its own preset's form (浣溪沙), not the one chosen since
  assert.equal(await page.inputValue('#finetune [data-setting=ftset]'), 'huanxisha');
  await page.selectOption('#finetune [data-setting=ftset]', 'poet');
  await page.waitForSelector('#finetune [data-role=stale]:not([hidden])');
  assert.match(await page.textContent('#finetune .narration'), /^Step 0: \d of 4 poems are 浣溪沙\./);
  await page.selectOption('#finetune [data-setting=ftset]', 'huanxisha');
  await page.waitForSelector('#finetune [data-role=stale][hidden]', { state: 'attached' });
  await page.fill('#finetune [data-role=own-text]', QUATRAINS.poems.split('\n').slice(0, 40).join('\n'));
  await page.evaluate(() => { window.__holdTypes.add('created'); });
  await page.click('#finetune [data-role=train-own]');
  await page.waitForFunction(() => window.__held.length === 1, null, { timeout: 60000 });   // the own text's run is built, its answer held
  await page.selectOption('#finetune [data-setting=ftset]', 'poet');
  await page.evaluate(() => { window.__holdTypes.clear(); window.__release(); });
  // a third run, the poet preset's, at step 0: the own text's run was replaced, not kept under the preset's name
  // (each run's snapshot is drawn in turn, at most every 250 ms: the own text's run shows 'own'
  // first, then the third run shows the preset)
  await page.waitForFunction(() => window.__seen.created === 3, null, { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#finetune [data-setting=ftset]').value === 'poet'
    && document.querySelector('#finetune [data-role=status]').dataset.step === '0', null, { timeout: 60000 });
  assert.equal(await page.inputValue('#finetune [data-setting=ftset]'), 'poet');
  assert.equal(new URL(page.url()).searchParams.get('ftset'), 'poet');
  // the same for a setting other than the preset: the rank changed while the own text's run is
  // being built (the poet's run has a step, so it is kept for now) is the built run's rank, and
  // the text stays the reader's
  await page.click('#finetune [data-role=step]');
  await page.waitForFunction(() => document.querySelector('#finetune [data-role=status]').dataset.step === '1');
  await page.evaluate(() => { window.__holdTypes.add('created'); });
  await page.click('#finetune [data-role=train-own]');
  await page.waitForFunction(() => window.__held.length === 1, null, { timeout: 60000 });
  await page.selectOption('#finetune [data-setting=ftrank]', '16');
  await page.evaluate(() => { window.__holdTypes.clear(); window.__release(); });
  await page.waitForFunction(() => window.__seen.created === 5, null, { timeout: 60000 });
  await page.waitForFunction(() => document.querySelector('#finetune [data-role=status]').textContent.includes('r = 16')
    && document.querySelector('#finetune [data-role=status]').dataset.step === '0', null, { timeout: 60000 });
  assert.equal(await page.inputValue('#finetune [data-setting=ftset]'), 'own');
  assert.equal(await page.isHidden('#finetune [data-role=stale]'), true);
  assert.equal(new URL(page.url()).searchParams.get('ftrank'), '16');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
