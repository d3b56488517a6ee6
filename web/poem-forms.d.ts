// poem-forms.d.ts: the declarations of web/poem-forms.js ('qkv-lab/poem-forms').
import type { PoemFormName, PoemForm } from './qkv-lab.js';
export type { PoemFormName, PoemForm };
/** The four forms of regular verse, by the name gpt.generate(prompt, { form }) takes. */
export declare const POEM_FORMS: Readonly<Record<PoemFormName, PoemForm>>;
/** 'wujue', 'qijue', 'wulv', 'qilv'. */
export declare const POEM_FORM_NAMES: readonly PoemFormName[];
export declare const COMMA: '，';
export declare const FULL_STOP: '。';
/** Whether ch is one Han character (/\p{Script=Han}/u). */
export declare function isHanCharacter(ch: string): boolean;
/** Code points of a poem of the form, marks included (24, 32, 48, 64). */
export declare function formLength(form: PoemFormName): number;
/** What position p of a poem of the form holds. */
export declare function formSlot(form: PoemFormName, p: number):
  { kind: 'character'; line: number; column: number } | { kind: 'mark'; line: number; mark: '，' | '。' } | { kind: 'end' };
/** The form text has exactly, or null. */
export declare function poemForm(text: string): PoemFormName | null;
