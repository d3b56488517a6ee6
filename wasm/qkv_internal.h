/*
 * qkv_internal.h: unchecked kernels shared by the library's files.
 * Callers have already validated pointers, sizes and finiteness; these only compute.
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
/* rows of S -> softmax; entries with -inf get 0; returns QKV_ERR_MASKED_ROW if a row has none finite */
int softmax_rows_forward(float* out, const float* S, int rows, int cols);
/* reverses W = softmax_rows(Z):  dZ[i][j] = W[i][j] * (dW[i][j] - sum_k dW[i][k] W[i][k]), written */
void softmax_rows_backward(float* dZ, const float* dW, const float* W, int rows, int cols);

/* QKV_OK, or QKV_ERR_OVERFLOW when a score, scaled score or output is not finite */
int attention_forward_unchecked(float* scores, float* weights, float* output,
                                 const float* Q, const float* K, const float* V,
                                 int n_q, int n_k, int d_k, int d_v, float scale, int causal);
void attention_backward_unchecked(float* dQ, float* dK, float* dV, float* dscores,
                                  const float* doutput, const float* Q, const float* K,
                                  const float* V, const float* weights,
                                  int n_q, int n_k, int d_k, int d_v, float scale, int causal);

/* a*b as size_t with the QKV_MAX_ELEMENTS limit; 0 on overflow or beyond the limit */
size_t qkv_elements(int rows, int cols);

#endif
