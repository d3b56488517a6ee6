/*
 * native.c: the benchmark's cases on the same C as the WebAssembly build (every wasm/ source but
 * exports.c), compiled natively by bench/run.mjs with gcc -O3 -march=native, once as is and once
 * with -ffast-math. Natively the kernels take their portable path (the SIMD128 one is
 * WebAssembly's), which gcc vectorises for the machine.
 *
 *   native attention N D INNER BATCHES    qkv_attention_forward, n_q = n_k = N, d_k = d_v = D, scaled
 *   native self3x4 INNER BATCHES          the article's qkv_self_attention_forward (3x4 . 4x3)
 *   native matmul N K M INNER BATCHES     qkv_matmul
 *   native model FILE STEPS BATCHES       the model's training steps on the batches in FILE
 *   native ceiling BATCHES                fused multiply-add throughput, 256- and 512-bit (CPU time)
 *
 * Prints one JSON object: {"ms": [per-call milliseconds, one per batch], "cpu": [the same in this
 * process's CPU time], "check": a checksum
 * that bench/run.mjs compares with the WebAssembly result}; ceiling prints GFLOP/s instead.
 * Inputs come from the library's own numpy-compatible generator, as in the JavaScript cases.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qkv.h"
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

static double clock_ms(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

/* per-call times of the batches: wall clock and this process's CPU time */
static double ms[1000], cpu[1000];
static double t_wall, t_cpu;
static void start(void) { t_wall = now_ms(); t_cpu = cpu_ms(); }
static void stop(int b, int calls) {
    if (b < 0) return;  /* the warm-up batch */
    ms[b] = (now_ms() - t_wall) / calls;
    cpu[b] = (cpu_ms() - t_cpu) / calls;
}

static float* randn(qkv_rng* g, int rows, int cols) {
    float* x = malloc((size_t)rows * cols * sizeof(float));
    if (!x || qkv_rng_randn(g, x, rows, cols)) { fprintf(stderr, "native: randn failed\n"); exit(1); }
    return x;
}

static double sum(const float* x, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

static void print_times(int batches, double check) {
    printf("{\"ms\": [");
    for (int b = 0; b < batches; b++) printf("%s%.6g", b ? ", " : "", ms[b]);
    printf("], \"cpu\": [");
    for (int b = 0; b < batches; b++) printf("%s%.6g", b ? ", " : "", cpu[b]);
    printf("], \"check\": %.17g}\n", check);
}

static int attention(int n, int d, int inner, int batches) {
    qkv_rng g;
    qkv_rng_seed(&g, 1);
    float *Q = randn(&g, n, d), *K = randn(&g, n, d), *V = randn(&g, n, d);
    float* S = malloc((size_t)n * n * sizeof(float));
    float* W = malloc((size_t)n * n * sizeof(float));
    float* O = malloc((size_t)n * d * sizeof(float));
    float scale = sqrtf((float)d);
    for (int b = -1; b < batches; b++) {  /* b = -1: warm-up */
        start();
        for (int i = 0; i < inner; i++)
            if (qkv_attention_forward(S, W, O, Q, K, V, n, n, d, d, scale, 0)) return 1;
        stop(b, inner);
    }
    print_times(batches, sum(O, (size_t)n * d));
    free(Q); free(K); free(V); free(S); free(W); free(O);
    return 0;
}

static int self3x4(int inner, int batches) {
    float X[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2f}, W[3][12];
    qkv_rng g;
    qkv_rng_seed(&g, 42);
    for (int w = 0; w < 3; w++) {
        qkv_rng_randn(&g, W[w], 4, 3);
        for (int i = 0; i < 12; i++) W[w][i] *= 0.3f;
    }
    float Q[9], K[9], Vv[9], S[9], A[9], O[9];
    for (int b = -1; b < batches; b++) {
        start();
        for (int i = 0; i < inner; i++)
            if (qkv_self_attention_forward(Q, K, Vv, S, A, O, X, W[0], W[1], W[2], 3, 4, 3, 3, 1.0f, 0)) return 1;
        stop(b, inner);
    }
    print_times(batches, sum(A, 9));
    return 0;
}

static int matmul(int n, int k, int m, int inner, int batches) {
    qkv_rng g;
    qkv_rng_seed(&g, 1);
    float *A = randn(&g, n, k), *B = randn(&g, k, m);
    float* C = malloc((size_t)n * m * sizeof(float));
    for (int b = -1; b < batches; b++) {
        start();
        for (int i = 0; i < inner; i++)
            if (qkv_matmul(C, A, B, n, k, m)) return 1;
        stop(b, inner);
    }
    print_times(batches, sum(C, (size_t)n * m));
    free(A); free(B); free(C);
    return 0;
}

/*
 * FILE: "V d L seed optimizer lr count" then `count` steps, each "sentences len tok tok ... len
 * tok ...". A step: loss and gradients of its sentences, then the update, as model.step() does
 * (without the JavaScript bookkeeping). STEPS steps per batch, starting each batch from a fresh
 * model, so that "steps = the schedule" times the whole default training run.
 */
static int model(const char* file, int steps, int batches) {
    FILE* f = fopen(file, "r");
    if (!f) { perror(file); return 1; }
    int V, d, L, count, optimizer;
    unsigned seed;
    float lr;
    if (fscanf(f, "%d %d %d %u %d %f %d", &V, &d, &L, &seed, &optimizer, &lr, &count) != 7) return 1;
    int** tokens = malloc((size_t)count * sizeof(int*));
    int** lengths = malloc((size_t)count * sizeof(int*));
    int* sentences = malloc((size_t)count * sizeof(int));
    for (int s = 0; s < count; s++) {
        if (fscanf(f, "%d", &sentences[s]) != 1) return 1;
        lengths[s] = malloc((size_t)sentences[s] * sizeof(int));
        tokens[s] = malloc((size_t)L * sentences[s] * sizeof(int));
        int at = 0;
        for (int i = 0; i < sentences[s]; i++) {
            if (fscanf(f, "%d", &lengths[s][i]) != 1) return 1;
            for (int t = 0; t < lengths[s][i]; t++)
                if (fscanf(f, "%d", &tokens[s][at++]) != 1) return 1;
        }
    }
    fclose(f);
    int* updated = malloc((size_t)V * sizeof(int));
    double check = 0;
    for (int b = -1; b < batches; b++) {
        qkv_model* m;
        if (qkv_model_create(&m, V, d, L, seed)) return 1;
        qkv_model_set_optimizer(m, optimizer, lr, 0.9f, 0.999f, 1e-8f);
        double loss = 0;
        start();
        for (int s = 0; s < steps; s++) {
            int c, k = s % count;
            if (qkv_model_loss_and_grad(m, tokens[k], lengths[k], sentences[k], &loss)) return 1;
            if (qkv_model_update(m, updated, &c)) return 1;
        }
        stop(b, steps);
        check = loss;
        qkv_model_destroy(m);
    }
    print_times(batches, check);
    return 0;
}

static float reduce8(const float* x) {
    float s = 0;
    for (int i = 0; i < 8; i++) s += x[i];
    return s;
}

static int ceiling(int batches) {
#if defined(__AVX2__) && defined(__FMA__)
    const long iters = 20000000;
    double best256 = 0, best512 = 0;
    for (int b = 0; b < batches; b++) {
        __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
        __m256 a[12];
        for (int i = 0; i < 12; i++) a[i] = _mm256_set1_ps((float)i);
        double t0 = cpu_ms();
        for (long i = 0; i < iters; i++)
            for (int j = 0; j < 12; j++) a[j] = _mm256_fmadd_ps(a[j], m, c);
        double t = cpu_ms() - t0;
        __m256 s = a[0];
        for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, a[i]);
        float out[8];
        _mm256_storeu_ps(out, s);
        if (reduce8(out) == 12345.0f) printf("#");  /* keeps the loop */
        double g = 12.0 * 8 * 2 * iters / t / 1e6;
        if (g > best256) best256 = g;
#if defined(__AVX512F__)
        __m512 m5 = _mm512_set1_ps(0.999f), c5 = _mm512_set1_ps(0.001f);
        __m512 a5[12];
        for (int i = 0; i < 12; i++) a5[i] = _mm512_set1_ps((float)i);
        t0 = cpu_ms();
        for (long i = 0; i < iters; i++)
            for (int j = 0; j < 12; j++) a5[j] = _mm512_fmadd_ps(a5[j], m5, c5);
        t = cpu_ms() - t0;
        __m512 s5 = a5[0];
        for (int i = 1; i < 12; i++) s5 = _mm512_add_ps(s5, a5[i]);
        if (_mm512_reduce_add_ps(s5) == 12345.0f) printf("#");
        g = 12.0 * 16 * 2 * iters / t / 1e6;
        if (g > best512) best512 = g;
#endif
    }
    if (best512 > 0) printf("{\"fma256\": %.4g, \"fma512\": %.4g}\n", best256, best512);
    else printf("{\"fma256\": %.4g, \"fma512\": null}\n", best256);
    return 0;
#else
    (void)batches;
    printf("{\"fma256\": null, \"fma512\": null}\n");
    return 0;
#endif
}

int main(int argc, char** argv) {
    if (argc >= 6 && !strcmp(argv[1], "attention")) return attention(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (argc >= 4 && !strcmp(argv[1], "self3x4")) return self3x4(atoi(argv[2]), atoi(argv[3]));
    if (argc >= 7 && !strcmp(argv[1], "matmul")) return matmul(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    if (argc >= 5 && !strcmp(argv[1], "model")) return model(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc >= 3 && !strcmp(argv[1], "ceiling")) return ceiling(atoi(argv[2]));
    fprintf(stderr, "usage: see the comment at the top of bench/native.c\n");
    return 2;
}
