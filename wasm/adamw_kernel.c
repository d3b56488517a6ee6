/*
 * adamw_kernel.c: the GPT's AdamW step over all it trains, a GPT kernel (build.sh's GPT_KERNEL_SOURCES)
 * that the GPT module imports like GELU: SIMD lanes in the SIMD128 and relaxed builds, the
 * portable loop in the scalar build, the formula of adamw.h in every lane, unfused, so that every
 * build gives the same bits (tests/simd.test.js).
 * In place, in one pass, committed only when finite: each parameter's old value and moments go to
 * `old` as the new ones are written, and if any new value is not finite everything is put back.
 * It replaces a pass that wrote the new values to a scratch, a pass that checked them, and three
 * copies back (16 floats of memory traffic per parameter become 10).
 */
#include <float.h>

#include "adamw.h"
#include "qkv_internal.h"
#include "simd.h"

#ifdef __wasm_simd128__
/* adamw.h's constants as lanes, splatted once before the loop. (With the struct passed to each
   call instead, clang 16 stored its seven floats to the stack and reloaded them as vectors in every
   step of the relaxed build's loop, a store-to-load forwarding stall: AdamW ran at half the
   SIMD128 build's speed.) */
struct adamw_lanes { v128_t lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, correct1, correct2; };

static inline struct adamw_lanes adamw_splat(struct adamw_hyper h) {
    struct adamw_lanes c = {
        wasm_f32x4_splat(h.lr), wasm_f32x4_splat(h.beta1), wasm_f32x4_splat(1.0f - h.beta1),
        wasm_f32x4_splat(h.beta2), wasm_f32x4_splat(1.0f - h.beta2), wasm_f32x4_splat(h.eps),
        wasm_f32x4_splat(h.weight_decay), wasm_f32x4_splat(h.correct1), wasm_f32x4_splat(h.correct2) };
    return c;
}

/* adamw_one on four lanes (decayed: all-ones lanes where decay applies) */
static inline v128_t adamw_four(v128_t* m_out, v128_t* v_out, v128_t p, v128_t grad, v128_t m,
                                v128_t v, v128_t decayed, const struct adamw_lanes* c) {
    v128_t next_m = wasm_f32x4_add(wasm_f32x4_mul(c->beta1, m), wasm_f32x4_mul(c->one_minus_beta1, grad));
    v128_t next_v = wasm_f32x4_add(wasm_f32x4_mul(c->beta2, v),
                                   wasm_f32x4_mul(wasm_f32x4_mul(c->one_minus_beta2, grad), grad));
    *m_out = next_m;
    *v_out = next_v;
    v128_t mhat = wasm_f32x4_div(next_m, c->correct1);
    v128_t vhat = wasm_f32x4_div(next_v, c->correct2);
    v128_t d = wasm_v128_and(wasm_f32x4_mul(c->weight_decay, p), decayed);  /* +0 where not */
    v128_t step = wasm_f32x4_add(wasm_f32x4_div(mhat, wasm_f32x4_add(wasm_f32x4_sqrt(vhat), c->eps)), d);
    return wasm_f32x4_sub(p, wasm_f32x4_mul(c->lr, step));
}

/* decay[i .. i+4) as lanes: all ones where set */
static inline v128_t decay_lanes(const unsigned char* decay) {
    v128_t bytes = wasm_v128_load32_zero(decay);
    v128_t wide = wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(bytes));
    return wasm_i32x4_ne(wide, wasm_i32x4_splat(0));
}
#endif

/* puts back every parameter and its moments from old */
static void put_back(float* p, float* m, float* v, const float* old, int N) {
    for (int i = 0; i < N; i++) {
        p[i] = old[i];
        m[i] = old[(size_t)N + i];
        v[i] = old[2 * (size_t)N + i];
    }
}

/* AdamW on N parameters p with moments m, v, gradients times gscale, decoupled weight decay where
   decay[i] is set, bias corrections correct1 = 1 - b1^t and correct2 = 1 - b2^t; old (3 N floats)
   receives p | m | v as they were. 0 when written, 1 when a new value was not finite (then p, m
   and v are put back as they were: the rare path, not a fast one) */
int adamw_step(float* restrict p, float* restrict m, float* restrict v, const float* restrict grads,
               const unsigned char* restrict decay, float* restrict old, int N, float lr, float beta1,
               float beta2, float eps, float weight_decay, float gscale, float correct1, float correct2) {
    struct adamw_hyper h = { lr, beta1, beta2, eps, weight_decay, correct1, correct2 };
    float *old_m = old + N, *old_v = old + 2 * (size_t)N;
    int i = 0, finite = 1;
#ifdef __wasm_simd128__
    v128_t scale = wasm_f32x4_splat(gscale), max = wasm_f32x4_splat(FLT_MAX), ok = wasm_i32x4_splat(-1);
    const struct adamw_lanes lanes = adamw_splat(h);
    for (; i + 4 <= N; i += 4) {
        v128_t pi = wasm_v128_load(p + i), mi = wasm_v128_load(m + i), vi = wasm_v128_load(v + i), nm, nv;
        v128_t np = adamw_four(&nm, &nv, pi, wasm_f32x4_mul(wasm_v128_load(grads + i), scale), mi, vi,
                               decay_lanes(decay + i), &lanes);
        ok = wasm_v128_and(ok, wasm_v128_and(wasm_f32x4_le(wasm_f32x4_abs(np), max),
             wasm_v128_and(wasm_f32x4_le(wasm_f32x4_abs(nm), max), wasm_f32x4_le(wasm_f32x4_abs(nv), max))));
        wasm_v128_store(old + i, pi);
        wasm_v128_store(old_m + i, mi);
        wasm_v128_store(old_v + i, vi);
        wasm_v128_store(p + i, np);
        wasm_v128_store(m + i, nm);
        wasm_v128_store(v + i, nv);
    }
    finite = wasm_i32x4_all_true(ok);
#endif
    for (; i < N; i++) {
        float nm, nv;
        float np = adamw_one(&nm, &nv, p[i], grads[i] * gscale, m[i], v[i], decay[i] != 0, h);
        /* |x| <= FLT_MAX is false for NaN and +-inf (no branch: the signs are random) */
        finite &= (__builtin_fabsf(np) <= FLT_MAX) & (__builtin_fabsf(nm) <= FLT_MAX) & (__builtin_fabsf(nv) <= FLT_MAX);
        old[i] = p[i]; old_m[i] = m[i]; old_v[i] = v[i];
        p[i] = np; m[i] = nm; v[i] = nv;
    }
    if (!finite) {
        put_back(p, m, v, old, N);
        return 1;
    }
    return 0;
}
