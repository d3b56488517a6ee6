/*
 * test_model.c: the trainable model on its own, under ASan/UBSan: argument checks, one SGD step
 * touching exactly the embedding rows of the batch's tokens, the loss going down over steps,
 * divergence leaving the parameters untouched, and destroy freeing everything (LeakSanitizer).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "qkv.h"

enum { VOCAB = 12, DIM = 8, MAXLEN = 6 };

static void test_arguments(void) {
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(NULL, VOCAB, DIM, MAXLEN, 1), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_model_create(&m, 1, DIM, MAXLEN, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, 0, MAXLEN, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, -3, MAXLEN, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, 0, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_create(&m, 1 << 30, 1 << 10, MAXLEN, 1), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 1), QKV_OK);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, 7, 0.1f, 0.9f, 0.999f, 1e-8f), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, QKV_OPTIMIZER_SGD, 0.0f, 0.9f, 0.999f, 1e-8f), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, QKV_OPTIMIZER_SGD, NAN, 0.9f, 0.999f, 1e-8f), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, QKV_OPTIMIZER_ADAM, 0.1f, 1.0f, 0.999f, 1e-8f), QKV_ERR_ARGUMENT);
    int bad_token[3] = {0, VOCAB, 1}, lengths[1] = {2}, too_long[1] = {MAXLEN + 3};
    double loss = 0;
    CHECK_EQ_INT(qkv_model_forward(m, bad_token, 3), QKV_ERR_TOKEN);
    bad_token[1] = -1;
    CHECK_EQ_INT(qkv_model_forward(m, bad_token, 3), QKV_ERR_TOKEN);
    CHECK_EQ_INT(qkv_model_forward(m, bad_token, 0), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, bad_token + 2, lengths, 0, &loss), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, bad_token + 2, too_long, 1, &loss), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, NULL, lengths, 1, &loss), QKV_ERR_NULL);
    float* data = NULL;
    int rows = 0, cols = 0;
    CHECK_EQ_INT(qkv_model_tensor(m, 9, 0, &data, &rows, &cols), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_PARAMS, 6, &data, &rows, &cols), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_PARAMS, 0, &data, &rows, &cols), QKV_OK);
    CHECK(rows == VOCAB && cols == DIM && data != NULL);
    qkv_model_destroy(m);
    qkv_model_destroy(NULL);  /* like free(NULL) */
}

static void test_sgd_rows(void) {
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 5), QKV_OK);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, QKV_OPTIMIZER_SGD, 0.5f, 0.9f, 0.999f, 1e-8f), QKV_OK);
    float* wte = NULL;
    int rows, cols;
    qkv_model_tensor(m, QKV_MODEL_PARAMS, 0, &wte, &rows, &cols);
    float* before = malloc(sizeof(float) * VOCAB * DIM);
    memcpy(before, wte, sizeof(float) * VOCAB * DIM);
    /* two sentences: 3 4 5 and 4 7 (token 0 <s> is added by the model) */
    int tokens[5] = {3, 4, 5, 4, 7}, lengths[2] = {3, 2};
    double loss = 0, first = 0;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 2, &loss), QKV_OK);
    CHECK(isfinite(loss) && loss > 0);
    CHECK_NEAR(loss, log((double)VOCAB), 0.5);  /* small initial weights: near uniform */
    first = loss;
    int updated[VOCAB], count = -1;
    CHECK_EQ_INT(qkv_model_update(m, updated, &count), QKV_OK);
    CHECK_EQ_INT(count, 5);  /* <s> and the batch's tokens 3, 4, 5, 7 */
    const int want[5] = {0, 3, 4, 5, 7};
    for (int i = 0; i < count && i < 5; i++) CHECK_EQ_INT(updated[i], want[i]);
    for (int r = 0; r < VOCAB; r++) {
        int in_batch = (r == 0 || r == 3 || r == 4 || r == 5 || r == 7);
        int same = memcmp(before + r * DIM, wte + r * DIM, sizeof(float) * DIM) == 0;
        CHECK(in_batch ? !same : same);
    }
    for (int s = 0; s < 30; s++) {
        qkv_model_loss_and_grad(m, tokens, lengths, 2, &loss);
        qkv_model_update(m, updated, &count);
    }
    CHECK(loss < first * 0.5);
    printf("model: loss %.3f -> %.3f after 31 SGD steps on two sentences\n", first, loss);
    free(before);
    qkv_model_destroy(m);
}

static void test_divergence(void) {
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 9), QKV_OK);
    CHECK_EQ_INT(qkv_model_set_optimizer(m, QKV_OPTIMIZER_SGD, 1e30f, 0.9f, 0.999f, 1e-8f), QKV_OK);
    int tokens[3] = {3, 4, 5}, lengths[1] = {3}, updated[VOCAB], count = 0;
    double loss = 0;
    int status = QKV_OK;
    for (int s = 0; s < 10 && status == QKV_OK; s++) {
        status = qkv_model_loss_and_grad(m, tokens, lengths, 1, &loss);
        if (status == QKV_OK) status = qkv_model_update(m, updated, &count);
    }
    CHECK_EQ_INT(status, QKV_ERR_DIVERGED);
    float* data = NULL;
    int rows, cols;
    for (int which = 0; which < 6; which++) {
        qkv_model_tensor(m, QKV_MODEL_PARAMS, which, &data, &rows, &cols);
        int finite = 1;
        for (int i = 0; i < rows * cols; i++) finite &= isfinite(data[i]) != 0;
        CHECK(finite);
    }
    qkv_model_destroy(m);
}

/* qkv_model_sentence_losses: argument checks, per-position losses whose mean is the loss,
 * gradients equal to loss_and_grad's on the same sentence, and probs rows that give the losses */
static void test_sentence_losses(void) {
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 3), QKV_OK);
    int tokens[4] = {3, 4, 5, 9}, bad[2] = {3, VOCAB};
    double losses[MAXLEN], loss = 0;
    CHECK_EQ_INT(qkv_model_sentence_losses(NULL, tokens, 4, losses, &loss), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_model_sentence_losses(m, tokens, 4, NULL, &loss), QKV_ERR_NULL);
    CHECK_EQ_INT(qkv_model_sentence_losses(m, tokens, 0, losses, &loss), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_sentence_losses(m, tokens, MAXLEN, losses, &loss), QKV_ERR_SIZE);
    CHECK_EQ_INT(qkv_model_sentence_losses(m, bad, 2, losses, &loss), QKV_ERR_TOKEN);
    CHECK_EQ_INT(qkv_model_sentence_losses(m, tokens, 4, losses, &loss), QKV_OK);
    double sum = 0;
    for (int t = 0; t < 5; t++) sum += losses[t];
    CHECK_NEAR(sum / 5, loss, 1e-12);
    /* each loss is -log of the target's probability in the activations left behind */
    float* probs = NULL;
    int rows = 0, cols = 0;
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_ACTIVATIONS, 9, &probs, &rows, &cols), QKV_OK);
    CHECK(rows == 5 && cols == VOCAB);
    const int targets[5] = {3, 4, 5, 9, 0};
    for (int t = 0; t < 5 && rows == 5; t++)
        CHECK_NEAR(losses[t], -log((double)probs[t * VOCAB + targets[t]]), 1e-5);
    /* the gradients are loss_and_grad's on the sentence alone */
    float* grads = NULL;
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_GRADS, 0, &grads, &rows, &cols), QKV_OK);
    float* copy = malloc(sizeof(float) * VOCAB * DIM);
    memcpy(copy, grads, sizeof(float) * VOCAB * DIM);
    int lengths[1] = {4};
    double again = 0;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &again), QKV_OK);
    CHECK(again == loss);
    CHECK(memcmp(copy, grads, sizeof(float) * VOCAB * DIM) == 0);
    free(copy);
    qkv_model_destroy(m);
}

/* the loss comes from the softmax's probabilities; one that underflows to 0 must not make the
   loss infinite: the model recomputes it from the logits (logsumexp - logit) */
static void test_underflowed_probability(void) {
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 3), QKV_OK);
    float* bout;
    int rows, cols;
    CHECK_EQ_INT(qkv_model_tensor(m, QKV_MODEL_PARAMS, 5, &bout, &rows, &cols), QKV_OK);
    int tokens[1] = {4}, lengths[1] = {1};
    double base = 0, low = 0;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &base), QKV_OK);
    bout[4] = -200.0f;  /* token 4's probability after <s>: about e^-200, 0 in float32 */
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &low), QKV_OK);
    /* two predictions (4 after <s>, then <s> after 4): the first costs about 200 more */
    CHECK(isfinite(low) && low > base + 90.0 && low < base + 110.0);
    qkv_model_destroy(m);
}

/* Counts that overflow 32 bits. On wasm32 (and with -m32) `long` is 32 bits: the sum of lengths
 * used to wrap (741,919 sentences of 5,789 tokens summed to 1,795), the size guard passed, and
 * ids never checked reached the embedding look-up. Here 2^22 sentences of 1,024 tokens sum to
 * exactly 2^32, which a 32-bit sum wraps to 0; and lengths[s] + 1 overflowed at INT_MAX. */
static void test_count_overflow(void) {
    enum { L = 1025 };
    qkv_model* m = NULL;
    CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, L, 1), QKV_OK);
    int count = 1 << 22;
    int* lengths = malloc(sizeof(int) * (size_t)count);
    int tokens[4] = {1, 2, 3, 4};
    double loss = 0;
    for (int s = 0; s < count; s++) lengths[s] = L - 1;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, count, &loss), QKV_ERR_SIZE);
    CHECK(isnan(loss));
    lengths[0] = INT_MAX;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &loss), QKV_ERR_SIZE);
    lengths[0] = L;  /* one too long: with <s> it would be L + 1 rows */
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &loss), QKV_ERR_SIZE);
    lengths[0] = 4;
    CHECK_EQ_INT(qkv_model_loss_and_grad(m, tokens, lengths, 1, &loss), QKV_OK);
    free(lengths);
    qkv_model_destroy(m);
}

/* Adam with a huge lr used to train on with losses of 1e9 and more (only non-finite losses
 * counted). Now the first loss above QKV_DIVERGENCE_FACTOR * ln V stops it, and the
 * parameters are those the last accepted step wrote. */
static void test_early_divergence(void) {
    for (int optimizer = QKV_OPTIMIZER_SGD; optimizer <= QKV_OPTIMIZER_ADAM; optimizer++) {
        qkv_model* m = NULL;
        CHECK_EQ_INT(qkv_model_create(&m, VOCAB, DIM, MAXLEN, 3), QKV_OK);
        CHECK_EQ_INT(qkv_model_set_optimizer(m, optimizer, optimizer ? 50.0f : 20.0f, 0.9f, 0.999f,
                                             1e-8f), QKV_OK);
        int tokens[5] = {3, 4, 5, 4, 7}, lengths[2] = {3, 2}, updated[VOCAB], count = 0;
        double loss = 0, limit = QKV_DIVERGENCE_FACTOR * log((double)VOCAB), worst = 0;
        size_t N = (size_t)qkv_model_num_params(m);
        float* saved = malloc(sizeof(float) * N);
        float* params = NULL;
        int rows, cols, status = QKV_OK, steps = 0;
        qkv_model_tensor(m, QKV_MODEL_PARAMS, 0, &params, &rows, &cols);  /* start of the block */
        for (; steps < 100 && status == QKV_OK; steps++) {
            memcpy(saved, params, sizeof(float) * N);
            status = qkv_model_loss_and_grad(m, tokens, lengths, 2, &loss);
            if (status == QKV_OK) status = qkv_model_update(m, updated, &count);
            if (status == QKV_OK && loss > worst) worst = loss;
        }
        CHECK_EQ_INT(status, QKV_ERR_DIVERGED);
        CHECK(steps < 100);
        CHECK(worst <= limit);            /* every accepted step had a loss within the limit */
        CHECK(!(loss <= limit));          /* the refused one did not */
        CHECK(isfinite(loss) && loss < 1e6);  /* caught early, not at 1e9 or 1e36 */
        CHECK(memcmp(saved, params, sizeof(float) * N) == 0);  /* untouched by the refused step */
        CHECK_EQ_INT(qkv_model_update(m, updated, &count), QKV_ERR_DIVERGED);  /* and stays refused */
        printf("model: %s lr %g refused at step %d, batch loss %.3g > %.3g\n",
               optimizer ? "adam" : "sgd", optimizer ? 50.0 : 20.0, steps, loss, limit);
        free(saved);
        qkv_model_destroy(m);
    }
}

/* a batch in ranges of sentences gives the whole call's loss and gradients bit for bit; ranges
 * that do not follow on are refused, update refuses until the last range, a load starts afresh */
static void test_ranges(void) {
    qkv_model *whole = NULL, *parts = NULL;
    CHECK_EQ_INT(qkv_model_create(&whole, VOCAB, DIM, MAXLEN, 9), QKV_OK);
    CHECK_EQ_INT(qkv_model_create(&parts, VOCAB, DIM, MAXLEN, 9), QKV_OK);
    int tokens[10] = {3, 4, 5, 4, 7, 1, 2, 9, 11, 6}, lengths[4] = {3, 2, 4, 1};
    double a = 0, b = 0;
    CHECK_EQ_INT(qkv_model_loss_and_grad(whole, tokens, lengths, 4, &a), QKV_OK);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 1, 2, &b), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 0, 0, &b), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 0, 5, &b), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 0, 1, &b), QKV_OK);
    CHECK(isnan(b));
    int updated[VOCAB], count = 0;
    CHECK_EQ_INT(qkv_model_update(parts, updated, &count), QKV_ERR_DIVERGED);  /* not the whole batch yet */
    /* a range that skips one is refused and changes nothing: the batch goes on where it was */
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 2, 3, &b), QKV_ERR_ARGUMENT);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 1, 3, &b), QKV_OK);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 3, 4, &b), QKV_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    float *ga = NULL, *gb = NULL;
    int rows = 0, cols = 0;
    for (int which = 0; which < 6; which++) {
        CHECK_EQ_INT(qkv_model_tensor(whole, QKV_MODEL_GRADS, which, &ga, &rows, &cols), QKV_OK);
        CHECK_EQ_INT(qkv_model_tensor(parts, QKV_MODEL_GRADS, which, &gb, &rows, &cols), QKV_OK);
        CHECK(memcmp(ga, gb, sizeof(float) * (size_t)rows * (size_t)cols) == 0);
    }
    CHECK_EQ_INT(qkv_model_update(parts, updated, &count), QKV_OK);
    /* a load in the middle of a batch: the batch cannot go on, it starts again */
    int bytes = 0;
    CHECK_EQ_INT(qkv_model_state_bytes(parts, &bytes), QKV_OK);
    void* state = malloc((size_t)bytes);
    CHECK_EQ_INT(qkv_model_save_state(parts, state, bytes), QKV_OK);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 0, 2, &b), QKV_OK);
    CHECK_EQ_INT(qkv_model_load_state(parts, state, bytes), QKV_OK);
    CHECK_EQ_INT(qkv_model_loss_and_grad_range(parts, tokens, lengths, 4, 2, 4, &b), QKV_ERR_ARGUMENT);
    free(state);
    qkv_model_destroy(whole);
    qkv_model_destroy(parts);
}

int main(void) {
    test_underflowed_probability();
    test_arguments();
    test_sgd_rows();
    test_divergence();
    test_sentence_losses();
    test_count_overflow();
    test_early_divergence();
    test_ranges();
    return check_report("test_model");
}
