/*
 * model.c: a tiny next-token language model whose embedding table is learned, with its
 * hand-written backward pass and two optimizers (plain SGD and Adam).
 *
 * Legend: V vocabulary size, d model width (= d_k = d_v, one head), n tokens of one sequence
 * (n <= L, the longest sequence the model accepts).
 *
 *   X      (n, d) = wte[tokens] + pos[0..n)          one-hot lookup, fixed sinusoidal positions
 *   Q,K,Vv (n, d) = X.Wq, X.Wk, X.Wv
 *   att    (n, d) = causal attention(Q, K, Vv), scores divided by sqrt(d)
 *   h      (n, d) = X + att                           residual path
 *   logits (n, V) = h.Wout + bout
 *   probs  (n, V) = softmax_rows(logits)
 *   loss          = mean over predicted tokens of -log probs[t][target[t]]
 *
 * Token 0 is the sentence boundary <s>. A sentence w1..wm is trained as inputs [<s>, w1..wm]
 * and targets [w1..wm, <s>], so every token of a batch sentence is an input and receives a
 * gradient in its embedding row, and no other row does (the lookup is one-hot x table).
 *
 * Memory, llm.c style: parameters, gradients, optimizer state (m, v), the update scratch and
 * the activations each live in one malloc'd block cut into named tensors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"

#define NUM_PARAM_TENSORS 6
#define NUM_ACTIVATIONS 10

struct qkv_model {
    int V, d, L;
    float scale;  /* attention divisor sqrt(d) */
    qkv_rng rng;  /* seeded with the model seed: initialisation, then batch shuffles */

    int optimizer;  /* QKV_OPTIMIZER_SGD or QKV_OPTIMIZER_ADAM */
    float lr, beta1, beta2, eps;
    int t;          /* Adam steps taken */
    double last_loss;   /* of the last loss_and_grad (0 before any): update checks it */
    double loss_limit;  /* QKV_DIVERGENCE_FACTOR * ln V: a larger loss means divergence */

    size_t param_sizes[NUM_PARAM_TENSORS];
    size_t num_params;
    float* params;   /* wte (V, d) | wq (d, d) | wk (d, d) | wv (d, d) | wout (d, V) | bout (V) */
    float* grads;    /* same layout as params */
    float* moments;  /* m then v, each the layout of params (Adam only, zero for SGD) */
    float* next;     /* update scratch: new params | new m | new v, committed only if finite */
    float* tensors[NUM_PARAM_TENSORS];
    float* grad_tensors[NUM_PARAM_TENSORS];

    float* pos;  /* (L, d) fixed sinusoidal positions */

    /* activations of the last sequence run forward (one block, each sized for L rows) */
    float* acts;
    float *X, *Q, *K, *Vv, *scores, *weights, *att, *h, *logits, *probs;
    /* backward scratch (one block) */
    float* back;
    float *dX, *dQ, *dK, *dVv, *dscores, *dh, *dlogits;
    int* inputs;   /* (L) */
    int* targets;  /* (L) */
    int last_n;    /* rows of the activations, 0 before any forward */
    /* a batch's loss and gradients taken in ranges of sentences (qkv_model_loss_and_grad_range):
       the next sentence due (-1: none under way) and the cross-entropy summed so far */
    int part_next;
    double part_sum;
};

/* ---- layers ---- */

/* logits (n, V) = h (n, d) . Wout (d, V) + bout (V) */
static void output_forward(float* logits, const float* h, const float* wout, const float* bout,
                           int n, int d, int V) {
    matmul_forward(logits, h, wout, n, d, V);
    bias_forward(logits, bout, n, V);
}

/* reverses logits = h.Wout + bout:  dh += dlogits.Wout^T, dWout += h^T.dlogits, dbout += sum_t */
static void output_backward(float* dh, float* dwout, float* dbout, const float* dlogits,
                            const float* h, const float* wout, int n, int d, int V) {
    matmul_backward(dh, dwout, dlogits, h, wout, n, d, V);
    bias_backward(dbout, dlogits, n, V);
}

/* ---- the whole model ---- */

/* QKV_OK, or QKV_ERR_DIVERGED when the parameters have grown so large that attention overflows */
static int model_forward(qkv_model* m, const int* tokens, int n) {
    int d = m->d, V = m->V;
    embedding_forward(m->X, tokens, m->tensors[0], m->pos, 1, n, d);
    matmul_forward(m->Q, m->X, m->tensors[1], n, d, d);   /* (n, d) x (d, d) */
    matmul_forward(m->K, m->X, m->tensors[2], n, d, d);
    matmul_forward(m->Vv, m->X, m->tensors[3], n, d, d);
    m->last_n = 0;
    if (attention_forward_unchecked(m->scores, m->weights, m->att, m->Q, m->K, m->Vv, n, n, d, d,
                                    m->scale, 1))
        return QKV_ERR_DIVERGED;
    for (size_t i = 0; i < (size_t)n * d; i++) m->h[i] = m->X[i] + m->att[i];  /* residual */
    output_forward(m->logits, m->h, m->tensors[4], m->tensors[5], n, d, V);
    /* logits are finite or the loss check reports divergence; a row always has its max entry */
    if (softmax_rows_forward(m->probs, m->logits, n, V)) return QKV_ERR_DIVERGED;
    m->last_n = n;
    return QKV_OK;
}

/* backward of the sequence model_forward just ran; accumulates into m->grads */
static void model_backward(qkv_model* m, const int* tokens, const int* targets, int n,
                           float weight) {
    int d = m->d, V = m->V;
    float** g = m->grad_tensors;
    size_t nd = (size_t)n * d;
    /* loss = weight * sum -log probs[target] */
    crossentropy_backward(m->dlogits, m->probs, targets, n, V, weight);
    /* logits = h.Wout + bout */
    memset(m->dh, 0, nd * sizeof(float));
    output_backward(m->dh, g[4], g[5], m->dlogits, m->h, m->tensors[4], n, d, V);
    /* h = X + att: the residual hands dh to both */
    memcpy(m->dX, m->dh, nd * sizeof(float));
    /* att = attention(Q, K, Vv); dh is d att; dQ, dK, dVv written */
    attention_backward_unchecked(m->dQ, m->dK, m->dVv, m->dscores, m->dh, m->Q, m->K, m->Vv,
                                 m->weights, n, n, d, d, m->scale, 1, 0);
    /* Q = X.Wq, K = X.Wk, Vv = X.Wv */
    matmul_backward(m->dX, g[1], m->dQ, m->X, m->tensors[1], n, d, d);
    matmul_backward(m->dX, g[2], m->dK, m->X, m->tensors[2], n, d, d);
    matmul_backward(m->dX, g[3], m->dVv, m->X, m->tensors[3], n, d, d);
    /* X = wte[tokens] + pos */
    embedding_backward(g[0], NULL, m->dX, tokens, 1, n, d);
}

/* ---- create / destroy ---- */

int qkv_model_create(qkv_model** out, int vocab, int dim, int max_len, uint32_t seed) {
    if (!out) return QKV_ERR_NULL;
    *out = NULL;
    if (vocab < 2 || dim <= 0 || max_len <= 0) return QKV_ERR_SIZE;
    if (!qkv_elements(vocab, dim) || !qkv_elements(max_len, vocab) ||
        !qkv_elements(max_len, max_len) || !qkv_elements(max_len, dim) || !qkv_elements(dim, dim))
        return QKV_ERR_SIZE;
    int V = vocab, d = dim, L = max_len;

    size_t sizes[NUM_PARAM_TENSORS] = {
        (size_t)V * d, (size_t)d * d, (size_t)d * d, (size_t)d * d, (size_t)d * V, (size_t)V,
    };
    size_t num_params = 0;
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) num_params += sizes[i];
    size_t Ld = (size_t)L * d, LL = (size_t)L * L, LV = (size_t)L * V;
    size_t act_sizes[NUM_ACTIVATIONS] = { Ld, Ld, Ld, Ld, LL, LL, Ld, Ld, LV, LV };
    size_t num_acts = 0;
    for (int i = 0; i < NUM_ACTIVATIONS; i++) num_acts += act_sizes[i];
    size_t num_back = 5 * Ld + LL + LV;  /* dX dQ dK dVv dh | dscores | dlogits */
    /* each term is <= 2^26 (checked above), so none of these sums wraps a 32-bit size_t */
    if (num_params > QKV_MAX_ELEMENTS || num_acts > QKV_MAX_ELEMENTS || num_back > QKV_MAX_ELEMENTS)
        return QKV_ERR_SIZE;

    qkv_model* m = calloc(1, sizeof(qkv_model));
    if (!m) return QKV_ERR_ALLOC;
    m->V = V; m->d = d; m->L = L;
    m->scale = sqrtf((float)d);
    m->num_params = num_params;
    memcpy(m->param_sizes, sizes, sizeof(sizes));
    m->params = malloc(num_params * sizeof(float));
    m->grads = calloc(num_params, sizeof(float));
    m->moments = calloc(2 * num_params, sizeof(float));
    m->next = malloc(3 * num_params * sizeof(float));
    m->pos = malloc(Ld * sizeof(float));
    m->acts = calloc(num_acts, sizeof(float));
    m->back = calloc(num_back, sizeof(float));
    m->inputs = malloc((size_t)L * sizeof(int));
    m->targets = malloc((size_t)L * sizeof(int));
    if (!m->params || !m->grads || !m->moments || !m->next || !m->pos || !m->acts || !m->back ||
        !m->inputs || !m->targets) {
        qkv_model_destroy(m);
        return QKV_ERR_ALLOC;
    }
    float* p = m->params;
    float* g = m->grads;
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) {
        m->tensors[i] = p; p += sizes[i];
        m->grad_tensors[i] = g; g += sizes[i];
    }
    float** slots[NUM_ACTIVATIONS] = { &m->X, &m->Q, &m->K, &m->Vv, &m->scores, &m->weights,
                                       &m->att, &m->h, &m->logits, &m->probs };
    float* a = m->acts;
    for (int i = 0; i < NUM_ACTIVATIONS; i++) { *slots[i] = a; a += act_sizes[i]; }
    float* b = m->back;
    m->dX = b; b += Ld;
    m->dQ = b; b += Ld;
    m->dK = b; b += Ld;
    m->dVv = b; b += Ld;
    m->dh = b; b += Ld;
    m->dscores = b; b += LL;
    m->dlogits = b;

    /* initialisation, in this order from one numpy-compatible stream:
     *   wte ~ 0.1 N(0,1): small, so that what training writes dominates the random start
     *   Wq, Wk, Wv ~ N(0,1)/sqrt(d): unit-variance projections of unit-variance inputs
     *   Wout ~ 0.1 N(0,1)/sqrt(d), bout = 0: near-uniform first predictions (loss ~ ln V) */
    qkv_rng_seed(&m->rng, seed);
    float inits[NUM_PARAM_TENSORS] = { 0.1f, 1.0f / sqrtf((float)d), 1.0f / sqrtf((float)d),
                                       1.0f / sqrtf((float)d), 0.1f / sqrtf((float)d), 0.0f };
    for (int i = 0; i < NUM_PARAM_TENSORS; i++) {
        float* tensor = m->tensors[i];
        if (inits[i] == 0.0f) { memset(tensor, 0, sizes[i] * sizeof(float)); continue; }
        for (size_t j = 0; j < sizes[i]; j++) tensor[j] = inits[i] * (float)qkv_rng_gauss(&m->rng);
    }
    positional_encoding_forward(m->pos, L, d, 10000.0);  /* positions.c, shared with the API */
    m->optimizer = QKV_OPTIMIZER_SGD;
    m->lr = 0.1f; m->beta1 = 0.9f; m->beta2 = 0.999f; m->eps = 1e-8f;
    m->last_loss = 0.0;
    m->part_next = -1;
    m->loss_limit = QKV_DIVERGENCE_FACTOR * log((double)V);
    *out = m;
    return QKV_OK;
}

void qkv_model_destroy(qkv_model* m) {
    if (!m) return;
    free(m->params); free(m->grads); free(m->moments); free(m->next); free(m->pos);
    free(m->acts); free(m->back); free(m->inputs); free(m->targets);
    free(m);
}

int qkv_model_set_optimizer(qkv_model* m, int optimizer, float lr, float beta1, float beta2,
                            float eps) {
    if (!m) return QKV_ERR_NULL;
    if (optimizer != QKV_OPTIMIZER_SGD && optimizer != QKV_OPTIMIZER_ADAM) return QKV_ERR_ARGUMENT;
    if (!isfinite(lr) || !(lr > 0.0f)) return QKV_ERR_ARGUMENT;
    if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f)) return QKV_ERR_ARGUMENT;
    if (!isfinite(eps) || !(eps > 0.0f)) return QKV_ERR_ARGUMENT;
    m->optimizer = optimizer;
    m->lr = lr; m->beta1 = beta1; m->beta2 = beta2; m->eps = eps;
    return QKV_OK;
}

/* ---- tensors for JavaScript ---- */

int qkv_model_tensor(qkv_model* m, int group, int which, float** data, int* rows, int* cols) {
    if (!m || !data || !rows || !cols) return QKV_ERR_NULL;
    int V = m->V, d = m->d, n = m->last_n;
    if (group == QKV_MODEL_PARAMS || group == QKV_MODEL_GRADS) {
        static const int shape_of[NUM_PARAM_TENSORS][2] = {
            { 'V', 'd' }, { 'd', 'd' }, { 'd', 'd' }, { 'd', 'd' }, { 'd', 'V' }, { 1, 'V' } };
        if (which < 0 || which >= NUM_PARAM_TENSORS) return QKV_ERR_ARGUMENT;
        *data = (group == QKV_MODEL_PARAMS ? m->tensors : m->grad_tensors)[which];
        int r = shape_of[which][0], c = shape_of[which][1];
        *rows = r == 'V' ? V : r == 'd' ? d : 1;
        *cols = c == 'V' ? V : d;
        return QKV_OK;
    }
    if (group == QKV_MODEL_POSITIONS) {
        *data = m->pos; *rows = m->L; *cols = d;
        return QKV_OK;
    }
    if (group == QKV_MODEL_ACTIVATIONS) {
        if (which < 0 || which >= NUM_ACTIVATIONS) return QKV_ERR_ARGUMENT;
        if (n == 0) return QKV_ERR_ARGUMENT;  /* nothing has run forward yet */
        float* list[NUM_ACTIVATIONS] = { m->X, m->Q, m->K, m->Vv, m->scores, m->weights,
                                         m->att, m->h, m->logits, m->probs };
        int widths[NUM_ACTIVATIONS] = { d, d, d, d, n, n, d, d, V, V };
        *data = list[which]; *rows = n; *cols = widths[which];
        return QKV_OK;
    }
    return QKV_ERR_ARGUMENT;
}

int qkv_model_num_params(const qkv_model* m) {
    return m ? (int)m->num_params : 0;
}

/* ---- training ---- */

static int check_tokens(const qkv_model* m, const int* tokens, int n) {
    for (int t = 0; t < n; t++)
        if (tokens[t] < 0 || tokens[t] >= m->V) return QKV_ERR_TOKEN;
    return QKV_OK;
}

int qkv_model_forward(qkv_model* m, const int* tokens, int n) {
    if (!m || !tokens) return QKV_ERR_NULL;
    if (n <= 0 || n > m->L) return QKV_ERR_SIZE;
    int status = check_tokens(m, tokens, n);
    if (status) return status;
    if (qkv_check_finite(m->params, m->num_params)) return QKV_ERR_NONFINITE;
    if (model_forward(m, tokens, n)) return QKV_ERR_DIVERGED;
    if (qkv_check_finite(m->probs, (size_t)n * m->V)) return QKV_ERR_DIVERGED;
    return QKV_OK;
}

int qkv_model_loss_and_grad(qkv_model* m, const int* tokens, const int* lengths, int count,
                            double* loss) {
    return qkv_model_loss_and_grad_range(m, tokens, lengths, count, 0, count, loss);
}

int qkv_model_loss_and_grad_range(qkv_model* m, const int* tokens, const int* lengths, int count,
                                  int from, int to, double* loss) {
    if (!m || !tokens || !lengths || !loss) return QKV_ERR_NULL;
    *loss = NAN;
    if (count <= 0) return QKV_ERR_SIZE;
    /* a range inside the batch, starting where the last one stopped (or at the first sentence) */
    if (from < 0 || to <= from || to > count || (from > 0 && from != m->part_next)) return QKV_ERR_ARGUMENT;
    /* 64-bit sums with the limit checked as they grow: `long` is 32 bits on wasm32, where
       741,919 sentences of 5,789 tokens once wrapped to 1,795 and let unchecked ids through */
    int64_t total = 0, before = 0;
    for (int s = 0; s < count; s++) {
        if (lengths[s] <= 0 || lengths[s] > m->L - 1) return QKV_ERR_SIZE;  /* + <s> <= L */
        if (s == from) before = total;
        total += lengths[s];
        if (total > (int64_t)QKV_MAX_ELEMENTS) return QKV_ERR_SIZE;
    }
    int64_t predicted = total + count;  /* each sentence also predicts its closing <s> */
    int status = check_tokens(m, tokens, (int)total);
    if (status) return status;

    /* update refuses these gradients until the whole batch has succeeded (part_next below while
       ranges are left, last_loss NaN after a failure); until then last_loss stays the last
       batch's, so that a state saved between the ranges is the state before the batch */
    if (from == 0) {
        memset(m->grads, 0, m->num_params * sizeof(float));
        m->part_sum = 0.0;
    }
    m->part_next = -1;   /* a failure below leaves no range to go on from */
    float weight = (float)(1.0 / (double)predicted);  /* loss is the mean over predicted tokens */
    double sum = m->part_sum;
    const int* sentence = tokens + before;
    for (int s = from; s < to; s++) {
        int n = lengths[s] + 1;
        m->inputs[0] = 0;  /* <s> */
        for (int t = 0; t < lengths[s]; t++) {
            m->inputs[t + 1] = sentence[t];
            m->targets[t] = sentence[t];
        }
        m->targets[n - 1] = 0;
        sentence += lengths[s];
        if (model_forward(m, m->inputs, n)) {
            *loss = NAN;
            m->last_loss = NAN;
            return QKV_ERR_DIVERGED;
        }
        sum += crossentropy_forward(m->probs, m->logits, m->targets, n, m->V);
        if (!isfinite(sum)) {
            *loss = sum;
            m->last_loss = NAN;
            return QKV_ERR_DIVERGED;
        }
        model_backward(m, m->inputs, m->targets, n, weight);
    }
    m->part_sum = sum;
    if (to < count) {
        m->part_next = to;
        return QKV_OK;
    }
    m->last_loss = NAN;
    *loss = sum / (double)predicted;
    if (!isfinite(*loss) || qkv_check_finite(m->grads, m->num_params)) return QKV_ERR_DIVERGED;
    m->last_loss = *loss;
    return QKV_OK;
}

int qkv_model_update(qkv_model* m, int* updated_rows, int* updated_count) {
    if (!m || !updated_rows || !updated_count) return QKV_ERR_NULL;
    *updated_count = 0;
    size_t N = m->num_params;
    /* divergence, caught early: gradients of a loss beyond QKV_DIVERGENCE_FACTOR * ln V (or of a
       failed loss_and_grad) are not applied, so the parameters stay those of the last good step */
    if (!(m->last_loss <= m->loss_limit) || m->part_next >= 0) return QKV_ERR_DIVERGED;  /* or a batch half done */
    if (qkv_check_finite(m->grads, N)) return QKV_ERR_DIVERGED;
    float* next_p = m->next;
    float* next_m = m->next + N;
    float* next_v = m->next + 2 * N;
    if (m->optimizer == QKV_OPTIMIZER_SGD) {
        /* p -= lr * g: a zero gradient leaves p bit-identical */
        for (size_t i = 0; i < N; i++) next_p[i] = m->params[i] - m->lr * m->grads[i];
    } else {
        adamw_update(next_p, next_m, next_v, m->params, m->grads, m->moments, m->moments + N, NULL, N,
                     m->lr, m->beta1, m->beta2, m->eps, 0.0f, 1.0f, m->t + 1);
        if (qkv_check_finite(next_m, 2 * N)) return QKV_ERR_DIVERGED;
    }
    if (qkv_check_finite(next_p, N)) return QKV_ERR_DIVERGED;
    /* the embedding rows that changed, compared bit for bit: exact for either optimizer */
    int d = m->d, count = 0;
    for (int r = 0; r < m->V; r++) {
        if (memcmp(next_p + (size_t)r * d, m->params + (size_t)r * d, (size_t)d * sizeof(float)))
            updated_rows[count++] = r;
    }
    *updated_count = count;
    memcpy(m->params, next_p, N * sizeof(float));
    if (m->optimizer == QKV_OPTIMIZER_ADAM) {
        memcpy(m->moments, next_m, 2 * N * sizeof(float));
        m->t++;
    }
    return QKV_OK;
}

int qkv_model_shuffle(qkv_model* m, int* order, int count) {
    if (!m || !order) return QKV_ERR_NULL;
    if (count <= 0) return QKV_ERR_SIZE;
    /* Fisher-Yates from the end, j uniform in [0, i] from the model's stream */
    for (int i = count - 1; i > 0; i--) {
        int j = (int)(qkv_rng_double(&m->rng) * (double)(i + 1));
        int swap = order[i]; order[i] = order[j]; order[j] = swap;
    }
    return QKV_OK;
}

/* the saved state: header (V, d, t, 0) | last_loss | rng | params (N) | moments (2N) */
typedef struct {
    int V, d, t, reserved;
    double last_loss;
    qkv_rng rng;
} state_header;

static size_t state_size(const qkv_model* m) {
    return sizeof(state_header) + 3 * m->num_params * sizeof(float);
}

int qkv_model_state_bytes(const qkv_model* m, int* bytes) {
    if (!m || !bytes) return QKV_ERR_NULL;
    *bytes = (int)state_size(m);
    return QKV_OK;
}

int qkv_model_save_state(const qkv_model* m, void* out, int bytes) {
    if (!m || !out) return QKV_ERR_NULL;
    if (bytes < 0 || (size_t)bytes != state_size(m)) return QKV_ERR_SIZE;
    state_header head = { m->V, m->d, m->t, 0, m->last_loss, m->rng };
    unsigned char* at = out;
    memcpy(at, &head, sizeof head);
    memcpy(at + sizeof head, m->params, m->num_params * sizeof(float));
    memcpy(at + sizeof head + m->num_params * sizeof(float), m->moments, 2 * m->num_params * sizeof(float));
    return QKV_OK;
}

int qkv_model_load_state(qkv_model* m, const void* in, int bytes) {
    if (!m || !in) return QKV_ERR_NULL;
    if (bytes < 0 || (size_t)bytes != state_size(m)) return QKV_ERR_SIZE;
    state_header head;
    const unsigned char* at = in;
    memcpy(&head, at, sizeof head);
    if (head.V != m->V || head.d != m->d) return QKV_ERR_SHAPE;
    if (head.t < 0 || head.rng.index < 0 || head.rng.index > 624) return QKV_ERR_ARGUMENT;
    const float* params = (const float*)(at + sizeof head);
    int status = qkv_check_finite(params, 3 * m->num_params);   /* params and moments */
    if (status) return status;
    memcpy(m->params, params, m->num_params * sizeof(float));
    memcpy(m->moments, params + m->num_params, 2 * m->num_params * sizeof(float));
    m->t = head.t;
    /* a batch taken in parts does not go on across a load, and its half-made gradients are not
       for update to apply */
    m->last_loss = m->part_next >= 0 ? NAN : head.last_loss;
    m->part_next = -1;
    m->rng = head.rng;
    return QKV_OK;
}

int qkv_model_sentence_losses(qkv_model* m, const int* tokens, int length, double* losses,
                              double* loss) {
    if (!m || !tokens || !losses || !loss) return QKV_ERR_NULL;
    *loss = NAN;
    if (length <= 0 || length > m->L - 1) return QKV_ERR_SIZE;  /* + <s> <= L */
    /* forward + backward of this one sentence: its gradients, and its activations left in place */
    int status = qkv_model_loss_and_grad(m, tokens, &length, 1, loss);
    if (status) return status;
    /* loss_and_grad's last (only) forward was this sentence: inputs <s> w1..wm, targets w1..wm <s> */
    for (int t = 0; t <= length; t++)  /* the terms the loss summed, each computed the same way */
        losses[t] = crossentropy_forward(m->probs + (size_t)t * m->V, m->logits + (size_t)t * m->V,
                                         m->targets + t, 1, m->V);
    return QKV_OK;
}
