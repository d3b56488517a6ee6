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
 *   - exp() is one polynomial, not the C library's, written three times with the same operations:
 *     exp_nonpositive (one float), qkv_exp4_with (four lanes), qkv_exp4x2_with (two vectors).
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

/* exp(x) for x <= 0 (and -inf), four at a time: see exp_nonpositive. fused 0: the polynomial's
   multiply-adds rounded twice in every build, relaxed included, so that each lane gives
   exp_nonpositive's bits (GELU, whose numbers the builds share); fused 1: QKV_MADD's (softmax) */
static inline v128_t qkv_exp4_with(v128_t x, int fused) {
#define QKV_EXP_MADD(a, b, c) (fused ? QKV_MADD(a, b, c) : wasm_f32x4_add(wasm_f32x4_mul((a), (b)), (c)))
    v128_t t = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)),
                              wasm_f32x4_splat(12582912.0f));
    v128_t fx = wasm_f32x4_sub(t, wasm_f32x4_splat(12582912.0f));
    v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(fx, wasm_f32x4_splat(0.693359375f)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(fx, wasm_f32x4_splat(-2.12194440e-4f)));
    v128_t z = wasm_f32x4_mul(r, r);
    v128_t y = wasm_f32x4_splat(1.9875691500e-4f);
    y = QKV_EXP_MADD(y, r, wasm_f32x4_splat(1.3981999507e-3f));
    y = QKV_EXP_MADD(y, r, wasm_f32x4_splat(8.3334519073e-3f));
    y = QKV_EXP_MADD(y, r, wasm_f32x4_splat(4.1665795894e-2f));
    y = QKV_EXP_MADD(y, r, wasm_f32x4_splat(1.6666665459e-1f));
    y = QKV_EXP_MADD(y, r, wasm_f32x4_splat(5.0000001201e-1f));
    y = wasm_f32x4_add(QKV_EXP_MADD(y, z, r), wasm_f32x4_splat(1.0f));
#undef QKV_EXP_MADD
    v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(t, wasm_i32x4_splat(127 - 0x4b400000)), 23);
    v128_t tiny = wasm_f32x4_lt(x, wasm_f32x4_splat(-87.33654475f));
    return wasm_v128_andnot(wasm_f32x4_mul(y, scale), tiny);
}

static inline v128_t qkv_exp4(v128_t x) { return qkv_exp4_with(x, 1); }

/* qkv_exp4_with of two vectors, their operations interleaved in the code: one vector's chain of
   about 20 dependent operations kept the processor waiting (its scheduler holds only so many), two
   side by side keep it busy (the softmax's exponentials 1.1x faster). Each lane: the operations of
   qkv_exp4_with, in its order: the same bits. */
static inline void qkv_exp4x2_with(v128_t* a, v128_t* b, int fused) {
#define QKV_EXP_MADD(p, q, c) (fused ? QKV_MADD(p, q, c) : wasm_f32x4_add(wasm_f32x4_mul((p), (q)), (c)))
#define QKV_SPLAT(c) wasm_f32x4_splat(c)
    v128_t xa = *a, xb = *b;
    v128_t ta = wasm_f32x4_add(wasm_f32x4_mul(xa, QKV_SPLAT(1.44269504088896341f)), QKV_SPLAT(12582912.0f));
    v128_t tb = wasm_f32x4_add(wasm_f32x4_mul(xb, QKV_SPLAT(1.44269504088896341f)), QKV_SPLAT(12582912.0f));
    v128_t fa = wasm_f32x4_sub(ta, QKV_SPLAT(12582912.0f)), fb = wasm_f32x4_sub(tb, QKV_SPLAT(12582912.0f));
    v128_t ra = wasm_f32x4_sub(xa, wasm_f32x4_mul(fa, QKV_SPLAT(0.693359375f)));
    v128_t rb = wasm_f32x4_sub(xb, wasm_f32x4_mul(fb, QKV_SPLAT(0.693359375f)));
    ra = wasm_f32x4_sub(ra, wasm_f32x4_mul(fa, QKV_SPLAT(-2.12194440e-4f)));
    rb = wasm_f32x4_sub(rb, wasm_f32x4_mul(fb, QKV_SPLAT(-2.12194440e-4f)));
    v128_t za = wasm_f32x4_mul(ra, ra), zb = wasm_f32x4_mul(rb, rb);
    v128_t ya = QKV_SPLAT(1.9875691500e-4f), yb = ya;
    ya = QKV_EXP_MADD(ya, ra, QKV_SPLAT(1.3981999507e-3f)); yb = QKV_EXP_MADD(yb, rb, QKV_SPLAT(1.3981999507e-3f));
    ya = QKV_EXP_MADD(ya, ra, QKV_SPLAT(8.3334519073e-3f)); yb = QKV_EXP_MADD(yb, rb, QKV_SPLAT(8.3334519073e-3f));
    ya = QKV_EXP_MADD(ya, ra, QKV_SPLAT(4.1665795894e-2f)); yb = QKV_EXP_MADD(yb, rb, QKV_SPLAT(4.1665795894e-2f));
    ya = QKV_EXP_MADD(ya, ra, QKV_SPLAT(1.6666665459e-1f)); yb = QKV_EXP_MADD(yb, rb, QKV_SPLAT(1.6666665459e-1f));
    ya = QKV_EXP_MADD(ya, ra, QKV_SPLAT(5.0000001201e-1f)); yb = QKV_EXP_MADD(yb, rb, QKV_SPLAT(5.0000001201e-1f));
    ya = wasm_f32x4_add(QKV_EXP_MADD(ya, za, ra), QKV_SPLAT(1.0f));
    yb = wasm_f32x4_add(QKV_EXP_MADD(yb, zb, rb), QKV_SPLAT(1.0f));
    v128_t sa = wasm_i32x4_shl(wasm_i32x4_add(ta, wasm_i32x4_splat(127 - 0x4b400000)), 23);
    v128_t sb = wasm_i32x4_shl(wasm_i32x4_add(tb, wasm_i32x4_splat(127 - 0x4b400000)), 23);
    *a = wasm_v128_andnot(wasm_f32x4_mul(ya, sa), wasm_f32x4_lt(xa, QKV_SPLAT(-87.33654475f)));
    *b = wasm_v128_andnot(wasm_f32x4_mul(yb, sb), wasm_f32x4_lt(xb, QKV_SPLAT(-87.33654475f)));
#undef QKV_SPLAT
#undef QKV_EXP_MADD
}

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
