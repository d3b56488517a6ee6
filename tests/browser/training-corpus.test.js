// training-corpus.test.js: the open corpus in the training section. The decisive experiment is one
// click; an edit retrains on the reader's sentences and goes into the link; bad input (empty, too
// many sentences, too many words, the reserved <s>, a megabyte string, markup) gets a clear inline
// message, loses nothing and leaves the run as it was; a one-word line trains with a warning; a
// corpus too long for a link trains but says it is not in the link; corpus.txt downloads what is
// trained. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openBrowser, downloadBytes } from './harness.js';
import { openTraining, readState, referenceRun, settled } from './training-helpers.js';
import { CORPUS_PRESETS, CORPUS_LIMITS } from '../../web/corpus.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const vocabOf = (section) => section.locator('datalist option').evaluateAll((os) => os.map((o) => o.value));

test('the decisive experiment is one click: 汽车 in the animals\' contexts, trained from step 0', async () => {
  const { page, section } = await openTraining(env);
  const summary = section.locator('[data-role="corpus-summary"]');
  assert.match(await summary.textContent(), new RegExp(`^The corpus: \\d+ sentences, \\d+ words \\(${CORPUS_PRESETS[0].name.en}\\)$`));
  assert.equal(await section.locator('details[data-role="corpus"]').getAttribute('open'), null, 'collapsed at first');
  await section.locator('button[data-role="step"]').click();
  await section.locator('button[data-role="corpus-car"]').click();
  await settled(page);
  const preset = CORPUS_PRESETS.find((p) => p.id === 'car-with-animals');
  assert.equal(new URL(page.url()).searchParams.get('corpus'), 'car-with-animals');
  assert.match(await summary.textContent(), new RegExp(`^The corpus: ${preset.sentences.length} sentences`));
  assert.equal((await readState(section)).step, 0);
  // train a while: the page shows what the model computes on that corpus
  for (let i = 0; i < 5; i++) await section.locator('button[data-role="step"]').click();
  const s = await readState(section);
  const { steps, model } = await referenceRun('corpus=car-with-animals', 5);
  assert.equal(s.loss, steps[4].loss);
  assert.match(s.text, new RegExp(`cos\\(猫, 汽车\\) = ${model.similarity('猫', '汽车').toFixed(3)}`));
  model.dispose();
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('an edit retrains on the reader\'s sentences, goes into the link, and a link brings it back', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  const editor = section.locator('textarea[data-role="corpus-text"]');
  const text = '一只 猫 在 叫\n一只 狗 在 叫\n一只 恐龙 在 叫\n我 养 了 一只 恐龙';
  await editor.fill(text);
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  assert.deepEqual(await vocabOf(section), ['一只', '猫', '在', '叫', '狗', '恐龙', '我', '养', '了']);
  assert.match(await section.locator('[data-role="corpus-problems"]').textContent(), /^Training on the new corpus: 4 sentences, 9 words, from step 0\.$/);
  assert.match(await section.locator('[data-role="corpus-summary"]').textContent(), /4 sentences, 9 words \(your own\)/);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('corpus'), text);
  await section.locator('input[data-role="nearest-word"]').fill('恐龙');
  assert.equal(await section.locator('[data-role="nearest-results"] li').count(), 5);
  await page.closeAll();

  const b = await openTraining(env, { query: `corpus=${encodeURIComponent(text)}&step=3` });
  assert.deepEqual(await vocabOf(b.section), ['一只', '猫', '在', '叫', '狗', '恐龙', '我', '养', '了']);
  const { steps } = await referenceRun(`corpus=${encodeURIComponent(text)}`, 3);
  assert.equal((await readState(b.section)).loss, steps[2].loss);
  assert.deepEqual(b.page.problems(), []);
  await b.page.closeAll();
});

test('bad input gets a clear message, keeps the reader\'s text, and leaves the run as it was', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  await section.locator('button[data-role="step"]').click();
  const before = await readState(section);
  const beforeVocab = await vocabOf(section);
  const editor = section.locator('textarea[data-role="corpus-text"]');
  const problems = section.locator('[data-role="corpus-problems"]');
  const many = Array.from({ length: CORPUS_LIMITS.maxSentences + 20 }, (_, i) => `第 ${i} 句 话`).join('\n');
  const cases = [
    ['', /The corpus is empty/],
    ['一只 猫 在 叫\n<s> 在 叫', /line 2: contains <s>, which marks the sentence boundary/],
    [many, new RegExp(`line ${CORPUS_LIMITS.maxSentences + 1}: this is sentence ${CORPUS_LIMITS.maxSentences + 1}: at most ${CORPUS_LIMITS.maxSentences} sentences`)],
    ['<img src=x onerror=window.__pwned=1> 在 叫\n一只 <b>猫</b> 在 叫', /line 1: looks like markup \(< or >\).*line 2: looks like markup/],
    [Array.from({ length: CORPUS_LIMITS.maxTokensPerSentence + 3 }, () => '猫').join(' '), /line 1: too many words/],
  ];
  for (const [text, message] of cases) {
    await editor.fill(text);
    await section.locator('button[data-role="corpus-apply"]').click();
    assert.match(await problems.textContent(), /^Not trained: (1 problem|\d+ problems)\. Your text is still in the editor; the run keeps the corpus it had\./);
    assert.match(await problems.textContent(), message);
    assert.equal(await editor.inputValue(), text, 'the text is kept');
    assert.equal(await editor.getAttribute('aria-invalid'), 'true');
  }
  assert.equal(await section.locator('img, b').count(), 0, 'typed markup never becomes elements');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // a megabyte string: refused by its length, before anything is split or trained
  await editor.evaluate((el) => { el.value = '猫'.repeat(1 << 20); el.dispatchEvent(new Event('input', { bubbles: true })); });
  await section.locator('button[data-role="corpus-apply"]').click();
  assert.match(await problems.textContent(), new RegExp(`Too long: ${1 << 20} characters, at most ${CORPUS_LIMITS.maxChars}\\.`));
  assert.equal(await editor.evaluate((el) => el.value.length), 1 << 20);
  const after = await readState(section);
  assert.equal(after.step, before.step, 'the run went on untouched');
  assert.equal(after.loss, before.loss);
  assert.deepEqual(await vocabOf(section), beforeVocab);
  assert.equal(new URL(page.url()).searchParams.get('corpus'), null);
  // undo puts the run's corpus back in the editor
  await section.locator('button[data-role="corpus-revert"]').click();
  assert.match(await editor.inputValue(), /^一只 猫 在 叫\n/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('a one-word line trains with a warning; markup never becomes HTML; a corpus too long for a link trains and says so; corpus.txt is what is trained', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  const editor = section.locator('textarea[data-role="corpus-text"]');
  await editor.fill('一只 猫 在 叫\n猫\n\n一只 猫 在 叫');
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  const said = await section.locator('[data-role="corpus-problems"]').textContent();
  assert.match(said, /^Training on the new corpus: 3 sentences, 4 words, from step 0\.Worth knowing \(it trained all the same\): line 2: one word only.*line 3: repeats an earlier line/);
  assert.equal(await editor.inputValue(), '一只 猫 在 叫\n猫\n一只 猫 在 叫', 'blank lines dropped, as trained');
  assert.equal(await section.locator('img, b').count(), 0, 'typed markup never becomes elements');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  const long = Array.from({ length: 90 }, (_, i) => `我 养 了 ${i} 只 猫`).join('\n');
  await editor.fill(long);
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  assert.match(await section.locator('[data-role="corpus-summary"]').textContent(), /^The corpus: 90 sentences/);
  assert.equal(new URL(page.url()).searchParams.get('corpus'), null, 'not in the link');
  assert.match(await section.locator('[data-role="corpus-link"]').textContent(), new RegExp(`^This corpus has ${long.length} characters, more than a link carries \\(1000\\)`));
  assert.match(await section.locator('[data-role="notice"]').textContent(), /more than a link carries/);
  const [download] = await Promise.all([page.waitForEvent('download'), section.locator('button[data-export="corpus-file"]').click()]);
  assert.equal(download.suggestedFilename(), 'corpus.txt');
  assert.equal((await downloadBytes(download)).toString('utf8'), `${long}\n`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
