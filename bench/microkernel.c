/*
 * microkernel.c: the GEMM micro-kernel of wasm/matrix.c (nn_mrx8: MR rows x 8 columns of out in
 * registers, each step broadcasting MR values of a packed tile of A into two vectors of a packed
 * panel of B) and variants of it, on operands that stay in L1, for bench/microkernel.mjs:
 *   tile_4x8      the SIMD128 build's kernel as matrix.c has it (8 accumulators)
 *   tile_5x8      5 rows (10 accumulators)
 *   tile_6x8      6 rows (12 accumulators)
 *   tile_4x8_pre  A packed already broadcast (four copies of each value): vector loads, no splats
 *   tile_4x8_shuf A's four values of a step in one vector load, splat by shuffles
 *   tile_5x8_shuf 5 rows, rows 0..3 of a step one vector load split by shuffles, row 4 a splat:
 *                 the relaxed build's kernel in matrix.c (10 accumulators)
 * Built twice by the script: relaxed SIMD (clang-16, fused multiply-add, matrix.c's relaxed build)
 * and SIMD128 (emcc, a multiply then an add). Each export runs `reps` calls of K = 256 steps and
 * returns a value of the output so that nothing is optimised away.
 */
#include <stddef.h>
#include <wasm_simd128.h>

#ifdef __wasm_relaxed_simd__
typedef float f32x4 __attribute__((__vector_size__(16), __aligned__(16)));
#define MADD(c, a, b) ((v128_t)__builtin_wasm_relaxed_madd_f32x4((f32x4)(a), (f32x4)(b), (f32x4)(c)))
#else
#define MADD(c, a, b) wasm_f32x4_add(wasm_f32x4_mul((a), (b)), (c))
#endif

#define K 256
static float A[K * 6 * 4] __attribute__((aligned(64)));
static float B[K * 8] __attribute__((aligned(64)));
static float C[6 * 8] __attribute__((aligned(64)));

#define TILE(NAME, MR)                                                                              \
    __attribute__((noinline)) static void NAME##_k(float* o, const float* pa, const float* panel) {   \
        v128_t c0[MR], c1[MR];                                                                      \
        for (int r = 0; r < MR; r++) {                                                              \
            c0[r] = wasm_v128_load(o + r * 8);                                                      \
            c1[r] = wasm_v128_load(o + r * 8 + 4);                                                  \
        }                                                                                           \
        for (const float *b = panel, *end = panel + (size_t)K * 8; b < end; b += 8, pa += MR) {     \
            v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);                              \
            for (int r = 0; r < MR; r++) {                                                          \
                v128_t x = wasm_v128_load32_splat(pa + r);                                          \
                c0[r] = MADD(c0[r], x, b0);                                                         \
                c1[r] = MADD(c1[r], x, b1);                                                         \
            }                                                                                       \
        }                                                                                           \
        for (int r = 0; r < MR; r++) {                                                              \
            wasm_v128_store(o + r * 8, c0[r]);                                                      \
            wasm_v128_store(o + r * 8 + 4, c1[r]);                                                  \
        }                                                                                           \
    }                                                                                               \
    __attribute__((export_name(#NAME))) float NAME(int reps) {                                      \
        for (int i = 0; i < reps; i++) NAME##_k(C, A, B);                                           \
        return C[0];                                                                                \
    }

TILE(tile_4x8, 4)
TILE(tile_5x8, 5)
TILE(tile_6x8, 6)

/* term p of row r at pa[(p * 4 + r) * 4 .. + 4) */
__attribute__((noinline)) static void pre_k(float* o, const float* pa, const float* panel) {
    v128_t c0[4], c1[4];
    for (int r = 0; r < 4; r++) { c0[r] = wasm_v128_load(o + r * 8); c1[r] = wasm_v128_load(o + r * 8 + 4); }
    for (const float *b = panel, *end = panel + (size_t)K * 8; b < end; b += 8, pa += 16) {
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
        for (int r = 0; r < 4; r++) {
            v128_t x = wasm_v128_load(pa + 4 * r);
            c0[r] = MADD(c0[r], x, b0);
            c1[r] = MADD(c1[r], x, b1);
        }
    }
    for (int r = 0; r < 4; r++) { wasm_v128_store(o + r * 8, c0[r]); wasm_v128_store(o + r * 8 + 4, c1[r]); }
}
__attribute__((export_name("tile_4x8_pre"))) float tile_4x8_pre(int reps) {
    for (int i = 0; i < reps; i++) pre_k(C, A, B);
    return C[0];
}

__attribute__((noinline)) static void shuf_k(float* o, const float* pa, const float* panel) {
    v128_t c0[4], c1[4];
    for (int r = 0; r < 4; r++) { c0[r] = wasm_v128_load(o + r * 8); c1[r] = wasm_v128_load(o + r * 8 + 4); }
    for (const float *b = panel, *end = panel + (size_t)K * 8; b < end; b += 8, pa += 4) {
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4), a = wasm_v128_load(pa);
        v128_t x0 = wasm_i32x4_shuffle(a, a, 0, 0, 0, 0), x1 = wasm_i32x4_shuffle(a, a, 1, 1, 1, 1);
        v128_t x2 = wasm_i32x4_shuffle(a, a, 2, 2, 2, 2), x3 = wasm_i32x4_shuffle(a, a, 3, 3, 3, 3);
        c0[0] = MADD(c0[0], x0, b0); c1[0] = MADD(c1[0], x0, b1);
        c0[1] = MADD(c0[1], x1, b0); c1[1] = MADD(c1[1], x1, b1);
        c0[2] = MADD(c0[2], x2, b0); c1[2] = MADD(c1[2], x2, b1);
        c0[3] = MADD(c0[3], x3, b0); c1[3] = MADD(c1[3], x3, b1);
    }
    for (int r = 0; r < 4; r++) { wasm_v128_store(o + r * 8, c0[r]); wasm_v128_store(o + r * 8 + 4, c1[r]); }
}
__attribute__((export_name("tile_4x8_shuf"))) float tile_4x8_shuf(int reps) {
    for (int i = 0; i < reps; i++) shuf_k(C, A, B);
    return C[0];
}

/* 5 rows: A's rows 0..3 of a step as one vector, split by shuffles (pure operations, which V8
   schedules next to their use, where it hoists every load to the top of the loop: five splats
   loaded at once spilled tile_5x8's accumulators), row 4 a splat; term p at pa[p * 5 .. + 5) */
__attribute__((noinline)) static void shuf5_k(float* o, const float* pa, const float* panel) {
    v128_t c0[5], c1[5];
    for (int r = 0; r < 5; r++) { c0[r] = wasm_v128_load(o + r * 8); c1[r] = wasm_v128_load(o + r * 8 + 4); }
    for (const float *b = panel, *end = panel + (size_t)K * 8; b < end; b += 8, pa += 5) {
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4), a = wasm_v128_load(pa);
        v128_t x = wasm_i32x4_shuffle(a, a, 0, 0, 0, 0);
        c0[0] = MADD(c0[0], x, b0); c1[0] = MADD(c1[0], x, b1);
        x = wasm_i32x4_shuffle(a, a, 1, 1, 1, 1);
        c0[1] = MADD(c0[1], x, b0); c1[1] = MADD(c1[1], x, b1);
        x = wasm_i32x4_shuffle(a, a, 2, 2, 2, 2);
        c0[2] = MADD(c0[2], x, b0); c1[2] = MADD(c1[2], x, b1);
        x = wasm_i32x4_shuffle(a, a, 3, 3, 3, 3);
        c0[3] = MADD(c0[3], x, b0); c1[3] = MADD(c1[3], x, b1);
        x = wasm_v128_load32_splat(pa + 4);
        c0[4] = MADD(c0[4], x, b0); c1[4] = MADD(c1[4], x, b1);
    }
    for (int r = 0; r < 5; r++) { wasm_v128_store(o + r * 8, c0[r]); wasm_v128_store(o + r * 8 + 4, c1[r]); }
}
__attribute__((export_name("tile_5x8_shuf"))) float tile_5x8_shuf(int reps) {
    for (int i = 0; i < reps; i++) shuf5_k(C, A, B);
    return C[0];
}

/* small values, so that the sums stay finite over any number of calls' accumulation */
__attribute__((export_name("fill"))) void fill(void) {
    for (int i = 0; i < K * 24; i++) A[i] = 1e-6f * (float)(i % 7);
    for (int i = 0; i < K * 8; i++) B[i] = 1e-6f * (float)(i % 5);
}
