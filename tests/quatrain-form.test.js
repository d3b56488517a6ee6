// web/data/quatrain-form.js: the exact form 5 + 5 Han characters, '，', 5 + 5, '。' that the data
// is filtered by and that generated poems are scored with. Each near miss a generator can
// produce (a character too few or too many, the wrong mark, a trailing newline, a non-Han
// character) must be refused, and the astral Han characters the data holds must count once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isWellFormedQuatrain, wellFormedShare, QUATRAIN_LENGTH, QUATRAIN_FORM } from '../web/data/quatrain-form.js';

const GOOD = '床前明月光，疑是地上霜。举头望明月，低头思故乡。';

test('a well-formed quatrain is accepted, and is QUATRAIN_LENGTH code points long', () => {
  assert.equal(isWellFormedQuatrain(GOOD), true);
  assert.equal([...GOOD].length, QUATRAIN_LENGTH);
  assert.equal(QUATRAIN_FORM.test(GOOD), true);
});

test('astral Han characters count as one character each (the data holds 𬬻, 𬸣, 𫄨)', () => {
  const astral = '锦帐随情设，金𬬻任意熏。惟愁员外署，不应列星文。';
  assert.equal(astral.length, 25);             // UTF-16 units: 𬬻 is a surrogate pair
  assert.equal(isWellFormedQuatrain(astral), true);
  assert.equal(isWellFormedQuatrain(astral.replace('𬬻', '𬬻𬬻')), false);
});

test('4 or 6 characters in any half-line are refused', () => {
  const halves = ['床前明月光', '疑是地上霜', '举头望明月', '低头思故乡'];
  for (let i = 0; i < 4; i++) {
    for (const change of [(h) => h.slice(1), (h) => h + '月']) {
      const h = halves.slice();
      h[i] = change(h[i]);
      const poem = `${h[0]}，${h[1]}。${h[2]}，${h[3]}。`;
      assert.equal(isWellFormedQuatrain(poem), false, poem);
    }
  }
});

test('wrong punctuation is refused: ASCII comma and stop, ？ ！ ； 、, swapped or missing marks', () => {
  const variants = [
    GOOD.replace('，', ','),
    GOOD.replace('。', '.'),
    GOOD.replace('，', '？'),
    GOOD.replace('。', '！'),
    GOOD.replace('，', '；'),
    GOOD.replace('，', '、'),
    GOOD.replace('，', '｡'),                     // U+FF61 halfwidth ideographic full stop
    '床前明月光。疑是地上霜，举头望明月，低头思故乡。', // marks swapped in line 1
    GOOD.replace('，', ''),
    GOOD.slice(0, -1),                            // no final full stop
    GOOD.replaceAll('，', '，，'),
  ];
  for (const poem of variants) assert.equal(isWellFormedQuatrain(poem), false, poem);
});

test('anything around or inside the poem is refused: trailing newline, spaces, a second poem', () => {
  for (const poem of [`${GOOD}\n`, `\n${GOOD}`, ` ${GOOD}`, `${GOOD} `, GOOD.replace('。举', '。 举'),
    GOOD.replace('。举', '。\n举'), GOOD + GOOD, GOOD.slice(0, 12), '']) {
    assert.equal(isWellFormedQuatrain(poem), false, JSON.stringify(poem));
  }
});

test('non-Han characters in a character slot are refused: □, ⿰, kana, Latin, digits, a fullwidth letter', () => {
  for (const c of ['□', '⿰', 'あ', 'a', '1', 'Ａ', '·', '〔']) {
    assert.equal(isWellFormedQuatrain(GOOD.replace('明', c)), false, c);
  }
  // 〇 and 々 are Script=Han: a poem may hold them
  assert.equal(isWellFormedQuatrain(GOOD.replace('明', '〇')), true);
});

test('a non-string is a TypeError naming what was given; wellFormedShare counts the share', () => {
  assert.throws(() => isWellFormedQuatrain(null), { name: 'TypeError', message: /must be a string, got null/ });
  assert.throws(() => isWellFormedQuatrain(24), { name: 'TypeError', message: /got number/ });
  assert.throws(() => isWellFormedQuatrain(undefined), { name: 'TypeError', message: /got undefined/ });
  assert.equal(wellFormedShare([GOOD, `${GOOD}\n`, GOOD, GOOD.replace('，', ',')]), 0.5);
  assert.equal(wellFormedShare([]), 0);
  assert.throws(() => wellFormedShare(GOOD), { name: 'TypeError' });
  assert.throws(() => wellFormedShare([GOOD, 3]), { name: 'TypeError' });
});
