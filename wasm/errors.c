/* errors.c: the message table for qkv_status codes (the checks themselves are in checks.c). */
#include "qkv_internal.h"

static const char* const messages[QKV_STATUS_COUNT] = {
    [QKV_OK] = "ok",
    [QKV_ERR_NULL] = "a required pointer is null",
    [QKV_ERR_SIZE] = "a size is zero, negative or too large",
    [QKV_ERR_SHAPE] = "matrix shapes do not match",
    [QKV_ERR_NONFINITE] = "an input contains NaN or Infinity",
    [QKV_ERR_ALLOC] = "out of memory",
    [QKV_ERR_ARGUMENT] = "an argument is out of range",
    [QKV_ERR_MASKED_ROW] = "a softmax row has no finite entry (every position is masked)",
    [QKV_ERR_TOKEN] = "a token id is outside the vocabulary",
    [QKV_ERR_DIVERGED] = "training diverged: the loss is not finite or above 100 x ln V",
    [QKV_ERR_OVERFLOW] = "a result is too large for float32 (the inputs are finite, their products overflow)",
};

const char* qkv_error_message(int status) {
    if (status < 0 || status >= QKV_STATUS_COUNT) return "unknown status code";
    return messages[status];
}
