// pinned-packages.mjs: the npm packages a data tool reads (chinese-poetry, opencc-js, pinyin-pro),
// installed at pinned versions into a folder of the tool's, never as dependencies of qkv-lab.
// Used by tools/extract-quatrains.mjs, tools/extract-poems.mjs and tools/rhyme-table.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Installs into prefix/node_modules the packages of `pinned` ({ name: version }) that are missing there or of another version. */
export function installPinned(prefix, pinned) {
  const installed = (name) => {
    const file = join(prefix, 'node_modules', name, 'package.json');
    return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).version === pinned[name];
  };
  const missing = Object.keys(pinned).filter((name) => !installed(name));
  if (missing.length === 0) return;
  const specs = missing.map((name) => `${name}@${pinned[name]}`);
  console.log(`npm install --no-save --prefix ${prefix} ${specs.join(' ')}`);
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, ...specs], { stdio: 'inherit' });
  for (const name of missing) if (!installed(name)) throw new Error(`${name}@${pinned[name]} did not install into ${prefix}`);
}

/**
 * Writes each [file, text] of `files`, or with `check` compares them with what is committed and
 * sets a failing exit code naming each file that differs. `detail` is added to the messages.
 */
export function writeOrCheck(files, check, detail = '') {
  const suffix = detail ? ` (${detail})` : '';
  let same = true;
  for (const [file, text] of files) {
    if (check) {
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (committed !== text) {
        console.error(`${file} differs from what the script writes now: run it without --check and read the diff`);
        same = false;
      } else {
        console.log(`${file} is what the script writes${suffix}`);
      }
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${file}${suffix}`);
    }
  }
  if (!same) process.exitCode = 1;
}
