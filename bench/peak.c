/* peak.c — this machine's measured peak: FMA throughput (AVX2 and AVX-512, one core and all cores) and memory
 * bandwidth (stream-like copy and triad, one thread and all threads).
 *   cc -O2 -pthread bench/peak.c -o build/bench/peak && build/bench/peak [threads]
 * Prints one `key value` line per figure (GFLOP/s, GB/s); bench/run.py parses them. Each figure is the best of
 * many short timed runs (the peak is what the hardware does when nothing else runs; the machine is shared). All-core figures: each thread runs
 * the same loop at once, and the slowest thread's CPU time counts. */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* wall time (thread CPU time is no good here: in this KVM guest it leaves out "stolen" time and gives rates
 * above what the FMA units can do); best of many short runs filters out the other processes' slices */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define ITERS 4000000L /* FMA loop trips per run; 12 FMAs each */

/* 12 independent accumulator chains: enough to cover FMA latency (4) x 2 ports. Returns a sum so the work
 * is not dead. flops per trip: 12 * 8 lanes * 2 (AVX2), 12 * 16 * 2 (AVX-512). */
__attribute__((target("avx2,fma"))) static float fma_avx2(long iters) {
    __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
    __m256 c0 = _mm256_set1_ps(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0,
           c9 = c0, c10 = c0, c11 = c0;
    for (long i = 0; i < iters; i++) {
        c0 = _mm256_fmadd_ps(c0, a, b); c1 = _mm256_fmadd_ps(c1, a, b); c2 = _mm256_fmadd_ps(c2, a, b);
        c3 = _mm256_fmadd_ps(c3, a, b); c4 = _mm256_fmadd_ps(c4, a, b); c5 = _mm256_fmadd_ps(c5, a, b);
        c6 = _mm256_fmadd_ps(c6, a, b); c7 = _mm256_fmadd_ps(c7, a, b); c8 = _mm256_fmadd_ps(c8, a, b);
        c9 = _mm256_fmadd_ps(c9, a, b); c10 = _mm256_fmadd_ps(c10, a, b); c11 = _mm256_fmadd_ps(c11, a, b);
        /* opaque to the compiler: the 12 identical chains must not be merged into one */
        __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5));
        __asm__ volatile("" : "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                             _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0];
}

__attribute__((target("avx512f"))) static float fma_avx512(long iters) {
    __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    __m512 c0 = _mm512_set1_ps(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0,
           c9 = c0, c10 = c0, c11 = c0;
    for (long i = 0; i < iters; i++) {
        c0 = _mm512_fmadd_ps(c0, a, b); c1 = _mm512_fmadd_ps(c1, a, b); c2 = _mm512_fmadd_ps(c2, a, b);
        c3 = _mm512_fmadd_ps(c3, a, b); c4 = _mm512_fmadd_ps(c4, a, b); c5 = _mm512_fmadd_ps(c5, a, b);
        c6 = _mm512_fmadd_ps(c6, a, b); c7 = _mm512_fmadd_ps(c7, a, b); c8 = _mm512_fmadd_ps(c8, a, b);
        c9 = _mm512_fmadd_ps(c9, a, b); c10 = _mm512_fmadd_ps(c10, a, b); c11 = _mm512_fmadd_ps(c11, a, b);
        __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5));
        __asm__ volatile("" : "+v"(c6), "+v"(c7), "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                             _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
    return _mm512_reduce_add_ps(s);
}

/* ---- memory: arrays far larger than the caches (L3 here is big, so 3 x 256 MiB) ---- */
#define NMEM (64L << 20) /* floats per array: 256 MiB */
static float *xa, *xb, *xc;

typedef struct {
    int kind; /* 0 avx2 fma, 1 avx512 fma, 2 copy, 3 triad */
    int tid, nthreads;
    pthread_barrier_t *bar;
    double secs;
    volatile float sink;
} job;

static void *run_job(void *p) {
    job *j = p;
    long lo = NMEM / j->nthreads * j->tid, hi = NMEM / j->nthreads * (j->tid + 1);
    pthread_barrier_wait(j->bar);
    double t0 = now();
    if (j->kind == 0) j->sink = fma_avx2(ITERS);
    else if (j->kind == 1) j->sink = fma_avx512(ITERS);
    else if (j->kind == 2) memcpy(xb + lo, xa + lo, sizeof(float) * (hi - lo));
    else
        for (long i = lo; i < hi; i++) xc[i] = xa[i] + 3.0f * xb[i];
    j->secs = now() - t0;
    return NULL;
}

/* best-of-reps wall time with n threads, each doing one job of `kind` */
static double timed(int kind, int n, int reps) {
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        pthread_t th[64];
        job jobs[64];
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, (unsigned)n);
        for (int t = 0; t < n; t++) {
            jobs[t] = (job){kind, t, n, &bar, 0, 0};
            pthread_create(&th[t], NULL, run_job, &jobs[t]);
        }
        double worst = 0;
        for (int t = 0; t < n; t++) {
            pthread_join(th[t], NULL);
            if (jobs[t].secs > worst) worst = jobs[t].secs;
        }
        pthread_barrier_destroy(&bar);
        if (worst < best) best = worst;
    }
    return best;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 64) n = 64;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    __builtin_cpu_init();
    int has512 = __builtin_cpu_supports("avx512f");
    double fl2 = ITERS * 12.0 * 8 * 2, fl5 = ITERS * 12.0 * 16 * 2;
    printf("threads %d\n", n);
    printf("fma_avx2_1core_gflops %.1f\n", fl2 / timed(0, 1, reps) / 1e9);
    printf("fma_avx2_allcores_gflops %.1f\n", n * fl2 / timed(0, n, reps) / 1e9);
    if (has512) {
        printf("fma_avx512_1core_gflops %.1f\n", fl5 / timed(1, 1, reps) / 1e9);
        printf("fma_avx512_allcores_gflops %.1f\n", n * fl5 / timed(1, n, reps) / 1e9);
    }
    xa = aligned_alloc(64, sizeof(float) * NMEM);
    xb = aligned_alloc(64, sizeof(float) * NMEM);
    xc = aligned_alloc(64, sizeof(float) * NMEM);
    if (!xa || !xb || !xc) return 1;
    for (long i = 0; i < NMEM; i++) xa[i] = 1, xb[i] = 2, xc[i] = 0;
    /* bytes moved: copy reads + writes 2 x 4 B, triad 3 x 4 B per element (write-allocate not counted) */
    reps = reps > 5 ? 5 : reps; /* memory passes are long (0.1 s and more) */
    printf("copy_1thread_gbs %.1f\n", 8.0 * NMEM / timed(2, 1, reps) / 1e9);
    printf("copy_allthreads_gbs %.1f\n", 8.0 * NMEM / timed(2, n, reps) / 1e9);
    printf("triad_1thread_gbs %.1f\n", 12.0 * NMEM / timed(3, 1, reps) / 1e9);
    printf("triad_allthreads_gbs %.1f\n", 12.0 * NMEM / timed(3, n, reps) / 1e9);
    free(xa), free(xb), free(xc);
    return 0;
}
