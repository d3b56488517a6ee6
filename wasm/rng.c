/*
 * rng.c: a random generator that reproduces numpy's legacy global one, so that
 *   np.random.seed(seed); np.random.randn(r, c)
 * and qkv_rng_seed(&g, seed); qkv_rng_randn(&g, out, r, c) give the same numbers
 * (ours rounded to float32 when stored). MT19937 as in Matsumoto & Nishimura's reference;
 * an integer seed goes through init_genrand, as numpy's _legacy_seeding does for ints.
 */
#include <math.h>

#include "qkv_internal.h"

#define MT_N 624
#define MT_M 397

int qkv_rng_seed(qkv_rng* rng, uint32_t seed) {
    if (!rng) return QKV_ERR_NULL;
    rng->mt[0] = seed;
    for (int i = 1; i < MT_N; i++) {
        uint32_t prev = rng->mt[i - 1];
        rng->mt[i] = 1812433253u * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    rng->index = MT_N;
    rng->has_gauss = 0;
    rng->gauss = 0.0;
    return QKV_OK;
}

static void mt_generate(qkv_rng* rng) {
    uint32_t* mt = rng->mt;
    for (int i = 0; i < MT_N; i++) {
        uint32_t y = (mt[i] & 0x80000000u) | (mt[(i + 1) % MT_N] & 0x7fffffffu);
        mt[i] = mt[(i + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    rng->index = 0;
}

uint32_t qkv_rng_next_u32(qkv_rng* rng) {
    if (rng->index >= MT_N || rng->index < 0) mt_generate(rng);
    uint32_t y = rng->mt[rng->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

double qkv_rng_double(qkv_rng* rng) {
    uint32_t a = qkv_rng_next_u32(rng) >> 5, b = qkv_rng_next_u32(rng) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* numpy's legacy_gauss: the polar method, keeping f*x1 for the next call. */
double qkv_rng_gauss(qkv_rng* rng) {
    if (rng->has_gauss) {
        rng->has_gauss = 0;
        return rng->gauss;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * qkv_rng_double(rng) - 1.0;
        x2 = 2.0 * qkv_rng_double(rng) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * qkv_log(r2) / r2);
    rng->gauss = f * x1;
    rng->has_gauss = 1;
    return f * x2;
}

int qkv_rng_randn(qkv_rng* rng, float* out, int rows, int cols) {
    if (!rng || !out) return QKV_ERR_NULL;
    size_t count = qkv_elements(rows, cols);
    if (!count) return QKV_ERR_SIZE;
    for (size_t i = 0; i < count; i++) out[i] = (float)qkv_rng_gauss(rng);
    return QKV_OK;
}
