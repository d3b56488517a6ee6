/*
 * ceiling.c: the machine's arithmetic ceilings, measured beside everything else by bench/run.mjs.
 *   WebAssembly (emcc -O3 -msimd128): f32x4 multiply then add, the operation pair every SIMD128
 *     product kernel is made of (WebAssembly has no fused multiply-add), on 8, 12 and 16
 *     independent accumulators so that latency does not hide throughput; the best is the ceiling.
 *   native (gcc -O3 -march=native): fused multiply-add on 256-bit and, where present, 512-bit
 *     vectors, 12 accumulators.
 * Each function runs `iters` iterations and returns a sum of the accumulators, so nothing is
 * optimised away; flops per iteration: accumulators x lanes x 2.
 */
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#define STEP(a) a = wasm_f32x4_add(wasm_f32x4_mul(a, m), c)

__attribute__((export_name("mul_add_8"))) float mul_add_8(int iters) {
    v128_t m = wasm_f32x4_splat(0.999f), c = wasm_f32x4_splat(0.001f);
    v128_t a0 = m, a1 = c, a2 = m, a3 = c, a4 = m, a5 = c, a6 = m, a7 = c;
    for (int i = 0; i < iters; i++) {
        STEP(a0); STEP(a1); STEP(a2); STEP(a3); STEP(a4); STEP(a5); STEP(a6); STEP(a7);
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)),
                              wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)));
    return wasm_f32x4_extract_lane(s, 0);
}

__attribute__((export_name("mul_add_12"))) float mul_add_12(int iters) {
    v128_t m = wasm_f32x4_splat(0.999f), c = wasm_f32x4_splat(0.001f);
    v128_t a0 = m, a1 = c, a2 = m, a3 = c, a4 = m, a5 = c, a6 = m, a7 = c, a8 = m, a9 = c, a10 = m, a11 = c;
    for (int i = 0; i < iters; i++) {
        STEP(a0); STEP(a1); STEP(a2); STEP(a3); STEP(a4); STEP(a5);
        STEP(a6); STEP(a7); STEP(a8); STEP(a9); STEP(a10); STEP(a11);
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)),
                              wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)));
    s = wasm_f32x4_add(s, wasm_f32x4_add(wasm_f32x4_add(a8, a9), wasm_f32x4_add(a10, a11)));
    return wasm_f32x4_extract_lane(s, 0);
}

__attribute__((export_name("mul_add_16"))) float mul_add_16(int iters) {
    v128_t m = wasm_f32x4_splat(0.999f), c = wasm_f32x4_splat(0.001f);
    v128_t a0 = m, a1 = c, a2 = m, a3 = c, a4 = m, a5 = c, a6 = m, a7 = c;
    v128_t a8 = m, a9 = c, a10 = m, a11 = c, a12 = m, a13 = c, a14 = m, a15 = c;
    for (int i = 0; i < iters; i++) {
        STEP(a0); STEP(a1); STEP(a2); STEP(a3); STEP(a4); STEP(a5); STEP(a6); STEP(a7);
        STEP(a8); STEP(a9); STEP(a10); STEP(a11); STEP(a12); STEP(a13); STEP(a14); STEP(a15);
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)),
                              wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)));
    s = wasm_f32x4_add(s, wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a8, a9), wasm_f32x4_add(a10, a11)),
                                         wasm_f32x4_add(wasm_f32x4_add(a12, a13), wasm_f32x4_add(a14, a15))));
    return wasm_f32x4_extract_lane(s, 0);
}
#endif
