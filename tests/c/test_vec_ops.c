/* test_vec_ops.c — the float32 fast paths (vectorised, threaded: src/cpu/vec.h, the sum / amax / max.dim /
 * logsumexp paths of reduce.c, softmax in nn_softmax.c, the parallel iterator) against wick's float64 reference
 * paths on random shapes: odd sizes and tails, 0-size and 1-element tensors, transposed and stepped views, every
 * dim and the full reduction, 1 and 3 threads. Run by `make test-c` (ASan/UBSan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int failures = 0, checks = 0;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static float frand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffff) / 4096.0f - 8.0f;
}

/* the tensor's elements (row-major, logical order) as float64 */
static double *values(wk_tensor *t) {
    int64_t n = wk_numel(t);
    double *v = malloc(sizeof(double) * (size_t)(n + 1));
    wk_copy_to_buffer(t, WK_FLOAT64, v);
    return v;
}

/* fast (float32) against ref (float64 path): same shape; |a - b| <= rtol |b| + atol, NaN where NaN */
static void compare(const char *what, wk_tensor *fast, wk_tensor *ref, double rtol, double atol) {
    checks++;
    if (!fast || !ref) {
        printf("FAIL %s: NULL (%s)\n", what, wk_error_message());
        wk_error_clear();
        failures++;
        return;
    }
    if (wk_ndim(fast) != wk_ndim(ref) || wk_numel(fast) != wk_numel(ref) ||
        memcmp(wk_sizes(fast), wk_sizes(ref), sizeof(int64_t) * (size_t)wk_ndim(ref))) {
        printf("FAIL %s: shapes differ\n", what);
        failures++;
        return;
    }
    double *a = values(fast), *b = values(ref);
    for (int64_t i = 0, n = wk_numel(ref); i < n; i++) {
        bool ok = isnan(b[i]) ? isnan(a[i]) : (a[i] == b[i] || fabs(a[i] - b[i]) <= rtol * fabs(b[i]) + atol);
        if (!ok) {
            printf("FAIL %s [%lld]: %.9g vs %.9g\n", what, (long long)i, a[i], b[i]);
            failures++;
            break;
        }
    }
    free(a);
    free(b);
}

static wk_tensor *f64(wk_tensor *t) { return wk_to_dtype(t, WK_FLOAT64, false, false); }
static wk_tensor *f32(wk_tensor *t) { /* steals t */
    wk_tensor *r = t ? wk_to_dtype(t, WK_FLOAT32, false, false) : NULL;
    wk_release(t);
    return r;
}

static void check_tensor(wk_tensor *x, const char *layout, int threads) {
    char what[160];
    wk_tensor *xd = f64(x);
    int nd = wk_ndim(x);
    /* elementwise */
    snprintf(what, sizeof what, "exp %s t%d", layout, threads);
    wk_tensor *a = wk_exp(x), *b = f32(wk_exp(xd));
    compare(what, a, b, 2.4e-7, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "sigmoid %s t%d", layout, threads);
    a = wk_sigmoid(x), b = f32(wk_sigmoid(xd));
    compare(what, a, b, 3.6e-7, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "add %s t%d", layout, threads);
    a = wk_add(x, x, wk_int(1)), b = f32(wk_add(xd, xd, wk_int(1)));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b);
    /* mul / add with a 0-d tensor, relu, threshold_backward: exact (one rounding each, so float64 rounds the same) */
    wk_tensor *c = wk_scalar_tensor_new(wk_float(0.75), WK_FLOAT32), *cd = f64(c);
    snprintf(what, sizeof what, "mul %s t%d", layout, threads);
    a = wk_mul(x, c), b = f32(wk_mul(xd, cd));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "sub %s t%d", layout, threads);
    a = wk_sub(x, c, wk_int(1)), b = f32(wk_sub(xd, cd, wk_int(1)));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "add scalar %s t%d", layout, threads);
    a = wk_add(c, x, wk_int(1)), b = f32(wk_add(cd, xd, wk_int(1)));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "relu %s t%d", layout, threads);
    a = wk_relu(x), b = f32(wk_relu(xd));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b);
    snprintf(what, sizeof what, "threshold_backward %s t%d", layout, threads);
    a = wk_threshold_backward(x, x, wk_float(0.5)), b = f32(wk_threshold_backward(xd, xd, wk_float(0.5)));
    compare(what, a, b, 0, 0);
    wk_release(a), wk_release(b), wk_release(c), wk_release(cd);
    /* reductions: full, then every dim */
    if (wk_numel(x) > 0) {
        snprintf(what, sizeof what, "sum %s t%d", layout, threads);
        a = wk_sum(x, WK_DTYPE_NONE), b = f32(wk_sum(xd, WK_DTYPE_NONE));
        compare(what, a, b, 1e-5, 1e-4);
        wk_release(a), wk_release(b);
        snprintf(what, sizeof what, "amax %s t%d", layout, threads);
        a = wk_amax(x, wk_ints(NULL, 0), false), b = f32(wk_amax(xd, wk_ints(NULL, 0), false));
        compare(what, a, b, 0, 0);
        wk_release(a), wk_release(b);
        snprintf(what, sizeof what, "logsumexp %s t%d", layout, threads);
        a = wk_logsumexp(x, wk_ints(NULL, 0), false), b = f32(wk_logsumexp(xd, wk_ints(NULL, 0), false));
        compare(what, a, b, 1e-6, 1e-6);
        wk_release(a), wk_release(b);
    }
    for (int64_t d = 0; d < nd; d++) {
        int64_t dd = d;
        bool keep = d % 2;
        snprintf(what, sizeof what, "sum dim %lld %s t%d", (long long)d, layout, threads);
        a = wk_sum_dim(x, wk_ints(&dd, 1), keep, WK_DTYPE_NONE), b = f32(wk_sum_dim(xd, wk_ints(&dd, 1), keep, WK_DTYPE_NONE));
        compare(what, a, b, 1e-5, 1e-4);
        wk_release(a), wk_release(b);
        snprintf(what, sizeof what, "mean dim %lld %s t%d", (long long)d, layout, threads);
        a = wk_mean_dim(x, wk_ints(&dd, 1), keep, WK_DTYPE_NONE), b = f32(wk_mean_dim(xd, wk_ints(&dd, 1), keep, WK_DTYPE_NONE));
        compare(what, a, b, 1e-5, 1e-5);
        wk_release(a), wk_release(b);
        snprintf(what, sizeof what, "softmax dim %lld %s t%d", (long long)d, layout, threads);
        a = wk__softmax(x, d, false), b = f32(wk__softmax(xd, d, false));
        compare(what, a, b, 1e-5, 1e-7);
        wk_release(a), wk_release(b);
        snprintf(what, sizeof what, "log_softmax dim %lld %s t%d", (long long)d, layout, threads);
        a = wk__log_softmax(x, d, false), b = f32(wk__log_softmax(xd, d, false));
        compare(what, a, b, 1e-5, 1e-5);
        wk_release(a), wk_release(b);
        if (wk_sizes(x)[d] > 0) {
            snprintf(what, sizeof what, "logsumexp dim %lld %s t%d", (long long)d, layout, threads);
            a = wk_logsumexp(x, wk_ints(&dd, 1), keep), b = f32(wk_logsumexp(xd, wk_ints(&dd, 1), keep));
            compare(what, a, b, 1e-6, 1e-6);
            wk_release(a), wk_release(b);
            wk_tensor *o1[2] = {0}, *o2[2] = {0};
            snprintf(what, sizeof what, "max.dim %lld %s t%d", (long long)d, layout, threads);
            if (wk_max_dim(x, d, keep, o1) == 0 && wk_max_dim(xd, d, keep, o2) == 0) {
                wk_tensor *v2 = f32(o2[0]);
                compare(what, o1[0], v2, 0, 0);
                compare(what, o1[1], o2[1], 0, 0);
                wk_release(v2), wk_release(o1[0]), wk_release(o1[1]), wk_release(o2[1]);
            } else {
                printf("FAIL %s: %s\n", what, wk_error_message());
                wk_error_clear();
                failures++;
            }
        }
    }
    wk_release(xd);
}

int main(void) {
    static const int64_t shapes[][3] = {{0, 5, 1},   {1, 1, 1},    {1, 37, 1},  {3, 17, 1},   {9, 300, 1},
                                        {2, 3, 4},   {40, 1, 33},  {130, 70, 1}, {257, 129, 1}, {5, 31, 67},
                                        {3, 0, 4},   {1100, 41, 1}, {4, 600, 30}};
    for (int threads = 1; threads <= 3; threads += 2) {
        wk_set_num_threads(threads);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int nd = shapes[s][2] == 1 ? 2 : 3;
            int64_t sizes[3] = {shapes[s][0], shapes[s][1], shapes[s][2]}, n = sizes[0] * sizes[1] * sizes[2];
            float *data = malloc(sizeof(float) * (size_t)(2 * n + 1));
            for (int64_t i = 0; i < 2 * n; i++) data[i] = frand();
            if (n > 3) data[n / 3] = NAN; /* one NaN in the stepped view's parent only */
            wk_tensor *x = wk_from_data(data, WK_FLOAT32, nd, sizes);
            check_tensor(x, "contiguous", threads);
            wk_tensor *t = wk_transpose(x, 0, nd - 1);
            check_tensor(t, "transposed", threads);
            int64_t big[3] = {sizes[0], sizes[1], 2 * sizes[2]};
            if (nd == 2) big[1] = 2 * sizes[1];
            wk_tensor *p = wk_from_data(data, WK_FLOAT32, nd, big);
            wk_tensor *st = wk_slice(p, nd - 1, (wk_optint){0}, (wk_optint){0}, 2);
            if (st) check_tensor(st, "stepped", threads);
            else wk_error_clear();
            wk_release(st), wk_release(p), wk_release(t), wk_release(x);
            free(data);
        }
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
