#!/usr/bin/env bash
# run-all.sh: every test, in the order that fails fastest. Called by `./build.sh test`
# (which installs and builds first). Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== native C tests (gcc, AddressSanitizer + UndefinedBehaviorSanitizer, 64-bit and -m32)"
bash tests/native/run.sh

echo "== bounded fuzz of the C API: the WASM module, libFuzzer 64-bit and -m32 (20 s each)"
node tests/fuzz/run.mjs --seconds "${FUZZ_SECONDS:-20}" --seed 1

echo "== TypeScript declarations (tsc --noEmit), with TypeScript 7 and 5.x"
# both packages install a `tsc` bin, so npx tsc may be either: each is called by its path
node node_modules/typescript/bin/tsc --noEmit -p tests/types
node node_modules/typescript5/bin/tsc --noEmit -p tests/types

echo "== numpy fixtures are up to date"
/usr/bin/python3 tests/fixtures/make_fixtures.py --check

echo "== PyTorch fixtures are up to date (the GPT block, tests/fixtures/torch.json)"
/usr/bin/python3 tests/fixtures/make_torch_fixtures.py --check

echo "== PyTorch fixtures of the GPT are up to date"
/usr/bin/python3 tests/fixtures/make_gpt_fixtures.py --check

echo "== node --test (API, fixtures, model, browser; the SIMD128 kernels where the engine has them)"
node --test --test-reporter=spec tests/*.test.js tests/browser/*.test.js

echo "== node --test again with the scalar kernels (QKV_LAB_SIMD=0): API, fixtures, model"
QKV_LAB_SIMD=0 node --test --test-reporter=spec $(ls tests/*.test.js | grep -v -e '/package\.test\.js$' -e '/simd\.test\.js$' -e '/bench-smoke\.test\.js$')

# The relaxed-SIMD kernels: Node 20 validates them only with --experimental-wasm-relaxed-simd
# (Node 22 runs them as they are and may not know the flag), so load() picks them only here. The
# files that compute: the error bounds and the relaxed build against the others (simd.test.js
# skips those tests without the flag), the fixtures, the properties, heads and positions, the
# model. Skipped, and said, where build.sh could not make them (no clang-16).
echo "== node --test once more with the relaxed-SIMD kernels (fused multiply-add): numerics and model"
relaxed_flag=()
node --experimental-wasm-relaxed-simd -e 0 >/dev/null 2>&1 && relaxed_flag=(--experimental-wasm-relaxed-simd)
if grep -q 'relaxed = null' web/dist/qkv-relaxed.js; then
  echo "this build has no relaxed-SIMD kernels (build.sh found no clang-16 and lld-16): skipped"
else
  node "${relaxed_flag[@]}" --test --test-reporter=spec tests/simd.test.js tests/attention.test.js tests/article.test.js \
    tests/properties.test.js tests/heads-positions.test.js tests/model-gradients.test.js tests/model-training.test.js
fi
