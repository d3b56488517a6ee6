// finetune/poems.js: what a fine-tuned sample is, read with web/poetry/metrics.js: its form (one
// of the four Tang forms, or 浣溪沙) and its rhyme. Pure JavaScript, no DOM.
//
// 浣溪沙 (as web/data/poems-finetune.js writes it): six lines of seven Han characters closed by
// the tune's marks 。。。，。。 (the commonest: 727 of the 735 six-by-seven poems). It rhymes on
// lines 1, 2, 3, 5 and 6 (line 4 is free); read here as: how many of lines 2, 3, 5, 6 end in
// line 1's rhyme group (metrics.js's modern-final groups, a proxy for the old rhymes).
import { formOf, rhyme, readingOf, FORMS } from '../../poetry/metrics.js';

export const HUANXISHA = Object.freeze({ lines: 6, width: 7, marks: '。。。，。。', rhymeLines: Object.freeze([1, 2, 3, 5, 6]) });
const HUANXISHA_PATTERN = new RegExp(`^${[...HUANXISHA.marks].map((m) => `\\p{Script=Han}{${HUANXISHA.width}}${m}`).join('')}$`, 'u');

/** Whether poem is a 浣溪沙 of the tune's form. */
export function isHuanxisha(poem) {
  return HUANXISHA_PATTERN.test(poem);
}

/**
 * A sample's reading → { form: 'huanxisha' | 'wujue' | 'qijue' | 'wulv' | 'qilv' | null,
 *   rhymed, of: how many of the lines that should rhyme do (the first counts as given), and of how many,
 *   ends: [{ line (1-based), char, final, group, rhymes }] }  (ends empty when the form is null)
 */
export function readPoem(poem) {
  if (isHuanxisha(poem)) {
    const lines = poem.split(/[，。]/u).slice(0, -1);
    const ends = HUANXISHA.rhymeLines.map((line) => {
      const char = [...lines[line - 1]].at(-1);
      const r = readingOf(char);
      return { line, char, final: r ? r.final : null, group: r ? r.group : null };
    });
    const key = ends[0].group;
    for (const e of ends) e.rhymes = key !== null && e.group === key;
    return { form: 'huanxisha', rhymed: ends.slice(1).filter((e) => e.rhymes).length, of: ends.length - 1, ends };
  }
  const form = formOf(poem);
  if (!form) return { form: null, rhymed: 0, of: 0, ends: [] };
  const r = rhyme(poem);
  const key = r.ends[0].group;
  const ends = r.ends.map((e) => ({ ...e, rhymes: key !== null && e.group === key }));
  return { form, rhymed: ends.slice(1).filter((e) => e.rhymes).length, of: ends.length - 1, ends };
}

/** The form names the section says (zh names from metrics.js; 浣溪沙 its own). */
export const FORM_LABELS = Object.freeze({ huanxisha: '浣溪沙', ...Object.fromEntries(Object.entries(FORMS).map(([k, f]) => [k, f.name])) });
