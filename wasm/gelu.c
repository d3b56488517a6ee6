/*
 * gelu.c: GELU with the tanh approximation GPT-2 uses, forward and backward.
 * Legend: N entries (any shape, elementwise).
 *   u = sqrt(2/pi) (x + 0.044715 x^3),  out = 0.5 x (1 + tanh u)
 * tanh comes from simd.h's exp_nonpositive (tanh|u| = (1 - e) / (1 + e), e = exp(-2|u|) <= 1),
 * not from the C library: the library's tanhf differs between musl (WebAssembly) and glibc
 * (native), and the same seed must give the same bits everywhere.
 * The checked layer; its loops (gelu_forward, gelu_backward, bias_gelu_forward) are in
 * gelu_kernel.c, in the GPT kernels (each kernel build has them; the GPT module imports them).
 */
#include <math.h>

#include "qkv_internal.h"

int qkv_gelu_forward(float* out, const float* inp, int N) {
    if (!out || !inp) return QKV_ERR_NULL;
    if (!qkv_elements(N, 1)) return QKV_ERR_SIZE;
    if (qkv_check_finite(inp, (size_t)N)) return QKV_ERR_NONFINITE;
    gelu_forward(out, inp, N, NULL);
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
    gelu_backward(dinp, inp, dout, N, 1, NULL);
    if (qkv_check_finite(dinp, (size_t)N)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}
