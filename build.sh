#!/usr/bin/env bash
# build.sh: set up, build, test and serve qkv-lab.
#
#   ./build.sh          build web/dist/ (installs Emscripten with apt-get when it is missing)
#   ./build.sh serve    set up, build, and serve the demo page on http://localhost:8000/
#   ./build.sh test     set up (Emscripten, numpy, Chromium, fonts, npm ci), build, run every test
#   ./build.sh setup    only install what is missing
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
MODE=${1:-build}

say() { printf '\033[1m%s\033[0m\n' "$*" >&2; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

APT_UPDATED=0
apt_install() {  # apt_install PACKAGE...: install Debian packages, or say exactly what is needed
  if ! command -v apt-get >/dev/null 2>&1; then
    die "missing: $*. Install them with your system's package manager (Debian/Ubuntu: apt-get install $*). Emscripten can also come from https://emscripten.org/docs/getting_started/downloads.html (emsdk)."
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "missing: $*; run as root: apt-get install -y $*"
    sudo=sudo
  fi
  if [ $APT_UPDATED = 0 ]; then say "apt-get update"; $sudo apt-get update -qq; APT_UPDATED=1; fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

need_build_tools() {
  command -v node >/dev/null 2>&1 || apt_install nodejs npm
  command -v emcc >/dev/null 2>&1 || apt_install emscripten
}

need_test_tools() {
  local missing=()
  command -v gcc >/dev/null 2>&1 || missing+=(gcc)
  /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing+=(python3-numpy)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  fc-list 2>/dev/null | grep -qi 'Noto Sans CJK' || missing+=(fonts-noto-cjk)
  if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
}

npm_install() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# Debian's emcc 3.1.6 runs its JS optimizer with the first `node` on PATH; a non-Debian Node
# cannot see Debian's acorn unless NODE_PATH points at Debian's node modules.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

SOURCES=(wasm/errors.c wasm/rng.c wasm/matrix.c wasm/attention.c wasm/model.c wasm/exports.c)

# The exported surface: keep in step with wasm/qkv.h and web/qkv-lab.js.
EXPORTS=(
  _malloc _free
  _qkv_error_message _qkv_alloc_floats _qkv_alloc_bytes _qkv_free _qkv_heap_used _qkv_rng_size
  _qkv_rng_seed _qkv_rng_randn
  _qkv_matmul _qkv_transpose _qkv_softmax_rows
  _qkv_attention_forward _qkv_attention_backward _qkv_self_attention_forward
  _qkv_model_create _qkv_model_destroy _qkv_model_set_optimizer _qkv_model_tensor
  _qkv_model_num_params _qkv_model_forward _qkv_model_loss_and_grad _qkv_model_update
  _qkv_model_shuffle _qkv_model_sentence_losses
)

build_wasm() {
  need_build_tools
  mkdir -p web/dist
  local list
  list=$(printf '"%s",' "${EXPORTS[@]}"); list="[${list%,}]"
  say "emcc -> web/dist/qkv-core.js"
  # -sENVIRONMENT=web + -sSINGLE_FILE + -sEXPORT_ES6: the one combination that loads in Node
  # and in browsers, from http:// and file:// alike (see TOOLCHAIN.md for why the others fail).
  # -sUSE_ES6_IMPORT_META=0: the WASM is inlined, so the glue needs no URL of its own; with
  # import.meta.url in it, webpack writes the build machine's node_modules path into users' bundles.
  # --pre-js wasm/glue-pre.js: the glue must not fetch() its own data: URI (a strict CSP refuses it).
  emcc -std=c11 -Oz -Wall -Wextra -Werror "${SOURCES[@]}" -o web/dist/qkv-core.js \
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createQkvCore -sUSE_ES6_IMPORT_META=0 \
    -sENVIRONMENT=web -sSINGLE_FILE=1 \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=1gb \
    -sFILESYSTEM=0 -sDYNAMIC_EXECUTION=0 -sASSERTIONS=0 \
    -sEXPORTED_FUNCTIONS="$list" \
    -sEXPORTED_RUNTIME_METHODS='["UTF8ToString"]' \
    --pre-js wasm/glue-pre.js
  if [ -d node_modules/esbuild ]; then
    node tools/build-page.mjs
  else
    say "node_modules missing: skipping the page bundle (run ./build.sh setup, or npm ci)"
  fi
}

case "$MODE" in
  setup) need_build_tools; need_test_tools; npm_install ;;
  build) npm_install; build_wasm ;;
  serve)
    need_build_tools; npm_install; build_wasm
    say "serving web/ on http://localhost:${PORT:-8000}/ (Ctrl-C stops)"
    exec node tools/serve.js web "${PORT:-8000}" ;;
  test)
    need_build_tools; need_test_tools; npm_install; build_wasm
    exec bash tests/run-all.sh ;;
  *) die "unknown command '$MODE' (use: build, serve, test, setup)" ;;
esac
