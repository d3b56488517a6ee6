// quatrain-form.js: what "a well-formed five-character quatrain" (五言绝句) means here, as one
// pattern. tools/extract-quatrains.mjs keeps exactly the poems of this form, tests/quatrains-data
// checks every committed poem against it, and the GPT's tests and benchmark score generated poems
// with it. Pure JavaScript, no data: importing it costs nothing.
//
// The form, exactly: 5 Han characters, '，' (U+FF0C FULLWIDTH COMMA), 5 Han characters,
// '。' (U+3002 IDEOGRAPHIC FULL STOP), and the same again: 24 characters (code points), nothing
// before, between or after them (no spaces, no newline). A Han character is one code point with
// Unicode Script=Han (/\p{Script=Han}/u): the unified ideographs and their extensions (astral
// ones such as 𬬻 U+2CB3B count once), compatibility ideographs, 〇 and 々; not '□' (a lost
// character in the source), not ⿰ (an ideographic description character), not kana or Latin.
// '？' '！' '；' or an ASCII ',' in place of the comma, or a missing full stop, are not the form:
// the dataset writes every line as xxxxx，xxxxx。, so a model that learned it writes that too.
// A generator's end-of-poem token or newline is the caller's to strip before asking.

/** The characters of one well-formed quatrain (code points, not UTF-16 units). */
export const QUATRAIN_LENGTH = 24;

/** Two lines of 5 Han characters + '，' + 5 Han characters + '。', and nothing else. */
export const QUATRAIN_FORM = /^(?:\p{Script=Han}{5}，\p{Script=Han}{5}。){2}$/u;

/**
 * Whether `text` is exactly one well-formed five-character quatrain (see the header).
 * @param {string} text
 * @returns {boolean}
 */
export function isWellFormedQuatrain(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`isWellFormedQuatrain: text must be a string, got ${text === null ? 'null' : typeof text}`);
  }
  return QUATRAIN_FORM.test(text);
}

/**
 * The share (0 … 1) of `poems` that are well formed; 0 for an empty list.
 * @param {readonly string[]} poems
 * @returns {number}
 */
export function wellFormedShare(poems) {
  if (!Array.isArray(poems)) throw new TypeError('wellFormedShare: poems must be an array of strings');
  if (poems.length === 0) return 0;
  let good = 0;
  for (const poem of poems) if (isWellFormedQuatrain(poem)) good++;
  return good / poems.length;
}
