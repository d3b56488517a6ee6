// Declarations of web/poetry/metrics.js (import { formOf, rhyme } from 'qkv-lab/poetry/metrics'):
// a regular-verse poem's form, rhyme, tones and novelty (docs/poetry-metrics.md).

/** The four forms: 五绝, 七绝, 五律, 七律. */
export type PoemForm = 'wujue' | 'qijue' | 'wulv' | 'qilv';
/** A rhyme group's id (its first final), roughly 中华新韵. */
export type RhymeGroup = 'a' | 'o' | 'e' | 'ie' | 'i' | 'u' | 'ai' | 'ei' | 'ao' | 'ou' | 'an' | 'en' | 'ang' | 'eng';
export type ToneLevel = '平' | '仄';

export declare const FORMS: Readonly<Record<PoemForm, Readonly<{ lines: number; width: number; name: string }>>>;
export declare const FORM_NAMES: readonly PoemForm[];
/** group id → the modern finals it holds. */
export declare const RHYME_GROUPS: Readonly<Record<RhymeGroup, string[]>>;

export interface Reading {
  char: string;
  final: string;
  /** 1–4; 0 for the neutral tone. */
  tone: number;
  group: RhymeGroup | null;
  level: ToneLevel | null;
}
/** A character's modern reading, or null when the table has none. */
export declare function readingOf(ch: string): Reading | null;
/** Whether two characters rhyme: both have a group, the same one. */
export declare function rhymes(a: string, b: string): boolean;
/** The poem's form, or null when it is none of them. */
export declare function formOf(poem: string): PoemForm | null;
/** The lines of a well-formed poem (Han characters only), or null. */
export declare function linesOf(poem: string): string[] | null;

export interface RhymeResult {
  form: PoemForm;
  /** Lines 2 and 4 rhyme. */
  lines24: boolean;
  /** Every even line's last character in one group. */
  allEven: boolean;
  /** Lines 1 and 2 rhyme (they need not: a reference). */
  lines12: boolean;
  ends: { line: number; char: string; final: string | null; group: RhymeGroup | null }[];
}
/** Whether a well-formed poem rhymes; null for a poem of none of the forms. */
export declare function rhyme(poem: string): RhymeResult | null;

export interface TonesResult {
  form: PoemForm;
  positions: { line: number; char: string; tone: number | null; level: ToneLevel | null }[];
  /** Share of the even lines' ends that are 平, among those with a level. */
  levelShare: number | null;
}
/** 平 / 仄 at the rhyme positions; null for a poem of none of the forms. */
export declare function tones(poem: string): TonesResult | null;
/** The chance that two line-final characters of these poems share a rhyme group (null: none). */
export declare function chanceRhyme(poems: readonly string[]): number | null;

/** What trainingIndex builds (opaque: pass it to longestCopied, novelty, summarize). */
export interface TrainingIndex {
  readonly poems: Set<string>;
  readonly lines: Set<string>;
}
/** An index of the training text (one poem per line) for novelty(). */
export declare function trainingIndex(text: string): TrainingIndex;
/** The longest substring of poem found in one training poem. */
export declare function longestCopied(poem: string, index: TrainingIndex): { length: number; text: string };

export interface NoveltyResult {
  poems: number;
  lines: number;
  copiedLines: number;
  /** copiedLines / lines. */
  lineShare: number;
  /** Poems equal to a training poem. */
  copiedPoems: number;
  /** Mean over the poems of longestCopied().length. */
  meanLongest: number;
}
/** How much of poems is copied from the training poems. */
export declare function novelty(poems: readonly string[], index: TrainingIndex): NoveltyResult;

export interface RhymeRates {
  poems: number;
  /** Shares among the well-formed poems (null: none). */
  lines24: number | null;
  allEven: number | null;
}
export interface Summary {
  poems: number;
  byForm: Record<PoemForm | 'none', number>;
  /** Share of the poems that have one of the forms. */
  wellFormed: number;
  rhyme: Record<PoemForm | 'all', RhymeRates>;
  /** Share of 平 at the even lines' ends. */
  level: number | null;
  novelty?: NoveltyResult;
}
/** A batch of poems in numbers; options.index adds novelty. */
export declare function summarize(poems: readonly string[], options?: { index?: TrainingIndex }): Summary;
