/*
 * test_core.c: the C library on its own, under ASan/UBSan: numpy's random stream, the checked
 * entry points' validation (every status code reachable from bad arguments), softmax edge cases,
 * the attention backward pass against central finite differences, and the library's own
 * log / exp / sin / cos (mathlib.c) and softmax exp (simd.h) against the C library's.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "qkv.h"
#include "qkv_internal.h"
#include "simd.h"

/* exports.c's allocation helpers (the WebAssembly surface; plain C without Emscripten) */
float* qkv_alloc_floats(int count);
void* qkv_alloc_bytes(int bytes);
void qkv_free(void* ptr);
int qkv_rng_size(void);

static void test_rng(void) {
    qkv_rng g;
    CHECK_EQ_INT(qkv_rng_seed(&g, 42), QKV_OK);
    /* np.random.seed(42); np.random.randn(5): numpy's own output */
    const double expected[5] = {0.4967141530112327, -0.13826430117118466, 0.6476885381006925,
                                1.5230298564080254, -0.23415337472333597};
    for (int i = 0; i < 5; i++) CHECK_NEAR(qkv_rng_gauss(&g), expected[i], 1e-15);
    /* randn into float32: continues the same stream (the cached gaussian first) */
    qkv_rng a, b;
    qkv_rng_seed(&a, 7);
    qkv_rng_seed(&b, 7);
    float out[3];
    qkv_rng_gauss(&a);
    CHECK_EQ_INT(qkv_rng_randn(&a, out, 1, 3), QKV_OK);
    qkv_rng_gauss(&b);
    for (int i = 0; i < 3; i++) CHECK(out[i] == (float)qkv_rng_gauss(&b));
    /* a corrupted index (state copied in from outside) regenerates instead of reading past mt[] */
    g.index = 100000;
    (void)qkv_rng_next_u32(&g);
    g.index = -5;
    (void)qkv_rng_next_u32(&g);
    CHECK_EQ_INT(qkv_rng_randn(NULL, out, 1, 3), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_rng_randn(&g, out, 0, 3), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_rng_seed(NULL, 1), QKV_ERR_NULL);
}

static void test_validation(void) {
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, out[64];
    CHECK_EQ_INT(qkv_matmul(out, a, b, 2, 3, 2), QKV_OK);
    CHECK_NEAR(out[0], 1 * 1 + 2 * 0 + 3 * 1, 0);
    CHECK_EQ_INT(qkv_matmul(NULL, a, b, 2, 3, 2), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_matmul(out, NULL, b, 2, 3, 2), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_matmul(out, a, b, 0, 3, 2), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_matmul(out, a, b, -1, 3, 2), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_matmul(out, a, b, 1 << 20, 1 << 20, 1), QKV_ERR_SIZE);  /* 2^40 entries */
    CHECK_EQ_INT(qkv_matmul(out, a, b, 2147483647, 2, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_check_size(1 << 13, 1 << 13), QKV_OK);                  /* exactly 2^26 */
    CHECK_EQ_INT(qkv_check_size((1 << 13) + 1, 1 << 13), QKV_ERR_SIZE);
    a[4] = NAN;
    CHECK_EQ_INT(qkv_matmul(out, a, b, 2, 3, 2), QKV_ERR_NONFINITE);
    a[4] = INFINITY;
    CHECK_EQ_INT(qkv_matmul(out, a, b, 2, 3, 2), QKV_ERR_NONFINITE);
    a[4] = 5;
    CHECK_EQ_INT(qkv_transpose(out, a, 2, 3), QKV_OK);
    CHECK(out[1] == 4 && out[2] == 2 && out[5] == 6);
    CHECK_EQ_INT(qkv_transpose(a, a, 2, 3), QKV_ERR_ARGUMENT);

    float q[4] = {1, 0, 0, 1}, w[4], s[4], o[4];
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 2, 2, 2, 0.0f, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 2, 2, 2, -1.0f, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 2, 2, 2, NAN, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 2, 2, 2, INFINITY, 0), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 1, 2, 2, 1.0f, 1), QKV_ERR_SHAPE);
    CHECK_EQ_INT(qkv_attention_forward(s, w, NULL, q, q, q, 2, 2, 2, 2, 1.0f, 0), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_attention_forward(s, w, o, q, q, q, 2, 2, 2, 2, 1.0f, 1), QKV_OK);
    CHECK(w[1] == 0.0f && w[0] == 1.0f);  /* causal: row 0 sees only itself */

    /* finite inputs whose products overflow are refused, not passed on as Infinity */
    float x[2] = {3e38f, 3e38f}, wq[2] = {3e38f, 3e38f}, one[2] = {1, 1};
    float Q[1], K[1], V[1], S1[1], W1[1], O1[1];
    CHECK_EQ_INT(qkv_self_attention_forward(Q, K, V, S1, W1, O1, x, wq, one, one, 1, 2, 1, 1, 1.0f, 0),
                 QKV_ERR_OVERFLOW);
    /* Q, K finite but their dot product is not; and a finite score over a tiny scale */
    float big[2] = {1e20f, 1e20f}, v1[1] = {1.0f}, s2[1], w2[1], o2[1];
    CHECK_EQ_INT(qkv_attention_forward(s2, w2, o2, big, big, v1, 1, 1, 2, 1, 1.0f, 0), QKV_ERR_OVERFLOW);
    float q1[1] = {1e10f};
    CHECK_EQ_INT(qkv_attention_forward(s2, w2, o2, q1, q1, v1, 1, 1, 1, 1, 1e-30f, 0), QKV_ERR_OVERFLOW);
    CHECK_EQ_INT(qkv_attention_forward(s2, w2, o2, q1, q1, v1, 1, 1, 1, 1, 1.0f, 0), QKV_OK);
    float row[2] = {1e20f, 1e20f}, col[2] = {1e20f, 1e20f}, prod[1];
    CHECK_EQ_INT(qkv_matmul(prod, row, col, 1, 2, 1), QKV_ERR_OVERFLOW);

    for (int code = 0; code < QKV_STATUS_COUNT; code++) CHECK(strlen(qkv_error_message(code)) > 1);
    CHECK(strcmp(qkv_error_message(-1), "unknown status code") == 0);
    CHECK(strcmp(qkv_error_message(QKV_STATUS_COUNT), "unknown status code") == 0);
}

static void test_softmax(void) {
    float s[6] = {1e4f, -1e4f, 0.0f, 1e4f, 1e4f, -INFINITY}, w[6];
    CHECK_EQ_INT(qkv_softmax_rows(w, s, 2, 3), QKV_OK);
    CHECK(w[0] == 1.0f && w[1] == 0.0f && w[2] == 0.0f);  /* exact: max subtracted */
    CHECK(w[3] == 0.5f && w[4] == 0.5f && w[5] == 0.0f);
    float masked[2] = {-INFINITY, -INFINITY};
    CHECK_EQ_INT(qkv_softmax_rows(w, masked, 1, 2), QKV_ERR_MASKED_ROW);
    float bad[2] = {0.0f, NAN};
    CHECK_EQ_INT(qkv_softmax_rows(w, bad, 1, 2), QKV_ERR_NONFINITE);
    bad[1] = INFINITY;
    CHECK_EQ_INT(qkv_softmax_rows(w, bad, 1, 2), QKV_ERR_NONFINITE);
}

/* loss = sum(output * probe): its gradient wrt output is probe */
static double attention_loss(const float* Q, const float* K, const float* V, const float* probe,
                             int nq, int nk, int dk, int dv, float scale, int causal) {
    float scores[64], weights[64], output[64];
    qkv_attention_forward(scores, weights, output, Q, K, V, nq, nk, dk, dv, scale, causal);
    double loss = 0;
    for (int i = 0; i < nq * dv; i++) loss += (double)output[i] * probe[i];
    return loss;
}

static void test_attention_backward(int causal) {
    enum { NQ = 4, NK = 4, DK = 3, DV = 2 };
    qkv_rng g;
    qkv_rng_seed(&g, 3 + (uint32_t)causal);
    float Q[NQ * DK], K[NK * DK], V[NK * DV], probe[NQ * DV];
    qkv_rng_randn(&g, Q, NQ, DK);
    qkv_rng_randn(&g, K, NK, DK);
    qkv_rng_randn(&g, V, NK, DV);
    qkv_rng_randn(&g, probe, NQ, DV);
    float scale = sqrtf((float)DK);
    float scores[NQ * NK], weights[NQ * NK], output[NQ * DV], dscores[NQ * NK];
    float dQ[NQ * DK] = {0}, dK[NK * DK] = {0}, dV[NK * DV] = {0};
    CHECK_EQ_INT(qkv_attention_forward(scores, weights, output, Q, K, V, NQ, NK, DK, DV, scale, causal), QKV_OK);
    CHECK_EQ_INT(qkv_attention_backward(dQ, dK, dV, dscores, probe, Q, K, V, weights, NQ, NK, DK, DV, scale, causal), QKV_OK);
    /* central differences in float32 with h = 1e-2: truncation error O(h^2) ~ 1e-4 and
       rounding error ~ 1e-7 / h ~ 1e-5 relative, so 2e-3 absolute is a comfortable bound for
       gradients of size ~1, while a wrong formula (a missing term, a transposed index) is off
       by 1e-1 or more */
    const float h = 1e-2f;
    float* params[3] = {Q, K, V};
    float* grads[3] = {dQ, dK, dV};
    int sizes[3] = {NQ * DK, NK * DK, NK * DV};
    double worst = 0;
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < sizes[t]; i++) {
            float keep = params[t][i];
            params[t][i] = keep + h;
            double up = attention_loss(Q, K, V, probe, NQ, NK, DK, DV, scale, causal);
            params[t][i] = keep - h;
            double down = attention_loss(Q, K, V, probe, NQ, NK, DK, DV, scale, causal);
            params[t][i] = keep;
            double numeric = (up - down) / (2.0 * h);
            CHECK_NEAR(grads[t][i], numeric, 2e-3);
            if (fabs(grads[t][i] - numeric) > worst) worst = fabs(grads[t][i] - numeric);
        }
    }
    printf("attention backward (causal=%d): max |analytic - numeric| = %.2e\n", causal, worst);
}

/* distance in units in the last place between two finite doubles (or floats) of one sign */
static double ulps(double a, double b) {
    if (a == b) return 0;
    double spacing = fabs(nextafter(b, a) - b);
    return fabs(a - b) / (spacing > 0 ? spacing : 4.9e-324);
}
static double ulpsf(float a, float b) {
    if (a == b) return 0;
    float spacing = fabsf(nextafterf(b, a) - b);
    return fabs((double)a - (double)b) / spacing;
}

/* xorshift64: reproducible arguments */
static unsigned long long state = 88172645463325252ULL;
static double uniform(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

static void test_math(void) {
    /* within 1 ulp of the correctly rounded value each, so within 2 of the C library's */
    double worst_log = 0, worst_exp = 0, worst_sin = 0, worst_cos = 0;
    for (int i = 0; i < 1000000; i++) {
        double u = uniform();
        double x = i % 3 == 0 ? u : i % 3 == 1 ? ldexp(1.0 + u, (int)(uniform() * 2000) - 1000) : 1.0 + u;
        double e = qkv_log(x);
        if (ulps(e, log(x)) > worst_log) worst_log = ulps(e, log(x));
        double y = -745.0 + u * 1454.0;
        if (exp(y) > 2.3e-308 && ulps(qkv_exp(y), exp(y)) > worst_exp) worst_exp = ulps(qkv_exp(y), exp(y));
        double z = i % 2 ? (u - 0.5) * 20.0 : (u - 0.5) * 2e5;
        if (ulps(qkv_sin(z), sin(z)) > worst_sin) worst_sin = ulps(qkv_sin(z), sin(z));
        if (ulps(qkv_cos(z), cos(z)) > worst_cos) worst_cos = ulps(qkv_cos(z), cos(z));
    }
    printf("mathlib vs libm, max ulps over 1e6 arguments: log %.2f, exp %.2f, sin %.2f, cos %.2f\n",
           worst_log, worst_exp, worst_sin, worst_cos);
    CHECK(worst_log <= 2 && worst_exp <= 2 && worst_sin <= 2 && worst_cos <= 2);
    CHECK(qkv_log(1.0) == 0.0 && qkv_log(0.0) == -INFINITY && isnan(qkv_log(-1.0)));
    CHECK(qkv_exp(0.0) == 1.0 && qkv_exp(-INFINITY) == 0.0 && qkv_exp(-800.0) == 0.0);
    CHECK(qkv_sin(0.0) == 0.0 && qkv_cos(0.0) == 1.0);
    /* the softmax exp: relative error against expf over its whole range (x <= 0) */
    double worst = 0;
    for (int i = 0; i < 1000000; i++) {
        float x = (float)(-87.0 * uniform());
        double err = ulpsf(exp_nonpositive(x), expf(x));
        if (err > worst) worst = err;
    }
    printf("exp_nonpositive vs expf, max ulps over 1e6 arguments in [-87, 0]: %.2f\n", worst);
    CHECK(worst <= 2);
    CHECK(exp_nonpositive(0.0f) == 1.0f && exp_nonpositive(-INFINITY) == 0.0f);
    CHECK(exp_nonpositive(-88.0f) == 0.0f && exp_nonpositive(-2e4f) == 0.0f);
}

/* qkv_alloc_bytes(int) had no upper bound: every size JavaScript passes now has one */
static void test_allocation(void) {
    CHECK(qkv_alloc_bytes(0) == NULL);
    CHECK(qkv_alloc_bytes(-1) == NULL);
    CHECK(qkv_alloc_bytes((int)QKV_MAX_BYTES + 1) == NULL);
    CHECK(qkv_alloc_bytes(INT_MAX) == NULL);
    CHECK(qkv_alloc_floats(0) == NULL);
    CHECK(qkv_alloc_floats((int)QKV_MAX_ELEMENTS + 1) == NULL);
    CHECK(qkv_alloc_floats(INT_MAX) == NULL);
    void* p = qkv_alloc_bytes(16);
    CHECK(p != NULL);
    qkv_free(p);
    qkv_free(NULL);
    CHECK_EQ_INT(qkv_rng_size(), sizeof(qkv_rng));
}

/* qkv_attention_forward_keep: the results kept are those of qkv_attention_forward bit for bit,
   whatever is kept; scores and weights not kept need 4 rows (tiles of 4 query rows, and n_q not
   a multiple of 4 below) */
static void test_attention_keep(int causal) {
    enum { NQ = 11, NK = 13, DK = 5, DV = 3 };
    static float q[NQ * DK], k[NK * DK], v[NK * DV];
    static float s0[NQ * NK], w0[NQ * NK], o0[NQ * DV], s1[NQ * NK], w1[NQ * NK], o1[NQ * DV];
    qkv_rng rng;
    qkv_rng_seed(&rng, 9);
    qkv_rng_randn(&rng, q, NQ, DK);
    qkv_rng_randn(&rng, k, NK, DK);
    qkv_rng_randn(&rng, v, NK, DV);
    CHECK_EQ_INT(qkv_attention_forward(s0, w0, o0, q, k, v, NQ, NK, DK, DV, 2.0f, causal), QKV_OK);
    for (int keep = 0; keep < 4; keep++) {
        for (int i = 0; i < NQ * NK; i++) s1[i] = w1[i] = -1.0f;
        CHECK_EQ_INT(qkv_attention_forward_keep(s1, w1, o1, q, k, v, NQ, NK, DK, DV, 2.0f, causal, keep), QKV_OK);
        CHECK(memcmp(o0, o1, sizeof o0) == 0);
        if (keep & QKV_KEEP_SCORES) CHECK(memcmp(s0, s1, sizeof s0) == 0);
        else CHECK(s1[4 * NK] == -1.0f);  /* 4 rows of work space, nothing beyond */
        if (keep & QKV_KEEP_WEIGHTS) CHECK(memcmp(w0, w1, sizeof w0) == 0);
        else CHECK(w1[4 * NK] == -1.0f);
    }
    CHECK_EQ_INT(qkv_attention_forward_keep(s1, w1, o1, q, k, v, NQ, NK, DK, DV, 2.0f, causal, 4), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_attention_forward_keep(s1, w1, NULL, q, k, v, NQ, NK, DK, DV, 2.0f, causal, 0), QKV_ERR_NULL);
    q[3] = NAN;
    CHECK_EQ_INT(qkv_attention_forward_keep(s1, w1, o1, q, k, v, NQ, NK, DK, DV, 2.0f, causal, 0), QKV_ERR_NONFINITE);
}

int main(void) {
    test_math();
    test_attention_keep(0);
    test_attention_keep(1);
    test_allocation();
    test_rng();
    test_validation();
    test_softmax();
    test_attention_backward(0);
    test_attention_backward(1);
    return check_report("test_core");
}
