/*
 * multihead.c: multi-head self-attention, forward.
 * Legend: n tokens, d input width (columns of X), d_model projection width, H heads,
 *         d_k = d_model / H the width of one head, d_out output width.
 *   Q, K, V (n, d_model) = X.Wq, X.Wk, X.Wv                 Wq, Wk, Wv (d, d_model)
 *   head h: Q_h, K_h, V_h (n, d_k) = columns [h d_k, (h+1) d_k) of Q, K, V
 *           scores_h, weights_h (n, n), out_h (n, d_k) = attention_forward(Q_h, K_h, V_h)
 *   concat (n, d_model) = [out_0 | out_1 | ... | out_{H-1}]
 *   output (n, d_out)   = concat.Wo                           Wo (d_model, d_out)
 * Each head runs the kernels' attention (attention.c) on its own slice; the heads share the
 * parameter count of one head of width d_model (3 d d_model + d_model d_out), only the
 * softmax is taken H times, each over d_k-wide dot products.
 */
#include <float.h>
#include <math.h>

#include "layers.h"

int qkv_multi_head_attention_forward(float* head_q, float* head_k, float* head_v, float* scores,
                                     float* weights, float* head_out, float* concat, float* output,
                                     const float* X, const float* Wq, const float* Wk,
                                     const float* Wv, const float* Wo, int n, int d, int d_model,
                                     int heads, int d_out, float scale, int causal) {
    if (!head_q || !head_k || !head_v || !scores || !weights || !head_out || !concat || !output ||
        !X || !Wq || !Wk || !Wv || !Wo)
        return QKV_ERR_NULL;
    size_t nn = qkv_elements(n, n);
    if (!qkv_elements(n, d) || !qkv_elements(d, d_model) || !qkv_elements(n, d_model) ||
        !qkv_elements(d_model, d_out) || !qkv_elements(n, d_out) || !nn || heads <= 0 ||
        heads > d_model || nn > QKV_MAX_ELEMENTS / (size_t)heads)
        return QKV_ERR_SIZE;
    if (d_model % heads) return QKV_ERR_SHAPE;
    /* a normal float32, as attention.c asks of its divisor */
    if (!(scale >= FLT_MIN) || !isfinite(scale)) return QKV_ERR_ARGUMENT;
    size_t wsize = (size_t)d * d_model;
    if (qkv_check_finite(X, (size_t)n * d) || qkv_check_finite(Wq, wsize) ||
        qkv_check_finite(Wk, wsize) || qkv_check_finite(Wv, wsize) ||
        qkv_check_finite(Wo, (size_t)d_model * d_out))
        return QKV_ERR_NONFINITE;
    int d_k = d_model / heads;
    size_t count = (size_t)n * d_model;
    /* concat holds Q, then K, then V while they are cut into heads: no scratch needed */
    const float* W[3] = { Wq, Wk, Wv };
    float* parts[3] = { head_q, head_k, head_v };
    for (int m = 0; m < 3; m++) {
        matmul_forward(concat, X, W[m], n, d, d_model);  /* (n, d) x (d, d_model) */
        if (qkv_check_finite(concat, count)) return QKV_ERR_OVERFLOW;
        heads_copy(parts[m], concat, 1, n, heads, d_k, d_model, 0, 1);
    }
    for (int h = 0; h < heads; h++) {
        size_t at = (size_t)h * n * d_k;
        int status = attention_forward_unchecked(scores + h * nn, weights + h * nn, head_out + at,
                                                 head_q + at, head_k + at, head_v + at,
                                                 n, n, d_k, d_k, scale, causal);
        if (status) return status;
    }
    heads_copy(head_out, concat, 1, n, heads, d_k, d_model, 0, 0);
    matmul_forward(output, concat, Wo, n, d_model, d_out);  /* (n, d_model) x (d_model, d_out) */
    if (qkv_check_finite(output, (size_t)n * d_out)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}
