// Declarations for web/data/quatrains.js, the package's `qkv-lab/data/quatrains`.

/** The five-character quatrains of the Complete Tang Poems, simplified, one poem per line. */
export const QUATRAINS: {
  readonly source: string;
  /** the chinese-poetry package's version they were extracted from */
  readonly version: string;
  readonly converter: string;
  readonly license: string;
  /** the number of poems (lines of `poems`) */
  readonly count: number;
  /** one poem per line, '\n' between lines and none at the end */
  readonly poems: string;
};
