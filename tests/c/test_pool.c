/* test_pool.c — float32 max_pool2d (src/ops/nn_pool.c: the plane-parallel float path and its MaxPool2d(2) vector rows)
 * against the float64 reference path (max_pool_fwd) on the same values: odd and even planes, widths around the
 * 8-output vector step, ties (small integers), NaN and -inf, a non-contiguous input, a few other geometries; values
 * and indices must be identical, at 1 and 3 threads. Run by `make test-c` (ASan/UBSan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int failures = 0, checks = 0;
static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint32_t u32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void run(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t pad, bool transposed,
                int threads) {
    wk_set_num_threads(threads);
    int64_t total = n * c * h * w;
    float *v = malloc(sizeof(float) * (size_t)(total + 1));
    for (int64_t i = 0; i < total; i++) {
        uint32_t r = u32() % 64;
        v[i] = r == 0 ? NAN : r == 1 ? -INFINITY : (float)(int)(u32() % 9) - 4.0f; /* ties, NaN, -inf */
    }
    int64_t sz[4] = {n, c, transposed ? w : h, transposed ? h : w};
    wk_tensor *base = wk_from_data(v, WK_FLOAT32, 4, sz);
    wk_tensor *x = transposed ? wk_transpose(base, 2, 3) : wk_retain(base); /* [n, c, h, w], maybe strided */
    wk_tensor *xd = wk_to_dtype(x, WK_FLOAT64, false, false);
    int64_t ks[2] = {k, k}, ss[2] = {s, s}, ps[2] = {pad, pad}, ds[2] = {1, 1};
    wk_intlist K = {ks, 2}, S = {ss, 2}, P = {ps, 2}, D = {ds, 2};
    wk_tensor *f[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
    int rf = wk_max_pool2d_with_indices(x, K, S, P, D, false, f);
    int rr = wk_max_pool2d_with_indices(xd, K, S, P, D, false, r);
    checks++;
    if (rf < 0 || rr < 0) {
        printf("FAIL pool %lldx%lldx%lldx%lld: %s\n", (long long)n, (long long)c, (long long)h, (long long)w,
               wk_error_message());
        failures++;
    } else {
        int64_t m = wk_numel(r[0]);
        double *a = malloc(sizeof(double) * (size_t)(m + 1)), *b = malloc(sizeof(double) * (size_t)(m + 1));
        int64_t *ia = malloc(sizeof(int64_t) * (size_t)(m + 1)), *ib = malloc(sizeof(int64_t) * (size_t)(m + 1));
        wk_copy_to_buffer(f[0], WK_FLOAT64, a);
        wk_copy_to_buffer(r[0], WK_FLOAT64, b);
        wk_copy_to_buffer(f[1], WK_INT64, ia);
        wk_copy_to_buffer(r[1], WK_INT64, ib);
        for (int64_t i = 0; i < m; i++)
            if ((isnan(a[i]) != isnan(b[i])) || (!isnan(a[i]) && a[i] != b[i]) || ia[i] != ib[i]) {
                printf("FAIL pool %lldx%lldx%lldx%lld k%lld s%lld p%lld%s threads %d [%lld]: %g @%lld vs %g @%lld\n",
                       (long long)n, (long long)c, (long long)h, (long long)w, (long long)k, (long long)s,
                       (long long)pad, transposed ? " transposed" : "", threads, (long long)i, a[i], (long long)ia[i],
                       b[i], (long long)ib[i]);
                failures++;
                break;
            }
        free(a), free(b), free(ia), free(ib);
    }
    wk_error_clear();
    for (int i = 0; i < 2; i++) wk_release(f[i]), wk_release(r[i]);
    wk_release(xd);
    wk_release(x);
    wk_release(base);
    free(v);
}

int main(void) {
    static const int64_t hw[][2] = {{2, 2}, {3, 3}, {28, 28}, {10, 10}, {16, 17}, {33, 34}, {5, 40}, {31, 2}, {2, 49}};
    for (int th = 1; th <= 3; th += 2)
        for (size_t i = 0; i < sizeof hw / sizeof *hw; i++)
            for (int tr = 0; tr < 2; tr++) {
                run(2, 3, hw[i][0], hw[i][1], 2, 2, 0, tr, th);      /* MaxPool2d(2): the vector rows */
                run(1, 2, hw[i][0], hw[i][1], 2, 1, 0, tr, th);      /* overlapping windows: the generic scan */
                if (hw[i][0] >= 3 && hw[i][1] >= 3) run(1, 2, hw[i][0], hw[i][1], 3, 2, 1, tr, th);
            }
    run(64, 6, 28, 28, 2, 2, 0, false, 3); /* LeNet's two pools */
    run(64, 16, 10, 10, 2, 2, 0, false, 3);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
