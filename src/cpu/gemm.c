/* gemm.c — the packed, cache-blocked float32 matrix product (BLIS/OpenBLAS structure).
 *
 *   C[M,N] = beta * C + A[M,K] @ B[K,N]      (any element strides for A, B and C)
 *
 * Structure (Note [GEMM blocking]):
 *   one pool job for the whole product (for a chunk of KB_MAX depths and a block of columns of C at a time when the
 *   packed B would pass PACK_MAX floats; the chunks of depth in order, so the sums keep their order):
 *   pack B:  in NR-column panels [K][NR], all of K, by all threads together: each claims the next panel to pack
 *            (an atomic counter), then waits until every claimed panel is packed — no barrier and no count of the
 *            threads needed, so a pool that runs the job serially works (when the units span all rows, each unit
 *            packs its own B panels instead, per KC block: b_local; a short A is packed up front too: a_shared)
 *   compute: the block of C is cut in units of work (at most MC rows x NC_COLS columns, smaller until each
 *            thread can take about 4), dealt in one home range of columns per thread; each thread claims the
 *            units of its range one by one (an atomic counter per range), then those left in the others', so a
 *            late or slow thread costs little; a unit is computed whole by one thread: pc: KC depths at a time
 *            (C read and written once per KC block, the blocks in order): the unit's A rows packed for the block
 *            into the thread's own MC x KC buffer (so they are in L2, just written); jr: one NR panel of B
 *            (KC x NR, in L1); ir: the unit's MR panels of A; one MR x NR tile in registers
 * Micro-kernels, chosen once at run time: AVX-512 12x32 (x86 with avx512f; 6x16 AVX2 for products at most 16
 * columns wide), AVX2+FMA 6x16, wasm simd128 6x16, and a portable scalar 6x16, all with the same packing code
 * (MR/NR are run-time values). Every kernel sums each C element's products in the same order (p = 0..kc-1 with
 * one fused multiply-add per step, then the KC blocks in order), and the threads split only the output, so the
 * result does not depend on the thread count, on the kernel, nor on whether an operand was packed or read in
 * place. The naive reference (wk_gemm_f32_ref) stays beside them; tests/c/test_gemm.c compares the two on odd
 * shapes and strides with 1..4 threads.
 *
 * Operands read in place (Note [GEMM small]): packing costs about a cycle an element, so a small product (one
 * thread), a row-contiguous B under a short A (M <= INPLACE_B_M) and an A beside a narrow B (N <= INPLACE_A_N)
 * are read where they lie; only their ragged last panels are packed. Packing buffers are kept between calls
 * (Note [GEMM buffers]), so a warm product allocates nothing. */
#include <stdlib.h>
#include <string.h>
#include "cpu/gemm.h"

#include "cpu/threadpool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WK_X86 1
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#include <stdatomic.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#define HUGE_BYTES ((size_t)1 << 21)

#ifndef A5_MR
#define A5_MR 12 /* rows of the AVX-512 tile: A5_NV x A5_MR accumulators of the 32 zmm registers */
#endif
#ifndef A5_NV
#define A5_NV 2 /* 16-float vectors per row of the AVX-512 tile (12x32: bench/NOTES.md) */
#endif
#define MR_MAX (A5_MR > 6 ? A5_MR : 6)
#define NR_MAX (16 * A5_NV > 16 ? 16 * A5_NV : 16)
/* Block sizes (see bench/NOTES.md; -D overrides them for tuning runs):
 *   KC       depth of a block: the B micro-panel KC x NR (32 KiB at 256 x 32; AVX2 16 KiB) stays in L1 while
 *            the A micro-panels stream from L2 (12x32: 12 broadcasts + 2 loads per 24 FMAs); KC also fixes the
 *            summation order (the KC blocks are added in order), so it is the same for every kernel
 *   MC_ROWS  rows of A computed against one B micro-panel (rounded down to a multiple of MR): MC x KC in L2 */
#ifndef KC
#define KC 256
#endif
#ifndef MC_ROWS
#define MC_ROWS 192
#endif
#ifndef NC_COLS
#define NC_COLS 1024 /* columns of C in one unit of work at most (Note [GEMM blocking]) */
#endif
#ifndef UNITS_PER_THREAD
#define UNITS_PER_THREAD 4 /* units of work a thread can take at least (fewer when the product is small) */
#endif
#ifndef PACK_MAX
#define PACK_MAX (1 << 22) /* floats of packed A (and of packed B) at most: larger products go by blocks of C */
#endif
#ifndef KB_MAX
#define KB_MAX (16 * KC) /* depths packed at once at most (a multiple of KC): a long K goes by chunks of depth */
#endif
#define GEMM_SMALL_FLOPS (2.0 * 128 * 128 * 128) /* Note [GEMM small] */
/* Packing an operand costs about one cycle an element; an element of B is used in 2 M flops (A: 2 N), a few
 * cycles when M is small. So B (row-contiguous) is read in place when M is at most INPLACE_B_M, A (any layout)
 * when N is at most INPLACE_A_N; only ragged panels are packed then. */
#ifndef INPLACE_B_M
#define INPLACE_B_M 256
#endif
#ifndef INPLACE_A_N
#define INPLACE_A_N 256
#endif

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
    __asm__("" : "+r"(c), "+r"(rsc)); /* no tile addresses kept from the prefetches: registers for the loop */
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
    __asm__("" : "+r"(c), "+r"(rsc)); /* no tile addresses kept from the prefetches: registers for the loop */
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

static ukernel pick_kernel(void);
/* the kernel for products at most 16 columns wide: a narrower tile where the wide one would mostly compute
 * zero padding (same products in the same order, so the result is the same either way) */
static ukernel pick_narrow_kernel(void) {
#if defined(WK_X86)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (ukernel){ukernel_avx2, ukernel_avx2_a, A2_MR, A2_NR, false};
#endif
    return pick_kernel();
}

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

/* ---- packing (Note [GEMM packing]) ----
 * A panel of A is MR rows x all K depths -> pa[p * MR + r]; a panel of B is all K depths x NR columns ->
 * pb[p * NR + q]; both zero-filled past a ragged edge. Each is a strip of `rows` lines (rows of A, columns of B),
 * line r at src + r * rs, depth p at + p * ps. Lines contiguous in the depth (row-major A, transposed B) are
 * transposed 4 x 4 at a time; lines side by side (transposed A, row-major B) are copied depth by depth. */
static void pack_strip(float *dst, int w, const float *src, int64_t rs, int64_t ps, int rows, int64_t kc) {
    int r = 0;
    if (ps == 1) {
#if defined(WK_X86)
        { /* 4 depths at a time across all lines: the 4 rows of dst written whole, the lines' 16 bytes read each */
        const int r4 = rows / 4 * 4;
        int64_t p = 0;
        for (; p + 4 <= kc; p += 4) {
            float *d = dst + p * w;
            for (r = 0; r < r4; r += 4) {
                const float *s = src + r * rs + p;
                __m128 x0 = _mm_loadu_ps(s), x1 = _mm_loadu_ps(s + rs), x2 = _mm_loadu_ps(s + 2 * rs),
                       x3 = _mm_loadu_ps(s + 3 * rs);
                _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
                _mm_storeu_ps(d + r, x0);
                _mm_storeu_ps(d + w + r, x1);
                _mm_storeu_ps(d + 2 * w + r, x2);
                _mm_storeu_ps(d + 3 * w + r, x3);
            }
        }
        for (; p < kc; p++)
            for (r = 0; r < r4; r++) dst[p * w + r] = src[r * rs + p];
        r = r4;
        if (rows - r >= 2) { /* two more lines (MR = 6): interleaved 4 depths at a time, pairs stored */
            const float *s0 = src + r * rs, *s1 = s0 + rs;
            for (p = 0; p + 4 <= kc; p += 4) {
                __m128 x0 = _mm_loadu_ps(s0 + p), x1 = _mm_loadu_ps(s1 + p);
                __m128 lo = _mm_unpacklo_ps(x0, x1), hi = _mm_unpackhi_ps(x0, x1); /* a0 b0 a1 b1, a2 b2 a3 b3 */
                float *d = dst + p * w + r;
                _mm_storel_pi((__m64 *)d, lo);
                _mm_storeh_pi((__m64 *)(d + w), lo);
                _mm_storel_pi((__m64 *)(d + 2 * w), hi);
                _mm_storeh_pi((__m64 *)(d + 3 * w), hi);
            }
            for (; p < kc; p++) dst[p * w + r] = s0[p], dst[p * w + r + 1] = s1[p];
            r += 2;
        }
        }
#endif
        for (; r < rows; r++)
            for (int64_t p = 0; p < kc; p++) dst[p * w + r] = src[r * rs + p];
        if (rows < w)
            for (int64_t p = 0; p < kc; p++) memset(dst + p * w + rows, 0, sizeof(float) * (size_t)(w - rows));
        return;
    }
#if defined(WK_X86)
    if (rs == 1 && rows == w && w % 4 == 0) { /* a full panel of side-by-side lines: vector copies, no calls */
        for (int64_t p = 0; p < kc; p++, dst += w, src += ps)
            for (r = 0; r < w; r += 4) _mm_storeu_ps(dst + r, _mm_loadu_ps(src + r));
        return;
    }
#endif
    for (int64_t p = 0; p < kc; p++, dst += w, src += ps) {
        if (rs == 1) {
            memcpy(dst, src, sizeof(float) * (size_t)rows);
        } else {
            for (r = 0; r < rows; r++) dst[r] = src[r * rs];
        }
        if (rows < w) memset(dst + rows, 0, sizeof(float) * (size_t)(w - rows));
    }
}

/* ---- packing buffers (Note [GEMM buffers]) ----
 * The calling thread keeps its packing buffers (packed A and B of one block of C), grown on demand and reused by
 * its next products: a product allocates nothing once warm, also when several threads (or pool jobs, e.g. one
 * convolution image each) multiply at once. A thread's buffers are freed when it exits. */
#ifndef WK_NO_THREADS
#include <pthread.h>
#include <sched.h>
#endif

typedef struct {
    float *pa, *pb;     /* packed A [MR panels][K][MR], packed B [NR panels][K][NR] of one block of C, shared by
                         * the members of the calling thread's products */
    float *sa, *sb;     /* this thread's own slots as a member: A [MC rows][KC][MR], B [unit panels][KC][NR] */
    size_t pa_n, pb_n, sa_n, sb_n; /* their sizes in floats */
} gemm_bufs;
static WK_TLS gemm_bufs tl_bufs;

/* packing buffers of 2 MiB or more are 2 MiB aligned and advised as transparent huge pages (Linux): the packed B
 * of a 1024-wide product is 4 MB, read by every unit of work (measured: ~2% faster; user operands on huge pages,
 * as wick's own allocator gives tensors of 4 MiB or more, another ~5%) */
static float *falloc(size_t n) {
    size_t b = (sizeof(float) * n + 63) / 64 * 64;
#if defined(MADV_HUGEPAGE)
    if (b >= HUGE_BYTES) {
        b = (b + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
        float *p = aligned_alloc(HUGE_BYTES, b);
        if (p) madvise(p, b, MADV_HUGEPAGE); /* advice only: failure changes nothing */
        return p;
    }
#endif
    return aligned_alloc(64, b);
}

#ifndef WK_NO_THREADS
static pthread_key_t bufs_key;
static pthread_once_t bufs_once = PTHREAD_ONCE_INIT;
static void bufs_free(void *p) {
    gemm_bufs *b = p;
    free(b->pa), free(b->pb), free(b->sa), free(b->sb);
    *b = (gemm_bufs){0};
}
static void bufs_key_init(void) { pthread_key_create(&bufs_key, bufs_free); }
#endif

/* this thread's buffer *p of *n floats, grown to at least `need` floats; NULL when out of memory */
static float *grow(float **p, size_t *n, size_t need) {
    if (*n >= need) return *p;
#ifndef WK_NO_THREADS
    pthread_once(&bufs_once, bufs_key_init);
    pthread_setspecific(bufs_key, &tl_bufs);
#endif
    free(*p);
    *p = falloc(need);
    *n = *p ? need : 0;
    return *p;
}

/* ---- the blocked driver (Note [GEMM blocking]) ---- */
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
    int64_t m, j0, n;      /* the current block of C: all m = M rows, columns [j0, j0 + n) */
    int64_t k0, kd;        /* the current chunk of depths [k0, k0 + kd) (k0 a multiple of KC) */
    int64_t mp, np;        /* its MR-row panels and NR-column panels */
    float *pa;             /* packed A, one of two ways (Note [GEMM blocking]):
                            * a_shared: all of A by KC blocks, packed up front with B: depths k0 + [pc, pc + kc) of
                            *   panel i at pa + pc * mp * MR + i * kc * MR, [kc][MR] (a block's panels side by side)
                            * else: each member's own slot of pa_slot floats (gemm_bufs.sa): the A panels of its
                            *   current unit packed for one KC block (MC x KC, in L2): panel ip of unit rows r0.. at
                            *   slot + (ip - r0) * kc * MR */
    int64_t pa_slot;
    bool a_shared;
    bool b_local;          /* the units span all rows, so each packs its own B panels (one KC block at a time, into
                            * its member's own slot of pb_slot floats (gemm_bufs.sb): panel jp of unit columns c0.. at
                            * slot + (jp - c0) * kc * NR), just before using them; else B is packed up front */
    int64_t pb_slot;
    float *pb;             /* packed B up front by KC blocks, all of the chunk's depths: depths k0 + [pc, pc + kc) of
                            * panel j (columns j0 + j * NR ...) at pb + pc * np * NR + j * kc * NR, [kc][NR] */
    int64_t a_packed;      /* panels of A read in place (Note [GEMM small]): [0, a_packed) are, the rest packed */
    int64_t b_packed;      /* likewise for B (row-contiguous B only) */
    int64_t a_todo, b_todo; /* strips to pack up front: A panels [mp - a_todo, mp), B [np - b_todo, np) */
    int64_t um, un;        /* a unit of work: um row panels x un column panels of C, all of K */
    int64_t nunits;        /* units in the block: ceil(mp / um) x ceil(np / un), column-major (a home range is then a
                            * band of columns) */
    atomic_llong next;     /* next strip to claim: A strips first, then B strips */
    atomic_llong packed;   /* strips packed so far */
    int T;                 /* threads asked for: the units are dealt in T home ranges (Note [GEMM blocking]) */
    atomic_llong next_unit[WK_MAX_THREADS]; /* next unit to claim in each home range, counted from the range's first */
} gemm_task;

/* One MR x NR tile of C (panel ip, panel jp of the block) over depths k0 + [pc, pc + kc) */
static void tile(const gemm_task *g, const float *pa, const float *pb, int64_t ip, int64_t jp, int64_t pc, int64_t kc,
                 int mode) {
    const int mr = g->uk.mr, nr = g->uk.nr;
    const int64_t i = ip * mr, j = g->j0 + jp * nr;
    const int rows = g->m - ip * mr < mr ? (int)(g->m - ip * mr) : mr;
    const int cols = g->n - jp * nr < nr ? (int)(g->n - jp * nr) : nr;
    const float *a, *b;
    int64_t lr = 1, lp = mr, ldb = nr;
    ukernel_fn fn = g->uk.fn;
    if (ip < g->a_packed) {
        a = g->A + i * g->rsa + (g->k0 + pc) * g->csa, lr = g->rsa, lp = g->csa, fn = g->uk.fn_a;
    } else {
        a = pa;
    }
    if (jp < g->b_packed)
        b = g->B + (g->k0 + pc) * g->rsb + j, ldb = g->rsb; /* csb == 1 */
    else
        b = pb;
    float *c = g->C + i * g->rsc + j * g->csc;
    if (g->csc == 1 && ((rows == mr && cols == nr) || g->uk.edges)) {
        fn(kc, a, lr, lp, b, ldb, c, g->rsc, mode, g->beta, rows, cols);
        return;
    }
    /* an edge tile or strided C: through a scratch tile, written back element by element with the same
     * rounding as the kernel's own write-back */
    float t[MR_MAX * NR_MAX] __attribute__((aligned(64)));
    fn(kc, a, lr, lp, b, ldb, t, nr, SET, 0, mr, nr);
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++) {
            float *d = &c[r * g->rsc + q * g->csc], v = t[r * nr + q];
            *d = mode == SET ? v : mode == BETA ? g->beta * *d + v : *d + v;
        }
}

/* A's panel ip (rows ip * MR ...) and B's panel jp (columns j0 + jp * NR ...), depths k0 + [pc, pc + kc), packed
 * into dst ([kc][MR], [kc][NR]) */
static void pack_a_panel(const gemm_task *g, float *dst, int64_t ip, int64_t pc, int64_t kc) {
    const int mr = g->uk.mr;
    const int rows = g->m - ip * mr < mr ? (int)(g->m - ip * mr) : mr;
    pack_strip(dst, mr, g->A + ip * mr * g->rsa + (g->k0 + pc) * g->csa, g->rsa, g->csa, rows, kc);
}
static void pack_b_panel(const gemm_task *g, float *dst, int64_t jp, int64_t pc, int64_t kc) {
    const int nr = g->uk.nr;
    const int cols = g->n - jp * nr < nr ? (int)(g->n - jp * nr) : nr;
    pack_strip(dst, nr, g->B + (g->j0 + jp * nr) * g->csb + (g->k0 + pc) * g->rsb, g->csb, g->rsb, cols, kc);
}

/* one unit of work: its tiles over all of K, KC depths at a time (C read and written once per block, the KC
 * blocks in order): the unit's MR panels of A packed for the block into this member's slot (MC x KC, so they stay
 * in L2), then each NR panel of B (KC x NR, in L1) against them */
static void compute(const gemm_task *g, float *slot, float *bslot, int64_t u) {
    const int mr = g->uk.mr, nr = g->uk.nr;
    const int64_t r0 = u % ((g->mp + g->um - 1) / g->um) * g->um, c0 = u / ((g->mp + g->um - 1) / g->um) * g->un;
    const int64_t r1 = r0 + g->um < g->mp ? r0 + g->um : g->mp, c1 = c0 + g->un < g->np ? c0 + g->un : g->np;
    for (int64_t pc = 0; pc < g->kd; pc += KC) {
        const int64_t kc = g->kd - pc < KC ? g->kd - pc : KC;
        const int mode = g->k0 + pc > 0 ? ADD : g->beta == 0 ? SET : BETA;
        for (int64_t ip = r0 > g->a_packed ? r0 : g->a_packed; ip < r1 && !g->a_shared; ip++)
            pack_a_panel(g, slot + (ip - r0) * kc * mr, ip, pc, kc);
        for (int64_t jp = c0 > g->b_packed ? c0 : g->b_packed; jp < c1 && g->b_local; jp++)
            pack_b_panel(g, bslot + (jp - c0) * kc * nr, jp, pc, kc);
        for (int64_t jp = c0; jp < c1; jp++) {
            const float *b = g->b_local ? bslot + (jp - c0) * kc * nr : g->pb + pc * g->np * nr + jp * kc * nr;
            /* B packed up front lies in L3 (16 MB at 2048^3): the first tile of each panel would wait on its
             * lines, so the next panel is fetched into L2 meanwhile, a share of its lines before each tile.
             * One thread, AVX2, 2048^3: 91 -> 99 GFLOP/s (AVX-512 likewise 6%); 256^3-1024^3 unchanged */
            const float *next = !g->b_local && jp + 1 < c1 && jp + 1 >= g->b_packed ? b + kc * nr : NULL;
            const int64_t lines = kc * nr / 16, share = (lines + (r1 - r0) - 1) / (r1 - r0); /* 64-byte lines */
            for (int64_t ip = r0; ip < r1; ip++) {
                for (int64_t l = (ip - r0) * share; next && l < (ip - r0 + 1) * share && l < lines; l++)
                    __builtin_prefetch(next + 16 * l, 0, 2);
                tile(g, g->a_shared ? g->pa + pc * g->mp * mr + ip * kc * mr : slot + (ip - r0) * kc * mr, b, ip, jp,
                     pc, kc, mode);
            }
        }
    }
}

static void pause_briefly(int spin) {
#if defined(WK_X86)
    if (spin < 2000) {
        _mm_pause();
        return;
    }
#endif
#ifndef WK_NO_THREADS
    sched_yield(); /* the thread we wait for may have been descheduled: let it run */
#else
    WK_UNUSED(spin);
#endif
}

/* Computes units until none is left: those of home range `home` first, then what is left of the others'. The ranges
 * are fixed by the unit count and T alone, and the pool's chunk 0 is nearly always the caller, so across products
 * a thread mostly computes the same part of C: its lines (and those of the thread's own slots) are still in that
 * core's caches, not the other core's (2 threads, both orders of the A/B driver: 256^3 AVX-512 7% faster, AVX2 1%;
 * 1024^3 and 2048^3 1-1.6% AVX-512, level AVX2). A late or descheduled member's range is taken over by the
 * others, unit by unit. */
static void claim_units(gemm_task *g, int home, float *slot, float *bslot) {
    for (int r = 0; r < g->T; r++) {
        const int h = (home + r) % g->T;
        const int64_t lo = g->nunits * h / g->T, hi = g->nunits * (h + 1) / g->T;
        for (int64_t u; (u = lo + atomic_fetch_add_explicit(&g->next_unit[h], 1, memory_order_relaxed)) < hi;)
            compute(g, slot, bslot, u);
    }
}

/* One member of the team (the pool may run fewer members than asked, or this one serially for all): claims
 * strips (of a shared A, then of B) to pack until none is left, waits for the strips others still pack (each was
 * claimed by a thread that is packing it, so this wait needs no count of the members), then claims units of work
 * until none is left (packing each unit's A itself unless A is shared). A member that starts late (a worker
 * still waking up) simply finds less to do. */
static void member(int64_t t0, int64_t t1, int tid, void *ctx) {
    WK_UNUSED(t1), WK_UNUSED(tid);
    gemm_task *g = ctx;
    const int mr = g->uk.mr, nr = g->uk.nr;
    const int64_t total = g->a_todo + g->b_todo;
    for (int64_t s; (s = atomic_fetch_add_explicit(&g->next, 1, memory_order_relaxed)) < total;) {
        for (int64_t pc = 0; pc < g->kd; pc += KC) {
            const int64_t kc = g->kd - pc < KC ? g->kd - pc : KC;
            if (s < g->a_todo) {
                const int64_t ip = g->mp - g->a_todo + s;
                pack_a_panel(g, g->pa + pc * g->mp * mr + ip * kc * mr, ip, pc, kc);
            } else {
                const int64_t jp = g->np - g->b_todo + (s - g->a_todo);
                pack_b_panel(g, g->pb + pc * g->np * nr + jp * kc * nr, jp, pc, kc);
            }
        }
        atomic_fetch_add_explicit(&g->packed, 1, memory_order_release);
    }
    /* this thread's own slots, kept between products; without memory for them it leaves its units to the others
     * (the caller, which has its slots, computes whatever is left) */
    float *slot = NULL, *bslot = NULL;
    const bool ok = (g->a_shared || (slot = grow(&tl_bufs.sa, &tl_bufs.sa_n, (size_t)g->pa_slot))) &&
                    (!g->b_local || (bslot = grow(&tl_bufs.sb, &tl_bufs.sb_n, (size_t)g->pb_slot)));
    for (int spin = 0; atomic_load_explicit(&g->packed, memory_order_acquire) < total; spin++) pause_briefly(spin);
    if (ok) claim_units(g, (int)t0, slot, bslot);
}

static ukernel the_kernel, the_narrow_kernel;
static atomic_int kernels_ready; /* set (release) once both are picked */

int wk_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa, const float *B,
                int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc, int64_t csc) {
    if (M <= 0 || N <= 0) return 0;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * rsc + j * csc] = beta == 0 ? 0 : beta * C[i * rsc + j * csc];
        return 0;
    }
    if (!atomic_load_explicit(&kernels_ready, memory_order_acquire)) { /* a race writes the same values */
        the_narrow_kernel = pick_narrow_kernel();
        the_kernel = pick_kernel();
        atomic_store_explicit(&kernels_ready, 1, memory_order_release);
    }
    const ukernel uk = N <= 16 ? the_narrow_kernel : the_kernel;
    const int mr = uk.mr, nr = uk.nr;
    const double flops = 2.0 * (double)M * (double)N * (double)K;
    /* threads: each must get about 2.5 us of the kernel's work (~6.4 GFLOP/s per column of its tile a core: 1.6e4
     * flops x NR), which pays for a hand-off to the pool's spinning workers (well under a microsecond; a product
     * right after a sleep pays a wake-up). Measured, AVX2, back to back: 64^3 5.0 -> 3.6 us on 2 threads; with
     * AVX-512 the same split measured slower (1.3 us a thread), so 64^3 stays on one thread there. */
    const double per = 1.6e4 * nr;
    int T = wk_get_num_threads();
    if (flops / per < T) T = flops < 2 * per ? 1 : (int)(flops / per);
    /* Note [GEMM small]: one thread, full panels of A (and of row-contiguous B) read where they lie */
    const bool small = T == 1 && flops <= GEMM_SMALL_FLOPS;
    /* chunks of depth (KB_MAX at most) and blocks of columns of C whose packed B stays under PACK_MAX floats */
    const int64_t kb = K < KB_MAX ? K : KB_MAX;
    int64_t nb = N;
    if (N * kb > PACK_MAX) nb = PACK_MAX / kb / nr * nr > nr ? PACK_MAX / kb / nr * nr : nr;
    const int64_t um_max = MC_ROWS / mr > 1 ? MC_ROWS / mr : 1; /* A panels of a unit at most */
    gemm_task g = {.M = M, .N = N, .K = K, .A = A, .rsa = rsa, .csa = csa, .B = B, .rsb = rsb, .csb = csb,
                   .beta = beta, .C = C, .rsc = rsc, .csc = csc, .uk = uk,
                   .m = M, .mp = (M + mr - 1) / mr, .T = T};
    for (int64_t k0 = 0; k0 < K; k0 += kb) {
        g.k0 = k0, g.kd = K - k0 < kb ? K - k0 : kb;
        for (int64_t j0 = 0; j0 < N; j0 += nb) {
            g.j0 = j0, g.n = N - j0 < nb ? N - j0 : nb;
            g.np = (g.n + nr - 1) / nr;
            g.a_packed = small || N <= INPLACE_A_N ? g.m / mr : 0;
            g.b_packed = (small || M <= INPLACE_B_M) && csb == 1 ? g.n / nr : 0;
            /* units of work: MC rows x NC_COLS columns at most, split further (the larger side first) until
             * each thread can take about 4, so that a late or slow thread delays the end little (splitting the
             * rows first, down to 48, measured slower on 2 threads: every unit streams all of the packed B from
             * L3 and uses each B panel for fewer tiles). An A of at most MC rows is not split: the units then
             * span all rows and each packs its own B panels (b_local) */
            g.um = um_max, g.un = NC_COLS / nr > 1 ? NC_COLS / nr : 1;
            /* an A read in place whole, of 192 to 512 rows: the units span all rows and pack their own B, also
             * a B that could be read in place (each B panel is then read from L1 by all the row tiles; in
             * place, rows 1 KiB apart fall in 4 of L1's 64 sets). 2 threads, median of 2000 calls: 256^3
             * 176 -> 156 us AVX2, 137 -> 126 us AVX-512; 192^3 AVX2 82 -> 69. One thread: 256^3 96 -> 106
             * GFLOP/s AVX2, 147 -> 158 AVX-512; 192^3 likewise. Fewer rows pay for packing B only when B's
             * rows lie a multiple of 512 bytes apart (a panel of 128 or more rows in place then falls in 8 of
             * L1's 64 sets or fewer): 64-191 rows, 1 and 2 threads, AVX2 4-13% faster (a 16x16 layer's im2col
             * product, 128 x 256 x 1152: 8-11%), AVX-512 0-5%; other strides: 64^3 6.3 -> 8.7 us, 96^3
             * 13.5 -> 18.7, 144^3-160^3 4-7% slower */
            const bool b_aliased = csb == 1 && rsb % 128 == 0 && g.kd >= 128;
            if (g.a_packed >= g.mp - 1 && (g.m >= 192 || (b_aliased && g.m >= 64)) && g.m <= 512)
                g.um = g.mp, g.b_packed = 0;
            const bool one_row_block = g.mp <= g.um;
            if (g.um > g.mp) g.um = g.mp;
            if (g.un > g.np) g.un = g.np;
            for (;;) {
                g.nunits = ((g.mp + g.um - 1) / g.um) * ((g.np + g.un - 1) / g.un);
                if (T == 1 || g.nunits >= UNITS_PER_THREAD * T || (g.um == 1 && g.un == 1)) break;
                if (one_row_block && g.un > 1) g.un = (g.un + 1) / 2;
                else if (g.um * mr >= g.un * nr && g.um > 1) g.um = (g.um + 1) / 2;
                else if (g.un > 1) g.un = (g.un + 1) / 2;
                else g.um = (g.um + 1) / 2;
            }
            /* A is packed once up front, for all units, when the units split the columns in more than two
             * (each would pack the same rows again: a short A beside a wide B, the MLP's 64 x 784 x 256:
             * 2 threads, 174 -> 184 GFLOP/s AVX2) and it is small; in two, each unit packing its own (into
             * L2, not memory) is faster (1024^3, 2 threads: 210 -> 218 GFLOP/s AVX2) */
            const bool shared = ((g.np + g.un - 1) / g.un > 2 || nb < N) && g.mp * mr * g.kd <= PACK_MAX;
            g.a_todo = shared && !(j0 > 0 && g.a_shared) ? g.mp - g.a_packed : 0; /* same depths: still packed */
            g.a_shared = shared;
            g.pa_slot = g.um * mr * (g.kd < KC ? g.kd : KC);
            g.pa = shared ? grow(&tl_bufs.pa, &tl_bufs.pa_n, (size_t)(g.mp * mr * g.kd)) : NULL;
            /* B: packed by each unit for itself when the units span all rows (each B panel is then used by one
             * unit only: packed on the core that uses it, no phase before the units; the MLP's x @ W^T, 64 x
             * 256 x 784 with W transposed, 2 threads: 158 -> 181 GFLOP/s AVX2, 197 -> 233 AVX-512), else up
             * front by all members together */
            g.b_local = g.um == g.mp && g.b_packed < g.np;
            g.b_todo = g.b_local ? 0 : g.np - g.b_packed;
            g.pb_slot = g.un * nr * (g.kd < KC ? g.kd : KC);
            g.pb = g.b_local ? NULL : grow(&tl_bufs.pb, &tl_bufs.pb_n, (size_t)((nb + nr - 1) / nr * nr * g.kd));
            /* the caller's own slots too: it computes the units of a member that has none */
            if ((shared && !g.pa) || (!g.b_local && !g.pb) ||
                (!shared && !grow(&tl_bufs.sa, &tl_bufs.sa_n, (size_t)g.pa_slot)) ||
                (g.b_local && !grow(&tl_bufs.sb, &tl_bufs.sb_n, (size_t)g.pb_slot))) {
                wk__error(WK_MEMORY_ERROR, "out of memory in gemm");
                return -1;
            }
            atomic_store(&g.next, 0);
            atomic_store(&g.packed, 0);
            for (int h = 0; h < T; h++) atomic_store(&g.next_unit[h], 0);
            wk_parallel_for(0, T, 1, member, &g);
            claim_units(&g, 0, tl_bufs.sa, tl_bufs.sb);
        }
    }
    return 0;
}
