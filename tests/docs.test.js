// docs.test.js: README.md and docs/*.md hold together, in Node, without a browser.
//   - Every generated part (between <!-- generated:NAME --> and <!-- /generated:NAME -->) is what
//     tools/docs-tables.mjs writes from the code and data now, and every generator has a place.
//   - Every relative link resolves: the file exists, and a #fragment names a heading of the page
//     it points at (GitHub's anchors).
//   - Every example marked runnable (```js run) runs as a module inside this repository, where
//     `qkv-lab` is the package itself; where the next block is ```text output, it prints exactly
//     that. (tests/package-consumer.test.js type-checks every js block against the packed package.)
// Needs ./build.sh (the examples load the WebAssembly).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DOCUMENTS, GENERATORS, ROOT, regenerate } from '../tools/docs-tables.mjs';

const read = (doc) => fs.readFileSync(path.join(ROOT, doc), 'utf8');

/** The fenced code blocks of a Markdown text: { info, body, line, start, end }. */
function fences(markdown) {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1].trim(), body: m[2], line: markdown.slice(0, m.index).split('\n').length,
    start: m.index, end: m.index + m[0].length,
  }));
}

/** The text outside code blocks (blocks blanked, so positions and line numbers stay). */
function prose(markdown) {
  let out = markdown;
  for (const f of fences(markdown)) out = out.slice(0, f.start) + out.slice(f.start, f.end).replace(/[^\n]/g, ' ') + out.slice(f.end);
  return out;
}

/** GitHub's anchor for a heading's text. */
function slug(heading) {
  return heading.trim().toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')      // a link: its text
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')    // punctuation and symbols go (backticks, <, :, …)
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown page, duplicates numbered as GitHub numbers them. */
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test('the docs\' generated parts are what tools/docs-tables.mjs writes now, and each generator has a place', () => {
  const used = new Set();
  for (const doc of DOCUMENTS) {
    const text = read(doc);
    const { text: fresh, names } = regenerate(text);
    names.forEach((n) => used.add(n));
    assert.equal(text, fresh, `${doc}: a generated part (${names.join(', ')}) is out of date: run node tools/docs-tables.mjs`);
  }
  assert.deepEqual([...used].sort(), Object.keys(GENERATORS).sort(), 'a generator no document uses, or a part no generator writes');
});

test('every relative link in README.md and docs/*.md resolves, #anchors included', () => {
  const problems = [];
  let checked = 0;
  for (const doc of [...DOCUMENTS, 'CHANGELOG.md']) {
    const text = prose(read(doc));
    for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue;  // https:, mailto:
      checked++;
      const [file, fragment] = target.split('#');
      const resolved = file ? path.join(path.dirname(path.join(ROOT, doc)), file) : path.join(ROOT, doc);
      const where = `${doc}:${text.slice(0, m.index).split('\n').length} → ${target}`;
      if (!fs.existsSync(resolved)) { problems.push(`${where}: no such file`); continue; }
      if (fragment !== undefined) {
        if (!resolved.endsWith('.md')) { problems.push(`${where}: an anchor into a file that is not Markdown`); continue; }
        if (!anchors(fs.readFileSync(resolved, 'utf8')).has(fragment)) problems.push(`${where}: no heading has this anchor`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 20, `${checked} links checked`);
});

test('the anchors this test computes are GitHub\'s', () => {
  assert.equal(slug('The `<qkv-lab>` widget: a section in a blog post'), 'the-qkv-lab-widget-a-section-in-a-blog-post');
  assert.equal(slug('The corpus (`web/corpus.js`)'), 'the-corpus-webcorpusjs');
  assert.equal(slug('iframe mode (platforms that strip `<script>`)'), 'iframe-mode-platforms-that-strip-script');
  assert.equal(slug('A GPT that writes: `createGPT`'), 'a-gpt-that-writes-creategpt');
  assert.deepEqual([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')], ['a', 'b', 'b-1']);
});

test('every runnable example runs, and prints the output shown after it', () => {
  const dir = path.join(ROOT, '.build', 'doc-examples');  // inside the package: `qkv-lab` resolves to it
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let ran = 0;
  try {
    for (const doc of DOCUMENTS) {
      const blocks = fences(read(doc));
      blocks.forEach((block, i) => {
        if (!/^js\b.*\brun\b/.test(block.info)) return;
        const file = path.join(dir, `${doc.replace(/[/.]/g, '-')}-line-${block.line}.mjs`);
        fs.writeFileSync(file, block.body);
        let stdout;
        try {
          stdout = execFileSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (error) {
          assert.fail(`${doc}:${block.line}: the example failed:\n${error.stderr}`);
        }
        ran++;
        const next = blocks[i + 1];
        if (next && next.info === 'text output') {
          assert.equal(stdout.trimEnd(), next.body.trimEnd(), `${doc}:${block.line}: what the example prints`);
        }
      });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(ran >= 4, `${ran} examples ran`);
});
