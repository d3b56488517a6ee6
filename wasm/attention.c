/*
 * attention.c: scaled dot-product attention and self-attention, forward and backward.
 * Legend: n_q query rows, n_k key/value rows, d_k query/key width, d_v value width,
 *         n tokens and d model width for self-attention. "scale" is the divisor s.
 *   scores  (n_q, n_k) = Q . K^T
 *   weights (n_q, n_k) = softmax_rows(mask(scores / s))
 *   output  (n_q, d_v) = weights . V
 */
#include <math.h>
#include <stdlib.h>

#include "qkv_internal.h"

int attention_forward_unchecked(float* scores, float* weights, float* output,
                                const float* Q, const float* K, const float* V,
                                int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    matmul_abt(scores, Q, K, n_q, d_k, n_k);  /* (n_q, d_k) x (n_k, d_k)^T -> (n_q, n_k) */
    for (int i = 0; i < n_q; i++) {
        for (int j = 0; j < n_k; j++) {
            size_t at = (size_t)i * n_k + j;
            float z = scores[at] / scale;
            /* finite Q and K can still give an infinite dot product, or a tiny scale an
               infinite quotient: refuse rather than turn it into NaN weights */
            if (!isfinite(z)) return QKV_ERR_OVERFLOW;
            weights[at] = (causal && j > i) ? -INFINITY : z;
        }
    }
    /* every row has a finite entry (a causal row i keeps column 0): cannot fail */
    softmax_rows_forward(weights, weights, n_q, n_k);
    matmul_forward(output, weights, V, n_q, n_k, d_v);  /* (n_q, n_k) x (n_k, d_v) */
    /* weights are convex, so |output| <= max |V|: finite. Checked anyway, it is cheap. */
    if (qkv_check_finite(output, (size_t)n_q * d_v)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

void attention_backward_unchecked(float* dQ, float* dK, float* dV, float* dscores,
                                  const float* doutput, const float* Q, const float* K,
                                  const float* V, const float* weights,
                                  int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    /* output = weights . V  ->  dweights = doutput . V^T (into dscores), dV += weights^T . doutput */
    matmul_abt(dscores, doutput, V, n_q, d_v, n_k);
    if (dV) matmul_backward(NULL, dV, doutput, weights, V, n_q, n_k, d_v);
    /* weights = softmax(z) -> dz; masked entries have weight 0, so their dz is 0 already */
    softmax_rows_backward(dscores, dscores, weights, n_q, n_k);
    /* z = scores / s -> dscores = dz / s */
    float inv = 1.0f / scale;
    for (size_t i = 0; i < (size_t)n_q * n_k; i++) dscores[i] *= inv;
    (void)causal;
    /* scores = Q . K^T -> dQ += dscores . K, dK += dscores^T . Q */
    if (dQ) matmul_accumulate(dQ, dscores, K, n_q, n_k, d_k);  /* (n_q, n_k) x (n_k, d_k) */
    if (dK) {
        for (int i = 0; i < n_q; i++) {
            const float* q_row = Q + (size_t)i * d_k;
            for (int j = 0; j < n_k; j++) {
                float g = dscores[(size_t)i * n_k + j];
                if (g == 0.0f) continue;
                float* dk_row = dK + (size_t)j * d_k;
                for (int p = 0; p < d_k; p++) dk_row[p] += g * q_row[p];
            }
        }
    }
}

static int check_attention(const float* Q, const float* K, const float* V,
                           int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    if (!qkv_elements(n_q, d_k) || !qkv_elements(n_k, d_k) || !qkv_elements(n_k, d_v) ||
        !qkv_elements(n_q, n_k) || !qkv_elements(n_q, d_v))
        return QKV_ERR_SIZE;
    if (!(scale > 0.0f) || !isfinite(scale)) return QKV_ERR_ARGUMENT;
    if (causal && n_q > n_k) return QKV_ERR_SHAPE; /* row i > n_k-1 would still be fine, but
        a causal query past the last key has no meaning in self-attention: refuse it */
    if (qkv_check_finite(Q, (size_t)n_q * d_k) || qkv_check_finite(K, (size_t)n_k * d_k) ||
        qkv_check_finite(V, (size_t)n_k * d_v))
        return QKV_ERR_NONFINITE;
    return QKV_OK;
}

int qkv_attention_forward(float* scores, float* weights, float* output,
                          const float* Q, const float* K, const float* V,
                          int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    if (!scores || !weights || !output || !Q || !K || !V) return QKV_ERR_NULL;
    int status = check_attention(Q, K, V, n_q, n_k, d_k, d_v, scale, causal);
    if (status) return status;
    return attention_forward_unchecked(scores, weights, output, Q, K, V, n_q, n_k, d_k, d_v, scale,
                                       causal);
}

int qkv_attention_backward(float* dQ, float* dK, float* dV, float* dscores,
                           const float* doutput, const float* Q, const float* K, const float* V,
                           const float* weights,
                           int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    if (!dQ || !dK || !dV || !dscores || !doutput || !Q || !K || !V || !weights)
        return QKV_ERR_NULL;
    int status = check_attention(Q, K, V, n_q, n_k, d_k, d_v, scale, causal);
    if (status) return status;
    if (qkv_check_finite(doutput, (size_t)n_q * d_v) ||
        qkv_check_finite(weights, (size_t)n_q * n_k))
        return QKV_ERR_NONFINITE;
    attention_backward_unchecked(dQ, dK, dV, dscores, doutput, Q, K, V, weights, n_q, n_k, d_k,
                                 d_v, scale, causal);
    return QKV_OK;
}

int qkv_self_attention_forward(float* Q, float* K, float* V,
                               float* scores, float* weights, float* output,
                               const float* X, const float* Wq, const float* Wk, const float* Wv,
                               int n, int d, int d_k, int d_v, float scale, int causal) {
    if (!Q || !K || !V || !scores || !weights || !output || !X || !Wq || !Wk || !Wv)
        return QKV_ERR_NULL;
    if (!qkv_elements(n, d) || !qkv_elements(d, d_k) || !qkv_elements(d, d_v) ||
        !qkv_elements(n, d_k) || !qkv_elements(n, d_v) || !qkv_elements(n, n))
        return QKV_ERR_SIZE;
    if (qkv_check_finite(X, (size_t)n * d) || qkv_check_finite(Wq, (size_t)d * d_k) ||
        qkv_check_finite(Wk, (size_t)d * d_k) || qkv_check_finite(Wv, (size_t)d * d_v))
        return QKV_ERR_NONFINITE;
    matmul_forward(Q, X, Wq, n, d, d_k);  /* (n, d) x (d, d_k) -> (n, d_k) */
    matmul_forward(K, X, Wk, n, d, d_k);
    matmul_forward(V, X, Wv, n, d, d_v);  /* (n, d) x (d, d_v) -> (n, d_v) */
    /* products of finite inputs can still overflow to inf */
    if (qkv_check_finite(Q, (size_t)n * d_k) || qkv_check_finite(K, (size_t)n * d_k) ||
        qkv_check_finite(V, (size_t)n * d_v))
        return QKV_ERR_OVERFLOW;
    int status = check_attention(Q, K, V, n, n, d_k, d_v, scale, causal);
    if (status) return status;
    return attention_forward_unchecked(scores, weights, output, Q, K, V, n, n, d_k, d_v, scale,
                                       causal);
}
