/*
 * matrix.c: matrix multiply, transpose and row-wise softmax, each with its backward.
 * Legend: n, k, m are the sides of out (n, m) = A (n, k) . B (k, m).
 */
#include <math.h>
#include <string.h>

#include "qkv_internal.h"

void matmul_forward(float* out, const float* A, const float* B, int n, int k, int m) {
    memset(out, 0, (size_t)n * (size_t)m * sizeof(float));
    matmul_accumulate(out, A, B, n, k, m);
}

void matmul_accumulate(float* out, const float* A, const float* B, int n, int k, int m) {
    /* i-p-j order: the inner loop walks B's row and out's row contiguously */
    for (int i = 0; i < n; i++) {
        float* out_row = out + (size_t)i * m;
        for (int p = 0; p < k; p++) {
            float a = A[(size_t)i * k + p];
            const float* b_row = B + (size_t)p * m;
            for (int j = 0; j < m; j++) out_row[j] += a * b_row[j];
        }
    }
}

/* out = A . B  ->  dA += dout . B^T,  dB += A^T . dout */
void matmul_backward(float* dA, float* dB, const float* dout, const float* A, const float* B,
                     int n, int k, int m) {
    for (int i = 0; i < n; i++) {
        const float* dout_row = dout + (size_t)i * m;
        for (int p = 0; p < k; p++) {
            if (dA) {
                const float* b_row = B + (size_t)p * m;
                float sum = 0.0f;
                for (int j = 0; j < m; j++) sum += dout_row[j] * b_row[j];
                dA[(size_t)i * k + p] += sum;
            }
            if (dB) {
                float a = A[(size_t)i * k + p];
                float* db_row = dB + (size_t)p * m;
                for (int j = 0; j < m; j++) db_row[j] += a * dout_row[j];
            }
        }
    }
}

/* out (n, m) = A (n, k) . B (m, k)^T: row i of A dotted with row j of B */
void matmul_abt(float* out, const float* A, const float* B, int n, int k, int m) {
    for (int i = 0; i < n; i++) {
        const float* a_row = A + (size_t)i * k;
        for (int j = 0; j < m; j++) {
            const float* b_row = B + (size_t)j * k;
            float sum = 0.0f;
            for (int p = 0; p < k; p++) sum += a_row[p] * b_row[p];
            out[(size_t)i * m + j] = sum;
        }
    }
}

int softmax_rows_forward(float* out, const float* S, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* s = S + (size_t)i * cols;
        float* w = out + (size_t)i * cols;
        /* subtracting the row max keeps exp() in range: scores of +-1e4 stay exact */
        float max = -INFINITY;
        for (int j = 0; j < cols; j++) if (s[j] > max) max = s[j];
        if (!isfinite(max)) return QKV_ERR_MASKED_ROW;
        double sum = 0.0;
        for (int j = 0; j < cols; j++) {
            w[j] = (s[j] == -INFINITY) ? 0.0f : expf(s[j] - max);
            sum += w[j];
        }
        float inv = (float)(1.0 / sum);  /* sum >= 1: the max entry contributes exp(0) */
        for (int j = 0; j < cols; j++) w[j] *= inv;
    }
    return QKV_OK;
}

/* W = softmax_rows(Z)  ->  dZ[i][j] = W[i][j] * (dW[i][j] - sum_k dW[i][k] * W[i][k]) */
void softmax_rows_backward(float* dZ, const float* dW, const float* W, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* w = W + (size_t)i * cols;
        const float* dw = dW + (size_t)i * cols;
        float* dz = dZ + (size_t)i * cols;
        float dot = 0.0f;
        for (int j = 0; j < cols; j++) dot += dw[j] * w[j];
        for (int j = 0; j < cols; j++) dz[j] = w[j] * (dw[j] - dot);
    }
}

/* ---- checked public versions ---- */

int qkv_matmul(float* out, const float* A, const float* B, int n, int k, int m) {
    if (!out || !A || !B) return QKV_ERR_NULL;
    size_t a = qkv_elements(n, k), b = qkv_elements(k, m);
    if (!a || !b || !qkv_elements(n, m)) return QKV_ERR_SIZE;
    if (qkv_check_finite(A, a) || qkv_check_finite(B, b)) return QKV_ERR_NONFINITE;
    matmul_forward(out, A, B, n, k, m);
    /* finite inputs can still overflow: never hand back Infinity or NaN as an answer */
    if (qkv_check_finite(out, (size_t)n * m)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

int qkv_transpose(float* out, const float* A, int rows, int cols) {
    if (!out || !A) return QKV_ERR_NULL;
    size_t count = qkv_elements(rows, cols);
    if (!count) return QKV_ERR_SIZE;
    if (out == A) return QKV_ERR_ARGUMENT;  /* in place would overwrite what it still reads */
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) out[(size_t)j * rows + i] = A[(size_t)i * cols + j];
    return QKV_OK;
}

int qkv_softmax_rows(float* out, const float* S, int rows, int cols) {
    if (!out || !S) return QKV_ERR_NULL;
    size_t count = qkv_elements(rows, cols);
    if (!count) return QKV_ERR_SIZE;
    /* -inf is a mask; NaN and +inf have no meaning as scores */
    for (size_t i = 0; i < count; i++)
        if (isnan(S[i]) || S[i] == INFINITY) return QKV_ERR_NONFINITE;
    return softmax_rows_forward(out, S, rows, cols);
}
