// poem-forms.js: the four forms of Tang regular verse the pretrained GPT writes, as data, and
// where each form puts its characters and marks. gpt.generate(prompt, { form }) locks a poem to
// one of them (web/gpt.js); tools and tests score generated poems with poemForm(). Pure
// JavaScript, no data beyond the table: importing it costs nothing.
//
// A poem of a form is `lines` lines of `characters` Han characters (/\p{Script=Han}/u, as in
// web/data/quatrain-form.js), every odd line (1st, 3rd, …) ending '，' (U+FF0C) and every even
// line '。' (U+3002), nothing before, between or after: 五绝 24 code points, 七绝 32, 五律 48,
// 七律 64. The training text writes every poem so (web/data/poems-val.js).

/** The forms, by the name generate() takes: Chinese name, English name, lines, characters a line. */
export const POEM_FORMS = Object.freeze({
  wujue: Object.freeze({ name: '五言绝句', english: 'five-character quatrain', lines: 4, characters: 5 }),
  qijue: Object.freeze({ name: '七言绝句', english: 'seven-character quatrain', lines: 4, characters: 7 }),
  wulv: Object.freeze({ name: '五言律诗', english: 'five-character regulated verse', lines: 8, characters: 5 }),
  qilv: Object.freeze({ name: '七言律诗', english: 'seven-character regulated verse', lines: 8, characters: 7 }),
});

/** The form names generate() takes, in POEM_FORMS' order. */
export const POEM_FORM_NAMES = Object.freeze(Object.keys(POEM_FORMS));

export const COMMA = '，';
export const FULL_STOP = '。';
const HAN = /^\p{Script=Han}$/u;

/** Whether ch (one code point) is a Han character: what a form's character slots take. */
export function isHanCharacter(ch) {
  return typeof ch === 'string' && HAN.test(ch);
}

/** The code points of a poem of `form` (its marks included). */
export function formLength(form) {
  const f = POEM_FORMS[form];
  return f.lines * (f.characters + 1);
}

/**
 * What position p (0-based, in code points) of a poem of `form` holds: { kind: 'character',
 * line, column } (column 0 starts a line), { kind: 'mark', line, mark: '，' | '。' }, or
 * { kind: 'end' } at formLength(form) and beyond.
 */
export function formSlot(form, p) {
  const f = POEM_FORMS[form];
  const width = f.characters + 1;
  if (p >= f.lines * width) return { kind: 'end' };
  const line = Math.floor(p / width), column = p % width;
  if (column === f.characters) return { kind: 'mark', line, mark: line % 2 === 0 ? COMMA : FULL_STOP };
  return { kind: 'character', line, column };
}

/**
 * The form `text` has exactly (a POEM_FORM_NAMES entry), or null. The end-of-text '\n' of a
 * generator is the caller's to strip before asking.
 */
export function poemForm(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`poemForm: text must be a string, got ${text === null ? 'null' : typeof text}`);
  }
  const chars = Array.from(text);
  for (const form of POEM_FORM_NAMES) {
    if (chars.length !== formLength(form)) continue;
    const ok = chars.every((ch, p) => {
      const slot = formSlot(form, p);
      return slot.kind === 'mark' ? ch === slot.mark : isHanCharacter(ch);
    });
    if (ok) return form;
  }
  return null;
}
