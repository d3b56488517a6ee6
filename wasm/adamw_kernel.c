/*
 * adamw_kernel.c: the GPT's AdamW step over all it trains, a kernel (build.sh's KERNEL_SOURCES)
 * that the GPT module imports like GELU: SIMD lanes in the SIMD128 and relaxed builds, the
 * portable loop in the scalar build, the formula of adamw.h in every lane, unfused, so that every
 * build gives the same bits (tests/simd.test.js).
 * In place, committed only when finite: a first pass computes every new parameter and moment and
 * only checks that all are finite; the second, run only then, computes them again and writes
 * them. Computing twice costs less than the scratch copy, its finiteness pass and three commit
 * copies it replaces (16 floats of memory traffic per parameter become 11).
 */
#include <float.h>

#include "adamw.h"
#include "qkv_internal.h"
#include "simd.h"

#ifdef __wasm_simd128__
/* adamw_one on four lanes (decayed: all-ones lanes where decay applies) */
static inline v128_t adamw_four(v128_t* m_out, v128_t* v_out, v128_t p, v128_t grad, v128_t m,
                                v128_t v, v128_t decayed, const struct adamw_hyper* h) {
    v128_t next_m = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(h->beta1), m),
                                   wasm_f32x4_mul(wasm_f32x4_splat(1.0f - h->beta1), grad));
    v128_t next_v = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(h->beta2), v),
                                   wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(1.0f - h->beta2), grad), grad));
    *m_out = next_m;
    *v_out = next_v;
    v128_t mhat = wasm_f32x4_div(next_m, wasm_f32x4_splat(h->correct1));
    v128_t vhat = wasm_f32x4_div(next_v, wasm_f32x4_splat(h->correct2));
    v128_t d = wasm_v128_and(wasm_f32x4_mul(wasm_f32x4_splat(h->weight_decay), p), decayed);  /* +0 where not */
    v128_t step = wasm_f32x4_add(wasm_f32x4_div(mhat, wasm_f32x4_add(wasm_f32x4_sqrt(vhat), wasm_f32x4_splat(h->eps))), d);
    return wasm_f32x4_sub(p, wasm_f32x4_mul(wasm_f32x4_splat(h->lr), step));
}

/* decay[i .. i+4) as lanes: all ones where set */
static inline v128_t decay_lanes(const unsigned char* decay) {
    v128_t bytes = wasm_v128_load32_zero(decay);
    v128_t wide = wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(bytes));
    return wasm_i32x4_ne(wide, wasm_i32x4_splat(0));
}
#endif

static inline int finite1(float x) { return (x < 0.0f ? -x : x) <= FLT_MAX; }

/* one pass over the N parameters: write 0 computes and checks only (returns 1 at the first
   non-finite value), write 1 stores (returns 0) */
static int adamw_pass(float* p, float* m, float* v, const float* grads, const unsigned char* decay,
                      int N, float gscale, const struct adamw_hyper* h, int write) {
    int i = 0;
#ifdef __wasm_simd128__
    v128_t scale = wasm_f32x4_splat(gscale), max = wasm_f32x4_splat(FLT_MAX);
    v128_t ok = wasm_i32x4_splat(-1);
    for (; i + 4 <= N; i += 4) {
        v128_t nm, nv;
        v128_t np = adamw_four(&nm, &nv, wasm_v128_load(p + i), wasm_f32x4_mul(wasm_v128_load(grads + i), scale),
                               wasm_v128_load(m + i), wasm_v128_load(v + i), decay_lanes(decay + i), h);
        if (write) {
            wasm_v128_store(p + i, np);
            wasm_v128_store(m + i, nm);
            wasm_v128_store(v + i, nv);
        } else {
            /* |x| <= FLT_MAX is false for NaN and +-inf */
            ok = wasm_v128_and(ok, wasm_v128_and(wasm_f32x4_le(wasm_f32x4_abs(np), max),
                 wasm_v128_and(wasm_f32x4_le(wasm_f32x4_abs(nm), max), wasm_f32x4_le(wasm_f32x4_abs(nv), max))));
        }
    }
    if (!write && !wasm_i32x4_all_true(ok)) return 1;
#endif
    for (; i < N; i++) {
        float nm, nv;
        float np = adamw_one(&nm, &nv, p[i], grads[i] * gscale, m[i], v[i], decay[i] != 0, h);
        if (write) {
            p[i] = np; m[i] = nm; v[i] = nv;
        } else if (!finite1(np) || !finite1(nm) || !finite1(nv)) {
            return 1;
        }
    }
    return 0;
}

/* AdamW on N parameters p with moments m, v, gradients times gscale, decoupled weight decay where
   decay[i] is set, bias corrections correct1 = 1 - b1^t and correct2 = 1 - b2^t: 0 when written,
   1 when a new value would not be finite (then nothing is written) */
int adamw_step(float* p, float* m, float* v, const float* grads, const unsigned char* decay, int N,
               float lr, float beta1, float beta2, float eps, float weight_decay, float gscale,
               float correct1, float correct2) {
    struct adamw_hyper h = { lr, beta1, beta2, eps, weight_decay, correct1, correct2 };
    if (adamw_pass(p, m, v, grads, decay, N, gscale, &h, 0)) return 1;
    adamw_pass(p, m, v, grads, decay, N, gscale, &h, 1);
    return 0;
}
