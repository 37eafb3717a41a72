/* test_gemm.c — the fast float32 GEMM against its naive reference on odd shapes, transposed and strided operands,
 * beta 0/1, and 1..4 threads (results must not depend on the thread count). Run by `make test-c` (ASan/UBSan). */
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
                                        {4, 0, 4},   {4, 4, 0},   {191, 47, 513}};
    int failures = 0, checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        for (int layout = 0; layout < 4; layout++) {
            for (int threads = 1; threads <= 4; threads *= 2) {
                wk_set_num_threads(threads);
                /* layout bit 0: A transposed in memory; bit 1: B strided with a gap */
                int64_t lda = (layout & 1) ? M : K, ldb = (layout & 2) ? 2 * N + 1 : N;
                float *A = malloc(sizeof(float) * (size_t)(M * K + 1)), *B = malloc(sizeof(float) * (size_t)(K * ldb + 1));
                float *C1 = malloc(sizeof(float) * (size_t)(M * N + 1)), *C2 = malloc(sizeof(float) * (size_t)(M * N + 1));
                for (int64_t i = 0; i < M * K; i++) A[i] = frand();
                for (int64_t i = 0; i < K * ldb; i++) B[i] = frand();
                for (int64_t i = 0; i < M * N; i++) C1[i] = C2[i] = frand();
                int64_t rsa = (layout & 1) ? 1 : lda, csa = (layout & 1) ? lda : 1;
                float beta = (s % 2) ? 1.0f : 0.0f;
                wk_gemm_f32(M, N, K, A, rsa, csa, B, ldb, 1, beta, C1, N, 1);
                wk_gemm_f32_ref(M, N, K, A, rsa, csa, B, ldb, 1, beta, C2, N, 1);
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
    /* thread-count independence: the same product with 1 and 3 threads is bitwise equal */
    {
        int64_t M = 150, N = 70, K = 300;
        float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
        float *C1 = calloc((size_t)(M * N), sizeof(float)), *C2 = calloc((size_t)(M * N), sizeof(float));
        for (int64_t i = 0; i < M * K; i++) A[i] = frand();
        for (int64_t i = 0; i < K * N; i++) B[i] = frand();
        wk_set_num_threads(1);
        wk_gemm_f32(M, N, K, A, K, 1, B, N, 1, 0, C1, N, 1);
        wk_set_num_threads(3);
        wk_gemm_f32(M, N, K, A, K, 1, B, N, 1, 0, C2, N, 1);
        if (memcmp(C1, C2, sizeof(float) * (size_t)(M * N))) {
            printf("FAIL: results depend on the thread count\n");
            failures++;
        }
        free(A);
        free(B);
        free(C1);
        free(C2);
    }
    printf("test_gemm: %d products checked against the reference, %d failure(s)\n", checked, failures);
    return failures != 0;
}
