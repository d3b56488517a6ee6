/* errors.c: the message table for qkv_status codes, and the size / finiteness checks every
 * exported function starts with. */
#include <math.h>

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
    [QKV_ERR_DIVERGED] = "training diverged: the loss is not finite",
    [QKV_ERR_OVERFLOW] = "a result is too large for float32 (the inputs are finite, their products overflow)",
};

const char* qkv_error_message(int status) {
    if (status < 0 || status >= QKV_STATUS_COUNT) return "unknown status code";
    return messages[status];
}

size_t qkv_elements(int rows, int cols) {
    if (rows <= 0 || cols <= 0 || rows > QKV_MAX_SIDE || cols > QKV_MAX_SIDE) return 0;
    size_t count = (size_t)rows * (size_t)cols;  /* both <= 2^24: no size_t overflow on 64 bit;
                                                     on wasm32 check by division */
    if (count / (size_t)cols != (size_t)rows || count > QKV_MAX_ELEMENTS) return 0;
    return count;
}

int qkv_check_size(int rows, int cols) {
    return qkv_elements(rows, cols) ? QKV_OK : QKV_ERR_SIZE;
}

int qkv_check_finite(const float* x, size_t count) {
    if (!x) return QKV_ERR_NULL;
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(x[i])) return QKV_ERR_NONFINITE;
    }
    return QKV_OK;
}
