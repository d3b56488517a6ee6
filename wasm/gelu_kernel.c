/*
 * gelu_kernel.c: gelu.c's loops over whole activations, GPT kernels (build.sh's GPT_KERNEL_SOURCES)
 * that the GPT module imports like the softmax: built three times like the other kernels, so that the
 * SIMD128 and relaxed builds run four lanes at a time and the scalar build the portable loop
 * (in the plain-WebAssembly GPT module they were 7 of a 44 ms step, docs/performance.md).
 * Legend: N entries (any shape, elementwise); N rows of M for the bias.
 *   u = sqrt(2/pi) (x + 0.044715 x^3),  out = 0.5 x (1 + tanh u),  tanh|u| = (1 - e) / (1 + e),
 *   e = exp(-2|u|) (simd.h's exp_nonpositive, not the C library's: the same bits everywhere)
 * Every lane does the float operations of the portable loop in the same order, with no fused
 * multiply-add in any build (the relaxed one included: qkv_exp4_with(x, 0)), so GELU gives the
 * same bits in the SIMD128, relaxed-SIMD, scalar and native builds, as it did in the GPT engine.
 */
#include "qkv_internal.h"
#include "simd.h"

#define GELU_SCALE 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_CUBE 0.044715f

#ifdef __wasm_simd128__
/* tanh u of four lanes, and u from x */
static inline v128_t gelu_tanh4(v128_t x) {
    v128_t cube = wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(GELU_CUBE), x), x), x);
    v128_t u = wasm_f32x4_mul(wasm_f32x4_splat(GELU_SCALE), wasm_f32x4_add(x, cube));
    v128_t e = qkv_exp4_with(wasm_f32x4_mul(wasm_f32x4_splat(-2.0f), wasm_f32x4_abs(u)), 0);
    v128_t one = wasm_f32x4_splat(1.0f);
    v128_t t = wasm_f32x4_div(wasm_f32x4_sub(one, e), wasm_f32x4_add(one, e));
    return wasm_v128_bitselect(wasm_f32x4_neg(t), t, wasm_f32x4_lt(u, wasm_f32x4_splat(0.0f)));
}
#endif

#ifdef __wasm_simd128__
/* gelu_tanh4 of two vectors, interleaved (as qkv_exp4n_with: two chains in view; each lane the
   same operations, the same bits; written out rather than as a loop over the two, which V8 ran
   16% slower) */
static inline void gelu_tanh4x2(v128_t x0, v128_t x1, v128_t* t0, v128_t* t1) {
    v128_t c = wasm_f32x4_splat(GELU_CUBE), k = wasm_f32x4_splat(GELU_SCALE);
    v128_t u0 = wasm_f32x4_mul(k, wasm_f32x4_add(x0, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(c, x0), x0), x0)));
    v128_t u1 = wasm_f32x4_mul(k, wasm_f32x4_add(x1, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(c, x1), x1), x1)));
    v128_t e[2] = { wasm_f32x4_mul(wasm_f32x4_splat(-2.0f), wasm_f32x4_abs(u0)),
                    wasm_f32x4_mul(wasm_f32x4_splat(-2.0f), wasm_f32x4_abs(u1)) };
    qkv_exp4n_with(e, 2, 0);
    v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
    v128_t a0 = wasm_f32x4_div(wasm_f32x4_sub(one, e[0]), wasm_f32x4_add(one, e[0]));
    v128_t a1 = wasm_f32x4_div(wasm_f32x4_sub(one, e[1]), wasm_f32x4_add(one, e[1]));
    *t0 = wasm_v128_bitselect(wasm_f32x4_neg(a0), a0, wasm_f32x4_lt(u0, zero));
    *t1 = wasm_v128_bitselect(wasm_f32x4_neg(a1), a1, wasm_f32x4_lt(u1, zero));
}
#endif

static inline float gelu_tanh(float x) {
    float u = GELU_SCALE * (x + GELU_CUBE * x * x * x);
    float a = u < 0.0f ? -u : u;
    float e = exp_nonpositive(-2.0f * a);  /* 0 beyond |u| ~ 43.7: tanh is then exactly 1 */
    float t = (1.0f - e) / (1.0f + e);
    return u < 0.0f ? -t : t;
}

static inline float gelu_local(float x, float t) {
    float sech2 = 1.0f - t * t;
    return 0.5f * (1.0f + t) + 0.5f * x * sech2 * GELU_SCALE * (1.0f + 3.0f * GELU_CUBE * x * x);
}

/* out (M) = GELU(inp), inp += bias first when bias is given (then written back: backward reads it);
   tanh_out, when given, receives each tanh u (backward's, if it is handed them back) */
static void gelu_span(float* out, float* inp, const float* bias, int M, float* tanh_out) {
    int j = 0;
#ifdef __wasm_simd128__
    v128_t half = wasm_f32x4_splat(0.5f), one = wasm_f32x4_splat(1.0f);
    for (; j + 8 <= M; j += 8) {  /* two vectors a step, interleaved */
        v128_t x0 = wasm_v128_load(inp + j), x1 = wasm_v128_load(inp + j + 4), t0, t1;
        if (bias) {
            x0 = wasm_f32x4_add(x0, wasm_v128_load(bias + j));
            x1 = wasm_f32x4_add(x1, wasm_v128_load(bias + j + 4));
            wasm_v128_store(inp + j, x0);
            wasm_v128_store(inp + j + 4, x1);
        }
        gelu_tanh4x2(x0, x1, &t0, &t1);
        if (tanh_out) {
            wasm_v128_store(tanh_out + j, t0);
            wasm_v128_store(tanh_out + j + 4, t1);
        }
        wasm_v128_store(out + j, wasm_f32x4_mul(wasm_f32x4_mul(half, x0), wasm_f32x4_add(one, t0)));
        wasm_v128_store(out + j + 4, wasm_f32x4_mul(wasm_f32x4_mul(half, x1), wasm_f32x4_add(one, t1)));
    }
    for (; j + 4 <= M; j += 4) {
        v128_t x = wasm_v128_load(inp + j);
        if (bias) {
            x = wasm_f32x4_add(x, wasm_v128_load(bias + j));
            wasm_v128_store(inp + j, x);
        }
        v128_t t = gelu_tanh4(x);
        if (tanh_out) wasm_v128_store(tanh_out + j, t);
        wasm_v128_store(out + j, wasm_f32x4_mul(wasm_f32x4_mul(half, x), wasm_f32x4_add(one, t)));
    }
#endif
    for (; j < M; j++) {
        float x = inp[j];
        if (bias) inp[j] = x = x + bias[j];
        float t = gelu_tanh(x);
        if (tanh_out) tanh_out[j] = t;
        out[j] = 0.5f * x * (1.0f + t);
    }
}

void gelu_forward(float* out, const float* inp, int N, float* tanh_out) {
    gelu_span(out, (float*)inp, NULL, N, tanh_out);  /* without a bias inp is only read */
}

/* inp (N, M) += bias (M) on every row, then out = GELU(inp): the bias and the activation after
   W1 in one pass over the hidden rows (the same sums as bias_forward, then gelu_forward) */
void bias_gelu_forward(float* out, float* inp, const float* bias, int N, int M, float* tanh_out) {
    for (int i = 0; i < N; i++)
        gelu_span(out + (size_t)i * M, inp + (size_t)i * M, bias, M, tanh_out ? tanh_out + (size_t)i * M : NULL);
}

/* reverses out = 0.5 x (1 + tanh u):
 *   dx (+)= dout * (0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) sqrt(2/pi) (1 + 3 * 0.044715 x^2))
 * accumulate 0: dinp written (no zeroing pass before it). tanh_in: the forward's tanh u of these
 * inputs (its tanh_out), read instead of computed again, the same bits; NULL: computed */
void gelu_backward(float* dinp, const float* inp, const float* dout, int N, int accumulate, const float* tanh_in) {
    int i = 0;
#ifdef __wasm_simd128__
    v128_t half = wasm_f32x4_splat(0.5f), one = wasm_f32x4_splat(1.0f);
    for (; i + 4 <= N; i += 4) {
        v128_t x = wasm_v128_load(inp + i), t = tanh_in ? wasm_v128_load(tanh_in + i) : gelu_tanh4(x);
        v128_t sech2 = wasm_f32x4_sub(one, wasm_f32x4_mul(t, t));
        v128_t inner = wasm_f32x4_add(one, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(3.0f * GELU_CUBE), x), x));
        v128_t right = wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(half, x), sech2),
                                                     wasm_f32x4_splat(GELU_SCALE)), inner);
        v128_t local = wasm_f32x4_add(wasm_f32x4_mul(half, wasm_f32x4_add(one, t)), right);
        v128_t d = wasm_f32x4_mul(local, wasm_v128_load(dout + i));
        wasm_v128_store(dinp + i, accumulate ? wasm_f32x4_add(wasm_v128_load(dinp + i), d) : d);
    }
#endif
    for (; i < N; i++) {
        float x = inp[i];
        float d = gelu_local(x, tanh_in ? tanh_in[i] : gelu_tanh(x)) * dout[i];
        dinp[i] = accumulate ? dinp[i] + d : d;
    }
}
