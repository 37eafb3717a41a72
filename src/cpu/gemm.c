/* gemm.c — the packed, cache-blocked float32 matrix product (BLIS/OpenBLAS structure).
 *
 *   C[M,N] = beta * C + A[M,K] @ B[K,N]      (any element strides for A, B and C)
 *
 * Loop nest (Note [GEMM blocking]):
 *   jc: NC columns of B      -> B block KC x NC is packed into NR-wide micro-panels (lives in L2/L3, shared)
 *   pc: KC of the depth      -> (packed per jc, pc)
 *   ic: MC rows of A         -> A block MC x KC is packed into MR-tall micro-panels (lives in L2, per thread)
 *   jr, ir: one MR x NR tile of C, computed in registers by the micro-kernel over KC rank-1 updates
 * The B micro-panel (KC x NR) is reused by every A micro-panel of the block (L1/L2).
 *
 * Micro-kernels, chosen once at run time: AVX-512 6x64 (x86 with avx512f), AVX2+FMA 6x16 (x86 with avx2/fma),
 * wasm simd128 6x16, and a portable scalar 6x16, all with the same packing code (MR/NR are run-time values).
 * Every kernel sums each C element's products in the same order (p = 0..kc-1 with one fused multiply-add per
 * step, then the KC blocks in order), and the threads split only the output (rows of C, or NR-column panels), so
 * the result does not depend on the thread count, nor on whether a small product skipped the packing of B.
 * The naive reference (wk_gemm_f32_ref) stays beside them; tests/c/test_gemm.c compares the two on odd shapes
 * and strides with 1..4 threads.
 *
 * Small products (Note [GEMM small]): when B is row-contiguous and the whole product is small, full NR-wide
 * panels of B are read in place (row stride rsb) instead of being packed, and nothing runs on the pool; packing
 * buffers are kept between calls (Note [GEMM buffers]), so a 64^3 product allocates nothing. */
#include <stdlib.h>
#include "gemm.h"

#include "threadpool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WK_X86 1
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#include <stdatomic.h>

#ifndef A5_MR
#define A5_MR 6 /* rows of the AVX-512 tile: A5_NV x A5_MR accumulators of the 32 zmm registers */
#endif
#ifndef A5_NV
#define A5_NV 4 /* 16-float vectors per row of the AVX-512 tile (6x64: bench/NOTES.md) */
#endif
#define MR_MAX (A5_MR > 6 ? A5_MR : 6)
#define NR_MAX (16 * A5_NV > 16 ? 16 * A5_NV : 16)
/* Block sizes (tuned on the project's machine, see bench/NOTES.md; -D overrides them for tuning runs):
 *   KC       depth of a block: the A micro-panel MR x KC (6 KiB) stays in L1, the B micro-panel KC x NR (64 KiB
 *            at 256 x 64) in L1/L2; 6x64 needs 10 loads per 24 FMAs (12x32: 14), which measured a little faster
 *   MC_ROWS  rows of A per packed block (rounded down to a multiple of MR): MC x KC in L2
 *   NC       columns of B per packed block: KC x NC in L2/L3, shared by the threads */
#ifndef KC
#define KC 256
#endif
#ifndef MC_ROWS
#define MC_ROWS 192
#endif
#ifndef NC
#define NC 4096
#endif
#define GEMM_SMALL_FLOPS (2.0 * 128 * 128 * 128) /* Note [GEMM small] */

/* ---- the naive reference ---- */
void wk_gemm_f32_ref(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa, const float *B,
                     int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc, int64_t csc) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0;
            for (int64_t p = 0; p < K; p++) acc += A[i * rsa + p * csa] * B[p * rsb + j * csb];
            float *c = &C[i * rsc + j * csc];
            *c = beta == 0 ? acc : beta * *c + acc;
        }
}

/* ---- micro-kernels ----
 * One MR x NR tile: acc = sum_p pa[p][0..MR) (outer) pb[p][0..NR), pa packed (pa[p * MR + r]), pb rows ldb apart
 * (NR when packed). Then the tile c (rows rsc apart, columns contiguous) gets, by mode:
 *   SET: c = acc     BETA: c = beta * c + acc     ADD: c = c + acc */
enum { SET, BETA, ADD };
typedef void (*ukernel_fn)(int64_t kc, const float *pa, int64_t lr, int64_t lp, const float *pb, int64_t ldb, float *c,
                           int64_t rsc, int mode, float beta, int rows, int cols);
/* rows x cols: the part of the tile to write (kernels with `edges` write partial tiles themselves; the others
 * are only called with full tiles and ignore them).
 * pa: A's element (row r, depth p) at pa[r * lr + p * lp] — packed: lr = 1, lp = MR; in place: A's own strides */

static inline float fma_ref(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

/* the scalar kernel rounds as the SIMD ones do: one fused multiply-add per product */
#define S_MR 6
#define S_NR 16
static void ukernel_scalar(int64_t kc, const float *pa, int64_t lr, int64_t lp, const float *pb, int64_t ldb, float *c,
                           int64_t rsc, int mode, float beta, int rows, int cols) {
    WK_UNUSED(rows), WK_UNUSED(cols);
    float t[S_MR][S_NR] = {{0}};
    for (int64_t p = 0; p < kc; p++, pa += lp, pb += ldb)
        for (int r = 0; r < S_MR; r++)
            for (int q = 0; q < S_NR; q++) t[r][q] = fma_ref(pa[r * lr], pb[q], t[r][q]);
    for (int r = 0; r < S_MR; r++)
        for (int q = 0; q < S_NR; q++) {
            float *d = &c[r * rsc + q];
            *d = mode == SET ? t[r][q] : mode == BETA ? beta * *d + t[r][q] : *d + t[r][q];
        }
}

#if defined(WK_X86)
#define A2_MR 6
#define A2_NR 16
__attribute__((target("avx2,fma"), always_inline)) static inline void
avx2_body(int64_t kc, const float *pa, int64_t lr, int64_t lp, const float *pb, int64_t ldb, float *c, int64_t rsc,
          int mode, float beta, int rows, int cols) {
    WK_UNUSED(rows), WK_UNUSED(cols);
    __m256 acc[A2_MR][2];
#pragma GCC unroll 6
    for (int r = 0; r < A2_MR; r++) {
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        _mm_prefetch((const char *)(c + r * rsc), _MM_HINT_T0); /* the C tile, read or written after the loop */
    }
    for (int64_t p = 0; p < kc; p++, pa += lp, pb += ldb) {
        __m256 b0 = _mm256_loadu_ps(pb), b1 = _mm256_loadu_ps(pb + 8);
#pragma GCC unroll 6
        for (int r = 0; r < A2_MR; r++) {
            __m256 a = _mm256_broadcast_ss(pa + r * lr);
            acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
        }
    }
    __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int r = 0; r < A2_MR; r++) {
        float *d = c + r * rsc;
        __m256 x0 = acc[r][0], x1 = acc[r][1];
        if (mode == BETA) {
            x0 = _mm256_add_ps(_mm256_mul_ps(vb, _mm256_loadu_ps(d)), x0);
            x1 = _mm256_add_ps(_mm256_mul_ps(vb, _mm256_loadu_ps(d + 8)), x1);
        } else if (mode == ADD) {
            x0 = _mm256_add_ps(_mm256_loadu_ps(d), x0);
            x1 = _mm256_add_ps(_mm256_loadu_ps(d + 8), x1);
        }
        _mm256_storeu_ps(d, x0);
        _mm256_storeu_ps(d + 8, x1);
    }
}
__attribute__((target("avx2,fma"))) static void ukernel_avx2(int64_t kc, const float *pa, int64_t lr, int64_t lp,
                                                               const float *pb, int64_t ldb, float *c, int64_t rsc,
                                                               int mode, float beta, int rows, int cols) {
    WK_UNUSED(lr), WK_UNUSED(lp);
    avx2_body(kc, pa, 1, A2_MR, pb, ldb, c, rsc, mode, beta, rows, cols); /* packed A: constant offsets */
}
__attribute__((target("avx2,fma"))) static void ukernel_avx2_a(int64_t kc, const float *pa, int64_t lr, int64_t lp,
                                                                 const float *pb, int64_t ldb, float *c, int64_t rsc,
                                                                 int mode, float beta, int rows, int cols) {
    avx2_body(kc, pa, lr, lp, pb, ldb, c, rsc, mode, beta, rows, cols);
}

#define A5_NR (16 * A5_NV)
__attribute__((target("avx512f"), always_inline)) static inline void
avx512_body(int64_t kc, const float *pa, int64_t lr, int64_t lp, const float *pb, int64_t ldb, float *c, int64_t rsc,
            int mode, float beta, int rows, int cols) {
    __m512 acc[A5_MR][A5_NV];
#pragma GCC unroll 16
    for (int r = 0; r < A5_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < A5_NV; v++) {
            acc[r][v] = _mm512_setzero_ps();
            /* the C tile is read (or written) after the loop: start fetching its lines now */
            _mm_prefetch((const char *)(c + r * rsc + 16 * v), _MM_HINT_T0);
        }
    }
    /* rows by threes from 4 (or 5) base pointers, so that A in place needs few registers (lr, 2 lr) */
    const float *q[(A5_MR + 2) / 3];
#pragma GCC unroll 16
    for (int t = 0; t < (A5_MR + 2) / 3; t++) q[t] = pa + 3 * t * lr;
    for (int64_t p = 0; p < kc; p++, pb += ldb) {
        __m512 b[A5_NV];
#pragma GCC unroll 4
        for (int v = 0; v < A5_NV; v++) b[v] = _mm512_loadu_ps(pb + 16 * v);
#pragma GCC unroll 16
        for (int r = 0; r < A5_MR; r++) {
            __m512 a = _mm512_set1_ps(q[r / 3][(r % 3) * lr]);
#pragma GCC unroll 4
            for (int v = 0; v < A5_NV; v++) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
        }
#pragma GCC unroll 16
        for (int t = 0; t < (A5_MR + 2) / 3; t++) q[t] += lp;
    }
    __m512 vb = _mm512_set1_ps(beta);
    if (rows == A5_MR && cols == A5_NR) {
#pragma GCC unroll 16
        for (int r = 0; r < A5_MR; r++) {
#pragma GCC unroll 4
            for (int v = 0; v < A5_NV; v++) {
                float *d = c + r * rsc + 16 * v;
                __m512 x = acc[r][v];
                if (mode == BETA) x = _mm512_add_ps(_mm512_mul_ps(vb, _mm512_loadu_ps(d)), x);
                else if (mode == ADD) x = _mm512_add_ps(_mm512_loadu_ps(d), x);
                _mm512_storeu_ps(d, x);
            }
        }
        return;
    }
    /* an edge tile: the first `rows` rows, the first `cols` columns through masks (same arithmetic) */
    __mmask16 m[A5_NV];
#pragma GCC unroll 4
    for (int v = 0; v < A5_NV; v++) {
        int left = cols - 16 * v;
        m[v] = left >= 16 ? 0xffff : left > 0 ? (__mmask16)((1u << left) - 1) : 0;
    }
#pragma GCC unroll 16
    for (int r = 0; r < A5_MR; r++) {
        if (r >= rows) break;
#pragma GCC unroll 4
        for (int v = 0; v < A5_NV; v++) {
            float *d = c + r * rsc + 16 * v;
            __m512 x = acc[r][v];
            if (mode == BETA) x = _mm512_add_ps(_mm512_mul_ps(vb, _mm512_maskz_loadu_ps(m[v], d)), x);
            else if (mode == ADD) x = _mm512_add_ps(_mm512_maskz_loadu_ps(m[v], d), x);
            _mm512_mask_storeu_ps(d, m[v], x);
        }
    }
}
__attribute__((target("avx512f"))) static void ukernel_avx512(int64_t kc, const float *pa, int64_t lr, int64_t lp,
                                                                const float *pb, int64_t ldb, float *c, int64_t rsc,
                                                                int mode, float beta, int rows, int cols) {
    WK_UNUSED(lr), WK_UNUSED(lp);
    avx512_body(kc, pa, 1, A5_MR, pb, ldb, c, rsc, mode, beta, rows, cols); /* packed A: constant offsets */
}
__attribute__((target("avx512f"))) static void ukernel_avx512_a(int64_t kc, const float *pa, int64_t lr, int64_t lp,
                                                                  const float *pb, int64_t ldb, float *c, int64_t rsc,
                                                                  int mode, float beta, int rows, int cols) {
    avx512_body(kc, pa, lr, lp, pb, ldb, c, rsc, mode, beta, rows, cols);
}
#endif

#if defined(__wasm_simd128__)
static void ukernel_wasm(int64_t kc, const float *pa, int64_t lr, int64_t lp, const float *pb, int64_t ldb, float *c,
                         int64_t rsc, int mode, float beta, int rows, int cols) {
    WK_UNUSED(rows), WK_UNUSED(cols);
    /* wasm simd128 has no fused multiply-add: a scalar fmaf per product would be slow, so this kernel rounds
     * twice per product (mul, add) — wasm builds are consistent with themselves, not bitwise with x86 */
    v128_t acc[S_MR][4];
    for (int r = 0; r < S_MR; r++)
        for (int q = 0; q < 4; q++) acc[r][q] = wasm_f32x4_splat(0);
    for (int64_t p = 0; p < kc; p++, pa += lp, pb += ldb) {
        v128_t b0 = wasm_v128_load(pb), b1 = wasm_v128_load(pb + 4), b2 = wasm_v128_load(pb + 8),
               b3 = wasm_v128_load(pb + 12);
        for (int r = 0; r < S_MR; r++) {
            v128_t a = wasm_f32x4_splat(pa[r * lr]);
            acc[r][0] = wasm_f32x4_add(acc[r][0], wasm_f32x4_mul(a, b0));
            acc[r][1] = wasm_f32x4_add(acc[r][1], wasm_f32x4_mul(a, b1));
            acc[r][2] = wasm_f32x4_add(acc[r][2], wasm_f32x4_mul(a, b2));
            acc[r][3] = wasm_f32x4_add(acc[r][3], wasm_f32x4_mul(a, b3));
        }
    }
    v128_t vb = wasm_f32x4_splat(beta);
    for (int r = 0; r < S_MR; r++)
        for (int q = 0; q < 4; q++) {
            float *d = c + r * rsc + 4 * q;
            v128_t x = acc[r][q];
            if (mode == BETA) x = wasm_f32x4_add(wasm_f32x4_mul(vb, wasm_v128_load(d)), x);
            else if (mode == ADD) x = wasm_f32x4_add(wasm_v128_load(d), x);
            wasm_v128_store(d, x);
        }
}
#endif

typedef struct {
    ukernel_fn fn;   /* A packed */
    ukernel_fn fn_a; /* A read in place (any strides) */
    int mr, nr;
    bool edges;      /* writes partial tiles itself (masked stores) */
} ukernel;

static ukernel pick_kernel(void) {
#if defined(WK_X86)
    if (__builtin_cpu_supports("avx512f") && !getenv("WICK_NO_AVX512")) /* WICK_NO_AVX512=1: the AVX2 machines' path */
        return (ukernel){ukernel_avx512, ukernel_avx512_a, A5_MR, A5_NR, true};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (ukernel){ukernel_avx2, ukernel_avx2_a, A2_MR, A2_NR, false};
#endif
#if defined(__wasm_simd128__)
    return (ukernel){ukernel_wasm, ukernel_wasm, S_MR, S_NR, false};
#endif
    return (ukernel){ukernel_scalar, ukernel_scalar, S_MR, S_NR, false};
}

/* ---- packing ---- */
/* A block (mc x kc) -> panels of mr rows: pa[panel][p][r] (mr * kc floats a panel), zero-padded rows */
static void pack_a(int64_t mc, int64_t kc, const float *A, int64_t rsa, int64_t csa, float *pa, int mr) {
    for (int64_t i = 0; i < mc; i += mr) {
        int64_t rows = mc - i < mr ? mc - i : mr;
        const float *a = A + i * rsa;
        if (csa == 1 && rows == mr) {
            /* row-major A: mr rows side by side, transposed a strip at a time */
            for (int64_t p = 0; p < kc; p++, pa += mr)
                for (int r = 0; r < mr; r++) pa[r] = a[r * rsa + p];
            continue;
        }
        for (int64_t p = 0; p < kc; p++, pa += mr) {
            int64_t r = 0;
            for (; r < rows; r++) pa[r] = a[r * rsa + p * csa];
            for (; r < mr; r++) pa[r] = 0;
        }
    }
}

/* B columns [j0, j1) of a kc-deep block, in NR-wide panels -> pb[panel][p][q] (kc * nr floats a panel) */
static void pack_b(int64_t kc, int64_t j0, int64_t j1, const float *B, int64_t rsb, int64_t csb, float *pb, int nr) {
    for (int64_t j = j0; j < j1; j += nr) {
        int64_t cols = j1 - j < nr ? j1 - j : nr;
        float *d = pb + (j - j0) * kc;
        for (int64_t p = 0; p < kc; p++, d += nr) {
            const float *b = B + p * rsb + j * csb;
            int64_t q = 0;
            if (csb == 1)
                for (; q < cols; q++) d[q] = b[q];
            else
                for (; q < cols; q++) d[q] = b[q * csb];
            for (; q < nr; q++) d[q] = 0;
        }
    }
}

/* ---- packing buffers (Note [GEMM buffers]) ----
 * Each thread keeps its own packing buffers, grown on demand and reused by its next products: the A block it
 * packs, and (on the calling thread) the shared B block. So a product allocates nothing once warm, also when
 * several threads (or pool jobs, e.g. one convolution image each) multiply at once. A thread's buffers are freed
 * when it exits. */
#if defined(__wasi__) && !defined(_REENTRANT)
#define GEMM_TLS /* single-threaded wasm */
#else
#define GEMM_TLS _Thread_local
#include <pthread.h>
#endif

typedef struct {
    float *pa, *pb;     /* packed A block [(MC + MR) x KC], packed B block [KC x NC] at most */
    size_t pa_n, pb_n;  /* their sizes in floats */
} gemm_bufs;
static GEMM_TLS gemm_bufs tl_bufs;

static float *falloc(size_t n) { return aligned_alloc(64, (sizeof(float) * n + 63) / 64 * 64); }

#ifdef _REENTRANT
static pthread_key_t bufs_key;
static pthread_once_t bufs_once = PTHREAD_ONCE_INIT;
static void bufs_free(void *p) {
    gemm_bufs *b = p;
    free(b->pa);
    free(b->pb);
    b->pa = b->pb = NULL;
    b->pa_n = b->pb_n = 0;
}
static void bufs_key_init(void) { pthread_key_create(&bufs_key, bufs_free); }
#endif

/* this thread's buffer *p of *n floats, grown to at least `need` floats; NULL when out of memory */
static float *grow(float **p, size_t *n, size_t need) {
    if (*n >= need) return *p;
#ifdef _REENTRANT
    pthread_once(&bufs_once, bufs_key_init);
    pthread_setspecific(bufs_key, &tl_bufs);
#endif
    free(*p);
    *p = falloc(need);
    *n = *p ? need : 0;
    return *p;
}

/* ---- the blocked driver ---- */
typedef struct {
    int64_t M, N, K;
    const float *A;
    int64_t rsa, csa;
    const float *B;
    int64_t rsb, csb;
    float beta;
    float *C;
    int64_t rsc, csc;
    ukernel uk;
    int64_t mc;          /* rows per packed A block (multiple of mr) */
    int64_t jc, nc, pc, kc;
    const float *pb;     /* packed B block for (jc, pc): panel (j - jc) / nr at pb + (j - jc) * kc */
    bool b_in_place;     /* Note [GEMM small]: full panels read from B itself, the ragged last one from pb */
    int64_t j_tail;      /* first column of the ragged last panel (in-place mode) */
    const float *pa_all; /* the packed A block for all M rows (column split) */
    size_t pa_need;      /* floats of packed A a thread needs: (mc + mr) x kc */
    atomic_int failed;   /* a pool thread could not allocate its buffer */
} gemm_task;

/* One MR x NR tile of C at rows [i, i+rows) and columns [j, j+cols) of the current block; A's tile rows at
 * pa[r * lr + p * lp] (packed: lr = 1, lp = MR). */
static void tile(const gemm_task *g, const float *pa, int64_t lr, int64_t lp, int64_t i, int64_t j, int64_t rows,
                 int64_t cols) {
    const int mr = g->uk.mr, nr = g->uk.nr;
    const ukernel_fn fn = lr == 1 && lp == mr ? g->uk.fn : g->uk.fn_a;
    int mode = g->pc > 0 ? ADD : g->beta == 0 ? SET : BETA;
    const float *pb;
    int64_t ldb;
    if (!g->b_in_place) {
        pb = g->pb + (j - g->jc) * g->kc;
        ldb = nr;
    } else if (j >= g->j_tail) {
        pb = g->pb;
        ldb = nr;
    } else {
        pb = g->B + g->pc * g->rsb + j; /* csb == 1 */
        ldb = g->rsb;
    }
    float *c = g->C + i * g->rsc + j * g->csc;
    if (g->csc == 1 && ((rows == mr && cols == nr) || g->uk.edges)) {
        fn(g->kc, pa, lr, lp, pb, ldb, c, g->rsc, mode, g->beta, (int)rows, (int)cols);
        return;
    }
    /* an edge tile or strided C: through a scratch tile, written back element by element with the same
     * rounding as the kernel's own write-back */
    float t[MR_MAX * NR_MAX] __attribute__((aligned(64)));
    fn(g->kc, pa, lr, lp, pb, ldb, t, nr, SET, 0, mr, nr);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t q = 0; q < cols; q++) {
            float *d = &c[r * g->rsc + q * g->csc], v = t[r * nr + q];
            *d = mode == SET ? v : mode == BETA ? g->beta * *d + v : *d + v;
        }
}

/* MR-row panels [p0, p1) of C, all columns of the block: pack A by MC-row blocks, run the tiles (for each NR
 * panel of B, which stays in L1, every MR panel of the A block, which stays in L2) */
static void run_rows(int64_t p0, int64_t p1, int tid, void *ctx) {
    WK_UNUSED(tid);
    gemm_task *g = ctx;
    const int mr = g->uk.mr, nr = g->uk.nr;
    float *pa = grow(&tl_bufs.pa, &tl_bufs.pa_n, g->pa_need);
    if (!pa) {
        atomic_store(&g->failed, 1);
        return;
    }
    int64_t end = p1 * mr < g->M ? p1 * mr : g->M;
    for (int64_t i0 = p0 * mr; i0 < end; i0 += g->mc) {
        int64_t i1 = i0 + g->mc < end ? i0 + g->mc : end;
        pack_a(i1 - i0, g->kc, g->A + i0 * g->rsa + g->pc * g->csa, g->rsa, g->csa, pa, mr);
        for (int64_t j = g->jc; j < g->jc + g->nc; j += nr) {
            int64_t cols = g->jc + g->nc - j < nr ? g->jc + g->nc - j : nr;
            for (int64_t i = i0; i < i1; i += mr)
                tile(g, pa + (i - i0) * g->kc, 1, mr, i, j, i1 - i < mr ? i1 - i : mr, cols);
        }
    }
}

/* Note [GEMM small]: the whole product on the calling thread, A and B read in place; only a ragged last row
 * panel of A (and column panel of B, by the caller) is packed */
static int run_small(gemm_task *g) {
    const int mr = g->uk.mr, nr = g->uk.nr;
    for (int64_t i = 0; i < g->M; i += mr) {
        int64_t rows = g->M - i < mr ? g->M - i : mr, lr = g->rsa, lp = g->csa;
        const float *a = g->A + i * g->rsa + g->pc * g->csa;
        if (rows < mr) {
            float *pa = grow(&tl_bufs.pa, &tl_bufs.pa_n, (size_t)mr * (size_t)g->kc);
            if (!pa) return -1;
            pack_a(rows, g->kc, a, g->rsa, g->csa, pa, mr);
            a = pa, lr = 1, lp = mr;
        }
        for (int64_t j = g->jc; j < g->jc + g->nc; j += nr)
            tile(g, a, lr, lp, i, j, rows, g->jc + g->nc - j < nr ? g->jc + g->nc - j : nr);
    }
    return 0;
}

/* NR-column panels [q0, q1) of the block, all rows (A already packed whole, in pa_all) */
static void run_cols(int64_t q0, int64_t q1, int tid, void *ctx) {
    WK_UNUSED(tid);
    const gemm_task *g = ctx;
    const int mr = g->uk.mr, nr = g->uk.nr;
    for (int64_t q = q0; q < q1; q++) {
        int64_t j = g->jc + q * nr, cols = g->jc + g->nc - j < nr ? g->jc + g->nc - j : nr;
        for (int64_t i = 0; i < g->M; i += mr)
            tile(g, g->pa_all + i * g->kc, 1, mr, i, j, g->M - i < mr ? g->M - i : mr, cols);
    }
}

static ukernel the_kernel;

int wk_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa, const float *B,
                int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc, int64_t csc) {
    if (M <= 0 || N <= 0) return 0;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * rsc + j * csc] = beta == 0 ? 0 : beta * C[i * rsc + j * csc];
        return 0;
    }
    if (!the_kernel.fn) the_kernel = pick_kernel(); /* idempotent: a race writes the same value */
    const ukernel uk = the_kernel;
    const int mr = uk.mr, nr = uk.nr;
    const double flops = 2.0 * (double)M * (double)N * (double)K;
    const int64_t mc = MC_ROWS / mr * mr, mpanels = (M + mr - 1) / mr;
    /* Note [GEMM small]: B read in place when it is row-contiguous and the product small; nothing on the pool */
    const bool b_in_place = csb == 1 && K <= KC && N <= NC && flops <= GEMM_SMALL_FLOPS;
    /* threads: each must get about 2 MFLOP of work to pay for waking it (a few microseconds) */
    int nthreads = b_in_place ? 1 : wk_get_num_threads();
    if (flops / 2e6 < nthreads) nthreads = flops < 4e6 ? 1 : (int)(flops / 2e6);
    /* split rows when each thread gets at least two A panels, else the B panels (A then packed whole) */
    const bool split_rows = nthreads == 1 || mpanels >= 2 * nthreads || mpanels * mr > mc;
    const int64_t kc_max = K < KC ? K : KC, nc_max = N < NC ? N : NC;
    gemm_task g = {M, N, K, A, rsa, csa, B, rsb, csb, beta, C, rsc, csc, uk, mc, 0, 0, 0, 0,
                   NULL, b_in_place, N, NULL, (size_t)(mc + mr) * (size_t)kc_max, 0};
    float *pb = grow(&tl_bufs.pb, &tl_bufs.pb_n, (size_t)kc_max * (size_t)((nc_max + nr - 1) / nr * nr));
    float *pa = split_rows ? tl_bufs.pa : grow(&tl_bufs.pa, &tl_bufs.pa_n, (size_t)(mpanels * mr) * (size_t)kc_max);
    if (!pb || (!split_rows && !pa)) goto oom;
    g.pb = pb;
    for (int64_t jc = 0; jc < N; jc += NC) {
        int64_t nc = N - jc < NC ? N - jc : NC;
        for (int64_t pc = 0; pc < K; pc += KC) {
            int64_t kc = K - pc < KC ? K - pc : KC;
            g.jc = jc, g.nc = nc, g.pc = pc, g.kc = kc;
            if (b_in_place) {
                g.j_tail = jc + nc / nr * nr; /* only a ragged last panel is packed */
                if (g.j_tail < jc + nc) pack_b(kc, g.j_tail, jc + nc, B + pc * rsb, rsb, csb, pb, nr);
                if (run_small(&g) < 0) goto oom;
            } else {
                pack_b(kc, jc, jc + nc, B + pc * rsb, rsb, csb, pb, nr);
                if (split_rows) {
                    wk_parallel_for(0, mpanels, (mpanels + nthreads - 1) / nthreads, run_rows, &g);
                } else {
                    pack_a(M, kc, A + pc * csa, rsa, csa, pa, mr);
                    g.pa_all = pa;
                    int64_t npanels = (nc + nr - 1) / nr;
                    wk_parallel_for(0, npanels, (npanels + nthreads - 1) / nthreads, run_cols, &g);
                }
            }
            if (atomic_load(&g.failed)) goto oom;
        }
    }
    return 0;
oom:
    wk__error(WK_MEMORY_ERROR, "out of memory in gemm");
    return -1;
}
