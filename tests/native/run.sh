#!/usr/bin/env bash
# run.sh: builds the C library natively with gcc under AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every tests/native/test_*.c against it.
# Every wasm/*.c except exports.c (the Emscripten surface) is plain C11.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=tests/native/build
mkdir -p "$OUT"
mapfile -t LIB < <(ls wasm/*.c | grep -v '/exports\.c$')
FLAGS=(-std=c11 -g -O1 -Wall -Wextra -Wpedantic -Werror -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=all -Iwasm)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for test in tests/native/test_*.c; do
  name=$(basename "$test" .c)
  "$CC" "${FLAGS[@]}" "${LIB[@]}" "$test" -lm -o "$OUT/$name"
  if "$OUT/$name"; then echo "native $name: ok"; else echo "native $name: FAILED"; status=1; fi
done
exit $status
