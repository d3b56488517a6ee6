/*
 * ceiling.c: the machine's arithmetic ceilings, measured beside everything else by bench/run.mjs.
 *   WebAssembly (emcc -O3 -msimd128): f32x4 multiply then add, the operation pair every SIMD128
 *     product kernel is made of (SIMD128 has no fused multiply-add), on 8, 12 and 16
 *     independent accumulators so that latency does not hide throughput; the best is the ceiling.
 *   WebAssembly relaxed SIMD (clang-16 -O3 -msimd128 -mrelaxed-simd, linked by wasm-ld-16): the
 *     same loops with f32x4.relaxed_madd, the fused multiply-add the relaxed kernels use.
 *   native (gcc -O3 -march=native): fused multiply-add on 256-bit and, where present, 512-bit
 *     vectors, 12 accumulators.
 * Each function runs `iters` iterations and returns a sum of the accumulators, so nothing is
 * optimised away; flops per iteration: accumulators x lanes x 2.
 */
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#ifdef __wasm_relaxed_simd__
/* the relaxed-SIMD build (clang-16 -mrelaxed-simd, bench/run.mjs): the same loops with
   f32x4.relaxed_madd, a fused multiply-add where the processor has one: the FMA ceiling */
typedef float f32x4 __attribute__((__vector_size__(16), __aligned__(16)));
#define STEP(a) a = (v128_t)__builtin_wasm_relaxed_madd_f32x4((f32x4)(a), (f32x4)m, (f32x4)c)
#else
#define STEP(a) a = wasm_f32x4_add(wasm_f32x4_mul(a, m), c)
#endif

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
