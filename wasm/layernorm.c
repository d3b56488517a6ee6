/*
 * layernorm.c: layer normalisation over the last dimension, forward and backward (GPT-2's
 * LayerNorm: biased variance, eps inside the square root).
 * Legend: N rows (tokens of every sequence of a batch), C the width of a row.
 *   mean[i] = sum_c x[i][c] / C
 *   rstd[i] = 1 / sqrt(sum_c (x[i][c] - mean[i])^2 / C + eps)     (the biased variance)
 *   out[i][c] = (x[i][c] - mean[i]) * rstd[i] * weight[c] + bias[c]
 * The sums run in float32 in index order, so every build (SIMD, scalar, native) gives the same
 * bits; mean and rstd are kept for backward, as llm.c keeps them.
 */
#include <math.h>

#include "qkv_internal.h"

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, float eps) {
    for (int i = 0; i < N; i++) {
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
        float s = 1.0f / sqrtf(v + eps);
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
    for (int i = 0; i < N; i++) {
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

static int check_eps(float eps) {
    return isfinite(eps) && eps > 0.0f ? QKV_OK : QKV_ERR_ARGUMENT;
}

int qkv_layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                          const float* weight, const float* bias, int N, int C, float eps) {
    if (!out || !mean || !rstd || !inp || !weight || !bias) return QKV_ERR_NULL;
    size_t count = qkv_elements(N, C);
    if (!count) return QKV_ERR_SIZE;
    if (check_eps(eps)) return QKV_ERR_ARGUMENT;
    if (qkv_check_finite(inp, count) || qkv_check_finite(weight, (size_t)C) ||
        qkv_check_finite(bias, (size_t)C))
        return QKV_ERR_NONFINITE;
    layernorm_forward(out, mean, rstd, inp, weight, bias, N, C, eps);
    /* a row of huge finite entries can overflow its variance: refuse rather than return NaN */
    if (qkv_check_finite(out, count) || qkv_check_finite(rstd, (size_t)N)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

int qkv_layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                           const float* inp, const float* weight, const float* mean,
                           const float* rstd, int N, int C) {
    if (!dinp || !dweight || !dbias || !dout || !inp || !weight || !mean || !rstd)
        return QKV_ERR_NULL;
    size_t count = qkv_elements(N, C);
    if (!count) return QKV_ERR_SIZE;
    if (qkv_check_finite(dout, count) || qkv_check_finite(inp, count) ||
        qkv_check_finite(weight, (size_t)C) || qkv_check_finite(mean, (size_t)N) ||
        qkv_check_finite(rstd, (size_t)N) || qkv_check_finite(dinp, count) ||
        qkv_check_finite(dweight, (size_t)C) || qkv_check_finite(dbias, (size_t)C))
        return QKV_ERR_NONFINITE;
    layernorm_backward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C, 1);
    if (qkv_check_finite(dinp, count) || qkv_check_finite(dweight, (size_t)C) ||
        qkv_check_finite(dbias, (size_t)C))
        return QKV_ERR_OVERFLOW;
    return QKV_OK;
}
