/* gemm.c — the packed, cache-blocked float32 matrix product (BLIS/OpenBLAS structure).
 *
 *   C[M,N] = beta * C + A[M,K] @ B[K,N]      (any element strides for A, B and C)
 *
 * Loop nest (Note [GEMM blocking]):
 *   jc: NC columns of B      -> B block KC x NC is packed into NR-wide micro-panels (lives in L3/L2)
 *   pc: KC of the depth      -> (packed per jc, pc)
 *   ic: MC rows of A         -> A block MC x KC is packed into MR-tall micro-panels (lives in L2)
 *   jr, ir: one MR x NR tile of C, computed in registers by the micro-kernel over KC rank-1 updates
 * Micro-kernels: AVX2+FMA 6x16 (chosen at run time on x86), wasm simd128 and a portable scalar one with the same
 * packing. The naive reference (gemm_ref) stays beside them; tests compare the two on odd shapes and strides.
 * The ic loop runs on the thread pool: each thread packs its own A block; the B block is shared. */
#include "gemm.h"

#include "threadpool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WK_X86 1
#endif
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#define MR 6
#define NR 16
#define KC 256
#define MC 96   /* multiple of MR */
#define NC 2048 /* multiple of NR */

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

/* ---- packing ---- */
/* A block (mc x kc, rows i0.., depth p0..) -> panels of MR rows: pa[panel][p][r], zero-padded */
static void pack_a(int64_t mc, int64_t kc, const float *A, int64_t rsa, int64_t csa, float *pa) {
    for (int64_t i = 0; i < mc; i += MR) {
        int64_t mr = mc - i < MR ? mc - i : MR;
        for (int64_t p = 0; p < kc; p++) {
            const float *a = A + i * rsa + p * csa;
            int64_t r = 0;
            for (; r < mr; r++) pa[r] = a[r * rsa];
            for (; r < MR; r++) pa[r] = 0;
            pa += MR;
        }
    }
}

/* B block (kc x nc) -> panels of NR columns: pb[panel][p][c], zero-padded */
static void pack_b(int64_t kc, int64_t nc, const float *B, int64_t rsb, int64_t csb, float *pb) {
    for (int64_t j = 0; j < nc; j += NR) {
        int64_t nr = nc - j < NR ? nc - j : NR;
        for (int64_t p = 0; p < kc; p++) {
            const float *b = B + p * rsb + j * csb;
            int64_t c = 0;
            if (csb == 1 && nr == NR) {
                memcpy(pb, b, sizeof(float) * NR);
            } else {
                for (; c < nr; c++) pb[c] = b[c * csb];
                for (; c < NR; c++) pb[c] = 0;
            }
            pb += NR;
        }
    }
}

/* ---- micro-kernels: acc[MR][NR] = pa^T pb over kc; then C tile = (first ? beta*C : C) + acc ---- */
typedef void (*ukernel_fn)(int64_t kc, const float *pa, const float *pb, float *acc);

static void ukernel_scalar(int64_t kc, const float *pa, const float *pb, float *acc /* [MR][NR] */) {
    float t[MR][NR] = {{0}};
    for (int64_t p = 0; p < kc; p++, pa += MR, pb += NR)
        for (int r = 0; r < MR; r++)
            for (int c = 0; c < NR; c++) t[r][c] += pa[r] * pb[c];
    memcpy(acc, t, sizeof t);
}

#if defined(WK_X86)
__attribute__((target("avx2,fma"))) static void ukernel_avx2(int64_t kc, const float *pa, const float *pb,
                                                               float *acc) {
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(),
           c11 = _mm256_setzero_ps(), c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(),
           c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c40 = _mm256_setzero_ps(),
           c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    for (int64_t p = 0; p < kc; p++, pa += MR, pb += NR) {
        __m256 b0 = _mm256_load_ps(pb), b1 = _mm256_load_ps(pb + 8), a;
        a = _mm256_broadcast_ss(pa + 0);
        c00 = _mm256_fmadd_ps(a, b0, c00);
        c01 = _mm256_fmadd_ps(a, b1, c01);
        a = _mm256_broadcast_ss(pa + 1);
        c10 = _mm256_fmadd_ps(a, b0, c10);
        c11 = _mm256_fmadd_ps(a, b1, c11);
        a = _mm256_broadcast_ss(pa + 2);
        c20 = _mm256_fmadd_ps(a, b0, c20);
        c21 = _mm256_fmadd_ps(a, b1, c21);
        a = _mm256_broadcast_ss(pa + 3);
        c30 = _mm256_fmadd_ps(a, b0, c30);
        c31 = _mm256_fmadd_ps(a, b1, c31);
        a = _mm256_broadcast_ss(pa + 4);
        c40 = _mm256_fmadd_ps(a, b0, c40);
        c41 = _mm256_fmadd_ps(a, b1, c41);
        a = _mm256_broadcast_ss(pa + 5);
        c50 = _mm256_fmadd_ps(a, b0, c50);
        c51 = _mm256_fmadd_ps(a, b1, c51);
    }
    _mm256_storeu_ps(acc + 0 * NR, c00);
    _mm256_storeu_ps(acc + 0 * NR + 8, c01);
    _mm256_storeu_ps(acc + 1 * NR, c10);
    _mm256_storeu_ps(acc + 1 * NR + 8, c11);
    _mm256_storeu_ps(acc + 2 * NR, c20);
    _mm256_storeu_ps(acc + 2 * NR + 8, c21);
    _mm256_storeu_ps(acc + 3 * NR, c30);
    _mm256_storeu_ps(acc + 3 * NR + 8, c31);
    _mm256_storeu_ps(acc + 4 * NR, c40);
    _mm256_storeu_ps(acc + 4 * NR + 8, c41);
    _mm256_storeu_ps(acc + 5 * NR, c50);
    _mm256_storeu_ps(acc + 5 * NR + 8, c51);
}
#endif

#if defined(__wasm_simd128__)
static void ukernel_wasm(int64_t kc, const float *pa, const float *pb, float *acc) {
    v128_t c[MR][4];
    for (int r = 0; r < MR; r++)
        for (int q = 0; q < 4; q++) c[r][q] = wasm_f32x4_splat(0);
    for (int64_t p = 0; p < kc; p++, pa += MR, pb += NR) {
        v128_t b0 = wasm_v128_load(pb), b1 = wasm_v128_load(pb + 4), b2 = wasm_v128_load(pb + 8),
               b3 = wasm_v128_load(pb + 12);
        for (int r = 0; r < MR; r++) {
            v128_t a = wasm_f32x4_splat(pa[r]);
            c[r][0] = wasm_f32x4_add(c[r][0], wasm_f32x4_mul(a, b0));
            c[r][1] = wasm_f32x4_add(c[r][1], wasm_f32x4_mul(a, b1));
            c[r][2] = wasm_f32x4_add(c[r][2], wasm_f32x4_mul(a, b2));
            c[r][3] = wasm_f32x4_add(c[r][3], wasm_f32x4_mul(a, b3));
        }
    }
    for (int r = 0; r < MR; r++)
        for (int q = 0; q < 4; q++) wasm_v128_store(acc + r * NR + 4 * q, c[r][q]);
}
#endif

static ukernel_fn pick_kernel(void) {
#if defined(WK_X86)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ukernel_avx2;
#endif
#if defined(__wasm_simd128__)
    return ukernel_wasm;
#endif
    return ukernel_scalar;
}

/* ---- the blocked driver ---- */
typedef struct {
    int64_t M, N, K;
    const float *A;
    int64_t rsa, csa;
    float beta;
    float *C;
    int64_t rsc, csc;
    const float *pb;   /* packed B block for (jc, pc) */
    int64_t jc, nc, pc, kc;
    ukernel_fn kernel;
    float **pa_bufs;   /* one packed-A buffer per thread */
} gemm_task;

static void run_ic(int64_t ic0, int64_t ic1, int tid, void *ctx) {
    gemm_task *g = ctx;
    float *pa = g->pa_bufs[tid];
    float acc[MR * NR] __attribute__((aligned(32)));
    for (int64_t blk = ic0; blk < ic1; blk++) {
        int64_t ic = blk * MC, mc = g->M - ic < MC ? g->M - ic : MC;
        pack_a(mc, g->kc, g->A + ic * g->rsa + g->pc * g->csa, g->rsa, g->csa, pa);
        for (int64_t jr = 0; jr < g->nc; jr += NR) {
            int64_t nr = g->nc - jr < NR ? g->nc - jr : NR;
            for (int64_t ir = 0; ir < mc; ir += MR) {
                int64_t mr = mc - ir < MR ? mc - ir : MR;
                g->kernel(g->kc, pa + ir * g->kc, g->pb + jr * g->kc, acc);
                float *c = g->C + (ic + ir) * g->rsc + (g->jc + jr) * g->csc;
                bool first = g->pc == 0;
                for (int64_t r = 0; r < mr; r++)
                    for (int64_t q = 0; q < nr; q++) {
                        float *d = &c[r * g->rsc + q * g->csc];
                        float v = acc[r * NR + q];
                        *d = first ? (g->beta == 0 ? v : g->beta * *d + v) : *d + v;
                    }
            }
        }
    }
}

int wk_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa, const float *B,
                int64_t rsb, int64_t csb, float beta, float *C, int64_t rsc, int64_t csc) {
    if (M <= 0 || N <= 0) return 0;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * rsc + j * csc] = beta == 0 ? 0 : beta * C[i * rsc + j * csc];
        return 0;
    }
    int nthreads = wk_get_num_threads();
    float *pb = aligned_alloc(64, sizeof(float) * (size_t)KC * NC);
    float **pa_bufs = calloc((size_t)nthreads, sizeof(float *));
    int rc = -1;
    if (!pb || !pa_bufs) goto done;
    for (int t = 0; t < nthreads; t++)
        if (!(pa_bufs[t] = aligned_alloc(64, sizeof(float) * (size_t)MC * KC))) goto done;
    gemm_task g = {M, N, K, A, rsa, csa, beta, C, rsc, csc, pb, 0, 0, 0, 0, pick_kernel(), pa_bufs};
    int64_t nblocks = (M + MC - 1) / MC;
    for (int64_t jc = 0; jc < N; jc += NC) {
        int64_t nc = N - jc < NC ? N - jc : NC;
        for (int64_t pc = 0; pc < K; pc += KC) {
            int64_t kc = K - pc < KC ? K - pc : KC;
            pack_b(kc, nc, B + pc * rsb + jc * csb, rsb, csb, pb);
            g.jc = jc, g.nc = nc, g.pc = pc, g.kc = kc;
            /* parallel over MC-row blocks; a thread needs about a million flops to pay for itself */
            int64_t per_block = 2 * (int64_t)MC * nc * kc, grain = per_block >= 1000000 ? 1 : 1000000 / per_block + 1;
            wk_parallel_for(0, nblocks, grain, run_ic, &g);
        }
    }
    rc = 0;
done:
    if (pa_bufs)
        for (int t = 0; t < nthreads; t++) free(pa_bufs[t]);
    free(pa_bufs);
    free(pb);
    if (rc < 0) wk__error(WK_MEMORY_ERROR, "out of memory in gemm");
    return rc;
}
