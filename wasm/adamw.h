/*
 * adamw.h: one parameter's Adam / AdamW step, the formula every optimiser of qkv-lab computes:
 * layers.h's adamw_update (the models, one parameter at a time) and adamw_kernel.c (the GPT's
 * step, a kernel: four lanes at a time in the SIMD builds, each lane doing these operations in
 * this order, unfused, so every build gives these bits).
 *   m' = b1 m + (1 - b1) g,  v' = b2 v + (1 - b2) g^2,  m^ = m' / c1,  v^ = v' / c2
 *   decayed < 0 (plain Adam, model.c):  p' = p - lr m^ / (sqrt v^ + eps)
 *   else (AdamW, gpt.c):                p' = p - lr (m^ / (sqrt v^ + eps) + [decayed] wd p)
 * g is the gradient already scaled (clipping); c1 = 1 - b1^t, c2 = 1 - b2^t (layers.h's
 * adam_correction). The two roundings of the last line are kept as each model has always
 * computed them, so that a seed gives the bits it gave before the layers were shared.
 */
#ifndef QKV_ADAMW_H
#define QKV_ADAMW_H

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

struct adamw_hyper { float lr, beta1, beta2, eps, weight_decay, correct1, correct2; };

/* p' of one parameter; its moments m', v' written to *m_out, *v_out. h by value: a copy the
   compiler knows no store to the parameters can change (vectorised loops, no reloads) */
static inline float adamw_one(float* m_out, float* v_out, float p, float grad, float m, float v,
                              int decayed, struct adamw_hyper h) {
    float next_m = h.beta1 * m + (1.0f - h.beta1) * grad;
    float next_v = h.beta2 * v + (1.0f - h.beta2) * grad * grad;
    *m_out = next_m;
    *v_out = next_v;
    float mhat = next_m / h.correct1, vhat = next_v / h.correct2;
    if (decayed < 0) return p - h.lr * mhat / (__builtin_sqrtf(vhat) + h.eps);
    float d = decayed ? h.weight_decay * p : 0.0f;
    return p - h.lr * (mhat / (__builtin_sqrtf(vhat) + h.eps) + d);
}

#endif
