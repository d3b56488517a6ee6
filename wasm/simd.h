/*
 * simd.h: the pieces the kernels share, each in two versions that compute the same numbers.
 *
 * With -msimd128 (__wasm_simd128__) the kernels in matrix.c and attention.c use WebAssembly
 * SIMD128 through wasm_simd128.h; without it (the scalar WebAssembly build, and the native
 * gcc/clang builds the ASan/UBSan tests use) they run portable C. Both versions perform the
 * same float operations in the same order, so both builds give bit-identical results
 * (tests/simd.test.js checks it). What that takes:
 *   - dot products keep 4 partial sums, lane l summing the terms p = l (mod 4) in order, and
 *     combine them as (s0 + s2) + (s1 + s3), then add the k mod 4 leftover terms in order;
 *   - a*b + c is always a rounded product then a rounded sum (WebAssembly has no fused
 *     multiply-add, and FP_CONTRACT is off below for compilers that would fuse);
 *   - exp() is one polynomial, not the C library's, written twice with the same operations:
 *     exp_nonpositive (one float) and qkv_exp4n_with (vectors of four lanes).
 */
#ifndef QKV_SIMD_H
#define QKV_SIMD_H

#include <stdint.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/*
 * a * b + c on four lanes. SIMD128 has no fused multiply-add: a rounded product, then a rounded
 * sum. The relaxed-SIMD build (-mrelaxed-simd, clang 16: build.sh) uses f32x4.relaxed_madd,
 * which the engine runs as a fused multiply-add (one rounding) where the processor has one and
 * as the SIMD128 pair where it has not: that build's numbers differ from the others' within the
 * bound the README gives (tests/simd.test.js checks it). clang 16's wasm_simd128.h has no
 * wrapper for it, hence the builtin.
 */
#ifdef __wasm_relaxed_simd__
typedef float qkv_f32x4 __attribute__((__vector_size__(16), __aligned__(16)));
#define QKV_MADD(a, b, c) \
    ((v128_t)__builtin_wasm_relaxed_madd_f32x4((qkv_f32x4)(a), (qkv_f32x4)(b), (qkv_f32x4)(c)))
#else
#define QKV_MADD(a, b, c) wasm_f32x4_add(wasm_f32x4_mul((a), (b)), (c))
#endif

/* [sum(a), sum(b), sum(c), sum(d)], each sum (x0 + x2) + (x1 + x3) */
static inline v128_t qkv_sum4x4(v128_t a, v128_t b, v128_t c, v128_t d) {
    v128_t ab = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
    v128_t cd = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
    /* ab = [a0+a2, b0+b2, a1+a3, b1+b3] */
    return wasm_f32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

/* (x0 + x2) + (x1 + x3) */
static inline float qkv_sum4(v128_t x) {
    v128_t h = wasm_f32x4_add(x, wasm_i32x4_shuffle(x, x, 2, 3, 2, 3));
    return wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1);
}

/* the largest of the four lanes, compared as the scalar loop that follows it compares: l0 vs l1,
 * then l2, then l3 (no NaN reaches it: callers check finiteness separately) */
static inline float qkv_max4(v128_t x) {
    float l0 = wasm_f32x4_extract_lane(x, 0), l1 = wasm_f32x4_extract_lane(x, 1);
    float l2 = wasm_f32x4_extract_lane(x, 2), l3 = wasm_f32x4_extract_lane(x, 3);
    float m = l0 > l1 ? l0 : l1;
    if (l2 > m) m = l2;
    if (l3 > m) m = l3;
    return m;
}

/* exp(x) for x <= 0 (and -inf), four lanes a vector, for n (1 to 4) vectors in place: see
   exp_nonpositive. fused 0: the polynomial's multiply-adds rounded twice in every build, relaxed
   included, so that each lane gives exp_nonpositive's bits (GELU, whose numbers the builds share);
   fused 1: QKV_MADD's (softmax). Each step runs over the n vectors before the next, so n vectors'
   chains of about 20 dependent operations sit side by side in the code: V8 emits them as written,
   and one chain alone kept the processor waiting (its scheduler holds only so many; the softmax's
   exponentials 1.1x faster with two, and its rows 1.1x faster again with four). Each lane does
   the same operations in the same order whatever n: the same bits. */
__attribute__((always_inline)) static inline void qkv_exp4n_with(v128_t* x, int n, int fused) {
#define QKV_EXP_MADD(a, b, c) (fused ? QKV_MADD(a, b, c) : wasm_f32x4_add(wasm_f32x4_mul((a), (b)), (c)))
#define QKV_EACH for (int q = 0; q < n; q++)
    v128_t t[4], fx[4], r[4], z[4], y[4];
    QKV_EACH t[q] = wasm_f32x4_add(wasm_f32x4_mul(x[q], wasm_f32x4_splat(1.44269504088896341f)), wasm_f32x4_splat(12582912.0f));
    QKV_EACH fx[q] = wasm_f32x4_sub(t[q], wasm_f32x4_splat(12582912.0f));
    QKV_EACH r[q] = wasm_f32x4_sub(x[q], wasm_f32x4_mul(fx[q], wasm_f32x4_splat(0.693359375f)));
    QKV_EACH r[q] = wasm_f32x4_sub(r[q], wasm_f32x4_mul(fx[q], wasm_f32x4_splat(-2.12194440e-4f)));
    QKV_EACH z[q] = wasm_f32x4_mul(r[q], r[q]);
    QKV_EACH y[q] = wasm_f32x4_splat(1.9875691500e-4f);
    QKV_EACH y[q] = QKV_EXP_MADD(y[q], r[q], wasm_f32x4_splat(1.3981999507e-3f));
    QKV_EACH y[q] = QKV_EXP_MADD(y[q], r[q], wasm_f32x4_splat(8.3334519073e-3f));
    QKV_EACH y[q] = QKV_EXP_MADD(y[q], r[q], wasm_f32x4_splat(4.1665795894e-2f));
    QKV_EACH y[q] = QKV_EXP_MADD(y[q], r[q], wasm_f32x4_splat(1.6666665459e-1f));
    QKV_EACH y[q] = QKV_EXP_MADD(y[q], r[q], wasm_f32x4_splat(5.0000001201e-1f));
    QKV_EACH y[q] = wasm_f32x4_add(QKV_EXP_MADD(y[q], z[q], r[q]), wasm_f32x4_splat(1.0f));
    QKV_EACH {
        v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(t[q], wasm_i32x4_splat(127 - 0x4b400000)), 23);
        v128_t tiny = wasm_f32x4_lt(x[q], wasm_f32x4_splat(-87.33654475f));
        x[q] = wasm_v128_andnot(wasm_f32x4_mul(y[q], scale), tiny);
    }
#undef QKV_EACH
#undef QKV_EXP_MADD
}

static inline v128_t qkv_exp4_with(v128_t x, int fused) {
    qkv_exp4n_with(&x, 1, fused);
    return x;
}

static inline v128_t qkv_exp4(v128_t x) { return qkv_exp4_with(x, 1); }
#endif

/*
 * exp(x) for x <= 0, accurate to about 1 ulp (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2,
 * exp(r) by a degree-7 polynomial, times 2^n built in the exponent bits). n = round(x log2 e)
 * comes from adding 1.5 * 2^23, which leaves n in the low bits of the sum (no float-to-int
 * conversion, a handful of instructions fewer per vector). Below ln(2^-126) it returns 0
 * (instead of a denormal below 1.2e-38); exp(-inf) = 0 and exp(0) = 1 exactly. Every
 * operation is the one qkv_exp4 does on each lane, in the same order.
 */
static inline float exp_nonpositive(float x) {
    union { float f; uint32_t bits; } t = { x * 1.44269504088896341f + 12582912.0f };
    float fx = t.f - 12582912.0f;
    float r = x - fx * 0.693359375f;
    r = r - fx * -2.12194440e-4f;
    float z = r * r;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = (y * z + r) + 1.0f;
    union { uint32_t bits; float f; } scale = { (t.bits + (uint32_t)(127 - 0x4b400000)) << 23 };
    return x < -87.33654475f ? 0.0f : y * scale.f;
}

#endif
