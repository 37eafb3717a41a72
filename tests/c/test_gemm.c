/* test_gemm.c — the fast float32 GEMM against its naive reference on odd shapes, transposed and strided operands,
 * beta 0/1/0.5, transposed B and C, and 1..4 threads (results must not depend on the thread count). Run by `make test-c` (ASan/UBSan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu/gemm.h"
#include "cpu/threadpool.h"

static uint64_t rng = 88172645463325252ULL;
static float frand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

int main(void) {
    static const int64_t shapes[][3] = {{1, 1, 1},   {1, 17, 3},  {7, 1, 5},     {6, 16, 256}, {13, 33, 257},
                                        {97, 65, 300}, {5, 200, 7}, {130, 2050, 3}, {64, 64, 64}, {0, 4, 4},
                                        {4, 0, 4},   {4, 4, 0},   {191, 47, 513}, {12, 32, 256},
                                        {25, 97, 40}, {128, 128, 128}, {300, 70, 600}, {40, 1100, 9},
                                        /* the MLP step's shapes (B read in place for a short A, A for a
                                         * narrow B, the narrow kernel at 10 columns) */
                                        {64, 256, 784}, {256, 200, 64}, {64, 10, 256}, {10, 256, 64},
                                        {64, 256, 10}, {133, 129, 70},
                                        /* K past a chunk of depths (KB_MAX = 4096) and, at 1100 columns, packed B
                                         * past PACK_MAX: blocks of columns, A packed once for them all */
                                        {7, 1100, 4100}, {30, 50, 4100},
                                        /* B's rows 256 floats apart under a short A read in place: the units
                                         * span all rows and pack their own B (b_aliased) */
                                        {100, 256, 300}};
    int failures = 0, checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        for (int layout = 0; layout < 8; layout++) {
            for (int threads = 1; threads <= 4; threads *= 2) {
                wk_set_num_threads(threads);
                /* layout bit 0: A transposed in memory; bit 1: B strided with a gap; bit 2: B and C transposed */
                int64_t lda = (layout & 1) ? M : K, ldb = (layout & 2) ? 2 * N + 1 : N;
                bool tr = layout & 4;
                int64_t rsb = tr ? 1 : ldb, csb = tr ? K : 1, rsc = tr ? 1 : N, csc = tr ? M : 1;
                float *A = malloc(sizeof(float) * (size_t)(M * K + 1)), *B = malloc(sizeof(float) * (size_t)(K * ldb + 1));
                float *C1 = malloc(sizeof(float) * (size_t)(M * N + 1)), *C2 = malloc(sizeof(float) * (size_t)(M * N + 1));
                for (int64_t i = 0; i < M * K; i++) A[i] = frand();
                for (int64_t i = 0; i < K * ldb; i++) B[i] = frand();
                for (int64_t i = 0; i < M * N; i++) C1[i] = C2[i] = frand();
                int64_t rsa = (layout & 1) ? 1 : lda, csa = (layout & 1) ? lda : 1;
                float beta = (s % 3) == 1 ? 1.0f : (s % 3) == 2 ? 0.5f : 0.0f;
                wk_gemm_f32(M, N, K, A, rsa, csa, B, rsb, csb, beta, C1, rsc, csc);
                wk_gemm_f32_ref(M, N, K, A, rsa, csa, B, rsb, csb, beta, C2, rsc, csc);
                for (int64_t i = 0; i < M * N; i++) {
                    float tol = 1e-5f * (float)K + 1e-5f;
                    if (!(fabsf(C1[i] - C2[i]) <= tol)) {
                        if (failures < 10)
                            printf("FAIL M=%lld N=%lld K=%lld layout=%d threads=%d i=%lld: %g vs %g\n", (long long)M,
                                   (long long)N, (long long)K, layout, threads, (long long)i, C1[i], C2[i]);
                        failures++;
                        break;
                    }
                }
                checked++;
                free(A);
                free(B);
                free(C1);
                free(C2);
            }
        }
    }
    /* thread-count independence: the same product with 1, 2 and 3 threads is bitwise equal (rows split, and
     * the column split of a short, wide product) */
    static const int64_t ind[][3] = {{150, 70, 300}, {700, 300, 520}, {13, 2000, 300}, {400, 400, 100}, {300, 200, 300},
                                    {100, 256, 300}};
    for (size_t s = 0; s < sizeof ind / sizeof ind[0]; s++) {
        int64_t M = ind[s][0], N = ind[s][1], K = ind[s][2];
        float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
        float *C1 = calloc((size_t)(M * N), sizeof(float)), *C2 = calloc((size_t)(M * N), sizeof(float));
        for (int64_t i = 0; i < M * K; i++) A[i] = frand();
        for (int64_t i = 0; i < K * N; i++) B[i] = frand();
        wk_set_num_threads(1);
        wk_gemm_f32(M, N, K, A, K, 1, B, N, 1, 0, C1, N, 1);
        for (int t = 2; t <= 3; t++) {
            wk_set_num_threads(t);
            wk_gemm_f32(M, N, K, A, K, 1, B, N, 1, 0, C2, N, 1);
            if (memcmp(C1, C2, sizeof(float) * (size_t)(M * N))) {
                printf("FAIL: results depend on the thread count (%lld x %lld x %lld, %d threads)\n", (long long)M,
                       (long long)N, (long long)K, t);
                failures++;
            }
        }
        free(A);
        free(B);
        free(C1);
        free(C2);
    }
    printf("test_gemm: %d products checked against the reference, %d failure(s)\n", checked, failures);
    return failures != 0;
}
