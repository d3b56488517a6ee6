// Declarations of web/data/poems-val.js (import { POEMS_VAL } from 'qkv-lab/data/poems-val.js'):
// the held-out regular-verse Tang poems the pretrained poet is scored on, one poem per line per form.
export declare const POEMS_VAL: Readonly<{
  /** What tools/extract-poems.mjs counted in the source. */
  counts: Readonly<Record<string, number>>;
  /** The training text the same run wrote (not shipped): its size, checksum and poems per form. */
  train: Readonly<{ poems: number; characters: number; checksum: number; byForm: Readonly<Record<'wujue' | 'qijue' | 'wulv' | 'qilv', number>> }>;
  wujue: string;
  qijue: string;
  wulv: string;
  qilv: string;
}>;
