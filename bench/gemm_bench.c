/* gemm_bench.c — the float32 GEMM alone, in plain C, against the machine's measured FMA peak.
 *   make build/bench/gemm_bench && build/bench/gemm_bench [threads...]      (default: 1 and all cores)
 * For each size n in 64, 256, 1024, 2048: C[n,n] = A[n,n] @ B[n,n] (row-major, contiguous) through
 * wk_gemm_f32 (src/cpu/gemm.h), the median of timed runs after a warm-up, in GFLOP/s and as a fraction of the
 * peak measured by bench/peak.c (run it first: `build/bench/peak` — this program measures the same FMA loop
 * itself only roughly, so it prints GFLOP/s and leaves the fraction to bench/run.py when no peak is given).
 * Also checks the product against the naive reference at 64 and 256 (max abs difference).
 * `--mlp`: instead, the products of one training step of the 784-256-10 MLP at batch 64 (bench/run.py's
 * mlp_sgd_step), with the operand layouts autograd hands the GEMM, best of many calls, in microseconds
 * (bench/tune_gemm.py --mlp times the same torch.mm calls). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/gemm.h"
#include "cpu/threadpool.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* one product of the MLP step: C[M,N] = A @ B, A stored [M,K] ('n') or [K,M] ('t'), B [K,N] ('n') or [N,K] */
typedef struct {
    const char *name;
    int64_t M, N, K;
    char ta, tb;
} mlp_product;
static const mlp_product MLP[] = {
    {"fc1_fwd x@W1^T", 64, 256, 784, 'n', 't'}, {"fc1_gW g^T@x", 256, 784, 64, 't', 'n'},
    {"fc1_gx g@W1", 64, 784, 256, 'n', 'n'},    {"fc2_fwd h@W2^T", 64, 10, 256, 'n', 't'},
    {"fc2_gh g@W2", 64, 256, 10, 'n', 'n'},      {"fc2_gW g^T@h", 10, 256, 64, 't', 'n'},
};

static void bench_mlp(int nthreads) {
    wk_set_num_threads(nthreads);
    for (size_t s = 0; s < sizeof MLP / sizeof MLP[0]; s++) {
        const mlp_product *q = &MLP[s];
        int64_t M = q->M, N = q->N, K = q->K;
        float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
        float *C = malloc(sizeof(float) * (size_t)(M * N));
        for (int64_t i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        for (int64_t i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        int64_t rsa = q->ta == 'n' ? K : 1, csa = q->ta == 'n' ? 1 : M;
        int64_t rsb = q->tb == 'n' ? N : 1, csb = q->tb == 'n' ? 1 : K;
        double best = 1e30;
        for (int r = 0; r < 200; r++) {
            double t0 = now();
            for (int c = 0; c < 10; c++) wk_gemm_f32(M, N, K, A, rsa, csa, B, rsb, csb, 0, C, N, 1);
            double t = (now() - t0) / 10;
            if (t < best) best = t;
        }
        printf("%-16s %4lld x %4lld x %4lld  A%c B%c  threads %d  best %8.2f us  %6.1f GFLOP/s\n", q->name, (long long)M,
               (long long)N, (long long)K, q->ta, q->tb, nthreads, best * 1e6, 2.0 * M * N * K / best / 1e9);
        free(A);
        free(B);
        free(C);
    }
}

int main(int argc, char **argv) {
    int threads[8] = {1, 0}, nt = 0;
    bool mlp = false;
    double peak_per_core = 0; /* GFLOP/s, from `--peak X` (bench/peak.c's figure for one core) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--peak") && i + 1 < argc) peak_per_core = atof(argv[++i]);
        else if (!strcmp(argv[i], "--mlp")) mlp = true;
        else if (nt < 8) threads[nt++] = atoi(argv[i]);
    }
    if (!nt) {
        threads[nt++] = 1;
        int all = wk_get_num_threads();
        if (all > 1) threads[nt++] = all;
    }
    if (mlp) {
        for (int t = 0; t < nt; t++) bench_mlp(threads[t]);
        return 0;
    }
    static const int sizes[] = {64, 256, 1024, 2048};
    printf("%-8s %-7s %12s %10s %13s %8s\n", "n", "threads", "median", "GFLOP/s", "GF/s best", "%peak");
    printf("(median and best of 9 timed batches, wall clock; %%peak from the median, against --peak GFLOP/s a core)\n");
    for (int t = 0; t < nt; t++) {
        wk_set_num_threads(threads[t]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int64_t n = sizes[s];
            float *A = malloc(sizeof(float) * (size_t)(n * n)), *B = malloc(sizeof(float) * (size_t)(n * n));
            float *C = malloc(sizeof(float) * (size_t)(n * n));
            for (int64_t i = 0; i < n * n; i++) A[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
            for (int64_t i = 0; i < n * n; i++) B[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
            double flops = 2.0 * (double)n * (double)n * (double)n;
            int calls = (int)(0.02e9 / flops * 50); /* batches of about 20 ms at 50 GFLOP/s */
            if (calls < 1) calls = 1;
            wk_gemm_f32(n, n, n, A, n, 1, B, n, 1, 0, C, n, 1); /* warm-up */
            double times[9];
            for (int r = 0; r < 9; r++) {
                double t0 = now();
                for (int c = 0; c < calls; c++) wk_gemm_f32(n, n, n, A, n, 1, B, n, 1, 0, C, n, 1);
                times[r] = (now() - t0) / calls;
            }
            qsort(times, 9, sizeof(double), cmp_double);
            double gf = flops / times[4] / 1e9, gf_cpu = flops / times[0] / 1e9;
            printf("%-8lld %-7d %9.3f ms %10.1f %13.1f", (long long)n, threads[t], times[4] * 1e3, gf, gf_cpu);
            if (peak_per_core > 0) printf(" %7.0f%%", 100 * gf / (peak_per_core * threads[t]));
            if (n <= 256) {
                float *R = malloc(sizeof(float) * (size_t)(n * n));
                wk_gemm_f32_ref(n, n, n, A, n, 1, B, n, 1, 0, R, n, 1);
                double md = 0;
                for (int64_t i = 0; i < n * n; i++) md = fmax(md, fabs((double)C[i] - (double)R[i]));
                printf("   max |fast - ref| %.2g", md);
                free(R);
            }
            printf("\n");
            free(A);
            free(B);
            free(C);
        }
    }
    return 0;
}
