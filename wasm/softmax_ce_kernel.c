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
   (probs - 0 is probs). The output layer of the GPT: 512 rows of 3,644, read once instead of twice.
   probs NULL: the probabilities are not written (the training step's case: only the loss reads
   them, through target_probs; 7.5 MB of stores fewer a step), the exponentials pass through
   dlogits' row instead. target_probs (rows), when not NULL, receives probs[i][targets[i]]. */
int softmax_crossentropy_rows(float* probs, float* dlogits, float* target_probs, const float* logits,
                              const int* targets, int rows, int cols, float weight) {
    for (int i = 0; i < rows; i++) {
        const float* z = logits + (size_t)i * cols;
        float* d = dlogits + (size_t)i * cols;
        float* w = probs ? probs + (size_t)i * cols : d;
        float max = softmax_row_max(z, cols);
        if (!isfinite(max)) return QKV_ERR_MASKED_ROW;
        float inv = softmax_row_exp(w, z, cols, max, 1);
        int t = targets[i];
        float pt = w[t] * inv;  /* probs[i][t], as the loops below round it */
        int j = 0;
#ifdef __wasm_simd128__
        v128_t vinv = wasm_f32x4_splat(inv), vweight = wasm_f32x4_splat(weight);
        if (probs) {
            for (; j + 4 <= cols; j += 4) {
                v128_t p = wasm_f32x4_mul(wasm_v128_load(w + j), vinv);
                wasm_v128_store(w + j, p);
                wasm_v128_store(d + j, wasm_f32x4_mul(vweight, p));
            }
        } else {
            for (; j + 4 <= cols; j += 4)
                wasm_v128_store(d + j, wasm_f32x4_mul(vweight, wasm_f32x4_mul(wasm_v128_load(d + j), vinv)));
        }
#endif
        for (; j < cols; j++) {
            float p = w[j] * inv;
            if (probs) w[j] = p;
            d[j] = weight * p;
        }
        d[t] = weight * (pt - 1.0f);
        if (target_probs) target_probs[i] = pt;
    }
    return QKV_OK;
}
