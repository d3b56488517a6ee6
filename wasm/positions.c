/*
 * positions.c: the sinusoidal positional encoding of "Attention Is All You Need".
 * Legend: n positions (rows), d model width (columns), base the wavelength base (10000).
 *   PE (n, d):  PE[p][2i] = sin(p / base^(2i/d)),  PE[p][2i+1] = cos(p / base^(2i/d))
 * Column pair i turns at the angular frequency base^(-2i/d): the first pair once a position
 * (radians), the last nearly not at all, so every position gets its own pattern, and
 * PE(p).PE(p+k) = sum_i cos(k base^(-2i/d)) depends on the offset k only.
 * Computed in double (mathlib.c), rounded to float32 once. The model (model.c) takes its
 * positions from here with base 10000, so the two cannot disagree.
 */
#include <math.h>

#include "qkv_internal.h"

void positional_encoding_forward(float* out, int n, int d, double base) {
    double log_base = qkv_log(base);
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < d; i++) {
            /* base^(-2k/d) for the pair k = i/2 that column i belongs to */
            double freq = qkv_exp(-(double)(i - i % 2) / d * log_base);
            out[(size_t)p * d + i] = (float)(i % 2 == 0 ? qkv_sin(p * freq) : qkv_cos(p * freq));
        }
    }
}

int qkv_positional_encoding(float* out, int n, int d, double base) {
    if (!out) return QKV_ERR_NULL;
    if (!qkv_elements(n, d) || n > QKV_MAX_POSITIONS) return QKV_ERR_SIZE;
    if (!(base > 1.0) || !isfinite(base)) return QKV_ERR_ARGUMENT;
    positional_encoding_forward(out, n, d, base);
    return QKV_OK;
}
