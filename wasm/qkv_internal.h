/*
 * qkv_internal.h: unchecked kernels shared by the library's files.
 * Callers have already validated pointers, sizes and finiteness; these only compute.
 * In the WebAssembly build the kernels (checks.c, matrix.c, attention.c) are a module of their
 * own, built with SIMD128 and without; the rest imports them (see build.sh).
 * Same legend as qkv.h. Names follow forward/backward pairs; backward accumulates (+=).
 */
#ifndef QKV_INTERNAL_H
#define QKV_INTERNAL_H

#include "qkv.h"

/* out (n, m) = A (n, k) . B (k, m) */
void matmul_forward(float* out, const float* A, const float* B, int n, int k, int m);
/* out (n, m) += A (n, k) . B (k, m) */
void matmul_accumulate(float* out, const float* A, const float* B, int n, int k, int m);
/* reverses out = A.B:  dA (n, k) += dout . B^T;  dB (k, m) += A^T . dout  (either may be NULL) */
void matmul_backward(float* dA, float* dB, const float* dout, const float* A, const float* B,
                     int n, int k, int m);
/* out (n, m) = A (n, k) . B(m, k)^T, written */
void matmul_abt(float* out, const float* A, const float* B, int n, int k, int m);
/* out (n, m) = A (n, k) . B (k, m), A's rows lda floats apart (a block of a wider matrix) */
void matmul_rows(float* out, const float* A, int lda, const float* B, int n, int k, int m);
/* out (n, m) = A (k, n)^T . B (k, m), A read as stored, written (matmul_atb) or added to */
void matmul_atb(float* out, const float* A, const float* B, int n, int k, int m);
void matmul_atb_accumulate(float* out, const float* A, const float* B, int n, int k, int m);
/* out (cols, rows) = A (rows, cols) transposed, in cache-sized blocks */
void transpose_forward(float* out, const float* A, int rows, int cols);
/* the largest entry of a row of cols (-inf when all are -inf) */
float row_max(const float* z, int cols);
/* w (cols) = softmax of z given its max (finite); -inf entries get 0; w may be z */
void softmax_row(float* w, const float* z, int cols, float max);
/* rows of S -> softmax; entries with -inf get 0; returns QKV_ERR_MASKED_ROW if a row has none finite */
int softmax_rows_forward(float* out, const float* S, int rows, int cols);
/* softmax_ce_kernel.c (the GPT kernels): softmax_rows_forward (into probs, unless NULL), and dlogits =
   weight * (probs - onehot(targets)) (written) in the same pass; target_probs (rows, or NULL)
   receives probs[i][targets[i]] */
int softmax_crossentropy_rows(float* probs, float* dlogits, float* target_probs, const float* logits,
                              const int* targets, int rows, int cols, float weight);
/* reverses W = softmax_rows(Z):  dZ[i][j] = W[i][j] * (dW[i][j] - sum_k dW[i][k] W[i][k]), written */
void softmax_rows_backward(float* dZ, const float* dW, const float* W, int rows, int cols);

/* QKV_OK, or QKV_ERR_OVERFLOW when a score, scaled score or output is not finite */
int attention_forward_unchecked(float* scores, float* weights, float* output,
                                 const float* Q, const float* K, const float* V,
                                 int n_q, int n_k, int d_k, int d_v, float scale, int causal);
/* dQ, dK, dV (each may be NULL) added to (acc 1) or written (acc 0: the bits of adding to zeros) */
void attention_backward_unchecked(float* dQ, float* dK, float* dV, float* dscores,
                                  const float* doutput, const float* Q, const float* K,
                                  const float* V, const float* weights,
                                  int n_q, int n_k, int d_k, int d_v, float scale, int causal, int acc);

/* mathlib.c: log, exp, sin, cos in double, within an ulp (|x| < 2^20 pi/2 for sin, cos) */
double qkv_log(double x);
double qkv_exp(double x);

/* -log softmax(z)[target] of one row of V logits, in double, from the probability p of the target
   forward computed (one log instead of V exps); a probability that underflowed to 0 is recomputed
   from the logits as logsumexp - logit, so the loss stays finite and exact there (model.c, gpt.c).
   qkv_crossentropy_row: the same from the row of probabilities */
static inline double qkv_crossentropy_of(float p, const float* z, int target, int V) {
    if (p > 0.0f) return -qkv_log((double)p);
    float max = z[0];
    for (int j = 1; j < V; j++) if (z[j] > max) max = z[j];
    double sum = 0.0;
    for (int j = 0; j < V; j++) sum += qkv_exp((double)z[j] - (double)max);
    return (double)max + qkv_log(sum) - (double)z[target];
}
static inline double qkv_crossentropy_row(const float* probs, const float* z, int target, int V) {
    return qkv_crossentropy_of(probs[target], z, target, V);
}
double qkv_sin(double x);
double qkv_cos(double x);

/* positions.c: out (n, d) = the sinusoidal table (qkv_positional_encoding, unchecked) */
void positional_encoding_forward(float* out, int n, int d, double base);

/* layernorm.c: the unchecked layer (see qkv.h) */
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                       const float* weight, const float* bias, int N, int C, float eps);
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                        const float* inp, const float* weight, const float* mean,
                        const float* rstd, int N, int C, int acc);
/* gelu_kernel.c (the GPT kernels): out = GELU(inp); inp (N, M) += bias then out = GELU(inp);
   dinp (+)= GELU'(inp) dout, accumulated or (accumulate 0) written. tanh_out (NULL: not kept)
   receives the forward's tanh of each entry, which backward reads as tanh_in (NULL: computes) */
void gelu_forward(float* out, const float* inp, int N, float* tanh_out);
void bias_gelu_forward(float* out, float* inp, const float* bias, int N, int M, float* tanh_out);
void gelu_backward(float* dinp, const float* inp, const float* dout, int N, int accumulate, const float* tanh_in);
/* adamw_kernel.c (the GPT kernels): AdamW on N parameters in place, committed only when every new
   value is finite (0 written, 1 all as it was): adamw.h's formula, corrections given; old (3 N)
   receives the values it replaces */
int adamw_step(float* p, float* m, float* v, const float* grads, const unsigned char* decay, float* old,
               int N, float lr, float beta1, float beta2, float eps, float weight_decay, float gscale,
               float correct1, float correct2);

/* a*b as size_t with the QKV_MAX_ELEMENTS limit; 0 on overflow or beyond the limit */
size_t qkv_elements(int rows, int cols);

#endif
