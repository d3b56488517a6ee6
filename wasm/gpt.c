/*
 * gpt.c: a GPT-2-style Transformer, character level, with its hand-written backward pass,
 * AdamW, and generation with a KV cache. llm.c's train_gpt2.c is the model for its layout.
 *
 * Legend: V vocabulary (token 0 is the end-of-text token), L layers, H heads, C model width
 * (d in the other files), d_k = C / H, h = 4C the MLP's hidden width, T context (the longest
 * window), B windows per step (batch), n tokens of one forward (n <= T).
 *
 *   x0       (B, T, C) = wte[tokens] + wpe[0..T)         learned positions (GPT-2's choice)
 *   block l (transformer_block below, pre-LN as in GPT-2):
 *     ln1    (B, T, C) = LN1(x)                          biased variance, eps 1e-5
 *     qkv    (B, T, 3C) = ln1 . qkvw (C, 3C) + qkvb      columns: Q | K | V
 *     head j: softmax(Q_j K_j^T / sqrt(d_k) + causal mask) V_j   (attention.c's kernel)
 *     attn   (B, T, C) = concat(heads) . attprojw (C, C) + attprojb
 *     resid1           = x + attn
 *     out              = resid1 + GELU(LN2(resid1) . fcw (C, h) + fcb) . fcprojw (h, C) + fcprojb
 *   lnf      (B, T, C) = LNf(out of block L-1)
 *   logits   (B, T, V) = lnf . wte^T                     the token table tied to the output
 *   loss               = mean over the B T targets of -log softmax(logits)[target]
 *
 * Tied table: wte is both the input lookup and the output layer, so every row of wte gets a
 * gradient at every step (through the logits, where every token's row is scored against every
 * position), while in model.c only the rows of the tokens in the batch are touched.
 *
 * Memory, llm.c style: parameters, gradients, AdamW's moments, the values an update replaces, the
 * activations, the backward scratch and the KV cache live in one float block cut into named
 * tensors; token ids in one int block; the training text in one data block (set once). No step
 * allocates. Every public function checks its arguments and returns a qkv_status.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp_double.h"
#include "layers.h"

/* set-up and inspection, marked QKV_SETUP below (creating a GPT or a LoRA run, merging adapters,
   setting the optimiser, the data and the reference text, the standalone block's layout and its
   one forward, reading a tensor): no training step or generated token runs through them, so the
   WebAssembly build optimises them for size, not speed (this module travels in the GPT add-on,
   under its budget) */
#if defined(__clang__) && defined(__wasm__)
#define QKV_SETUP __attribute__((minsize))
#else
#define QKV_SETUP
#endif

#define QKV_LINE_BYTES 64   /* a cache line */
#define QKV_LINE_FLOATS (QKV_LINE_BYTES / (int)sizeof(float))

struct qkv_gpt {
    int V, L, H, C, T, B, hidden;
    float eps;
    qkv_rng rng;  /* the model seed: initialisation, then the windows of each step */

    /* AdamW and the schedule */
    float lr, beta1, beta2, adam_eps, weight_decay, clip;
    int warmup, total_steps;
    int t;  /* steps taken */
    double loss_limit;  /* QKV_DIVERGENCE_FACTOR * ln V */

    size_t num_params, block_params;   /* all, and one block's */
    size_t block_param_offsets[QKV_BLOCK_PARAMS + 1];
    float* params;  /* wte (V, C) | wpe (T, C) | L blocks | lnfw (C) | lnfb (C) */
    float* grads;   /* the same layout */
    unsigned char* decay;  /* (num_params) 1 where weight decay applies (matrices) */

    /* activations, sized for B windows of T tokens; laid out for the (B, n) of the last forward */
    size_t block_acts;  /* floats of one block's activations */
    float* acts;        /* L blocks, one after another (block_acts floats each) */
    float *x0, *lnf, *lnf_mean, *lnf_rstd, *logits, *probs;
    float* target_probs;  /* (BT) the training step's probs[i][targets[i]], for its loss */
    float* gelu_tanh;     /* (L, BT, hidden) the training forward's tanh inside each GELU, for backward */
    int probs_stale;      /* 1 after a training step's forward, which leaves probs unwritten: the
                             tensor API computes them from the logits when read (same bits) */
    /* backward scratch */
    float* wteT;  /* wte^T (C, V) for the logits' product */
    float *dres, *dx, *dlnf, *dlogits;
    float* dblock[QKV_BLOCK_ACTS];  /* the d of one block's activations, reused by every layer */
    float* kcache;  /* (L, H, T, d_k) */
    float* vcache;
    float* floats;  /* the one float block, on a 64-byte line; each part too */
    void* floats_allocated;  /* what malloc gave (the block rounded up to a line inside it) */
    int last_B, last_n;  /* shape of the last forward, 0 before any */

    int* inputs;   /* (B, T) */
    int* targets;  /* (B, T) */
    int* ints;     /* the one int block */
    struct ranked { float z; int id; }* ranked;  /* (V) sampling scratch */
    double* weights_d;                           /* (2, V): exp(z - max), then the draw's weights */

    int* data;  /* train tokens | train starts | val tokens | val starts (one block) */
    int *train, *train_starts, *val, *val_starts;
    int n_train, n_train_starts, n_val, n_val_starts;
    int* reference;  /* tokens | starts: split 2 of qkv_gpt_evaluate, NULL until set */
    int n_reference, n_reference_starts;

    /* what a step trains: the parameters (params, grads and decay above; m and v, AdamW's moments
       in the same layout; old, the values an update replaces until it is known finite: params |
       m | v), or for a LoRA run the adapters and their own gradients and moments */
    struct trainable { size_t n; float *params, *grads, *m, *v, *old; unsigned char* decay; } tr;

    /* LoRA (qkv_gpt_create_lora): params is the base's, read only; grads and decay are NULL (tr
       holds the adapters, their gradients, moments and old values): nothing of the base is trained */
    const float* base_params;  /* NULL: not a LoRA run */
    int lora_targets, rank;    /* bit mask of 1 << QKV_LORA_*; r */
    float lora_scale;          /* alpha / r */
    float* merged;             /* base + the adapters folded in while merged, else NULL */
    size_t adapter_at[QKV_GPT_MAX_LAYERS][QKV_LORA_TARGETS];  /* where A starts; B follows */
    float* lora_xa;    /* (L, QKV_LORA_TARGETS, B T, r): x.A of each adapter, kept for backward */
    float* lora_tmp;   /* (B T, h) scratch: (x.A).B, then s dy */
    float* lora_dxa;   /* (B T, r) */
    float* lora_ln;    /* (2 C) the frozen LayerNorms' gradients, computed and dropped */
    size_t bytes;      /* allocated at creation */
};

/* ---- layout ---- */

/* sizes of one block's parameters (QKV_BLOCK_PARAM_* order) */
static void block_param_sizes(size_t* s, int C, int h) {
    s[QKV_BLOCK_LN1W] = s[QKV_BLOCK_LN1B] = (size_t)C;
    s[QKV_BLOCK_QKVW] = (size_t)C * 3 * C;
    s[QKV_BLOCK_QKVB] = 3 * (size_t)C;
    s[QKV_BLOCK_ATTPROJW] = (size_t)C * C;
    s[QKV_BLOCK_ATTPROJB] = (size_t)C;
    s[QKV_BLOCK_LN2W] = s[QKV_BLOCK_LN2B] = (size_t)C;
    s[QKV_BLOCK_FCW] = (size_t)C * h;
    s[QKV_BLOCK_FCB] = (size_t)h;
    s[QKV_BLOCK_FCPROJW] = (size_t)h * C;
    s[QKV_BLOCK_FCPROJB] = (size_t)C;
}

/* sizes of one block's activations for B windows of n tokens (QKV_BLOCK_ACT_* order) */
static void block_act_sizes(size_t* s, int B, int n, int C, int H, int h) {
    size_t BT = (size_t)B * n, BC = BT * C;
    s[QKV_BLOCK_ACT_LN1] = BC;
    s[QKV_BLOCK_ACT_LN1_MEAN] = s[QKV_BLOCK_ACT_LN1_RSTD] = BT;
    s[QKV_BLOCK_ACT_QKV] = 3 * BC;
    s[QKV_BLOCK_ACT_Q] = s[QKV_BLOCK_ACT_K] = s[QKV_BLOCK_ACT_V] = BC;       /* (B, H, n, d_k) */
    s[QKV_BLOCK_ACT_SCORES] = s[QKV_BLOCK_ACT_WEIGHTS] = BT * H * n;         /* (B, H, n, n) */
    s[QKV_BLOCK_ACT_HEAD_OUT] = BC;                                          /* (B, H, n, d_k) */
    s[QKV_BLOCK_ACT_CONCAT] = s[QKV_BLOCK_ACT_ATTN] = s[QKV_BLOCK_ACT_RESID1] = BC;
    s[QKV_BLOCK_ACT_LN2] = BC;
    s[QKV_BLOCK_ACT_LN2_MEAN] = s[QKV_BLOCK_ACT_LN2_RSTD] = BT;
    s[QKV_BLOCK_ACT_HIDDEN] = s[QKV_BLOCK_ACT_GELU] = BT * h;
    s[QKV_BLOCK_ACT_MLP] = s[QKV_BLOCK_ACT_OUT] = BC;
}

static size_t offsets_of(size_t* offsets, const size_t* sizes, int count) {
    size_t at = 0;
    for (int i = 0; i < count; i++) { offsets[i] = at; at += sizes[i]; }
    offsets[count] = at;
    return at;
}

/* the shape of LoRA target t's matrix: in rows, k columns, at column `at` of a product `width`
   wide, and the block parameter it adapts */
static void lora_shape(int t, int C, int h, int* in, int* k, int* at, int* width, int* param) {
    *in = t == QKV_LORA_W2 ? h : C;
    *k = t == QKV_LORA_W1 ? h : C;
    *at = t <= QKV_LORA_WV ? t * C : 0;
    *width = t <= QKV_LORA_WV ? 3 * C : t == QKV_LORA_W1 ? h : C;
    /* (no table: the GPT module owns no data) */
    *param = t <= QKV_LORA_WV ? QKV_BLOCK_QKVW : t == QKV_LORA_WO ? QKV_BLOCK_ATTPROJW
           : t == QKV_LORA_W1 ? QKV_BLOCK_FCW : QKV_BLOCK_FCPROJW;
}

/* one block's adapters (A[t] NULL where target t has none), their gradients and activations */
typedef struct {
    const float* A[QKV_LORA_TARGETS];
    const float* B[QKV_LORA_TARGETS];
    float* dA[QKV_LORA_TARGETS];
    float* dB[QKV_LORA_TARGETS];
    float* xa[QKV_LORA_TARGETS];
    float *tmp, *dxa, *ln;
    int r, C, h;
    float s;
} lora_block;

/* y's adapter t, if any: y[:, at..] += s (x.A).B over N rows */
__attribute__((noinline)) static void lora_add(const lora_block* lo, int t, float* y, const float* x, int N) {
    if (!lo || !lo->A[t]) return;
    int in, k, at, width, param;
    lora_shape(t, lo->C, lo->h, &in, &k, &at, &width, &param);
    lora_forward(y, width, at, lo->xa[t], lo->tmp, x, lo->A[t], lo->B[t], N, in, lo->r, k, lo->s);
}

/* reverses lora_add: dx += ..., dA, dB += ... */
__attribute__((noinline)) static void lora_add_backward(const lora_block* lo, int t, float* dx, const float* dy, const float* x,
                              int N) {
    if (!lo || !lo->A[t]) return;
    int in, k, at, width, param;
    lora_shape(t, lo->C, lo->h, &in, &k, &at, &width, &param);
    lora_backward(dx, lo->dA[t], lo->dB[t], lo->tmp, lo->dxa, dy, width, at, x, lo->xa[t], lo->A[t],
                  lo->B[t], N, in, lo->r, k, lo->s);
}

/* ---- one Transformer block ---- */

/* the KV cache of one layer for a decode: keys, values (H, T, d_k), rows 0..pos-1 filled */
typedef struct {
    float *k, *v;
    int T, pos;
} kv_cache;

/* The attention half of a block on x (B n, C): ln1, qkv, the heads, concat, attn, resid1.
 * cache NULL: every row attends to the rows of its window (B windows of n), with causal set
 * only to those at or before it;
 * else one row (B = n = 1) at position cache->pos: its key and value are written into the cache
 * and it attends to rows 0..pos, its scores and weights in row 0 of each head's T.
 * QKV_OK, or QKV_ERR_OVERFLOW when attention overflowed. */
static int block_attention_forward(float** a, const float** p, const lora_block* lo, const float* x,
                                   const kv_cache* cache, int B, int n, int C, int H, float eps,
                                   int causal) {
    int BT = B * n, dk = C / H;
    float scale = sqrtf((float)dk);
    layernorm_forward(a[QKV_BLOCK_ACT_LN1], a[QKV_BLOCK_ACT_LN1_MEAN], a[QKV_BLOCK_ACT_LN1_RSTD], x,
                      p[QKV_BLOCK_LN1W], p[QKV_BLOCK_LN1B], BT, C, eps);
    /* (BT, C) x (C, 3C) -> (BT, 3C) */
    float* qkv = a[QKV_BLOCK_ACT_QKV];
    matmul_forward(qkv, a[QKV_BLOCK_ACT_LN1], p[QKV_BLOCK_QKVW], BT, C, 3 * C);
    bias_forward(qkv, p[QKV_BLOCK_QKVB], BT, 3 * C);
    for (int t = QKV_LORA_WQ; t <= QKV_LORA_WV; t++) lora_add(lo, t, qkv, a[QKV_BLOCK_ACT_LN1], BT);
    if (!cache) {
        for (int m = 0; m < 3; m++)
            heads_copy(a[QKV_BLOCK_ACT_Q + m], qkv, B, n, H, dk, 3 * C, m * C, 1);
        size_t nn = (size_t)n * n, nd = (size_t)n * dk;
        for (int bh = 0; bh < B * H; bh++) {
            /* (n, d_k) x (n, d_k)^T -> (n, n) -> (n, n) x (n, d_k) */
            int status = attention_forward_unchecked(
                a[QKV_BLOCK_ACT_SCORES] + bh * nn, a[QKV_BLOCK_ACT_WEIGHTS] + bh * nn,
                a[QKV_BLOCK_ACT_HEAD_OUT] + bh * nd, a[QKV_BLOCK_ACT_Q] + bh * nd,
                a[QKV_BLOCK_ACT_K] + bh * nd, a[QKV_BLOCK_ACT_V] + bh * nd, n, n, dk, dk, scale, causal);
            if (status) return status;
        }
        heads_copy(a[QKV_BLOCK_ACT_HEAD_OUT], a[QKV_BLOCK_ACT_CONCAT], B, n, H, dk, C, 0, 0);
    } else {
        int T = cache->T, pos = cache->pos;
        for (int j = 0; j < H; j++) {
            memcpy(cache->k + ((size_t)j * T + pos) * dk, qkv + C + (size_t)j * dk, (size_t)dk * sizeof(float));
            memcpy(cache->v + ((size_t)j * T + pos) * dk, qkv + 2 * C + (size_t)j * dk, (size_t)dk * sizeof(float));
        }
        for (int j = 0; j < H; j++) {
            /* (1, d_k) x (pos + 1, d_k)^T -> (1, pos + 1) -> (1, pos + 1) x (pos + 1, d_k):
               every cached key is at or before the query: no mask needed */
            if (attention_forward_unchecked(a[QKV_BLOCK_ACT_SCORES] + (size_t)j * T,
                                            a[QKV_BLOCK_ACT_WEIGHTS] + (size_t)j * T,
                                            a[QKV_BLOCK_ACT_CONCAT] + (size_t)j * dk,
                                            qkv + (size_t)j * dk, cache->k + (size_t)j * T * dk,
                                            cache->v + (size_t)j * T * dk, 1, pos + 1, dk, dk, scale, 0))
                return QKV_ERR_OVERFLOW;
        }
    }
    /* (BT, C) x (C, C) -> (BT, C) */
    matmul_forward(a[QKV_BLOCK_ACT_ATTN], a[QKV_BLOCK_ACT_CONCAT], p[QKV_BLOCK_ATTPROJW], BT, C, C);
    bias_forward(a[QKV_BLOCK_ACT_ATTN], p[QKV_BLOCK_ATTPROJB], BT, C);
    lora_add(lo, QKV_LORA_WO, a[QKV_BLOCK_ACT_ATTN], a[QKV_BLOCK_ACT_CONCAT], BT);
    size_t BC = (size_t)BT * C;
    for (size_t i = 0; i < BC; i++) a[QKV_BLOCK_ACT_RESID1][i] = x[i] + a[QKV_BLOCK_ACT_ATTN][i];
    return QKV_OK;
}

/* The MLP half of a block on its resid1 (BT rows): ln2, hidden, gelu, mlp, out */
static void block_mlp_forward(float** a, const float** p, const lora_block* lo, int BT, int C, int h,
                              float eps, float* gelu_tanh) {
    layernorm_forward(a[QKV_BLOCK_ACT_LN2], a[QKV_BLOCK_ACT_LN2_MEAN], a[QKV_BLOCK_ACT_LN2_RSTD],
                      a[QKV_BLOCK_ACT_RESID1], p[QKV_BLOCK_LN2W], p[QKV_BLOCK_LN2B], BT, C, eps);
    /* (BT, C) x (C, h) -> (BT, h) */
    matmul_forward(a[QKV_BLOCK_ACT_HIDDEN], a[QKV_BLOCK_ACT_LN2], p[QKV_BLOCK_FCW], BT, C, h);
    if (lo && lo->A[QKV_LORA_W1]) {  /* the adapter adds after the bias, before GELU */
        bias_forward(a[QKV_BLOCK_ACT_HIDDEN], p[QKV_BLOCK_FCB], BT, h);
        lora_add(lo, QKV_LORA_W1, a[QKV_BLOCK_ACT_HIDDEN], a[QKV_BLOCK_ACT_LN2], BT);
        gelu_forward(a[QKV_BLOCK_ACT_GELU], a[QKV_BLOCK_ACT_HIDDEN], BT * h, gelu_tanh);
    } else {  /* hidden += fcb and gelu = GELU(hidden) in one pass */
        bias_gelu_forward(a[QKV_BLOCK_ACT_GELU], a[QKV_BLOCK_ACT_HIDDEN], p[QKV_BLOCK_FCB], BT, h, gelu_tanh);
    }
    /* (BT, h) x (h, C) -> (BT, C) */
    matmul_forward(a[QKV_BLOCK_ACT_MLP], a[QKV_BLOCK_ACT_GELU], p[QKV_BLOCK_FCPROJW], BT, h, C);
    bias_forward(a[QKV_BLOCK_ACT_MLP], p[QKV_BLOCK_FCPROJB], BT, C);
    lora_add(lo, QKV_LORA_W2, a[QKV_BLOCK_ACT_MLP], a[QKV_BLOCK_ACT_GELU], BT);
    size_t BC = (size_t)BT * C;
    for (size_t i = 0; i < BC; i++)
        a[QKV_BLOCK_ACT_OUT][i] = a[QKV_BLOCK_ACT_RESID1][i] + a[QKV_BLOCK_ACT_MLP][i];
}

/* x (B, n, C) -> a[...]; QKV_OK, or QKV_ERR_OVERFLOW when attention overflowed. gelu_tanh (B n, h),
   when given, keeps GELU's tanh for the block's backward (training) */
static int transformer_block_forward(float** a, const float** p, const lora_block* lo, const float* x,
                                     int B, int n, int C, int H, int h, float eps, int causal,
                                     float* gelu_tanh) {
    int status = block_attention_forward(a, p, lo, x, NULL, B, n, C, H, eps, causal);
    if (status) return status;
    block_mlp_forward(a, p, lo, B * n, C, h, eps, gelu_tanh);
    return QKV_OK;
}

/* matmul_backward with dA written rather than accumulated (dA = dout . B^T, the same dot products:
   no zeroing pass before it); dB += A^T . dout as there (NULL: skipped) */
static void matmul_backward_written(float* dA, float* dB, const float* dout, const float* A, const float* B,
                                    int n, int k, int m) {
    matmul_abt(dA, dout, B, n, m, k);                    /* (n, m) x (k, m)^T -> (n, k) */
    if (dB) matmul_backward(NULL, dB, dout, A, B, n, k, m);
}

/* reverses transformer_block_forward: dout (B, n, C) -> dx (written), dp[...] += ... (dp NULL:
   the block is frozen, no gradient of its parameters), the adapters' dA, dB += ...;
   d is scratch shaped like the activations (dscores (n, n) in d[QKV_BLOCK_ACT_SCORES]);
   gelu_tanh: what the forward kept */
static void transformer_block_backward(float* dx, float** dp, const lora_block* lo, float** d,
                                       const float* dout, float** a,
                                       const float** p, const float* x,
                                       int B, int n, int C, int H, int h, int causal,
                                       const float* gelu_tanh) {
    float* none[QKV_BLOCK_PARAMS] = { 0 };
    float** dw = dp ? dp : none;  /* matmul_backward skips a NULL gradient */
    if (!dp) {  /* the LayerNorms' gradients, computed and dropped */
        memset(lo->ln, 0, 2 * (size_t)C * sizeof(float));
        none[QKV_BLOCK_LN1W] = none[QKV_BLOCK_LN2W] = lo->ln;
        none[QKV_BLOCK_LN1B] = none[QKV_BLOCK_LN2B] = lo->ln + C;
    }
    int BT = B * n, dk = C / H;
    float scale = sqrtf((float)dk);
    size_t BC = (size_t)BT * C;
    /* out = resid1 + mlp: both receive dout */
    float* dresid1 = d[QKV_BLOCK_ACT_RESID1];
    memcpy(dresid1, dout, BC * sizeof(float));
    /* mlp = gelu . fcprojw + fcprojb */
    float* dgelu = d[QKV_BLOCK_ACT_GELU];
    matmul_backward_written(dgelu, dw[QKV_BLOCK_FCPROJW], dout, a[QKV_BLOCK_ACT_GELU], p[QKV_BLOCK_FCPROJW], BT, h, C);
    if (dp) bias_backward(dp[QKV_BLOCK_FCPROJB], dout, BT, C);
    lora_add_backward(lo, QKV_LORA_W2, dgelu, dout, a[QKV_BLOCK_ACT_GELU], BT);
    /* gelu = GELU(hidden) */
    float* dhidden = d[QKV_BLOCK_ACT_HIDDEN];
    gelu_backward(dhidden, a[QKV_BLOCK_ACT_HIDDEN], dgelu, BT * h, 0, gelu_tanh);  /* written */
    /* hidden = ln2 . fcw + fcb */
    float* dln2 = d[QKV_BLOCK_ACT_LN2];
    matmul_backward_written(dln2, dw[QKV_BLOCK_FCW], dhidden, a[QKV_BLOCK_ACT_LN2], p[QKV_BLOCK_FCW], BT, C, h);
    if (dp) bias_backward(dp[QKV_BLOCK_FCB], dhidden, BT, h);
    lora_add_backward(lo, QKV_LORA_W1, dln2, dhidden, a[QKV_BLOCK_ACT_LN2], BT);
    /* ln2 = LN2(resid1) */
    layernorm_backward(dresid1, dw[QKV_BLOCK_LN2W], dw[QKV_BLOCK_LN2B], dln2, a[QKV_BLOCK_ACT_RESID1],
                       p[QKV_BLOCK_LN2W], a[QKV_BLOCK_ACT_LN2_MEAN], a[QKV_BLOCK_ACT_LN2_RSTD], BT, C, 1);
    /* resid1 = x + attn: both receive dresid1 (dx written here: 0 + dresid1, the bits of adding
       it to a zeroed dx, a -0 made +0) */
    for (size_t i = 0; i < BC; i++) dx[i] = 0.0f + dresid1[i];
    /* attn = concat . attprojw + attprojb */
    float* dconcat = d[QKV_BLOCK_ACT_CONCAT];
    matmul_backward_written(dconcat, dw[QKV_BLOCK_ATTPROJW], dresid1, a[QKV_BLOCK_ACT_CONCAT], p[QKV_BLOCK_ATTPROJW], BT, C, C);
    if (dp) bias_backward(dp[QKV_BLOCK_ATTPROJB], dresid1, BT, C);
    lora_add_backward(lo, QKV_LORA_WO, dconcat, dresid1, a[QKV_BLOCK_ACT_CONCAT], BT);
    /* concat = the heads side by side */
    float* dhead = d[QKV_BLOCK_ACT_HEAD_OUT];
    heads_copy(dhead, dconcat, B, n, H, dk, C, 0, 1);
    /* head j = attention(Q_j, K_j, V_j) */
    float *dq = d[QKV_BLOCK_ACT_Q], *dk_ = d[QKV_BLOCK_ACT_K], *dv = d[QKV_BLOCK_ACT_V];  /* written */
    size_t nn = (size_t)n * n, nd = (size_t)n * dk;
    for (int bh = 0; bh < B * H; bh++)
        attention_backward_unchecked(dq + bh * nd, dk_ + bh * nd, dv + bh * nd, d[QKV_BLOCK_ACT_SCORES],
                                     dhead + bh * nd, a[QKV_BLOCK_ACT_Q] + bh * nd,
                                     a[QKV_BLOCK_ACT_K] + bh * nd, a[QKV_BLOCK_ACT_V] + bh * nd,
                                     a[QKV_BLOCK_ACT_WEIGHTS] + bh * nn, n, n, dk, dk, scale, causal, 0);
    /* Q, K, V = columns of qkv */
    float* dqkv = d[QKV_BLOCK_ACT_QKV];
    for (int m = 0; m < 3; m++)
        heads_copy(d[QKV_BLOCK_ACT_Q + m], dqkv, B, n, H, dk, 3 * C, m * C, 0);
    /* qkv = ln1 . qkvw + qkvb */
    float* dln1 = d[QKV_BLOCK_ACT_LN1];
    matmul_backward_written(dln1, dw[QKV_BLOCK_QKVW], dqkv, a[QKV_BLOCK_ACT_LN1], p[QKV_BLOCK_QKVW], BT, C, 3 * C);
    if (dp) bias_backward(dp[QKV_BLOCK_QKVB], dqkv, BT, 3 * C);
    for (int t = QKV_LORA_WQ; t <= QKV_LORA_WV; t++) lora_add_backward(lo, t, dln1, dqkv, a[QKV_BLOCK_ACT_LN1], BT);
    /* ln1 = LN1(x) */
    layernorm_backward(dx, dw[QKV_BLOCK_LN1W], dw[QKV_BLOCK_LN1B], dln1, x, p[QKV_BLOCK_LN1W],
                       a[QKV_BLOCK_ACT_LN1_MEAN], a[QKV_BLOCK_ACT_LN1_RSTD], BT, C, 1);
}

/* ---- the standalone block (qkv.transformerBlock) ---- */

static int check_block_shape(int n, int C, int hidden, int heads) {
    if (C > QKV_MAX_SIDE / 3) return QKV_ERR_SIZE;  /* so that 3 C below cannot overflow an int */
    if (!qkv_elements(n, C) || !qkv_elements(C, 3 * C) || !qkv_elements(n, 3 * C) ||
        !qkv_elements(C, hidden) || !qkv_elements(n, hidden) || heads <= 0 || heads > C ||
        !qkv_elements(n, n) || (size_t)n * n > QKV_MAX_ELEMENTS / (size_t)heads)
        return QKV_ERR_SIZE;
    if (C % heads) return QKV_ERR_SHAPE;
    return QKV_OK;
}

/* one block over one sequence of n: its parameters' and activations' offsets (po, ao, each with
   the total at the end) and totals (np, na), or the status of a bad shape or size */
QKV_SETUP static int one_block_offsets(size_t* po, size_t* ao, size_t* np, size_t* na, int n, int C,
                             int hidden, int heads) {
    int status = check_block_shape(n, C, hidden, heads);
    if (status) return status;
    size_t ps[QKV_BLOCK_PARAMS], as[QKV_BLOCK_ACTS];
    block_param_sizes(ps, C, hidden);
    block_act_sizes(as, 1, n, C, heads, hidden);
    *np = offsets_of(po, ps, QKV_BLOCK_PARAMS);
    *na = offsets_of(ao, as, QKV_BLOCK_ACTS);
    return *np > QKV_MAX_ELEMENTS || *na > QKV_MAX_ELEMENTS ? QKV_ERR_SIZE : QKV_OK;
}

QKV_SETUP int qkv_transformer_block_layout(int* param_offsets, int* act_offsets, int n, int C, int hidden,
                                 int heads) {
    if (!param_offsets || !act_offsets) return QKV_ERR_NULL;
    size_t po[QKV_BLOCK_PARAMS + 1], ao[QKV_BLOCK_ACTS + 1], np, na;
    int status = one_block_offsets(po, ao, &np, &na, n, C, hidden, heads);
    if (status) return status;
    for (int i = 0; i <= QKV_BLOCK_PARAMS; i++) param_offsets[i] = (int)po[i];
    for (int i = 0; i <= QKV_BLOCK_ACTS; i++) act_offsets[i] = (int)ao[i];
    return QKV_OK;
}

QKV_SETUP int qkv_transformer_block_forward(float* acts, const float* params, const float* x, int n, int C,
                                  int hidden, int heads, int causal, float eps) {
    if (!acts || !params || !x) return QKV_ERR_NULL;
    size_t po[QKV_BLOCK_PARAMS + 1], ao[QKV_BLOCK_ACTS + 1], np, na;
    int status = one_block_offsets(po, ao, &np, &na, n, C, hidden, heads);
    if (status) return status;
    if (!isfinite(eps) || !(eps > 0.0f)) return QKV_ERR_ARGUMENT;
    if (qkv_check_finite(x, (size_t)n * C) || qkv_check_finite(params, np)) return QKV_ERR_NONFINITE;
    const float* p[QKV_BLOCK_PARAMS];
    float* a[QKV_BLOCK_ACTS];
    for (int i = 0; i < QKV_BLOCK_PARAMS; i++) p[i] = params + po[i];
    for (int i = 0; i < QKV_BLOCK_ACTS; i++) a[i] = acts + ao[i];
    status = transformer_block_forward(a, p, NULL, x, 1, n, C, heads, hidden, eps, causal ? 1 : 0, NULL);
    if (status) return status;
    /* finite inputs can overflow (a huge weight); never hand back Infinity or NaN */
    if (qkv_check_finite(acts, na)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

/* ---- the GPT ---- */

static void block_params_of(const qkv_gpt* g, int l, const float* base, const float** out) {
    const float* at = base + (size_t)g->V * g->C + (size_t)g->T * g->C + (size_t)l * g->block_params;
    for (int i = 0; i < QKV_BLOCK_PARAMS; i++) out[i] = at + g->block_param_offsets[i];
}

/* the activation pointers of block l for B windows of n tokens */
static void block_acts_of(const qkv_gpt* g, int l, int B, int n, float** out) {
    size_t sizes[QKV_BLOCK_ACTS], offsets[QKV_BLOCK_ACTS + 1];
    block_act_sizes(sizes, B, n, g->C, g->H, g->hidden);
    offsets_of(offsets, sizes, QKV_BLOCK_ACTS);
    float* at = g->acts + (size_t)l * g->block_acts;
    for (int i = 0; i < QKV_BLOCK_ACTS; i++) out[i] = at + offsets[i];
}

static float* wte_of(const qkv_gpt* g, float* base) { (void)g; return base; }
/* layer l's GELU tanh kept by the training forward for its backward (laid out for B x T rows) */
static float* gelu_tanh_of(const qkv_gpt* g, int l) { return g->gelu_tanh + (size_t)l * g->B * g->T * g->hidden; }
static float* wpe_of(const qkv_gpt* g, float* base) { return base + (size_t)g->V * g->C; }
static float* lnf_of(const qkv_gpt* g, float* base) { return base + g->num_params - 2 * (size_t)g->C; }

/* block l's adapters for B windows of n tokens, or NULL when there are none in use (not a LoRA
   run, or merged: the weights then hold them) */
static const lora_block* lora_block_of(qkv_gpt* g, int l, int B, int n, lora_block* lo) {
    if (!g->base_params || g->merged) return NULL;
    memset(lo, 0, sizeof *lo);
    lo->r = g->rank; lo->C = g->C; lo->h = g->hidden; lo->s = g->lora_scale;
    lo->tmp = g->lora_tmp; lo->dxa = g->lora_dxa; lo->ln = g->lora_ln;
    size_t rows = (size_t)B * n;
    for (int t = 0; t < QKV_LORA_TARGETS; t++) {
        if (!(g->lora_targets >> t & 1)) continue;
        int in, k, at, width, param;
        lora_shape(t, g->C, g->hidden, &in, &k, &at, &width, &param);
        size_t a = g->adapter_at[l][t], b = a + (size_t)in * g->rank;
        lo->A[t] = g->tr.params + a; lo->B[t] = g->tr.params + b;
        lo->dA[t] = g->tr.grads + a; lo->dB[t] = g->tr.grads + b;
        lo->xa[t] = g->lora_xa + ((size_t)l * QKV_LORA_TARGETS + t) * g->B * g->T * g->rank;
        (void)rows;
    }
    return lo;
}

/* the summed loss of the last forward's N rows, -log p_i, in double (layers.h's crossentropy_forward,
   once in this module): p_i from the rows of probabilities (rows 1: probs[i][targets[i]]) or from
   the training step's target probabilities (rows 0: target_probs[i]) */
__attribute__((noinline)) static double gpt_loss_sum(const qkv_gpt* g, const float* p, int rows, const int* targets, int N) {
    double total = 0.0;
    for (int i = 0; i < N; i++)
        total += qkv_crossentropy_of(rows ? p[(size_t)i * g->V + targets[i]] : p[i], g->logits + (size_t)i * g->V,
                                     targets[i], g->V);
    return total;
}

/* Rows of the output layer's gradient at a time (a tuning constant: the bits are the same): the
   softmax writes a block's dlogits, and both products read it at once, while it is in cache;
   40 rows of the default GPT's 3,644 columns are 583 KB, where all 512 were 7.5 MB, written and
   read back from memory (64 and 128 rows measured the same as 32, 16 slower; all 512 at once up
   to 1.04x slower a step). 40, not 32: a multiple of both builds' tile heights (matrix.c's MR, 4
   and 5): 32 rows made six 5-row tiles and an edge tile of 2 rows, run whole on a copy (the
   relaxed build's step 1.03x faster with 40) */
#define OUT_ROWS 40

/* the output layer's backward with its softmax, a block of OUT_ROWS rows at a time: target_probs,
   dlogits = (probs - onehot) / BT of the block's rows (in the softmax's pass), then
   dlnf = dlogits . wte (written, the block's rows) and dwte = dlogits^T . lnf, written by the first
   block and added to by the next ones: every entry sums its terms in the order p = 0, 1, ... one
   product over all rows took (a block continues the float32 sum the last one stored), so the
   bits are the same. A LoRA run's tied table is frozen: no dwte. QKV_ERR_OVERFLOW for a row whose
   largest logit is not finite (the step diverged: the caller zeroes what was written) */
static int output_layer_grad(qkv_gpt* g, const int* targets, int BT) {
    int C = g->C, V = g->V;
    const float* wte = wte_of(g, g->params);
    float* dwte = g->base_params ? NULL : wte_of(g, g->grads);
    for (int r0 = 0; r0 < BT; r0 += OUT_ROWS) {
        int rows = BT - r0 < OUT_ROWS ? BT - r0 : OUT_ROWS;
        const float* lnf = g->lnf + (size_t)r0 * C;
        if (softmax_crossentropy_rows(NULL, g->dlogits, g->target_probs + r0, g->logits + (size_t)r0 * V,
                                      targets + r0, rows, V, 1.0f / (float)BT))
            return QKV_ERR_OVERFLOW;
        matmul_forward(g->dlnf + (size_t)r0 * C, g->dlogits, wte, rows, V, C);  /* (rows, V) x (V, C) */
        if (dwte && r0 == 0) matmul_atb(dwte, g->dlogits, lnf, V, rows, C);  /* (V, rows) x (rows, C) */
        else if (dwte) matmul_atb_accumulate(dwte, g->dlogits, lnf, V, rows, C);
    }
    return QKV_OK;
}

/* tokens (B, n) -> logits, probs (B n, V); with targets (B, n), target_probs instead of probs and
   the output layer's backward (output_layer_grad: dlnf and the tied table's gradient);
   QKV_OK or QKV_ERR_OVERFLOW (parameters too large) */
static int gpt_forward_grad(qkv_gpt* g, const int* tokens, const int* targets, int B, int n) {
    int C = g->C, V = g->V, BT = B * n;
    g->last_B = g->last_n = 0;
    const float* wte = wte_of(g, g->params);
    const float* wpe = wpe_of(g, g->params);
    embedding_forward(g->x0, tokens, wte, wpe, B, n, C);  /* x0[b][t] = wte[tokens[b][t]] + wpe[t] */
    const float* x = g->x0;
    for (int l = 0; l < g->L; l++) {
        const float* p[QKV_BLOCK_PARAMS];
        float* a[QKV_BLOCK_ACTS];
        block_params_of(g, l, g->params, p);
        block_acts_of(g, l, B, n, a);
        lora_block lb;
        const lora_block* lo = lora_block_of(g, l, B, n, &lb);
        /* training keeps GELU's tanh for backward (read back, not computed again: the same bits) */
        if (transformer_block_forward(a, p, lo, x, B, n, C, g->H, g->hidden, g->eps, 1, targets ? gelu_tanh_of(g, l) : NULL))
            return QKV_ERR_OVERFLOW;
        x = a[QKV_BLOCK_ACT_OUT];
    }
    const float* lnf = lnf_of(g, g->params);
    layernorm_forward(g->lnf, g->lnf_mean, g->lnf_rstd, x, lnf, lnf + C, BT, C, g->eps);
    /* (BT, C) x (C, V) -> (BT, V): every token's row of the tied table scored. Through wte^T:
       gemm_nn's register tiles run several times faster than dot products of 64-float rows */
    transpose_forward(g->wteT, wte, V, C);
    matmul_forward(g->logits, g->lnf, g->wteT, BT, C, V);
    /* training: the probabilities only through the loss (target_probs), not written. A row whose
       largest logit is not finite stops the kernel there, the rows after it holding the last
       step's values: the step diverged (its loss is not computed from them). Forward and
       generation check their rows themselves. */
    if (targets) {
        if (output_layer_grad(g, targets, BT)) return QKV_ERR_OVERFLOW;
    } else {
        softmax_rows_forward(g->probs, g->logits, BT, V);
    }
    g->probs_stale = targets != NULL;
    g->last_B = B;
    g->last_n = n;
    return QKV_OK;
}

static int gpt_forward(qkv_gpt* g, const int* tokens, int B, int n) {
    return gpt_forward_grad(g, tokens, NULL, B, n);
}

/* backward of the last forward, gpt_forward_grad with targets (B, n), from the output layer's
   dlnf and dwte (which it wrote: every row of wte receives a gradient there; the embedding's share
   is added last); accumulates into g->grads (the rest zeroed by the caller), or for a LoRA run
   into the adapters' gradients alone (nothing else of the base is computed) */
static void gpt_backward(qkv_gpt* g, const int* tokens, int B, int n) {
    int frozen = g->base_params != NULL;
    int C = g->C, BT = B * n;
    float* dwte = frozen ? NULL : wte_of(g, g->grads);
    /* lnf = LNf(x_L) */
    float* a[QKV_BLOCK_ACTS];
    block_acts_of(g, g->L - 1, B, n, a);
    const float* lnf = lnf_of(g, g->params);
    float* dlnfw = frozen ? g->lora_ln : lnf_of(g, g->grads);  /* frozen: computed and dropped */
    if (frozen) memset(dlnfw, 0, 2 * (size_t)C * sizeof(float));
    layernorm_backward(g->dres, dlnfw, dlnfw + C, g->dlnf, a[QKV_BLOCK_ACT_OUT], lnf,
                       g->lnf_mean, g->lnf_rstd, BT, C, 0);  /* dres written */
    /* the blocks, last to first: dres holds d(out of block l), dx receives d(its input) */
    for (int l = g->L - 1; l >= 0; l--) {
        const float* p[QKV_BLOCK_PARAMS];
        const float* dpc[QKV_BLOCK_PARAMS];
        float* dp[QKV_BLOCK_PARAMS];
        float* al[QKV_BLOCK_ACTS];
        block_params_of(g, l, g->params, p);
        if (!frozen) {
            block_params_of(g, l, g->grads, dpc);
            for (int i = 0; i < QKV_BLOCK_PARAMS; i++) dp[i] = (float*)dpc[i];
        }
        lora_block lb;
        const lora_block* lo = lora_block_of(g, l, B, n, &lb);
        block_acts_of(g, l, B, n, al);
        const float* x;
        if (l == 0) {
            x = g->x0;
        } else {
            float* prev[QKV_BLOCK_ACTS];
            block_acts_of(g, l - 1, B, n, prev);
            x = prev[QKV_BLOCK_ACT_OUT];
        }
        transformer_block_backward(g->dx, frozen ? NULL : dp, lo, g->dblock, g->dres, al, p, x, B, n,
                                   C, g->H, g->hidden, 1, gelu_tanh_of(g, l));
        float* swap = g->dres; g->dres = g->dx; g->dx = swap;
    }
    /* x0 = wte[tokens] + wpe[t]  ->  the token's row and the position's row */
    if (!frozen) embedding_backward(dwte, wpe_of(g, g->grads), g->dres, tokens, B, n, C);
}

/* ---- create / destroy ---- */

/* the floats of every adapter of a LoRA run, and where each starts (adapter_at) */
static uint64_t lora_layout(size_t at[][QKV_LORA_TARGETS], int L, int C, int targets, int rank) {
    uint64_t total = 0;
    for (int l = 0; l < L; l++)
        for (int t = 0; t < QKV_LORA_TARGETS; t++) {
            if (!(targets >> t & 1)) continue;
            int in, k, a, width, param;
            lora_shape(t, C, 4 * C, &in, &k, &a, &width, &param);
            at[l][t] = (size_t)total;
            total += (uint64_t)rank * ((uint64_t)in + (uint64_t)k);  /* A (in, r) | B (r, k) */
        }
    return total;
}

/* a GPT's memory, for B windows of T tokens: its own parameters with their gradients and AdamW
   state, or (base given) base's frozen parameters and the adapters of `targets` at `rank` with
   theirs. train 0 (no base): the parameters and what a forward uses only, none of what training
   adds (gradients, moments, the copies an update keeps, backward's buffers, GELU's kept tanh):
   tr.grads is then NULL, which the training functions refuse. Shapes are checked by the callers. */
QKV_SETUP static int gpt_new(qkv_gpt** out, int V, int L, int H, int C, int T, int B, qkv_gpt* base,
                   int targets, int rank, int train) {
    int h = 4 * C;
    size_t ps[QKV_BLOCK_PARAMS], po[QKV_BLOCK_PARAMS + 1], as[QKV_BLOCK_ACTS], ao[QKV_BLOCK_ACTS + 1];
    block_param_sizes(ps, C, h);
    size_t per_block = offsets_of(po, ps, QKV_BLOCK_PARAMS);
    block_act_sizes(as, B, T, C, H, h);
    size_t per_acts = offsets_of(ao, as, QKV_BLOCK_ACTS);
    uint64_t BT = (uint64_t)B * T, BC = BT * C;
    uint64_t N = (uint64_t)V * C + (uint64_t)T * C + (uint64_t)L * per_block + 2 * (uint64_t)C;
    if (N > QKV_MAX_ELEMENTS) return QKV_ERR_SIZE;

    qkv_gpt* g = calloc(1, sizeof(qkv_gpt));
    if (!g) return QKV_ERR_ALLOC;
    g->V = V; g->L = L; g->H = H; g->C = C; g->T = T; g->B = B; g->hidden = h;
    g->eps = 1e-5f;
    g->num_params = (size_t)N;
    g->block_params = per_block;
    memcpy(g->block_param_offsets, po, sizeof po);
    g->block_acts = per_acts;
    uint64_t NA = base ? lora_layout(g->adapter_at, L, C, targets, rank) : 0;
    uint64_t trained = base ? NA : N;  /* floats a step updates */
    if (trained > QKV_MAX_ELEMENTS) {
        free(g);
        return QKV_ERR_SIZE;
    }
    struct trainable* tr = &g->tr;
    /* The float block, listed once: the sum sizes it, the same list carves it. 64-bit counts:
       every factor is limited above, so none of these overflows 64 bits. */
    struct { float** at; uint64_t floats; } parts[40 + QKV_BLOCK_ACTS];
    int count = 0;
#define PART(slot, n) (parts[count].at = &(slot), parts[count++].floats = (uint64_t)(n))
    PART(tr->params, trained);
    if (train) {
        PART(tr->grads, trained); PART(tr->m, trained); PART(tr->v, trained);
        PART(tr->old, 3 * trained);              /* params | m | v an update replaces, until committed */
    }
    PART(g->acts, (uint64_t)L * per_acts);
    PART(g->x0, BC); PART(g->lnf, BC); PART(g->lnf_mean, BT); PART(g->lnf_rstd, BT);
    PART(g->logits, BT * V); PART(g->probs, BT * V);
    if (train) {
        PART(g->dres, BC); PART(g->dx, BC); PART(g->dlnf, BC);
        PART(g->dlogits, (BT < OUT_ROWS ? BT : OUT_ROWS) * V);  /* output_layer_grad's block */
        for (int i = 0; i < QKV_BLOCK_ACTS; i++)    /* one block's d; dscores: one head's (T, T) */
            PART(g->dblock[i], i == QKV_BLOCK_ACT_SCORES ? (uint64_t)T * T : as[i]);
        PART(g->target_probs, BT);
        PART(g->gelu_tanh, (uint64_t)L * BT * h);
    }
    PART(g->kcache, (uint64_t)L * T * C); PART(g->vcache, (uint64_t)L * T * C);
    PART(g->wteT, (uint64_t)V * C);
    if (base) {   /* x.A of every adapter, the adapters' scratch */
        PART(g->lora_xa, (uint64_t)L * QKV_LORA_TARGETS * BT * rank);
        PART(g->lora_tmp, BT * h); PART(g->lora_dxa, BT * rank); PART(g->lora_ln, 2 * (uint64_t)C);
    }
#undef PART
    /* every part starts on a 64-byte line (the tensors inside a part, such as one block's
       activations or one parameter matrix, start where their sizes put them): a block 8 bytes off
       a line, as malloc may place it, made every 16-byte access of the step unaligned and a
       quarter of them split across lines, about 1 ms of a step (docs/performance.md) */
    for (int i = 0; i < count; i++) parts[i].floats = (parts[i].floats + QKV_LINE_FLOATS - 1) / QKV_LINE_FLOATS * QKV_LINE_FLOATS;
    uint64_t floats = 0;
    for (int i = 0; i < count; i++) floats += parts[i].floats;
    const uint64_t allocated = floats + QKV_LINE_FLOATS;  /* room to start the block on a line */
    if (allocated > QKV_MAX_BYTES / sizeof(float)) {
        free(g);
        return QKV_ERR_SIZE;
    }
    g->floats_allocated = malloc((size_t)allocated * sizeof(float));
    g->floats = g->floats_allocated ? (float*)(((uintptr_t)g->floats_allocated + QKV_LINE_BYTES - 1) & ~(uintptr_t)(QKV_LINE_BYTES - 1)) : NULL;
    g->ints = malloc(2 * (size_t)BT * sizeof(int));
    tr->decay = train ? malloc((size_t)trained) : NULL;
    g->ranked = malloc((size_t)V * sizeof(*g->ranked));
    g->weights_d = malloc(2 * (size_t)V * sizeof(double));
    if (!g->floats || !g->ints || (train && !tr->decay) || !g->ranked || !g->weights_d) {
        qkv_gpt_destroy(g);
        return QKV_ERR_ALLOC;
    }
    float* f = g->floats;
    for (int i = 0; i < count; i++) { *parts[i].at = f; f += parts[i].floats; }
    if ((uint64_t)(f - g->floats) != floats) {  /* the carving used exactly the sum: by construction */
        qkv_gpt_destroy(g);
        return QKV_ERR_SIZE;
    }
    memset(g->floats, 0, (size_t)floats * sizeof(float));
    tr->n = (size_t)trained;
    if (base) {
        g->params = base->params;  /* read, never written */
        g->base_params = base->params;
    } else {
        g->params = tr->params; g->grads = tr->grads;
        g->decay = tr->decay;
    }
    g->inputs = g->ints;
    g->targets = g->ints + BT;
    g->bytes = (size_t)allocated * sizeof(float) + 2 * (size_t)BT * sizeof(int) + (train ? (size_t)trained : 0) +
               (size_t)V * (sizeof(*g->ranked) + 2 * sizeof(double));
    g->lr = 3e-3f; g->beta1 = 0.9f; g->beta2 = 0.99f; g->adam_eps = 1e-8f;
    g->weight_decay = 0.01f; g->clip = 1.0f; g->warmup = 0; g->total_steps = 0;
    g->loss_limit = QKV_DIVERGENCE_FACTOR * qkv_log((double)V);
    *out = g;
    return QKV_OK;
}

/* the shape checks of qkv_gpt_create and qkv_gpt_create_inference */
QKV_SETUP static int check_gpt_shape(int vocab, int layers, int heads, int dim, int context, int batch) {
    if (vocab < 2 || vocab > QKV_GPT_MAX_VOCAB || layers < 1 || layers > QKV_GPT_MAX_LAYERS ||
        dim < 1 || dim > QKV_GPT_MAX_DIM || context < 1 || context > QKV_GPT_MAX_CONTEXT ||
        batch < 1 || batch > QKV_GPT_MAX_BATCH || heads < 1 || heads > dim)
        return QKV_ERR_SIZE;
    return dim % heads ? QKV_ERR_SHAPE : QKV_OK;
}

QKV_SETUP int qkv_gpt_create_inference(qkv_gpt** out, int vocab, int layers, int heads, int dim,
                                       int context, int batch) {
    if (!out) return QKV_ERR_NULL;
    *out = NULL;
    int status = check_gpt_shape(vocab, layers, heads, dim, context, batch);
    return status ? status : gpt_new(out, vocab, layers, heads, dim, context, batch, NULL, 0, 0, 0);
}

QKV_SETUP int qkv_gpt_create(qkv_gpt** out, int vocab, int layers, int heads, int dim, int context,
                   int batch, uint32_t seed) {
    if (!out) return QKV_ERR_NULL;
    *out = NULL;
    int status = check_gpt_shape(vocab, layers, heads, dim, context, batch);
    if (status) return status;
    int V = vocab, L = layers, C = dim, T = context;
    qkv_gpt* g;
    status = gpt_new(&g, V, L, heads, C, T, batch, NULL, 0, 0, 1);
    if (status) return status;
    size_t ps[QKV_BLOCK_PARAMS];
    block_param_sizes(ps, C, g->hidden);
    const size_t* po = g->block_param_offsets;
    size_t per_block = g->block_params, N = g->num_params;

    /* GPT-2's initialisation, from one numpy-compatible stream in parameter order:
     * matrices ~ N(0, 0.02), the two projections into the residual stream (attprojw, fcprojw)
     * scaled by 1/sqrt(2L); biases 0; LayerNorm gains 1, shifts 0 */
    qkv_rng_seed(&g->rng, seed);
    float std = 0.02f, resid = 0.02f / sqrtf(2.0f * (float)L);
    memset(g->decay, 0, N);
    float* p = g->params;
    for (size_t i = 0; i < (size_t)V * C + (size_t)T * C; i++) p[i] = std * (float)qkv_rng_gauss(&g->rng);
    memset(g->decay, 1, (size_t)V * C + (size_t)T * C);
    for (int l = 0; l < L; l++) {
        size_t base = (size_t)V * C + (size_t)T * C + (size_t)l * per_block;
        for (int i = 0; i < QKV_BLOCK_PARAMS; i++) {
            float* t = p + base + po[i];
            size_t count = ps[i];
            int matrix = i == QKV_BLOCK_QKVW || i == QKV_BLOCK_ATTPROJW || i == QKV_BLOCK_FCW ||
                         i == QKV_BLOCK_FCPROJW;
            int gain = i == QKV_BLOCK_LN1W || i == QKV_BLOCK_LN2W;
            float s = i == QKV_BLOCK_ATTPROJW || i == QKV_BLOCK_FCPROJW ? resid : std;
            for (size_t j = 0; j < count; j++)
                t[j] = matrix ? s * (float)qkv_rng_gauss(&g->rng) : gain ? 1.0f : 0.0f;
            if (matrix) memset(g->decay + base + po[i], 1, count);
        }
    }
    float* lnf = lnf_of(g, p);
    for (int c = 0; c < C; c++) { lnf[c] = 1.0f; lnf[C + c] = 0.0f; }
    *out = g;
    return QKV_OK;
}

QKV_SETUP int qkv_gpt_create_lora(qkv_gpt** out, qkv_gpt* base, int batch, int targets, int rank,
                        float alpha, uint32_t seed) {
    if (!out || !base) return QKV_ERR_NULL;
    *out = NULL;
    if (base->base_params) return QKV_ERR_ARGUMENT;  /* a LoRA run is not a base */
    if (batch < 1 || batch > QKV_GPT_MAX_BATCH || rank < 1 || rank > QKV_LORA_MAX_RANK) return QKV_ERR_SIZE;
    if (targets <= 0 || targets >= 1 << QKV_LORA_TARGETS) return QKV_ERR_ARGUMENT;
    if (!isfinite(alpha) || !(alpha > 0.0f)) return QKV_ERR_ARGUMENT;
    qkv_gpt* g;
    int status = gpt_new(&g, base->V, base->L, base->H, base->C, base->T, batch, base, targets, rank, 1);
    if (status) return status;
    g->lora_targets = targets;
    g->rank = rank;
    g->lora_scale = alpha / (float)rank;
    /* A ~ N(0, 1) / sqrt(in), layer by layer and target by target from the seed; B = 0 (zeroed) */
    qkv_rng_seed(&g->rng, seed);
    for (int l = 0; l < g->L; l++)
        for (int t = 0; t < QKV_LORA_TARGETS; t++) {
            if (!(targets >> t & 1)) continue;
            int in, k, at, width, param;
            lora_shape(t, g->C, g->hidden, &in, &k, &at, &width, &param);
            float* A = g->tr.params + g->adapter_at[l][t];
            float s = 1.0f / sqrtf((float)in);
            for (size_t i = 0; i < (size_t)in * rank; i++) A[i] = s * (float)qkv_rng_gauss(&g->rng);
        }
    memset(g->tr.decay, 1, g->tr.n);  /* A and B are matrices: AdamW decays both */
    *out = g;
    return QKV_OK;
}

QKV_SETUP int qkv_gpt_lora_merge(qkv_gpt* g, int merge) {
    if (!g) return QKV_ERR_NULL;
    if (!g->base_params) return QKV_ERR_ARGUMENT;
    if (!merge) {
        free(g->merged);
        g->merged = NULL;
        g->params = (float*)g->base_params;
        return QKV_OK;
    }
    if (g->merged) return QKV_OK;
    int C = g->C, h = g->hidden, r = g->rank;
    size_t N = g->num_params;
    float* merged = malloc((N + (size_t)C * h) * sizeof(float));  /* W | A.B scratch (in, k) */
    if (!merged) return QKV_ERR_ALLOC;
    memcpy(merged, g->base_params, N * sizeof(float));
    float* ab = merged + N;
    for (int l = 0; l < g->L; l++) {
        const float* p[QKV_BLOCK_PARAMS];
        block_params_of(g, l, merged, p);
        for (int t = 0; t < QKV_LORA_TARGETS; t++) {
            if (!(g->lora_targets >> t & 1)) continue;
            int in, k, at, width, param;
            lora_shape(t, C, h, &in, &k, &at, &width, &param);
            const float* A = g->tr.params + g->adapter_at[l][t];
            matmul_forward(ab, A, A + (size_t)in * r, in, r, k);  /* (in, r) x (r, k) */
            float* W = (float*)p[param];
            for (int i = 0; i < in; i++)
                for (int j = 0; j < k; j++) W[(size_t)i * width + at + j] += g->lora_scale * ab[(size_t)i * k + j];
        }
    }
    if (qkv_check_finite(merged, N)) {
        free(merged);
        return QKV_ERR_OVERFLOW;
    }
    g->merged = merged;
    g->params = merged;
    g->last_B = g->last_n = 0;
    return QKV_OK;
}

void qkv_gpt_destroy(qkv_gpt* g) {
    if (!g) return;
    free(g->floats_allocated); free(g->ints); free(g->tr.decay); free(g->ranked); free(g->weights_d);
    free(g->data); free(g->reference); free(g->merged);
    free(g);
}

QKV_SETUP int qkv_gpt_set_optimizer(qkv_gpt* g, float lr, float beta1, float beta2, float eps,
                          float weight_decay, float clip, int warmup, int total_steps) {
    if (!g) return QKV_ERR_NULL;
    if (!isfinite(lr) || !(lr > 0.0f)) return QKV_ERR_ARGUMENT;
    if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f)) return QKV_ERR_ARGUMENT;
    if (!isfinite(eps) || !(eps > 0.0f)) return QKV_ERR_ARGUMENT;
    if (!isfinite(weight_decay) || !(weight_decay >= 0.0f)) return QKV_ERR_ARGUMENT;
    if (!isfinite(clip) || !(clip > 0.0f)) return QKV_ERR_ARGUMENT;
    if (warmup < 0 || total_steps < 0) return QKV_ERR_ARGUMENT;
    g->lr = lr; g->beta1 = beta1; g->beta2 = beta2; g->adam_eps = eps;
    g->weight_decay = weight_decay; g->clip = clip; g->warmup = warmup; g->total_steps = total_steps;
    return QKV_OK;
}

static int check_ids(const int* ids, int n, int V) {
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V) return QKV_ERR_TOKEN;
    return QKV_OK;
}

static int check_starts(const int* starts, int count, int n_tokens, int T) {
    for (int i = 0; i < count; i++)
        if (starts[i] < 0 || (int64_t)starts[i] + T >= n_tokens) return QKV_ERR_ARGUMENT;
    return QKV_OK;
}

QKV_SETUP int qkv_gpt_set_data(qkv_gpt* g, const int* train, int n_train, const int* train_starts,
                     int n_train_starts, const int* val, int n_val, const int* val_starts,
                     int n_val_starts) {
    if (!g || !train || !train_starts || !val || !val_starts) return QKV_ERR_NULL;
    if (n_train <= g->T || n_val <= g->T || n_train_starts <= 0 || n_val_starts <= 0 ||
        (int64_t)n_train + n_train_starts + n_val + n_val_starts > (int64_t)QKV_MAX_ELEMENTS)
        return QKV_ERR_SIZE;
    if (check_ids(train, n_train, g->V) || check_ids(val, n_val, g->V)) return QKV_ERR_TOKEN;
    if (check_starts(train_starts, n_train_starts, n_train, g->T) ||
        check_starts(val_starts, n_val_starts, n_val, g->T))
        return QKV_ERR_ARGUMENT;
    size_t total = (size_t)n_train + n_train_starts + n_val + n_val_starts;
    int* data = malloc(total * sizeof(int));
    if (!data) return QKV_ERR_ALLOC;
    free(g->data);
    g->data = data;
    g->train = data; memcpy(g->train, train, (size_t)n_train * sizeof(int)); data += n_train;
    g->train_starts = data; memcpy(data, train_starts, (size_t)n_train_starts * sizeof(int)); data += n_train_starts;
    g->val = data; memcpy(data, val, (size_t)n_val * sizeof(int)); data += n_val;
    g->val_starts = data; memcpy(data, val_starts, (size_t)n_val_starts * sizeof(int));
    g->n_train = n_train; g->n_train_starts = n_train_starts;
    g->n_val = n_val; g->n_val_starts = n_val_starts;
    return QKV_OK;
}

QKV_SETUP int qkv_gpt_set_reference(qkv_gpt* g, const int* tokens, int n_tokens, const int* starts,
                          int n_starts) {
    if (!g || !tokens || !starts) return QKV_ERR_NULL;
    if (n_tokens <= g->T || n_starts <= 0 || (int64_t)n_tokens + n_starts > (int64_t)QKV_MAX_ELEMENTS)
        return QKV_ERR_SIZE;
    if (check_ids(tokens, n_tokens, g->V)) return QKV_ERR_TOKEN;
    if (check_starts(starts, n_starts, n_tokens, g->T)) return QKV_ERR_ARGUMENT;
    int* block = malloc(((size_t)n_tokens + n_starts) * sizeof(int));
    if (!block) return QKV_ERR_ALLOC;
    memcpy(block, tokens, (size_t)n_tokens * sizeof(int));
    memcpy(block + n_tokens, starts, (size_t)n_starts * sizeof(int));
    free(g->reference);
    g->reference = block;
    g->n_reference = n_tokens;
    g->n_reference_starts = n_starts;
    return QKV_OK;
}

/* ---- training ---- */

int qkv_gpt_loss_and_grad(qkv_gpt* g, const int* inputs, const int* targets, int B, int n,
                          double* loss) {
    if (!g || !inputs || !targets || !loss) return QKV_ERR_NULL;
    *loss = NAN;
    if (!g->tr.grads) return QKV_ERR_ARGUMENT;  /* qkv_gpt_create_inference's: no gradients */
    if (B < 1 || B > g->B || n < 1 || n > g->T) return QKV_ERR_SIZE;
    if (check_ids(inputs, B * n, g->V) || check_ids(targets, B * n, g->V)) return QKV_ERR_TOKEN;
    /* the weights, and a LoRA run's adapters (for any other run they are the weights: once) */
    if (qkv_check_finite(g->params, g->num_params) ||
        (g->tr.params != g->params && qkv_check_finite(g->tr.params, g->tr.n)))
        return QKV_ERR_NONFINITE;
    if (g->merged) return QKV_ERR_ARGUMENT;  /* the adapters are folded in: unmerge to train */
    /* the gradients backward adds to: all of a LoRA run's; the base's but the tied table's, which
       the output layer's backward writes first (output_layer_grad; 0.93 of the default GPT's
       1.34 MB: not zeroed to be overwritten) */
    size_t table = g->base_params ? 0 : (size_t)g->V * g->C;
    memset(g->tr.grads + table, 0, (g->tr.n - table) * sizeof(float));
    /* loss = mean -log probs[target]  ->  dlogits = (probs - onehot) / BT, with the softmax */
    if (gpt_forward_grad(g, inputs, targets, B, n)) goto no_backward;
    double sum = gpt_loss_sum(g, g->target_probs, 0, targets, B * n);
    *loss = sum / (double)(B * n);
    if (!isfinite(*loss)) goto no_backward;
    gpt_backward(g, inputs, B, n);
    if (qkv_check_finite(g->tr.grads, g->tr.n)) return QKV_ERR_DIVERGED;
    return QKV_OK;
no_backward:  /* diverged: the tied table's gradients, which the output layer may have written in
                 part, zeroed as the rest */
    memset(g->tr.grads, 0, table * sizeof(float));
    return QKV_ERR_DIVERGED;
}

/* the learning rate of step t (0-based): linear warmup, then cosine decay to lr / 10 at total */
static float scheduled_lr(const qkv_gpt* g, int t) {
    if (g->warmup > 0 && t < g->warmup) return g->lr * (float)(t + 1) / (float)g->warmup;
    if (g->total_steps <= g->warmup) return g->lr;
    double progress = (double)(t - g->warmup) / (double)(g->total_steps - g->warmup);
    if (progress > 1.0) progress = 1.0;
    double factor = 0.1 + 0.9 * 0.5 * (1.0 + qkv_cos(3.14159265358979323846 * progress));
    return (float)((double)g->lr * factor);
}

/* AdamW on what a step trains (g->tr) from its gradients, clipped to global norm clip; commits
   only when everything is finite */
static int gpt_update(qkv_gpt* g, double* grad_norm) {
    struct trainable* tr = &g->tr;
    size_t N = tr->n;
    /* the sum of squares in double, as 4 partial sums (i = l mod 4) combined as (s0 + s2) + (s1 + s3),
       then the leftover entries in order (simd.h's order): one chain of additions in order, each
       waiting for the last, took a third of a millisecond of the default GPT's step */
    const float* gr = tr->grads;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= N; i += 4) {
        s0 += (double)gr[i] * (double)gr[i];
        s1 += (double)gr[i + 1] * (double)gr[i + 1];
        s2 += (double)gr[i + 2] * (double)gr[i + 2];
        s3 += (double)gr[i + 3] * (double)gr[i + 3];
    }
    double sq = (s0 + s2) + (s1 + s3);
    for (; i < N; i++) sq += (double)gr[i] * (double)gr[i];
    double norm = sqrt(sq);
    *grad_norm = norm;
    if (!isfinite(norm)) return QKV_ERR_DIVERGED;
    float gscale = norm > (double)g->clip ? (float)((double)g->clip / norm) : 1.0f;
    /* in place, or all put back when a new value would not be finite (adamw_kernel.c) */
    if (adamw_step(tr->params, tr->m, tr->v, tr->grads, tr->decay, tr->old, (int)N, scheduled_lr(g, g->t),
                   g->beta1, g->beta2, g->adam_eps, g->weight_decay, gscale,
                   adam_correction(g->beta1, g->t + 1), adam_correction(g->beta2, g->t + 1)))
        return QKV_ERR_DIVERGED;
    g->t++;
    return QKV_OK;
}

int qkv_gpt_step(qkv_gpt* g, double* loss, double* grad_norm) {
    if (!g || !loss || !grad_norm) return QKV_ERR_NULL;
    *loss = NAN;
    *grad_norm = NAN;
    /* no training text (qkv_gpt_set_data first), or no training state (qkv_gpt_create_inference's):
       refused before a window is drawn */
    if (!g->data || !g->tr.grads) return QKV_ERR_ARGUMENT;
    int B = g->B, T = g->T;
    /* B windows, each starting at a start drawn uniformly from the model's stream */
    for (int b = 0; b < B; b++) {
        int s = (int)(qkv_rng_double(&g->rng) * (double)g->n_train_starts);
        const int* w = g->train + g->train_starts[s];
        memcpy(g->inputs + (size_t)b * T, w, (size_t)T * sizeof(int));
        memcpy(g->targets + (size_t)b * T, w + 1, (size_t)T * sizeof(int));
    }
    int status = qkv_gpt_loss_and_grad(g, g->inputs, g->targets, B, T, loss);
    if (status) return status;
    /* the divergence rule: parameters stay those of the last good step */
    if (!(*loss <= g->loss_limit)) return QKV_ERR_DIVERGED;
    return gpt_update(g, grad_norm);
}

int qkv_gpt_evaluate(qkv_gpt* g, int split, int first, int count, double* loss_sum) {
    if (!g || !loss_sum) return QKV_ERR_NULL;
    *loss_sum = NAN;
    if (split < 0 || split > 2) return QKV_ERR_ARGUMENT;
    if (split < 2 ? !g->data : !g->reference) return QKV_ERR_ARGUMENT;  /* nothing to evaluate */
    const int* tokens = split == 2 ? g->reference : split ? g->val : g->train;
    const int* starts = split == 2 ? g->reference + g->n_reference : split ? g->val_starts : g->train_starts;
    int n_starts = split == 2 ? g->n_reference_starts : split ? g->n_val_starts : g->n_train_starts;
    if (first < 0 || count < 1 || first > n_starts - count) return QKV_ERR_SIZE;
    int T = g->T;
    double sum = 0.0;
    for (int done = 0; done < count; done += g->B) {
        int B = count - done < g->B ? count - done : g->B;
        for (int b = 0; b < B; b++) {
            const int* w = tokens + starts[first + done + b];
            memcpy(g->inputs + (size_t)b * T, w, (size_t)T * sizeof(int));
            memcpy(g->targets + (size_t)b * T, w + 1, (size_t)T * sizeof(int));
        }
        if (gpt_forward(g, g->inputs, B, T)) return QKV_ERR_DIVERGED;
        sum += gpt_loss_sum(g, g->probs, 1, g->targets, B * T);
    }
    *loss_sum = sum;
    return isfinite(sum) ? QKV_OK : QKV_ERR_DIVERGED;
}

int qkv_gpt_forward(qkv_gpt* g, const int* tokens, int n) {
    if (!g || !tokens) return QKV_ERR_NULL;
    if (n < 1 || n > g->T) return QKV_ERR_SIZE;
    if (check_ids(tokens, n, g->V)) return QKV_ERR_TOKEN;
    if (qkv_check_finite(g->params, g->num_params)) return QKV_ERR_NONFINITE;
    if (gpt_forward(g, tokens, 1, n) || qkv_check_finite(g->logits, (size_t)n * g->V)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

/* per-sequence scoring (gpt.evaluatePoems): the summed loss of B sequences of n tokens scored
   from their start, forward only (what qkv_gpt_evaluate does for the stream's windows) */
int qkv_gpt_score(qkv_gpt* g, const int* inputs, const int* targets, int B, int n, double* loss_sum) {
    if (!g || !inputs || !targets || !loss_sum) return QKV_ERR_NULL;
    *loss_sum = NAN;
    if (B < 1 || B > g->B || n < 1 || n > g->T) return QKV_ERR_SIZE;
    if (check_ids(inputs, B * n, g->V) || check_ids(targets, B * n, g->V)) return QKV_ERR_TOKEN;
    if (qkv_check_finite(g->params, g->num_params)) return QKV_ERR_NONFINITE;
    if (gpt_forward(g, inputs, B, n)) return QKV_ERR_OVERFLOW;
    *loss_sum = gpt_loss_sum(g, g->probs, 1, targets, B * n);
    return isfinite(*loss_sum) ? QKV_OK : QKV_ERR_OVERFLOW;
}

/* ---- generation ---- */

/* the next position's logits with the KV cache: token at position pos, cache rows 0..pos-1 full;
   each block is the attention half over the cache, then the MLP half, as in a full forward */
static int gpt_decode(qkv_gpt* g, int token, int pos) {
    int C = g->C, T = g->T;
    embedding_forward(g->x0, &token, wte_of(g, g->params), wpe_of(g, g->params) + (size_t)pos * C, 1, 1, C);
    const float* x = g->x0;
    for (int l = 0; l < g->L; l++) {
        const float* p[QKV_BLOCK_PARAMS];
        float* a[QKV_BLOCK_ACTS];
        block_params_of(g, l, g->params, p);
        block_acts_of(g, l, 1, T, a);  /* row 0 of each activation as scratch (scores: H rows of T) */
        kv_cache cache = { g->kcache + (size_t)l * T * C, g->vcache + (size_t)l * T * C, T, pos };
        lora_block lb;
        const lora_block* lo = lora_block_of(g, l, 1, 1, &lb);
        if (block_attention_forward(a, p, lo, x, &cache, 1, 1, C, g->H, g->eps, 0)) return QKV_ERR_OVERFLOW;
        block_mlp_forward(a, p, lo, 1, C, g->hidden, g->eps, NULL);
        x = a[QKV_BLOCK_ACT_OUT];
    }
    const float* lnf = lnf_of(g, g->params);
    layernorm_forward(g->lnf, g->lnf_mean, g->lnf_rstd, x, lnf, lnf + C, 1, C, g->eps);
    matmul_forward(g->logits, g->lnf, g->wteT, 1, C, g->V);  /* wteT: the prefill's forward made it */
    return qkv_check_finite(g->logits, (size_t)g->V) ? QKV_ERR_OVERFLOW : QKV_OK;
}

/* the prefix of the prompt (n tokens) into the cache, by one forward; logits of its last row */
static int gpt_prefill(qkv_gpt* g, const int* tokens, int n) {
    if (gpt_forward(g, tokens, 1, n)) return QKV_ERR_OVERFLOW;
    int C = g->C, H = g->H, dk = C / H, T = g->T;
    for (int l = 0; l < g->L; l++) {
        float* a[QKV_BLOCK_ACTS];
        block_acts_of(g, l, 1, n, a);
        for (int j = 0; j < H; j++) {  /* (1, H, n, d_k) -> (H, T, d_k), rows 0..n-1 */
            memcpy(g->kcache + (size_t)l * T * C + (size_t)j * T * dk, a[QKV_BLOCK_ACT_K] + (size_t)j * n * dk,
                   (size_t)n * dk * sizeof(float));
            memcpy(g->vcache + (size_t)l * T * C + (size_t)j * T * dk, a[QKV_BLOCK_ACT_V] + (size_t)j * n * dk,
                   (size_t)n * dk * sizeof(float));
        }
    }
    if (n > 1) memmove(g->logits, g->logits + (size_t)(n - 1) * g->V, (size_t)g->V * sizeof(float));
    return QKV_OK;
}

/* whether a ranks before b: the larger logit first, ties to the lower id (a total order, so the
   sorted order is unique) */
static inline int ranks_before(const struct ranked* a, const struct ranked* b) {
    return a->z != b->z ? a->z > b->z : a->id < b->id;
}

static void sift_down(struct ranked* r, int at, int n) {
    for (;;) {
        int child = 2 * at + 1;
        if (child >= n) return;
        /* a heap with the LAST in rank at the root, so that the sort leaves the first first */
        if (child + 1 < n && ranks_before(&r[child], &r[child + 1])) child++;
        if (!ranks_before(&r[at], &r[child])) return;
        struct ranked t = r[at]; r[at] = r[child]; r[child] = t;
        at = child;
    }
}

/* r (n) sorted by ranks_before, in place: heapsort (O(n log n), no allocation, and no function
   pointer: the WebAssembly GPT module shares no function table with the core's qsort) */
static void sort_ranked(struct ranked* r, int n) {
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(r, i, n);
    for (int end = n - 1; end > 0; end--) {
        struct ranked t = r[0]; r[0] = r[end]; r[end] = t;
        sift_down(r, 0, end);
    }
}

/* the QKV_GPT_TOP largest of z (V) among the allowed tokens (all when allowed is NULL), largest
   first, ties to the lower id, by insertion -> how many (fewer when fewer are allowed) */
static int top_tokens(const float* z, int V, const unsigned char* allowed, int* top) {
    int kept = 0;
    for (int i = 0; i < V; i++) {
        if (allowed && !allowed[i]) continue;
        if (kept == QKV_GPT_TOP && !(z[i] > z[top[kept - 1]])) continue;
        int at = kept < QKV_GPT_TOP ? kept++ : kept - 1;
        while (at > 0 && z[i] > z[top[at - 1]]) { top[at] = top[at - 1]; at--; }
        top[at] = i;
    }
    return kept;
}

/* the first keep of r (n) in ranks_before's order, into r[0..keep) in that order: a heap of the
   keep first seen so far, the last of them in rank at its root (sift_down's heap), which each
   later entry that ranks before that root replaces; then heapsort of those keep. The order is
   total, so they are the first keep that sorting all n gives, in the same order: O(n log keep)
   instead of O(n log n) when top_k cuts the vocabulary */
static void select_ranked(struct ranked* r, int n, int keep) {
    if (keep < n) {
        for (int i = keep / 2 - 1; i >= 0; i--) sift_down(r, i, keep);
        for (int i = keep; i < n; i++)
            if (ranks_before(&r[i], &r[0])) { r[0] = r[i]; sift_down(r, 0, keep); }
    }
    sort_ranked(r, keep < n ? keep : n);
}

/* out (n) = exp(((double)z[i] - max) / divisor), exp_double.h's double, for z[i] <= max and
   divisor > 0 (divisor 1: exactly exp((double)z[i] - max)). Plain C in the GPT module (no SIMD):
   a SIMD twin in the kernel module, two lanes at a time, measured faster but cost every kernel
   build, and the classic widget's script, about 1 KiB gzipped for a function only the GPT uses. */
static void exp_row_double(double* out, const float* z, int n, double max, double divisor) {
    for (int i = 0; i < n; i++) out[i] = exp_double(((double)z[i] - max) / divisor);
}

/* the next token from logits (V): greedy at temperature 0, else softmax(z / temperature) over the
   top_k most likely (0: all) cut to the smallest set whose probability reaches top_p, then one
   uniform draw. top_ids, top_probs (QKV_GPT_TOP) receive the model's own probabilities (z, at
   temperature 1) of its most likely tokens. Ties go to the lower id. Without top_k or top_p the
   draw walks the tokens in id order (no sort: the default costs O(V) per token).
   allowed (V, 1 = allowed; NULL: every token) restricts the choice: the disallowed tokens get
   weight 0 before top_k and top_p, so that both apply to the renormalised distribution over the
   allowed ones. Then *removed is the probability (temperature 1) the model put on the
   disallowed tokens, and masked_ids, masked_probs (QKV_GPT_TOP) the most likely allowed tokens
   and their renormalised probabilities (temperature 1). Without a mask the draw is the same,
   float for float, as before masks existed.
   The exps are exp_row_double's (exp_double.h: the same doubles as the core's qkv_exp, inlined
   here), each computed once: e[i] = exp(z[i] - max) serves the sum, the top tokens'
   probabilities, the mass the mask removed, the renormalisation when the largest logit is
   allowed, and at temperature 1 the draw's weights (x / 1 is x). Sums run in id order as
   before. (Without a mask, the draw's weights with top_k or top_p are the kept ones' only.) */
static int sample_next(qkv_gpt* g, const float* z, float temperature, int top_k, float top_p,
                       qkv_rng* rng, int* top_ids, float* top_probs, const unsigned char* allowed,
                       float* removed, int* masked_ids, float* masked_probs) {
    int V = g->V;
    double* e = g->weights_d;      /* (V) exp(z - max), max the largest (allowed) logit */
    double* w = g->weights_d + V;  /* (V) the draw's weights */
    int top[QKV_GPT_TOP];
    int kept = top_tokens(z, V, NULL, top);
    double max = (double)z[top[0]], sum = 0.0;
    exp_row_double(e, z, V, max, 1.0);
    for (int i = 0; i < V; i++) sum += e[i];
    for (int i = 0; i < QKV_GPT_TOP; i++) {
        top_ids[i] = i < kept ? top[i] : -1;
        top_probs[i] = i < kept ? (float)(e[top[i]] / sum) : 0.0f;
    }
    int best = top[0];
    if (allowed) {
        int mtop[QKV_GPT_TOP];
        int mkept = top_tokens(z, V, allowed, mtop);  /* >= 1: the caller's masks allow a token */
        best = mtop[0];
        /* relative to the largest allowed logit, so that the renormalisation cannot divide by an
           underflowed sum when the model put almost nothing on the allowed tokens; when that is
           the largest logit of all, e already holds those exps */
        double mmax = (double)z[best], msum = 0.0, gone = 0.0;
        if (mmax != max) exp_row_double(w, z, V, mmax, 1.0);  /* else e holds them */
        for (int i = 0; i < V; i++) {
            if (allowed[i]) {
                if (mmax != max) e[i] = w[i];
                msum += e[i];
            } else {
                gone += e[i];
            }
        }
        *removed = (float)(gone / sum);
        for (int i = 0; i < QKV_GPT_TOP; i++) {
            masked_ids[i] = i < mkept ? mtop[i] : -1;
            masked_probs[i] = i < mkept ? (float)(e[mtop[i]] / msum) : 0.0f;
        }
        max = mmax;  /* e: exp(z - mmax) where allowed */
    }
    if (temperature == 0.0f) return best;
    int unit = temperature == 1.0f;  /* ((double)z - max) / 1.0 is (double)z - max: e's argument */
    if ((top_k == 0 || top_k >= V) && top_p >= 1.0f) {
        if (!unit) exp_row_double(w, z, V, max, (double)temperature);
        sum = 0.0;
        for (int i = 0; i < V; i++) {
            w[i] = allowed && !allowed[i] ? 0.0 : unit ? e[i] : w[i];
            sum += w[i];
        }
        double u = qkv_rng_double(rng) * sum, acc = 0.0;
        for (int i = 0; i < V; i++) {
            acc += w[i];
            if (u < acc) return i;
        }
        return best;  /* u rounded up to the sum: the most likely (allowed) token */
    }
    struct ranked* r = g->ranked;
    int n = 0;
    for (int i = 0; i < V; i++)
        if (!allowed || allowed[i]) { r[n].z = z[i]; r[n].id = i; n++; }
    int keep = top_k > 0 && top_k < n ? top_k : n;
    select_ranked(r, n, keep);
    /* many kept (top_p alone): all V two at a time cost less than the kept ones one at a time */
    int row = !unit && keep > V / 8;
    if (row) exp_row_double(e, z, V, max, (double)temperature);
    sum = 0.0;
    for (int i = 0; i < keep; i++) {
        w[i] = unit || row ? e[r[i].id] : qkv_exp(((double)r[i].z - max) / (double)temperature);
        sum += w[i];
    }
    if (top_p < 1.0f) {
        double cumulative = 0.0;
        int cut = keep;
        for (int i = 0; i < keep; i++) {
            cumulative += w[i];
            if (cumulative >= (double)top_p * sum) { cut = i + 1; break; }
        }
        keep = cut;
        sum = 0.0;
        for (int i = 0; i < keep; i++) sum += w[i];
    }
    double u = qkv_rng_double(rng) * sum, acc = 0.0;
    for (int i = 0; i < keep; i++) {
        acc += w[i];
        if (u < acc) return r[i].id;
    }
    return r[keep - 1].id;
}

int qkv_gpt_generate_masked(qkv_gpt* g, const int* prompt, int n_prompt, int max_new,
                            float temperature, int top_k, float top_p, uint32_t seed, int use_cache,
                            const unsigned char* masks, int n_masks, const int* step_masks,
                            int* out_tokens, int* top_ids, float* top_probs, float* removed,
                            int* masked_ids, float* masked_probs, int* out_count) {
    if (!g || !prompt || !out_tokens || !top_ids || !top_probs || !out_count) return QKV_ERR_NULL;
    *out_count = 0;
    if (n_masks > 0 && (!masks || !step_masks || !removed || !masked_ids || !masked_probs)) return QKV_ERR_NULL;
    if (n_prompt < 1 || max_new < 1 || (int64_t)n_prompt + max_new > g->T) return QKV_ERR_SIZE;
    if (n_masks < 0 || (int64_t)n_masks * g->V > (int64_t)QKV_MAX_ELEMENTS) return QKV_ERR_SIZE;
    if (!isfinite(temperature) || temperature < 0.0f || top_k < 0 || !isfinite(top_p) ||
        !(top_p > 0.0f) || top_p > 1.0f)
        return QKV_ERR_ARGUMENT;
    if (n_masks > 0) {
        for (int i = 0; i < max_new; i++)
            if (step_masks[i] < -1 || step_masks[i] >= n_masks) return QKV_ERR_ARGUMENT;
        for (int m = 0; m < n_masks; m++) {  /* every mask allows a token, so a step can choose */
            const unsigned char* row = masks + (size_t)m * g->V;
            int any = 0;
            for (int i = 0; i < g->V && !any; i++) any = row[i] != 0;
            if (!any) return QKV_ERR_ARGUMENT;
        }
    }
    if (check_ids(prompt, n_prompt, g->V)) return QKV_ERR_TOKEN;
    if (qkv_check_finite(g->params, g->num_params)) return QKV_ERR_NONFINITE;
    qkv_rng rng;
    qkv_rng_seed(&rng, seed);
    int* seq = g->inputs;  /* (T) the prompt, then what is generated */
    memcpy(seq, prompt, (size_t)n_prompt * sizeof(int));
    int n = n_prompt;
    int status = use_cache ? gpt_prefill(g, seq, n) : gpt_forward(g, seq, 1, n);
    if (status) return QKV_ERR_OVERFLOW;
    for (int i = 0; i < max_new; i++) {
        /* with the cache the logits are row 0; without, the last row of the forward */
        const float* z = use_cache || n == 1 ? g->logits : g->logits + (size_t)(n - 1) * g->V;
        if (qkv_check_finite(z, (size_t)g->V)) return QKV_ERR_OVERFLOW;
        int mask = n_masks > 0 ? step_masks[i] : -1;
        const unsigned char* allowed = mask >= 0 ? masks + (size_t)mask * g->V : NULL;
        if (n_masks > 0 && !allowed) {  /* a free step of a masked generation: nothing removed */
            removed[i] = 0.0f;
            for (int j = 0; j < QKV_GPT_TOP; j++) { masked_ids[i * QKV_GPT_TOP + j] = -1; masked_probs[i * QKV_GPT_TOP + j] = 0.0f; }
        }
        int token = sample_next(g, z, temperature, top_k, top_p, &rng, top_ids + i * QKV_GPT_TOP,
                                top_probs + i * QKV_GPT_TOP, allowed, allowed ? removed + i : NULL,
                                allowed ? masked_ids + i * QKV_GPT_TOP : NULL,
                                allowed ? masked_probs + i * QKV_GPT_TOP : NULL);
        out_tokens[i] = token;
        *out_count = i + 1;
        if (token == 0 || i + 1 == max_new) break;  /* the end-of-text token ends the text */
        seq[n++] = token;
        status = use_cache ? gpt_decode(g, token, n - 1) : gpt_forward(g, seq, 1, n);
        if (status) return QKV_ERR_OVERFLOW;
    }
    g->last_B = g->last_n = 0;  /* the activations are scratch now, not one forward's */
    return QKV_OK;
}

int qkv_gpt_generate(qkv_gpt* g, const int* prompt, int n_prompt, int max_new, float temperature,
                     int top_k, float top_p, uint32_t seed, int use_cache, int* out_tokens,
                     int* top_ids, float* top_probs, int* out_count) {
    return qkv_gpt_generate_masked(g, prompt, n_prompt, max_new, temperature, top_k, top_p, seed,
                                   use_cache, NULL, 0, NULL, out_tokens, top_ids, top_probs, NULL,
                                   NULL, NULL, out_count);
}

/* ---- tensors for JavaScript ---- */

QKV_SETUP int qkv_gpt_tensor(qkv_gpt* g, int group, int layer, int which, float** data, int* rows,
                   int* cols) {
    if (!g || !data || !rows || !cols) return QKV_ERR_NULL;
    int V = g->V, C = g->C, T = g->T;
    if (group == QKV_GPT_ADAPTERS || group == QKV_GPT_DADAPTERS) {
        if (!g->base_params) return QKV_ERR_ARGUMENT;  /* not a LoRA run */
        float* base = group == QKV_GPT_ADAPTERS ? g->tr.params : g->tr.grads;
        if (layer == QKV_GPT_LAYER_ALL) {
            if (which != 0) return QKV_ERR_ARGUMENT;
            *data = base; *rows = (int)g->tr.n; *cols = 1;
            return QKV_OK;
        }
        int t = which >> 1;
        if (layer < 0 || layer >= g->L || which < 0 || which >= 2 * QKV_LORA_TARGETS || !(g->lora_targets >> t & 1))
            return QKV_ERR_ARGUMENT;
        int in, k, at, width, param;
        lora_shape(t, C, g->hidden, &in, &k, &at, &width, &param);
        float* A = base + g->adapter_at[layer][t];
        if (which & 1) { *data = A + (size_t)in * g->rank; *rows = g->rank; *cols = k; }
        else { *data = A; *rows = in; *cols = g->rank; }
        return QKV_OK;
    }
    if (group == QKV_GPT_PARAMS || group == QKV_GPT_GRADS) {
        if (group == QKV_GPT_GRADS && !g->grads) return QKV_ERR_ARGUMENT;  /* frozen: none */
        float* base = group == QKV_GPT_PARAMS ? g->params : g->grads;
        if (layer == QKV_GPT_LAYER_ALL) {
            if (which != 0) return QKV_ERR_ARGUMENT;
            *data = base; *rows = (int)g->num_params; *cols = 1;
            return QKV_OK;
        }
        if (layer == g->L) {  /* the tensors outside the blocks, in QKV_GPT_WTE's order */
            float* at[QKV_GPT_OUTSIDE_PARAMS] = { wte_of(g, base), wpe_of(g, base), lnf_of(g, base), lnf_of(g, base) + C };
            int r[QKV_GPT_OUTSIDE_PARAMS] = { V, T, 1, 1 };
            if (which < 0 || which >= QKV_GPT_OUTSIDE_PARAMS) return QKV_ERR_ARGUMENT;
            *data = at[which]; *rows = r[which]; *cols = C;
            return QKV_OK;
        }
        if (layer < 0 || layer > g->L || which < 0 || which >= QKV_BLOCK_PARAMS) return QKV_ERR_ARGUMENT;
        const float* p[QKV_BLOCK_PARAMS];
        block_params_of(g, layer, base, p);
        size_t sizes[QKV_BLOCK_PARAMS];
        block_param_sizes(sizes, C, g->hidden);
        static const int matrix_rows[QKV_BLOCK_PARAMS] = { 1, 1, 'C', 1, 'C', 1, 1, 1, 'C', 1, 'h', 1 };
        int r = matrix_rows[which] == 'C' ? C : matrix_rows[which] == 'h' ? g->hidden : 1;
        *data = (float*)p[which]; *rows = r; *cols = (int)(sizes[which] / (size_t)r);
        return QKV_OK;
    }
    if (group == QKV_GPT_ACTIVATIONS) {
        int B = g->last_B, n = g->last_n;
        if (B == 0) return QKV_ERR_ARGUMENT;  /* no forward to read */
        int BT = B * n;
        if (layer == g->L) {  /* in QKV_GPT_ACT_X0's order */
            float* at[QKV_GPT_OUTSIDE_ACTS] = { g->x0, g->lnf, g->logits, g->probs };
            int w[QKV_GPT_OUTSIDE_ACTS] = { C, C, V, V };
            if (which < 0 || which >= QKV_GPT_OUTSIDE_ACTS) return QKV_ERR_ARGUMENT;
            if (which == QKV_GPT_ACT_PROBS && g->probs_stale) {  /* a training step's: from its logits */
                if (softmax_rows_forward(g->probs, g->logits, BT, V)) return QKV_ERR_OVERFLOW;
                g->probs_stale = 0;
            }
            *data = at[which]; *rows = BT; *cols = w[which];
            return QKV_OK;
        }
        if (layer < 0 || layer > g->L || which < 0 || which >= QKV_BLOCK_ACTS) return QKV_ERR_ARGUMENT;
        float* a[QKV_BLOCK_ACTS];
        block_acts_of(g, layer, B, n, a);
        size_t sizes[QKV_BLOCK_ACTS];
        block_act_sizes(sizes, B, n, C, g->H, g->hidden);
        int dk = C / g->H;
        int width = which == QKV_BLOCK_ACT_Q || which == QKV_BLOCK_ACT_K || which == QKV_BLOCK_ACT_V ||
                    which == QKV_BLOCK_ACT_HEAD_OUT ? dk
                  : which == QKV_BLOCK_ACT_SCORES || which == QKV_BLOCK_ACT_WEIGHTS ? n
                  : which == QKV_BLOCK_ACT_LN1_MEAN || which == QKV_BLOCK_ACT_LN1_RSTD ||
                    which == QKV_BLOCK_ACT_LN2_MEAN || which == QKV_BLOCK_ACT_LN2_RSTD ? 1
                  : (int)(sizes[which] / (size_t)BT);
        *data = a[which]; *rows = (int)(sizes[which] / (size_t)width); *cols = width;
        return QKV_OK;
    }
    return QKV_ERR_ARGUMENT;
}

int qkv_gpt_num_params(const qkv_gpt* g) { return g ? (int)g->num_params : 0; }
int qkv_gpt_trainable_count(const qkv_gpt* g) { return g && g->tr.grads ? (int)g->tr.n : 0; }

int qkv_gpt_memory_bytes(const qkv_gpt* g, double* bytes) {
    if (!g || !bytes) return QKV_ERR_NULL;
    *bytes = (double)g->bytes + (g->merged ? (double)(g->num_params + (size_t)g->C * g->hidden) * sizeof(float) : 0.0);
    if (g->data) *bytes += (double)((size_t)g->n_train + g->n_train_starts + g->n_val + g->n_val_starts) * sizeof(int);
    if (g->reference) *bytes += (double)((size_t)g->n_reference + g->n_reference_starts) * sizeof(int);
    return QKV_OK;
}
int qkv_gpt_steps(const qkv_gpt* g) { return g ? g->t : 0; }

/* ---- training state, for checkpoints (as qkv_model_*_state) ---- */

/* the saved state: header (V, L, H, C, T, t) | rng | params (N) | moments m, v (2N), of what a
   step trains (a LoRA run: its adapters) */
typedef struct {
    int V, L, H, C, T, t;
    qkv_rng rng;
} gpt_state_header;

static size_t gpt_state_size(const qkv_gpt* g) {
    return sizeof(gpt_state_header) + 3 * g->tr.n * sizeof(float);
}

int qkv_gpt_state_bytes(const qkv_gpt* g, double* bytes) {
    if (!g || !bytes) return QKV_ERR_NULL;
    if (!g->tr.grads) return QKV_ERR_ARGUMENT;  /* qkv_gpt_create_inference's: no training state */
    *bytes = (double)gpt_state_size(g);
    return QKV_OK;
}

int qkv_gpt_save_state(const qkv_gpt* g, void* out, double bytes) {
    if (!g || !out) return QKV_ERR_NULL;
    if (!g->tr.grads) return QKV_ERR_ARGUMENT;
    if (bytes != (double)gpt_state_size(g)) return QKV_ERR_SIZE;
    gpt_state_header head = { g->V, g->L, g->H, g->C, g->T, g->t, g->rng };
    unsigned char* at = out;
    size_t N = g->tr.n * sizeof(float);
    memcpy(at, &head, sizeof head);
    memcpy(at + sizeof head, g->tr.params, N);
    memcpy(at + sizeof head + N, g->tr.m, N);
    memcpy(at + sizeof head + 2 * N, g->tr.v, N);
    return QKV_OK;
}

int qkv_gpt_load_state(qkv_gpt* g, const void* in, double bytes) {
    if (!g || !in) return QKV_ERR_NULL;
    if (!g->tr.grads) return QKV_ERR_ARGUMENT;
    if (bytes != (double)gpt_state_size(g)) return QKV_ERR_SIZE;
    gpt_state_header head;
    const unsigned char* at = in;
    memcpy(&head, at, sizeof head);
    if (head.V != g->V || head.L != g->L || head.H != g->H || head.C != g->C || head.T != g->T)
        return QKV_ERR_SHAPE;
    if (head.t < 0 || head.rng.index < 0 || head.rng.index > 624) return QKV_ERR_ARGUMENT;
    size_t N = g->tr.n;
    /* through memcpy: the bytes need not be aligned for floats */
    for (size_t i = 0; i < 3 * N; i++) {
        float x;
        memcpy(&x, at + sizeof head + i * sizeof(float), sizeof x);
        if (!isfinite(x)) return QKV_ERR_NONFINITE;
    }
    memcpy(g->tr.params, at + sizeof head, N * sizeof(float));
    memcpy(g->tr.m, at + sizeof head + N * sizeof(float), N * sizeof(float));
    memcpy(g->tr.v, at + sizeof head + 2 * N * sizeof(float), N * sizeof(float));
    g->t = head.t;
    g->rng = head.rng;
    g->last_B = g->last_n = 0;
    return QKV_OK;
}
