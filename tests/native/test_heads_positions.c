/*
 * test_heads_positions.c: positional encoding and multi-head attention on their own, under
 * ASan/UBSan: every validation status, the table against libm's sin and cos in double, its
 * offset property PE(p).PE(p+k) = sum_i cos(k base^(-2i/d)), the model's positions being the
 * same table bit for bit, and multi-head attention against one attention_forward per head
 * (heads = 1 with Wo = I is self-attention itself, bit for bit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "qkv.h"

static void test_positions(void) {
    float out[64 * 16];
    CHECK_EQ_INT(qkv_positional_encoding(NULL, 4, 4, 10000.0), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_positional_encoding(out, 0, 4, 10000.0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 0, 10000.0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_positional_encoding(out, -1, 4, 10000.0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_positional_encoding(out, QKV_MAX_POSITIONS + 1, 1, 10000.0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_positional_encoding(out, 1 << 14, 1 << 14, 10000.0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 4, 1.0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 4, 0.5), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 4, -10.0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 4, NAN), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_positional_encoding(out, 4, 4, INFINITY), QKV_ERR_ARGUMENT);

    /* against libm in double, rounded to float32: within one float32 ulp */
    const double bases[3] = { 10000.0, 100.0, 1e6 };
    const int dims[3] = { 16, 5, 1 };
    for (int b = 0; b < 3; b++) {
        int n = 64, d = dims[b];
        CHECK_EQ_INT(qkv_positional_encoding(out, n, d, bases[b]), QKV_OK);
        double worst = 0;
        for (int p = 0; p < n; p++) {
            for (int i = 0; i < d; i++) {
                double angle = p / pow(bases[b], (double)(i - i % 2) / d);
                float expected = (float)(i % 2 == 0 ? sin(angle) : cos(angle));
                float got = out[p * d + i];
                double spacing = fabsf(nextafterf(expected, INFINITY) - expected);
                double err = fabs((double)got - expected) / spacing;
                if (err > worst) worst = err;
            }
        }
        printf("positional encoding n=64 d=%d base=%g vs libm: max %.1f float32 ulp\n", d, bases[b], worst);
        CHECK(worst <= 1.0);
    }
    /* the largest table side: the last position's angles stay where sin and cos are accurate */
    float last[2];
    float* big = malloc((size_t)QKV_MAX_POSITIONS * 2 * sizeof(float));
    CHECK(big != NULL);
    if (big) {
        CHECK_EQ_INT(qkv_positional_encoding(big, QKV_MAX_POSITIONS, 2, 10000.0), QKV_OK);
        memcpy(last, big + (size_t)(QKV_MAX_POSITIONS - 1) * 2, sizeof last);
        CHECK_NEAR(last[0], sin((double)(QKV_MAX_POSITIONS - 1)), 1e-7);
        CHECK_NEAR(last[1], cos((double)(QKV_MAX_POSITIONS - 1)), 1e-7);
        free(big);
    }

    /* PE(p).PE(p+k) depends on k only: sum over the pairs of cos(k freq_i) */
    int n = 40, d = 16;
    CHECK_EQ_INT(qkv_positional_encoding(out, n, d, 10000.0), QKV_OK);
    double worst = 0;
    for (int p = 0; p + 8 < n; p++) {
        for (int k = 0; k <= 8; k++) {
            double dot = 0, expected = 0;
            for (int i = 0; i < d; i++) dot += (double)out[p * d + i] * out[(p + k) * d + i];
            for (int i = 0; i < d; i += 2) expected += cos(k / pow(10000.0, (double)i / d));
            if (fabs(dot - expected) > worst) worst = fabs(dot - expected);
        }
    }
    printf("PE(p).PE(p+k) vs sum cos(k freq), p < 32, k <= 8: max difference %.2g\n", worst);
    CHECK(worst < 1e-5);
}

/* the model's fixed positions are the API's table with base 10000, bit for bit */
static void test_model_positions(void) {
    enum { V = 5, D = 7, L = 9 };
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, V, D, L, 3), QKV_OK);
    float* pos = NULL;
    int rows = 0, cols = 0;
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_POSITIONS, 0, &pos, &rows, &cols), QKV_OK);
    float table[L * D];
    CHECK_EQ_INT(qkv_positional_encoding(table, L, D, 10000.0), QKV_OK);
    CHECK_EQ_INT(rows, L);
    CHECK_EQ_INT(cols, D);
    if (pos && rows == L && cols == D) CHECK(memcmp(pos, table, sizeof table) == 0);
    qkv_model_destroy(m);
}

/* xorshift64: reproducible inputs */
static unsigned long long state = 2463534242ULL;
static float gauss_ish(void) {
    double s = 0;
    for (int k = 0; k < 4; k++) {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17;
        s += (double)(state >> 11) / 9007199254740992.0 - 0.5;
    }
    return (float)s;
}
static void fill(float* x, size_t count) { for (size_t i = 0; i < count; i++) x[i] = gauss_ish(); }

enum { N = 5, D = 4, DM = 12, DOUT = 3, MAXH = 4 };

static void test_multi_head(int heads, int causal) {
    float X[N * D], Wq[D * DM], Wk[D * DM], Wv[D * DM], Wo[DM * DOUT];
    fill(X, N * D); fill(Wq, D * DM); fill(Wk, D * DM); fill(Wv, D * DM); fill(Wo, DM * DOUT);
    float hq[N * DM], hk[N * DM], hv[N * DM], ho[N * DM], S[MAXH * N * N], W[MAXH * N * N];
    float concat[N * DM], out[N * DOUT];
    int dk = DM / heads;
    float scale = sqrtf((float)dk);
    CHECK_EQ_INT(qkv_multi_head_attention_forward(hq, hk, hv, S, W, ho, concat, out, X, Wq, Wk, Wv,
                                                  Wo, N, D, DM, heads, DOUT, scale, causal), QKV_OK);
    /* each head, by hand: Q = X.Wq whole, its columns cut out, one attention_forward */
    float Q[N * DM], K[N * DM], Vm[N * DM];
    CHECK_EQ_INT(qkv_matmul(Q, X, Wq, N, D, DM), QKV_OK);
    CHECK_EQ_INT(qkv_matmul(K, X, Wk, N, D, DM), QKV_OK);
    CHECK_EQ_INT(qkv_matmul(Vm, X, Wv, N, D, DM), QKV_OK);
    int same = 1;
    float expected_concat[N * DM];
    for (int h = 0; h < heads; h++) {
        float q[N * DM], k[N * DM], v[N * DM], s[N * N], w[N * N], o[N * DM];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < dk; j++) {
                q[i * dk + j] = Q[i * DM + h * dk + j];
                k[i * dk + j] = K[i * DM + h * dk + j];
                v[i * dk + j] = Vm[i * DM + h * dk + j];
            }
        }
        CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, k, v, N, N, dk, dk, scale, causal), QKV_OK);
        same &= memcmp(q, hq + h * N * dk, sizeof(float) * N * dk) == 0;
        same &= memcmp(k, hk + h * N * dk, sizeof(float) * N * dk) == 0;
        same &= memcmp(v, hv + h * N * dk, sizeof(float) * N * dk) == 0;
        same &= memcmp(s, S + h * N * N, sizeof s) == 0;
        same &= memcmp(w, W + h * N * N, sizeof w) == 0;
        same &= memcmp(o, ho + h * N * dk, sizeof(float) * N * dk) == 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < dk; j++) expected_concat[i * DM + h * dk + j] = o[i * dk + j];
        if (causal)
            for (int i = 0; i < N; i++)
                for (int j = i + 1; j < N; j++) CHECK(W[h * N * N + i * N + j] == 0.0f);
    }
    same &= memcmp(expected_concat, concat, sizeof concat) == 0;
    float expected_out[N * DOUT];
    CHECK_EQ_INT(qkv_matmul(expected_out, concat, Wo, N, DM, DOUT), QKV_OK);
    same &= memcmp(expected_out, out, sizeof out) == 0;
    if (!same) fprintf(stderr, "multi-head heads=%d causal=%d differs from one attention per head\n", heads, causal);
    CHECK(same);
}

/* heads = 1, Wo = I: self-attention, bit for bit */
static void test_one_head_is_self_attention(void) {
    float X[N * D], Wq[D * DM], Wk[D * DM], Wv[D * DM], I[DM * DM] = {0};
    fill(X, N * D); fill(Wq, D * DM); fill(Wk, D * DM); fill(Wv, D * DM);
    for (int i = 0; i < DM; i++) I[i * DM + i] = 1.0f;
    float hq[N * DM], hk[N * DM], hv[N * DM], ho[N * DM], S[N * N], W[N * N], concat[N * DM], out[N * DM];
    float Q[N * DM], K[N * DM], Vm[N * DM], S2[N * N], W2[N * N], O2[N * DM];
    for (int causal = 0; causal <= 1; causal++) {
        float scale = causal ? 1.0f : sqrtf((float)DM);
        CHECK_EQ_INT(qkv_multi_head_attention_forward(hq, hk, hv, S, W, ho, concat, out, X, Wq, Wk, Wv,
                                                      I, N, D, DM, 1, DM, scale, causal), QKV_OK);
        CHECK_EQ_INT(qkv_self_attention_forward(Q, K, Vm, S2, W2, O2, X, Wq, Wk, Wv, N, D, DM, DM,
                                                scale, causal), QKV_OK);
        CHECK(memcmp(hq, Q, sizeof Q) == 0 && memcmp(hk, K, sizeof K) == 0 && memcmp(hv, Vm, sizeof Vm) == 0);
        CHECK(memcmp(S, S2, sizeof S) == 0 && memcmp(W, W2, sizeof W) == 0);
        int equal = 1;
        for (int i = 0; i < N * DM; i++) equal &= out[i] == O2[i] && ho[i] == O2[i];
        CHECK(equal);
    }
}

static void test_multi_head_validation(void) {
    float X[N * D] = {0}, Wq[D * DM] = {0}, Wo[DM * DOUT] = {0};
    float hq[N * DM], hk[N * DM], hv[N * DM], ho[N * DM], S[MAXH * N * N], W[MAXH * N * N];
    float concat[N * DM], out[N * DOUT];
#define MHA(x, wo, n, d, dm, h, dout, scale, causal) \
    qkv_multi_head_attention_forward(hq, hk, hv, S, W, ho, concat, out, x, Wq, Wq, Wq, wo, n, d, dm, h, dout, scale, causal)
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_OK);
    CHECK_EQ_INT(MHA(NULL, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_NULL);
    CHECK_EQ_INT(MHA(X, NULL, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_multi_head_attention_forward(hq, hk, hv, S, W, ho, NULL, out, X, Wq, Wq, Wq, Wo,
                                                  N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_NULL);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 5, DOUT, 1.0f, 0), QKV_ERR_SHAPE);   /* 5 does not divide 12 */
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 0, DOUT, 1.0f, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, -2, DOUT, 1.0f, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 24, DOUT, 1.0f, 0), QKV_ERR_SIZE);  /* more heads than columns */
    CHECK_EQ_INT(MHA(X, Wo, 0, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, 0, 1.0f, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(MHA(X, Wo, 1 << 13, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_SIZE);  /* 4 heads x 2^26 scores */
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 0.0f, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1e-40f, 0), QKV_ERR_ARGUMENT);  /* subnormal */
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, NAN, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, INFINITY, 0), QKV_ERR_ARGUMENT);
    X[3] = NAN;
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_NONFINITE);
    X[3] = 0;
    Wo[7] = INFINITY;
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_NONFINITE);
    Wo[7] = 0;
    /* finite inputs whose products overflow: refused, never passed on as Infinity or NaN */
    for (int i = 0; i < N * D; i++) X[i] = 3e38f;
    for (int i = 0; i < D * DM; i++) Wq[i] = 3e38f;
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_OVERFLOW);
    for (int i = 0; i < N * D; i++) X[i] = 1.0f;
    for (int i = 0; i < D * DM; i++) Wq[i] = 1e19f;    /* Q, K, V finite (4e19), the scores are not */
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 4, DOUT, 1.0f, 0), QKV_ERR_OVERFLOW);
    for (int i = 0; i < D * DM; i++) Wq[i] = 1e30f;    /* V finite; concat.Wo is not */
    for (int i = 0; i < DM * DOUT; i++) Wo[i] = 1e30f;
    CHECK_EQ_INT(MHA(X, Wo, N, D, DM, 12, DOUT, 1e30f, 0), QKV_ERR_OVERFLOW);
#undef MHA
}

int main(void) {
    test_positions();
    test_model_positions();
    for (int causal = 0; causal <= 1; causal++) {
        test_multi_head(1, causal);
        test_multi_head(2, causal);
        test_multi_head(3, causal);
        test_multi_head(4, causal);
    }
    test_one_head_is_self_attention();
    test_multi_head_validation();
    return check_report("test_heads_positions");
}
