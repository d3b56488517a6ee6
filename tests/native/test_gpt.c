/*
 * test_gpt.c: LayerNorm, GELU, the Transformer block and the GPT of gpt.c under ASan/UBSan:
 * every backward against central finite differences of its forward (float32 forward, the
 * objective summed in double), every refusal status, generation with and without the KV cache
 * token for token, determinism from the seed, and (with the argument --checksum) the FNV-1a
 * hash of the parameters after a few steps on a fixed text, which tests/gpt.test.js compares
 * with the WebAssembly builds'.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define PI 3.14159265358979323846
#include "qkv.h"

static unsigned lcg_state = 12345u;
static float urand(void) {  /* uniform in [-1, 1) */
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float)((lcg_state >> 8) / 8388608.0 - 1.0);
}

/* sum_i w[i] out[i] in double */
static double weighted(const float* out, const float* w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)w[i] * out[i];
    return s;
}

/* worst |analytic - numeric| / (abs + rel |numeric|) over a tensor; <= 1 passes */
static double worst_ratio = 0;
static void compare(double analytic, double numeric, double abs_tol, double rel_tol) {
    double r = fabs(analytic - numeric) / (abs_tol + rel_tol * fabs(numeric));
    if (r > worst_ratio) worst_ratio = r;
}

static void test_layernorm(void) {
    enum { N = 3, C = 7 };
    float x[N * C], w[C], b[C], out[N * C], mean[N], rstd[N], probe[N * C];
    for (int i = 0; i < N * C; i++) { x[i] = 2 * urand() + 0.5f; probe[i] = urand(); }
    for (int c = 0; c < C; c++) { w[c] = 1 + 0.5f * urand(); b[c] = 0.3f * urand(); }
    CHECK_EQ_INT(qkv_layernorm_forward(NULL, mean, rstd, x, w, b, N, C, 1e-5f), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, 0, C, 1e-5f), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 0.0f), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, NAN), QKV_ERR_ARGUMENT);
    float bad = x[4];
    x[4] = NAN;
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f), QKV_ERR_NONFINITE);
    x[4] = bad;
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f), QKV_OK);
    /* each row: mean 0, biased variance 1 before the affine part (w = 1, b = 0 here) */
    float ones[C], zeros[C];
    for (int c = 0; c < C; c++) { ones[c] = 1; zeros[c] = 0; }
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, ones, zeros, N, C, 1e-5f), QKV_OK);
    for (int i = 0; i < N; i++) {
        double m = 0, v = 0;
        for (int c = 0; c < C; c++) m += out[i * C + c];
        for (int c = 0; c < C; c++) v += (out[i * C + c] - m / C) * (out[i * C + c] - m / C);
        CHECK_NEAR(m / C, 0.0, 1e-6);
        CHECK_NEAR(v / C, 1.0, 1e-4);  /* eps 1e-5 over a variance near 1 */
    }
    float dx[N * C] = { 0 }, dw[C] = { 0 }, db[C] = { 0 };
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f), QKV_OK);
    CHECK_EQ_INT(qkv_layernorm_backward(dx, dw, db, probe, x, w, mean, rstd, N, C), QKV_OK);
    worst_ratio = 0;
    const float h = 1e-2f;
    float* params[3] = { x, w, b };
    float* grads[3] = { dx, dw, db };
    int counts[3] = { N * C, C, C };
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < counts[t]; i++) {
            float keep = params[t][i];
            params[t][i] = keep + h;
            qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f);
            double up = weighted(out, probe, N * C);
            params[t][i] = keep - h;
            qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f);
            double down = weighted(out, probe, N * C);
            params[t][i] = keep;
            /* float32 forward: about 1e-6 of noise over 2h = 2e-2; h^2 terms about 1e-4 */
            compare(grads[t][i], (up - down) / (2 * h), 2e-3, 1e-2);
        }
    }
    printf("layernorm backward vs finite differences: worst %.2f of the tolerance\n", worst_ratio);
    CHECK(worst_ratio <= 1.0);
}

/* LayerNorm forward gives the bits of its definition with each row's sums in index order, in
   float32 (layernorm.c runs rows in groups; 7 rows leave a partial group) */
static void test_layernorm_in_order(void) {
    enum { N = 7, C = 13 };
    float x[N * C], w[C], b[C], out[N * C], mean[N], rstd[N];
    for (int i = 0; i < N * C; i++) x[i] = 3 * urand() - 1.0f;
    for (int c = 0; c < C; c++) { w[c] = 1 + 0.5f * urand(); b[c] = 0.3f * urand(); }
    CHECK_EQ_INT(qkv_layernorm_forward(out, mean, rstd, x, w, b, N, C, 1e-5f), QKV_OK);
    int same = 1;
    for (int i = 0; i < N; i++) {
        const float* r = x + i * C;
        float m = 0.0f, v = 0.0f;
        for (int c = 0; c < C; c++) m += r[c];
        m = m / (float)C;
        for (int c = 0; c < C; c++) v += (r[c] - m) * (r[c] - m);
        float s = 1.0f / sqrtf(v / (float)C + 1e-5f);
        same &= memcmp(&m, &mean[i], sizeof m) == 0 && memcmp(&s, &rstd[i], sizeof s) == 0;
        for (int c = 0; c < C; c++) {
            float o = (r[c] - m) * s * w[c] + b[c];
            same &= memcmp(&o, &out[i * C + c], sizeof o) == 0;
        }
    }
    CHECK(same);
}

static void test_gelu(void) {
    enum { N = 40 };
    float x[N], out[N], dx[N] = { 0 }, probe[N];
    for (int i = 0; i < N; i++) { x[i] = 4 * urand(); probe[i] = urand(); }
    CHECK_EQ_INT(qkv_gelu_forward(out, x, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gelu_forward(NULL, x, N), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_gelu_forward(out, x, N), QKV_OK);
    /* against the formula with libm's tanh in double */
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double xi = x[i];
        double e = 0.5 * xi * (1 + tanh(sqrt(2 / PI) * (xi + 0.044715 * xi * xi * xi)));
        if (fabs(out[i] - e) > worst) worst = fabs(out[i] - e);
    }
    printf("gelu vs libm tanh in double: max difference %.2g\n", worst);
    CHECK(worst < 1e-6);
    CHECK_EQ_INT(qkv_gelu_backward(dx, x, probe, N), QKV_OK);
    worst_ratio = 0;
    for (int i = 0; i < N; i++) {
        double xi = x[i], h = 1e-4;
        double f = 0.5 * (xi + h) * (1 + tanh(sqrt(2 / PI) * ((xi + h) + 0.044715 * pow(xi + h, 3))));
        double g = 0.5 * (xi - h) * (1 + tanh(sqrt(2 / PI) * ((xi - h) + 0.044715 * pow(xi - h, 3))));
        compare(dx[i], probe[i] * (f - g) / (2 * h), 1e-5, 1e-4);  /* float32 derivative formula */
    }
    printf("gelu backward vs finite differences of the formula in double: worst %.2f of the tolerance\n", worst_ratio);
    CHECK(worst_ratio <= 1.0);
    float huge[1] = { 1e30f };
    CHECK_EQ_INT(qkv_gelu_forward(out, huge, 1), QKV_OK);  /* gelu(x) = x far right */
    CHECK(out[0] == 1e30f);
}

static void test_block_refusals(void) {
    int po[QKV_BLOCK_PARAMS + 1], ao[QKV_BLOCK_ACTS + 1];
    CHECK_EQ_INT(qkv_transformer_block_layout(po, ao, 4, 6, 24, 4), QKV_ERR_SHAPE);
    CHECK_EQ_INT(qkv_transformer_block_layout(po, ao, 0, 8, 32, 2), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_transformer_block_layout(po, ao, 4, 8, 32, 9), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_transformer_block_layout(NULL, ao, 4, 8, 32, 2), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_transformer_block_layout(po, ao, 4, 8, 32, 2), QKV_OK);
    CHECK_EQ_INT(po[QKV_BLOCK_PARAMS], 12 * 8 * 8 + 13 * 8);  /* 12 C^2 + 13 C at h = 4C */
    float* params = calloc((size_t)po[QKV_BLOCK_PARAMS], sizeof(float));
    float* acts = calloc((size_t)ao[QKV_BLOCK_ACTS], sizeof(float));
    float x[4 * 8];
    for (int i = 0; i < 32; i++) x[i] = urand();
    CHECK_EQ_INT(qkv_transformer_block_forward(acts, params, x, 4, 8, 32, 2, 1, 0.0f), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_transformer_block_forward(acts, params, x, 4, 8, 32, 2, 1, 1e-5f), QKV_OK);
    /* zero weights: attention and MLP add their biases only (0), so out = x */
    for (int i = 0; i < 32; i++) CHECK(acts[ao[QKV_BLOCK_ACT_OUT] + i] == x[i]);
    params[3] = INFINITY;
    CHECK_EQ_INT(qkv_transformer_block_forward(acts, params, x, 4, 8, 32, 2, 1, 1e-5f), QKV_ERR_NONFINITE);
    free(params);
    free(acts);
}

/* tiny config: V 5, L 1 (or 2), H 2, C 8, T 4, B 2 */
static double gpt_loss(qkv_gpt* g, const int* in, const int* tg, int B, int n) {
    double loss;
    qkv_gpt_loss_and_grad(g, in, tg, B, n, &loss);
    return loss;
}

/* B windows of n <= T tokens in a GPT of context T: n < T leaves part of every buffer shaped for
   B x T unused (each layer's saved tensors are laid out for B x T: forward and backward must agree
   on where); more than 40 rows (B n) run the output layer's backward in blocks of rows (gpt.c,
   OUT_ROWS), the tied table's gradient added to block by block */
static void test_gpt_gradients(int layers, int B, int T, int n) {
    enum { V = 5, H = 2, C = 8 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, layers, H, C, T, B, 7), QKV_OK);
    float *p, *dp;
    int rows, cols;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_GRADS, -1, 0, &dp, &rows, &cols), QKV_OK);
    int N = rows;
    CHECK_EQ_INT(N, qkv_gpt_num_params(g));
    /* larger weights than the 0.02 of the initialisation, so that every path carries signal */
    for (int i = 0; i < N; i++) p[i] += 0.3f * urand();
    static const int in8[8] = { 0, 1, 2, 3, 4, 3, 2, 1 }, tg8[8] = { 1, 2, 3, 0, 3, 2, 1, 0 };
    int* in = malloc((size_t)B * T * sizeof(int));
    int* tg = malloc((size_t)B * T * sizeof(int));
    for (int i = 0; i < B * T; i++) {
        in[i] = i < 8 ? in8[i] : (7 * i + 3) % V;
        tg[i] = i < 8 ? tg8[i] : (5 * i + 1) % V;
    }
    double loss;
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, B, n, &loss), QKV_OK);
    float* analytic = malloc((size_t)N * sizeof(float));
    memcpy(analytic, dp, (size_t)N * sizeof(float));
    worst_ratio = 0;
    int zero_rows = 0;
    for (int i = 0; i < N; i++) {
        float keep = p[i];
        const float h = 1e-2f;
        p[i] = keep + h;
        double up = gpt_loss(g, in, tg, B, n);
        p[i] = keep - h;
        double down = gpt_loss(g, in, tg, B, n);
        p[i] = keep;
        /* float32 forward: loss noise about 1e-6 over 2h; h^2 f''' terms of a few 1e-5 */
        compare(analytic[i], (up - down) / (2 * h), 3e-4, 2e-2);
    }
    /* the tied table: every row of wte has a gradient, token 4 only through the output layer
       in the second window... and every token appears at least as a candidate */
    float* dwte;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_GRADS, layers, 0, &dwte, &rows, &cols), QKV_OK);
    for (int r = 0; r < V; r++) {
        double s = 0;
        for (int c = 0; c < C; c++) s += fabs(analytic[r * C + c]);
        if (s == 0) zero_rows++;
    }
    CHECK_EQ_INT(zero_rows, 0);
    printf("gpt (L=%d, %d windows of %d) gradient vs finite differences over %d parameters: worst %.2f of the tolerance\n",
           layers, B, n, N, worst_ratio);
    CHECK(worst_ratio <= 1.0);
    free(analytic);
    free(in);
    free(tg);
    qkv_gpt_destroy(g);
}

/* a step whose logits overflow in one row diverges: the softmax stops at that row, and its loss
   and gradient are not taken from what the rows after it held before (the last step's values:
   it used to return QKV_OK with the last step's loss) */
static void test_gpt_overflowing_logits_diverge(void) {
    enum { V = 5, C = 4, T = 4 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 1, 2, C, T, 1, 3), QKV_OK);
    int in[T] = { 0, 1, 2, 3 }, tg[T] = { 1, 2, 3, 4 }, rows, cols;
    double loss;
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, 1, T, &loss), QKV_OK);
    float *wte, *lnfw, *lnfb;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, 1, QKV_GPT_WTE, &wte, &rows, &cols), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, 1, QKV_GPT_LNFW, &lnfw, &rows, &cols), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, 1, QKV_GPT_LNFB, &lnfb, &rows, &cols), QKV_OK);
    for (int c = 0; c < C; c++) { lnfw[c] = 0.0f; lnfb[c] = 1e30f; wte[1 * C + c] = 1e10f; }
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, 1, T, &loss), QKV_ERR_DIVERGED);
    CHECK(isnan(loss));
    float* p;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, 1, QKV_GPT_ACT_PROBS, &p, &rows, &cols), QKV_ERR_ARGUMENT);
    qkv_gpt_destroy(g);
}

/* every buffer of the float block starts on a 64-byte line, whatever the shapes (sizes here are
   not multiples of 16 floats): the step's vector loads would otherwise straddle lines */
static void test_gpt_buffers_aligned(void) {
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, 7, 1, 2, 6, 3, 2, 5), QKV_OK);
    int in[3] = { 0, 1, 2 }, rows, cols;
    CHECK_EQ_INT(qkv_gpt_forward(g, in, 3), QKV_OK);
    float* p;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, QKV_GPT_LAYER_ALL, 0, &p, &rows, &cols), QKV_OK);
    CHECK((uintptr_t)p % 64 == 0);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_GRADS, QKV_GPT_LAYER_ALL, 0, &p, &rows, &cols), QKV_OK);
    CHECK((uintptr_t)p % 64 == 0);
    for (int which = 0; which < QKV_GPT_OUTSIDE_ACTS; which++) {
        CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, 1, which, &p, &rows, &cols), QKV_OK);
        CHECK((uintptr_t)p % 64 == 0);
    }
    qkv_gpt_destroy(g);
}

/* the training step leaves the probabilities unwritten (only its loss reads them, one per row):
   read through qkv_gpt_tensor after it, they are computed from its logits, and are the bits a
   forward without targets writes; its loss is -log of them at the targets */
static void test_gpt_probs_after_training(void) {
    enum { V = 7, H = 2, C = 8, T = 4, B = 2 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 1, H, C, T, B, 11), QKV_OK);
    float *p, *probs;
    int rows, cols;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols), QKV_OK);
    for (int i = 0; i < rows; i++) p[i] += 0.5f * urand();
    int in[B * T] = { 0, 1, 2, 3, 4, 5, 6, 1 }, tg[B * T] = { 1, 2, 3, 6, 5, 4, 1, 0 };
    double loss;
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, B, T, &loss), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, 1, QKV_GPT_ACT_PROBS, &probs, &rows, &cols), QKV_OK);
    CHECK_EQ_INT(rows, B * T);
    CHECK_EQ_INT(cols, V);
    float after_step[B * T * V];
    memcpy(after_step, probs, sizeof after_step);
    double from_probs = 0.0;
    for (int i = 0; i < B * T; i++) from_probs -= log((double)after_step[i * V + tg[i]]);
    CHECK(fabs(from_probs / (B * T) - loss) <= 1e-12 * fabs(loss));
    /* each row a softmax */
    for (int i = 0; i < B * T; i++) {
        double s = 0.0;
        for (int j = 0; j < V; j++) s += after_step[i * V + j];
        CHECK(fabs(s - 1.0) < 1e-6);
    }
    /* a forward of the same windows, one at a time (B = 1), writes them: the same bits */
    for (int b = 0; b < B; b++) {
        CHECK_EQ_INT(qkv_gpt_forward(g, in + b * T, T), QKV_OK);
        CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, 1, QKV_GPT_ACT_PROBS, &probs, &rows, &cols), QKV_OK);
        CHECK(memcmp(probs, after_step + b * T * V, (size_t)T * V * sizeof(float)) == 0);
    }
    qkv_gpt_destroy(g);
}

/* qkv.h: the gradients are zeroed, then computed. A call that diverges before backward (the
   forward's logits overflow) leaves them all zero, the tied table's too (backward writes those
   rather than adding to zeros: they must not keep the last call's values) */
static void test_gpt_diverged_gradients(void) {
    enum { V = 5, C = 4, T = 4 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 1, 1, C, T, 1, 7), QKV_OK);
    int in[T] = { 0, 1, 2, 3 }, tg[T] = { 1, 2, 3, 4 };
    double loss;
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, 1, T, &loss), QKV_OK);
    float *p, *dp;
    int rows, cols;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_GRADS, -1, 0, &dp, &rows, &cols), QKV_OK);
    int nonzero = 0;
    for (int i = 0; i < V * C; i++) nonzero += dp[i] != 0.0f;
    CHECK(nonzero > 0);  /* the first call's table gradients, to be cleared */
    for (int i = 0; i < V * C; i++) p[i] = 3e38f;  /* finite, but the logits overflow */
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(g, in, tg, 1, T, &loss), QKV_ERR_DIVERGED);
    nonzero = 0;
    for (int i = 0; i < rows; i++) nonzero += dp[i] != 0.0f;
    CHECK_EQ_INT(nonzero, 0);
    qkv_gpt_destroy(g);
}

static void test_gpt_refusals(void) {
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, 5, 0, 2, 8, 4, 2, 0), QKV_ERR_SIZE);
    CHECK(g == NULL);
    CHECK_EQ_INT(qkv_gpt_create(&g, 5, 1, 3, 8, 4, 2, 0), QKV_ERR_SHAPE);
    CHECK_EQ_INT(qkv_gpt_create(&g, 1, 1, 2, 8, 4, 2, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_create(&g, 5, 1, 2, 8, QKV_GPT_MAX_CONTEXT + 1, 2, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_create(NULL, 5, 1, 2, 8, 4, 2, 0), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_gpt_create(&g, 5, 1, 2, 8, 4, 2, 0), QKV_OK);
    double loss, norm;
    CHECK_EQ_INT(qkv_gpt_step(g, &loss, &norm), QKV_ERR_ARGUMENT);  /* no data yet */
    int bad[5] = { 0, 1, 5, 2, 3 }, starts[1] = { 0 };
    CHECK_EQ_INT(qkv_gpt_set_data(g, bad, 5, starts, 1, bad, 5, starts, 1), QKV_ERR_TOKEN);
    int ok[5] = { 0, 1, 4, 2, 3 }, late[1] = { 1 };
    CHECK_EQ_INT(qkv_gpt_set_data(g, ok, 5, late, 1, ok, 5, starts, 1), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_set_data(g, ok, 4, starts, 1, ok, 5, starts, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_set_optimizer(g, 0.0f, 0.9f, 0.99f, 1e-8f, 0.01f, 1.0f, 0, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_set_optimizer(g, 1e-3f, 1.0f, 0.99f, 1e-8f, 0.01f, 1.0f, 0, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_set_optimizer(g, 1e-3f, 0.9f, 0.99f, 1e-8f, -1.0f, 1.0f, 0, 0), QKV_ERR_ARGUMENT);
    int tok[2] = { 0, 1 }, out[8], ids[8 * QKV_GPT_TOP], count;
    float probs[8 * QKV_GPT_TOP];
    CHECK_EQ_INT(qkv_gpt_generate(g, tok, 2, 2, -1.0f, 0, 1.0f, 0, 1, out, ids, probs, &count), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_generate(g, tok, 2, 2, 1.0f, 0, 2.0f, 0, 1, out, ids, probs, &count), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_generate(g, tok, 2, 3, 1.0f, 0, 1.0f, 0, 1, out, ids, probs, &count), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_forward(g, bad, 3), QKV_ERR_TOKEN);
    CHECK_EQ_INT(qkv_gpt_forward(g, tok, 5), QKV_ERR_SIZE);
    float* d;
    int r, c;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, 0, 0, &d, &r, &c), QKV_ERR_ARGUMENT);
    qkv_gpt_destroy(g);
}

/* qkv_gpt_create_inference: the same shape checks as qkv_gpt_create; given a trained GPT's
   weights, the same logits and the same generated tokens, bit for bit, from less memory; the
   training functions refused, no gradients */
static void test_gpt_inference(void) {
    enum { V = 9, L = 2, H = 2, C = 8, T = 6, B = 2 };
    qkv_gpt *g = NULL, *inf = NULL;
    CHECK_EQ_INT(qkv_gpt_create_inference(&inf, 5, 0, 2, 8, 4, 2), QKV_ERR_SIZE);
    CHECK(inf == NULL);
    CHECK_EQ_INT(qkv_gpt_create_inference(&inf, 5, 1, 3, 8, 4, 2), QKV_ERR_SHAPE);
    CHECK_EQ_INT(qkv_gpt_create_inference(NULL, 5, 1, 2, 8, 4, 2), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_gpt_create(&g, V, L, H, C, T, B, 5), QKV_OK);
    int stream[40], starts[8];
    for (int i = 0; i < 40; i++) stream[i] = (i * 7 + i / 5) % V;
    for (int i = 0; i < 8; i++) starts[i] = i * 4;
    CHECK_EQ_INT(qkv_gpt_set_data(g, stream, 40, starts, 8, stream, 40, starts, 8), QKV_OK);
    double loss, norm;
    for (int s = 0; s < 3; s++) CHECK_EQ_INT(qkv_gpt_step(g, &loss, &norm), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_create_inference(&inf, V, L, H, C, T, B), QKV_OK);
    float *pg, *pi;
    int rg, ri, c;
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, QKV_GPT_LAYER_ALL, 0, &pg, &rg, &c), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(inf, QKV_GPT_PARAMS, QKV_GPT_LAYER_ALL, 0, &pi, &ri, &c), QKV_OK);
    CHECK_EQ_INT(ri, rg);
    int zero = 0;
    for (int i = 0; i < ri; i++) zero += pi[i] == 0.0f;
    CHECK_EQ_INT(zero, ri);  /* parameters zero until written */
    memcpy(pi, pg, (size_t)rg * sizeof(float));
    double bytes_g, bytes_i;
    CHECK_EQ_INT(qkv_gpt_memory_bytes(g, &bytes_g), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_memory_bytes(inf, &bytes_i), QKV_OK);
    CHECK(bytes_i < bytes_g - 6.0 * rg * sizeof(float));  /* gradients, moments, an update's copies */
    int tok[5] = { 1, 2, 3, 4, 5 };
    float *lg, *li;
    int r, cc;
    CHECK_EQ_INT(qkv_gpt_forward(g, tok, 5), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, L, QKV_GPT_ACT_LOGITS, &lg, &r, &cc), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_forward(inf, tok, 5), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(inf, QKV_GPT_ACTIVATIONS, L, QKV_GPT_ACT_LOGITS, &li, &r, &cc), QKV_OK);
    CHECK(memcmp(lg, li, (size_t)5 * V * sizeof(float)) == 0);
    int out_g[6], out_i[6], ids[6 * QKV_GPT_TOP], count_g, count_i;
    float probs[6 * QKV_GPT_TOP];
    CHECK_EQ_INT(qkv_gpt_generate(g, tok, 2, 4, 0.8f, 0, 1.0f, 11, 1, out_g, ids, probs, &count_g), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_generate(inf, tok, 2, 4, 0.8f, 0, 1.0f, 11, 1, out_i, ids, probs, &count_i), QKV_OK);
    CHECK_EQ_INT(count_i, count_g);
    CHECK(memcmp(out_g, out_i, (size_t)count_g * sizeof(int)) == 0);
    /* a LoRA run on it as the base trains (its own training state; under the sanitizers, nothing
       of the base's missing state is touched) */
    qkv_gpt* lora = NULL;
    CHECK_EQ_INT(qkv_gpt_create_lora(&lora, inf, 2, 1 | 4, 2, 4.0f, 9), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_set_data(lora, stream, 40, starts, 8, stream, 40, starts, 8), QKV_OK);
    for (int s = 0; s < 2; s++) CHECK_EQ_INT(qkv_gpt_step(lora, &loss, &norm), QKV_OK);
    CHECK(isfinite(loss));
    qkv_gpt_destroy(lora);
    /* training refused, before a window is drawn */
    CHECK_EQ_INT(qkv_gpt_trainable_count(inf), 0);
    CHECK_EQ_INT(qkv_gpt_set_data(inf, stream, 40, starts, 8, stream, 40, starts, 8), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_step(inf, &loss, &norm), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_loss_and_grad(inf, tok, tok, 1, 5, &loss), QKV_ERR_ARGUMENT);
    CHECK(isnan(loss));
    CHECK_EQ_INT(qkv_gpt_tensor(inf, QKV_GPT_GRADS, QKV_GPT_LAYER_ALL, 0, &lg, &r, &cc), QKV_ERR_ARGUMENT);
    double state;
    unsigned char buf[16];
    CHECK_EQ_INT(qkv_gpt_state_bytes(inf, &state), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_save_state(inf, buf, 16.0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_load_state(inf, buf, 16.0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_evaluate(inf, 1, 0, 2, &loss), QKV_OK);
    CHECK(isfinite(loss));
    qkv_gpt_destroy(inf);
    qkv_gpt_destroy(g);
}

/* generation with the cache equals generation without it, token for token and bit for bit */
static void test_gpt_cache(void) {
    enum { V = 11, T = 24 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 2, 2, 8, T, 1, 3), QKV_OK);
    float* p;
    int rows, cols;
    qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols);
    for (int i = 0; i < rows; i++) p[i] += 0.5f * urand();
    int prompt[3] = { 0, 4, 7 };
    float temps[3] = { 0.0f, 1.0f, 0.7f };
    for (int k = 0; k < 3; k++) {
        int a[T], b[T], ia[T * QKV_GPT_TOP], ib[T * QKV_GPT_TOP], na, nb;
        float pa[T * QKV_GPT_TOP], pb[T * QKV_GPT_TOP];
        CHECK_EQ_INT(qkv_gpt_generate(g, prompt, 3, T - 3, temps[k], k == 2 ? 4 : 0, k == 2 ? 0.9f : 1.0f,
                                      42, 1, a, ia, pa, &na), QKV_OK);
        CHECK_EQ_INT(qkv_gpt_generate(g, prompt, 3, T - 3, temps[k], k == 2 ? 4 : 0, k == 2 ? 0.9f : 1.0f,
                                      42, 0, b, ib, pb, &nb), QKV_OK);
        CHECK_EQ_INT(na, nb);
        CHECK(memcmp(a, b, (size_t)na * sizeof(int)) == 0);
        CHECK(memcmp(pa, pb, (size_t)na * QKV_GPT_TOP * sizeof(float)) == 0);
        CHECK(memcmp(ia, ib, (size_t)na * QKV_GPT_TOP * sizeof(int)) == 0);
        printf("generate T=%.1f: %d tokens, cache and no cache identical\n", temps[k], na);
    }
    qkv_gpt_destroy(g);
}

/* masked generation: each step draws only what its mask allows; with no masked step it is
   qkv_gpt_generate bit for bit; an empty mask and a row out of range are refused */
static void test_gpt_masked(void) {
    enum { V = 11, T = 24, N = 12 };
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 1, 2, 8, T, 1, 5), QKV_OK);
    float* p;
    int rows, cols;
    qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols);
    for (int i = 0; i < rows; i++) p[i] += 0.5f * urand();
    /* row 0: tokens 3..6; row 1: token 2 only */
    unsigned char masks[2 * V] = { 0 };
    for (int i = 3; i <= 6; i++) masks[i] = 1;
    masks[V + 2] = 1;
    int steps[N], prompt[2] = { 0, 1 }, out[N], ids[N * QKV_GPT_TOP], mids[N * QKV_GPT_TOP], count;
    float probs[N * QKV_GPT_TOP], mprobs[N * QKV_GPT_TOP], removed[N];
    for (int i = 0; i < N; i++) steps[i] = i % 3 == 2 ? 1 : i % 3 == 1 ? -1 : 0;
    for (int use_cache = 0; use_cache < 2; use_cache++) {
        CHECK_EQ_INT(qkv_gpt_generate_masked(g, prompt, 2, N, 1.5f, 0, 1.0f, 9, use_cache, masks, 2, steps, out,
                                             ids, probs, removed, mids, mprobs, &count), QKV_OK);
        for (int i = 0; i < count; i++) {
            if (steps[i] == 0) CHECK(out[i] >= 3 && out[i] <= 6);
            if (steps[i] == 1) { CHECK_EQ_INT(out[i], 2); CHECK_EQ_INT(mids[i * QKV_GPT_TOP], 2); CHECK(mprobs[i * QKV_GPT_TOP] == 1.0f); }
            if (steps[i] >= 0) {
                double kept = 0.0;  /* the renormalised top of row 0 sums to 1 (4 tokens allowed) */
                for (int j = 0; j < QKV_GPT_TOP && mids[i * QKV_GPT_TOP + j] >= 0; j++) kept += mprobs[i * QKV_GPT_TOP + j];
                CHECK(fabs(kept - 1.0) < 1e-6);
                CHECK(removed[i] >= 0.0f && removed[i] < 1.0f);
            } else {
                CHECK(removed[i] == 0.0f && mids[i * QKV_GPT_TOP] == -1);
            }
        }
    }
    /* every step free: qkv_gpt_generate's tokens and probabilities */
    int free_steps[N], a[N], na, ia[N * QKV_GPT_TOP];
    float pa[N * QKV_GPT_TOP];
    for (int i = 0; i < N; i++) free_steps[i] = -1;
    CHECK_EQ_INT(qkv_gpt_generate(g, prompt, 2, N, 0.9f, 3, 0.8f, 4, 1, a, ia, pa, &na), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_generate_masked(g, prompt, 2, N, 0.9f, 3, 0.8f, 4, 1, masks, 2, free_steps, out, ids,
                                         probs, removed, mids, mprobs, &count), QKV_OK);
    CHECK_EQ_INT(count, na);
    CHECK(memcmp(a, out, (size_t)na * sizeof(int)) == 0 && memcmp(pa, probs, (size_t)na * QKV_GPT_TOP * sizeof(float)) == 0);
    steps[0] = 2;
    CHECK_EQ_INT(qkv_gpt_generate_masked(g, prompt, 2, N, 1.0f, 0, 1.0f, 0, 1, masks, 2, steps, out, ids, probs,
                                         removed, mids, mprobs, &count), QKV_ERR_ARGUMENT);
    steps[0] = 0;
    unsigned char empty[V] = { 0 };
    CHECK_EQ_INT(qkv_gpt_generate_masked(g, prompt, 2, N, 1.0f, 0, 1.0f, 0, 1, empty, 1, steps, out, ids, probs,
                                         removed, mids, mprobs, &count), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_generate_masked(g, prompt, 2, N, 1.0f, 0, 1.0f, 0, 1, masks, 2, steps, out, ids, probs,
                                         NULL, mids, mprobs, &count), QKV_ERR_NULL);
    printf("masked generation: every step within its mask, cache and no cache\n");
    qkv_gpt_destroy(g);
}

/* the text every build trains on for the checksum (tests/gpt.test.js uses the same) */
static const char* const CHECKSUM_TEXT =
    "abcab cabca\nbca bcab\ncab cab\naabbcc abc\nabc abc\ncba cba\nacb acb\nbac bac\n"
    "ccba abcc\nbbac caab\naaa bbb ccc\n";

/* vocab: '\n' = 0, then the distinct characters in code-point order (web/gpt.js's rule) */
static unsigned gpt_checksum(int steps, int resume_after) {
    int map[128], V = 1;
    for (int i = 0; i < 128; i++) map[i] = -1;
    map['\n'] = 0;
    for (int ch = 0; ch < 128; ch++)
        if (ch != '\n' && strchr(CHECKSUM_TEXT, ch) && ch) map[ch] = V++;
    /* lines: every 10th (index 9, 19, ...) held out; each stream = EOS, line, EOS, line, ... */
    int train[256], val[256], nt = 0, nv = 0, tstarts[64], vstarts[64], nts = 0, nvs = 0;
    train[nt++] = 0;
    val[nv++] = 0;
    const char* s = CHECKSUM_TEXT;
    int line = 0;
    enum { T = 8 };
    while (*s) {
        const char* e = strchr(s, '\n');
        int is_val = line % 10 == 9;
        int* stream = is_val ? val : train;
        int* n = is_val ? &nv : &nt;
        int* st = is_val ? vstarts : tstarts;
        int* ns = is_val ? &nvs : &nts;
        int start = *n - 1;
        for (const char* q = s; q < e; q++) stream[(*n)++] = map[(unsigned char)*q];
        stream[(*n)++] = 0;
        /* windows start at the line's EOS, then every T/2 tokens while inside the line */
        for (int w = start; w < *n - 1; w += T / 2) st[(*ns)++] = w;
        s = e + 1;
        line++;
    }
    /* drop the starts too close to the end of a stream (start + T must be a token) */
    int k = 0;
    for (int i = 0; i < nts; i++) if (tstarts[i] + T < nt) tstarts[k++] = tstarts[i];
    nts = k;
    k = 0;
    for (int i = 0; i < nvs; i++) if (vstarts[i] + T < nv) vstarts[k++] = vstarts[i];
    nvs = k;
    qkv_gpt* g = NULL;
    CHECK_EQ_INT(qkv_gpt_create(&g, V, 2, 2, 8, T, 3, 5), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_set_optimizer(g, 1e-2f, 0.9f, 0.99f, 1e-8f, 0.01f, 1.0f, 2, steps), QKV_OK);
    int status = qkv_gpt_set_data(g, train, nt, tstarts, nts, val, nv, vstarts, nvs);
    CHECK_EQ_INT(status, QKV_OK);
    double loss, norm, first = 0;
    for (int i = 0; i < steps; i++) {
        CHECK_EQ_INT(qkv_gpt_step(g, &loss, &norm), QKV_OK);
        if (i == 0) first = loss;
        if (i + 1 == resume_after) {
            /* a checkpoint: the state into a fresh GPT of the same shape, which trains on */
            double bytes;
            CHECK_EQ_INT(qkv_gpt_state_bytes(g, &bytes), QKV_OK);
            unsigned char* state = malloc((size_t)bytes);
            CHECK_EQ_INT(qkv_gpt_save_state(g, state, bytes), QKV_OK);
            CHECK_EQ_INT(qkv_gpt_load_state(g, state, bytes - 1), QKV_ERR_SIZE);
            qkv_gpt* fresh = NULL;
            CHECK_EQ_INT(qkv_gpt_create(&fresh, V, 2, 2, 8, T, 3, 99), QKV_OK);  /* another seed */
            CHECK_EQ_INT(qkv_gpt_set_optimizer(fresh, 1e-2f, 0.9f, 0.99f, 1e-8f, 0.01f, 1.0f, 2, steps), QKV_OK);
            CHECK_EQ_INT(qkv_gpt_set_data(fresh, train, nt, tstarts, nts, val, nv, vstarts, nvs), QKV_OK);
            CHECK_EQ_INT(qkv_gpt_load_state(fresh, state, bytes), QKV_OK);
            CHECK_EQ_INT(qkv_gpt_steps(fresh), resume_after);
            qkv_gpt* other = NULL;  /* another shape is refused */
            CHECK_EQ_INT(qkv_gpt_create(&other, V, 1, 2, 8, T, 3, 5), QKV_OK);
            double other_bytes;
            qkv_gpt_state_bytes(other, &other_bytes);
            CHECK(other_bytes != bytes);
            qkv_gpt_destroy(other);
            free(state);
            qkv_gpt_destroy(g);
            g = fresh;
        }
    }
    CHECK(loss < first);
    float* p;
    int rows, cols;
    qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols);
    unsigned hash = 2166136261u;
    const unsigned char* bytes = (const unsigned char*)p;
    for (size_t i = 0; i < (size_t)rows * sizeof(float); i++) { hash ^= bytes[i]; hash *= 16777619u; }
    qkv_gpt_destroy(g);
    return hash;
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "--checksum") == 0) {
        printf("%u\n", gpt_checksum(argc > 2 ? atoi(argv[2]) : 10, 0));
        return checks_failed ? 1 : 0;
    }
    test_layernorm();
    test_layernorm_in_order();
    test_gelu();
    test_block_refusals();
    test_gpt_gradients(1, 2, 4, 4);
    test_gpt_gradients(2, 2, 4, 4);
    test_gpt_gradients(2, 2, 4, 3);
    test_gpt_gradients(1, 3, 16, 15);  /* 45 rows: the output layer in blocks of 40 and 5 */
    test_gpt_refusals();
    test_gpt_inference();
    test_gpt_diverged_gradients();
    test_gpt_probs_after_training();
    test_gpt_buffers_aligned();
    test_gpt_overflowing_logits_diverge();
    test_gpt_cache();
    test_gpt_masked();
    unsigned a = gpt_checksum(10, 0), b = gpt_checksum(10, 0), c = gpt_checksum(10, 4);
    CHECK(a == b);
    CHECK(a == c);
    printf("10 steps twice from seed 5, and 4 + a checkpoint + 6: parameter checksum %u every time\n", a);
    return check_report("test_gpt");
}
