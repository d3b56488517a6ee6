/* checks.c: the size and finiteness checks every exported function starts with. They belong to
 * the kernels' WebAssembly module (see build.sh), which every other part imports them from. */
#include <math.h>

#include "qkv_internal.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

size_t qkv_elements(int rows, int cols) {
    if (rows <= 0 || cols <= 0 || rows > QKV_MAX_SIDE || cols > QKV_MAX_SIDE) return 0;
    size_t count = (size_t)rows * (size_t)cols;  /* both <= 2^24: no size_t overflow on 64 bit;
                                                     on wasm32 check by division */
    if (count / (size_t)cols != (size_t)rows || count > QKV_MAX_ELEMENTS) return 0;
    return count;
}

int qkv_check_size(int rows, int cols) {
    return qkv_elements(rows, cols) ? QKV_OK : QKV_ERR_SIZE;
}

int qkv_check_finite(const float* x, size_t count) {
    if (!x) return QKV_ERR_NULL;
    size_t i = 0;
#ifdef __wasm_simd128__
    /* |x| < inf is false for NaN and +-inf: 16 entries per test */
    v128_t inf = wasm_f32x4_splat(INFINITY);
    for (; i + 16 <= count; i += 16) {
        v128_t a = wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(x + i)), inf);
        v128_t b = wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(x + i + 4)), inf);
        v128_t c = wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(x + i + 8)), inf);
        v128_t d = wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(x + i + 12)), inf);
        if (!wasm_i32x4_all_true(wasm_v128_and(wasm_v128_and(a, b), wasm_v128_and(c, d))))
            return QKV_ERR_NONFINITE;
    }
#endif
    for (; i < count; i++) {
        if (!isfinite(x[i])) return QKV_ERR_NONFINITE;
    }
    return QKV_OK;
}
