/*
 * gelu.c: GELU with the tanh approximation GPT-2 uses, forward and backward.
 * Legend: N entries (any shape, elementwise).
 *   u = sqrt(2/pi) (x + 0.044715 x^3),  out = 0.5 x (1 + tanh u)
 * tanh comes from simd.h's exp_nonpositive (tanh|u| = (1 - e) / (1 + e), e = exp(-2|u|) <= 1),
 * not from the C library: the library's tanhf differs between musl (WebAssembly) and glibc
 * (native), and the same seed must give the same bits everywhere.
 */
#include <math.h>

#include "qkv_internal.h"
#include "simd.h"

#define GELU_SCALE 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_CUBE 0.044715f

static inline float tanh_portable(float u) {
    float a = u < 0.0f ? -u : u;
    float e = exp_nonpositive(-2.0f * a);  /* 0 beyond |u| ~ 43.7: tanh is then exactly 1 */
    float t = (1.0f - e) / (1.0f + e);
    return u < 0.0f ? -t : t;
}

void gelu_forward(float* out, const float* inp, int N) {
    for (int i = 0; i < N; i++) {
        float x = inp[i];
        float u = GELU_SCALE * (x + GELU_CUBE * x * x * x);
        out[i] = 0.5f * x * (1.0f + tanh_portable(u));
    }
}

/* reverses out = 0.5 x (1 + tanh u):
 *   dx += dout * (0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) sqrt(2/pi) (1 + 3 * 0.044715 x^2)) */
void gelu_backward(float* dinp, const float* inp, const float* dout, int N) {
    for (int i = 0; i < N; i++) {
        float x = inp[i];
        float u = GELU_SCALE * (x + GELU_CUBE * x * x * x);
        float t = tanh_portable(u);
        float sech2 = 1.0f - t * t;
        float local = 0.5f * (1.0f + t) + 0.5f * x * sech2 * GELU_SCALE * (1.0f + 3.0f * GELU_CUBE * x * x);
        dinp[i] += local * dout[i];
    }
}

int qkv_gelu_forward(float* out, const float* inp, int N) {
    if (!out || !inp) return QKV_ERR_NULL;
    if (!qkv_elements(N, 1)) return QKV_ERR_SIZE;
    if (qkv_check_finite(inp, (size_t)N)) return QKV_ERR_NONFINITE;
    gelu_forward(out, inp, N);
    /* x^3 of a large finite x overflows; gelu(x) = x there, but x^3 = inf gives inf * 0 = NaN */
    if (qkv_check_finite(out, (size_t)N)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

int qkv_gelu_backward(float* dinp, const float* inp, const float* dout, int N) {
    if (!dinp || !inp || !dout) return QKV_ERR_NULL;
    if (!qkv_elements(N, 1)) return QKV_ERR_SIZE;
    if (qkv_check_finite(inp, (size_t)N) || qkv_check_finite(dout, (size_t)N) ||
        qkv_check_finite(dinp, (size_t)N))
        return QKV_ERR_NONFINITE;
    gelu_backward(dinp, inp, dout, N);
    if (qkv_check_finite(dinp, (size_t)N)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}
