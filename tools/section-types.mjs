// section-types.mjs: the parts of the TypeScript declarations that list what the section
// registry (web/page/sections/index.js) holds, written from it, so that a section added there is
// a value of the declared types without editing them by hand. Each part sits between
// `// generated:NAME` and `// /generated:NAME`; the rest of the file is written by hand.
//   node tools/section-types.mjs            rewrite every generated part in place (./build.sh does)
//   node tools/section-types.mjs --check    exit 1, naming the file, where a part differs
// tests/sections.test.js checks that the committed declarations are what this writes now.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGET_SECTION_IDS, DEFAULT_SECTION } from '../web/page/sections/index.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The declaration files that hold generated parts. */
export const DECLARATIONS = ['web/widget/qkv-lab-widget.d.ts'];

/** `export type NAME =` a union of string literals, `| 'a' | 'b'` lines of at most `width` columns. */
export function stringUnion(name, values, width = 100) {
  const lines = [];
  let line = ' ';
  for (const literal of values.map((v) => `'${v}'`)) {
    const piece = ` | ${literal}`;
    if (line.length > 1 && line.length + piece.length + 1 > width) {  // 1: room for the closing ';'
      lines.push(line);
      line = ' ';
    }
    line += piece;
  }
  lines.push(line);
  return `export type ${name} =\n${lines.join('\n')};`;
}

export const GENERATORS = {
  // every value of <qkv-lab section="…">: the walkthrough and the page's sections, in story order
  'widget-sections': () => `/** The values of the \`section\` attribute; '${DEFAULT_SECTION}' is the default. */\n${
    stringUnion('QkvLabSection', WIDGET_SECTION_IDS)}`,
};

// the opening line may say more after the name (where the part comes from)
const BLOCK = /(\/\/ generated:([\w-]+)[^\n]*\n)[\s\S]*?\/\/ \/generated:\2\n/g;

/** The file's text with every generated part written anew, and the names of those it holds. */
export function regenerate(text) {
  const names = [];
  const out = text.replace(BLOCK, (all, opening, name) => {
    const generate = GENERATORS[name];
    if (!generate) throw new Error(`no generator named ${name}`);
    names.push(name);
    return `${opening}${generate()}\n// /generated:${name}\n`;
  });
  return { text: out, names };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const file of DECLARATIONS) {
    const before = readFileSync(path.join(ROOT, file), 'utf8');
    const { text, names } = regenerate(before);
    if (text === before) continue;
    if (check) {
      stale++;
      console.error(`${file}: a generated part is out of date (${names.join(', ')}): run node tools/section-types.mjs`);
    } else {
      writeFileSync(path.join(ROOT, file), text);
      console.log(`wrote ${file} (${names.join(', ')})`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
