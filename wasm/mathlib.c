/*
 * mathlib.c: the double-precision functions the library needs, small and without tables:
 *   qkv_log  numpy's gaussian (rng.c) and the model's loss
 *   qkv_exp  the model's loss, position frequencies, Adam's bias correction, sampling (its body is
 *            exp_double.h's, which the GPT sampler's exp_row_double in gpt.c shares)
 *   qkv_sin, qkv_cos  the position vectors (|x| < 2^20 pi/2, far beyond any sequence length)
 * The C library's versions bring about 9 KB of code and lookup tables into the WebAssembly
 * module, which ships to every reader. These are fdlibm's algorithms as musl had them (MIT
 * licence), within an ulp of the correctly rounded result; tests/native/test_core.c compares
 * them with the C library's on a few million arguments.
 */
#include <math.h>
#include <stdint.h>

#include "exp_double.h"
#include "qkv_internal.h"

typedef union { double f; uint64_t i; } bits64;

static const double ln2_hi = 6.93147180369123816490e-01, /* 0x3fe62e42 fee00000 */
                    ln2_lo = 1.90821492927058770002e-10; /* 0x3dea39ef 35793c76 */

double qkv_log(double x) {
    static const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                        Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                        Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                        Lg7 = 1.479819860511658591e-01;
    bits64 u = {x};
    uint32_t hx = (uint32_t)(u.i >> 32);
    int k = 0;
    if (hx < 0x00100000 || hx >> 31) {
        if (u.i << 1 == 0) return -INFINITY;  /* log(+-0) */
        if (hx >> 31) return NAN;             /* log(x < 0) */
        k -= 54;                              /* subnormal: scale up */
        x *= 0x1p54;
        u.f = x;
        hx = (uint32_t)(u.i >> 32);
    } else if (hx >= 0x7ff00000) {
        return x;                             /* inf, nan */
    } else if (hx == 0x3ff00000 && u.i << 32 == 0) {
        return 0;
    }
    /* x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)] */
    hx += 0x3ff00000 - 0x3fe6a09e;
    k += (int)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffff) + 0x3fe6a09e;
    u.i = (uint64_t)hx << 32 | (u.i & 0xffffffff);
    double f = u.f - 1.0;
    double hfsq = 0.5 * f * f;
    double s = f / (2.0 + f);
    double z = s * s;
    double w = z * z;
    double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
    double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
    double R = t2 + t1;
    double dk = k;
    return s * (hfsq + R) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}

double qkv_exp(double x) { return exp_double(x); }

/* x = n pi/2 + y[0] + y[1], |y| <= pi/4; fdlibm's reduction for |x| < 2^20 pi/2 */
static int rem_pio2(double x, double* y) {
    static const double toint = 1.5 / 2.22044604925031308085e-16,
                        pio4 = 0x1.921fb54442d18p-1,
                        invpio2 = 6.36619772367581382433e-01,
                        pio2_1 = 1.57079632673412561417e+00, pio2_1t = 6.07710050650619224932e-11,
                        pio2_2 = 6.07710050630396597660e-11, pio2_2t = 2.02226624879595063154e-21,
                        pio2_3 = 2.02226624871116645580e-21, pio2_3t = 8.47842766036889956997e-32;
    bits64 u = {x};
    int ex = (int)(u.i >> 52 & 0x7ff);
    double fn = x * invpio2 + toint - toint;  /* rint(x / (pi/2)) */
    int n = (int)fn;
    double r = x - fn * pio2_1;
    double w = fn * pio2_1t;                  /* good to 85 bits */
    if (r - w < -pio4) {
        n--; fn--;
        r = x - fn * pio2_1;
        w = fn * pio2_1t;
    } else if (r - w > pio4) {
        n++; fn++;
        r = x - fn * pio2_1;
        w = fn * pio2_1t;
    }
    y[0] = r - w;
    u.f = y[0];
    if (ex - (int)(u.i >> 52 & 0x7ff) > 16) {  /* cancellation: 2nd round, 118 bits */
        double t = r;
        w = fn * pio2_2;
        r = t - w;
        w = fn * pio2_2t - ((t - r) - w);
        y[0] = r - w;
        u.f = y[0];
        if (ex - (int)(u.i >> 52 & 0x7ff) > 49) {  /* 3rd round, 151 bits */
            t = r;
            w = fn * pio2_3;
            r = t - w;
            w = fn * pio2_3t - ((t - r) - w);
            y[0] = r - w;
        }
    }
    y[1] = (r - y[0]) - w;
    return n;
}

/* sin(x + y) for |x| <= pi/4, y the tail of x */
static double kernel_sin(double x, double y) {
    static const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                        S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                        S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    double z = x * x;
    double w = z * z;
    double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    double v = z * x;
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

static double kernel_cos(double x, double y) {
    static const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                        C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                        C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    double z = x * x;
    double w = z * z;
    double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    double hz = 0.5 * z;
    w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (z * r - x * y));
}

/* sin (quarter = 0) or cos (quarter = 1) of x, |x| < 2^20 pi/2 */
static double sincos_of(double x, int quarter) {
    double y[2];
    if (fabs(x) <= 0x1.921fb54442d18p-1) {  /* |x| <= pi/4 */
        y[0] = x;
        y[1] = 0.0;
    } else {
        quarter += rem_pio2(x, y);
    }
    switch (quarter & 3) {
    case 0: return kernel_sin(y[0], y[1]);
    case 1: return kernel_cos(y[0], y[1]);
    case 2: return -kernel_sin(y[0], y[1]);
    default: return -kernel_cos(y[0], y[1]);
    }
}

double qkv_sin(double x) { return sincos_of(x, 0); }
double qkv_cos(double x) { return sincos_of(x, 1); }
