// svg-escape.test.js: the exported SVG's text (web/page/export/svg-step.js esc) is XML whatever
// the reader typed: every UTF-16 code unit alone and beside a surrogate half goes through esc(),
// and what comes out holds only characters XML 1.0 allows (its Char production), with the markup
// characters escaped and the rest (a pair that makes one character, 𠀀) kept as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { esc } from '../web/page/export/svg-step.js';

// XML 1.0, production [2] Char, over whole code points (the u flag: a lone half is its own code point)
const XML_CHAR = /^[\t\n\r\u{20}-\u{D7FF}\u{E000}-\u{FFFD}\u{10000}-\u{10FFFF}]*$/u;

test('esc() gives XML text for every code unit, alone and beside either surrogate half', () => {
  const bad = [];
  for (let u = 0; u <= 0xffff; u++) {
    const c = String.fromCharCode(u);
    for (const text of [c, `a${c}b`, `\uD840${c}`, `${c}\uDC00`]) {
      const out = esc(text);
      if (!XML_CHAR.test(out) || /[<>"]|&(?!(amp|lt|gt|quot);)/.test(out)) bad.push(text);
    }
  }
  assert.deepEqual(bad.slice(0, 5).map((t) => [...t].map((c) => c.codePointAt(0).toString(16))), []);
});

test('esc() keeps what XML allows: markup escaped, a surrogate pair whole, tab and line feed', () => {
  assert.equal(esc('白日<依>"山"&尽\t\n'), '白日&lt;依&gt;&quot;山&quot;&amp;尽\t\n');
  assert.equal(esc('\u{20000}'), '\u{20000}');
  assert.equal(esc('a\u0007b\u000cc'), 'abc', 'a bell and a form feed are dropped');
  assert.equal(esc('a\uD800b'), 'a\uFFFDb', 'a lone half becomes U+FFFD');
});
