/*
 * exports.c: the WebAssembly surface. The only file that includes emscripten.h.
 * The computation files (rng.c, matrix.c, attention.c, model.c) export their checked qkv_*
 * functions directly (listed in build.sh); this file adds what JavaScript needs around them:
 * allocation with overflow checks, the heap meter, and struct sizes.
 */
#include <emscripten.h>
#include <malloc.h>
#include <stdlib.h>

#include "qkv.h"

/* count floats, or 0 (and nothing allocated) when count is 0 or too large */
EMSCRIPTEN_KEEPALIVE float* qkv_alloc_floats(int count) {
    if (count <= 0 || (size_t)count > QKV_MAX_ELEMENTS) return NULL;
    return (float*)malloc((size_t)count * sizeof(float));
}

EMSCRIPTEN_KEEPALIVE void* qkv_alloc_bytes(int bytes) {
    if (bytes <= 0) return NULL;
    return malloc((size_t)bytes);
}

EMSCRIPTEN_KEEPALIVE void qkv_free(void* ptr) { free(ptr); }

/* bytes allocated with malloc and not yet freed */
EMSCRIPTEN_KEEPALIVE int qkv_heap_used(void) { return (int)mallinfo().uordblks; }

EMSCRIPTEN_KEEPALIVE int qkv_rng_size(void) { return (int)sizeof(qkv_rng); }
