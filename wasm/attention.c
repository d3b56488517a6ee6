/*
 * attention.c: scaled dot-product attention and self-attention, forward and backward.
 * Legend: n_q query rows, n_k key/value rows, d_k query/key width, d_v value width,
 *         n tokens and d model width for self-attention. "scale" is the divisor s.
 *   scores  (n_q, n_k) = Q . K^T
 *   weights (n_q, n_k) = softmax_rows(mask(scores / s))
 *   output  (n_q, d_v) = weights . V
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "qkv_internal.h"
#include "simd.h"

/* w (count) = s / scale, written, and *max = the largest quotient; returns 0 when every
   quotient is finite. A power-of-two scale (1 included) multiplies by its reciprocal, which is
   exact and gives the quotient bit for bit. */
static int scale_row(float* w, const float* s, int count, float scale, float inv, int exact,
                     float* max) {
    int j = 0, bad = 0;
    float m = -INFINITY;
#ifdef __wasm_simd128__
    v128_t vs = wasm_f32x4_splat(exact ? inv : scale), inf = wasm_f32x4_splat(INFINITY);
    v128_t ok = wasm_i32x4_splat(-1), vm = wasm_f32x4_splat(-INFINITY);
    for (; j + 4 <= count; j += 4) {
        v128_t x = wasm_v128_load(s + j);
        v128_t z = exact ? wasm_f32x4_mul(x, vs) : wasm_f32x4_div(x, vs);
        ok = wasm_v128_and(ok, wasm_f32x4_lt(wasm_f32x4_abs(z), inf));
        vm = wasm_f32x4_pmax(vm, z);
        wasm_v128_store(w + j, z);
    }
    bad = !wasm_i32x4_all_true(ok);
    m = qkv_max4(vm);
#endif
    for (; j < count; j++) {
        w[j] = exact ? s[j] * inv : s[j] / scale;
        bad |= !isfinite(w[j]);
        if (w[j] > m) m = w[j];
    }
    *max = m;
    return bad;
}

/*
 * Four query rows at a time, while their scores are in cache: scores = Q.K^T (K's rows read
 * as stored), then each row scaled, masked and softmaxed into weights in one pass, then
 * output = weights.V, accumulated one key row of V after another. keep (QKV_KEEP_SCORES |
 * QKV_KEEP_WEIGHTS) says which of scores and weights are (n_q, n_k) results; one not kept is a
 * work buffer of 4 rows (4, n_k), reused for every 4 query rows (the numbers are the same:
 * only where they are written differs).
 */
static int attention_forward_keep(float* scores, float* weights, float* output,
                                  const float* Q, const float* K, const float* V,
                                  int n_q, int n_k, int d_k, int d_v, float scale, int causal,
                                  int keep) {
    float inv = 1.0f / scale;
    union { float f; uint32_t bits; } u = { scale };
    int exact = (u.bits & 0x7fffff) == 0 && isfinite(inv);  /* a normal power of two */
    for (int i0 = 0; i0 < n_q; i0 += 4) {
        int rows = n_q - i0 < 4 ? n_q - i0 : 4;
        float* sc = keep & QKV_KEEP_SCORES ? scores + (size_t)i0 * n_k : scores;    /* (rows, n_k) */
        float* wt = keep & QKV_KEEP_WEIGHTS ? weights + (size_t)i0 * n_k : weights;
        /* (rows, d_k) x (n_k, d_k)^T -> (rows, n_k) */
        matmul_abt(sc, Q + (size_t)i0 * d_k, K, rows, d_k, n_k);
        for (int i = i0; i < i0 + rows; i++) {
            const float* s = sc + (size_t)(i - i0) * n_k;
            float* w = wt + (size_t)(i - i0) * n_k;
            /* finite Q and K can still give an infinite dot product, or a tiny scale an
               infinite quotient: refuse rather than turn it into NaN weights */
            float max;
            if (scale_row(w, s, n_k, scale, inv, exact, &max)) return QKV_ERR_OVERFLOW;
            /* causal: keys j > i are masked, weight exactly 0; row i keeps keys 0..i */
            int width = causal && i + 1 < n_k ? i + 1 : n_k;
            softmax_row(w, w, width, width == n_k ? max : row_max(w, width));
            for (int j = width; j < n_k; j++) w[j] = 0.0f;
        }
        /* (rows, keys) x (keys, d_v): under the causal mask these rows weigh keys < i0 + rows only */
        int keys = causal && i0 + rows < n_k ? i0 + rows : n_k;
        matmul_rows(output + (size_t)i0 * d_v, wt, n_k, V, rows, keys, d_v);
    }
    /* weights are convex, so |output| <= max |V|: finite. Checked anyway, it is cheap. */
    if (qkv_check_finite(output, (size_t)n_q * d_v)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

int attention_forward_unchecked(float* scores, float* weights, float* output,
                                const float* Q, const float* K, const float* V,
                                int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    return attention_forward_keep(scores, weights, output, Q, K, V, n_q, n_k, d_k, d_v, scale,
                                  causal, QKV_KEEP_SCORES | QKV_KEEP_WEIGHTS);
}

void attention_backward_unchecked(float* dQ, float* dK, float* dV, float* dscores,
                                  const float* doutput, const float* Q, const float* K,
                                  const float* V, const float* weights,
                                  int n_q, int n_k, int d_k, int d_v, float scale, int causal, int acc) {
    /* output = weights . V  ->  dweights = doutput . V^T (into dscores), dV (+)= weights^T . doutput */
    matmul_abt(dscores, doutput, V, n_q, d_v, n_k);
    if (dV) (acc ? matmul_atb_accumulate : matmul_atb)(dV, weights, doutput, n_k, n_q, d_v);
    /* weights = softmax(z) -> dz; masked entries have weight 0, so their dz is 0 already */
    softmax_rows_backward(dscores, dscores, weights, n_q, n_k);
    /* z = scores / s -> dscores = dz / s */
    float inv = 1.0f / scale;
    size_t count = (size_t)n_q * n_k, i = 0;
#ifdef __wasm_simd128__
    v128_t vinv = wasm_f32x4_splat(inv);
    for (; i + 4 <= count; i += 4) wasm_v128_store(dscores + i, wasm_f32x4_mul(wasm_v128_load(dscores + i), vinv));
#endif
    for (; i < count; i++) dscores[i] *= inv;
    (void)causal;
    /* scores = Q . K^T -> dQ (+)= dscores . K, dK (+)= dscores^T . Q */
    if (dQ) (acc ? matmul_accumulate : matmul_forward)(dQ, dscores, K, n_q, n_k, d_k);  /* (n_q, n_k) x (n_k, d_k) */
    if (dK) (acc ? matmul_atb_accumulate : matmul_atb)(dK, dscores, Q, n_k, n_q, d_k);  /* (n_k, n_q) x (n_q, d_k) */
}

static int check_attention(const float* Q, const float* K, const float* V,
                           int n_q, int n_k, int d_k, int d_v, float scale, int causal) {
    if (!qkv_elements(n_q, d_k) || !qkv_elements(n_k, d_k) || !qkv_elements(n_k, d_v) ||
        !qkv_elements(n_q, n_k) || !qkv_elements(n_q, d_v))
        return QKV_ERR_SIZE;
    /* a normal float32: below FLT_MIN, backward's 1/scale would be Infinity (found by tests/fuzz) */
    if (!(scale >= FLT_MIN) || !isfinite(scale)) return QKV_ERR_ARGUMENT;
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

int qkv_attention_forward_keep(float* scores, float* weights, float* output,
                               const float* Q, const float* K, const float* V,
                               int n_q, int n_k, int d_k, int d_v, float scale, int causal, int keep) {
    if (!scores || !weights || !output || !Q || !K || !V) return QKV_ERR_NULL;
    if (keep & ~(QKV_KEEP_SCORES | QKV_KEEP_WEIGHTS)) return QKV_ERR_ARGUMENT;
    int status = check_attention(Q, K, V, n_q, n_k, d_k, d_v, scale, causal);
    if (status) return status;
    return attention_forward_keep(scores, weights, output, Q, K, V, n_q, n_k, d_k, d_v, scale,
                                  causal, keep);
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
        qkv_check_finite(weights, (size_t)n_q * n_k) ||
        qkv_check_finite(dQ, (size_t)n_q * d_k) || qkv_check_finite(dK, (size_t)n_k * d_k) ||
        qkv_check_finite(dV, (size_t)n_k * d_v))
        return QKV_ERR_NONFINITE;
    attention_backward_unchecked(dQ, dK, dV, dscores, doutput, Q, K, V, weights, n_q, n_k, d_k,
                                 d_v, scale, causal, 1);
    /* finite inputs can still overflow in float32 (found by tests/fuzz): never hand back
       Infinity or NaN as a gradient */
    if (qkv_check_finite(dscores, (size_t)n_q * n_k) || qkv_check_finite(dQ, (size_t)n_q * d_k) ||
        qkv_check_finite(dK, (size_t)n_k * d_k) || qkv_check_finite(dV, (size_t)n_k * d_v))
        return QKV_ERR_OVERFLOW;
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
