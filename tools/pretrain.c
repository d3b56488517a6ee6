/*
 * pretrain.c: trains the pretrained poet offline with qkv-lab's own engine (wasm/gpt.c, the code the
 * page runs), built natively. tools/pretrain.sh builds and starts it; run it by hand as
 *
 *   pretrain --text .build/pretrain/train.txt --val .build/pretrain/val.txt --run DIR
 *            [--layers 4 --heads 4 --dim 128 --context 72 --batch 32 --lr 3e-3 --warmup 200
 *             --steps 4000 --seed 1 --checkpoint-minutes 5] [--resume]
 *
 * Why this engine and not PyTorch: on the real shape (4 layers, width 128, context 72, batch 32,
 * 6,510 characters) Debian's PyTorch 1.13 took 8.5 s of CPU per step on one core and 9.6 s on
 * two, against 2.1 s for wasm/gpt.c built with gcc -O3 -march=native (measured 2026-12-01 on
 * this kind of machine). The file it writes is web/gpt.js's GPT file (version 1, float32), which
 * loadGPT reads and tools/quantize-gpt.mjs turns into the shipped int8 file.
 *
 * The text: one poem per line (tools/extract-poems.mjs). The vocabulary is '\n' (the end-of-text
 * token 0) then the training text's distinct characters in code-point order, as createGPT builds
 * it. The stream is '\n' poem '\n' poem ... '\n'; a window starts at the '\n' before a poem, so
 * position p is always character p of a poem, as in generation. Validation poems are scored one
 * window each from their start; a validation poem with a character outside the vocabulary is
 * left out (counted in the log).
 *
 * Every --checkpoint-minutes it writes, each through a temporary file and a rename:
 *   DIR/state.bin      the training state (qkv_gpt_save_state): --resume continues from it exactly
 *   DIR/model.qkvgpt   the GPT file of the current weights
 *   DIR/log.jsonl      one line per 50 steps (loss, grad norm, lr) and per checkpoint (val loss)
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../wasm/qkv.h"

static void die(const char* what) { fprintf(stderr, "pretrain: %s\n", what); exit(1); }

static char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read a file");
    fclose(f);
    buf[n] = 0;
    *size = (size_t)n;
    return buf;
}

/* UTF-8 -> code points (the texts are valid UTF-8: extract-poems writes them) */
static uint32_t* decode(const char* s, size_t n, size_t* count) {
    uint32_t* out = malloc(n * sizeof(uint32_t));
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (len == 1) cp = c;
        else if (len == 2) cp = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
        else if (len == 3) cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
        else cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 | (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
        out[k++] = cp;
        i += (size_t)len;
    }
    *count = k;
    return out;
}

static size_t encode_utf8(uint32_t cp, unsigned char* out) {
    if (cp < 0x80) { out[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { out[0] = (unsigned char)(0xC0 | cp >> 6); out[1] = (unsigned char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | cp >> 12); out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (unsigned char)(0xF0 | cp >> 18); out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static int cmp_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return x < y ? -1 : x > y;
}

static uint32_t* vocab;  /* (V) code points, token order */
static int V;

static int token_of(uint32_t cp) {
    if (cp == '\n') return 0;
    const uint32_t* hit = bsearch(&cp, vocab + 1, (size_t)V - 1, sizeof(uint32_t), cmp_u32);
    return hit ? (int)(hit - vocab) : -1;
}

/* the stream '\n' line '\n' line ... and the window starts (the '\n' before each kept line) */
static int tokenize(const uint32_t* cps, size_t n, int T, int** tokens_out, int* n_tokens, int** starts_out,
                    int* n_starts, int* dropped) {
    int* tokens = malloc((n + 2) * sizeof(int));
    int* starts = malloc((n + 2) * sizeof(int));
    int nt = 0, ns = 0;
    *dropped = 0;
    tokens[nt++] = 0;
    size_t line = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && cps[i] != '\n') continue;
        if (i > line) {
            int ok = 1, mark = nt;
            for (size_t j = line; j < i; j++) {
                int t = token_of(cps[j]);
                if (t < 0) { ok = 0; break; }
                tokens[nt++] = t;
            }
            if (ok) { starts[ns++] = mark - 1; tokens[nt++] = 0; }
            else { nt = mark; (*dropped)++; }
        }
        line = i + 1;
    }
    int kept = 0;
    for (int s = 0; s < ns; s++) if (starts[s] + T < nt) starts[kept++] = starts[s];
    *tokens_out = tokens; *n_tokens = nt; *starts_out = starts; *n_starts = kept;
    return 0;
}

static uint32_t fnv1a(const unsigned char* p, size_t n, uint32_t h) {
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x01000193u; }
    return h;
}

static void put_u32(unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

static void write_atomically(const char* path, const void* data, size_t n) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = fopen(tmp, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) die("cannot write a checkpoint file");
    if (rename(tmp, path) != 0) die("cannot rename a checkpoint file");
}

/* web/gpt.js's GPT file, version 1 */
static void write_model(const char* path, qkv_gpt* g, int L, int H, int C, int T, uint32_t seed) {
    unsigned char* vb = malloc((size_t)V * 4);
    size_t vn = 0;
    for (int i = 0; i < V; i++) vn += encode_utf8(vocab[i], vb + vn);
    size_t pad = (4 - vn % 4) % 4;
    float* params; int rows, cols;
    if (qkv_gpt_tensor(g, QKV_GPT_PARAMS, -1, 0, &params, &rows, &cols)) die("no parameters");
    size_t head = 8 + 9 * 4, total = head + vn + pad + (size_t)rows * 4 + 4;
    unsigned char* out = calloc(total, 1);
    memcpy(out, "QKVGPT\r\n", 8);
    uint32_t ints[9] = { 1, (uint32_t)V, (uint32_t)L, (uint32_t)H, (uint32_t)C, (uint32_t)T,
                         (uint32_t)qkv_gpt_steps(g), seed, (uint32_t)vn };
    for (int i = 0; i < 9; i++) put_u32(out + 8 + 4 * i, ints[i]);
    memcpy(out + head, vb, vn);
    memcpy(out + head + vn + pad, params, (size_t)rows * 4);  /* little-endian hosts only */
    put_u32(out + total - 4, fnv1a(out, total - 4, 0x811c9dc5u));
    write_atomically(path, out, total);
    free(out);
    free(vb);
}

static double now_cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }
static double now_wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
    const char *text_path = ".build/pretrain/train.txt", *val_path = ".build/pretrain/val.txt";
    const char* run = ".build/pretrain/run";
    int L = 4, H = 4, C = 128, T = 72, B = 32, warmup = 200, steps = 4000, resume = 0;
    double lr = 3e-3, checkpoint_minutes = 5.0;
    uint32_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && (i++, 1))
        if (OPT("--text")) text_path = v;
        else if (OPT("--val")) val_path = v;
        else if (OPT("--run")) run = v;
        else if (OPT("--layers")) L = atoi(v);
        else if (OPT("--heads")) H = atoi(v);
        else if (OPT("--dim")) C = atoi(v);
        else if (OPT("--context")) T = atoi(v);
        else if (OPT("--batch")) B = atoi(v);
        else if (OPT("--warmup")) warmup = atoi(v);
        else if (OPT("--steps")) steps = atoi(v);
        else if (OPT("--seed")) seed = (uint32_t)strtoul(v, NULL, 10);
        else if (OPT("--lr")) lr = atof(v);
        else if (OPT("--checkpoint-minutes")) checkpoint_minutes = atof(v);
        else if (strcmp(a, "--resume") == 0) resume = 1;
        else { fprintf(stderr, "pretrain: unknown or incomplete option %s\n", a); return 2; }
#undef OPT
    }
    size_t n_text, n_cps, n_val_text, n_val_cps;
    char* text = read_file(text_path, &n_text);
    if (!text) die("no training text: run node tools/extract-poems.mjs first");
    char* val_text = read_file(val_path, &n_val_text);
    if (!val_text) die("no validation text: run node tools/extract-poems.mjs first");
    uint32_t* cps = decode(text, n_text, &n_cps);
    uint32_t* val_cps = decode(val_text, n_val_text, &n_val_cps);

    /* the vocabulary: '\n', then the distinct characters in code-point order */
    uint32_t* sorted = malloc(n_cps * sizeof(uint32_t));
    size_t ns = 0;
    for (size_t i = 0; i < n_cps; i++) if (cps[i] != '\n') sorted[ns++] = cps[i];
    qsort(sorted, ns, sizeof(uint32_t), cmp_u32);
    vocab = malloc((ns + 1) * sizeof(uint32_t));
    vocab[0] = '\n';
    V = 1;
    for (size_t i = 0; i < ns; i++) if (i == 0 || sorted[i] != sorted[i - 1]) vocab[V++] = sorted[i];
    free(sorted);

    int *train, *train_starts, *val, *val_starts, n_train, n_train_starts, n_val, n_val_starts, dropped, val_dropped;
    tokenize(cps, n_cps, T, &train, &n_train, &train_starts, &n_train_starts, &dropped);
    tokenize(val_cps, n_val_cps, T, &val, &n_val, &val_starts, &n_val_starts, &val_dropped);

    qkv_gpt* g = NULL;
    int status = qkv_gpt_create(&g, V, L, H, C, T, B, seed);
    if (status) { fprintf(stderr, "pretrain: create: %s\n", qkv_error_message(status)); return 1; }
    if ((status = qkv_gpt_set_optimizer(g, (float)lr, 0.9f, 0.99f, 1e-8f, 0.01f, 1.0f, warmup, steps)) ||
        (status = qkv_gpt_set_data(g, train, n_train, train_starts, n_train_starts, val, n_val, val_starts, n_val_starts))) {
        fprintf(stderr, "pretrain: setup: %s\n", qkv_error_message(status));
        return 1;
    }
    char path[4096], model_path[4096], log_path[4096];
    snprintf(path, sizeof path, "%s/state.bin", run);
    snprintf(model_path, sizeof model_path, "%s/model.qkvgpt", run);
    snprintf(log_path, sizeof log_path, "%s/log.jsonl", run);
    double state_bytes;
    qkv_gpt_state_bytes(g, &state_bytes);
    unsigned char* state = malloc((size_t)state_bytes);
    if (resume) {
        size_t got;
        unsigned char* saved = (unsigned char*)read_file(path, &got);
        if (!saved || (double)got != state_bytes) die("--resume: no state.bin of this shape in the run folder");
        if ((status = qkv_gpt_load_state(g, saved, state_bytes))) { fprintf(stderr, "pretrain: %s\n", qkv_error_message(status)); return 1; }
        free(saved);
    }
    FILE* log = fopen(log_path, resume ? "a" : "w");
    if (!log) die("cannot open the log (does the run folder exist?)");
    fprintf(log, "{\"event\":\"%s\",\"V\":%d,\"L\":%d,\"H\":%d,\"C\":%d,\"T\":%d,\"B\":%d,\"lr\":%g,\"warmup\":%d,"
            "\"steps\":%d,\"seed\":%u,\"params\":%d,\"trainTokens\":%d,\"trainPoems\":%d,\"trainDropped\":%d,"
            "\"valPoems\":%d,\"valDropped\":%d,\"at\":%d}\n",
            resume ? "resume" : "start", V, L, H, C, T, B, lr, warmup, steps, seed, qkv_gpt_num_params(g), n_train,
            n_train_starts, dropped, n_val_starts, val_dropped, qkv_gpt_steps(g));
    fflush(log);
    printf("V %d, %d parameters, %d training poems, %d validation poems; from step %d to %d\n", V,
           qkv_gpt_num_params(g), n_train_starts, n_val_starts, qkv_gpt_steps(g), steps);
    fflush(stdout);

    double last_checkpoint = now_wall(), cpu0 = now_cpu(), wall0 = now_wall(), loss_acc = 0;
    int acc_n = 0;
    while (qkv_gpt_steps(g) < steps) {
        double loss, norm;
        status = qkv_gpt_step(g, &loss, &norm);
        if (status) { fprintf(stderr, "pretrain: step %d: %s\n", qkv_gpt_steps(g) + 1, qkv_error_message(status)); break; }
        loss_acc += loss; acc_n++;
        int t = qkv_gpt_steps(g);
        if (t % 50 == 0) {
            fprintf(log, "{\"step\":%d,\"loss\":%.5f,\"norm\":%.4f,\"cpu\":%.1f,\"wall\":%.1f}\n", t, loss_acc / acc_n, norm,
                    now_cpu() - cpu0, now_wall() - wall0);
            fflush(log);
            printf("step %d loss %.4f (mean of %d) norm %.3f, %.1f s cpu in this process\n", t, loss_acc / acc_n,
                   acc_n, norm, now_cpu() - cpu0);
            fflush(stdout);
            loss_acc = 0; acc_n = 0;
        }
        if (now_wall() - last_checkpoint > 60.0 * checkpoint_minutes || t == steps) {
            /* validation, a monitor only (the report scores every poem with the shipped file): the
               first 256 validation poems, one window each from its start */
            double sum = 0;
            int count = n_val_starts < 256 ? n_val_starts : 256;
            if ((status = qkv_gpt_evaluate(g, 1, 0, count, &sum))) { fprintf(stderr, "pretrain: evaluate failed\n"); break; }
            qkv_gpt_save_state(g, state, state_bytes);
            write_atomically(path, state, (size_t)state_bytes);
            write_model(model_path, g, L, H, C, T, seed);
            fprintf(log, "{\"checkpoint\":%d,\"valLossPerToken\":%.5f,\"cpu\":%.1f,\"wall\":%.1f}\n", t,
                    sum / ((double)count * T), now_cpu() - cpu0, now_wall() - wall0);
            fflush(log);
            printf("checkpoint at step %d: val loss %.4f per window token\n", t, sum / ((double)count * T));
            fflush(stdout);
            last_checkpoint = now_wall();
        }
    }
    fclose(log);
    qkv_gpt_destroy(g);
    return status ? 1 : 0;
}
