// Declarations for web/data/quatrain-form.js, the package's `qkv-lab/data/quatrain-form`.

/** The characters of one well-formed quatrain (code points). */
export const QUATRAIN_LENGTH: 24;
/** 5 Han characters, '，', 5, '。', twice, nothing around them. */
export const QUATRAIN_FORM: RegExp;
/** Whether `text` is exactly one well-formed quatrain. */
export function isWellFormedQuatrain(text: string): boolean;
/** The share (0 … 1) of `poems` that are well formed; 0 for none. */
export function wellFormedShare(poems: readonly string[]): number;
