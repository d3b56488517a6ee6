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
 * Memory, llm.c style: parameters, gradients, AdamW's moments, the update scratch, the
 * activations, the backward scratch and the KV cache live in one float block cut into named
 * tensors; token ids in one int block; the training text in one data block (set once). No step
 * allocates. Every public function checks its arguments and returns a qkv_status.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"

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
    float* m;       /* AdamW's first moments, the same layout */
    float* v;       /* second moments */
    float* next;    /* update scratch: params | m | v, committed only when finite */
    unsigned char* decay;  /* (num_params) 1 where weight decay applies (matrices) */

    /* activations, sized for B windows of T tokens; laid out for the (B, n) of the last forward */
    size_t block_acts;  /* floats of one block's activations */
    float* acts;        /* L blocks | x0 (BT, C) | lnf (BT, C) | lnf_mean, lnf_rstd (BT) |
                           logits (BT, V) | probs (BT, V) */
    float *x0, *lnf, *lnf_mean, *lnf_rstd, *logits, *probs;
    /* backward scratch */
    float *wteT, *dwteT, *dwte_scratch;  /* wte^T (C, V) for the logits' product; its gradient */
    float *dres, *dx, *dlnf, *dlogits;
    float* dblock[QKV_BLOCK_ACTS];  /* the d of one block's activations, reused by every layer */
    float* kcache;  /* (L, H, T, d_k) */
    float* vcache;
    float* floats;  /* the one float block */
    int last_B, last_n;  /* shape of the last forward, 0 before any */

    int* inputs;   /* (B, T) */
    int* targets;  /* (B, T) */
    int* ints;     /* the one int block */
    struct ranked { float z; int id; }* ranked;  /* (V) sampling scratch */
    double* weights_d;                           /* (V) */

    int* data;  /* train tokens | train starts | val tokens | val starts (one block) */
    int *train, *train_starts, *val, *val_starts;
    int n_train, n_train_starts, n_val, n_val_starts;
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
static int block_attention_forward(float** a, const float** p, const float* x, const kv_cache* cache,
                                   int B, int n, int C, int H, float eps, int causal) {
    int BT = B * n, dk = C / H;
    float scale = sqrtf((float)dk);
    layernorm_forward(a[QKV_BLOCK_ACT_LN1], a[QKV_BLOCK_ACT_LN1_MEAN], a[QKV_BLOCK_ACT_LN1_RSTD], x,
                      p[QKV_BLOCK_LN1W], p[QKV_BLOCK_LN1B], BT, C, eps);
    /* (BT, C) x (C, 3C) -> (BT, 3C) */
    float* qkv = a[QKV_BLOCK_ACT_QKV];
    matmul_forward(qkv, a[QKV_BLOCK_ACT_LN1], p[QKV_BLOCK_QKVW], BT, C, 3 * C);
    bias_forward(qkv, p[QKV_BLOCK_QKVB], BT, 3 * C);
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
    size_t BC = (size_t)BT * C;
    for (size_t i = 0; i < BC; i++) a[QKV_BLOCK_ACT_RESID1][i] = x[i] + a[QKV_BLOCK_ACT_ATTN][i];
    return QKV_OK;
}

/* The MLP half of a block on its resid1 (BT rows): ln2, hidden, gelu, mlp, out */
static void block_mlp_forward(float** a, const float** p, int BT, int C, int h, float eps) {
    layernorm_forward(a[QKV_BLOCK_ACT_LN2], a[QKV_BLOCK_ACT_LN2_MEAN], a[QKV_BLOCK_ACT_LN2_RSTD],
                      a[QKV_BLOCK_ACT_RESID1], p[QKV_BLOCK_LN2W], p[QKV_BLOCK_LN2B], BT, C, eps);
    /* (BT, C) x (C, h) -> (BT, h) */
    matmul_forward(a[QKV_BLOCK_ACT_HIDDEN], a[QKV_BLOCK_ACT_LN2], p[QKV_BLOCK_FCW], BT, C, h);
    bias_forward(a[QKV_BLOCK_ACT_HIDDEN], p[QKV_BLOCK_FCB], BT, h);
    gelu_forward(a[QKV_BLOCK_ACT_GELU], a[QKV_BLOCK_ACT_HIDDEN], BT * h);
    /* (BT, h) x (h, C) -> (BT, C) */
    matmul_forward(a[QKV_BLOCK_ACT_MLP], a[QKV_BLOCK_ACT_GELU], p[QKV_BLOCK_FCPROJW], BT, h, C);
    bias_forward(a[QKV_BLOCK_ACT_MLP], p[QKV_BLOCK_FCPROJB], BT, C);
    size_t BC = (size_t)BT * C;
    for (size_t i = 0; i < BC; i++)
        a[QKV_BLOCK_ACT_OUT][i] = a[QKV_BLOCK_ACT_RESID1][i] + a[QKV_BLOCK_ACT_MLP][i];
}

/* x (B, n, C) -> a[...]; QKV_OK, or QKV_ERR_OVERFLOW when attention overflowed */
static int transformer_block_forward(float** a, const float** p, const float* x,
                                     int B, int n, int C, int H, int h, float eps, int causal) {
    int status = block_attention_forward(a, p, x, NULL, B, n, C, H, eps, causal);
    if (status) return status;
    block_mlp_forward(a, p, B * n, C, h, eps);
    return QKV_OK;
}

/* reverses transformer_block_forward: dout (B, n, C) -> dx += ..., dp[...] += ...;
   d is scratch shaped like the activations (dscores (n, n) in d[QKV_BLOCK_ACT_SCORES]) */
static void transformer_block_backward(float* dx, float** dp, float** d,
                                       const float* dout, float** a,
                                       const float** p, const float* x,
                                       int B, int n, int C, int H, int h, int causal) {
    int BT = B * n, dk = C / H;
    float scale = sqrtf((float)dk);
    size_t BC = (size_t)BT * C, Bh = (size_t)BT * h;
    /* out = resid1 + mlp: both receive dout */
    float* dresid1 = d[QKV_BLOCK_ACT_RESID1];
    memcpy(dresid1, dout, BC * sizeof(float));
    /* mlp = gelu . fcprojw + fcprojb */
    float* dgelu = d[QKV_BLOCK_ACT_GELU];
    memset(dgelu, 0, Bh * sizeof(float));
    matmul_backward(dgelu, dp[QKV_BLOCK_FCPROJW], dout, a[QKV_BLOCK_ACT_GELU], p[QKV_BLOCK_FCPROJW], BT, h, C);
    bias_backward(dp[QKV_BLOCK_FCPROJB], dout, BT, C);
    /* gelu = GELU(hidden) */
    float* dhidden = d[QKV_BLOCK_ACT_HIDDEN];
    memset(dhidden, 0, Bh * sizeof(float));
    gelu_backward(dhidden, a[QKV_BLOCK_ACT_HIDDEN], dgelu, BT * h);
    /* hidden = ln2 . fcw + fcb */
    float* dln2 = d[QKV_BLOCK_ACT_LN2];
    memset(dln2, 0, BC * sizeof(float));
    matmul_backward(dln2, dp[QKV_BLOCK_FCW], dhidden, a[QKV_BLOCK_ACT_LN2], p[QKV_BLOCK_FCW], BT, C, h);
    bias_backward(dp[QKV_BLOCK_FCB], dhidden, BT, h);
    /* ln2 = LN2(resid1) */
    layernorm_backward(dresid1, dp[QKV_BLOCK_LN2W], dp[QKV_BLOCK_LN2B], dln2, a[QKV_BLOCK_ACT_RESID1],
                       p[QKV_BLOCK_LN2W], a[QKV_BLOCK_ACT_LN2_MEAN], a[QKV_BLOCK_ACT_LN2_RSTD], BT, C);
    /* resid1 = x + attn: both receive dresid1 */
    for (size_t i = 0; i < BC; i++) dx[i] += dresid1[i];
    /* attn = concat . attprojw + attprojb */
    float* dconcat = d[QKV_BLOCK_ACT_CONCAT];
    memset(dconcat, 0, BC * sizeof(float));
    matmul_backward(dconcat, dp[QKV_BLOCK_ATTPROJW], dresid1, a[QKV_BLOCK_ACT_CONCAT], p[QKV_BLOCK_ATTPROJW], BT, C, C);
    bias_backward(dp[QKV_BLOCK_ATTPROJB], dresid1, BT, C);
    /* concat = the heads side by side */
    float* dhead = d[QKV_BLOCK_ACT_HEAD_OUT];
    heads_copy(dhead, dconcat, B, n, H, dk, C, 0, 1);
    /* head j = attention(Q_j, K_j, V_j) */
    float *dq = d[QKV_BLOCK_ACT_Q], *dk_ = d[QKV_BLOCK_ACT_K], *dv = d[QKV_BLOCK_ACT_V];
    memset(dq, 0, BC * sizeof(float));
    memset(dk_, 0, BC * sizeof(float));
    memset(dv, 0, BC * sizeof(float));
    size_t nn = (size_t)n * n, nd = (size_t)n * dk;
    for (int bh = 0; bh < B * H; bh++)
        attention_backward_unchecked(dq + bh * nd, dk_ + bh * nd, dv + bh * nd, d[QKV_BLOCK_ACT_SCORES],
                                     dhead + bh * nd, a[QKV_BLOCK_ACT_Q] + bh * nd,
                                     a[QKV_BLOCK_ACT_K] + bh * nd, a[QKV_BLOCK_ACT_V] + bh * nd,
                                     a[QKV_BLOCK_ACT_WEIGHTS] + bh * nn, n, n, dk, dk, scale, causal);
    /* Q, K, V = columns of qkv */
    float* dqkv = d[QKV_BLOCK_ACT_QKV];
    for (int m = 0; m < 3; m++)
        heads_copy(d[QKV_BLOCK_ACT_Q + m], dqkv, B, n, H, dk, 3 * C, m * C, 0);
    /* qkv = ln1 . qkvw + qkvb */
    float* dln1 = d[QKV_BLOCK_ACT_LN1];
    memset(dln1, 0, BC * sizeof(float));
    matmul_backward(dln1, dp[QKV_BLOCK_QKVW], dqkv, a[QKV_BLOCK_ACT_LN1], p[QKV_BLOCK_QKVW], BT, C, 3 * C);
    bias_backward(dp[QKV_BLOCK_QKVB], dqkv, BT, 3 * C);
    /* ln1 = LN1(x) */
    layernorm_backward(dx, dp[QKV_BLOCK_LN1W], dp[QKV_BLOCK_LN1B], dln1, x, p[QKV_BLOCK_LN1W],
                       a[QKV_BLOCK_ACT_LN1_MEAN], a[QKV_BLOCK_ACT_LN1_RSTD], BT, C);
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
static int one_block_offsets(size_t* po, size_t* ao, size_t* np, size_t* na, int n, int C,
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

int qkv_transformer_block_layout(int* param_offsets, int* act_offsets, int n, int C, int hidden,
                                 int heads) {
    if (!param_offsets || !act_offsets) return QKV_ERR_NULL;
    size_t po[QKV_BLOCK_PARAMS + 1], ao[QKV_BLOCK_ACTS + 1], np, na;
    int status = one_block_offsets(po, ao, &np, &na, n, C, hidden, heads);
    if (status) return status;
    for (int i = 0; i <= QKV_BLOCK_PARAMS; i++) param_offsets[i] = (int)po[i];
    for (int i = 0; i <= QKV_BLOCK_ACTS; i++) act_offsets[i] = (int)ao[i];
    return QKV_OK;
}

int qkv_transformer_block_forward(float* acts, const float* params, const float* x, int n, int C,
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
    status = transformer_block_forward(a, p, x, 1, n, C, heads, hidden, eps, causal ? 1 : 0);
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
static float* wpe_of(const qkv_gpt* g, float* base) { return base + (size_t)g->V * g->C; }
static float* lnf_of(const qkv_gpt* g, float* base) { return base + g->num_params - 2 * (size_t)g->C; }

/* tokens (B, n) -> logits, probs (B n, V); QKV_OK or QKV_ERR_OVERFLOW (parameters too large) */
static int gpt_forward(qkv_gpt* g, const int* tokens, int B, int n) {
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
        if (transformer_block_forward(a, p, x, B, n, C, g->H, g->hidden, g->eps, 1)) return QKV_ERR_OVERFLOW;
        x = a[QKV_BLOCK_ACT_OUT];
    }
    const float* lnf = lnf_of(g, g->params);
    layernorm_forward(g->lnf, g->lnf_mean, g->lnf_rstd, x, lnf, lnf + C, BT, C, g->eps);
    /* (BT, C) x (C, V) -> (BT, V): every token's row of the tied table scored. Through wte^T:
       gemm_nn's register tiles run several times faster than dot products of 64-float rows */
    transpose_forward(g->wteT, wte, V, C);
    matmul_forward(g->logits, g->lnf, g->wteT, BT, C, V);
    /* a non-finite logit makes the loss non-finite (training reports divergence); forward and
       generation check their rows themselves */
    softmax_rows_forward(g->probs, g->logits, BT, V);
    g->last_B = B;
    g->last_n = n;
    return QKV_OK;
}

/* backward of the last forward (tokens, targets (B, n)); accumulates into g->grads */
static void gpt_backward(qkv_gpt* g, const int* tokens, const int* targets, int B, int n) {
    int C = g->C, V = g->V, BT = B * n;
    size_t BC = (size_t)BT * C;
    float weight = 1.0f / (float)BT;
    /* loss = mean -log probs[target]  ->  dlogits = (probs - onehot) / BT */
    crossentropy_backward(g->dlogits, g->probs, targets, BT, V, weight);
    float* wte = wte_of(g, g->params);
    float* dwte = wte_of(g, g->grads);
    /* logits = lnf . wteT  ->  dlnf = dlogits . wte,  dwteT = lnf^T . dlogits, then dwte += dwteT^T:
       every row of wte receives a gradient */
    memset(g->dlnf, 0, BC * sizeof(float));
    matmul_accumulate(g->dlnf, g->dlogits, wte, BT, V, C);     /* (BT, V) x (V, C) */
    memset(g->dwteT, 0, (size_t)C * V * sizeof(float));
    matmul_backward(NULL, g->dwteT, g->dlogits, g->lnf, g->wteT, BT, C, V);  /* (C, BT) x (BT, V) */
    transpose_forward(g->dwte_scratch, g->dwteT, C, V);
    for (size_t i = 0; i < (size_t)V * C; i++) dwte[i] += g->dwte_scratch[i];
    /* lnf = LNf(x_L) */
    float* a[QKV_BLOCK_ACTS];
    block_acts_of(g, g->L - 1, B, n, a);
    const float* lnf = lnf_of(g, g->params);
    float* dlnfw = lnf_of(g, g->grads);
    memset(g->dres, 0, BC * sizeof(float));
    layernorm_backward(g->dres, dlnfw, dlnfw + C, g->dlnf, a[QKV_BLOCK_ACT_OUT], lnf,
                       g->lnf_mean, g->lnf_rstd, BT, C);
    /* the blocks, last to first: dres holds d(out of block l), dx receives d(its input) */
    for (int l = g->L - 1; l >= 0; l--) {
        const float* p[QKV_BLOCK_PARAMS];
        const float* dpc[QKV_BLOCK_PARAMS];
        float* dp[QKV_BLOCK_PARAMS];
        float* al[QKV_BLOCK_ACTS];
        block_params_of(g, l, g->params, p);
        block_params_of(g, l, g->grads, dpc);
        for (int i = 0; i < QKV_BLOCK_PARAMS; i++) dp[i] = (float*)dpc[i];
        block_acts_of(g, l, B, n, al);
        const float* x;
        if (l == 0) {
            x = g->x0;
        } else {
            float* prev[QKV_BLOCK_ACTS];
            block_acts_of(g, l - 1, B, n, prev);
            x = prev[QKV_BLOCK_ACT_OUT];
        }
        memset(g->dx, 0, BC * sizeof(float));
        transformer_block_backward(g->dx, dp, g->dblock, g->dres, al, p, x, B, n,
                                   C, g->H, g->hidden, 1);
        float* swap = g->dres; g->dres = g->dx; g->dx = swap;
    }
    /* x0 = wte[tokens] + wpe[t]  ->  the token's row and the position's row */
    embedding_backward(dwte, wpe_of(g, g->grads), g->dres, tokens, B, n, C);
}

/* ---- create / destroy ---- */

int qkv_gpt_create(qkv_gpt** out, int vocab, int layers, int heads, int dim, int context,
                   int batch, uint32_t seed) {
    if (!out) return QKV_ERR_NULL;
    *out = NULL;
    if (vocab < 2 || vocab > QKV_GPT_MAX_VOCAB || layers < 1 || layers > QKV_GPT_MAX_LAYERS ||
        dim < 1 || dim > QKV_GPT_MAX_DIM || context < 1 || context > QKV_GPT_MAX_CONTEXT ||
        batch < 1 || batch > QKV_GPT_MAX_BATCH || heads < 1 || heads > dim)
        return QKV_ERR_SIZE;
    if (dim % heads) return QKV_ERR_SHAPE;
    int V = vocab, L = layers, H = heads, C = dim, T = context, B = batch, h = 4 * dim;
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
    /* The float block, listed once: the sum sizes it, the same list carves it. 64-bit counts:
       every factor is limited above, so none of these overflows 64 bits. */
    struct { float** at; uint64_t floats; } parts[32 + QKV_BLOCK_ACTS];
    int count = 0;
#define PART(slot, n) (parts[count].at = &(slot), parts[count++].floats = (uint64_t)(n))
    PART(g->params, N); PART(g->grads, N); PART(g->m, N); PART(g->v, N);
    PART(g->next, 3 * N);                        /* params | m | v of an update, until committed */
    PART(g->acts, (uint64_t)L * per_acts);
    PART(g->x0, BC); PART(g->lnf, BC); PART(g->lnf_mean, BT); PART(g->lnf_rstd, BT);
    PART(g->logits, BT * V); PART(g->probs, BT * V);
    PART(g->dres, BC); PART(g->dx, BC); PART(g->dlnf, BC); PART(g->dlogits, BT * V);
    for (int i = 0; i < QKV_BLOCK_ACTS; i++)        /* one block's d; dscores: one head's (T, T) */
        PART(g->dblock[i], i == QKV_BLOCK_ACT_SCORES ? (uint64_t)T * T : as[i]);
    PART(g->kcache, (uint64_t)L * T * C); PART(g->vcache, (uint64_t)L * T * C);
    PART(g->wteT, (uint64_t)V * C); PART(g->dwteT, (uint64_t)V * C); PART(g->dwte_scratch, (uint64_t)V * C);
#undef PART
    uint64_t floats = 0;
    for (int i = 0; i < count; i++) floats += parts[i].floats;
    if (floats > QKV_MAX_BYTES / sizeof(float)) {
        qkv_gpt_destroy(g);
        return QKV_ERR_SIZE;
    }
    g->floats = malloc((size_t)floats * sizeof(float));
    g->ints = malloc(2 * (size_t)BT * sizeof(int));
    g->decay = malloc((size_t)N);
    g->ranked = malloc((size_t)V * sizeof(*g->ranked));
    g->weights_d = malloc((size_t)V * sizeof(double));
    if (!g->floats || !g->ints || !g->decay || !g->ranked || !g->weights_d) {
        qkv_gpt_destroy(g);
        return QKV_ERR_ALLOC;
    }
    float* f = g->floats;
    for (int i = 0; i < count; i++) { *parts[i].at = f; f += parts[i].floats; }
    if ((uint64_t)(f - g->floats) != floats) {  /* the carving used exactly the sum: by construction */
        qkv_gpt_destroy(g);
        return QKV_ERR_SIZE;
    }
    memset(g->floats + N, 0, (size_t)(floats - N) * sizeof(float));
    g->inputs = g->ints;
    g->targets = g->ints + BT;

    /* GPT-2's initialisation, from one numpy-compatible stream in parameter order:
     * matrices ~ N(0, 0.02), the two projections into the residual stream (attprojw, fcprojw)
     * scaled by 1/sqrt(2L); biases 0; LayerNorm gains 1, shifts 0 */
    qkv_rng_seed(&g->rng, seed);
    float std = 0.02f, resid = 0.02f / sqrtf(2.0f * (float)L);
    memset(g->decay, 0, (size_t)N);
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

    g->lr = 3e-3f; g->beta1 = 0.9f; g->beta2 = 0.99f; g->adam_eps = 1e-8f;
    g->weight_decay = 0.01f; g->clip = 1.0f; g->warmup = 0; g->total_steps = 0;
    g->loss_limit = QKV_DIVERGENCE_FACTOR * qkv_log((double)V);
    *out = g;
    return QKV_OK;
}

void qkv_gpt_destroy(qkv_gpt* g) {
    if (!g) return;
    free(g->floats); free(g->ints); free(g->decay); free(g->ranked); free(g->weights_d);
    free(g->data);
    free(g);
}

int qkv_gpt_set_optimizer(qkv_gpt* g, float lr, float beta1, float beta2, float eps,
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

int qkv_gpt_set_data(qkv_gpt* g, const int* train, int n_train, const int* train_starts,
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

/* ---- training ---- */

int qkv_gpt_loss_and_grad(qkv_gpt* g, const int* inputs, const int* targets, int B, int n,
                          double* loss) {
    if (!g || !inputs || !targets || !loss) return QKV_ERR_NULL;
    *loss = NAN;
    if (B < 1 || B > g->B || n < 1 || n > g->T) return QKV_ERR_SIZE;
    if (check_ids(inputs, B * n, g->V) || check_ids(targets, B * n, g->V)) return QKV_ERR_TOKEN;
    if (qkv_check_finite(g->params, g->num_params)) return QKV_ERR_NONFINITE;
    memset(g->grads, 0, g->num_params * sizeof(float));
    if (gpt_forward(g, inputs, B, n)) return QKV_ERR_DIVERGED;
    double sum = crossentropy_forward(g->probs, g->logits, targets, B * n, g->V);
    *loss = sum / (double)(B * n);
    if (!isfinite(*loss)) return QKV_ERR_DIVERGED;
    gpt_backward(g, inputs, targets, B, n);
    if (qkv_check_finite(g->grads, g->num_params)) return QKV_ERR_DIVERGED;
    return QKV_OK;
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

/* AdamW from the gradients, clipped to global norm clip; commits only when everything is finite */
static int gpt_update(qkv_gpt* g, double* grad_norm) {
    size_t N = g->num_params;
    double sq = 0.0;
    for (size_t i = 0; i < N; i++) sq += (double)g->grads[i] * (double)g->grads[i];
    double norm = sqrt(sq);
    *grad_norm = norm;
    if (!isfinite(norm)) return QKV_ERR_DIVERGED;
    float gscale = norm > (double)g->clip ? (float)((double)g->clip / norm) : 1.0f;
    float *np = g->next, *nm = g->next + N, *nv = g->next + 2 * N;
    adamw_update(np, nm, nv, g->params, g->grads, g->m, g->v, g->decay, N, scheduled_lr(g, g->t),
                 g->beta1, g->beta2, g->adam_eps, g->weight_decay, gscale, g->t + 1);
    if (qkv_check_finite(g->next, 3 * N)) return QKV_ERR_DIVERGED;
    memcpy(g->params, np, N * sizeof(float));
    memcpy(g->m, nm, N * sizeof(float));
    memcpy(g->v, nv, N * sizeof(float));
    g->t++;
    return QKV_OK;
}

int qkv_gpt_step(qkv_gpt* g, double* loss, double* grad_norm) {
    if (!g || !loss || !grad_norm) return QKV_ERR_NULL;
    *loss = NAN;
    *grad_norm = NAN;
    if (!g->data) return QKV_ERR_ARGUMENT;  /* no training text: qkv_gpt_set_data first */
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
    if (!g->data) return QKV_ERR_ARGUMENT;
    if (split != 0 && split != 1) return QKV_ERR_ARGUMENT;
    const int* tokens = split ? g->val : g->train;
    const int* starts = split ? g->val_starts : g->train_starts;
    int n_starts = split ? g->n_val_starts : g->n_train_starts;
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
        sum += crossentropy_forward(g->probs, g->logits, g->targets, B * T, g->V);
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
        if (block_attention_forward(a, p, x, &cache, 1, 1, C, g->H, g->eps, 0)) return QKV_ERR_OVERFLOW;
        block_mlp_forward(a, p, 1, C, g->hidden, g->eps);
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

/* the next token from logits (V): greedy at temperature 0, else softmax(z / temperature) over the
   top_k most likely (0: all) cut to the smallest set whose probability reaches top_p, then one
   uniform draw. top_ids, top_probs (QKV_GPT_TOP) receive the model's own probabilities (z, at
   temperature 1) of its most likely tokens. Ties go to the lower id. Without top_k or top_p the
   draw walks the tokens in id order (no sort: the default costs O(V) per token). */
static int sample_next(qkv_gpt* g, const float* z, float temperature, int top_k, float top_p,
                       qkv_rng* rng, int* top_ids, float* top_probs) {
    int V = g->V;
    /* the QKV_GPT_TOP largest logits, by insertion */
    int top[QKV_GPT_TOP], kept = 0;
    for (int i = 0; i < V; i++) {
        if (kept == QKV_GPT_TOP && !(z[i] > z[top[kept - 1]])) continue;
        int at = kept < QKV_GPT_TOP ? kept++ : kept - 1;
        while (at > 0 && z[i] > z[top[at - 1]]) { top[at] = top[at - 1]; at--; }
        top[at] = i;
    }
    double max = (double)z[top[0]], sum = 0.0;
    for (int i = 0; i < V; i++) sum += qkv_exp((double)z[i] - max);
    for (int i = 0; i < QKV_GPT_TOP; i++) {
        top_ids[i] = i < kept ? top[i] : -1;
        top_probs[i] = i < kept ? (float)(qkv_exp((double)z[top[i]] - max) / sum) : 0.0f;
    }
    if (temperature == 0.0f) return top[0];
    double* w = g->weights_d;
    if ((top_k == 0 || top_k >= V) && top_p >= 1.0f) {
        sum = 0.0;
        for (int i = 0; i < V; i++) { w[i] = qkv_exp(((double)z[i] - max) / (double)temperature); sum += w[i]; }
        double u = qkv_rng_double(rng) * sum, acc = 0.0;
        for (int i = 0; i < V; i++) {
            acc += w[i];
            if (u < acc) return i;
        }
        return top[0];  /* u rounded up to the sum: the most likely token */
    }
    struct ranked* r = g->ranked;
    for (int i = 0; i < V; i++) { r[i].z = z[i]; r[i].id = i; }
    sort_ranked(r, V);
    int keep = top_k > 0 && top_k < V ? top_k : V;
    sum = 0.0;
    for (int i = 0; i < keep; i++) {
        w[i] = qkv_exp(((double)r[i].z - max) / (double)temperature);
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

int qkv_gpt_generate(qkv_gpt* g, const int* prompt, int n_prompt, int max_new, float temperature,
                     int top_k, float top_p, uint32_t seed, int use_cache, int* out_tokens,
                     int* top_ids, float* top_probs, int* out_count) {
    if (!g || !prompt || !out_tokens || !top_ids || !top_probs || !out_count) return QKV_ERR_NULL;
    *out_count = 0;
    if (n_prompt < 1 || max_new < 1 || (int64_t)n_prompt + max_new > g->T) return QKV_ERR_SIZE;
    if (!isfinite(temperature) || temperature < 0.0f || top_k < 0 || !isfinite(top_p) ||
        !(top_p > 0.0f) || top_p > 1.0f)
        return QKV_ERR_ARGUMENT;
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
        int token = sample_next(g, z, temperature, top_k, top_p, &rng, top_ids + i * QKV_GPT_TOP,
                                top_probs + i * QKV_GPT_TOP);
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

/* ---- tensors for JavaScript ---- */

int qkv_gpt_tensor(qkv_gpt* g, int group, int layer, int which, float** data, int* rows,
                   int* cols) {
    if (!g || !data || !rows || !cols) return QKV_ERR_NULL;
    int V = g->V, C = g->C, T = g->T;
    if (group == QKV_GPT_PARAMS || group == QKV_GPT_GRADS) {
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
int qkv_gpt_steps(const qkv_gpt* g) { return g ? g->t : 0; }

/* ---- training state, for checkpoints (as qkv_model_*_state) ---- */

/* the saved state: header (V, L, H, C, T, t) | rng | params (N) | moments m, v (2N) */
typedef struct {
    int V, L, H, C, T, t;
    qkv_rng rng;
} gpt_state_header;

static size_t gpt_state_size(const qkv_gpt* g) {
    return sizeof(gpt_state_header) + 3 * g->num_params * sizeof(float);
}

int qkv_gpt_state_bytes(const qkv_gpt* g, double* bytes) {
    if (!g || !bytes) return QKV_ERR_NULL;
    *bytes = (double)gpt_state_size(g);
    return QKV_OK;
}

int qkv_gpt_save_state(const qkv_gpt* g, void* out, double bytes) {
    if (!g || !out) return QKV_ERR_NULL;
    if (bytes != (double)gpt_state_size(g)) return QKV_ERR_SIZE;
    gpt_state_header head = { g->V, g->L, g->H, g->C, g->T, g->t, g->rng };
    unsigned char* at = out;
    size_t N = g->num_params * sizeof(float);
    memcpy(at, &head, sizeof head);
    memcpy(at + sizeof head, g->params, N);
    memcpy(at + sizeof head + N, g->m, N);
    memcpy(at + sizeof head + 2 * N, g->v, N);
    return QKV_OK;
}

int qkv_gpt_load_state(qkv_gpt* g, const void* in, double bytes) {
    if (!g || !in) return QKV_ERR_NULL;
    if (bytes != (double)gpt_state_size(g)) return QKV_ERR_SIZE;
    gpt_state_header head;
    const unsigned char* at = in;
    memcpy(&head, at, sizeof head);
    if (head.V != g->V || head.L != g->L || head.H != g->H || head.C != g->C || head.T != g->T)
        return QKV_ERR_SHAPE;
    if (head.t < 0 || head.rng.index < 0 || head.rng.index > 624) return QKV_ERR_ARGUMENT;
    size_t N = g->num_params;
    /* through memcpy: the bytes need not be aligned for floats */
    for (size_t i = 0; i < 3 * N; i++) {
        float x;
        memcpy(&x, at + sizeof head + i * sizeof(float), sizeof x);
        if (!isfinite(x)) return QKV_ERR_NONFINITE;
    }
    memcpy(g->params, at + sizeof head, N * sizeof(float));
    memcpy(g->m, at + sizeof head + N * sizeof(float), N * sizeof(float));
    memcpy(g->v, at + sizeof head + 2 * N * sizeof(float), N * sizeof(float));
    g->t = head.t;
    g->rng = head.rng;
    g->last_B = g->last_n = 0;
    return QKV_OK;
}
