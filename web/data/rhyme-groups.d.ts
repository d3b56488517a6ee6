// Declarations of web/data/rhyme-groups.js (read by qkv-lab/poetry/metrics): '<final><tone>' →
// the characters with that modern reading, in code-point order.
export declare const READINGS: Readonly<Record<string, string>>;
