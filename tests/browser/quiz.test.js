// quiz.test.js (browser): the exercises as a reader meets them (?quiz=1, the page's switch, the
// widget's quiz attribute). A section holds its stepper before a step that reveals an answer; an
// answer computed here from the numbers the page shows is marked right, another wrong, and the
// feedback explains it; the whole exchange works with the keyboard alone; every section of the
// registry asks at least one question; axe finds nothing serious in the question or its feedback.
// Everything waits on the page's state, never on time. A check of one section's question opens
// that section in iframe mode, where it is the only one built; the page's switch, the keyboard,
// the registry's questions and axe use the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, ROOT } from './harness.js';
import { openPage, row, position, goToLast, quizOf, feedback, forwardToQuestion } from './page-helpers.js';
import { openBlog, waitForWidget } from './widget-helpers.js';
import { ALL_SECTIONS } from '../../web/page/sections/index.js';
import { load } from '../../web/qkv-lab.js';
import { QUATRAINS } from '../../web/data/quatrains.js';
import { isWellFormedQuatrain } from '../../web/data/quatrain-form.js';
import { gptOptions } from '../../web/page/gpt/settings.js';
import { SAMPLE_POEMS, SAMPLE_TEMPERATURE } from '../../web/page/gpt/worker-constants.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/** softmax of a row of numbers as the page prints them (3 decimals). */
function softmax(row) {
  const m = Math.max(...row);
  const e = row.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

async function softmaxExpected(page) {
  // the question is about the last row's first weight: computed here from S as the page shows it
  const last = (await page.$$eval('#softmax [data-matrix="S"] tbody tr', (trs) => trs.length)) - 1;
  const S = (await row(page, 'softmax', 'S', last)).map(Number);
  return softmax(S)[0];
}

test('softmax: the stepper holds before the last row; a number from the page\'s S is right, another is wrong', async () => {
  for (const [given, result] of [[(x) => x.toFixed(2), 'right'], [(x) => (x + 0.1).toFixed(2), 'wrong']]) {
    const page = await openPage(env, { query: '?embed=1&section=softmax&quiz=1&lang=en' });
    await page.locator('#softmax').scrollIntoViewIfNeeded();
    await forwardToQuestion(page, 'softmax');
    const held = await position(page, 'softmax');
    assert.equal(held, 'step 3 of 4', 'held before the step that converts the last row');
    // ▶| and → go no further while the question is open
    await page.click('#softmax .step-forward');
    assert.equal(await position(page, 'softmax'), held);
    await page.focus('#softmax .stage');
    await page.keyboard.press('ArrowRight');
    assert.equal(await position(page, 'softmax'), held);
    assert.equal(await page.getAttribute(feedback('softmax'), 'data-result'), 'held', 'the held move is told');
    assert.match(await page.textContent(feedback('softmax')), /Answer the question above/);
    const cell = await page.$$eval('#softmax [data-matrix="A"] tbody tr:last-child td.cell', (tds) => tds[0].textContent);
    assert.equal(cell.trim(), '·', 'the answer is not on screen yet');

    const expected = await softmaxExpected(page);
    // a typing slip is not an answer: said, marked invalid, and the question stays open
    await page.fill(`${quizOf('softmax')} [data-role=quiz-input]`, 'abc');
    await page.click(`${quizOf('softmax')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('softmax')}[data-result="empty"]`);
    assert.match(await page.textContent(feedback('softmax')), /“abc” is not a number/);
    assert.equal(await page.getAttribute(`${quizOf('softmax')} [data-role=quiz-input]`, 'aria-invalid'), 'true');
    assert.equal(await page.isVisible(`${quizOf('softmax')} [data-role=quiz-reveal]`), false, 'nothing revealed');
    await page.fill(`${quizOf('softmax')} [data-role=quiz-input]`, given(expected));
    await page.click(`${quizOf('softmax')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('softmax')}[data-result="${result}"]`);
    const text = await page.textContent(feedback('softmax'));
    assert.match(text, result === 'right' ? /^Right/ : /^Not quite/);
    assert.match(text, /exp\(/, 'the feedback explains the answer');
    // now the step may be revealed, and it shows what the question said
    await page.click(`${quizOf('softmax')} [data-role=quiz-reveal]`);
    assert.equal(await position(page, 'softmax'), 'step 4 of 4');
    const shown = Number(await page.$$eval('#softmax [data-matrix="A"] tbody tr:last-child td.cell', (tds) => tds[0].textContent));
    // the table prints 3 decimals of the WASM weight; S's 3 decimals move the softmax by < 0.002
    assert.ok(Math.abs(shown - expected) < 0.002, `A shows ${shown}, the page's S gives ${expected}`);
    assert.ok(text.includes(shown.toFixed(3)), `the feedback names the weight ${shown}: ${text}`);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('scores: the sign of q·k from the page\'s Q and K tables is right, the other choice wrong (zh)', async () => {
  for (const pickRight of [true, false]) {
    const page = await openPage(env, { query: '?embed=1&section=scores&quiz=1&lang=zh' });
    await page.locator('#scores').scrollIntoViewIfNeeded();
    await forwardToQuestion(page, 'scores');
    const n = await page.$$eval('#scores [data-matrix="Q"] tbody tr', (trs) => trs.length);
    const q = (await row(page, 'scores', 'Q', 0)).map(Number);
    const k = (await row(page, 'scores', 'K', n - 1)).map(Number);
    const dot = q.reduce((s, x, c) => s + x * k[c], 0);
    const positive = dot > 0;
    const label = (positive === pickRight) ? '是' : '不是';
    await page.check(`${quizOf('scores')} label:has-text("${label}") input`);
    await page.click(`${quizOf('scores')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('scores')}[data-result="${pickRight ? 'right' : 'wrong'}"]`);
    const text = await page.textContent(feedback('scores'));
    assert.match(text, pickRight ? /^答对了/ : /^不对/);
    await page.click(`${quizOf('scores')} [data-role=quiz-reveal]`);
    // the revealed cell S[0][n−1] has the sign the feedback gave
    const cell = Number(await page.$$eval(`#scores [data-matrix="S"] tbody tr:first-child td.cell`, (tds, j) => tds[j].textContent, n - 1));
    assert.equal(cell > 0, positive);
    assert.ok(text.includes(cell.toFixed(3)), `the feedback names the score ${cell}: ${text}`);
    await page.closeAll();
  }
});

test('keyboard alone: step to the question, choose, check, see the feedback, reveal the step', async () => {
  const page = await openPage(env, { query: '?quiz=1&lang=en' });
  await page.locator('#mixing').scrollIntoViewIfNeeded();
  // the reader Tabs into the section's stage (the focus a Tab or a contents jump gives)
  await page.focus('#mixing .stage');
  await page.keyboard.press('ArrowRight');
  assert.ok(await page.isVisible(quizOf('mixing')), 'the question shows when → is held');
  assert.equal(await position(page, 'mixing'), 'step 1 of 3');
  // Tab order: the question comes after the stepper and before the stage
  await page.focus('#mixing .step-forward');
  const focused = () => page.evaluate(() => [document.activeElement.dataset.role || document.activeElement.className, document.activeElement.value]);
  for (let k = 0; k < 6 && (await focused())[0] !== 'quiz-choice'; k++) await page.keyboard.press('Tab');
  assert.equal((await focused())[0], 'quiz-choice', 'Tab reaches the choices');
  await page.keyboard.press('Space');      // the first radio: Yes
  await page.keyboard.press('ArrowRight'); // arrows move within the group: No
  const chosen = await page.$eval(`${quizOf('mixing')} input:checked`, (el) => el.value);
  assert.equal(chosen, 'no');
  await page.keyboard.press('Tab');
  assert.equal((await focused())[0], 'quiz-check');
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${feedback('mixing')}[data-result]`);
  // focus went to "Show this step"; Enter reveals it
  assert.equal((await focused())[0], 'quiz-reveal');
  const live = await page.getAttribute(feedback('mixing'), 'aria-live');
  assert.equal(live, 'polite', 'a screen reader hears the feedback');
  await page.keyboard.press('Enter');
  assert.equal(await position(page, 'mixing'), 'step 2 of 3');
  // the answer against the revealed output: O[love][0]'s sign
  const o = Number((await row(page, 'mixing', 'O', 1))[0]);
  const result = await page.getAttribute(feedback('mixing'), 'data-result');
  assert.equal(result, (o > 0) === (chosen === 'yes') ? 'right' : 'wrong');
  await page.closeAll();
});

test('every section of the registry asks a question (page, iframe mode for the walkthrough); skipping opens the step', async () => {
  const page = await openPage(env, { query: '?quiz=1&lang=en' });
  // the training run, the writer, generation and fine-tuning ask about a run once it has trained
  // (a sample, a generated text): the training run below; the writer's and generation's, each in a
  // test of its own at the end of this file; fine-tuning's in finetune-section.test.js
  const ids = ALL_SECTIONS.map((s) => s.id).filter((id) => !['walkthrough', 'training', 'writer', 'generate', 'finetune'].includes(id));
  for (const id of ids) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    // the walkthrough's part exists (its status line shows only while it is not ready, so wait for it to be there, not shown)
    if (id === 'trainstep') await page.waitForSelector('#trainstep [data-role=ts-status]', { state: 'attached' });
    if (id === 'trainstep') await page.waitForFunction(() => !document.querySelector('#trainstep').classList.contains('qkv-pending'));
    // the pretrained section asks about the attention of its model, which loads when the section is seen
    if (id === 'pretrained') await page.waitForFunction(() => document.querySelector('#pretrained [data-role=status]').hidden, null, { timeout: 120000 });
    await forwardToQuestion(page, id);
    // what stands above an open question does not give its answer (the gradient's rows are the update's)
    if (id === 'trainstep') assert.doesNotMatch(await page.textContent('#trainstep .narration'), /exactly \d+ rows|恰好在 \d+ 行/);
    const prompt = await page.textContent(`${quizOf(id)} .quiz-prompt`);
    assert.ok(prompt.length > 10, `${id}: a prompt`);
    const before = await position(page, id);
    await page.click(`${quizOf(id)} [data-role=quiz-skip]`);
    await page.waitForSelector(`${feedback(id)}[data-result="skipped"]`);
    await page.click(`${quizOf(id)} [data-role=quiz-reveal]`);
    assert.notEqual(await position(page, id), before, `${id}: skipping opens the step`);
  }
  // the training run asks about the run as it stands, once it is built
  await page.locator('#training').scrollIntoViewIfNeeded();
  await page.waitForSelector(`${quizOf('training')}:not([hidden])`, { timeout: 60000 });
  const choices = await page.$$eval(`${quizOf('training')} [data-role=quiz-choice]`, (els) => els.map((e) => e.value));
  assert.deepEqual(choices, ['狗', '汽车']);
  await page.check(`${quizOf('training')} input[value="狗"]`);
  await page.click(`${quizOf('training')} [data-role=quiz-check]`);
  await page.waitForSelector(`${feedback('training')}[data-result]`);
  // the feedback's cosines are the ones the section shows in its status line
  const text = await page.textContent(feedback('training'));
  const [dog, car] = [...text.matchAll(/= (-?\d\.\d{3})/g)].map((m) => Number(m[1]));
  assert.equal(await page.getAttribute(feedback('training'), 'data-result'), dog >= car ? 'right' : 'wrong');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();

  const frame = await openPage(env, { query: '?embed=1&quiz=1&lang=en' });
  await forwardToQuestion(frame, 'walkthrough');
  assert.match(await frame.textContent(`${quizOf('walkthrough')} legend`), /attend to most/);
  await frame.closeAll();
});

test('the page\'s switch turns the exercises on and off, and the link keeps it', async () => {
  const page = await openPage(env, { query: '?lang=en' });
  assert.equal(await page.isVisible(quizOf('projections')), false);
  await page.check('[data-role=quiz-switch]');
  await page.waitForFunction(() => location.search.includes('quiz=1'));
  assert.ok(await page.isVisible(quizOf('projections')), 'projections asks before its first cell');
  await page.uncheck('[data-role=quiz-switch]');
  // a reader who stepped softmax to its end: with the exercises on it goes back before its question
  await goToLast(page, 'softmax');
  assert.equal(await position(page, 'softmax'), 'step 4 of 4');
  await page.check('[data-role=quiz-switch]');
  assert.equal(await position(page, 'softmax'), 'step 3 of 4');
  assert.ok(await page.isVisible(quizOf('softmax')));
  await page.uncheck('[data-role=quiz-switch]');
  assert.equal(await page.isVisible(quizOf('projections')), false);
  await page.closeAll();
});

test('a teacher\'s scene: <qkv-lab section="softmax" quiz> asks in the widget\'s shadow root', async () => {
  const page = await openBlog(env, {
    transform: (html) => html.replace('<qkv-lab id="second" section="softmax" lang="en"></qkv-lab>', '<qkv-lab id="second" section="softmax" lang="en" quiz></qkv-lab>'),
  });
  await page.locator('#second').scrollIntoViewIfNeeded();
  await waitForWidget(page, 'second');
  // it opens at its first step; ▶| walks on to the step before the answer, where its question asks
  for (let k = 0; k < 2; k++) await page.locator('#second .step-forward').click();
  const state = await page.evaluate(() => {
    const el = document.getElementById('second');
    const root = el.shadowRoot;
    const quiz = root.querySelector('[data-role=quiz]');
    return { quiz: el.quiz, shown: Boolean(quiz && !quiz.hidden), position: root.querySelector('.step-position').textContent };
  });
  assert.deepEqual(state, { quiz: true, shown: true, position: 'step 3 of 4' });
  // the property mirrors the attribute: off hides the question
  await page.evaluate(() => { document.getElementById('second').quiz = false; });
  await page.waitForFunction(() => document.getElementById('second').shadowRoot.querySelector('[data-role=quiz]').hidden);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('axe: no serious or critical issue in a question, a numeric one, and their feedback (en and zh, 1280 and 375)', async () => {
  const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
  for (const [lang, width] of [['en', 1280], ['zh', 375]]) {
    const page = await openPage(env, { query: `?quiz=1&lang=${lang}`, width });
    await forwardToQuestion(page, 'scores');
    await forwardToQuestion(page, 'softmax');   // it opens at its first step, before its question
    await page.click(`${quizOf('softmax')} [data-role=quiz-check]`);   // empty: the "type a number" line
    await page.waitForSelector(`${feedback('softmax')}[data-result="empty"]`);
    await page.click(`${quizOf('embedding')} [data-role=quiz-skip]`);
    await page.waitForSelector(`${feedback('embedding')}[data-result="skipped"]`);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run({ include: [...document.querySelectorAll('[data-role=quiz]:not([hidden])')].map((e) => [e]).concat([['[data-role=quiz-switch]']]) }, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
    });
    for (const v of violations) console.log(`${lang} ${width}: ${v.id} (${v.impact}) ${v.nodes.join(', ')}`);
    assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), [], `${lang} ${width}`);
    await page.closeAll();
  }
});

test('an open question\'s answer is not on screen before its step: symmetry\'s mirrored pair, multi-head\'s concatenation', async () => {
  const mirrored = async (page) => [(await row(page, 'symmetry', 'S', 0))[2], (await row(page, 'symmetry', 'S', 2))[0]];
  const mergeVisibility = (page) => page.$eval('#multihead .mh-merge', (el) => getComputedStyle(el).visibility);
  // without the exercises both are shown from the start
  const plain = await openPage(env, { query: '?lang=en' });
  assert.ok((await mirrored(plain)).every((x) => /\d/.test(x)), 'S[0][2] and S[2][0] are numbers without the quiz');
  assert.equal(await mergeVisibility(plain), 'visible');
  await plain.closeAll();

  const page = await openPage(env, { query: '?quiz=1&lang=en' });
  for (const id of ['symmetry', 'multihead']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await forwardToQuestion(page, id);
  }
  assert.deepEqual(await mirrored(page), ['·', '·'], 'the two cells the question asks about wait');
  assert.ok(/\d/.test((await row(page, 'symmetry', 'S', 0))[1]), 'the other cells are shown');
  assert.equal(await mergeVisibility(page), 'hidden', 'the concatenation (its width is the answer) waits');
  for (const id of ['symmetry', 'multihead']) {
    await page.click(`${quizOf(id)} [data-role=quiz-skip]`);
    await page.waitForSelector(`${feedback(id)}[data-result="skipped"]`);
  }
  // answered (skipped): shown at once, before the reader steps on
  const [x, y] = await mirrored(page);
  assert.ok(/\d/.test(x) && /\d/.test(y), `shown once answered (${x}, ${y})`);
  assert.equal(await mergeVisibility(page), 'visible');
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

// The writer's and generation's questions are asked once a run exists: a tiny GPT (1 layer,
// width 16, context 8), trained 25 steps, the schedule's end
const RUN = { glayers: 1, gheads: 2, gdim: 16, gctx: 8, glr: 0.003, gseed: 0, gsteps: 25 };

/** The writer's second sample, computed here: the same GPT trained in Node, its 8 poems counted. */
async function writerSampleAt25() {
  const qkv = await load({ gpt: true });
  const gpt = qkv.createGPT({ ...gptOptions({ get: (k) => RUN[k] }), text: QUATRAINS.poems });
  gpt.train();
  assert.equal(gpt.steps, RUN.gsteps);
  const poems = Array.from({ length: SAMPLE_POEMS }, (_, seed) => gpt.generate('', { temperature: SAMPLE_TEMPERATURE, seed }).text);
  gpt.dispose();
  return { poems, good: poems.filter(isWellFormedQuatrain).length };
}

test('writer: once the run has its second sample, the stepper holds before it; the count computed here is right, another wrong; the reveal shows it', async () => {
  const expected = await writerSampleAt25();
  for (const [given, result] of [[expected.good, 'right'], [expected.good + 1, 'wrong']]) {
    const page = await openPage(env, { query: `?${new URLSearchParams({ embed: 1, quiz: 1, section: 'writer', lang: 'en', ...RUN })}` });
    await page.locator('#writer').scrollIntoViewIfNeeded();
    await page.waitForSelector('#writer [data-role=samples] li');
    assert.equal(await page.isVisible(quizOf('writer')), false, 'no question before the run has a second sample');
    await page.click('#writer [data-role=play]');
    await page.waitForFunction(() => document.querySelector('#writer [data-role=status]').dataset.done === 'true', null, { timeout: 120000 });
    await page.waitForSelector(`${quizOf('writer')}:not([hidden])`);
    // the page trained the GPT trained here: its step-25 poem is the first computed here
    assert.equal(await page.textContent('#writer [data-role=samples] li[data-step="25"] .sample-poem'), expected.poems[0]);
    assert.equal(await position(page, 'writer'), 'sample 1 of 2', 'held on the first sample');
    assert.match(await page.textContent(`${quizOf('writer')} .quiz-prompt`), /^Of the 8 poems written at step 25, how many are well formed \(four lines of 5 characters/);
    // the answer is not on screen: the share line is the held sample's (step 0)
    assert.match(await page.textContent('#writer [data-role=share]'), /^Step 0: /);
    await page.click('#writer .step-forward');
    assert.equal(await position(page, 'writer'), 'sample 1 of 2', '▶| goes no further');

    await page.fill(`${quizOf('writer')} [data-role=quiz-input]`, String(given));
    await page.click(`${quizOf('writer')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('writer')}[data-result="${result}"]`);
    const text = await page.textContent(feedback('writer'));
    assert.match(text, result === 'right' ? /^Right/ : /^Not quite/);
    assert.ok(text.includes(`${expected.good} of them are well formed`), text);
    await page.click(`${quizOf('writer')} [data-role=quiz-reveal]`);
    assert.equal(await position(page, 'writer'), 'sample 2 of 2');
    assert.ok((await page.textContent('#writer .narration')).includes(`${expected.good} of the 8 poems of this sample have the form`));
    assert.ok((await page.textContent('#writer [data-role=share]')).startsWith(`Step 25: of 8 poems written at temperature ${SAMPLE_TEMPERATURE}, ${expected.good} `));
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('generate: the stepper holds before the second generated character; the K cache\'s length computed from the prompt is right, another wrong; the reveal shows that many rows', async () => {
  const prompt = '白日依山尽，';
  // the start token and the prompt fill the cache at the first character; one row more at the second
  const expected = 1 + Array.from(prompt).length + 1;
  for (const [given, result] of [[expected, 'right'], [expected - 1, 'wrong']]) {
    const page = await openPage(env, { query: `?${new URLSearchParams({ embed: 1, quiz: 1, section: 'generate', lang: 'en', ...RUN, gctx: 16, gprompt: prompt })}` });
    await page.locator('#generate').scrollIntoViewIfNeeded();
    await page.waitForSelector('#generate [data-role=distribution] tbody tr', { timeout: 60000 });
    const rows = () => page.getAttribute('#generate [data-role=cache]', 'data-rows');
    assert.equal(await rows(), String(expected - 1));
    await forwardToQuestion(page, 'generate');
    const held = await position(page, 'generate');
    assert.match(held, /^step 1 of /);
    assert.match(await page.textContent(`${quizOf('generate')} .quiz-prompt`), /how many rows will the K cache hold/);
    await page.fill(`${quizOf('generate')} [data-role=quiz-input]`, String(given));
    await page.click(`${quizOf('generate')} [data-role=quiz-check]`);
    await page.waitForSelector(`${feedback('generate')}[data-result="${result}"]`);
    const text = await page.textContent(feedback('generate'));
    assert.match(text, result === 'right' ? /^Right/ : /^Not quite/);
    assert.ok(text.includes(`fill ${expected - 1} rows`) && text.includes(`${expected} rows now`), text);
    await page.click(`${quizOf('generate')} [data-role=quiz-reveal]`);
    assert.notEqual(await position(page, 'generate'), held);
    await page.waitForFunction((n) => document.querySelector('#generate [data-role=cache]').dataset.rows === String(n), expected);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});
