/* test_lora.c: LoRA runs (qkv_gpt_create_lora) natively under the sanitizers: step 0 is the base
 * bit for bit, training changes only the adapters (the base's bytes stay the same), merge and
 * unmerge, generation with and without the KV cache, the checkpoint state of the adapters, and
 * the refusals. The numbers themselves are checked in tests/finetune.test.js (finite
 * differences, PyTorch). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "qkv.h"

enum { V = 9, L = 2, H = 2, C = 8, T = 8, N_TOKENS = 200 };

static void data_of(qkv_gpt* g) {
    int tokens[N_TOKENS], starts[20];
    for (int i = 0; i < N_TOKENS; i++) tokens[i] = (i * 5 + i / 7) % V;
    for (int i = 0; i < 20; i++) starts[i] = i * 9;
    CHECK_EQ_INT(qkv_gpt_set_data(g, tokens, N_TOKENS, starts, 20, tokens, N_TOKENS, starts, 10), QKV_OK);
}

static void logits_of(qkv_gpt* g, const int* tokens, int n, float* out) {
    float* z; int rows, cols;
    CHECK_EQ_INT(qkv_gpt_forward(g, tokens, n), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_tensor(g, QKV_GPT_ACTIVATIONS, L, QKV_GPT_ACT_LOGITS, &z, &rows, &cols), QKV_OK);
    memcpy(out, z, (size_t)rows * cols * sizeof(float));
}

int main(void) {
    qkv_gpt *base, *ft, *bad;
    CHECK_EQ_INT(qkv_gpt_create(&base, V, L, H, C, T, 2, 3), QKV_OK);
    data_of(base);
    double loss, norm;
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(qkv_gpt_step(base, &loss, &norm), QKV_OK);
    int all = (1 << QKV_LORA_TARGETS) - 1;
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, base, 2, all, 0, 4.0f, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, base, 2, all, QKV_LORA_MAX_RANK + 1, 4.0f, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, base, 2, 0, 2, 4.0f, 1), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, base, 2, all + 1, 2, 4.0f, 1), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, base, 2, all, 2, NAN, 1), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, NULL, 2, all, 2, 4.0f, 1), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_gpt_create_lora(&ft, base, 3, all, 3, 6.0f, 1), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_create_lora(&bad, ft, 2, all, 2, 4.0f, 1), QKV_ERR_ARGUMENT);  /* not a base */
    CHECK_EQ_INT(qkv_gpt_trainable_count(ft), L * 3 * (4 * (C + C) + (C + 4 * C) + (4 * C + C)));
    float *g; int rows, cols;
    CHECK_EQ_INT(qkv_gpt_tensor(ft, QKV_GPT_GRADS, QKV_GPT_LAYER_ALL, 0, &g, &rows, &cols), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_tensor(base, QKV_GPT_ADAPTERS, QKV_GPT_LAYER_ALL, 0, &g, &rows, &cols), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_gpt_tensor(ft, QKV_GPT_ADAPTERS, 1, 2 * QKV_LORA_W1 + 1, &g, &rows, &cols), QKV_OK);
    CHECK(rows == 3 && cols == 4 * C);

    int tokens[6] = { 0, 1, 2, 3, 4, 5 };
    float a[6 * V], b[6 * V], m[6 * V];
    logits_of(base, tokens, 6, a);
    logits_of(ft, tokens, 6, b);
    CHECK(memcmp(a, b, sizeof a) == 0);  /* B = 0: the base exactly */

    float* p; int count, unused;
    CHECK_EQ_INT(qkv_gpt_tensor(base, QKV_GPT_PARAMS, QKV_GPT_LAYER_ALL, 0, &p, &count, &unused), QKV_OK);
    float* before = malloc((size_t)count * sizeof(float));
    memcpy(before, p, (size_t)count * sizeof(float));
    data_of(ft);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(qkv_gpt_step(ft, &loss, &norm), QKV_OK);
    CHECK(memcmp(before, p, (size_t)count * sizeof(float)) == 0);  /* frozen */
    logits_of(ft, tokens, 6, b);
    CHECK(memcmp(a, b, sizeof a) != 0);

    CHECK_EQ_INT(qkv_gpt_lora_merge(ft, 1), QKV_OK);
    logits_of(ft, tokens, 6, m);
    double worst = 0;
    for (int i = 0; i < 6 * V; i++) worst = fmax(worst, fabs((double)m[i] - b[i]));
    CHECK(worst <= 1e-5);
    CHECK_EQ_INT(qkv_gpt_step(ft, &loss, &norm), QKV_ERR_ARGUMENT);  /* merged: no step */
    CHECK_EQ_INT(qkv_gpt_lora_merge(ft, 0), QKV_OK);
    logits_of(ft, tokens, 6, m);
    CHECK(memcmp(m, b, sizeof b) == 0);
    CHECK_EQ_INT(qkv_gpt_lora_merge(base, 1), QKV_ERR_ARGUMENT);

    int out1[6], out2[6], ids[6 * QKV_GPT_TOP], n1, n2;
    float probs[6 * QKV_GPT_TOP];
    CHECK_EQ_INT(qkv_gpt_generate(ft, tokens, 2, 6, 0.9f, 0, 1.0f, 7, 1, out1, ids, probs, &n1), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_generate(ft, tokens, 2, 6, 0.9f, 0, 1.0f, 7, 0, out2, ids, probs, &n2), QKV_OK);
    CHECK(n1 == n2 && memcmp(out1, out2, (size_t)n1 * sizeof(int)) == 0);

    /* the checkpoint of a LoRA run is its adapters and their moments */
    double bytes;
    CHECK_EQ_INT(qkv_gpt_state_bytes(ft, &bytes), QKV_OK);
    void* state = malloc((size_t)bytes);
    CHECK_EQ_INT(qkv_gpt_save_state(ft, state, bytes), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_step(ft, &loss, &norm), QKV_OK);
    double next = loss;
    CHECK_EQ_INT(qkv_gpt_load_state(ft, state, bytes), QKV_OK);
    CHECK_EQ_INT(qkv_gpt_step(ft, &loss, &norm), QKV_OK);
    CHECK(loss == next);
    double used;
    CHECK_EQ_INT(qkv_gpt_memory_bytes(ft, &used), QKV_OK);
    CHECK(used > 0);
    free(state);
    free(before);
    qkv_gpt_destroy(ft);
    qkv_gpt_destroy(base);
    return check_report("test_lora");
}
