// pinned-packages.mjs: the npm packages a data tool reads (chinese-poetry, opencc-js, pinyin-pro),
// installed at pinned versions into a folder of the tool's, never as dependencies of qkv-lab.
// Used by tools/extract-quatrains.mjs, tools/extract-poems.mjs and tools/rhyme-table.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
