/*
 * layernorm_kernel.c: layernorm.c's loops, GPT kernels (build.sh's GPT_KERNEL_SOURCES) that the
 * GPT module imports like GELU's: built three times like the other kernels, so that the SIMD128
 * and relaxed builds run four rows at a time and the scalar build the portable loop.
 * Legend: N rows of C (layernorm.c has the formulas).
 * A row's sums (its mean, its variance, backward's two means) run in float32 in index order, one
 * chain of additions each: in the plain-WebAssembly GPT module they were about 0.9 of a 32 ms step,
 * mostly waiting on those chains. Here four rows go side by side, row r in lane r (their values
 * brought into lanes by 4 x 4 transposes), so four chains advance at once, each in its row's order;
 * what is elementwise (the output, backward's dx, dweight and dbias) runs along the row, four
 * columns a lane each, rows in order. Every lane does the portable loop's float operations in its
 * order, unfused in the relaxed build too: the same bits in every build (tests/simd.test.js).
 */
#include <math.h>

#include "qkv_internal.h"
#include "simd.h"

#ifdef __wasm_simd128__
/* rows a, b, c, d (four floats each) -> columns: a = [a0 b0 c0 d0], b = [a1 b1 c1 d1], ... */
static inline void transpose4(v128_t* a, v128_t* b, v128_t* c, v128_t* d) {
    v128_t t0 = wasm_i32x4_shuffle(*a, *b, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(*a, *b, 2, 6, 3, 7);
    v128_t t2 = wasm_i32x4_shuffle(*c, *d, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(*c, *d, 2, 6, 3, 7);
    *a = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    *b = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    *c = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    *d = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

/* the four rows' entries c..c+3 as four columns (col[k]: entry c + k of each row) */
static inline void columns4(v128_t col[4], const float* const x[4], int c) {
    col[0] = wasm_v128_load(x[0] + c); col[1] = wasm_v128_load(x[1] + c);
    col[2] = wasm_v128_load(x[2] + c); col[3] = wasm_v128_load(x[3] + c);
    transpose4(&col[0], &col[1], &col[2], &col[3]);
}

/* entry c of each of the four rows */
static inline v128_t column1(const float* const x[4], int c) {
    return wasm_f32x4_make(x[0][c], x[1][c], x[2][c], x[3][c]);
}

/* rows i..i+3: mean and rstd as lanes, then each row's output */
static void layernorm_forward4(float* out, float* mean, float* rstd, const float* inp,
                               const float* weight, const float* bias, int i, int C, float eps) {
    const float* x[4] = { inp + (size_t)i * C, inp + (size_t)(i + 1) * C, inp + (size_t)(i + 2) * C,
                          inp + (size_t)(i + 3) * C };
    v128_t col[4], width = wasm_f32x4_splat((float)C);
    v128_t m = wasm_f32x4_splat(0.0f);
    int c = 0;
    for (; c + 4 <= C; c += 4) {
        columns4(col, x, c);
        for (int k = 0; k < 4; k++) m = wasm_f32x4_add(m, col[k]);
    }
    for (; c < C; c++) m = wasm_f32x4_add(m, column1(x, c));
    m = wasm_f32x4_div(m, width);
    v128_t v = wasm_f32x4_splat(0.0f);
    for (c = 0; c + 4 <= C; c += 4) {
        columns4(col, x, c);
        for (int k = 0; k < 4; k++) {
            v128_t shift = wasm_f32x4_sub(col[k], m);
            v = wasm_f32x4_add(v, wasm_f32x4_mul(shift, shift));
        }
    }
    for (; c < C; c++) {
        v128_t shift = wasm_f32x4_sub(column1(x, c), m);
        v = wasm_f32x4_add(v, wasm_f32x4_mul(shift, shift));
    }
    v = wasm_f32x4_div(v, width);
    v128_t s = wasm_f32x4_div(wasm_f32x4_splat(1.0f), wasm_f32x4_sqrt(wasm_f32x4_add(v, wasm_f32x4_splat(eps))));
    wasm_v128_store(mean + i, m);
    wasm_v128_store(rstd + i, s);
    float ms[4], ss[4];
    wasm_v128_store(ms, m);
    wasm_v128_store(ss, s);
    for (int r = 0; r < 4; r++) {
        float* o = out + (size_t)(i + r) * C;
        v128_t mr = wasm_f32x4_splat(ms[r]), sr = wasm_f32x4_splat(ss[r]);
        for (c = 0; c + 4 <= C; c += 4) {
            v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(x[r] + c), mr), sr);
            wasm_v128_store(o + c, wasm_f32x4_add(wasm_f32x4_mul(norm, wasm_v128_load(weight + c)),
                                                  wasm_v128_load(bias + c)));
        }
        for (; c < C; c++) o[c] = (x[r][c] - ms[r]) * ss[r] * weight[c] + bias[c];
    }
}

/* rows i..i+3: backward's two means as lanes, then each row's dx, dweight and dbias in row order */
static void layernorm_backward4(float* dinp, float* dweight, float* dbias, const float* dout,
                                const float* inp, const float* weight, const float* mean,
                                const float* rstd, int i, int C, int acc) {
    const float* x[4] = { inp + (size_t)i * C, inp + (size_t)(i + 1) * C, inp + (size_t)(i + 2) * C,
                          inp + (size_t)(i + 3) * C };
    const float* g[4] = { dout + (size_t)i * C, dout + (size_t)(i + 1) * C, dout + (size_t)(i + 2) * C,
                          dout + (size_t)(i + 3) * C };
    v128_t m = wasm_v128_load(mean + i), s = wasm_v128_load(rstd + i);
    v128_t dmean = wasm_f32x4_splat(0.0f), dnmean = wasm_f32x4_splat(0.0f);
    v128_t xc[4], gc[4];
    int c = 0;
    for (; c + 4 <= C; c += 4) {
        columns4(xc, x, c);
        columns4(gc, g, c);
        for (int k = 0; k < 4; k++) {
            v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(xc[k], m), s);
            v128_t dnorm = wasm_f32x4_mul(wasm_f32x4_splat(weight[c + k]), gc[k]);
            dmean = wasm_f32x4_add(dmean, dnorm);
            dnmean = wasm_f32x4_add(dnmean, wasm_f32x4_mul(dnorm, norm));
        }
    }
    for (; c < C; c++) {
        v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(column1(x, c), m), s);
        v128_t dnorm = wasm_f32x4_mul(wasm_f32x4_splat(weight[c]), column1(g, c));
        dmean = wasm_f32x4_add(dmean, dnorm);
        dnmean = wasm_f32x4_add(dnmean, wasm_f32x4_mul(dnorm, norm));
    }
    v128_t width = wasm_f32x4_splat((float)C);
    dmean = wasm_f32x4_div(dmean, width);
    dnmean = wasm_f32x4_div(dnmean, width);
    float ms[4], ss[4], dms[4], dnms[4];
    wasm_v128_store(ms, m);
    wasm_v128_store(ss, s);
    wasm_v128_store(dms, dmean);
    wasm_v128_store(dnms, dnmean);
    for (int r = 0; r < 4; r++) {
        float* dx = dinp + (size_t)(i + r) * C;
        v128_t mr = wasm_f32x4_splat(ms[r]), sr = wasm_f32x4_splat(ss[r]);
        v128_t dmr = wasm_f32x4_splat(dms[r]), dnmr = wasm_f32x4_splat(dnms[r]);
        for (c = 0; c + 4 <= C; c += 4) {
            v128_t gv = wasm_v128_load(g[r] + c);
            v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(x[r] + c), mr), sr);
            v128_t dnorm = wasm_f32x4_mul(wasm_v128_load(weight + c), gv);
            wasm_v128_store(dbias + c, wasm_f32x4_add(wasm_v128_load(dbias + c), gv));
            wasm_v128_store(dweight + c, wasm_f32x4_add(wasm_v128_load(dweight + c), wasm_f32x4_mul(norm, gv)));
            v128_t term = wasm_f32x4_mul(wasm_f32x4_sub(wasm_f32x4_sub(dnorm, dmr), wasm_f32x4_mul(norm, dnmr)), sr);
            v128_t before = acc ? wasm_v128_load(dx + c) : wasm_f32x4_splat(0.0f);
            wasm_v128_store(dx + c, wasm_f32x4_add(before, term));
        }
        for (; c < C; c++) {
            float norm = (x[r][c] - ms[r]) * ss[r];
            float dnorm = weight[c] * g[r][c];
            dbias[c] += g[r][c];
            dweight[c] += norm * g[r][c];
            dx[c] = (acc ? dx[c] : 0.0f) + (dnorm - dms[r] - norm * dnms[r]) * ss[r];
        }
    }
}
#endif

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, float eps) {
    int i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= N; i += 4) layernorm_forward4(out, mean, rstd, inp, weight, bias, i, C, eps);
#endif
    for (; i < N; i++) {
        const float* x = inp + (size_t)i * C;
        float m = 0.0f;
        for (int c = 0; c < C; c++) m += x[c];
        m = m / (float)C;
        float v = 0.0f;
        for (int c = 0; c < C; c++) {
            float shift = x[c] - m;
            v += shift * shift;
        }
        v = v / (float)C;
        float s = 1.0f / __builtin_sqrtf(v + eps);  /* f32.sqrt: the kernels have no C library */
        float* o = out + (size_t)i * C;
        for (int c = 0; c < C; c++) o[c] = (x[c] - m) * s * weight[c] + bias[c];
        mean[i] = m;
        rstd[i] = s;
    }
}

/* reverses out = norm * weight + bias, norm = (x - mean) * rstd:
 *   dbias += dout;  dweight += norm * dout;
 *   dx (+)= rstd * (dnorm - mean_c(dnorm) - norm * mean_c(dnorm * norm)),  dnorm = dout * weight
 * dx added to (acc 1) or written (acc 0: 0 + the term, the bits of adding to a zeroed dx) */
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C, int acc) {
    int i = 0;
#ifdef __wasm_simd128__
    for (; i + 4 <= N; i += 4)
        layernorm_backward4(dinp, dweight, dbias, dout, inp, weight, mean, rstd, i, C, acc);
#endif
    for (; i < N; i++) {
        const float* x = inp + (size_t)i * C;
        const float* g = dout + (size_t)i * C;
        float* dx = dinp + (size_t)i * C;
        float m = mean[i], s = rstd[i];
        /* the two reductions */
        float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
        for (int c = 0; c < C; c++) {
            float norm = (x[c] - m) * s;
            float dnorm = weight[c] * g[c];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean = dnorm_mean / (float)C;
        dnorm_norm_mean = dnorm_norm_mean / (float)C;
        for (int c = 0; c < C; c++) {
            float norm = (x[c] - m) * s;
            float dnorm = weight[c] * g[c];
            dbias[c] += g[c];
            dweight[c] += norm * g[c];
            dx[c] = (acc ? dx[c] : 0.0f) + (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
        }
    }
}
