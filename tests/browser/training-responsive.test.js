// training-responsive.test.js: the training section keeps answering the reader while it takes in
// the largest corpus it accepts (300 sentences × 32 words, 9,000 distinct words,
// bench/page.mjs bigCorpus()). Nothing here times anything (how long the page blocks is the
// benchmark's, bench/page.mjs inputLongTasks): a click sent right behind the Apply click must be
// handled while the section is still taking the corpus in (data-state "loading", the old rows on
// screen), not after all of it. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './harness.js';
import { openTraining, readState, settled, SECTION } from './training-helpers.js';
import { bigCorpus, pasteDone } from '../../tools/browser.mjs';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

/** The centre of an element in viewport pixels (CDP's mouse events take those). */
async function centre(locator) {
  const box = await locator.boundingBox();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

test('a click sent right after Apply on the 9,000-word corpus is handled while the section is still taking it in', async () => {
  // tall enough that Apply and the run's stage (above it: it does not move when the notices appear) are on screen together
  const { page, section } = await openTraining(env, { height: 2000 });
  await section.locator('[data-role="corpus-summary"]').click();
  await section.locator('textarea[data-role="corpus-text"]').fill(bigCorpus());
  const apply = section.locator('button[data-role="corpus-apply"]');
  const stage = section.locator('.tr-stage');
  await apply.scrollIntoViewIfNeeded();
  const at = { apply: await centre(apply), stage: await centre(stage) };
  const inView = await page.evaluate(({ apply, stage }) => [apply, stage].every((p) => p.y > 0 && p.y < innerHeight), at);
  assert.ok(inView, 'both controls on screen');
  const firstRow = () => section.locator('.heat-row[data-row="1"]').getAttribute('data-word');
  const oldWord = await firstRow();
  // what the page was doing when it handled the second click: recorded by the page itself
  await page.evaluate((sel) => {
    const el = document.querySelector(sel);
    window.__handled = [];
    el.querySelector('.tr-stage').addEventListener('pointerdown', () => {
      window.__handled.push({ state: el.dataset.state, row: el.querySelector('.heat-row[data-row="1"]').dataset.word });
    });
  }, SECTION);
  // both clicks as real input, sent back to back: the second reaches the page while the first's
  // work is under way, and the page handles it as soon as it gets the thread back
  const cdp = await page.context().newCDPSession(page);
  const click = (p) => [
    cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: p.x, y: p.y, button: 'left', clickCount: 1 }),
    cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: p.x, y: p.y, button: 'left', clickCount: 1 }),
  ];
  await Promise.all([...click(at.apply), ...click(at.stage)]);
  await page.waitForFunction(() => window.__handled.length > 0);
  const [handled] = await page.evaluate(() => window.__handled);
  assert.equal(handled.state, 'loading', 'the click on the stage was handled before the new run was drawn');
  assert.equal(handled.row, oldWord, 'the heat map still showed the corpus before');
  // and the section does take the corpus in: the new run, its rows, and the box answers for its words
  await settled(page);
  const state = await readState(section);
  assert.equal(state.state, 'paused');
  assert.equal(state.step, 0);
  assert.equal(await firstRow(), '一');
  assert.equal(await stage.evaluate((el) => el === el.getRootNode().activeElement), true, 'the clicked stage has the focus (its keys work)');
  await section.locator('input[data-role="nearest-word"]').fill('丁');
  await section.locator('[data-role="nearest-results"] li').first().waitFor();
  assert.equal(await section.locator('[data-role="nearest-results"] li').count(), 5);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the 9,000-word corpus pasted goes into the editor a piece a frame, Apply waits for it, and one Ctrl+Z takes it out', async () => {
  const { page, section } = await openTraining(env);
  await section.locator('[data-role="corpus-summary"]').click();
  const editor = section.locator('textarea[data-role="corpus-text"]');
  const apply = section.locator('button[data-role="corpus-apply"]');
  const before = await editor.inputValue();
  const text = bigCorpus();
  // what the page saw while the text went in, recorded by the page itself: each input event's
  // frame, the editor's length, and whether Apply could be pressed
  await editor.evaluate((el) => {
    window.__inputs = [];
    let frame = 0;
    const count = () => { frame++; requestAnimationFrame(count); };
    requestAnimationFrame(count);
    const button = el.closest('section').querySelector('button[data-role="corpus-apply"]');
    el.addEventListener('input', () => window.__inputs.push({ frame, length: el.value.length, applyDisabled: button.disabled, pasting: el.dataset.pasting === 'true' }));
  });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await editor.selectText();   // the paste replaces the editor's text, as a reader's would
  await page.keyboard.press('Control+V');
  await pasteDone(editor);
  assert.equal(await editor.inputValue(), text, 'all of it went in, in order');
  const inputs = await page.evaluate(() => window.__inputs);
  // (a piece's line breaks may each fire an input event of their own: pieces are counted by frames)
  const frames = new Set(inputs.map((i) => i.frame)).size;
  assert.ok(frames >= 20, `the text went in over ${frames} frames (${text.length} characters)`);
  assert.ok(inputs.every((i, k) => k === 0 || i.frame >= inputs[k - 1].frame), 'in order');
  assert.ok(inputs.every((i, k) => k === 0 || i.length >= inputs[k - 1].length), 'the text only grows');
  assert.ok(inputs.slice(0, -1).every((i) => i.applyDisabled && i.pasting), 'Apply waits while pieces are left');
  assert.equal(await apply.isEnabled(), true, 'and can be pressed once the last is in');
  // the pieces are one edit to undo
  await editor.focus();
  await page.keyboard.press('Control+Z');
  assert.equal(await editor.inputValue(), before, 'one Ctrl+Z gives back the text before the paste');
  // a short paste is the browser's own (one input event)
  await page.evaluate(() => { window.__inputs = []; return navigator.clipboard.writeText('猫 在 睡觉\n'); });
  await page.keyboard.press('Control+V');
  await page.waitForFunction(() => window.__inputs.length > 0);
  assert.equal((await page.evaluate(() => window.__inputs)).length, 1);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
