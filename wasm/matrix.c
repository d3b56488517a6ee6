/*
 * matrix.c: matrix multiply, transpose and row-wise softmax, each with its backward, and the
 * two product kernels everything else is built on:
 *   gemm_nn  out (n, m) (+)= A (n, k) . B (k, m)     register tiles of MR (4; relaxed 5) x 8 over
 *                                                   panels of B: each step p broadcasts
 *                                                   A[i][p] and multiplies it into B's row p, so
 *                                                   every out[i][j] sums its k terms in order
 *                                                   p = 0, 1, ...
 *   gemm_nt  out (n, m) (+)= A (n, k) . B (m, k)^T  dot products of A's rows with B's rows, read
 *                                                   as they are stored (no transposed copy)
 * Legend: n, k, m are the sides of out (n, m) = A (n, k) . B (k, m).
 * simd.h says how the SIMD128 and the portable versions stay bit-identical.
 */
#include <math.h>

#include "qkv_internal.h"
#include "simd.h"
#include "softmax.h"

/* ---- gemm_nn: A's element (r, q) is A[r * rs + q * cs], so A may be a stored transpose ----
 *
 * Register-blocked, as XNNPACK's f32 GEMM micro-kernels are: a tile of MR rows x PANEL columns of
 * out stays in registers while k terms stream through it, each step p broadcasting A[i][p] of
 * the MR rows and multiplying it into PANEL columns of B's row p. Every out[i][j] sums its k terms
 * in order p = 0, 1, ..., from +0 or from out's value, one rounded product and one rounded sum per
 * term (one fused multiply-add in the relaxed build): blocks, packing and tile widths change where
 * the numbers travel, not the sums, so the SIMD128 and portable builds stay bit for bit the same.
 *
 * The SIMD builds pack both operands, BLIS-style: a block of A (64 rows x GEMM_KB terms, 60 in
 * the relaxed build's 5-row tiles) tile by tile as [p][MR], then B a panel of 8 columns at a time
 * (GEMM_KB rows x 8, contiguous, the last columns padded with zeros; the relaxed build reads a full
 * panel of B rows of at most DIRECT_B floats in place instead, DIRECT_B below), so that the
 * micro-kernel reads both in order from one pointer each,
 * whatever A's layout (its rows, or a stored transpose: Aᵀ·B) and B's row length (the tied output
 * layer is 3,644 columns wide: unpacked, every step p touched another page); edge tiles (fewer
 * than MR rows or 8 columns) run the same micro-kernel on a copy of the tile, rows beyond the edge
 * packed as zeros (results dropped; the relaxed build's last tile of 4 rows runs a 4-row kernel in
 * place, nn_4x8); fewer than 4 rows in all (generation: 1 row) skip the packing, which would not
 * pay. The portable build keeps B as it
 * is, in cache blocks: gcc -O3 -march=native vectorises that loop nest well (the native trainer,
 * tools/pretrain.c), and vectorised the packed one badly (3.5 against 20 GFLOP/s measured).
 */

/* Rows per tile, and columns per panel (tuning constants: the sums are the same). SIMD: 8, two
   f32x4 per row. SIMD128: 4 rows, 8 accumulators (XNNPACK's 4x8 for x86). Relaxed SIMD: 5 rows,
   10 accumulators: a fused multiply-add takes 4 cycles and the processor starts two a cycle, so 8
   chains leave it no slack (4 rows ran at 84-92% of the build's ceiling alone, 5 at 96-97%:
   bench/microkernel.mjs). V8 allocates 15 xmm registers and hoists every load of a loop's step to
   its top, so 5 splats loaded at once spilled two accumulators (38%); the 5-row kernel loads rows
   0..3 of a step as one vector and splits it by shuffles, which V8 places next to their use, and
   loads row 4 as a splat: 10 + 2 (B) + 3 registers. SIMD128 ran that kernel slower (83-84%:
   its multiply and add are two instructions, and shuffles share their ports). Portable: 16 gives gcc
   and clang four 512- or eight 256-bit vector accumulators natively; the scalar WebAssembly build
   keeps 4 x 4 accumulators in locals, where V8 can hold them in registers. */
#ifdef __wasm_relaxed_simd__
#define MR 5
#else
#define MR 4
#endif
#ifdef __wasm_simd128__
#define PANEL 8
#elif defined(__wasm__)
#define PANEL 4
#else
#define PANEL 16
#endif

/* KB terms of the sum at a time (tuning constant: the sums are the same): a later k block adds to
   the float32 partial sum the earlier one stored, as a register would hold it, so the blocks leave
   the bits alone. SIMD: the packed panel, KB x 8 floats (8 KiB), lives on the kernels' stack
   (web/loader.js), beside the packed block of A (GEMM_IB_PACKED below). (Packing 2 or 4 panels per
   pass over B's rows, or KB 64 or 128, measured no faster here.) */
#define GEMM_KB 256

/* B rows of at most DIRECT_B floats (tuning constant: the sums are the same): the relaxed build's
   full panels read B where it is stored, DIRECT_B floats from one step to the next, instead of a
   packed copy. A panel of 8 columns then spans more cache lines (256 rows of a 64-float B: 16 KiB of
   lines for 8 KiB of values), but nothing is packed: 1.05x on the output layer's dlnf (40 x 3,644
   . 3,644 x 64, wte packed again by every block of rows), 0.99-1.04x on the blocks' products
   (products alone, interleaved in one process). SIMD128 measured 0.97-1.02x and keeps packing (0). */
#ifdef __wasm_relaxed_simd__
#define DIRECT_B 256
#else
#define DIRECT_B 0
#endif

/* paths that training does not take, optimised for size in the WebAssembly builds (clang) */
#if defined(__clang__) && defined(__wasm__)
#define QKV_COLD __attribute__((minsize, noinline))
#else
#define QKV_COLD
#endif

#ifdef __wasm_simd128__
#define MULADD(c, a, b) QKV_MADD((a), (b), (c))  /* c + a * b (see simd.h) */

/* out rows 0..MR-1 (ldo apart), 8 columns (+)= MR rows of A packed by pack_a_block (term p of row r at
   pa[p * MR + r]) . the panel, its rows ldp floats apart (packed: 8; B in place: its row length;
   the loops over r unroll: 2 x MR accumulators in registers; 5 rows: rows 0..3 one load split by
   shuffles, see MR). B in place, the loop's end may point past B by less than a row: a
   WebAssembly address, never dereferenced, in a memory of at most 1 GiB (it cannot wrap).
   Both operands are read in order from one pointer each, so the addresses of a step are constant
   offsets from two registers, which V8 folds into the loads. That needs the kernels compiled
   without loop strength reduction (emcc's default; build.sh asks clang 16 for it): with it, clang
   gives every load a pointer of its own, an integer addition per load per step (6 per 8
   multiply-adds, about a quarter of the relaxed build's loop). */
__attribute__((always_inline)) static inline void nn_tile(float* out, int ldo, const float* pa, const float* panel,
                                                         int ldp, int k, int acc, int rows) {
    v128_t c0[MR], c1[MR];
    for (int r = 0; r < rows; r++) {
        c0[r] = acc ? wasm_v128_load(out + (size_t)r * ldo) : wasm_f32x4_splat(0.0f);
        c1[r] = acc ? wasm_v128_load(out + (size_t)r * ldo + 4) : wasm_f32x4_splat(0.0f);
    }
    /* the panel's end rather than a count of steps: one integer instruction less per step */
#if !DIRECT_B
    ldp = PANEL;  /* a constant where B is always packed: the first load's code as before */
#endif
    for (const float *b = panel, *end = panel + (size_t)k * ldp; b < end; b += ldp, pa += MR) {
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);
#if MR == 5
        v128_t a = wasm_v128_load(pa), x;
        x = wasm_i32x4_shuffle(a, a, 0, 0, 0, 0); c0[0] = MULADD(c0[0], x, b0); c1[0] = MULADD(c1[0], x, b1);
        x = wasm_i32x4_shuffle(a, a, 1, 1, 1, 1); c0[1] = MULADD(c0[1], x, b0); c1[1] = MULADD(c1[1], x, b1);
        x = wasm_i32x4_shuffle(a, a, 2, 2, 2, 2); c0[2] = MULADD(c0[2], x, b0); c1[2] = MULADD(c1[2], x, b1);
        x = wasm_i32x4_shuffle(a, a, 3, 3, 3, 3); c0[3] = MULADD(c0[3], x, b0); c1[3] = MULADD(c1[3], x, b1);
        if (rows > 4) {
            x = wasm_v128_load32_splat(pa + 4); c0[4] = MULADD(c0[4], x, b0); c1[4] = MULADD(c1[4], x, b1);
        }
#else
        for (int r = 0; r < rows; r++) {
            v128_t x = wasm_v128_load32_splat(pa + r);
            c0[r] = MULADD(c0[r], x, b0);
            c1[r] = MULADD(c1[r], x, b1);
        }
#endif
    }
    for (int r = 0; r < rows; r++) {
        wasm_v128_store(out + (size_t)r * ldo, c0[r]);
        wasm_v128_store(out + (size_t)r * ldo + 4, c1[r]);
    }
}

static void nn_mrx8(float* out, int ldo, const float* pa, const float* panel, int ldp, int k, int acc) {
    nn_tile(out, ldo, pa, panel, ldp, k, acc, MR);
}

#if MR == 5
/* the relaxed build's tiles of 4 rows, from the same [p][5] packing (row 4 zeros, not read):
   attention's blocks of 4 query rows (weights . V) and a product's last 4 rows, which ran whole
   5-row tiles on a copy, or row by row (1.06x slower attention, 32 x 16 and 1024 x 64) */
static void nn_4x8(float* out, int ldo, const float* pa, const float* panel, int ldp, int k, int acc) {
    nn_tile(out, ldo, pa, panel, ldp, k, acc, 4);
}
#endif

/* one row, cols <= 4 columns of B (unpacked), as lanes of a vector padded with zeros: the same lane
   arithmetic as the packed panels' (in the relaxed build, fused as there, so that one row and four
   give the same bits: generation with and without the KV cache). Size-optimised, as the other
   paths that training does not take (the kernels travel inside every page that embeds the widget). */
QKV_COLD static void nn_1xr(float* out, const float* A, size_t cs, const float* B, int ldb, int k, int acc, int cols) {
    float start[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    for (int c = 0; c < cols && acc; c++) start[c] = out[c];
    v128_t s = wasm_v128_load(start);
    for (int p = 0; p < k; p++, A += cs, B += ldb)
        s = MULADD(s, wasm_v128_load32_splat(A),
                   wasm_f32x4_make(B[0], cols > 1 ? B[1] : 0.0f, cols > 2 ? B[2] : 0.0f, cols > 3 ? B[3] : 0.0f));
    wasm_v128_store(start, s);
    for (int c = 0; c < cols; c++) out[c] = start[c];
}

#endif

#ifdef __wasm_simd128__
/* Columns per block of a row times B (tuning constant: the sums are the same). The row's block of
   out (GEMV_JB floats) stays in L1 while B's rows stream through it, GEMV_PG rows at a time, each
   read in order. A tile of 8 columns running down all k rows of B, as the 4-row kernel does, touches
   k rows a whole B row apart for every 8 columns: that ran the generator's output layer
   (1 x 128 x 6,509) at 1 GFLOP/s. */
#define GEMV_JB 1024
#define GEMV_PG 4

/* out[0..cols) (cols a multiple of 8) (+)= a (terms cs apart) . B's rows 0..k-1 (ldb apart),
   columns 0..cols-1: every out[j] sums its k terms in order p = 0, 1, ..., as nn_mrx8's lanes do */
static void nn_1xblock(float* out, const float* a, size_t cs, const float* B, int ldb, int k, int cols, int acc) {
    if (!acc)
        for (int j = 0; j < cols; j += 4) wasm_v128_store(out + j, wasm_f32x4_splat(0.0f));
    int p = 0;
    for (; p + GEMV_PG <= k; p += GEMV_PG) {
        v128_t x[GEMV_PG];
        const float* b[GEMV_PG];
        for (int q = 0; q < GEMV_PG; q++) {
            x[q] = wasm_v128_load32_splat(a + (size_t)(p + q) * cs);
            b[q] = B + (size_t)(p + q) * ldb;
        }
        for (int j = 0; j < cols; j += 8) {
            v128_t c0 = wasm_v128_load(out + j), c1 = wasm_v128_load(out + j + 4);
            for (int q = 0; q < GEMV_PG; q++) {
                c0 = MULADD(c0, x[q], wasm_v128_load(b[q] + j));
                c1 = MULADD(c1, x[q], wasm_v128_load(b[q] + j + 4));
            }
            wasm_v128_store(out + j, c0);
            wasm_v128_store(out + j + 4, c1);
        }
    }
    for (; p < k; p++) {
        v128_t x = wasm_v128_load32_splat(a + (size_t)p * cs);
        const float* b = B + (size_t)p * ldb;
        for (int j = 0; j < cols; j += 4) wasm_v128_store(out + j, MULADD(wasm_v128_load(out + j), x, wasm_v128_load(b + j)));
    }
}

/* fewer than 4 rows: each row against B as it is stored, in column blocks */
static void gemm_nn_rows(float* out, const float* A, size_t rs, size_t cs, const float* B, int n, int k,
                         int m, int acc) {
    for (int i = 0; i < n; i++) {
        float* o = out + (size_t)i * m;
        const float* a = A + (size_t)i * rs;
        int j = 0;
        for (; j + 8 <= m; j += GEMV_JB) {
            int cols = (m - j) & ~7;
            if (cols > GEMV_JB) cols = GEMV_JB;
            nn_1xblock(o + j, a, cs, B + j, m, k, cols, acc);
            if (cols < GEMV_JB) { j += cols; break; }
        }
        for (; j < m; j += 4) nn_1xr(o + j, a, cs, B + j, m, k, acc, m - j < 4 ? m - j : 4);
    }
}

/* panel (kb, PANEL) = B's rows 0..kb-1 (ldb apart), columns 0..cols-1 (cols <= PANEL), then zeros */
static void pack_panel(float* panel, const float* B, int ldb, int kb, int cols) {
    for (int p = 0; p < kb; p++, panel += PANEL, B += ldb) {
        int c = 0;
        if (cols == PANEL)
            for (; c < PANEL; c += 4) wasm_v128_store(panel + c, wasm_v128_load(B + c));
        for (; c < cols; c++) panel[c] = B[c];
        for (; c < PANEL; c++) panel[c] = 0.0f;
    }
}

/* an edge tile: the same sums on a copy (+0 where out is not accumulated: the kernel starts there) */
QKV_COLD static void nn_edge(float* out, int ldo, const float* pa, const float* panel, int k, int rows, int cols,
                             int acc) {
    float tile[MR * PANEL];
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < PANEL; c++)
            tile[r * PANEL + c] = acc && r < rows && c < cols ? out[(size_t)r * ldo + c] : 0.0f;
    nn_mrx8(tile, PANEL, pa, panel, PANEL, k, 1);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) out[(size_t)r * ldo + c] = tile[r * PANEL + c];
}

/* fewer than MR rows of A (the last tile of a block), as pack_a_block packs a tile, rows beyond
   them zeros (their sums are dropped) */
QKV_COLD static void pack_a_rows(float* packed, const float* A, size_t rs, size_t cs, int kb, int rows) {
    for (int p = 0; p < kb; p++, packed += MR)
        for (int r = 0; r < MR; r++) packed[r] = r < rows ? A[r * rs + (size_t)p * cs] : 0.0f;
}

/* rows 0..rows-1 of A (element (r, p) at A[r * rs + p * cs]), kb terms, packed tile by tile as
   [p][MR] (a tile's MR values of term p side by side), so that the kernel reads every tile's terms
   in order from one run of kb x MR floats, from L1 or L2, whatever A's layout: A's rows (rs k, cs 1:
   4 x 4 blocks transposed in registers, a fifth row copied) or a stored transpose (rs 1: MR
   adjacent floats per term, one load and, for a fifth, a copy; the tied table's gradient read dlogits so, every term a row of 3,644 floats further,
   once per panel of B before it was packed) */
static void pack_a_block(float* packed, const float* A, size_t rs, size_t cs, int kb, int rows) {
    int i = 0;
    /* whole tiles, and a last one of 4 rows (MR 5: row 4 zeros) */
    for (; i + 4 <= rows; i += MR, packed += (size_t)MR * kb) {
        const float* a = A + (size_t)i * rs;
        float* d = packed;
        int p = 0, tr = rows - i < MR ? rows - i : MR;
        if (rs == 1) {
            for (; p < kb; p++, a += cs, d += MR) {
                wasm_v128_store(d, wasm_v128_load(a));
                for (int r = 4; r < MR; r++) d[r] = r < tr ? a[r] : 0.0f;
            }
        } else if (cs == 1) {
            for (; p + 4 <= kb; p += 4, d += 4 * MR) {
                v128_t r0 = wasm_v128_load(a + p), r1 = wasm_v128_load(a + rs + p);
                v128_t r2 = wasm_v128_load(a + 2 * rs + p), r3 = wasm_v128_load(a + 3 * rs + p);
                v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
                v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
                /* terms p..p+3 of rows 0..3, MR floats apart (rows 4.. after each: a 5-row tile) */
                wasm_v128_store(d, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
                wasm_v128_store(d + MR, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
                wasm_v128_store(d + 2 * MR, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
                wasm_v128_store(d + 3 * MR, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
                for (int r = 4; r < MR; r++)
                    for (int q = 0; q < 4; q++) d[q * MR + r] = r < tr ? a[r * rs + p + q] : 0.0f;
            }
        }
        if (p < kb) pack_a_rows(d, a + (size_t)p * cs, rs, cs, kb - p, tr);
    }
    if (i < rows) pack_a_rows(packed, A + (size_t)i * rs, rs, cs, kb, rows - i);
}

/* Rows per packed block of A at the full GEMM_KB terms (tuning constant: the sums are the same):
   GEMM_IB_PACKED x GEMM_KB floats, 64 KiB on the kernels' stack (web/loader.js), in L2 while every
   panel of B passes over it (128 rows measured no faster). A shorter sum fills the same buffer with
   more rows (gemm_nn's ib), so that B's panels are packed fewer times; rows are rounded down to
   whole tiles (the relaxed build's 5 rows: 60 at GEMM_KB terms). */
#define GEMM_IB_PACKED 64

static void gemm_nn(float* out, const float* A, size_t rs, size_t cs, const float* B, int n, int k,
                    int m, int acc) {
    if (n < 4) {  /* fewer than 4 rows (the relaxed build's 4-row tiles take 4: nn_4x8) */
        gemm_nn_rows(out, A, rs, cs, B, n, k, m, acc);
        return;
    }
    float panel[GEMM_KB * PANEL];
    float a_block[GEMM_IB_PACKED * GEMM_KB];
    /* p0 == 0 once when k is 0: out is then zeroed (or kept) as without blocks */
    for (int p0 = 0; p0 < k || p0 == 0; p0 += GEMM_KB) {
        int kb = k - p0 < GEMM_KB ? k - p0 : GEMM_KB;
        int accumulate = acc || p0 > 0;
        /* rows per packed block: as many as its buffer holds at this kb in whole tiles (the
           logits' 64 terms: 256 rows, 255 in 5-row tiles), so that each panel of B is packed fewer times; the sums are the same */
        int ib = GEMM_IB_PACKED * GEMM_KB / (kb > 0 ? kb : 1) / MR * MR;
        for (int i0 = 0; i0 < n; i0 += ib) {
            int rows = n - i0 < ib ? n - i0 : ib;
            pack_a_block(a_block, A + (size_t)i0 * rs + (size_t)p0 * cs, rs, cs, kb, rows);
            for (int j = 0; j < m; j += PANEL) {
                int cols = m - j < PANEL ? m - j : PANEL;
                const float* bp = B + (size_t)p0 * m + j;
                int direct = DIRECT_B && m <= DIRECT_B && cols == PANEL;
                if (!direct) pack_panel(panel, bp, m, kb, cols);
                const float* b = direct ? bp : panel;  /* what full tiles read, ldp floats a row */
                int ldp = direct ? m : PANEL;
                for (int i = 0; i < rows; i += MR) {
                    float* o = out + (size_t)(i0 + i) * m + j;
                    const float* pa = a_block + (size_t)i * kb;
                    int left = rows - i < MR ? rows - i : MR;
                    if (left == MR && cols == PANEL) nn_mrx8(o, m, pa, b, ldp, kb, accumulate);
#if MR == 5
                    else if (left == 4 && cols == PANEL) nn_4x8(o, m, pa, b, ldp, kb, accumulate);
#endif
                    else {
                        if (direct) pack_panel(panel, bp, m, kb, cols);
                        nn_edge(o, m, pa, panel, kb, left, cols, accumulate);
                    }
                }
            }
        }
    }
}

#else
/* one output entry: sum_p A(r, p) B[p][j] in order p = 0, 1, ... (the lanes of the SIMD kernels) */
static float nn_dot(const float* A, size_t cs, const float* B, int ldb, int k, float start) {
    float c = start;
    for (int p = 0; p < k; p++) c += A[(size_t)p * cs] * B[(size_t)p * ldb];
    return c;
}

/* one cache block: out (n, m), rows ldo floats apart, (+)= A (n, k) . B (k, m), rows ldb apart */
static void gemm_nn_block(float* out, int ldo, const float* A, size_t rs, size_t cs, const float* B, int ldb,
                          int n, int k, int m, int acc) {
    int i = 0;
    /* portable: the same sums in 4 x PANEL tiles of local accumulators, which a vectorising
       compiler keeps in vector registers; out[i][j] still sums p = 0, 1, ... in order */
    for (; i + 4 <= n; i += 4) {
        float* o = out + (size_t)i * ldo;
        const float* a = A + (size_t)i * rs;
        int j = 0;
        for (; j + PANEL <= m; j += PANEL) {
            float c0[PANEL], c1[PANEL], c2[PANEL], c3[PANEL];
            for (int t = 0; t < PANEL; t++) {
                c0[t] = acc ? o[j + t] : 0.0f;
                c1[t] = acc ? o[(size_t)ldo + j + t] : 0.0f;
                c2[t] = acc ? o[2 * (size_t)ldo + j + t] : 0.0f;
                c3[t] = acc ? o[3 * (size_t)ldo + j + t] : 0.0f;
            }
            for (int p = 0; p < k; p++) {
                const float* b = B + (size_t)p * ldb + j;
                size_t q = (size_t)p * cs;
                float x0 = a[q], x1 = a[rs + q], x2 = a[2 * rs + q], x3 = a[3 * rs + q];
                for (int t = 0; t < PANEL; t++) {
                    c0[t] += x0 * b[t];
                    c1[t] += x1 * b[t];
                    c2[t] += x2 * b[t];
                    c3[t] += x3 * b[t];
                }
            }
            for (int t = 0; t < PANEL; t++) {
                o[j + t] = c0[t];
                o[(size_t)ldo + j + t] = c1[t];
                o[2 * (size_t)ldo + j + t] = c2[t];
                o[3 * (size_t)ldo + j + t] = c3[t];
            }
        }
        for (; j < m; j++)
            for (int r = 0; r < 4; r++)
                o[(size_t)r * ldo + j] = nn_dot(a + r * rs, cs, B + j, ldb, k, acc ? o[(size_t)r * ldo + j] : 0.0f);
    }
    for (; i < n; i++) {
        float* o = out + (size_t)i * ldo;
        const float* a = A + (size_t)i * rs;
        if (!acc)
            for (int j = 0; j < m; j++) o[j] = 0.0f;
        for (int p = 0; p < k; p++) {
            float x = a[(size_t)p * cs];
            const float* b = B + (size_t)p * ldb;
            for (int j = 0; j < m; j++) o[j] += x * b[j];
        }
    }
}

/* Cache blocks (tuning constants: the sums are the same): GEMM_KB terms of the sum and JB columns
   at a time, so that B's block (at most KB x JB floats, 256 KiB) stays in cache while every row strip of
   out passes over it, instead of each strip streaming all of B (the GPT's tied output layer: B is
   3,644 columns wide, or 3,644 rows deep). out[i][j] still sums p = 0, 1, ... in order: a later k
   block adds to the float32 partial sum the earlier one stored, as a register would hold it; JB
   is a multiple of every tile width, so each column is computed by the same tile as without
   blocks. */
#define GEMM_JB 256

static void gemm_nn(float* out, const float* A, size_t rs, size_t cs, const float* B, int n, int k,
                    int m, int acc) {
    /* p0 == 0 once when k is 0: out is then zeroed (or kept) as without blocks */
    for (int p0 = 0; p0 < k || p0 == 0; p0 += GEMM_KB) {
        int kb = k - p0 < GEMM_KB ? k - p0 : GEMM_KB;
        for (int j0 = 0; j0 < m; j0 += GEMM_JB) {
            int mb = m - j0 < GEMM_JB ? m - j0 : GEMM_JB;
            gemm_nn_block(out + j0, m, A + (size_t)p0 * cs, rs, cs, B + (size_t)p0 * m + j0, m, n, kb, mb, acc || p0 > 0);
        }
    }
}

#endif

/* ---- gemm_nt: dot products of rows, 4 partial sums each (see simd.h) ---- */

static float dot_rows(const float* a, const float* b, int k) {
    int p = 0;
    float sum;
#ifdef __wasm_simd128__
    v128_t s = wasm_f32x4_splat(0.0f);
    for (; p + 4 <= k; p += 4) s = MULADD(s, wasm_v128_load(a + p), wasm_v128_load(b + p));
    sum = qkv_sum4(s);
#else
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (; p + 4 <= k; p += 4) {
        s0 += a[p] * b[p];
        s1 += a[p + 1] * b[p + 1];
        s2 += a[p + 2] * b[p + 2];
        s3 += a[p + 3] * b[p + 3];
    }
    sum = (s0 + s2) + (s1 + s3);
#endif
    for (; p < k; p++) sum += a[p] * b[p];
    return sum;
}

#ifdef __wasm_simd128__
/* rows i, i+1 of A against rows j..j+3 of B: 8 dot products, 4 lanes each */
static void nt_2x4(float* out, int ldo, const float* A, const float* B, int k, int acc) {
    const float *a0 = A, *a1 = A + k;
    const float *b0 = B, *b1 = B + k, *b2 = B + 2 * (size_t)k, *b3 = B + 3 * (size_t)k;
    v128_t z = wasm_f32x4_splat(0.0f);
    v128_t c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
    int p = 0;
    for (; p + 4 <= k; p += 4) {
        v128_t x0 = wasm_v128_load(a0 + p), x1 = wasm_v128_load(a1 + p);
        v128_t y = wasm_v128_load(b0 + p);
        c00 = MULADD(c00, x0, y); c10 = MULADD(c10, x1, y);
        y = wasm_v128_load(b1 + p);
        c01 = MULADD(c01, x0, y); c11 = MULADD(c11, x1, y);
        y = wasm_v128_load(b2 + p);
        c02 = MULADD(c02, x0, y); c12 = MULADD(c12, x1, y);
        y = wasm_v128_load(b3 + p);
        c03 = MULADD(c03, x0, y); c13 = MULADD(c13, x1, y);
    }
    v128_t s0 = qkv_sum4x4(c00, c01, c02, c03), s1 = qkv_sum4x4(c10, c11, c12, c13);
    for (; p < k; p++) {  /* the k mod 4 leftover terms, in order, for the 4 columns at once */
        v128_t y = wasm_f32x4_make(b0[p], b1[p], b2[p], b3[p]);
        s0 = MULADD(s0, wasm_f32x4_splat(a0[p]), y);
        s1 = MULADD(s1, wasm_f32x4_splat(a1[p]), y);
    }
    if (acc) {
        s0 = wasm_f32x4_add(wasm_v128_load(out), s0);
        s1 = wasm_f32x4_add(wasm_v128_load(out + ldo), s1);
    }
    wasm_v128_store(out, s0);
    wasm_v128_store(out + ldo, s1);
}
#endif

#ifndef __wasm_simd128__
/* portable nt_2x4: the same 8 dot products, lane l of each summing p = l (mod 4) */
static void nt_2x4(float* out, int ldo, const float* A, const float* B, int k, int acc) {
    float s[2][4][4];
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 4; l++) s[0][c][l] = s[1][c][l] = 0.0f;
    int p = 0;
    for (; p + 4 <= k; p += 4)
        for (int c = 0; c < 4; c++) {
            const float* b = B + (size_t)c * k + p;
            for (int l = 0; l < 4; l++) {
                s[0][c][l] += A[p + l] * b[l];
                s[1][c][l] += A[k + p + l] * b[l];
            }
        }
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 4; c++) {
            float sum = (s[r][c][0] + s[r][c][2]) + (s[r][c][1] + s[r][c][3]);
            for (int q = p; q < k; q++) sum += A[(size_t)r * k + q] * B[(size_t)c * k + q];
            out[(size_t)r * ldo + c] = acc ? out[(size_t)r * ldo + c] + sum : sum;
        }
}
#endif

static void gemm_nt(float* out, const float* A, const float* B, int n, int k, int m, int acc) {
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        const float* a = A + (size_t)i * k;
        float* o = out + (size_t)i * m;
        int j = 0;
        for (; j + 4 <= m; j += 4) nt_2x4(o + j, m, a, B + (size_t)j * k, k, acc);
        for (; j < m; j++) {
            float s0 = dot_rows(a, B + (size_t)j * k, k), s1 = dot_rows(a + k, B + (size_t)j * k, k);
            o[j] = acc ? o[j] + s0 : s0;
            o[m + j] = acc ? o[m + j] + s1 : s1;
        }
    }
    for (; i < n; i++) {
        const float* a = A + (size_t)i * k;
        float* o = out + (size_t)i * m;
        for (int j = 0; j < m; j++) {
            float s = dot_rows(a, B + (size_t)j * k, k);
            o[j] = acc ? o[j] + s : s;
        }
    }
}

/* ---- the products the layers use ---- */

void matmul_forward(float* out, const float* A, const float* B, int n, int k, int m) {
    gemm_nn(out, A, (size_t)k, 1, B, n, k, m, 0);
}

void matmul_accumulate(float* out, const float* A, const float* B, int n, int k, int m) {
    gemm_nn(out, A, (size_t)k, 1, B, n, k, m, 1);
}

/* out = A . B  ->  dA += dout . B^T,  dB += A^T . dout */
void matmul_backward(float* dA, float* dB, const float* dout, const float* A, const float* B,
                     int n, int k, int m) {
    if (dA) gemm_nt(dA, dout, B, n, m, k, 1);               /* (n, m) x (k, m)^T -> (n, k) */
    if (dB) gemm_nn(dB, A, 1, (size_t)k, dout, k, n, m, 1);  /* A^T (k, n) x (n, m) -> (k, m) */
}

/* out (n, m) = A (n, k) . B (m, k)^T: row i of A dotted with row j of B */
void matmul_abt(float* out, const float* A, const float* B, int n, int k, int m) {
    gemm_nt(out, A, B, n, k, m, 0);
}

/* out (n, m) = A (n, k) . B (k, m), A's rows lda floats apart */
void matmul_rows(float* out, const float* A, int lda, const float* B, int n, int k, int m) {
    gemm_nn(out, A, (size_t)lda, 1, B, n, k, m, 0);
}

/* out (n, m) = A (k, n)^T . B (k, m), written: the bits of matmul_atb_accumulate into zeros (both
   start each sum at +0), without the zeros */
void matmul_atb(float* out, const float* A, const float* B, int n, int k, int m) {
    gemm_nn(out, A, 1, (size_t)n, B, n, k, m, 0);
}

/* out (n, m) += A (k, n)^T . B (k, m) */
void matmul_atb_accumulate(float* out, const float* A, const float* B, int n, int k, int m) {
    gemm_nn(out, A, 1, (size_t)n, B, n, k, m, 1);
}

/* ---- softmax ---- */

/* w (cols) = softmax(z) of one row, -inf entries 0 */
void softmax_row(float* w, const float* z, int cols, float max) {
    float inv = softmax_row_exp(w, z, cols, max, 0);
    int j = 0;
#ifdef __wasm_simd128__
    v128_t vinv = wasm_f32x4_splat(inv);
    for (; j + 4 <= cols; j += 4) wasm_v128_store(w + j, wasm_f32x4_mul(wasm_v128_load(w + j), vinv));
#endif
    for (; j < cols; j++) w[j] *= inv;
}

/* the largest entry of a row (-inf when every entry is -inf): softmax.h's */
float row_max(const float* z, int cols) { return softmax_row_max(z, cols); }

int softmax_rows_forward(float* out, const float* S, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* s = S + (size_t)i * cols;
        /* subtracting the row max keeps exp() in range: scores of +-1e4 stay exact */
        float max = row_max(s, cols);
        if (!isfinite(max)) return QKV_ERR_MASKED_ROW;
        softmax_row(out + (size_t)i * cols, s, cols, max);
    }
    return QKV_OK;
}

/* W = softmax_rows(Z)  ->  dZ[i][j] = W[i][j] * (dW[i][j] - sum_k dW[i][k] * W[i][k]) */
void softmax_rows_backward(float* dZ, const float* dW, const float* W, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* w = W + (size_t)i * cols;
        const float* dw = dW + (size_t)i * cols;
        float* dz = dZ + (size_t)i * cols;
        float dot = dot_rows(dw, w, cols);
        int j = 0;
#ifdef __wasm_simd128__
        v128_t vdot = wasm_f32x4_splat(dot);
        for (; j + 4 <= cols; j += 4)
            wasm_v128_store(dz + j, wasm_f32x4_mul(wasm_v128_load(w + j),
                                                   wasm_f32x4_sub(wasm_v128_load(dw + j), vdot)));
#endif
        for (; j < cols; j++) dz[j] = w[j] * (dw[j] - dot);
    }
}

/* ---- transpose: 32 x 32 blocks, so that reads and writes both stay within cache lines ---- */

static void transpose_block(float* out, const float* A, int rows, int cols, int i0, int i1, int j0,
                            int j1) {
    int i = i0;
#ifdef __wasm_simd128__
    for (; i + 4 <= i1; i += 4) {
        const float* a = A + (size_t)i * cols;
        int j = j0;
        for (; j + 4 <= j1; j += 4) {  /* a 4 x 4 transpose in registers */
            v128_t r0 = wasm_v128_load(a + j), r1 = wasm_v128_load(a + cols + j);
            v128_t r2 = wasm_v128_load(a + 2 * (size_t)cols + j), r3 = wasm_v128_load(a + 3 * (size_t)cols + j);
            v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
            v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
            float* o = out + (size_t)j * rows + i;
            wasm_v128_store(o, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
            wasm_v128_store(o + rows, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
            wasm_v128_store(o + 2 * (size_t)rows, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
            wasm_v128_store(o + 3 * (size_t)rows, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
        }
        for (; j < j1; j++)
            for (int r = 0; r < 4; r++) out[(size_t)j * rows + i + r] = a[(size_t)r * cols + j];
    }
#endif
    for (; i < i1; i++)
        for (int j = j0; j < j1; j++) out[(size_t)j * rows + i] = A[(size_t)i * cols + j];
}

void transpose_forward(float* out, const float* A, int rows, int cols) {
    enum { BLOCK = 32 };
    for (int i = 0; i < rows; i += BLOCK)
        for (int j = 0; j < cols; j += BLOCK)
            transpose_block(out, A, rows, cols, i, i + BLOCK < rows ? i + BLOCK : rows, j,
                            j + BLOCK < cols ? j + BLOCK : cols);
}

/* ---- checked public versions ---- */

int qkv_matmul(float* out, const float* A, const float* B, int n, int k, int m) {
    if (!out || !A || !B) return QKV_ERR_NULL;
    size_t a = qkv_elements(n, k), b = qkv_elements(k, m);
    if (!a || !b || !qkv_elements(n, m)) return QKV_ERR_SIZE;
    if (qkv_check_finite(A, a) || qkv_check_finite(B, b)) return QKV_ERR_NONFINITE;
    matmul_forward(out, A, B, n, k, m);
    /* finite inputs can still overflow: never hand back Infinity or NaN as an answer */
    if (qkv_check_finite(out, (size_t)n * m)) return QKV_ERR_OVERFLOW;
    return QKV_OK;
}

int qkv_transpose(float* out, const float* A, int rows, int cols) {
    if (!out || !A) return QKV_ERR_NULL;
    size_t count = qkv_elements(rows, cols);
    if (!count) return QKV_ERR_SIZE;
    if (out == A) return QKV_ERR_ARGUMENT;  /* in place would overwrite what it still reads */
    if (qkv_check_finite(A, count)) return QKV_ERR_NONFINITE;
    transpose_forward(out, A, rows, cols);
    return QKV_OK;
}

int qkv_softmax_rows(float* out, const float* S, int rows, int cols) {
    if (!out || !S) return QKV_ERR_NULL;
    size_t count = qkv_elements(rows, cols);
    if (!count) return QKV_ERR_SIZE;
    /* -inf is a mask; NaN and +inf have no meaning as scores */
    for (size_t i = 0; i < count; i++)
        if (isnan(S[i]) || S[i] == INFINITY) return QKV_ERR_NONFINITE;
    return softmax_rows_forward(out, S, rows, cols);
}
