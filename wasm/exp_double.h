/*
 * exp_double.h: exp in double, fdlibm's algorithm as musl had it (MIT licence), within an ulp of
 * the correctly rounded result. One body for the core's qkv_exp (mathlib.c) and the GPT
 * sampler's exp_row_double (gpt.c), so both give the same doubles (tests/native/test_core.c
 * compares it with the C library's exp).
 */
#ifndef QKV_EXP_DOUBLE_H
#define QKV_EXP_DOUBLE_H

#include <math.h>
#include <stdint.h>

#define QKV_EXP_LN2_HI 6.93147180369123816490e-01 /* 0x3fe62e42 fee00000 */
#define QKV_EXP_LN2_LO 1.90821492927058770002e-10 /* 0x3dea39ef 35793c76 */
#define QKV_EXP_INVLN2 1.44269504088896338700e+00
#define QKV_EXP_P1 1.66666666666666019037e-01
#define QKV_EXP_P2 -2.77777777770155933842e-03
#define QKV_EXP_P3 6.61375632143793436117e-05
#define QKV_EXP_P4 -1.65339022054652515390e-06
#define QKV_EXP_P5 4.13813679705723846039e-08
#define QKV_EXP_UNDERFLOW -708.3964185322641 /* below: 2^-1022 and less, flushed to 0 */

static inline double exp_double(double x) {
    const double invln2 = QKV_EXP_INVLN2, ln2_hi = QKV_EXP_LN2_HI, ln2_lo = QKV_EXP_LN2_LO,
                 P1 = QKV_EXP_P1, P2 = QKV_EXP_P2, P3 = QKV_EXP_P3, P4 = QKV_EXP_P4, P5 = QKV_EXP_P5;
    if (x != x) return x;
    if (x < QKV_EXP_UNDERFLOW) return 0.0;
    if (x > 709.782712893384) return INFINITY;
    union { double f; uint64_t i; } u = {x};
    uint32_t hx = (uint32_t)(u.i >> 32) & 0x7fffffff;
    int sign = (int)(u.i >> 63);
    double hi, lo;
    int k;
    if (hx > 0x3fd62e42) {         /* |x| > ln2 / 2: x = k ln2 + r */
        if (hx >= 0x3ff0a2b2)      /* |x| >= 1.5 ln2 */
            k = (int)(invln2 * x + (sign ? -0.5 : 0.5));
        else
            k = 1 - sign - sign;
        hi = x - k * ln2_hi;       /* exact */
        lo = k * ln2_lo;
        x = hi - lo;
    } else if (hx > 0x3e300000) {  /* |x| > 2^-28 */
        k = 0;
        hi = x;
        lo = 0;
    } else {
        return 1 + x;
    }
    double xx = x * x;
    double c = x - xx * (P1 + xx * (P2 + xx * (P3 + xx * (P4 + xx * P5))));
    double y = 1 + (x * c / (2 - c) - lo + hi);
    if (k == 0) return y;
    if (k > 1023) { y *= 2.0; k--; }
    union { double f; uint64_t i; } scale = {.i = (uint64_t)(0x3ff + k) << 52};  /* k >= -1022 here */
    return y * scale.f;
}

#endif
