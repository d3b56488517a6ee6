#!/usr/bin/env bash
# run.sh: builds the C library natively with gcc under AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every tests/native/test_*.c against it: once as a 64-bit
# program and once with -m32, where `long` and size_t are 32 bits as on wasm32 (so overflows
# that only WebAssembly would hit show up here too). Every wasm/*.c is plain C11 (exports.c
# leaves emscripten.h out without Emscripten).
# The -m32 build needs Debian's gcc-multilib (./build.sh test installs it on amd64), and a kernel
# that runs 32-bit programs (some virtual machines' kernels leave IA-32 emulation out); where it
# cannot link or run, this says which and runs the 64-bit build alone. It computes in SSE2
# (-mfpmath=sse), as WebAssembly does: x87's 80-bit intermediates would round differently.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
OUT=tests/native/build
mkdir -p "$OUT"
mapfile -t LIB < <(ls wasm/*.c)
FLAGS=(-std=c11 -g -O1 -Wall -Wextra -Wpedantic -Werror -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=all -Iwasm)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ARCHES=(64)
if ! printf '#include <stdio.h>\nint main(void){puts("ok");return 0;}\n' |
     "$CC" -m32 -fsanitize=address,undefined -x c - -o "$OUT/m32-probe" 2>/dev/null; then
  echo "native -m32: skipped ($CC cannot build 32-bit sanitized programs here; on Debian amd64: apt-get install gcc-multilib)"
elif m32_ran=$("$OUT/m32-probe" 2>&1 || true); [ "$m32_ran" != ok ]; then
  echo "native -m32: skipped (this machine builds 32-bit programs but cannot run them, as on a kernel without IA-32 emulation: ${m32_ran%%$'\n'*})"
else
  ARCHES+=(32)
fi
# Per architecture: the library compiled once into objects, each test linked against them and
# run; the two architectures side by side (one core each). Their reports follow in order.
build_and_run() {
  local arch=$1 status=0 objects=() name
  local ARCH_FLAGS=("-m$arch")
  [ "$arch" = 32 ] && ARCH_FLAGS+=(-msse2 -mfpmath=sse)
  mkdir -p "$OUT/obj-m$arch"
  for source in "${LIB[@]}"; do
    objects+=("$OUT/obj-m$arch/$(basename "$source" .c).o")
    "$CC" "${ARCH_FLAGS[@]}" "${FLAGS[@]}" -c "$source" -o "${objects[-1]}" || return 1
  done
  for test in tests/native/test_*.c; do
    name=$(basename "$test" .c)-m$arch
    "$CC" "${ARCH_FLAGS[@]}" "${FLAGS[@]}" "${objects[@]}" "$test" -lm -o "$OUT/$name" || return 1
    if "$OUT/$name"; then echo "native $name: ok"; else echo "native $name: FAILED"; status=1; fi
  done
  return $status
}
status=0
pids=()
for arch in "${ARCHES[@]}"; do
  build_and_run "$arch" > "$OUT/report-m$arch.txt" 2>&1 &
  pids+=($!)
done
for k in "${!ARCHES[@]}"; do
  wait "${pids[$k]}" || status=1
  cat "$OUT/report-m${ARCHES[$k]}.txt"
done
exit $status
