/*
 * softmax_ce_kernel.c: the GPT's output layer, the row softmax with the cross-entropy gradient in
 * the same pass, a GPT kernel (build.sh's GPT_KERNEL_SOURCES: a module of its own per kernel build,
 * loaded with the GPT engine, so that the first load of the API leaves it out). Its rows are
 * softmax.h's, as softmaxRows' are: the same bits.
 */
#include "qkv_internal.h"
#include "simd.h"
#include "softmax.h"

/* softmax_rows_forward, and in the same pass over each row (while it is in cache) the gradient of
   loss = weight * sum_i -log probs[i][targets[i]]:  dlogits = weight * (probs - onehot), written.
   probs and dlogits get the bits softmax_rows_forward and layers.h's crossentropy_backward give
   (probs - 0 is probs). The output layer of the GPT: 512 rows of 3,644, read once instead of twice. */
int softmax_crossentropy_rows(float* probs, float* dlogits, const float* logits, const int* targets,
                              int rows, int cols, float weight) {
    for (int i = 0; i < rows; i++) {
        const float* z = logits + (size_t)i * cols;
        float *w = probs + (size_t)i * cols, *d = dlogits + (size_t)i * cols;
        float max = softmax_row_max(z, cols);
        if (!isfinite(max)) return QKV_ERR_MASKED_ROW;
        float inv = softmax_row_exp(w, z, cols, max);
        int j = 0;
#ifdef __wasm_simd128__
        v128_t vinv = wasm_f32x4_splat(inv), vweight = wasm_f32x4_splat(weight);
        for (; j + 4 <= cols; j += 4) {
            v128_t p = wasm_f32x4_mul(wasm_v128_load(w + j), vinv);
            wasm_v128_store(w + j, p);
            wasm_v128_store(d + j, wasm_f32x4_mul(vweight, p));
        }
#endif
        for (; j < cols; j++) {
            w[j] *= inv;
            d[j] = weight * w[j];
        }
        d[targets[i]] = weight * (w[targets[i]] - 1.0f);
    }
    return QKV_OK;
}
