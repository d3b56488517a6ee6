// installed.mjs: whether DIR/node_modules holds what DIR/package-lock.json locks: every locked
// package present at its locked version (an optional package, such as another platform's
// esbuild binary, may be absent). It reads what is there rather than comparing file dates, which a
// checkout, a copy or a node_modules shared by a link makes meaningless.
//
//   node tools/installed.mjs [DIR]   exit 0 when installed as locked; else exit 1 and print the
//                                    first differences
// build.sh asks it before `npm ci` (the package's and bench/'s), and bench/peers.mjs before the
// benchmark installs its peers.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The locked packages missing from DIR/node_modules or at another version ([] when none). */
export function notInstalledAsLocked(dir) {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  const differences = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (!key.startsWith('node_modules/') || entry.link) continue;
    let version = null;
    try {
      version = JSON.parse(fs.readFileSync(path.join(dir, key, 'package.json'), 'utf8')).version;
    } catch {
      if (entry.optional) continue;
    }
    if (version !== entry.version) differences.push(`${key}: locked ${entry.version}, installed ${version ?? 'none'}`);
  }
  return differences;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const differences = notInstalledAsLocked(path.resolve(process.argv[2] ?? '.'));
  for (const line of differences.slice(0, 5)) console.log(line);
  if (differences.length > 5) console.log(`… and ${differences.length - 5} more`);
  process.exit(differences.length ? 1 : 0);
}
