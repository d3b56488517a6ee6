/*
 * exports.c: the WebAssembly surface. The only file that includes emscripten.h.
 * The computation files (rng.c, matrix.c, attention.c, model.c) export their checked qkv_*
 * functions directly (listed in build.sh); this file adds what JavaScript needs around them:
 * allocation with overflow checks, the heap meter, and struct sizes.
 * Without Emscripten it builds as plain C too (the allocator below is Emscripten's; natively the
 * heap meter is glibc's), so the native fuzzer (tests/fuzz/) can drive the same entry points.
 */
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#define EMSCRIPTEN_KEEPALIVE
#include <malloc.h>
#endif
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "qkv.h"

/* count floats, or 0 (and nothing allocated) when count is 0 or too large */
EMSCRIPTEN_KEEPALIVE float* qkv_alloc_floats(int count) {
    if (count <= 0 || (size_t)count > QKV_MAX_ELEMENTS) return NULL;
    return (float*)malloc((size_t)count * sizeof(float));
}

/* bytes bytes, or 0 (and nothing allocated) when bytes is 0 or above QKV_MAX_BYTES */
EMSCRIPTEN_KEEPALIVE void* qkv_alloc_bytes(int bytes) {
    if (bytes <= 0 || (size_t)bytes > QKV_MAX_BYTES) return NULL;
    return malloc((size_t)bytes);
}

EMSCRIPTEN_KEEPALIVE void qkv_free(void* ptr) { free(ptr); }

#ifdef __EMSCRIPTEN__
/*
 * The allocator is emmalloc (-sMALLOC=emmalloc, 5 KiB smaller than dlmalloc). Neither its
 * mallinfo() (which counts the header of every free region as used) nor its usable sizes (a
 * block can absorb a neighbour's slack after it was allocated) give a figure that returns
 * exactly to where it was when everything allocated is freed. So these replace emmalloc's weak
 * malloc, calloc, realloc and free: each block carries its requested size in a 16-byte prefix,
 * and qkv_heap_used() is the sum of the requested sizes of the live blocks, byte for byte.
 */
void* emmalloc_malloc(size_t size);
void emmalloc_free(void* ptr);

#define PREFIX 16
static size_t bytes_in_use;

void* malloc(size_t size) {
    if (size > (size_t)-1 - PREFIX) return NULL;
    unsigned char* block = emmalloc_malloc(size + PREFIX);
    if (!block) return NULL;
    memcpy(block, &size, sizeof size);
    bytes_in_use += size;
    return block + PREFIX;
}

void free(void* ptr) {
    if (!ptr) return;
    unsigned char* block = (unsigned char*)ptr - PREFIX;
    size_t size;
    memcpy(&size, block, sizeof size);
    bytes_in_use -= size;
    emmalloc_free(block);
}

void* calloc(size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) return NULL;
    void* ptr = malloc(count * size);
    if (ptr) memset(ptr, 0, count * size);
    return ptr;
}

void* realloc(void* ptr, size_t size) {
    if (!ptr) return malloc(size);
    if (!size) { free(ptr); return NULL; }
    size_t old;
    memcpy(&old, (unsigned char*)ptr - PREFIX, sizeof old);
    void* moved = malloc(size);
    if (!moved) return NULL;
    memcpy(moved, ptr, old < size ? old : size);
    free(ptr);
    return moved;
}

/* bytes allocated and not yet freed */
EMSCRIPTEN_KEEPALIVE int qkv_heap_used(void) { return (int)bytes_in_use; }
#else
/* natively: what glibc's meter sees (under a sanitizer's allocator, that may be nothing) */
EMSCRIPTEN_KEEPALIVE int qkv_heap_used(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    size_t used = mallinfo2().uordblks;
#else
    size_t used = (size_t)mallinfo().uordblks;
#endif
    return used > INT_MAX ? INT_MAX : (int)used;
}
#endif

EMSCRIPTEN_KEEPALIVE int qkv_rng_size(void) { return (int)sizeof(qkv_rng); }
