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

/* Rows per group (a tuning constant: the bits are the same). Each row's sums are chains of C float
   additions in index order, one addition waiting for the last (a few cycles each): the group's rows
   run their chains side by side, which the processor overlaps, as four rows' dot products would.
   A group past the last row repeats it (its numbers computed, never stored). This module is plain
   WebAssembly, one build for every engine, so this is the engine's LayerNorm in every build. */
#define LN_ROWS 4
/* loops left rolled (clang): unrolled, this module grew by about 1 KiB, which the classic widget's
   GPT add-on has no room for, and measured no faster */
#if defined(__clang__)
#define QKV_ROLLED _Pragma("clang loop unroll(disable)")
#else
#define QKV_ROLLED
#endif

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, float eps) {
    for (int i = 0; i < N; i += LN_ROWS) {
        const float* x[LN_ROWS];
        float m[LN_ROWS], v[LN_ROWS];
        for (int r = 0; r < LN_ROWS; r++) {
            x[r] = inp + (size_t)(i + r < N ? i + r : N - 1) * C;
            m[r] = v[r] = 0.0f;
        }
        QKV_ROLLED for (int c = 0; c < C; c++)
            for (int r = 0; r < LN_ROWS; r++) m[r] += x[r][c];
        for (int r = 0; r < LN_ROWS; r++) m[r] = m[r] / (float)C;
        QKV_ROLLED for (int c = 0; c < C; c++)
            for (int r = 0; r < LN_ROWS; r++) {
                float shift = x[r][c] - m[r];
                v[r] += shift * shift;
            }
        QKV_ROLLED for (int r = 0; r < LN_ROWS && i + r < N; r++) {
            float s = 1.0f / sqrtf(v[r] / (float)C + eps);
            float* o = out + (size_t)(i + r) * C;
            QKV_ROLLED for (int c = 0; c < C; c++) o[c] = (x[r][c] - m[r]) * s * weight[c] + bias[c];
            mean[i + r] = m[r];
            rstd[i + r] = s;
        }
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
        QKV_ROLLED for (int c = 0; c < C; c++) {
            float norm = (x[c] - m) * s;
            float dnorm = weight[c] * g[c];
            dnorm_mean += dnorm;
            dnorm_norm_mean += dnorm * norm;
        }
        dnorm_mean = dnorm_mean / (float)C;
        dnorm_norm_mean = dnorm_norm_mean / (float)C;
        QKV_ROLLED for (int c = 0; c < C; c++) {
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
