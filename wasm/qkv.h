/*
 * qkv.h: the public C interface of qkv-lab.
 *
 * Everything computes in float32 (the random generator works in double, as numpy's does).
 * Matrices are row-major, contiguous. Dimension legend used across the sources:
 *   n    tokens (rows of X, Q, K, V)       n_q, n_k  query / key rows when they differ
 *   d    model width (columns of X)         d_k  query/key width   d_v  value width
 *   V    vocabulary size (in the model)
 *   H    heads (multihead.c): d_model projection width, d_k = d_model / H per head, d_out output width
 *
 * Every function that takes pointers or sizes validates them and returns a qkv_status;
 * none of them aborts. qkv_error_message() turns a status into a sentence.
 * Gradient functions (_backward) accumulate with += into buffers the caller zeroed.
 */
#ifndef QKV_H
#define QKV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    QKV_OK = 0,
    QKV_ERR_NULL = 1,        /* a required pointer is NULL */
    QKV_ERR_SIZE = 2,        /* a size is zero, negative, or its product overflows the limit */
    QKV_ERR_SHAPE = 3,       /* shapes that must agree do not */
    QKV_ERR_NONFINITE = 4,   /* an input holds NaN or +-Infinity where only finite numbers belong */
    QKV_ERR_ALLOC = 5,       /* memory could not be allocated */
    QKV_ERR_ARGUMENT = 6,    /* a scalar argument is out of range (scale <= 0, lr <= 0, ...) */
    QKV_ERR_MASKED_ROW = 7,  /* a softmax row has no finite entry to give weight to */
    QKV_ERR_TOKEN = 8,       /* a token id is outside the vocabulary */
    QKV_ERR_DIVERGED = 9,    /* training diverged (loss not finite, or above QKV_DIVERGENCE_FACTOR * ln V);
                                parameters were left untouched */
    QKV_ERR_OVERFLOW = 10,   /* finite inputs gave a result beyond float32's range */
    QKV_STATUS_COUNT
} qkv_status;

const char* qkv_error_message(int status);

/* Largest element count of any one buffer (2^26 floats = 256 MiB) and largest single side. */
#define QKV_MAX_ELEMENTS ((size_t)1 << 26)
#define QKV_MAX_SIDE (1 << 24)

/* Largest single allocation qkv_alloc_bytes makes: 1 GiB, the WebAssembly memory's maximum
 * (build.sh's MAXIMUM_MEMORY). One call's buffers may share one block (web/qkv-lab.js). */
#define QKV_MAX_BYTES ((size_t)1 << 30)
/* Training has diverged when a batch loss exceeds this multiple of ln V, the loss of a uniform
 * guess over the vocabulary (the loss a freshly initialised model starts near). */
#define QKV_DIVERGENCE_FACTOR 100.0

/* Checks 0 < rows, cols <= QKV_MAX_SIDE and rows*cols <= QKV_MAX_ELEMENTS. */
int qkv_check_size(int rows, int cols);
/* QKV_OK when every entry is finite, else QKV_ERR_NONFINITE. */
int qkv_check_finite(const float* x, size_t count);

/* ---- rng.c: numpy-compatible Mersenne Twister (legacy np.random.seed / randn) ---- */
typedef struct {
    uint32_t mt[624];
    int index;
    int has_gauss;  /* numpy caches the second gaussian of each polar-method pair */
    double gauss;
} qkv_rng;

int qkv_rng_seed(qkv_rng* rng, uint32_t seed);
uint32_t qkv_rng_next_u32(qkv_rng* rng);
double qkv_rng_double(qkv_rng* rng);               /* [0, 1), 53 bits, like random_sample() */
double qkv_rng_gauss(qkv_rng* rng);                /* like one element of randn() */
int qkv_rng_randn(qkv_rng* rng, float* out, int rows, int cols); /* out (rows, cols) */

/* ---- matrix.c ---- */
/* out (n, m) = A (n, k) . B (k, m) */
int qkv_matmul(float* out, const float* A, const float* B, int n, int k, int m);
/* out (cols, rows) = A (rows, cols) transposed; A must be finite (no silent NaN) */
int qkv_transpose(float* out, const float* A, int rows, int cols);
/* out (rows, cols) = softmax of each row of S; -Infinity entries get weight 0 */
int qkv_softmax_rows(float* out, const float* S, int rows, int cols);

/* ---- attention.c ---- */
/*
 * scores  (n_q, n_k) = Q (n_q, d_k) . K (n_k, d_k)^T        raw dot products, unscaled, unmasked
 * weights (n_q, n_k) = softmax_rows(mask(scores / scale))  mask: j > i set to -inf when causal
 * output  (n_q, d_v) = weights . V (n_k, d_v)
 * scale is the divisor: 1 for none, sqrt(d_k) for the standard scaled dot product; a finite
 * float32 >= FLT_MIN (2^-126), else QKV_ERR_ARGUMENT.
 */
int qkv_attention_forward(float* scores, float* weights, float* output,
                          const float* Q, const float* K, const float* V,
                          int n_q, int n_k, int d_k, int d_v, float scale, int causal);
/*
 * qkv_attention_forward, keeping only the results the caller wants. keep: QKV_KEEP_SCORES and/or
 * QKV_KEEP_WEIGHTS (0: the output alone). scores or weights not kept need only 4 * n_k floats:
 * the kernel reuses them as work space for 4 query rows at a time. The output is the same, bit
 * for bit.
 */
enum { QKV_KEEP_SCORES = 1, QKV_KEEP_WEIGHTS = 2 };
int qkv_attention_forward_keep(float* scores, float* weights, float* output,
                               const float* Q, const float* K, const float* V,
                               int n_q, int n_k, int d_k, int d_v, float scale, int causal, int keep);
/*
 * Reverses attention_forward. Needs forward's weights. dscores (n_q, n_k) is written (not
 * accumulated): it receives d loss / d scores. dQ, dK, dV are accumulated (they must hold
 * finite numbers). QKV_ERR_OVERFLOW when a gradient is beyond float32's range; the
 * accumulators then hold partial sums.
 */
int qkv_attention_backward(float* dQ, float* dK, float* dV, float* dscores,
                           const float* doutput, const float* Q, const float* K, const float* V,
                           const float* weights,
                           int n_q, int n_k, int d_k, int d_v, float scale, int causal);

/*
 * Self-attention from one input: Q = X.Wq, K = X.Wk, V = X.Wv, then attention_forward.
 * X (n, d), Wq (d, d_k), Wk (d, d_k), Wv (d, d_v); Q, K (n, d_k); V (n, d_v);
 * scores, weights (n, n); output (n, d_v).
 */
int qkv_self_attention_forward(float* Q, float* K, float* V,
                               float* scores, float* weights, float* output,
                               const float* X, const float* Wq, const float* Wk, const float* Wv,
                               int n, int d, int d_k, int d_v, float scale, int causal);

/* ---- positions.c: sinusoidal positional encoding ("Attention Is All You Need") ----
 * out (n, d): PE[p][2i] = sin(p / base^(2i/d)), PE[p][2i+1] = cos(p / base^(2i/d)), computed in
 * double and rounded to float32 (an odd d ends with a sine column). 1 <= n <= QKV_MAX_POSITIONS
 * (so that p / base^(2i/d) < 2^20 and sin, cos stay within an ulp), base > 1 and finite.
 * The model's positions (model.c) are this table with base 10000. */
#define QKV_MAX_POSITIONS (1 << 20)
int qkv_positional_encoding(float* out, int n, int d, double base);

/* ---- multihead.c: multi-head self-attention ----
 * X (n, d); Wq, Wk, Wv (d, d_model); Wo (d_model, d_out); heads divides d_model (else
 * QKV_ERR_SHAPE), d_k = d_model / heads. Q = X.Wq, K = X.Wk, V = X.Wv; head h runs
 * attention_forward on columns [h d_k, (h+1) d_k) of each, with the divisor scale (sqrt(d_k)
 * for the standard scaling) and the causal mask:
 *   head_q, head_k, head_v, head_out (heads, n, d_k)   each head's block contiguous
 *   scores, weights (heads, n, n)
 *   concat (n, d_model) = the heads' outputs side by side;  output (n, d_out) = concat.Wo */
int qkv_multi_head_attention_forward(float* head_q, float* head_k, float* head_v, float* scores,
                                     float* weights, float* head_out, float* concat, float* output,
                                     const float* X, const float* Wq, const float* Wk,
                                     const float* Wv, const float* Wo, int n, int d, int d_model,
                                     int heads, int d_out, float scale, int causal);

/* ---- model.c: a tiny next-token language model with a learned embedding table ----
 * wte (V, d) + fixed sinusoidal positions (positions.c, base 10000) -> one causal head (Wq, Wk, Wv, each (d, d)) with a
 * residual -> logits = h.Wout (d, V) + bout (V) -> softmax cross-entropy on the next token.
 * Token 0 is the sentence boundary <s>; a sentence w1..wm trains inputs [<s>, w1..wm] against
 * targets [w1..wm, <s>]. Deterministic from the seed (numpy-compatible generator).
 */
typedef struct qkv_model qkv_model;

enum { QKV_OPTIMIZER_SGD = 0, QKV_OPTIMIZER_ADAM = 1 };
/* tensor groups for qkv_model_tensor */
enum { QKV_MODEL_PARAMS = 0, QKV_MODEL_GRADS = 1, QKV_MODEL_POSITIONS = 2,
       QKV_MODEL_ACTIVATIONS = 3 };
/* parameters and gradients: 0 wte (V, d), 1 Wq (d, d), 2 Wk (d, d), 3 Wv (d, d),
 * 4 Wout (d, V), 5 bout (1, V).
 * activations of the last forward (n rows): 0 X, 1 Q, 2 K, 3 V, 4 scores (n, n),
 * 5 weights (n, n), 6 att, 7 h, 8 logits (n, V), 9 probs (n, V). */

/* *out = a new model (V >= 2 rows, d columns, sequences up to max_len tokens incl. <s>) */
int qkv_model_create(qkv_model** out, int vocab, int dim, int max_len, uint32_t seed);
void qkv_model_destroy(qkv_model* m);
/* optimizer: QKV_OPTIMIZER_SGD (default, lr 0.1) or QKV_OPTIMIZER_ADAM; lr > 0 finite,
 * 0 <= beta < 1, eps > 0 (betas and eps are used by Adam only) */
int qkv_model_set_optimizer(qkv_model* m, int optimizer, float lr, float beta1, float beta2,
                            float eps);
/* a live pointer to one tensor and its shape (see the groups above) */
int qkv_model_tensor(qkv_model* m, int group, int which, float** data, int* rows, int* cols);
int qkv_model_num_params(const qkv_model* m);
/* forward only on tokens (n <= max_len, used as given: prepend <s> yourself) */
int qkv_model_forward(qkv_model* m, const int* tokens, int n);
/* zeroes the gradients, then forward + backward on count sentences (tokens concatenated,
 * 1 <= lengths[s] <= max_len - 1, without <s>; at most QKV_MAX_ELEMENTS tokens in all);
 * *loss = mean cross-entropy over the predicted tokens.
 * QKV_ERR_DIVERGED when the loss or a gradient is not finite. */
int qkv_model_loss_and_grad(qkv_model* m, const int* tokens, const int* lengths, int count,
                            double* loss);
/* the same in parts, for a caller that must not block for a whole batch: sentences from .. to-1
 * of the batch (the same tokens, lengths and count on every call). from = 0 zeroes the
 * gradients; a later call must start where the last one stopped (else QKV_ERR_ARGUMENT, as for
 * 0 <= from < to <= count broken); any other loss_and_grad in between starts afresh. The call
 * that reaches to = count gives *loss and the gradients bit for bit as qkv_model_loss_and_grad
 * (the same sentences in the same order); before it *loss is NaN and update refuses
 * (QKV_ERR_DIVERGED), and a state saved meanwhile is the state before the batch. */
int qkv_model_loss_and_grad_range(qkv_model* m, const int* tokens, const int* lengths, int count,
                                  int from, int to, double* loss);
/* one optimizer step from the current gradients; updated_rows (capacity V) receives the
 * embedding rows whose values changed, ascending. QKV_ERR_DIVERGED (parameters untouched)
 * when the last qkv_model_loss_and_grad failed or gave a loss above
 * QKV_DIVERGENCE_FACTOR * ln V, or when the gradients or the new values are not finite. */
int qkv_model_update(qkv_model* m, int* updated_rows, int* updated_count);
/* one sentence w1..wm (tokens without <s>, 1 <= length <= max_len - 1), as
 * qkv_model_loss_and_grad on it alone: gradients zeroed, then forward + backward, *loss the mean;
 * losses (capacity length + 1) receives each position's -log probs[t][target t] in double
 * (logsumexp of the float logits), position t predicting w(t+1) and the last one <s>. The
 * sentence's activations stay readable through qkv_model_tensor until the next forward. */
int qkv_model_sentence_losses(qkv_model* m, const int* tokens, int length, double* losses,
                              double* loss);
/* shuffles order[0..count) with the model's generator (Fisher-Yates) */
int qkv_model_shuffle(qkv_model* m, int* order, int count);
/* The training state, for checkpoints: the parameters, Adam's moments and step count, the
 * generator (so the next shuffles) and the last loss. *bytes = its size for this model.
 * save copies it to out (exactly bytes long); load copies it in, QKV_ERR_SHAPE when it was saved
 * from a model of another vocabulary or width, QKV_ERR_SIZE when bytes is not the size. A model
 * loaded with a saved state then trains exactly as the saved one went on to. */
int qkv_model_state_bytes(const qkv_model* m, int* bytes);
int qkv_model_save_state(const qkv_model* m, void* out, int bytes);
int qkv_model_load_state(qkv_model* m, const void* in, int bytes);

/* ---- layernorm.c: LayerNorm over rows (biased variance), GPT-2's ----
 * out (N, C) = (x - mean) * rstd * weight (C) + bias (C); mean, rstd (N) kept for backward;
 * rstd = 1 / sqrt(var + eps), eps > 0 finite. Backward accumulates dinp (N, C), dweight,
 * dbias (C) (they must hold finite numbers). */
int qkv_layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                          const float* weight, const float* bias, int N, int C, float eps);
int qkv_layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout,
                           const float* inp, const float* weight, const float* mean,
                           const float* rstd, int N, int C);

/* ---- gelu.c: GELU, tanh approximation (GPT-2's), elementwise over N entries ----
 * out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); backward accumulates dinp. */
int qkv_gelu_forward(float* out, const float* inp, int N);
int qkv_gelu_backward(float* dinp, const float* inp, const float* dout, int N);

/* ---- gpt.c: a GPT-2-style Transformer (see gpt.c for the equations) ----
 * One block's parameters, in this order in a flat block (qkv_transformer_block_layout gives the
 * offsets): ln1w, ln1b (C) | qkvw (C, 3C) = [Wq | Wk | Wv] | qkvb (3C) | attprojw (C, C) |
 * attprojb (C) | ln2w, ln2b (C) | fcw (C, h) | fcb (h) | fcprojw (h, C) | fcprojb (C). */
enum {
    QKV_BLOCK_LN1W, QKV_BLOCK_LN1B, QKV_BLOCK_QKVW, QKV_BLOCK_QKVB, QKV_BLOCK_ATTPROJW,
    QKV_BLOCK_ATTPROJB, QKV_BLOCK_LN2W, QKV_BLOCK_LN2B, QKV_BLOCK_FCW, QKV_BLOCK_FCB,
    QKV_BLOCK_FCPROJW, QKV_BLOCK_FCPROJB, QKV_BLOCK_PARAMS
};
/* One block's activations for B windows of n tokens, in this order:
 * ln1 (B n, C), ln1_mean, ln1_rstd (B n) | qkv (B n, 3C) | q, k, v (B, H, n, d_k) |
 * scores (raw Q.K^T), weights (B, H, n, n) | head_out (B, H, n, d_k) | concat, attn, resid1,
 * ln2 (B n, C) | ln2_mean, ln2_rstd (B n) | hidden, gelu (B n, h) | mlp, out (B n, C). */
enum {
    QKV_BLOCK_ACT_LN1, QKV_BLOCK_ACT_LN1_MEAN, QKV_BLOCK_ACT_LN1_RSTD, QKV_BLOCK_ACT_QKV,
    QKV_BLOCK_ACT_Q, QKV_BLOCK_ACT_K, QKV_BLOCK_ACT_V, QKV_BLOCK_ACT_SCORES,
    QKV_BLOCK_ACT_WEIGHTS, QKV_BLOCK_ACT_HEAD_OUT, QKV_BLOCK_ACT_CONCAT, QKV_BLOCK_ACT_ATTN,
    QKV_BLOCK_ACT_RESID1, QKV_BLOCK_ACT_LN2, QKV_BLOCK_ACT_LN2_MEAN, QKV_BLOCK_ACT_LN2_RSTD,
    QKV_BLOCK_ACT_HIDDEN, QKV_BLOCK_ACT_GELU, QKV_BLOCK_ACT_MLP, QKV_BLOCK_ACT_OUT,
    QKV_BLOCK_ACTS
};
/* param_offsets (QKV_BLOCK_PARAMS + 1), act_offsets (QKV_BLOCK_ACTS + 1): where each tensor
 * starts, in floats, for one sequence of n tokens; the last entry is the total. heads divides
 * C (else QKV_ERR_SHAPE). */
int qkv_transformer_block_layout(int* param_offsets, int* act_offsets, int n, int C, int hidden,
                                 int heads);
/* one pre-LN block on x (n, C): acts (laid out as above) from params; causal masks j > i. */
int qkv_transformer_block_forward(float* acts, const float* params, const float* x, int n, int C,
                                  int hidden, int heads, int causal, float eps);

typedef struct qkv_gpt qkv_gpt;
#define QKV_GPT_MAX_VOCAB 65536
#define QKV_GPT_MAX_LAYERS 64
#define QKV_GPT_MAX_DIM 4096
#define QKV_GPT_MAX_CONTEXT 4096
#define QKV_GPT_MAX_BATCH 4096
#define QKV_GPT_TOP 5 /* most likely tokens reported per generated token */
/* tensor groups for qkv_gpt_tensor */
enum { QKV_GPT_PARAMS = 0, QKV_GPT_GRADS = 1, QKV_GPT_ACTIVATIONS = 2, QKV_GPT_ADAPTERS = 3,
       QKV_GPT_DADAPTERS = 4 };
/* qkv_gpt_tensor's layer for the whole parameter (or gradient) block, read as one column */
#define QKV_GPT_LAYER_ALL (-1)
/* qkv_gpt_tensor's `which` at layer L (the tensors outside the blocks), counted from 0, the last
 * member the count: the parameters and gradients ... */
enum { QKV_GPT_WTE, QKV_GPT_WPE, QKV_GPT_LNFW, QKV_GPT_LNFB, QKV_GPT_OUTSIDE_PARAMS };
/* ... and the activations of the last forward */
enum { QKV_GPT_ACT_X0, QKV_GPT_ACT_LNF, QKV_GPT_ACT_LOGITS, QKV_GPT_ACT_PROBS, QKV_GPT_OUTSIDE_ACTS };

/* *out = a GPT: V tokens (0 = end of text), L layers of H heads, width C (H divides C; hidden
 * 4C), windows of T tokens, B windows per step; weights drawn from the seed. Parameters:
 * wte (V, C) | wpe (T, C) | L blocks (layout above) | lnfw, lnfb (C). */
int qkv_gpt_create(qkv_gpt** out, int vocab, int layers, int heads, int dim, int context,
                   int batch, uint32_t seed);
/* *out = a GPT of that shape for weights the caller writes (a saved model loaded): parameters
 * zero, and none of what training adds (gradients, AdamW's moments and the copies an update keeps,
 * backward's buffers): it runs forward, evaluation, scoring and generation, and is a LoRA run's base;
 * qkv_gpt_loss_and_grad, qkv_gpt_step and the state functions return QKV_ERR_ARGUMENT, and its
 * gradients (QKV_GPT_GRADS) are not there. The same shape checks as qkv_gpt_create; the 1 GiB
 * limit applies to its smaller block. */
int qkv_gpt_create_inference(qkv_gpt** out, int vocab, int layers, int heads, int dim, int context,
                             int batch);
void qkv_gpt_destroy(qkv_gpt* g);
/* AdamW (decay on matrices only: wte, wpe, qkvw, attprojw, fcw, fcprojw), global gradient norm
 * clipped to clip; lr warms up linearly over warmup steps, then decays by a cosine to lr / 10 at
 * total_steps (0: constant). Defaults: 3e-3, 0.9, 0.99, 1e-8, 0.01, 1, 0, 0. */
int qkv_gpt_set_optimizer(qkv_gpt* g, float lr, float beta1, float beta2, float eps,
                          float weight_decay, float clip, int warmup, int total_steps);
/* the training and validation token streams and where their windows start (start + T <
 * length: a window is T inputs and the T next tokens); copied into the GPT */
int qkv_gpt_set_data(qkv_gpt* g, const int* train, int n_train, const int* train_starts,
                     int n_train_starts, const int* val, int n_val, const int* val_starts,
                     int n_val_starts);
/* gradients zeroed, then forward + backward of inputs, targets (B, n), B <= batch, n <= T;
 * *loss the mean cross-entropy. QKV_ERR_DIVERGED when the loss or a gradient is not finite. */
int qkv_gpt_loss_and_grad(qkv_gpt* g, const int* inputs, const int* targets, int B, int n,
                          double* loss);
/* one AdamW step on B windows drawn from the model's generator; *loss before the update.
 * QKV_ERR_DIVERGED (parameters untouched) when the loss is not finite or above
 * QKV_DIVERGENCE_FACTOR * ln V, or the update is not finite. */
int qkv_gpt_step(qkv_gpt* g, double* loss, double* grad_norm);
/* *loss_sum = the summed loss over the T targets of windows first..first+count-1 of split
 * (0 train, 1 validation), forward only */
int qkv_gpt_evaluate(qkv_gpt* g, int split, int first, int count, double* loss_sum);
/* forward of one sequence of n <= T tokens; its activations readable with qkv_gpt_tensor */
int qkv_gpt_forward(qkv_gpt* g, const int* tokens, int n);
/* *loss_sum = the summed loss of B <= batch sequences of n <= T tokens, inputs and targets (B, n),
 * each scored from its start (position 0), forward only */
int qkv_gpt_score(qkv_gpt* g, const int* inputs, const int* targets, int B, int n, double* loss_sum);
/* up to max_new tokens after prompt (n_prompt + max_new <= T), ending early at token 0 (which is
 * then the last of out_tokens); temperature 0 greedy, else sampled from softmax(z / temperature)
 * over the top_k most likely (0: all), then the smallest such set with probability >= top_p
 * (0 < top_p <= 1), with a generator seeded by seed. use_cache: a prefill over the prompt, then
 * one row per token against the KV cache; else the whole sequence again for every token.
 * top_ids, top_probs (max_new * QKV_GPT_TOP): each step's most likely tokens and their
 * probabilities at temperature 1. */
int qkv_gpt_generate(qkv_gpt* g, const int* prompt, int n_prompt, int max_new, float temperature,
                     int top_k, float top_p, uint32_t seed, int use_cache, int* out_tokens,
                     int* top_ids, float* top_probs, int* out_count);
/* qkv_gpt_generate with an allowed set per step (a poem's form, an acrostic): masks (n_masks,
 * V) bytes, 1 where a token is allowed (every row allows one); step_masks (max_new): the row of
 * step i, or -1 for no mask. A masked step samples from the model's distribution restricted to
 * the allowed tokens and renormalised (top_k and top_p then apply to it); removed (max_new): the
 * probability the model put on the disallowed tokens; masked_ids, masked_probs (max_new *
 * QKV_GPT_TOP): the most likely allowed tokens and their renormalised probabilities (temperature
 * 1; -1 and 0 on unmasked steps). n_masks 0: no masks (masks, step_masks and the three outputs
 * may be NULL), exactly qkv_gpt_generate. */
int qkv_gpt_generate_masked(qkv_gpt* g, const int* prompt, int n_prompt, int max_new,
                            float temperature, int top_k, float top_p, uint32_t seed, int use_cache,
                            const unsigned char* masks, int n_masks, const int* step_masks,
                            int* out_tokens, int* top_ids, float* top_probs, float* removed,
                            int* masked_ids, float* masked_probs, int* out_count);
/* a live pointer to a tensor and its shape. PARAMS / GRADS: layer QKV_GPT_LAYER_ALL which 0 =
 * the whole block (num_params, 1); layer L: QKV_GPT_WTE, _WPE, _LNFW, _LNFB; layer 0..L-1:
 * QKV_BLOCK_* (vectors 1 x k). ACTIVATIONS of the last forward: layer 0..L-1: QKV_BLOCK_ACT_*
 * (head tensors as (B H n, d_k) and (B H n, n)); layer L: QKV_GPT_ACT_X0, _LNF (B n, C),
 * _LOGITS, _PROBS (B n, V). A training step does not write _PROBS: this call computes them from
 * its logits (the bits a forward writes), so ask again after each step rather than keep the
 * pointer. */
int qkv_gpt_tensor(qkv_gpt* g, int group, int layer, int which, float** data, int* rows,
                   int* cols);
int qkv_gpt_num_params(const qkv_gpt* g);
/* floats a step trains: every parameter, or a LoRA run's adapters (0: qkv_gpt_create_inference's) */
int qkv_gpt_trainable_count(const qkv_gpt* g);
/* *bytes = what this GPT allocated (its float block, token ids, masks, a merged copy); a LoRA
 * run's figure is what it adds to its base */
int qkv_gpt_memory_bytes(const qkv_gpt* g, double* bytes);
/* the reference text for split 2 of qkv_gpt_evaluate (a fine-tune's base validation text:
 * what it may forget), as qkv_gpt_set_data's streams */
int qkv_gpt_set_reference(qkv_gpt* g, const int* tokens, int n_tokens, const int* starts,
                          int n_starts);

/* ---- LoRA (Hu et al. 2021) on a GPT, in the engine's row-vector convention ----
 * y = x.W + (alpha / r) (x.A).B for each chosen matrix W (in, k) of every block: A (in, r) drawn
 * from the seed (normal, scaled by 1/sqrt(in)), B (r, k) zero, so that step 0 is the base exactly.
 * Targets (a bit mask of 1 << QKV_LORA_*): Wq, Wk, Wv (C, C; the column blocks of qkvw), Wo
 * (attprojw, C x C), W1 (fcw, C x h), W2 (fcprojw, h x C). The adapters, in order, layer by layer
 * and target by target: A then B. */
enum { QKV_LORA_WQ, QKV_LORA_WK, QKV_LORA_WV, QKV_LORA_WO, QKV_LORA_W1, QKV_LORA_W2, QKV_LORA_TARGETS };
#define QKV_LORA_MAX_RANK 64
/* *out = a LoRA run on base's weights, which it reads and never writes (frozen; base must outlive
 * it and not be a LoRA run): B windows per step, its own activations, adapters, their gradients
 * and AdamW moments, and no gradient for a base weight. Steps, evaluation, forward and generation
 * run as a GPT's, training the adapters alone. Groups QKV_GPT_ADAPTERS / _DADAPTERS of
 * qkv_gpt_tensor: layer QKV_GPT_LAYER_ALL which 0 = every adapter (count, 1); layer l which
 * 2 t = A of target t, 2 t + 1 = its B. */
int qkv_gpt_create_lora(qkv_gpt** out, qkv_gpt* base, int batch, int targets, int rank,
                        float alpha, uint32_t seed);
/* merge 1: forward and generation use W + (alpha / r) A.B, folded into a copy of the base's
 * weights (no extra work per token); 0: the base's weights and the adapters beside them again.
 * A merged run does not step (QKV_ERR_ARGUMENT). */
int qkv_gpt_lora_merge(qkv_gpt* g, int merge);
int qkv_gpt_steps(const qkv_gpt* g);
/* The training state, for checkpoints of long runs (tools/pretrain.c): the parameters, AdamW's
 * moments, the step count and the window generator. A GPT of the same shape, given the same data
 * and optimizer settings and loaded with a saved state, trains exactly as the saved one went on
 * to. Sizes are doubles: a large GPT's state passes 2 GiB. */
int qkv_gpt_state_bytes(const qkv_gpt* g, double* bytes);
int qkv_gpt_save_state(const qkv_gpt* g, void* out, double bytes);
int qkv_gpt_load_state(qkv_gpt* g, const void* in, double bytes);

#ifdef __cplusplus
}
#endif
#endif
