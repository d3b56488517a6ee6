#!/usr/bin/env bash
# run-all.sh: every test, in the order that fails fastest. Called by `./build.sh test`
# (which installs and builds first). Exits non-zero if anything fails. What runs in which pass, and
# why: docs/reliability.md, "How the tests run".
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== native C tests (gcc, AddressSanitizer + UndefinedBehaviorSanitizer, 64-bit and -m32)"
bash tests/native/run.sh

# The kernels' other builds. tests/simd.test.js (main pass) holds SIMD128 and scalar to the same
# bits on every kernel, at every edge of the tiles, and trains the model identically on both, so a
# file that only uses the kernels' results gives the same answers on either. What runs again is
# what checks numbers against an independent reference (numpy, PyTorch, float64, finite
# differences, algebraic properties) or feeds the kernels non-finite values: NUMERICS, each kernel
# build held to it on its own. A new file of that kind joins NUMERICS; any other new test file runs
# once, in the main pass, by being in tests/ or tests/browser/.
NUMERICS=(tests/attention.test.js tests/article.test.js tests/properties.test.js tests/heads-positions.test.js
  tests/model-gradients.test.js tests/model-training.test.js)
# The relaxed-SIMD kernels: Node 20 validates them only with --experimental-wasm-relaxed-simd
# (Node 22 runs them as they are and may not know the flag), so load() picks them only there.
# simd.test.js holds them to the error bounds and to the other builds (it skips those tests without
# the flag), then the numerics against their references. Skipped, and said, where build.sh could
# not make them (no clang-16).
relaxed_flag=()
node --experimental-wasm-relaxed-simd -e 0 >/dev/null 2>&1 && relaxed_flag=(--experimental-wasm-relaxed-simd)
other_builds() {
  echo "== node --test again with the scalar kernels (QKV_LAB_SIMD=0): the numerics against their references"
  QKV_LAB_SIMD=0 node --test --test-concurrency=2 --test-reporter=spec "${NUMERICS[@]}" tests/model-inspect.test.js tests/training-step.test.js \
    tests/gpt-block.test.js tests/gpt.test.js tests/c-api.test.js tests/errors.test.js tests/api-properties.test.js || return
  echo "== node --test once more with the relaxed-SIMD kernels (fused multiply-add): simd.test.js and the numerics"
  if grep -q 'relaxed = null' web/dist/qkv-relaxed.js; then
    echo "this build has no relaxed-SIMD kernels (build.sh found no clang-16 and lld-16): skipped"
  else
    node "${relaxed_flag[@]}" --test --test-concurrency=2 --test-reporter=spec tests/simd.test.js "${NUMERICS[@]}"
  fi
}
# These two passes are Node alone (about 20 s of CPU). They start here, at the lowest priority
# (nice 19), and run on what the rest leaves idle: a core beside the fixture checks and the WASM
# fuzzer (one core each, below), then whatever the main pass leaves (vmstat: 1-5% of two cores).
# Their report is printed after the main pass's; run after it, they took 13 s more. No test in them
# waits on a clock, so a slow start cannot fail them. (setsid: a group of their own, stopped whole
# if anything before them fails)
other_log=$(mktemp)
setsid nice -n 19 bash -c "$(declare -p NUMERICS relaxed_flag); $(declare -f other_builds); other_builds" > "$other_log" 2>&1 &
other_pid=$!

# The fuzzers run for a fixed time each, two targets at a time, each on a core of its own: after
# the native tests (which keep both cores busy), beside the fixture checks (one core, a few
# seconds). Under ./build.sh test the two native targets ran while the WebAssembly was built
# (QKV_NATIVE_FUZZ_*), and only the WASM target, which needs the build, starts here. Their report
# is printed after the fixture checks.
fuzz_targets=all
[ -n "${QKV_NATIVE_FUZZ_PID:-}" ] && fuzz_targets=wasm
fuzz_log=$(mktemp)
node tests/fuzz/run.mjs --seconds "${FUZZ_SECONDS:-20}" --seed 1 --jobs 2 --target "$fuzz_targets" > "$fuzz_log" 2>&1 &
fuzz_pid=$!
# (a failure below ends this script: the fuzzers then stop with it)
trap 'kill "$fuzz_pid" 2>/dev/null || true; kill -- -"$other_pid" 2>/dev/null || true; rm -f "$other_log"' EXIT

echo "== numpy fixtures are up to date"
/usr/bin/python3 tests/fixtures/make_fixtures.py --check

echo "== PyTorch fixtures are up to date (the GPT block, tests/fixtures/torch.json)"
/usr/bin/python3 tests/fixtures/make_torch_fixtures.py --check

echo "== PyTorch fixtures of the GPT are up to date"
/usr/bin/python3 tests/fixtures/make_gpt_fixtures.py --check

echo "== PyTorch fixtures of LoRA are up to date (tests/fixtures/lora-torch.json)"
/usr/bin/python3 tests/fixtures/make_lora_fixtures.py --check

echo "== bounded fuzz of the C API: the WASM module, libFuzzer 64-bit and -m32 (20 s each, two at a time)"
fuzz_status=0
if [ -n "${QKV_NATIVE_FUZZ_PID:-}" ]; then
  # (started by build.sh, which exec'd this script: not a job of this shell, so waited for by its pid)
  tail --pid="$QKV_NATIVE_FUZZ_PID" -f /dev/null
  cat "$QKV_NATIVE_FUZZ_LOG"
  native_status=$(cat "$QKV_NATIVE_FUZZ_STATUS")
  rm -f "$QKV_NATIVE_FUZZ_LOG" "$QKV_NATIVE_FUZZ_STATUS"
  [ "$native_status" = 0 ] || fuzz_status=${native_status:-1}
fi
wait "$fuzz_pid" || fuzz_status=$?
cat "$fuzz_log"
rm -f "$fuzz_log"
[ "$fuzz_status" = 0 ] || { echo "fuzz: FAILED (status $fuzz_status)"; exit "$fuzz_status"; }

# Every test file, once, the SIMD128 kernels where the engine has them: the Node files (the
# TypeScript declarations with each compiler: declarations.test.js) and the browser files, which
# share one Chromium (a new browser file that opens it with harness.js's openBrowser() joins by itself).
echo "== node --test (API, fixtures, model, browser; the SIMD128 kernels where the engine has them)"
# one Chromium for all of them (tests/browser/shared-browser.sh), stopped when this script ends
# (and the other builds' passes with it, if the main pass fails)
source tests/browser/shared-browser.sh
trap 'stop_shared_browser; kill -- -"$other_pid" 2>/dev/null || true; rm -f "$other_log"' EXIT
# Two files at a time: one file alone leaves about a third of two cores idle (a page waiting on its
# frames, a test on its browser); two keep both busy (measured: 2,293 s one at a time, 1,872 s two
# at a time, on this 2-core machine: docs/reliability.md, "How long"; vmstat during a whole pass
# now: 2-5% idle). node --test runs the files in the order of their paths, whatever the order
# given; the longest (page-a11y, bench-smoke) then start within the first 150 s and the pass ends
# on small files two at a time (measured with a reporter of each file's start: docs/reliability.md).
main=(tests/browser/*.test.js tests/*.test.js)
QKV_BROWSER_WS=$QKV_BROWSER_WS node --test --test-concurrency=2 --test-reporter=spec "${main[@]}"

# the other builds' report, once their passes have ended
other_status=0
wait "$other_pid" || other_status=$?
cat "$other_log"
exit "$other_status"
