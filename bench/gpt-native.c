/*
 * gpt-native.c: the GPT of wasm/gpt.c natively, for bench/gpt.mjs (gcc -O3 -march=native):
 *   gpt-native V L H C T B STEPS [RUNS]
 *     -> {"msPerStep": CPU ms per training step (median of RUNS runs, default 3), "runs": [each run's]}
 * on a random token stream of V tokens (the speed depends on the shape, not on the text), after
 * one untimed step. bench/gpt.mjs calls it with RUNS 1 once a round, in turn with the other rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qkv.h"

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    if (argc != 8 && argc != 9) { fprintf(stderr, "usage: gpt-native V L H C T B STEPS [RUNS]\n"); return 2; }
    int V = atoi(argv[1]), L = atoi(argv[2]), H = atoi(argv[3]), C = atoi(argv[4]);
    int T = atoi(argv[5]), B = atoi(argv[6]), steps = atoi(argv[7]), nruns = argc == 9 ? atoi(argv[8]) : 3;
    if (steps < 1 || nruns < 1 || nruns > 99) { fprintf(stderr, "STEPS must be >= 1, RUNS 1-99\n"); return 2; }
    qkv_gpt* g = NULL;
    if (qkv_gpt_create(&g, V, L, H, C, T, B, 0)) { fprintf(stderr, "create failed\n"); return 1; }
    int n = 50000, ns = n / (T + 1);
    int* tokens = malloc((size_t)n * sizeof(int));
    int* starts = malloc((size_t)ns * sizeof(int));
    unsigned s = 1;
    for (int i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; tokens[i] = (int)((s >> 8) % (unsigned)V); }
    for (int i = 0; i < ns; i++) starts[i] = i * (T + 1);
    if (qkv_gpt_set_data(g, tokens, n, starts, ns - 1, tokens, n, starts, ns - 1)) return 1;
    double loss, norm, runs[99], sorted[99];
    qkv_gpt_step(g, &loss, &norm);  /* warm up */
    for (int r = 0; r < nruns; r++) {
        clock_t t0 = clock();
        for (int i = 0; i < steps; i++) qkv_gpt_step(g, &loss, &norm);
        runs[r] = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC / steps;
    }
    for (int r = 0; r < nruns; r++) sorted[r] = runs[r];
    qsort(sorted, (size_t)nruns, sizeof(double), cmp);
    printf("{\"msPerStep\": %.3f, \"runs\": [", sorted[nruns / 2]);
    for (int r = 0; r < nruns; r++) printf("%s%.3f", r ? ", " : "", runs[r]);
    printf("]}\n");
    qkv_gpt_destroy(g);
    free(tokens);
    free(starts);
    return 0;
}
