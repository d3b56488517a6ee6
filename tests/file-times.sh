#!/usr/bin/env bash
# file-times.sh [FILE...]: each test file of the main pass on its own (one shared Chromium, as
# run-all.sh runs them), with its wall and CPU seconds, slowest first: where the test command's
# time goes. Without arguments, every file of the main pass. Needs a build (./build.sh build).
#   bash tests/file-times.sh                 # a table, slowest first, then the total
#   bash tests/file-times.sh tests/quiz.test.js tests/browser/page-load.test.js
set -uo pipefail
cd "$(dirname "$0")/.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/*.test.js tests/browser/*.test.js)
times=$(mktemp)
source tests/browser/shared-browser.sh
trap 'stop_shared_browser; rm -f "$times" "$times.out" "$times.t"' EXIT
failed=0
TIMEFORMAT='%R %U %S'   # bash's own time: wall, then the CPU of the file's processes (not Chromium's)
for file in "${files[@]}"; do
  if ! { time QKV_BROWSER_WS=$QKV_BROWSER_WS node --test --test-reporter=dot "$file" > "$times.out" 2>&1; } 2> "$times.t"; then
    failed=1
    echo "FAILED: $file" >&2
    tail -40 "$times.out" >&2
  fi
  awk -v f="$file" '{ printf "%7.1f %7.1f  %s\n", $1, $2 + $3, f }' "$times.t" | tee -a "$times" >&2
done
echo
echo "   wall     cpu  file (seconds; CPU without the shared Chromium's)"
sort -rn "$times"
awk '{ w += $1; c += $2 } END { printf "%7.1f %7.1f  total\n", w, c }' "$times"
exit "$failed"
