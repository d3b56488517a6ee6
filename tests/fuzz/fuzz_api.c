/*
 * fuzz_api.c: a libFuzzer target for the C API natively, built by tests/fuzz/run.mjs with clang
 * under AddressSanitizer and UndefinedBehaviorSanitizer, as a 64-bit program and with -m32
 * (where long and size_t are 32 bits, as on wasm32).
 *
 * The input bytes are a little program: each op picks an entry point (the functions build.sh
 * exports, exports.c's allocation helpers and the positional encoding and multi-head attention
 * included) and its arguments: sizes (usually small,
 * sometimes an edge: 0, negative, 2^24 ± 1, 2^26 ± 1, INT_MAX), values (NaN, ±Infinity,
 * subnormals, float32's max, raw bits), null pointers, GPT call sequences (create and its
 * refusals, set_data, step, evaluate, forward, generate with the KV cache against without it),
 * and model call sequences (create,
 * set_optimizer, forward, loss_and_grad with lengths that sum past 2^32, sentence_losses,
 * update, shuffle, tensor, destroy). Buffers are malloc'd at exactly the size the contract asks for, so the
 * sanitizers see any access outside them; sizes the contract refuses get 4-entry buffers that
 * the call must not touch.
 *
 * Besides the sanitizers, every call is checked against the contract (wasm/qkv.h): the status
 * is the one its arguments call for, refusals leave outputs untouched, results are finite,
 * softmax rows sum to 1, causal weights above the diagonal are 0, transposes are exact,
 * parameters stay finite, update refuses after a diverged loss and SGD changes only the batch's
 * rows. A broken check prints what failed and aborts, which libFuzzer reports as a crash.
 * (The WASM fuzzer, tests/fuzz/wasm-harness.js, also compares every result with a float64
 * reference.)
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qkv.h"

/* exports.c */
float* qkv_alloc_floats(int count);
void* qkv_alloc_bytes(int bytes);
void qkv_free(void* ptr);
int qkv_heap_used(void);
int qkv_rng_size(void);

#define BUDGET (1 << 16)      /* entries per computed buffer */
#define WORK_BUDGET (1 << 20) /* multiply-adds per computed call */
#define SENTINEL 0x7fbadbadu  /* a NaN no computation produces */

static void fail(const char* what, int line, long a, long b) {
    fprintf(stderr, "fuzz_api.c:%d: %s (%ld, %ld)\n", line, what, a, b);
    abort();
}
#define REQUIRE(cond, a, b) do { if (!(cond)) fail(#cond, __LINE__, (long)(a), (long)(b)); } while (0)
#define EXPECT(status, want) REQUIRE((status) == (want), status, want)

/* ---- reading the input ---- */

typedef struct { const uint8_t* p; size_t n; } input;

static uint8_t byte(input* in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static uint32_t u32(input* in) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | byte(in);
    return v;
}

static const int EDGE_SIZES[] = {INT_MIN, -65536, -1, 0, 1, 2, 3, 4, 7, 8, 16, 64, 255, 256,
                                 1023, 1024, 1025, 4096, 8191, 8192, 8193, 65536, 65537,
                                 (1 << 24) - 1, 1 << 24, (1 << 24) + 1, (1 << 26) - 1, 1 << 26,
                                 (1 << 26) + 1, 1 << 30, INT_MAX};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* usually 1..small, sometimes an edge, sometimes any int */
static int size_of(input* in, int small) {
    uint8_t b = byte(in);
    if (b < 220) return 1 + b % small;
    if (b < 250) return EDGE_SIZES[byte(in) % COUNT(EDGE_SIZES)];
    return (int)u32(in);
}

static float special(uint8_t b) {
    static const float table[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, NAN, INFINITY, -INFINITY,
                                  1.401298464e-45f, -1.401298464e-45f, 1e-40f, FLT_MIN,
                                  FLT_MAX, -FLT_MAX, 1e20f, -1e20f, 1e-20f, 65504.0f, 3e38f};
    return table[b % COUNT(table)];
}

/* a buffer's values: mode 0-2 tame, 3 specials sprinkled, 4 raw bits, 5 huge, 6 tiny */
static void fill(input* in, float* out, size_t count, int finite_only) {
    uint8_t mode = byte(in) % 7;
    float scale = (float)pow(10.0, (double)(byte(in) % 5) - 2.0);
    for (size_t i = 0; i < count; i++) {
        uint8_t b = byte(in);
        float v;
        if (mode == 3 && b >= 200) v = special(byte(in));
        else if (mode == 4) { uint32_t bits = u32(in); memcpy(&v, &bits, 4); }
        else if (mode == 5) v = ((float)b - 127.5f) * (float)pow(10.0, 15 + b % 24);
        else if (mode == 6) v = ((float)b - 127.5f) * 1e-43f;
        else v = ((float)b - 127.5f) / 32.0f * scale;
        if (finite_only && !isfinite(v)) v = 0.0f;
        out[i] = v;
    }
}

/* ---- buffers ---- */

/* rows*cols when the contract accepts the shape, else 0 (as qkv_elements) */
static size_t elements(int rows, int cols) {
    if (rows <= 0 || cols <= 0 || rows > QKV_MAX_SIDE || cols > QKV_MAX_SIDE) return 0;
    int64_t n = (int64_t)rows * cols;
    return n <= (int64_t)QKV_MAX_ELEMENTS ? (size_t)n : 0;
}

static float* floats_new(size_t count) {
    float* p = malloc((count ? count : 1) * sizeof(float));
    if (!p) abort();
    uint32_t s = SENTINEL;
    for (size_t i = 0; i < count; i++) memcpy(p + i, &s, 4);
    return p;
}

static int untouched(const float* p, size_t count) {
    if (!p) return 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, p + i, 4);
        if (bits != SENTINEL) return 0;
    }
    return 1;
}

static int all_finite(const float* p, size_t count) {
    for (size_t i = 0; i < count; i++) if (!isfinite(p[i])) return 0;
    return 1;
}

/* ---- ops on the stateless functions ---- */

static void op_matmul(input* in) {
    int n = size_of(in, 9), k = size_of(in, 9), m = size_of(in, 9);
    int null_at = byte(in) < 12 ? byte(in) % 3 : -1;
    int valid = elements(n, k) && elements(k, m) && elements(n, m);
    if (valid && ((size_t)n * k > BUDGET || (size_t)k * m > BUDGET || (size_t)n * m > BUDGET ||
                  (int64_t)n * k * m > WORK_BUDGET)) {
        EXPECT(qkv_matmul(NULL, NULL, NULL, n, k, m), QKV_ERR_NULL);
        return;
    }
    size_t cn = valid ? (size_t)n * m : 4, ca = valid ? (size_t)n * k : 4, cb = valid ? (size_t)k * m : 4;
    float *out = floats_new(cn), *A = floats_new(ca), *B = floats_new(cb);
    fill(in, A, ca, 0);
    fill(in, B, cb, 0);
    int status = qkv_matmul(null_at == 0 ? NULL : out, null_at == 1 ? NULL : A, null_at == 2 ? NULL : B, n, k, m);
    if (null_at >= 0) EXPECT(status, QKV_ERR_NULL);
    else if (!valid) { EXPECT(status, QKV_ERR_SIZE); REQUIRE(untouched(out, cn), n, m); }
    else if (!all_finite(A, ca) || !all_finite(B, cb)) { EXPECT(status, QKV_ERR_NONFINITE); REQUIRE(untouched(out, cn), n, m); }
    else {
        REQUIRE(status == QKV_OK || status == QKV_ERR_OVERFLOW, status, 0);
        if (status == QKV_OK) REQUIRE(all_finite(out, cn), n, m);
    }
    free(out); free(A); free(B);
}

static void op_transpose(input* in) {
    int rows = size_of(in, 9), cols = size_of(in, 9);
    size_t valid = elements(rows, cols);
    if (valid > BUDGET) { EXPECT(qkv_transpose(NULL, NULL, rows, cols), QKV_ERR_NULL); return; }
    size_t c = valid ? valid : 4;
    float *out = floats_new(c), *A = floats_new(c);
    fill(in, A, c, 0);
    int alias = valid && byte(in) < 12;
    int status = qkv_transpose(alias ? A : out, A, rows, cols);
    if (!valid) { EXPECT(status, QKV_ERR_SIZE); REQUIRE(untouched(out, c), rows, cols); }
    else if (alias) EXPECT(status, QKV_ERR_ARGUMENT);
    else if (!all_finite(A, c)) { EXPECT(status, QKV_ERR_NONFINITE); REQUIRE(untouched(out, c), rows, cols); }
    else {
        EXPECT(status, QKV_OK);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                REQUIRE(memcmp(out + (size_t)j * rows + i, A + (size_t)i * cols + j, 4) == 0, i, j);
    }
    free(out); free(A);
}

static void op_softmax(input* in) {
    int rows = size_of(in, 9), cols = size_of(in, 9);
    size_t valid = elements(rows, cols);
    if (valid > BUDGET) { EXPECT(qkv_softmax_rows(NULL, NULL, rows, cols), QKV_ERR_NULL); return; }
    size_t c = valid ? valid : 4;
    float *out = floats_new(c), *S = floats_new(c);
    fill(in, S, c, 0);
    if (byte(in) < 80) for (size_t i = 0; i < c; i++) if (byte(in) < 80) S[i] = -INFINITY;
    int status = qkv_softmax_rows(out, S, rows, cols);
    if (!valid) { EXPECT(status, QKV_ERR_SIZE); REQUIRE(untouched(out, c), rows, cols); goto done; }
    int bad = 0, masked_row = 0;
    for (size_t i = 0; i < c; i++) bad |= isnan(S[i]) || S[i] == INFINITY;
    for (int i = 0; i < rows && !bad; i++) {
        int any = 0;
        for (int j = 0; j < cols; j++) any |= S[(size_t)i * cols + j] != -INFINITY;
        masked_row |= !any;
    }
    if (bad) { EXPECT(status, QKV_ERR_NONFINITE); REQUIRE(untouched(out, c), rows, cols); }
    else if (masked_row) EXPECT(status, QKV_ERR_MASKED_ROW);
    else {
        EXPECT(status, QKV_OK);
        for (int i = 0; i < rows; i++) {
            double sum = 0;
            for (int j = 0; j < cols; j++) {
                float w = out[(size_t)i * cols + j];
                REQUIRE(w >= 0.0f && w <= 1.0f, i, j);
                if (S[(size_t)i * cols + j] == -INFINITY) REQUIRE(w == 0.0f, i, j);
                sum += w;
            }
            REQUIRE(fabs(sum - 1.0) < 1e-4, i, (long)(sum * 1e6));
        }
    }
done:
    free(out); free(S);
}

static float scale_of(input* in) {
    uint8_t b = byte(in);
    if (b < 180) return 0.1f + (float)b / 16.0f;
    if (b < 240) return special(byte(in));
    uint32_t bits = u32(in);
    float s;
    memcpy(&s, &bits, 4);
    return s;
}

static void op_attention(input* in, int backward) {
    int nq = size_of(in, 7), nk = byte(in) < 180 ? nq : size_of(in, 7), dk = size_of(in, 7), dv = size_of(in, 7);
    float scale = scale_of(in);
    int causal = (int)(byte(in) % 4) - 1;  /* -1, 0, 1, 2: any non-zero int is "causal" */
    int valid = elements(nq, dk) && elements(nk, dk) && elements(nk, dv) && elements(nq, nk) && elements(nq, dv);
    size_t cq = valid ? (size_t)nq * dk : 4, ck = valid ? (size_t)nk * dk : 4, cv = valid ? (size_t)nk * dv : 4,
           cs = valid ? (size_t)nq * nk : 4, co = valid ? (size_t)nq * dv : 4;
    if (valid && (cq > BUDGET || ck > BUDGET || cv > BUDGET || cs > BUDGET || co > BUDGET ||
                  (int64_t)nq * nk * (dk + dv) * 3 > WORK_BUDGET)) {
        if (backward) EXPECT(qkv_attention_backward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, nq, nk, dk, dv, scale, causal), QKV_ERR_NULL);
        else EXPECT(qkv_attention_forward(NULL, NULL, NULL, NULL, NULL, NULL, nq, nk, dk, dv, scale, causal), QKV_ERR_NULL);
        return;
    }
    float *Q = floats_new(cq), *K = floats_new(ck), *V = floats_new(cv);
    fill(in, Q, cq, 0); fill(in, K, ck, 0); fill(in, V, cv, 0);
    int inputs_finite = all_finite(Q, cq) && all_finite(K, ck) && all_finite(V, cv);
    int status;
    int bad_scale = !(scale >= FLT_MIN) || !isfinite(scale);
    if (!backward) {
        float *S = floats_new(cs), *W = floats_new(cs), *O = floats_new(co);
        status = qkv_attention_forward(S, W, O, Q, K, V, nq, nk, dk, dv, scale, causal);
        if (!valid) EXPECT(status, QKV_ERR_SIZE);
        else if (bad_scale) EXPECT(status, QKV_ERR_ARGUMENT);
        else if (causal && nq > nk) EXPECT(status, QKV_ERR_SHAPE);
        else if (!inputs_finite) EXPECT(status, QKV_ERR_NONFINITE);
        else {
            REQUIRE(status == QKV_OK || status == QKV_ERR_OVERFLOW, status, 0);
            if (status == QKV_OK) {
                REQUIRE(all_finite(S, cs) && all_finite(W, cs) && all_finite(O, co), nq, nk);
                for (int i = 0; i < nq; i++) {
                    double sum = 0;
                    for (int j = 0; j < nk; j++) {
                        float w = W[(size_t)i * nk + j];
                        if (causal && j > i) REQUIRE(w == 0.0f, i, j);
                        sum += w;
                    }
                    REQUIRE(fabs(sum - 1.0) < 1e-4, i, (long)(sum * 1e6));
                }
            }
        }
        if (status != QKV_OK && status != QKV_ERR_OVERFLOW) REQUIRE(untouched(S, cs) && untouched(W, cs) && untouched(O, co), status, 0);
        free(S); free(W); free(O);
    } else {
        float *dQ = floats_new(cq), *dK = floats_new(ck), *dV = floats_new(cv), *dS = floats_new(cs),
              *dO = floats_new(co), *W = floats_new(cs);
        fill(in, dO, co, 0); fill(in, W, cs, byte(in) < 200);
        int zero = byte(in) < 128;
        fill(in, dQ, cq, 1); fill(in, dK, ck, 1); fill(in, dV, cv, 1);
        if (zero) { memset(dQ, 0, cq * 4); memset(dK, 0, ck * 4); memset(dV, 0, cv * 4); }
        status = qkv_attention_backward(dQ, dK, dV, dS, dO, Q, K, V, W, nq, nk, dk, dv, scale, causal);
        if (!valid) EXPECT(status, QKV_ERR_SIZE);
        else if (bad_scale) EXPECT(status, QKV_ERR_ARGUMENT);
        else if (causal && nq > nk) EXPECT(status, QKV_ERR_SHAPE);
        else if (!inputs_finite || !all_finite(dO, co) || !all_finite(W, cs)) EXPECT(status, QKV_ERR_NONFINITE);
        else {
            REQUIRE(status == QKV_OK || status == QKV_ERR_OVERFLOW, status, 0);
            if (status == QKV_OK)
                REQUIRE(all_finite(dQ, cq) && all_finite(dK, ck) && all_finite(dV, cv) && all_finite(dS, cs), nq, nk);
        }
        free(dQ); free(dK); free(dV); free(dS); free(dO); free(W);
    }
    free(Q); free(K); free(V);
}

static void op_self_attention(input* in) {
    int n = size_of(in, 7), d = size_of(in, 7), dk = size_of(in, 7), dv = size_of(in, 7);
    float scale = scale_of(in);
    int causal = (int)(byte(in) % 3);
    int valid = elements(n, d) && elements(d, dk) && elements(d, dv) && elements(n, dk) && elements(n, dv) && elements(n, n);
    size_t sizes[10] = {0};
    size_t shapes[10][2] = {{(size_t)n, (size_t)dk}, {(size_t)n, (size_t)dk}, {(size_t)n, (size_t)dv},
                            {(size_t)n, (size_t)n}, {(size_t)n, (size_t)n}, {(size_t)n, (size_t)dv},
                            {(size_t)n, (size_t)d}, {(size_t)d, (size_t)dk}, {(size_t)d, (size_t)dk}, {(size_t)d, (size_t)dv}};
    int too_big = 0;
    for (int i = 0; i < 10; i++) {
        sizes[i] = valid ? shapes[i][0] * shapes[i][1] : 4;
        too_big |= sizes[i] > BUDGET;
    }
    if (valid && (too_big || (int64_t)n * d * (2 * dk + dv) + (int64_t)n * n * (dk + dv) > WORK_BUDGET)) {
        EXPECT(qkv_self_attention_forward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, n, d, dk, dv, scale, causal), QKV_ERR_NULL);
        return;
    }
    float* b[10];
    for (int i = 0; i < 10; i++) {
        b[i] = floats_new(sizes[i]);
        if (i >= 6) fill(in, b[i], sizes[i], 0);
    }
    int null_at = byte(in) < 10 ? byte(in) % 10 : -1;
    float* arg[10];
    for (int i = 0; i < 10; i++) arg[i] = i == null_at ? NULL : b[i];
    int status = qkv_self_attention_forward(arg[0], arg[1], arg[2], arg[3], arg[4], arg[5], arg[6], arg[7],
                                            arg[8], arg[9], n, d, dk, dv, scale, causal);
    if (null_at >= 0) EXPECT(status, QKV_ERR_NULL);
    else if (!valid) EXPECT(status, QKV_ERR_SIZE);
    else if (!all_finite(b[6], sizes[6]) || !all_finite(b[7], sizes[7]) || !all_finite(b[8], sizes[8]) || !all_finite(b[9], sizes[9]))
        EXPECT(status, QKV_ERR_NONFINITE);
    else {
        REQUIRE(status == QKV_OK || status == QKV_ERR_OVERFLOW || status == QKV_ERR_ARGUMENT, status, 0);
        if (status == QKV_ERR_ARGUMENT) REQUIRE(!(scale >= FLT_MIN) || !isfinite(scale), status, 0);
        if (status == QKV_OK) for (int i = 0; i < 6; i++) REQUIRE(all_finite(b[i], sizes[i]), i, 0);
    }
    for (int i = 0; i < 10; i++) free(b[i]);
}

/* positions.c: sizes, base (any double, edges included), the table's range */
static void op_positions(input* in) {
    int n = size_of(in, 9), d = size_of(in, 9);
    static const double bases[] = {10000.0, 2.0, 1.0, 1.0000000000000002, 0.5, 0.0, -1.0, NAN,
                                   INFINITY, -INFINITY, 1e300, DBL_MAX, 4.9406564584124654e-324};
    uint8_t b = byte(in);
    double base = b < 128 ? 1.0 + (double)u32(in) / 65536.0 : bases[b % COUNT(bases)];
    int valid = elements(n, d) && n <= QKV_MAX_POSITIONS;
    size_t count = valid ? (size_t)n * d : 4;
    if (count > BUDGET) {
        EXPECT(qkv_positional_encoding(NULL, n, d, base), QKV_ERR_NULL);
        return;
    }
    float* out = floats_new(count);
    int null_out = byte(in) < 10;
    int status = qkv_positional_encoding(null_out ? NULL : out, n, d, base);
    if (null_out) { EXPECT(status, QKV_ERR_NULL); REQUIRE(untouched(out, count), n, d); }
    else if (!valid) { EXPECT(status, QKV_ERR_SIZE); REQUIRE(untouched(out, count), n, d); }
    else if (!(base > 1.0) || !isfinite(base)) { EXPECT(status, QKV_ERR_ARGUMENT); REQUIRE(untouched(out, count), n, d); }
    else {
        EXPECT(status, QKV_OK);
        for (size_t i = 0; i < count; i++) REQUIRE(out[i] >= -1.0f && out[i] <= 1.0f, i, n);
        for (int i = 0; i < d; i++) REQUIRE(out[i] == (float)(i % 2), i, d);  /* PE(0) = sin 0, cos 0, ... */
    }
    free(out);
}

/* multihead.c: sizes (d_model usually heads * d_k), heads, scale, causal; 13 buffers */
static void op_multihead(input* in) {
    int n = size_of(in, 6), d = size_of(in, 6), heads = size_of(in, 4), dk = size_of(in, 4), dout = size_of(in, 6);
    int dm = byte(in) < 220 ? (int)((uint32_t)heads * (uint32_t)dk) : size_of(in, 9);
    float scale = scale_of(in);
    int causal = (int)(byte(in) % 3);
    size_t nn = elements(n, n);
    int valid_size = elements(n, d) && elements(d, dm) && elements(n, dm) && elements(dm, dout) &&
                     elements(n, dout) && nn && heads > 0 && heads <= dm && nn <= QKV_MAX_ELEMENTS / (size_t)heads;
    size_t shapes[13] = {0};
    if (valid_size) {
        size_t ndm = (size_t)n * dm, hnn = (size_t)heads * nn;
        size_t s[13] = {ndm, ndm, ndm, hnn, hnn, ndm, ndm, (size_t)n * dout, (size_t)n * d,
                        (size_t)d * dm, (size_t)d * dm, (size_t)d * dm, (size_t)dm * dout};
        memcpy(shapes, s, sizeof s);
    }
    int too_big = 0;
    for (int i = 0; i < 13; i++) {
        if (!valid_size) shapes[i] = 4;
        too_big |= shapes[i] > BUDGET;
    }
    if (valid_size && (too_big || 3 * (int64_t)n * d * dm + 2 * (int64_t)n * n * dm + (int64_t)n * dm * dout > WORK_BUDGET)) {
        EXPECT(qkv_multi_head_attention_forward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                                NULL, NULL, n, d, dm, heads, dout, scale, causal), QKV_ERR_NULL);
        return;
    }
    float* b[13];
    float* arg[13];
    int null_at = byte(in) < 10 ? byte(in) % 13 : -1;
    for (int i = 0; i < 13; i++) {
        b[i] = floats_new(shapes[i]);
        if (i >= 8) fill(in, b[i], shapes[i], 0);
        arg[i] = i == null_at ? NULL : b[i];
    }
    int status = qkv_multi_head_attention_forward(arg[0], arg[1], arg[2], arg[3], arg[4], arg[5], arg[6], arg[7],
                                                  arg[8], arg[9], arg[10], arg[11], arg[12], n, d, dm, heads,
                                                  dout, scale, causal);
    int finite = 1;
    for (int i = 8; i < 13; i++) finite &= all_finite(b[i], shapes[i]);
    int refused = 1;
    if (null_at >= 0) EXPECT(status, QKV_ERR_NULL);
    else if (!valid_size) EXPECT(status, QKV_ERR_SIZE);
    else if (dm % heads) EXPECT(status, QKV_ERR_SHAPE);
    else if (!(scale >= FLT_MIN) || !isfinite(scale)) EXPECT(status, QKV_ERR_ARGUMENT);
    else if (!finite) EXPECT(status, QKV_ERR_NONFINITE);
    else {
        refused = 0;
        REQUIRE(status == QKV_OK || status == QKV_ERR_OVERFLOW, status, 0);
        if (status == QKV_OK) {
            for (int i = 0; i < 8; i++) REQUIRE(all_finite(b[i], shapes[i]), i, 0);
            /* each weight row sums to 1; causal rows give nothing to later tokens */
            for (size_t r = 0; r < (size_t)heads * n; r++) {
                double sum = 0.0;
                for (int j = 0; j < n; j++) {
                    float w = b[4][r * n + j];
                    if (causal && j > (int)(r % n)) REQUIRE(w == 0.0f, r, j);
                    sum += w;
                }
                REQUIRE(fabs(sum - 1.0) < 1e-4, r, heads);
            }
        }
    }
    if (refused) for (int i = 0; i < 8; i++) REQUIRE(untouched(b[i], shapes[i]), i, status);
    for (int i = 0; i < 13; i++) free(b[i]);
}

static void op_rng(input* in) {
    uint32_t seed = u32(in);
    qkv_rng a, b;
    EXPECT(qkv_rng_seed(&a, seed), QKV_OK);
    EXPECT(qkv_rng_seed(&b, seed), QKV_OK);
    EXPECT(qkv_rng_seed(NULL, seed), QKV_ERR_NULL);
    int corrupt = byte(in) < 30;
    if (corrupt) {  /* a state copied in from outside must not read past mt[] */
        a.index = (int)u32(in);
        a.has_gauss = (int)u32(in);
        uint32_t bits = u32(in);
        memcpy(&a.gauss, &bits, 4);
    }
    int rows = size_of(in, 9), cols = size_of(in, 9);
    size_t valid = elements(rows, cols);
    if (valid > BUDGET) { EXPECT(qkv_rng_randn(&a, NULL, rows, cols), QKV_ERR_NULL); return; }
    size_t c = valid ? valid : 4;
    float *x = floats_new(c), *y = floats_new(c);
    int sa = qkv_rng_randn(&a, x, rows, cols), sb = qkv_rng_randn(&b, y, rows, cols);
    if (!valid) { EXPECT(sa, QKV_ERR_SIZE); REQUIRE(untouched(x, c), rows, cols); }
    else {
        EXPECT(sa, QKV_OK); EXPECT(sb, QKV_OK);
        if (!corrupt) REQUIRE(memcmp(x, y, c * 4) == 0 && all_finite(x, c), rows, cols);  /* deterministic */
    }
    EXPECT(qkv_rng_randn(NULL, x, 1, 1), QKV_ERR_NULL);
    free(x); free(y);
}

static void op_misc(input* in) {
    int status = (int)u32(in);
    const char* text = qkv_error_message(status);
    REQUIRE(text && text[0], status, 0);
    REQUIRE((status >= 0 && status < QKV_STATUS_COUNT) == (strcmp(text, "unknown status code") != 0), status, 0);
    int n = byte(in) < 128 ? (int)(byte(in) % 64) - 4 : EDGE_SIZES[byte(in) % COUNT(EDGE_SIZES)];
    float* f = qkv_alloc_floats(n);
    if (n <= 0 || (size_t)n > QKV_MAX_ELEMENTS) REQUIRE(f == NULL, n, 0);
    qkv_free(f);
    void* p = qkv_alloc_bytes(n);
    if (n <= 0 || (size_t)n > QKV_MAX_BYTES) REQUIRE(p == NULL, n, 0);
    qkv_free(p);
    qkv_free(NULL);
    REQUIRE(qkv_heap_used() >= 0, 0, 0);
    REQUIRE(qkv_rng_size() == (int)sizeof(qkv_rng), qkv_rng_size(), 0);
}

/* ---- model sequences ---- */

typedef struct {
    int V, d, L, optimizer;
    double last_loss;   /* mirrors the model's: update must refuse when not <= the limit */
    int sgd_rows_known; /* the last loss_and_grad's tokens are the rows SGD may change */
    unsigned char* batch_rows;
} model_state;

static size_t num_params(const model_state* s) {
    return 2 * (size_t)s->V * s->d + 3 * (size_t)s->d * s->d + (size_t)s->V;
}

static float* params_of(qkv_model* m) {
    float* data = NULL;
    int rows, cols;
    EXPECT(qkv_model_tensor(m, QKV_MODEL_PARAMS, 0, &data, &rows, &cols), QKV_OK);
    return data;
}

static void model_loss(input* in, qkv_model* m, model_state* s) {
    int count, fill_value = 0, big = 0;
    uint8_t pattern = byte(in);
    int* lengths;
    if (pattern < 220) {
        count = 1 + byte(in) % 6;
        lengths = malloc(sizeof(int) * (size_t)count);
        for (int i = 0; i < count; i++) {
            uint8_t b = byte(in);
            int cap = s->L - 1 < 40 ? s->L - 1 : 40;
            lengths[i] = b < 245 ? 1 + b % (cap > 0 ? cap : 1) : (int[]){0, -1, s->L, s->L - 1, INT_MAX}[b % 5];
        }
    } else if (pattern < 250) {
        /* millions of sentences of L - 1 tokens: a 32-bit sum wraps (2^22 × 1,024 = 2^32) */
        big = 1;
        count = byte(in) < 128 ? (int[]){1 << 20, 1 << 21, 1 << 22, (1 << 22) + 1, (1 << 22) - 1, 1 << 23}[byte(in) % 6]
                               : 1 + (int)(u32(in) % (1u << 23));
        fill_value = byte(in) < 180 ? s->L - 1 : (int[]){1, s->L, INT_MAX, 1024}[byte(in) % 4];
        lengths = malloc(sizeof(int) * (size_t)count);
        for (int i = 0; i < count; i++) lengths[i] = fill_value;
    } else {
        count = (int[]){0, -1, INT_MIN}[byte(in) % 3];
        lengths = malloc(sizeof(int) * 4);
        for (int i = 0; i < 4; i++) lengths[i] = 1;
    }
    /* the contract, in 64 bits */
    int expected = -1;
    int64_t total = 0;
    int longest = 0;
    if (count <= 0) expected = QKV_ERR_SIZE;
    else {
        for (int i = 0; i < count; i++) {
            if (lengths[i] <= 0 || lengths[i] > s->L - 1) { expected = QKV_ERR_SIZE; break; }
            total += lengths[i];
            if (lengths[i] > longest) longest = lengths[i];
            if (total > (int64_t)QKV_MAX_ELEMENTS) { expected = QKV_ERR_SIZE; break; }
        }
    }
    if (expected < 0 && (total > BUDGET || (int64_t)longest * longest * s->d * count > WORK_BUDGET)) {
        free(lengths);  /* valid, but too much work for a fuzz step */
        return;
    }
    size_t ntok = expected < 0 ? (size_t)total : 4;
    int* tokens = malloc(sizeof(int) * ntok);
    for (size_t i = 0; i < ntok; i++) {
        uint8_t b = byte(in);
        tokens[i] = b < 250 ? b % s->V : (int[]){-1, s->V, INT_MAX}[b % 3];
    }
    if (expected < 0)
        for (size_t i = 0; i < ntok; i++)
            if (tokens[i] < 0 || tokens[i] >= s->V) { expected = QKV_ERR_TOKEN; break; }
    double loss = 0;
    int status = qkv_model_loss_and_grad(m, tokens, lengths, count, &loss);
    if (expected >= 0) {
        REQUIRE(status == expected, status, expected);
        REQUIRE(isnan(loss), status, big);
    } else {
        REQUIRE(status == QKV_OK || status == QKV_ERR_DIVERGED, status, 0);
        s->last_loss = status == QKV_OK ? loss : NAN;
        if (status == QKV_OK) {
            REQUIRE(isfinite(loss) && loss >= 0, 0, 0);
            memset(s->batch_rows, 0, (size_t)s->V);
            s->batch_rows[0] = 1;
            for (size_t i = 0; i < ntok; i++) s->batch_rows[tokens[i]] = 1;
            s->sgd_rows_known = 1;
        } else {
            s->sgd_rows_known = 0;
        }
    }
    free(tokens);
    free(lengths);
}

static void model_update(qkv_model* m, model_state* s) {
    size_t N = num_params(s);
    float* before = malloc(N * sizeof(float));
    memcpy(before, params_of(m), N * sizeof(float));
    int* rows = malloc(sizeof(int) * (size_t)s->V);
    int count = -1;
    int status = qkv_model_update(m, rows, &count);
    double limit = QKV_DIVERGENCE_FACTOR * log((double)s->V);
    if (!(s->last_loss <= limit)) EXPECT(status, QKV_ERR_DIVERGED);
    else REQUIRE(status == QKV_OK || status == QKV_ERR_DIVERGED, status, 0);
    float* after = params_of(m);
    if (status != QKV_OK) REQUIRE(memcmp(before, after, N * sizeof(float)) == 0, status, 0);
    else {
        REQUIRE(all_finite(after, N), 0, 0);
        REQUIRE(count >= 0 && count <= s->V, count, s->V);
        for (int i = 0; i < count; i++) {
            REQUIRE(rows[i] >= 0 && rows[i] < s->V && (i == 0 || rows[i] > rows[i - 1]), i, rows[i]);
            if (s->optimizer == QKV_OPTIMIZER_SGD && s->sgd_rows_known) REQUIRE(s->batch_rows[rows[i]], rows[i], 0);
        }
    }
    EXPECT(qkv_model_update(m, NULL, &count), QKV_ERR_NULL);
    free(rows);
    free(before);
}

static void model_sequence(input* in) {
    int V = byte(in) < 230 ? 2 + byte(in) % 30 : size_of(in, 30);
    int d = size_of(in, 12);
    int L = byte(in) < 200 ? size_of(in, 10) : (int[]){2, 1025, 4097, 8193}[byte(in) % 4];
    uint32_t seed = u32(in);
    int valid = V >= 2 && d > 0 && L > 0 && elements(V, d) && elements(L, V) && elements(L, L) &&
                elements(L, d) && elements(d, d);
    int64_t bytes = 0;
    if (valid) {
        int64_t params = 2 * (int64_t)V * d + 3 * (int64_t)d * d + V, Ld = (int64_t)L * d,
                LL = (int64_t)L * L, LV = (int64_t)L * V;
        if (params > (int64_t)QKV_MAX_ELEMENTS || 6 * Ld + 2 * LL + 2 * LV > (int64_t)QKV_MAX_ELEMENTS ||
            5 * Ld + LL + LV > (int64_t)QKV_MAX_ELEMENTS)
            valid = 0;
        bytes = 4 * (7 * params + 12 * Ld + 3 * LL + 3 * LV);
    }
    if (valid && bytes > (16 << 20)) {
        EXPECT(qkv_model_create(NULL, V, d, L, seed), QKV_ERR_NULL);
        return;
    }
    qkv_model* m = (qkv_model*)(uintptr_t)1;
    int status = qkv_model_create(&m, V, d, L, seed);
    if (!valid) { EXPECT(status, QKV_ERR_SIZE); REQUIRE(m == NULL, 0, 0); return; }
    EXPECT(status, QKV_OK);
    model_state s = {V, d, L, QKV_OPTIMIZER_SGD, 0.0, 0, calloc((size_t)V, 1)};
    int steps = 1 + byte(in) % 24;
    for (int step = 0; step < steps && in->n; step++) {
        switch (byte(in) % 10) {
        case 0: {
            int opt = (int)(byte(in) % 4) - 1;
            float lr = byte(in) < 200 ? (float)pow(10.0, (double)(byte(in) % 60) / 10.0 - 4.0) : special(byte(in));
            float b1 = byte(in) < 220 ? (float)byte(in) / 256.0f : special(byte(in));
            float b2 = byte(in) < 220 ? (float)byte(in) / 256.0f : special(byte(in));
            float eps = byte(in) < 220 ? 1e-8f : special(byte(in));
            int ok = (opt == 0 || opt == 1) && isfinite(lr) && lr > 0 && b1 >= 0 && b1 < 1 && b2 >= 0 && b2 < 1 &&
                     isfinite(eps) && eps > 0;
            EXPECT(qkv_model_set_optimizer(m, opt, lr, b1, b2, eps), ok ? QKV_OK : QKV_ERR_ARGUMENT);
            if (ok) s.optimizer = opt;
            break;
        }
        case 1: {
            float* data = NULL;
            int rows = -1, cols = -1, group = (int)(byte(in) % 6) - 1, which = (int)(byte(in) % 13) - 1;
            int st = qkv_model_tensor(m, group, which, &data, &rows, &cols);
            REQUIRE(st == QKV_OK || st == QKV_ERR_ARGUMENT, st, 0);
            if (st == QKV_OK) REQUIRE(data && rows > 0 && cols > 0, rows, cols);
            EXPECT(qkv_model_tensor(m, 0, 0, NULL, &rows, &cols), QKV_ERR_NULL);
            break;
        }
        case 2:
            EXPECT(qkv_model_num_params(m), (int)num_params(&s));
            EXPECT(qkv_model_num_params(NULL), 0);
            break;
        case 3: {
            int n = byte(in) < 230 ? 1 + byte(in) % L : (int[]){0, -1, L + 1, INT_MAX}[byte(in) % 4];
            size_t cnt = n > 0 && n <= L ? (size_t)n : 4;
            int* tokens = malloc(sizeof(int) * cnt);
            int bad = 0;
            for (size_t i = 0; i < cnt; i++) {
                uint8_t b = byte(in);
                tokens[i] = b < 250 ? b % V : (int[]){-1, V, INT_MAX}[b % 3];
                bad |= tokens[i] < 0 || tokens[i] >= V;
            }
            int st = qkv_model_forward(m, tokens, n);
            if (!(n > 0 && n <= L)) EXPECT(st, QKV_ERR_SIZE);
            else if (bad) EXPECT(st, QKV_ERR_TOKEN);
            else if (!all_finite(params_of(m), num_params(&s))) EXPECT(st, QKV_ERR_NONFINITE);
            else REQUIRE(st == QKV_OK || st == QKV_ERR_DIVERGED, st, 0);
            free(tokens);
            break;
        }
        case 4: case 5: model_loss(in, m, &s); break;
        case 6: case 7: model_update(m, &s); break;
        case 9: {  /* one sentence's per-position losses (loss_and_grad on it alone) */
            int length = byte(in) < 230 ? 1 + byte(in) % (L - 1 > 0 ? (L - 1 < 40 ? L - 1 : 40) : 1)
                                        : (int[]){0, -1, L, INT_MAX}[byte(in) % 4];
            int valid_length = length > 0 && length <= L - 1;
            if (valid_length && (int64_t)length * length * d > WORK_BUDGET) break;
            size_t cnt = valid_length ? (size_t)length : 4;
            int* tokens = malloc(sizeof(int) * cnt);
            int bad = 0;
            for (size_t i = 0; i < cnt; i++) {
                uint8_t b = byte(in);
                tokens[i] = b < 250 ? b % V : (int[]){-1, V, INT_MAX}[b % 3];
                bad |= tokens[i] < 0 || tokens[i] >= V;
            }
            double* losses = malloc(sizeof(double) * (cnt + 1));
            double loss = 0;
            int st = qkv_model_sentence_losses(m, tokens, length, losses, &loss);
            if (!valid_length) EXPECT(st, QKV_ERR_SIZE);
            else if (bad) EXPECT(st, QKV_ERR_TOKEN);
            else {
                REQUIRE(st == QKV_OK || st == QKV_ERR_DIVERGED, st, 0);
                s.last_loss = st == QKV_OK ? loss : NAN;
                s.sgd_rows_known = st == QKV_OK;
                if (st == QKV_OK) {
                    double sum = 0;
                    for (int t = 0; t <= length; t++) { REQUIRE(isfinite(losses[t]) && losses[t] >= 0, t, 0); sum += losses[t]; }
                    REQUIRE(fabs(sum / (length + 1) - loss) <= 1e-9 * (loss > 1 ? loss : 1), length, 0);
                    memset(s.batch_rows, 0, (size_t)V);
                    s.batch_rows[0] = 1;
                    for (int t = 0; t < length; t++) s.batch_rows[tokens[t]] = 1;
                }
            }
            free(tokens);
            free(losses);
            break;
        }
        case 8: {
            int n = byte(in) < 240 ? 1 + byte(in) % 200 : (int[]){0, -1, INT_MIN}[byte(in) % 3];
            size_t cnt = n > 0 ? (size_t)n : 4;
            int* order = malloc(sizeof(int) * cnt);
            long sum = 0;
            for (size_t i = 0; i < cnt; i++) { order[i] = (int)i; sum += (long)i; }
            int st = qkv_model_shuffle(m, order, n);
            if (n <= 0) EXPECT(st, QKV_ERR_SIZE);
            else {
                EXPECT(st, QKV_OK);
                unsigned char* seen = calloc(cnt, 1);
                for (size_t i = 0; i < cnt; i++) {
                    REQUIRE(order[i] >= 0 && (size_t)order[i] < cnt && !seen[order[i]], i, order[i]);
                    seen[order[i]] = 1;
                }
                free(seen);
            }
            free(order);
            (void)sum;
            break;
        }
        }
    }
    free(s.batch_rows);
    qkv_model_destroy(m);
    qkv_model_destroy(NULL);
}


/* ---- the GPT (wasm/gpt.c): a short call sequence on a small GPT ---- */
static void gpt_sequence(input* in) {
    int H = 1 + byte(in) % 3, C = H * (1 + byte(in) % 3), V = 2 + byte(in) % 10;
    int L = 1 + byte(in) % 2, T = 1 + byte(in) % 8, B = 1 + byte(in) % 3;
    if (byte(in) < 20) { /* the refusals of create */
        int bad[4][6] = {{1, L, H, C, T, B}, {V, 0, H, C, T, B}, {V, L, H + C, C, T, B}, {V, L, H, C, 0, B}};
        qkv_gpt* g = (qkv_gpt*)(uintptr_t)1;
        int* b = bad[byte(in) % 4];
        EXPECT(qkv_gpt_create(&g, b[0], b[1], b[2], b[3], b[4], b[5], 0), QKV_ERR_SIZE);
        REQUIRE(g == NULL, 0, 0);
        if (C >= 3) EXPECT(qkv_gpt_create(&g, V, L, C - 1, C, T, B, 0), QKV_ERR_SHAPE);  /* C - 1 does not divide C */
        return;
    }
    qkv_gpt* g = NULL;
    /* a quarter of the sequences on a GPT for loaded weights (zero, no training state: step refuses it) */
    uint32_t seed = u32(in);
    int inference = byte(in) % 4 == 0;
    if (inference) EXPECT(qkv_gpt_create_inference(&g, V, L, H, C, T, B), QKV_OK);
    else EXPECT(qkv_gpt_create(&g, V, L, H, C, T, B, seed), QKV_OK);
    int n = T + 1 + byte(in) % 20, ns = 1 + byte(in) % 4;
    int* tokens = malloc(sizeof(int) * (size_t)n);
    int* starts = malloc(sizeof(int) * (size_t)ns);
    int bad_token = 0, bad_start = 0;
    for (int i = 0; i < n; i++) {
        uint8_t b = byte(in);
        tokens[i] = b < 252 ? b % V : (b % 2 ? -1 : V);
        bad_token |= tokens[i] < 0 || tokens[i] >= V;
    }
    for (int i = 0; i < ns; i++) {
        uint8_t b = byte(in);
        starts[i] = b < 250 ? b % (n - T) : n - T;
        bad_start |= starts[i] + T >= n;
    }
    int st = qkv_gpt_set_data(g, tokens, n, starts, ns, tokens, n, starts, ns);
    EXPECT(st, bad_token ? QKV_ERR_TOKEN : bad_start ? QKV_ERR_ARGUMENT : QKV_OK);
    int has_data = st == QKV_OK;
    int steps = 1 + byte(in) % 6;
    for (int k = 0; k < steps && in->n; k++) {
        double loss = NAN, norm = NAN;
        switch (byte(in) % 4) {
        case 0: {
            st = qkv_gpt_step(g, &loss, &norm);
            if (!has_data || inference) EXPECT(st, QKV_ERR_ARGUMENT);
            else REQUIRE(st == QKV_OK || st == QKV_ERR_DIVERGED, st, 0);
            if (st == QKV_OK) REQUIRE(isfinite(loss) && loss >= 0 && isfinite(norm), 0, 0);
            break;
        }
        case 1: {
            int first = byte(in) % (ns + 1), count = byte(in) % (ns + 1);
            st = qkv_gpt_evaluate(g, byte(in) % 3, first, count, &loss);
            REQUIRE(st == QKV_OK || st == QKV_ERR_ARGUMENT || st == QKV_ERR_SIZE || st == QKV_ERR_DIVERGED, st, 0);
            if (st == QKV_OK) REQUIRE(isfinite(loss) && loss >= 0, 0, 0);
            break;
        }
        case 2: {
            int len = 1 + byte(in) % T;
            st = qkv_gpt_forward(g, tokens, len);
            REQUIRE(st == QKV_OK || st == QKV_ERR_TOKEN || st == QKV_ERR_OVERFLOW, st, 0);
            break;
        }
        default: {
            /* generation: the KV cache changes the cost, never the tokens */
            int np = 1 + byte(in) % T, mn = T - np > 0 ? 1 + byte(in) % (T - np) : 0;
            if (mn == 0) { EXPECT(qkv_gpt_generate(g, tokens, np, 1, 1.0f, 0, 1.0f, 0, 1, (int[1]){0}, (int[5]){0}, (float[5]){0}, &st), QKV_ERR_SIZE); break; }
            float temp = (float)(byte(in) % 4) / 2.0f, top_p = byte(in) % 2 ? 1.0f : 0.7f;
            int top_k = byte(in) % 3, seed = (int)byte(in);
            int* out1 = malloc(sizeof(int) * (size_t)mn), *out2 = malloc(sizeof(int) * (size_t)mn);
            int* ids = malloc(sizeof(int) * (size_t)mn * QKV_GPT_TOP);
            float* probs = malloc(sizeof(float) * (size_t)mn * QKV_GPT_TOP);
            int c1 = -1, c2 = -1;
            int s1 = qkv_gpt_generate(g, tokens, np, mn, temp, top_k, top_p, (uint32_t)seed, 1, out1, ids, probs, &c1);
            int s2 = qkv_gpt_generate(g, tokens, np, mn, temp, top_k, top_p, (uint32_t)seed, 0, out2, ids, probs, &c2);
            EXPECT(s1, s2);
            if (s1 == QKV_OK) {
                REQUIRE(c1 == c2 && c1 >= 1 && c1 <= mn, c1, c2);
                REQUIRE(memcmp(out1, out2, sizeof(int) * (size_t)c1) == 0, c1, 0);
                for (int i = 0; i < c1; i++) REQUIRE(out1[i] >= 0 && out1[i] < V, i, out1[i]);
            } else {
                REQUIRE(s1 == QKV_ERR_TOKEN || s1 == QKV_ERR_OVERFLOW, s1, 0);
            }
            free(out1); free(out2); free(ids); free(probs);
            break;
        }
        }
    }
    float* p = NULL;
    int rows = 0, cols = 0;
    EXPECT(qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &p, &rows, &cols), QKV_OK);
    EXPECT(rows, qkv_gpt_num_params(g));
    REQUIRE(all_finite(p, (size_t)rows), rows, 0);
    free(tokens);
    free(starts);
    qkv_gpt_destroy(g);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    input in = {data, size};
    while (in.n) {
        switch (byte(&in) % 13) {
        case 0: op_matmul(&in); break;
        case 1: op_transpose(&in); break;
        case 2: op_softmax(&in); break;
        case 3: op_attention(&in, 0); break;
        case 4: op_attention(&in, 1); break;
        case 5: op_self_attention(&in); break;
        case 6: op_rng(&in); break;
        case 7: op_misc(&in); break;
        case 8: op_positions(&in); break;
        case 9: op_multihead(&in); break;
        case 12: gpt_sequence(&in); break;
        default: model_sequence(&in); break;
        }
    }
    return 0;
}
