// training-counting.test.js: the training section's card on counting alone, read as a reader
// sees it, in English and Chinese. The run's column must be the run's own table measured at its
// step (the same run trained in Node), the two counting columns what training/counting.js
// computes for the corpus in use, the seeds column and the finding claims.js's numbers; on
// another corpus or other settings the 30-seed ranges are left out and the card says why.
// The analogy card's A + C alone is the same run's table too.
// Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openTraining, referenceRun, badNumbers, settled } from './training-helpers.js';
import { TRAINING_CLAIMS as CLAIMS } from '../../web/page/training/claims.js';
import { countingOf, measureGeometry, tableGeometry, COUNTING_LIMITS } from '../../web/page/training/counting.js';
import { CORPUS_PRESETS, DEFAULT_CORPUS, TRAINING_DEFAULTS } from '../../web/corpus.js';
import { fmt } from '../../web/page/shell/dom.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

const CARD = '[data-role="counting"]';

/** The card's table as { measure: { column: text } }, its column heads, and its paragraphs. */
function readCard(section) {
  return section.locator(CARD).evaluate((card) => ({
    heads: [...card.querySelectorAll('thead th')].map((th) => th.textContent),
    cells: Object.fromEntries([...card.querySelectorAll('tbody tr')].map((tr) => [tr.dataset.measure,
      Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.column, td.textContent]))])),
    now: card.querySelector('[data-role="counting-now"]').hidden ? null : card.querySelector('[data-role="counting-now"]').textContent,
    notes: [...card.querySelectorAll('[data-role="counting-notes"] p')].map((p) => p.textContent),
    finding: card.querySelector('[data-role="counting-finding"]').hidden ? null : card.querySelector('[data-role="counting-finding"]').textContent,
    analogy: card.querySelector('[data-role="counting-analogy"]').hidden ? null : card.querySelector('[data-role="counting-analogy"]').textContent,
    text: card.innerText,
  }));
}

const EN_BOOL = { true: 'yes', false: 'no' };
const ZH_BOOL = { true: '是', false: '否' };

/** The numeric and yes/no cells a column must show for a table of measures. */
function expectedColumn(m, bool) {
  return { catDog: fmt(m.catDog), catCar: fmt(m.catCar), gap: fmt(m.groupGap), strict: bool[m.animalsApart] };
}

const pick = (cells, column) => Object.fromEntries(['catDog', 'catCar', 'gap', 'strict'].map((k) => [k, cells[k][column]]));

test('default corpus, step 300: the run\'s own measures beside both counts and the 30-seed ranges, with the finding, in English and Chinese', async () => {
  const { page, section } = await openTraining(env, { query: 'step=300', alone: false });   // the page's language button
  const ref = await referenceRun('', 300);
  const mine = measureGeometry(tableGeometry(ref.model.vocab, ref.model.embeddings()));
  const sum = tableGeometry(ref.model.vocab, ref.model.embeddings()).sum('男人', '国王', '女人').slice(0, 3);
  ref.model.dispose();
  const base = countingOf(DEFAULT_CORPUS);
  const { ranges: R, counts: C, seeds: S } = CLAIMS;
  const range = (r) => `${r.min.toFixed(2)} to ${r.max.toFixed(2)}, median ${r.median.toFixed(2)}`;
  const of = (c) => `${c.count} of ${c.of} seeds`;

  const en = await readCard(section);
  assert.deepEqual(en.heads, ['measure', 'this run (step 300)', 'next-word counts', 'PPMI-SVD',
    `training, seeds ${S.from}–${S.to}, step ${CLAIMS.checkpoints.end} (default corpus and settings)`]);
  assert.deepEqual(pick(en.cells, 'run'), expectedColumn(mine, EN_BOOL));
  assert.deepEqual(pick(en.cells, 'next-word'), expectedColumn(base.nextWord, EN_BOOL));
  assert.deepEqual(pick(en.cells, 'ppmi'), expectedColumn(base.ppmi, EN_BOOL));
  assert.deepEqual(pick(en.cells, 'seeds'), { catDog: range(R.catDog.end), catCar: range(R.catCar.end), gap: range(R.groupGap.end), strict: of(C.animalsApart.end) });
  assert.equal(en.cells.analogy.seeds, `女王 (queen) on ${of(C.analogyQueen.end)}`);
  assert.equal(en.cells.sum.seeds, `女王 (queen) on ${of(C.sumQueen.end)}`);
  // PPMI-SVD's 国王 + 女人 alone puts another word first and says where 女王 is
  assert.match(en.cells.sum.ppmi, new RegExp(`^${base.ppmi.sumTop} \\(.*\\), with 女王 at number ${base.ppmi.sumRank}$`));
  assert.match(en.cells.sum.run, new RegExp(`^${mine.sumTop}`));
  assert.match(en.cells.analogy.run, new RegExp(`^${mine.analogyTop}`));
  // the run against both counts on cos(猫, 汽车), its own number
  const below = mine.catCar < Math.min(base.nextWord.catCar, base.ppmi.catCar);
  assert.equal(en.now, `At step 300, this run has cos(猫, 汽车) = ${fmt(mine.catCar)}, ${below ? '' : 'not '}below both counts (${fmt(base.nextWord.catCar)} and ${fmt(base.ppmi.catCar)}).`);
  // the finding: every count is claims.js's
  assert.ok(en.finding, 'the finding is shown on the default corpus');
  assert.match(en.finding, /^Counting alone, with no training, already gives the headline results\./);
  assert.match(en.finding, new RegExp(`training does worse: it passes on ${of(C.animalsApart.end)}\\.`));
  assert.match(en.finding, new RegExp(`less alike than both counts do, on ${of(C.catDogBelowCounting.end)}\\.`));
  assert.match(en.finding, new RegExp(`lower than under either count on ${of(C.catCarBelowCounting.end)}\\.`));
  assert.match(en.finding, new RegExp(`above both counts on ${of(C.groupGapAboveCounting.end)} only`));
  assert.match(en.analogy, new RegExp(`gives 女王 first on ${of(C.sumQueen.end)}, against ${of(C.analogyQueen.end)} for 国王 − 男人 \\+ 女人`));
  assert.deepEqual(en.notes, []);
  assert.match(en.text, new RegExp(`keeps at most ${TRAINING_DEFAULTS.dim} dimensions with an SVD`));
  assert.deepEqual(badNumbers(en.text), []);

  // the analogy card: 国王 + 女人 alone, the same run's table at this step
  const sumWords = await section.locator('[data-role="sum-results"] li').evaluateAll((ls) => ls.map((l) => l.dataset.word));
  assert.deepEqual(sumWords, sum.map((x) => x.word));
  const verdict = await section.locator('[data-role="sum-verdict"]').textContent();
  assert.match(verdict, sum[0].word === mine.analogyTop ? /comes first too/ : /is what puts .* first/);

  await page.click('.lang-btn[data-lang="zh"]');
  const zh = await readCard(section);
  const zof = (c) => `${c.count} / ${c.of} 个种子`;
  assert.deepEqual(zh.heads, ['量', '这次训练（第 300 步）', '下一个词的计数', 'PPMI-SVD', `训练：种子 ${S.from}–${S.to}，第 ${CLAIMS.checkpoints.end} 步（默认语料和设置）`]);
  assert.deepEqual(pick(zh.cells, 'run'), expectedColumn(mine, ZH_BOOL));
  assert.deepEqual(pick(zh.cells, 'ppmi'), expectedColumn(base.ppmi, ZH_BOOL));
  assert.equal(zh.cells.strict.seeds, zof(C.animalsApart.end));
  assert.equal(zh.cells.sum.seeds, `女王：${zof(C.sumQueen.end)}`);
  assert.match(zh.text, new RegExp(`再用 SVD 最多留 ${TRAINING_DEFAULTS.dim} 维。每一列都用同一套量法`));
  assert.match(zh.finding, /^主要的几个结果，完全不训练、只数数就已经都有了/);
  assert.match(zh.finding, new RegExp(`只在 ${zof(C.animalsApart.end)} 上通过`));
  assert.match(zh.finding, new RegExp(`在 ${zof(C.catDogBelowCounting.end)} 上，cos\\(猫, 狗\\) 比两种计数都低`));
  assert.match(zh.finding, new RegExp(`cos\\(猫, 汽车\\) 比两种计数都低，${zof(C.catCarBelowCounting.end)}`));
  assert.match(zh.finding, new RegExp(`只有 ${zof(C.groupGapAboveCounting.end)}`));
  assert.match(zh.analogy, new RegExp(`第一名是 女王 的有 ${zof(C.sumQueen.end)}；国王 − 男人 \\+ 女人 是 ${zof(C.analogyQueen.end)}`));
  assert.match(zh.now, new RegExp(`^第 300 步，这次训练的 cos\\(猫, 汽车\\) 是 ${fmt(mine.catCar)}，${below ? '' : '没有'}比两种计数`));
  assert.deepEqual(badNumbers(zh.text), []);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('on another corpus or with other settings the 30-seed ranges are left out, and the card says why; the counts are the corpus\'s own', async () => {
  const car = CORPUS_PRESETS.find((p) => p.id === 'car-with-animals');
  const { page, section } = await openTraining(env, { query: 'corpus=car-with-animals', alone: false });   // the page's language button
  const card = await readCard(section);
  assert.equal(card.heads.length, 4, 'no seeds column');
  assert.equal(card.heads[1], 'this run (step 0)');
  assert.deepEqual(pick(card.cells, 'next-word'), expectedColumn(countingOf(car.sentences).nextWord, EN_BOOL));
  assert.deepEqual(pick(card.cells, 'ppmi'), expectedColumn(countingOf(car.sentences).ppmi, EN_BOOL));
  assert.ok(Object.values(card.cells).every((row) => !('seeds' in row)));
  assert.deepEqual(card.notes, ['The 30-seed ranges were measured on the default corpus with the default settings. This run uses another corpus, so the table leaves them out and shows only what is computed here. To see this corpus and these settings over 30 seeds, use “Train seeds 0–29” below.']);
  // the finding stays, and says it is about the default corpus
  assert.match(await section.locator(`${CARD} .tr-finding-title`).textContent(), /^The finding \(default corpus, default settings/);
  await page.click('.lang-btn[data-lang="zh"]');
  assert.match((await readCard(section)).notes[0], /^30 个种子的范围是在默认语料、默认设置下测的；这次训练用的是另一份语料，所以表里不列这些范围/);
  await page.closeAll();

  const other = await openTraining(env, { query: 'lr=0.1' });
  const o = await readCard(other.section);
  assert.equal(o.heads.length, 4);
  assert.match(o.notes[0], /This run uses other settings, so the table leaves them out/);
  await other.page.closeAll();
});

test('a corpus without the animals or 国王: dashes and a note, never NaN; the card follows a corpus applied in the editor', async () => {
  const { page, section } = await openTraining(env, { query: `corpus=${encodeURIComponent('一只 猫 在 叫\n一只 狗 在 叫\n我 养 了 一只 猫')}` });
  const card = await readCard(section);
  assert.equal(card.cells.catCar['next-word'], '—');
  assert.equal(card.cells.analogy.run, '—');
  assert.equal(card.cells.catDog['next-word'], fmt(countingOf(['一只 猫 在 叫', '一只 狗 在 叫', '我 养 了 一只 猫']).nextWord.catDog));
  assert.ok(card.notes.includes('“—”: this corpus lacks a word the measure needs.'));
  assert.equal(card.now, null, 'no cos(猫, 汽车) to compare');
  assert.deepEqual(badNumbers(card.text), []);
  // the default corpus again, through the editor's preset: the seeds column comes back
  await section.locator('[data-role="corpus-summary"]').click();
  await section.locator('textarea[data-role="corpus-text"]').fill(DEFAULT_CORPUS.join('\n'));
  await section.locator('button[data-role="corpus-apply"]').click();
  await settled(page);
  const back = await readCard(section);
  assert.equal(back.heads.length, 5);
  assert.deepEqual(back.notes, []);
  assert.deepEqual(pick(back.cells, 'next-word'), expectedColumn(countingOf(DEFAULT_CORPUS).nextWord, EN_BOOL));
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('past the size PPMI-SVD is computed for, its column is dashes and the card says why', async () => {
  // 4 sentences of 30 new words each: 121 words with <s>, past COUNTING_LIMITS.ppmi
  const corpus = Array.from({ length: 4 }, (_, s) => Array.from({ length: 30 }, (_, k) => `w${s * 30 + k}`).join(' ')).join('\n');
  const { words, ppmi } = countingOf(corpus.split('\n'));
  assert.equal(ppmi, null);
  const { page, section } = await openTraining(env, { query: `corpus=${encodeURIComponent(corpus)}` });
  const card = await readCard(section);
  assert.ok(Object.values(card.cells).every((row) => row.ppmi === '—'));
  assert.ok(card.notes.includes(`PPMI-SVD is left out here: it is computed only for vocabularies of at most ${COUNTING_LIMITS.ppmi} words, and this corpus has ${words}.`), card.notes.join('\n'));
  assert.deepEqual(badNumbers(card.text), []);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
