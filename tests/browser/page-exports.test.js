// The page's share and export actions, in every section's preamble:
// "Copy embed code" writes a <qkv-lab> tag (with the step's picture inside it as the fallback)
// and an iframe URL that reproduce what the reader sees, checked by pasting them into a fresh page
// and comparing the numbers shown; "Export this step" gives an SVG that parses, is made of real
// text (no <foreignObject>) and holds the step's numbers; the GIF of a step range decodes to one
// frame per step. Waits are on state (a download, an attribute), never on time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, ARTIFACTS, downloadBytes } from './harness.js';
import { openPage, goToStep, position } from './page-helpers.js';
import { waitForWidget } from './widget-helpers.js';
import { PAGE_SECTIONS } from '../../web/page/sections/index.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

/** What a reader sees of a section's step: its position, its narration and every table cell and bar value of its stage. */
function shown(section) {
  return {
    position: section.querySelector('.step-position').textContent,
    narration: section.querySelector('.narration').textContent,
    cells: [...section.querySelectorAll('.stage td, .stage .bar-value')].map((el) => el.textContent.trim()),
  };
}
const pageShown = (page, id) => page.evaluate(`(${shown})(document.getElementById(${JSON.stringify(id)}))`);
const widgetShown = (page, id) => page.evaluate(`(${shown})(document.getElementById(${JSON.stringify(id)}).shadowRoot.querySelector('.qkv-section'))`);

/** Clicks `selector` and returns the download it starts: { name, bytes }. */
async function downloaded(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: download.suggestedFilename(), bytes: await downloadBytes(download) };
}

test('every section of the page offers the three actions in its preamble', async () => {
  const page = await openPage(env, { query: '?lang=en' });
  const ids = await page.$$eval('.qkv-section[data-section]', (els) => els.filter((el) => el.querySelector('.section-tools:not([hidden]) .tool-embed')).map((el) => el.dataset.section));
  assert.deepEqual(ids, PAGE_SECTIONS.map((s) => s.id));
  // the GIF wherever there is a stepper to go through: all but the training run's own frame
  const gifs = await page.$$eval('.qkv-section[data-section]', (els) => els.filter((el) => el.querySelector('.section-tools .tool-gif')).map((el) => el.dataset.section));
  assert.deepEqual(gifs, ids.filter((id) => id !== 'training'));
  await page.closeAll();
});

test('a section that draws on a canvas exports a PNG at 2×: the training run at its step', async () => {
  const page = await openPage(env, { query: '?lang=en&section=training&step=30' });
  // the run replayed to step 30 (while replaying, the status already says "… of 30")
  await page.waitForSelector('#training[data-step="30"]:not([data-state="loading"]):not([data-state="replaying"])', { timeout: 60000 });
  const { name, bytes } = await downloaded(page, '#training .tool-export');
  assert.equal(name, 'qkv-lab-training-step-30.png');
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  const width = bytes.readUInt32BE(16);
  const laid = await page.evaluate(() => document.querySelector('#training .section-title').getBoundingClientRect().width);
  assert.ok(width >= 2 * laid, `${width} px wide: 2× the section's ${laid} px`);
  await page.click('#training .tool-embed');
  assert.match(await page.inputValue('#training .embed-code'), /<qkv-lab section="training" lang="en" step="30">/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('the copied embed code reproduces the view: the tag in a fresh post, and the iframe URL', async () => {
  const query = `?lang=en&seed=7&sentence=${encodeURIComponent('我 爱 猫 狗')}&scale=1&temp=2`;
  const page = await openPage(env, { query });
  await page.locator('#softmax').scrollIntoViewIfNeeded();
  await goToStep(page, 'softmax', 2);
  const before = await pageShown(page, 'softmax');
  assert.equal(before.position, 'step 3 of 5');
  await page.click('#softmax .tool-embed');
  await page.waitForFunction(() => document.querySelector('#softmax .embed-code').value.includes('</qkv-lab>'));
  const code = await page.inputValue('#softmax .embed-code');
  assert.match(code, /<qkv-lab section="softmax" lang="en" seed="7" sentence="我 爱 猫 狗" scale temp="2" step="3">/);
  assert.match(code, /<img src="qkv-lab-softmax-step-3\.svg" alt="[^"]*step 3 of 5[^"]*"/);
  assert.match(await page.textContent('#softmax .tool-status'), /qkv-lab-softmax-step-3\.svg/);

  // the picture the code names is the one "Export this step" gives
  const picture = await downloaded(page, '#softmax .tool-export');
  assert.equal(picture.name, 'qkv-lab-softmax-step-3.svg');

  // 1. the code as copied, pasted into a post of its own (the picture beside it): one figure
  const tag = code.replace('<qkv-lab ', '<qkv-lab id="pasted" ');
  const post = await newPage(env);
  const html = `<!doctype html><html><head><meta charset="utf-8"></head><body>${tag}</body></html>`;
  await post.route(env.url('dist/pasted.html'), (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html }));
  await post.route(env.url(`dist/${picture.name}`), (route) => route.fulfill({ status: 200, headers: { 'content-type': 'image/svg+xml' }, body: picture.bytes }));
  await post.goto(env.url('dist/pasted.html'));
  await waitForWidget(post, 'pasted');
  assert.deepEqual(await widgetShown(post, 'pasted'), before);
  assert.equal(await post.evaluate(() => document.querySelectorAll('qkv-lab, iframe').length), 1, 'one figure per paste');
  assert.deepEqual(post.problems(), []);
  await post.closeAll();

  // 2. the iframe's code (the other choice), alone, and its address opened as it is: the
  // section for the post's readers, without the author's tools unless the address asks (tools=1)
  await page.check('#softmax [data-embed-kind=iframe]');
  await page.waitForFunction(() => document.querySelector('#softmax .embed-code').value.startsWith('<iframe'));
  const iframeCode = await page.inputValue('#softmax .embed-code');
  assert.doesNotMatch(iframeCode, /<qkv-lab|<script/);
  const url = /<iframe src="([^"]+)"/.exec(iframeCode)[1].replace(/&amp;/g, '&');
  assert.ok(url.startsWith(env.url('index.html?embed=1&')), url);
  const frame = await newPage(env);
  await frame.goto(url);
  await frame.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await pageShown(frame, 'softmax'), before);
  const authorTools = (p) => p.evaluate(() => ['.section-tools', '.section-link'].map((sel) => [...document.querySelectorAll(`#softmax ${sel}`)].some((el) => el.getClientRects().length > 0)));
  assert.deepEqual(await authorTools(frame), [false, false], 'no Copy embed code, Export or # link for readers');
  assert.deepEqual([...page.problems(), ...frame.problems()], []);
  await frame.goto(`${url}&tools=1`);
  await frame.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(await authorTools(frame), [true, true], 'the author asked for them');
  await frame.closeAll();
  await page.closeAll();
});

test('sections with data of their own (block, scaling): the scene\'s step is the stepper\'s, opened from a link and written into the embed code', async () => {
  for (const [id, at] of [['block', 5], ['scaling', 2]]) {
    const page = await openPage(env, { query: `?lang=en&section=${id}&step=${at}` });
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await page.waitForFunction((sel) => /^step \d+ of \d+$/.test(document.querySelector(sel)?.textContent || ''), `#${id} .step-position`);
    assert.match(await position(page, id), new RegExp(`^step ${at} of \\d+$`), `${id} opens at its link's step`);
    await page.click(`#${id} .step-forward`);
    const now = at + 1;
    assert.match(await position(page, id), new RegExp(`^step ${now} of`));
    await page.click(`#${id} .tool-embed`);
    await page.waitForFunction((sel) => document.querySelector(sel).value.includes('</qkv-lab>'), `#${id} .embed-code`);
    const code = await page.inputValue(`#${id} .embed-code`);
    assert.match(code, new RegExp(`<qkv-lab section="${id}"[^>]* step="${now}"`), code);
    assert.match(code, new RegExp(`qkv-lab-${id}-step-${now}\\.svg`));
    assert.doesNotMatch(code, /training step/);
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  }
});

test('a step whose table is too wide for a picture exports the columns in view at a readable width, and says which', async () => {
  // the block at width 16 with 4 heads, its FFN step: a 64-column table (4,090 px laid out flat)
  const page = await openPage(env, { query: '?lang=en&section=block&bdim=16&bheads=4&step=9' });
  await page.waitForSelector('#block [data-matrix] td.cell', { state: 'attached' });
  const note = await page.$$eval('#block [data-role=matrix-scrolls]:not([hidden])', (els) => els.map((el) => el.dataset.pictureNote));
  assert.ok(note.length > 0, 'the page says a table scrolls');
  const { bytes } = await downloaded(page, '#block .tool-export');
  const svg = bytes.toString('utf8');
  const width = Number(/<svg [^>]*width="([\d.]+)"/.exec(svg)[1]);
  const sectionWidth = await page.$eval('#block', (el) => el.getBoundingClientRect().width);
  assert.ok(width <= Math.max(1100, sectionWidth) + 24, `the picture is ${width} px wide`);
  assert.match(svg, /Too wide for a picture: columns 1–\d+ of 64 shown/);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('"Export this step" gives a self-contained SVG of real text holding the step\'s numbers', async () => {
  const page = await openPage(env, { query: '?lang=en&section=softmax&step=3' });
  assert.equal(await position(page, 'softmax'), 'step 3 of 4');
  const { name, bytes } = await downloaded(page, '#softmax .tool-export');
  assert.equal(name, 'qkv-lab-softmax-step-3.svg');
  const svg = bytes.toString('utf8');
  const numbers = await page.$$eval('#softmax [data-matrix="A"] td.cell', (tds) => tds.map((td) => td.textContent.trim()).filter((t) => /\d/.test(t)));
  assert.ok(numbers.length >= 6, `the A table shows ${numbers}`);
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const xOf = (test) => Number([...doc.querySelectorAll('text')].find((t) => test(t.textContent))?.getAttribute('x'));
    return {
      titleX: xOf((t) => /Softmax/.test(t)),
      leftmost: Math.min(...[...doc.querySelectorAll('text, rect, line')].map((e) => Number(e.getAttribute('x') ?? e.getAttribute('x1'))).filter((x) => Number.isFinite(x) && x > 0)),
      error: doc.querySelector('parsererror')?.textContent || null,
      root: doc.documentElement.localName,
      foreign: doc.querySelectorAll('foreignObject').length,
      external: [...doc.querySelectorAll('[href]')].map((el) => el.getAttribute('href')).filter((href) => !href.startsWith('data:')),
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    };
  }, svg);
  // the title is not indented from the body: it starts at the picture's left edge, as the stage
  // does (the page's section number, a ::before, is not drawn and leaves no gap)
  assert.ok(parsed.titleX <= parsed.leftmost + 1, `title at x ${parsed.titleX}, the body from x ${parsed.leftmost}`);
  assert.equal(parsed.error, null);
  assert.equal(parsed.root, 'svg');
  assert.equal(parsed.foreign, 0, 'no <foreignObject>: feed readers do not draw it');
  assert.deepEqual(parsed.external, [], 'nothing loaded from elsewhere');
  for (const n of numbers) assert.ok(parsed.texts.includes(n), `${n} is not a <text> of the SVG`);
  assert.ok(parsed.texts.some((t) => /Softmax/.test(t)), 'the section title is in it');

  // rendered on its own, as a feed reader shows an <img>: drawn, the size it says
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, name), svg);
  const viewer = await newPage(env, { width: 1100, height: 1000 });
  await viewer.setContent(`<body style="margin:0;background:#888"><img id="i" src="data:image/svg+xml;base64,${bytes.toString('base64')}"></body>`);
  await viewer.waitForFunction(() => document.getElementById('i').complete);
  const img = await viewer.evaluate(() => ({ w: document.getElementById('i').naturalWidth, h: document.getElementById('i').naturalHeight }));
  assert.ok(img.w > 300 && img.h > 200, `the SVG draws at ${img.w}×${img.h}`);
  await viewer.locator('#i').screenshot({ path: path.join(ARTIFACTS, 'export-softmax-step-3.svg.png') });
  await viewer.closeAll();
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

/** The frames of a GIF, by walking its blocks (GIF89a): image descriptors, and whether it loops. */
function gifFrames(bytes) {
  assert.equal(bytes.subarray(0, 6).toString('latin1'), 'GIF89a');
  let at = 13;
  if (bytes[10] & 0x80) at += 3 * 2 ** ((bytes[10] & 7) + 1);
  const skipSubBlocks = () => { while (bytes[at] !== 0) at += bytes[at] + 1; at += 1; };
  let frames = 0;
  let loops = false;
  const sizes = [];
  for (;;) {
    const block = bytes[at++];
    if (block === 0x3b) break;
    if (block === 0x21) {
      const label = bytes[at++];
      if (label === 0xff && bytes.subarray(at + 1, at + 12).toString('latin1') === 'NETSCAPE2.0') loops = true;
      skipSubBlocks();
    } else if (block === 0x2c) {
      frames++;
      sizes.push([bytes.readUInt16LE(at + 4), bytes.readUInt16LE(at + 6)]);
      const flags = bytes[at + 8];
      at += 9;
      if (flags & 0x80) at += 3 * 2 ** ((flags & 7) + 1);
      at += 1;   // LZW minimum code size
      skipSubBlocks();
    } else {
      throw new Error(`not a GIF block: 0x${block.toString(16)} at ${at - 1}`);
    }
    assert.ok(at <= bytes.length, 'the GIF ends early');
  }
  return { frames, loops, sizes };
}

test('the GIF of a scene\'s range decodes to one frame per step, and loops', async () => {
  const page = await openPage(env, { query: '?lang=en&section=softmax&steps=2-4' });
  const { name, bytes } = await downloaded(page, '#softmax .tool-gif');
  assert.equal(name, 'qkv-lab-softmax-steps-2-4.gif');
  const gif = gifFrames(bytes);
  assert.equal(gif.frames, 3);
  assert.equal(gif.loops, true);
  assert.equal(new Set(gif.sizes.map((s) => s.join('×'))).size, 1, `every frame the same size: ${gif.sizes}`);
  // and the browser's own decoder agrees
  const decoded = await page.evaluate(async (b64) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const decoder = new ImageDecoder({ data, type: 'image/gif' });
    await decoder.tracks.ready;
    const count = decoder.tracks.selectedTrack.frameCount;
    const last = await decoder.decode({ frameIndex: count - 1 });
    return { count, width: last.image.displayWidth };
  }, bytes.toString('base64'));
  assert.deepEqual(decoded, { count: 3, width: gif.sizes[0][0] });
  // the stepper is back where the reader left it
  assert.equal(await position(page, 'softmax'), 'step 2 of 4');
  fs.writeFileSync(path.join(ARTIFACTS, name), bytes);
  console.log(`# ${name}: ${gif.frames} frames ${gif.sizes[0].join('×')}, ${(bytes.length / 1024).toFixed(1)} KiB`);
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
