/* ukernel_bench.c — the GEMM micro-kernel alone on data in L1 (no packing, no C traffic to speak of): the
 * ceiling of the blocked product. Includes src/cpu/gemm.c directly to reach its static kernels.
 *   cc -O2 -ffp-contract=off -pthread -Iinclude -Isrc -Ibuild/gen bench/ukernel_bench.c build/libwick.a -lm -o ... */
#include "cpu/gemm.c"

#include <stdio.h>
#include <time.h>

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
    ukernel uk = pick_kernel();
    int kc = KC;
    float *pa = falloc((size_t)uk.mr * kc), *pb = falloc((size_t)uk.nr * kc), *c = falloc((size_t)uk.mr * uk.nr);
    for (int i = 0; i < uk.mr * kc; i++) pa[i] = 1e-3f * (float)(i % 7);
    for (int i = 0; i < uk.nr * kc; i++) pb[i] = 1e-3f * (float)(i % 5);
    long calls = 200000;
    double best = 1e30;
    for (int r = 0; r < 7; r++) {
        double t0 = wall();
        for (long i = 0; i < calls; i++) uk.fn(kc, pa, 1, uk.mr, pb, uk.nr, c, uk.nr, i ? ADD : SET, 0, uk.mr, uk.nr);
        double t = wall() - t0;
        if (t < best) best = t;
    }
    printf("micro-kernel %dx%d kc=%d: %.1f GFLOP/s (best of 7, one core)\n", uk.mr, uk.nr, kc,
           2.0 * uk.mr * uk.nr * kc * calls / best / 1e9);
    return 0;
}
