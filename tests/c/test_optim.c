/* test_optim.c — the fast float32/float64 optimiser steps of src/ops/optim.c (vectorised, split across the thread pool):
 * SGD against a plain per-element reference written here from torch's single-tensor algorithm (Note [Optimiser
 * arithmetic]), Adam/AdamW against optim.c's own scalar kernels (wk__optim_scalar), and the vector torch_sqrtf
 * against the scalar one on special values and random bit patterns (all 2^32 with WK_OPTIM_EXHAUSTIVE=1):
 * every flag combination, sizes around the vector width and the thread grain, a transposed (non-contiguous) param,
 * 1 and 3 threads; results must be bit-identical. Run by `make test-c` (ASan/UBSan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

/* src/ops/optim.c's test hooks */
extern bool wk__optim_scalar;
void wk__optim_sqrt_f32(const float *x, float *y, int64_t n);

static int failures = 0, checks = 0;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static double drand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)((rng >> 11) & ((1ull << 40) - 1)) / (double)(1ull << 40) * 4.0 - 2.0;
}

typedef struct {
    double wd, mom, lr, damp;
    bool nesterov, maximize;
} sgd_cfg;

/* torch's _single_tensor_sgd on one element; float32 (f32) or float64 arithmetic. first: no momentum buffer yet. */
static void ref_f32(int64_t n, float *p, const float *g, float *buf, bool first, const sgd_cfg *c) {
    for (int64_t i = 0; i < n; i++) {
        float d = c->maximize ? -g[i] : g[i];
        if (c->wd != 0) d = fmaf((float)c->wd, p[i], d);
        if (buf) {
            float b = first ? d : fmaf((float)(1 - c->damp), d, buf[i] * (float)c->mom);
            buf[i] = b;
            d = c->nesterov ? fmaf((float)c->mom, b, d) : b;
        }
        p[i] = fmaf((float)(-c->lr), d, p[i]);
    }
}
static void ref_f64(int64_t n, double *p, const double *g, double *buf, bool first, const sgd_cfg *c) {
    for (int64_t i = 0; i < n; i++) {
        double d = c->maximize ? -g[i] : g[i];
        if (c->wd != 0) d = fma(c->wd, p[i], d);
        if (buf) {
            double b = first ? d : fma(1 - c->damp, d, buf[i] * c->mom);
            buf[i] = b;
            d = c->nesterov ? fma(c->mom, b, d) : b;
        }
        p[i] = fma(-c->lr, d, p[i]);
    }
}

static void check_bits(const char *what, wk_tensor *t, const void *want, wk_dtype dt, int64_t n, int64_t rows) {
    checks++;
    size_t es = dt == WK_FLOAT64 ? 8 : 4;
    void *got = malloc(es * (size_t)(n + 1));
    wk_copy_to_buffer(t, dt, got);
    /* a transposed param (rows > 0) is compared in its logical order: want holds storage order [cols, rows] */
    for (int64_t i = 0; i < n; i++) {
        int64_t j = rows ? (i % (n / rows)) * rows + i / (n / rows) : i;
        if (memcmp((char *)got + es * (size_t)i, (const char *)want + es * (size_t)j, es)) {
            printf("FAIL %s [%lld] of %lld\n", what, (long long)i, (long long)n);
            failures++;
            break;
        }
    }
    free(got);
}

/* two steps (the first creates the momentum buffer) on one param of n elements */
static void run_case(wk_dtype dt, int64_t n, bool transposed, const sgd_cfg *c, int threads) {
    wk_set_num_threads(threads);
    size_t es = dt == WK_FLOAT64 ? 8 : 4;
    void *p0 = malloc(es * (size_t)(n + 1)), *g0 = malloc(es * (size_t)(n + 1));
    void *pr = malloc(es * (size_t)(n + 1)), *br = malloc(es * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) {
        if (dt == WK_FLOAT64) ((double *)p0)[i] = drand(), ((double *)g0)[i] = drand();
        else ((float *)p0)[i] = (float)drand(), ((float *)g0)[i] = (float)drand();
    }
    memcpy(pr, p0, es * (size_t)n);
    int64_t rows = transposed && n % 7 == 0 ? 7 : 0;
    int64_t sz1[1] = {n}, sz2[2] = {rows ? n / rows : 0, rows};
    wk_tensor *pb = wk_from_data(p0, dt, rows ? 2 : 1, rows ? sz2 : sz1);
    wk_tensor *gb = wk_from_data(g0, dt, rows ? 2 : 1, rows ? sz2 : sz1);
    wk_tensor *p = rows ? wk_t(pb) : pb, *g = rows ? wk_t(gb) : gb; /* rows: [rows, n/rows] views, strides (1, rows) */
    bool use_buf = c->mom != 0;
    const wk_tensor *none[1] = {NULL};
    wk_tensor *bufs[1] = {NULL};
    char what[160];
    for (int step = 0; step < 2; step++) {
        const wk_tensor *cur[1] = {bufs[0]};
        wk_tensorvec out = wk_sgd_step((wk_tensorlist){&p, 1}, (wk_tensorlist){&g, 1},
                                       (wk_opttensorlist){step ? cur : none, use_buf ? 1 : 0}, c->wd, c->mom, c->lr,
                                       c->damp, c->nesterov, c->maximize);
        if (use_buf && (!out.data || out.len != 1)) {
            printf("FAIL sgd returned no buffer: %s\n", wk_error_message());
            failures++;
            wk_tensorvec_free(out);
            break;
        }
        if (use_buf) {
            wk_release(bufs[0]);
            bufs[0] = out.data[0];
            out.data[0] = NULL;
        }
        wk_tensorvec_free(out);
        if (dt == WK_FLOAT64) ref_f64(n, pr, g0, use_buf ? br : NULL, step == 0, c);
        else ref_f32(n, pr, g0, use_buf ? br : NULL, step == 0, c);
        snprintf(what, sizeof what, "sgd %s n=%lld%s wd=%g mom=%g damp=%g nest=%d max=%d threads=%d step %d param",
                 dt == WK_FLOAT64 ? "f64" : "f32", (long long)n, rows ? " transposed" : "", c->wd, c->mom, c->damp,
                 c->nesterov, c->maximize, threads, step);
        check_bits(what, p, pr, dt, n, rows);
        if (use_buf) {
            snprintf(what + strlen(what) - 5, 6, "buf  ");
            check_bits(what, bufs[0], br, dt, n, rows);
        }
    }
    wk_release(bufs[0]);
    if (rows) wk_release(p), wk_release(g);
    wk_release(pb);
    wk_release(gb);
    free(p0), free(g0), free(pr), free(br);
}

static uint32_t u32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* torch_sqrtf: vector path against the scalar one, bit for bit, on n inputs */
static void check_sqrt(const float *x, int64_t n) {
    float *a = malloc(sizeof(float) * (size_t)(n + 1)), *b = malloc(sizeof(float) * (size_t)(n + 1));
    wk__optim_scalar = true;
    wk__optim_sqrt_f32(x, b, n);
    wk__optim_scalar = false;
    wk__optim_sqrt_f32(x, a, n);
    checks++;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], 4)) {
            printf("FAIL sqrt(%a): vector %a, scalar %a\n", (double)x[i], (double)a[i], (double)b[i]);
            failures++;
            break;
        }
    free(a);
    free(b);
}

static void sqrt_tests(void) {
    enum { N = 1 << 20 };
    float *x = malloc(sizeof(float) * N);
    int64_t k = 0;
    static const float special[] = {0.0f, -0.0f, 1.0f, 2.0f, 4.0f, 8.0f, 0.5f, 0.25f, 3.0f, 0x1p-100f, 0x1.fffffep-101f,
                                    0x1p-149f, 0x1p-126f, 0x1.fffffep127f, INFINITY, -INFINITY, NAN, -1.0f, 0x1p126f,
                                    0x1p127f, 1e-30f, 7e-31f};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) x[k++] = special[i];
    for (int e = -149; e <= 127; e++) x[k++] = ldexpf(1.0f, e), x[k++] = nextafterf(ldexpf(1.0f, e), 0.0f);
    while (k < N) {
        uint32_t u = u32();
        memcpy(&x[k++], &u, 4);
    }
    check_sqrt(x, N);
    if (getenv("WK_OPTIM_EXHAUSTIVE")) {
        for (uint64_t base = 0; base < (1ull << 32); base += N) {
            for (uint32_t i = 0; i < N; i++) {
                uint32_t u = (uint32_t)(base + i);
                memcpy(&x[i], &u, 4);
            }
            check_sqrt(x, N);
        }
        printf("sqrt: all 2^32 inputs checked\n");
    }
    free(x);
}

typedef struct {
    bool amsgrad, maximize, decoupled;
    double beta1, beta2, lr, wd, eps;
} adam_cfg;

static wk_tensor *rand_tensor(wk_dtype dt, int64_t n, bool positive) {
    size_t es = dt == WK_FLOAT64 ? 8 : 4;
    void *b = malloc(es * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) {
        double v = positive ? fabs(drand()) * 0.1 : drand();
        if (dt == WK_FLOAT64) ((double *)b)[i] = v;
        else ((float *)b)[i] = (float)v;
    }
    int64_t sz[1] = {n};
    wk_tensor *t = wk_from_data(b, dt, 1, sz);
    free(b);
    return t;
}

/* three Adam steps through the fast path and through the scalar reference from the same start */
static void adam_case(wk_dtype dt, int64_t n, const adam_cfg *c, int threads) {
    wk_set_num_threads(threads);
    wk_tensor *st[2][6]; /* [fast/ref][param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step] */
    uint64_t seed = rng;
    for (int r = 0; r < 2; r++) {
        rng = seed;
        st[r][0] = rand_tensor(dt, n, false);
        st[r][1] = rand_tensor(dt, n, false);
        st[r][2] = rand_tensor(dt, n, false);
        st[r][3] = rand_tensor(dt, n, true);
        st[r][4] = rand_tensor(dt, n, true);
        float zero = 0;
        st[r][5] = wk_from_data(&zero, WK_FLOAT32, 0, NULL);
    }
    for (int step = 0; step < 3; step++)
        for (int r = 0; r < 2; r++) {
            wk__optim_scalar = r == 1;
            wk_tensor *l[6];
            for (int k = 0; k < 6; k++) l[k] = st[r][k];
            if (wk_adam_step((wk_tensorlist){&l[0], 1}, (wk_tensorlist){&l[1], 1}, (wk_tensorlist){&l[2], 1},
                             (wk_tensorlist){&l[3], 1}, (wk_tensorlist){&l[4], c->amsgrad ? 1 : 0},
                             (wk_tensorlist){&l[5], 1}, c->amsgrad, c->beta1, c->beta2, c->lr, c->wd, c->eps,
                             c->maximize, c->decoupled) < 0) {
                printf("FAIL adam: %s\n", wk_error_message());
                failures++;
            }
        }
    wk__optim_scalar = false;
    size_t es = dt == WK_FLOAT64 ? 8 : 4;
    for (int k = 0; k < 5; k++) {
        if (k == 1) continue;
        void *ref = malloc(es * (size_t)(n + 1));
        wk_copy_to_buffer(st[1][k], dt, ref);
        char what[160];
        snprintf(what, sizeof what, "adam %s n=%lld ams=%d max=%d dec=%d b1=%g wd=%g threads=%d state %d",
                 dt == WK_FLOAT64 ? "f64" : "f32", (long long)n, c->amsgrad, c->maximize, c->decoupled, c->beta1,
                 c->wd, threads, k);
        check_bits(what, st[0][k], ref, dt, n, 0);
        free(ref);
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 6; k++) wk_release(st[r][k]);
}

int main(void) {
    sqrt_tests();
    static const adam_cfg acfgs[] = {
        {false, false, false, 0.9, 0.999, 1e-3, 0, 1e-8},    {true, false, false, 0.9, 0.999, 1e-3, 0.01, 1e-8},
        {false, true, true, 0.3, 0.99, 1e-2, 0.1, 1e-6},     {true, true, true, 0.9, 0.5, 0.5, 0.01, 1e-3},
        {false, false, false, 0.5, 0.999, 1e-3, 0.05, 1e-30},
    };
    static const int64_t asizes[] = {0, 1, 7, 8, 9, 33, 1001, 32768 * 2 + 3};
    for (int th = 1; th <= 3; th += 2)
        for (size_t s = 0; s < sizeof asizes / sizeof *asizes; s++)
            for (size_t c = 0; c < sizeof acfgs / sizeof *acfgs; c++)
                for (int dt = 0; dt < 2; dt++) adam_case(dt ? WK_FLOAT64 : WK_FLOAT32, asizes[s], &acfgs[c], th);

    static const int64_t sizes[] = {0, 1, 7, 8, 9, 31, 77, 1001, 32768 * 2 + 5, 200704};
    static const sgd_cfg cfgs[] = {
        {0, 0, 0.01, 0, false, false},      {0, 0.9, 0.01, 0, false, false}, {1e-4, 0.9, 0.05, 0, true, false},
        {0.01, 0.5, 0.1, 0.25, false, true}, {0.01, 0, 0.1, 0, false, true},  {0, 0.9, 0.01, 0.1, false, false},
    };
    for (int th = 1; th <= 3; th += 2)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t c = 0; c < sizeof cfgs / sizeof *cfgs; c++)
                for (int dt = 0; dt < 2; dt++)
                    run_case(dt ? WK_FLOAT64 : WK_FLOAT32, sizes[s], (s + c) % 3 == 0, &cfgs[c], th);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
