/*
 * softmax.h: a row's softmax pieces, shared by matrix.c (softmaxRows, attention's rows) and
 * softmax_ce_kernel.c (the GPT's output layer, in the GPT kernels): one definition, so that both
 * give the same bits. Include after simd.h.
 */
#ifndef QKV_SOFTMAX_H
#define QKV_SOFTMAX_H

#include <math.h>

/* the largest entry of a row (-inf when every entry is -inf) */
static inline float softmax_row_max(const float* z, int cols) {
    int j = 0;
    float max = -INFINITY;
#ifdef __wasm_simd128__
    /* maxps (no NaN here), on four accumulators: one took a maxps's latency per four entries. The
       largest entry is the same in any order; a tie of +0 and -0 may come out as either, and then
       z - max may differ in the sign of a zero, which the exponential turns into the same bits */
    v128_t m = wasm_f32x4_splat(-INFINITY), m1 = m, m2 = m, m3 = m;
    for (; j + 16 <= cols; j += 16) {
        m = wasm_f32x4_pmax(m, wasm_v128_load(z + j));
        m1 = wasm_f32x4_pmax(m1, wasm_v128_load(z + j + 4));
        m2 = wasm_f32x4_pmax(m2, wasm_v128_load(z + j + 8));
        m3 = wasm_f32x4_pmax(m3, wasm_v128_load(z + j + 12));
    }
    m = wasm_f32x4_pmax(wasm_f32x4_pmax(m, m1), wasm_f32x4_pmax(m2, m3));
    for (; j + 4 <= cols; j += 4) m = wasm_f32x4_pmax(m, wasm_v128_load(z + j));
    max = qkv_max4(m);
#endif
    for (; j < cols; j++) if (z[j] > max) max = z[j];
    return max;
}

/* w (cols) = exp(z - max) of one row, -inf entries 0 -> 1 / their sum, rounded to float. The sum
   runs in double, as 4 partial sums (j = l mod 4) combined as (s0 + s2) + (s1 + s3), then the
   leftover entries in order. wide (a constant at each call): SIMD, four vectors' exponentials a
   step rather than two, the same bits (the GPT's output layer, 1.1x faster rows; the first load's
   softmaxRows and attention keep the smaller code) */
static inline float softmax_row_exp(float* w, const float* z, int cols, float max, int wide) {
    int j = 0;
    double sum;
    (void)wide;
#ifdef __wasm_simd128__
    v128_t mx = wasm_f32x4_splat(max);
    /* four vectors a step (wide), their exponentials interleaved (qkv_exp4n_with), then two */
    for (; wide && j + 16 <= cols; j += 16) {
        v128_t e[4];
        for (int q = 0; q < 4; q++) e[q] = wasm_f32x4_sub(wasm_v128_load(z + j + 4 * q), mx);
        qkv_exp4n_with(e, 4, 1);
        for (int q = 0; q < 4; q++) wasm_v128_store(w + j + 4 * q, e[q]);
    }
    for (; j + 8 <= cols; j += 8) {
        v128_t e[2] = { wasm_f32x4_sub(wasm_v128_load(z + j), mx), wasm_f32x4_sub(wasm_v128_load(z + j + 4), mx) };
        qkv_exp4n_with(e, 2, 1);
        wasm_v128_store(w + j, e[0]);
        wasm_v128_store(w + j + 4, e[1]);
    }
    for (; j + 4 <= cols; j += 4) wasm_v128_store(w + j, qkv_exp4(wasm_f32x4_sub(wasm_v128_load(z + j), mx)));
    /* the sum in a pass of its own over the row just written (in L1): in the exp loop its two
       accumulators were spilled beside the polynomial's constants, a chain through memory */
    v128_t lo = wasm_f64x2_splat(0.0), hi = wasm_f64x2_splat(0.0);
    for (int i = 0; i + 4 <= j; i += 4) {
        v128_t e = wasm_v128_load(w + i);
        lo = wasm_f64x2_add(lo, wasm_f64x2_promote_low_f32x4(e));
        hi = wasm_f64x2_add(hi, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(e, e, 2, 3, 2, 3)));
    }
    /* lo = [s0, s1], hi = [s2, s3] */
    v128_t s = wasm_f64x2_add(lo, hi);
    sum = wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
#else
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; j + 4 <= cols; j += 4) {
        w[j] = exp_nonpositive(z[j] - max);
        w[j + 1] = exp_nonpositive(z[j + 1] - max);
        w[j + 2] = exp_nonpositive(z[j + 2] - max);
        w[j + 3] = exp_nonpositive(z[j + 3] - max);
        s0 += w[j]; s1 += w[j + 1]; s2 += w[j + 2]; s3 += w[j + 3];
    }
    sum = (s0 + s2) + (s1 + s3);
#endif
    for (; j < cols; j++) {
        w[j] = exp_nonpositive(z[j] - max);
        sum += w[j];
    }
    return (float)(1.0 / sum);  /* sum >= 1: the max entry contributes exp(0) = 1 */
}

#endif
