#!/usr/bin/env bash
# pretrain.sh: build tools/pretrain.c natively and train the pretrained poet in the background.
#   tools/pretrain.sh [RUN_DIR] [pretrain options...]     start (or --resume) a run; log in RUN_DIR/out.log
# The text comes from tools/extract-poems.mjs (run it first). See tools/pretrain.c for the options.
# The flags: -O3 -march=native with reassociation allowed (the reductions vectorise) but finite
# maths kept (the engine's divergence checks need isfinite): 1.5x faster than strict -O3 here.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${1:-.build/pretrain/run}; shift || true
mkdir -p "$RUN" .build
gcc -std=c11 -O3 -march=native -fno-math-errno -fno-trapping-math -fno-signed-zeros -fassociative-math \
  -ffp-contract=fast -Wall -Wextra tools/pretrain.c wasm/gpt.c wasm/layernorm.c wasm/gelu.c wasm/gelu_kernel.c wasm/adamw_kernel.c wasm/softmax_ce_kernel.c wasm/matrix.c \
  wasm/attention.c wasm/checks.c wasm/rng.c wasm/mathlib.c wasm/errors.c -lm -o .build/pretrain-native
nohup .build/pretrain-native --run "$RUN" "$@" >> "$RUN/out.log" 2>&1 &
echo "training in the background (pid $!): tail -f $RUN/out.log"
