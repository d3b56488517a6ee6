#!/usr/bin/env bash
# build.sh: set up, build, test and serve qkv-lab.
#
#   ./build.sh          build web/dist/ (installs Emscripten with apt-get when it is missing, and
#                       clang-16 + lld-16 for the relaxed-SIMD kernels: without them it builds
#                       the other two kernel builds and says so)
#   ./build.sh serve    set up, build, and serve the demo page on http://localhost:8000/
#   ./build.sh test     set up (Emscripten, numpy, PyTorch, Chromium, fonts, clang + libFuzzer, multilib,
#                       Node >= 20.6, npm ci, the benchmark's peers), build, run every test (= npm test;
#                       what runs in which pass: tests/run-all.sh, docs/reliability.md)
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

# Node.js: the library, the build and the page need Node >= 18 (every Node test that does not
# drive Chromium passes on Debian 12's nodejs, 18.20.4). The tests need Node >= 20.6: playwright-core 1.65 refuses to
# run on Node 18, and tests/package.test.js uses import.meta.resolve (unflagged in 20.6).
NODE_MIN=18.0.0
NODE_TEST_MIN=20.6.0
node_version() { node -e 'process.stdout.write(process.versions.node)' 2>/dev/null || echo 0; }
version_at_least() { printf '%s\n%s\n' "$2" "$1" | sort -V -C; }  # version_at_least HAVE NEED

need_node() {
  if ! command -v node >/dev/null 2>&1; then
    # Debian 12's own nodejs is 18: enough to build and serve; `test` then adds Node 20 (below)
    apt_install nodejs npm
  fi
  command -v npm >/dev/null 2>&1 || apt_install npm
  local have; have=$(node_version)
  version_at_least "$have" "$NODE_MIN" ||
    die "Node.js $have is too old: qkv-lab needs Node.js >= $NODE_MIN (https://nodejs.org, or your distribution's nodejs)."
}

# The tests need a newer Node than the library. When the one on PATH is older (Debian 12's 18),
# install Node 20 from the npm registry (the package `node`, which fetches the official binary
# as `node-linux-<arch>`) into .tools/ (git-ignored) and put it first on PATH for this run.
# QKV_NO_NODE_DOWNLOAD=1 stops with the message instead.
need_test_node() {
  local have; have=$(node_version)
  version_at_least "$have" "$NODE_TEST_MIN" && return 0
  if [ -x "$ROOT/.tools/node_modules/.bin/node" ]; then
    export PATH="$ROOT/.tools/node_modules/.bin:$PATH"
    have=$(node_version)
    version_at_least "$have" "$NODE_TEST_MIN" && { say "using Node.js $have from .tools/"; return 0; }
  fi
  local why="the tests need Node.js >= $NODE_TEST_MIN (playwright-core 1.65 needs 20; tests/package.test.js uses import.meta.resolve, unflagged in 20.6), and this is Node.js $have (Debian 12's nodejs is 18)"
  [ "${QKV_NO_NODE_DOWNLOAD:-0}" = 1 ] && die "$why. Install Node.js 20 or later and run again."
  say "$why: installing Node.js 20 from the npm registry (npm install node@20) into .tools/"
  npm install --prefix "$ROOT/.tools" --no-save --no-audit --no-fund --loglevel=error node@20 ||
    die "$why, and installing node@20 from the npm registry failed. Install Node.js 20 or later and run again."
  export PATH="$ROOT/.tools/node_modules/.bin:$PATH"
  have=$(node_version)
  version_at_least "$have" "$NODE_TEST_MIN" || die "$why; .tools/ holds Node.js $have. Install Node.js 20 or later and run again."
  say "using Node.js $have from .tools/"
}

need_build_tools() {
  need_node
  command -v emcc >/dev/null 2>&1 || apt_install emscripten
}

# The relaxed-SIMD kernels (fused multiply-add) need Debian 12's clang 16 and its wasm-ld:
# emcc 3.1.6's clang 14 cannot emit them. Without them (no apt, or the packages cannot be had)
# the build goes on without that third kernel build and says so; load() then picks SIMD128.
RELAXED_CC=${RELAXED_CC:-clang-16}  # overridable, to try the build without them
RELAXED_LD=${RELAXED_LD:-wasm-ld-16}
have_relaxed_tools() { command -v "$RELAXED_CC" >/dev/null 2>&1 && command -v "$RELAXED_LD" >/dev/null 2>&1; }
want_relaxed_tools() {
  have_relaxed_tools && return 0
  [ "${QKV_NO_RELAXED:-0}" = 1 ] && return 1
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1; }; then
    ( apt_install clang-16 lld-16 ) || true
  fi
  have_relaxed_tools
}

need_test_tools() {
  local missing=()
  command -v gcc >/dev/null 2>&1 || missing+=(gcc)
  /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing+=(python3-numpy)
  # the PyTorch fixtures' --check (make_torch_fixtures.py, make_gpt_fixtures.py): about 45 s of apt
  /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || missing+=(python3-torch)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  fc-list 2>/dev/null | grep -qi 'Noto Sans CJK' || missing+=(fonts-noto-cjk)
  # the native fuzzer: clang with libFuzzer's runtime (tests/fuzz/run.mjs)
  local clang=clang-14
  command -v clang-14 >/dev/null 2>&1 || { command -v clang >/dev/null 2>&1 && clang=clang; } || missing+=(clang-14)
  if command -v "$clang" >/dev/null 2>&1 &&
     ! echo 'int LLVMFuzzerTestOneInput(const char* d, unsigned long n) { (void)d; (void)n; return 0; }' |
       "$clang" -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; then
    missing+=(libclang-rt-14-dev)
  fi
  [[ " ${missing[*]} " == *" clang-14 "* ]] && missing+=(libclang-rt-14-dev)
  # -m32 builds (native tests and fuzzer: long and size_t are 32 bits there, as on wasm32)
  if [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] &&
     ! echo 'int main(void) { return 0; }' | gcc -m32 -x c - -o /dev/null >/dev/null 2>&1; then
    missing+=(gcc-multilib g++-multilib)
  fi
  if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
}

# npm ci only where node_modules is not what package-lock.json locks (tools/installed.mjs reads
# the installed versions: file dates say nothing after a checkout). A node_modules that is a link
# (one install shared by several clones) is never emptied by npm ci from here: said instead.
npm_ci_if_needed() {  # npm_ci_if_needed DIR
  local dir=$1
  [ -d "$dir/node_modules" ] && node tools/installed.mjs "$dir" >/dev/null 2>&1 && return 0
  if [ -L "$dir/node_modules" ]; then
    say "$dir/node_modules is a link and is not what $dir/package-lock.json locks; not running npm ci into it:"
    node tools/installed.mjs "$dir" >&2 || true
    return 0
  fi
  if [ "$dir" = . ]; then say "npm ci"; else say "npm ci in $dir/"; fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}

npm_install() { npm_ci_if_needed .; }

# The benchmark's peers (bench/package.json: TensorFlow.js, onnxruntime-web, about 214 MB), which
# the package's own npm ci leaves out: installed once here for the tests that run them
# (bench-smoke, gpt-tfjs), so that no test installs them and no two race in bench/.
bench_peers_install() { npm_ci_if_needed bench; }

# Debian's emcc 3.1.6 runs its JS optimizer with the first `node` on PATH; a non-Debian Node
# cannot see Debian's acorn unless NODE_PATH points at Debian's node modules.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# The WebAssembly build is two modules sharing one memory, four with the GPT engine and its kernels
# (web/loader.js instantiates them):
#  - the kernels (checks, products, softmax, attention): optimised for speed, built twice, with
#    SIMD128 and without; the API picks one at load time by feature detection;
#  - the GPT kernels (GELU's loops, AdamW, the output layer's softmax with its gradient): built as
#    the kernels are, each build into a module of its own (qkv-gpt-kernels-NAME.wasm) that travels
#    with the GPT engine, so that an app's first load (the core and the SIMD128 kernels) leaves
#    out what only the GPT runs;
#  - the core (RNG, positional encoding, multi-head attention, model, allocator, error messages, the small maths library): optimised for size, built once by emcc with its glue, importing
#    the kernels it calls from "qkv_kernels" (multi-head attention runs each head through the
#    kernels' attention; only its slicing is the core's);
#  - the GPT engine (LayerNorm, GELU's checked layer, the sampler's exps, the GPT; build_gpt), loaded only by load({ gpt: true }).
# The pretrained poet's weights travel the same way (tools/pretrained-bundle.mjs: dist/qkv-pretrained.js),
# imported only by qkv.loadPretrained().
# Only the kernels are built twice, so the scalar fallback costs a few KiB, not a second copy.
# A third kernel build, relaxed SIMD (fused multiply-add; Chrome >= 114, Firefox >= 120, not
# Safari), comes from clang 16 where it is installed (build_relaxed_kernels) and travels in a
# module of its own, web/dist/qkv-relaxed.js, that load() imports only where it validates.
KERNEL_SOURCES=(wasm/checks.c wasm/matrix.c wasm/attention.c)
GPT_KERNEL_SOURCES=(wasm/gelu_kernel.c wasm/adamw_kernel.c wasm/softmax_ce_kernel.c)
CORE_SOURCES=(wasm/errors.c wasm/mathlib.c wasm/rng.c wasm/positions.c wasm/multihead.c wasm/model.c
  wasm/exports.c)
GPT_SOURCES=(wasm/layernorm.c wasm/gelu.c wasm/gpt.c)
KERNEL_OPT=(-O3)          # tools/wasm-bundle.mjs prints the sizes that decided these levels
# The relaxed kernels without loop strength reduction, as emcc compiles every file (it passes
# -mllvm -disable-lsr itself): with it, clang 16 rewrites the GEMM micro-kernel's constant offsets
# from its two pointers (a packed tile of A, a packed panel of B) into a pointer per load, an
# integer addition each that V8 cannot fold into the load's address (6 per 8 multiply-adds);
# without it they stay load offsets, which V8 folds. Integer addressing only: no float changes.
RELAXED_FLAGS=(-mllvm -disable-lsr)
KERNEL_SCALAR_OPT=(-Os)
# ...but for these, at KERNEL_OPT: at -Os GELU's loops took 10.3 ms of the GPT's scalar step, at
# -O3 8.3 ms (bench/gpt-profile.mjs), for 0.1 KiB more deflated
KERNEL_SCALAR_FAST=(wasm/gelu_kernel.c)
CORE_OPT=(-Oz)
GPT_OPT=(-O3)

# The exported surfaces: keep in step with wasm/qkv.h and web/qkv-lab.js.
# The kernels the core calls (emcc fails if one is missing here), and what JavaScript calls.
CORE_IMPORTS=(
  qkv_check_finite qkv_elements matmul_forward matmul_backward softmax_rows_forward
  attention_forward_unchecked attention_backward_unchecked
  matmul_abt matmul_accumulate matmul_atb_accumulate transpose_forward
)
# The unchecked kernels only the GPT module calls (internal, like CORE_IMPORTS: no public contract):
# the products' from the kernels, the rest the GPT kernels' (GPT_KERNEL_SOURCES).
GPT_KERNEL_IMPORTS=(matmul_atb)
GPT_KERNEL_EXPORTS=(softmax_crossentropy_rows gelu_forward bias_gelu_forward gelu_backward adamw_step __stack_pointer)
KERNEL_EXPORTS=(
  "${CORE_IMPORTS[@]}" "${GPT_KERNEL_IMPORTS[@]}"
  qkv_matmul qkv_transpose qkv_softmax_rows
  qkv_attention_forward qkv_attention_forward_keep qkv_attention_backward qkv_self_attention_forward
  __stack_pointer
)
GPT_CORE_IMPORTS=(calloc qkv_log qkv_exp qkv_cos qkv_rng_double qkv_rng_gauss)
EXPORTS=(
  _malloc _free
  _qkv_error_message _qkv_alloc_floats _qkv_alloc_bytes _qkv_free _qkv_heap_used _qkv_rng_size
  _qkv_rng_seed _qkv_rng_randn _qkv_positional_encoding _qkv_multi_head_attention_forward
  _qkv_model_create _qkv_model_destroy _qkv_model_set_optimizer _qkv_model_tensor
  _qkv_model_num_params _qkv_model_forward _qkv_model_loss_and_grad _qkv_model_loss_and_grad_range _qkv_model_update
  _qkv_model_shuffle _qkv_model_sentence_losses
  _qkv_model_state_bytes _qkv_model_save_state _qkv_model_load_state
  "${GPT_CORE_IMPORTS[@]/#/_}"
)
# The GPT module (GPT_SOURCES): what JavaScript calls (load({ gpt: true }) puts each on the core's
# module object as _name, beside the core's own), and what it imports from the core (the
# allocator, the maths library, the RNG; the core exports them for it; its zeroing and copies are
# memory.fill and memory.copy: build_gpt).
# Its kernels come from the kernel module the instance runs.
GPT_EXPORTS=(
  qkv_layernorm_forward qkv_layernorm_backward qkv_gelu_forward qkv_gelu_backward
  qkv_transformer_block_layout qkv_transformer_block_forward
  qkv_gpt_create qkv_gpt_create_inference qkv_gpt_destroy qkv_gpt_set_optimizer qkv_gpt_set_data qkv_gpt_loss_and_grad
  qkv_gpt_step qkv_gpt_evaluate qkv_gpt_forward qkv_gpt_score qkv_gpt_generate qkv_gpt_generate_masked qkv_gpt_tensor
  qkv_gpt_num_params qkv_gpt_steps
  qkv_gpt_create_lora qkv_gpt_lora_merge qkv_gpt_trainable_count qkv_gpt_memory_bytes qkv_gpt_set_reference
  __stack_pointer
)

# The relaxed-SIMD kernels: the same sources, compiled by clang 16 with -mrelaxed-simd (which
# makes wasm/simd.h's QKV_MADD an f32x4.relaxed_madd) against Emscripten's headers, and linked
# by wasm-ld-16 directly: the clang driver's link step would run Debian's wasm-opt (binaryen of
# emcc 3.1.6), which cannot parse the relaxed opcodes ("invalid code after SIMD prefix"). The
# same invariants hold (tools/wasm-bundle.mjs checks them): memory imported, no data, no libc.
# the objects of build_kernels' or build_relaxed_kernels' `objs` (source → object) for these sources
objects_of() { local src; for src in "$@"; do echo "${objs[$src]}"; done; }

build_relaxed_kernels() {  # .build/qkv-kernels-relaxed.wasm, .build/qkv-gpt-kernels-relaxed.wasm
  local sysroot src obj
  local -A objs=()
  sysroot=$(emcc --cflags | tr ' ' '\n' | sed -n 's/^--sysroot=//p')
  for src in "${KERNEL_SOURCES[@]}" "${GPT_KERNEL_SOURCES[@]}"; do
    obj=.build/relaxed-$(basename "$src" .c).o
    "$RELAXED_CC" --target=wasm32-unknown-emscripten --sysroot="$sysroot" -std=c11 "${KERNEL_OPT[@]}" \
      -msimd128 -mrelaxed-simd -mmutable-globals -fno-builtin -Wall -Wextra -Werror "${RELAXED_FLAGS[@]}" -c "$src" -o "$obj"
    objs[$src]=$obj
  done
  "$RELAXED_LD" --no-entry --import-memory --strip-all $(printf -- '--export=%s ' "${KERNEL_EXPORTS[@]}") \
    $(objects_of "${KERNEL_SOURCES[@]}") -o .build/qkv-kernels-relaxed.wasm
  "$RELAXED_LD" --no-entry --import-memory --strip-all $(printf -- '--export=%s ' "${GPT_KERNEL_EXPORTS[@]}") \
    $(objects_of "${GPT_KERNEL_SOURCES[@]}") -o .build/qkv-gpt-kernels-relaxed.wasm
}

build_kernels() {  # build_kernels NAME CFLAGS...: .build/qkv-kernels-NAME.wasm, .build/qkv-gpt-kernels-NAME.wasm
  local name=$1; shift
  local src obj module
  local -A objs=()
  for src in "${KERNEL_SOURCES[@]}" "${GPT_KERNEL_SOURCES[@]}"; do
    obj=.build/$name-$(basename "$src" .c).o
    # -fno-builtin: no calls to memset & co. (this module has no C library); the kernels use
    # __builtin_floorf and friends, which stay single instructions.
    local flags=("$@")
    [[ "$name" = scalar && " ${KERNEL_SCALAR_FAST[*]} " = *" $src "* ]] && flags=("${KERNEL_OPT[@]}")
    emcc -std=c11 "${flags[@]}" -fno-builtin -mmutable-globals -Wall -Wextra -Werror -c "$src" -o "$obj"
    objs[$src]=$obj
  done
  # no C library, no data, no entry point; the memory is the core's. __stack_pointer is
  # exported so that the API can point it at stack space the core allocated.
  wasm-ld --no-entry --import-memory --strip-all $(printf -- '--export=%s ' "${KERNEL_EXPORTS[@]}") \
    $(objects_of "${KERNEL_SOURCES[@]}") -o ".build/qkv-kernels-$name.wasm"
  wasm-ld --no-entry --import-memory --strip-all $(printf -- '--export=%s ' "${GPT_KERNEL_EXPORTS[@]}") \
    $(objects_of "${GPT_KERNEL_SOURCES[@]}") -o ".build/qkv-gpt-kernels-$name.wasm"
  for module in ".build/qkv-kernels-$name.wasm" ".build/qkv-gpt-kernels-$name.wasm"; do
    wasm-opt --enable-simd --enable-mutable-globals "${@:1:1}" "$module" -o "$module"
  done
}

# The GPT engine (GPT_SOURCES): a module of its own, like the kernels sharing the core's memory,
# owning nothing in it (no data, no C library: its undefined functions become imports, which
# web/loader.js binds to the core's and the kernels' exports), its own stack pointed by the API
# at space the core allocated. Plain WebAssembly (no SIMD: its products, softmax, GELU and AdamW are the kernels'), so one
# build runs on every engine; it travels in web/dist/qkv-gpt.js, imported by load({ gpt: true }).
# -mbulk-memory: its memset and memcpy become memory.fill and memory.copy, inline (the core's, from
# emcc's -Oz C library, are byte loops: a default GPT's creation 46-54 -> 39-44 ms, a step 1% faster;
# Chrome 75, Firefox 79, Safari 15; web/loader.js names the feature where the compile fails).
build_gpt() {  # .build/qkv-gpt.wasm
  local objs=() src obj
  for src in "${GPT_SOURCES[@]}"; do
    obj=.build/gpt-$(basename "$src" .c).o
    emcc -std=c11 "${GPT_OPT[@]}" -mmutable-globals -mbulk-memory -Wall -Wextra -Werror -c "$src" -o "$obj"
    objs+=("$obj")
  done
  wasm-ld --no-entry --import-memory --allow-undefined --strip-all \
    $(printf -- '--export=%s ' "${GPT_EXPORTS[@]}") "${objs[@]}" -o .build/qkv-gpt.wasm
  wasm-opt --enable-mutable-globals --enable-bulk-memory "${GPT_OPT[@]}" .build/qkv-gpt.wasm -o .build/qkv-gpt.wasm
}

build_wasm() {
  need_build_tools
  mkdir -p web/dist .build
  local list
  list=$(printf '"%s",' "${EXPORTS[@]}"); list="[${list%,}]"
  say "emcc -> web/dist/qkv-core.js, web/dist/qkv-wasm.js"
  build_kernels simd "${KERNEL_OPT[@]}" -msimd128
  build_kernels scalar "${KERNEL_SCALAR_OPT[@]}"
  build_gpt
  local relaxed=()
  rm -f .build/qkv-kernels-relaxed.wasm .build/qkv-gpt-kernels-relaxed.wasm
  if want_relaxed_tools; then
    build_relaxed_kernels
    relaxed=(.build/qkv-kernels-relaxed.wasm)
  else
    say "relaxed SIMD: $RELAXED_CC and $RELAXED_LD are missing (Debian 12: apt-get install clang-16 lld-16): building without the relaxed-SIMD kernels; load() uses SIMD128 or scalar"
  fi
  # -sENVIRONMENT=web + -sEXPORT_ES6: the glue that loads in Node and in browsers alike (with
  # emcc 3.1.6, an ES6 glue whose environment includes node throws "__dirname is not defined in
  # ES module scope" in Node); the API hands it the modules' bytes itself (instantiateWasm), so
  # it never fetches, and the bytes travel as base64 in web/dist/qkv-wasm.js.
  # -sUSE_ES6_IMPORT_META=0: with import.meta.url in the glue, webpack writes the build
  # machine's node_modules path into users' bundles. --pre-js wasm/glue-pre.js: the glue has no
  # fetch() to call (a strict CSP would refuse one).
  # The core's calls into the kernels are imports; this JS library declares them (emcc then
  # knows them) with stand-ins that web/loader.js replaces by the kernel module's exports.
  { echo '// generated by build.sh: the kernels the core imports (see web/loader.js, bindKernels)'
    echo 'mergeInto(LibraryManager.library, {'
    for name in "${CORE_IMPORTS[@]}"; do
      echo "  $name: function() { throw new Error('qkv-lab: kernel $name is not bound'); },"
      echo "  ${name}__postset: '_$name.qkvKernel = \"$name\";',"
    done
    echo '});'
  } > .build/kernel-imports.js
  emcc -std=c11 "${CORE_OPT[@]}" -Wall -Wextra -Werror "${CORE_SOURCES[@]}" \
    -o .build/qkv-core.js \
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createQkvCore -sUSE_ES6_IMPORT_META=0 -sENVIRONMENT=web \
    -sIMPORTED_MEMORY=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=1gb -sMALLOC=emmalloc \
    --js-library .build/kernel-imports.js \
    -sFILESYSTEM=0 -sDYNAMIC_EXECUTION=0 -sASSERTIONS=0 -sTEXTDECODER=2 \
    -sINCOMING_MODULE_JS_API='["instantiateWasm","locateFile"]' \
    -sEXPORTED_FUNCTIONS="$list" \
    -sEXPORTED_RUNTIME_METHODS='["UTF8ToString"]' \
    --pre-js wasm/glue-pre.js
  cp .build/qkv-core.js web/dist/qkv-core.js
  # the relaxed module validates in Node 20 only with --experimental-wasm-relaxed-simd (Node 22
  # runs it as it is and may not know the flag)
  local node_relaxed=(node)
  node --experimental-wasm-relaxed-simd -e 0 >/dev/null 2>&1 && node_relaxed=(node --experimental-wasm-relaxed-simd)
  "${node_relaxed[@]}" tools/wasm-bundle.mjs .build/qkv-core.wasm .build/qkv-kernels-simd.wasm \
    .build/qkv-kernels-scalar.wasm web/dist/qkv-wasm.js web/dist/qkv-scalar.js web/dist/qkv-relaxed.js \
    .build/qkv-gpt.wasm .build/qkv-core.js web/dist/qkv-gpt.js "${relaxed[@]}"
  # the pretrained Tang poet (committed as web/pretrained/tang-poet.qkvgpt) as a module of its own,
  # imported only by qkv.loadPretrained(); without the file, a module that says there is none
  node tools/pretrained-bundle.mjs web/pretrained/tang-poet.qkvgpt web/dist/qkv-pretrained.js
  # the declarations' lists of sections (QkvLabSection), written from the section registry: a
  # section added there is a value of the types at the next build (commit the .d.ts it rewrites)
  node tools/section-types.mjs
  if [ -d node_modules/esbuild ]; then
    node tools/build-page.mjs
  else
    say "node_modules missing: skipping the page bundle (run ./build.sh setup, or npm ci)"
  fi
}

case "$MODE" in
  setup) need_build_tools; want_relaxed_tools || true; need_test_tools; need_test_node; npm_install; bench_peers_install ;;
  build) npm_install; build_wasm ;;
  serve)
    need_build_tools; npm_install; build_wasm
    say "serving web/ on http://localhost:${PORT:-8000}/ (Ctrl-C stops)"
    exec node tools/serve.js web "${PORT:-8000}" ;;
  test)
    need_build_tools; need_test_tools; need_test_node; npm_install; bench_peers_install
    # The native fuzzers need only wasm/*.c and clang: they fuzz while the WebAssembly is built
    # (which keeps about one core busy), and tests/run-all.sh waits for them and prints their report.
    QKV_NATIVE_FUZZ_LOG=$(mktemp); QKV_NATIVE_FUZZ_STATUS=$(mktemp)
    ( node tests/fuzz/run.mjs --seconds "${FUZZ_SECONDS:-20}" --seed 1 --jobs 2 --target native,native32 \
        > "$QKV_NATIVE_FUZZ_LOG" 2>&1; echo $? > "$QKV_NATIVE_FUZZ_STATUS" ) &
    QKV_NATIVE_FUZZ_PID=$!
    export QKV_NATIVE_FUZZ_LOG QKV_NATIVE_FUZZ_STATUS QKV_NATIVE_FUZZ_PID
    build_wasm
    say "Node.js $(node_version)"
    exec bash tests/run-all.sh ;;
  *) die "unknown command '$MODE' (use: build, serve, test, setup)" ;;
esac
