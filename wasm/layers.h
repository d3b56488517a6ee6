/*
 * layers.h: the small layers every model shares (model.c, gpt.c, multihead.c): the embedding,
 * a bias, the heads' layout, cross-entropy and AdamW. One definition each, as inline functions
 * of a header rather than a file of their own: the core (model.c, multihead.c) and the GPT
 * engine (gpt.c) are separate WebAssembly modules, and a header gives each its own copy without
 * a call across modules or a new export.
 * Legend: B windows (sequences), n tokens of one, C width of a row, V vocabulary, H heads,
 * d_k = C / H. Backward functions accumulate (+=) unless they say "written".
 */
#ifndef QKV_LAYERS_H
#define QKV_LAYERS_H

#include <math.h>
#include <string.h>

#include "adamw.h"
#include "qkv_internal.h"

/* out (B n, C) = wte[tokens] + pos[t]: a row of the table plus the row of its position t < n */
static inline void embedding_forward(float* out, const int* tokens, const float* wte,
                                     const float* pos, int B, int n, int C) {
    for (int i = 0; i < B * n; i++) {
        const float* e = wte + (size_t)tokens[i] * C;
        const float* q = pos + (size_t)(i % n) * C;
        float* x = out + (size_t)i * C;
        for (int c = 0; c < C; c++) x[c] = e[c] + q[c];
    }
}

/* reverses out = wte[tokens] + pos:  dwte[tokens[i]] += dout[i] (no other row is touched);
   dpos[t] += dout[b n + t] when the positions are learned (dpos NULL: a fixed table) */
static inline void embedding_backward(float* dwte, float* dpos, const float* dout,
                                      const int* tokens, int B, int n, int C) {
    for (int i = 0; i < B * n; i++) {
        const float* d = dout + (size_t)i * C;
        float* e = dwte + (size_t)tokens[i] * C;
        for (int c = 0; c < C; c++) e[c] += d[c];
    }
    if (!dpos) return;
    for (int i = 0; i < B * n; i++) {
        const float* d = dout + (size_t)i * C;
        float* q = dpos + (size_t)(i % n) * C;
        for (int c = 0; c < C; c++) q[c] += d[c];
    }
}

/* out (N, M) += bias (M) on every row */
static inline void bias_forward(float* out, const float* bias, int N, int M) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) out[(size_t)i * M + j] += bias[j];
}

/* reverses out += bias:  dbias += sum over rows of dout */
static inline void bias_backward(float* dbias, const float* dout, int N, int M) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) dbias[j] += dout[(size_t)i * M + j];
}

/* head layout (B, H, n, d_k) <-> row layout (B, n, width) at column `at`: heads[b][h][t][j] is
   rows[b n + t][at + h d_k + j]. to_heads copies rows into heads, else heads into rows (both
   written: a copy, its own reverse) */
static inline void heads_copy(float* heads, float* rows, int B, int n, int H, int dk, int width,
                              int at, int to_heads) {
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int t = 0; t < n; t++) {
                float* hp = heads + (((size_t)b * H + h) * n + t) * dk;
                float* rp = rows + ((size_t)b * n + t) * width + at + (size_t)h * dk;
                /* d_k floats (16 in the default GPT) in a loop, not a call: the GPT module's
                   memcpy is the core's, an import, 32,768 calls a training step */
                const float* from = to_heads ? rp : hp;
                float* to = to_heads ? hp : rp;
                for (int j = 0; j < dk; j++) to[j] = from[j];
            }
}

/* sum over the N rows of -log softmax(logits)[target], in double (qkv_crossentropy_row) */
static inline double crossentropy_forward(const float* probs, const float* logits,
                                          const int* targets, int N, int V) {
    double total = 0.0;
    for (int i = 0; i < N; i++)
        total += qkv_crossentropy_row(probs + (size_t)i * V, logits + (size_t)i * V, targets[i], V);
    return total;
}

/* reverses loss = weight * sum_i -log probs[i][target]:  dlogits = weight * (probs - onehot), written */
static inline void crossentropy_backward(float* dlogits, const float* probs, const int* targets,
                                         int N, int V, float weight) {
    for (int i = 0; i < N; i++) {
        const float* p = probs + (size_t)i * V;
        float* d = dlogits + (size_t)i * V;
        for (int j = 0; j < V; j++) d[j] = weight * (p[j] - (j == targets[i] ? 1.0f : 0.0f));
    }
}

/* 1 - beta^t, the bias correction of step t (1-based); beta 0 gives 1 */
static inline float adam_correction(float beta, int t) {
    return 1.0f - (float)qkv_exp(t * qkv_log(beta > 0.0f ? beta : 1e-30));
}

/* Adam step t (1-based) on N parameters: next_p, next_m, next_v written from p, m, v and the
 * gradients times gscale (a clipping factor, 1 for none), the caller commits them when finite;
 * decay NULL: plain Adam (model.c), else AdamW with decay[i] set where it applies. The formula:
 * adamw.h (the GPT's step runs it as a kernel, adamw_kernel.c, in place). */
static inline void adamw_update(float* next_p, float* next_m, float* next_v, const float* p,
                                const float* grads, const float* m, const float* v,
                                const unsigned char* decay, size_t N, float lr, float beta1,
                                float beta2, float eps, float weight_decay, float gscale, int t) {
    struct adamw_hyper h = { lr, beta1, beta2, eps, weight_decay, adam_correction(beta1, t),
                             adam_correction(beta2, t) };
    for (size_t i = 0; i < N; i++)
        next_p[i] = adamw_one(next_m + i, next_v + i, p[i], grads[i] * gscale, m[i], v[i],
                              decay ? decay[i] != 0 : -1, h);
}

/* LoRA (Hu et al. 2021) on a product y = x.W, in the row-vector convention:
 *   y (N, width)[:, at .. at + k) += s (x (N, in) . A (in, r)) . B (r, k),   s = alpha / r
 * xa (N, r) = x.A is kept for backward; tmp (N, k) is scratch. */
static inline void lora_forward(float* y, int width, int at, float* xa, float* tmp, const float* x,
                                const float* A, const float* B, int N, int in, int r, int k, float s) {
    matmul_forward(xa, x, A, N, in, r);    /* (N, in) x (in, r) -> (N, r) */
    matmul_forward(tmp, xa, B, N, r, k);   /* (N, r) x (r, k) -> (N, k) */
    for (int i = 0; i < N; i++) {
        float* row = y + (size_t)i * width + at;
        const float* add = tmp + (size_t)i * k;
        for (int j = 0; j < k; j++) row[j] += s * add[j];
    }
}

/* reverses lora_forward from dy (N, width)[:, at .. at + k):
 *   dB += xa^T . (s dy),  dxa = (s dy) . B^T,  dA += x^T . dxa,  dx += dxa . A^T
 * dys (N, k) and dxa (N, r) are scratch (written) */
static inline void lora_backward(float* dx, float* dA, float* dB, float* dys, float* dxa,
                                 const float* dy, int width, int at, const float* x,
                                 const float* xa, const float* A, const float* B, int N, int in,
                                 int r, int k, float s) {
    for (int i = 0; i < N; i++) {
        const float* row = dy + (size_t)i * width + at;
        float* out = dys + (size_t)i * k;
        for (int j = 0; j < k; j++) out[j] = s * row[j];
    }
    memset(dxa, 0, (size_t)N * r * sizeof(float));
    matmul_backward(dxa, dB, dys, xa, B, N, r, k);
    matmul_backward(dx, dA, dxa, x, A, N, in, r);
}

#endif
