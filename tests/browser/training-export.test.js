// training-export.test.js: the training section's downloads. vectors.tsv + metadata.tsv in the TensorFlow
// Embedding Projector's format (one row per word, dim tab-separated finite numbers, no header;
// one word per line, no header for a single column), equal to the model's table; and each chart
// as a PNG. Run after ./build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openBrowser, downloadBytes } from './harness.js';
import { openTraining, referenceRun } from './training-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env?.close(); });

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: download.suggestedFilename(), bytes: await downloadBytes(download) };
}

test('vectors.tsv and metadata.tsv: well-formed, one line per word, and the model\'s table', async () => {
  const n = 25;
  const { page, section } = await openTraining(env, { query: `step=${n}` });
  const vectors = await downloadText(page, section.locator('[data-export="vectors"]'));
  const metadata = await downloadText(page, section.locator('[data-export="metadata"]'));
  assert.equal(vectors.name, 'vectors.tsv');
  assert.equal(metadata.name, 'metadata.tsv');

  const { model } = await referenceRun('', n);
  const table = model.embeddings();
  const vLines = vectors.bytes.toString('utf8').replace(/\n$/, '').split('\n');
  const mLines = metadata.bytes.toString('utf8').replace(/\n$/, '').split('\n');
  assert.equal(vLines.length, model.vocab.length, 'one vector line per word');
  assert.equal(mLines.length, model.vocab.length, 'one metadata line per word, no header');
  assert.deepEqual(mLines, [...model.vocab]);
  vLines.forEach((line, i) => {
    const cells = line.split('\t');
    assert.equal(cells.length, model.dim, `line ${i + 1}: ${model.dim} columns`);
    cells.forEach((c, j) => {
      const v = Number(c);
      assert.ok(c !== '' && Number.isFinite(v), `line ${i + 1} column ${j + 1}: ${c}`);
      assert.ok(Math.abs(v - table.data[i * table.cols + j]) <= 1e-6 * Math.max(1, Math.abs(v)),
        `line ${i + 1} column ${j + 1}: ${v} vs ${table.data[i * table.cols + j]}`);
    });
  });
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});

test('each chart exports as a PNG of its canvas size', async () => {
  const { page, section } = await openTraining(env, { query: 'step=40' });
  for (const [role, name, chart] of [['loss-png', 'qkv-lab-loss.png', 'loss'],
    ['similarity-png', 'qkv-lab-similarity.png', 'similarity'], ['scatter-png', 'qkv-lab-embeddings-pca.png', 'scatter']]) {
    const file = await downloadText(page, section.locator(`[data-export="${role}"]`));
    assert.equal(file.name, name);
    assert.deepEqual([...file.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${name} is a PNG`);
    const width = file.bytes.readUInt32BE(16), height = file.bytes.readUInt32BE(20);
    const canvas = await section.locator(`canvas[data-chart="${chart}"]`).evaluate((c) => [c.width, c.height]);
    assert.deepEqual([width, height], canvas);
    assert.ok(file.bytes.length > 2000, `${name}: ${file.bytes.length} bytes, not blank`);
  }
  assert.deepEqual(page.problems(), []);
  await page.closeAll();
});
