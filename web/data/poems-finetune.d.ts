// Declarations of web/data/poems-finetune.js (import { FINETUNE_SETS } from
// 'qkv-lab/data/poems-finetune.js'): the fine-tuning texts, one poem per line.
export interface FinetuneSet {
  name: string;
  /** The line-end marks of the form (浣溪沙 only). */
  pattern?: string;
  train: string;
  val: string;
}
export declare const FINETUNE_SETS: Readonly<{
  /** 浣溪沙: six lines of seven characters. */
  huanxisha: Readonly<FinetuneSet>;
  /** 李白's 五绝 and 七绝. */
  poet: Readonly<FinetuneSet>;
}>;
