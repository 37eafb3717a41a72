/* test_random_ops.c — the random ops through the C door, under ASan+UBSan with leak checking (make test-c):
 * generators and their state bytes, every sampler on dense and strided outputs, error paths (no leaks, no
 * crash, torch's exception kinds). Values are checked against torch by tests/parity/cases_random*.py; here
 * only the API's promises and a few exact facts (same seed, same stream) are checked. */
#include <stdio.h>
#include <string.h>

#include "wick.h"

static int failures = 0;
#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static bool same_values(const wk_tensor *a, const wk_tensor *b) {
    int64_t n = wk_numel(a);
    if (n != wk_numel(b)) return false;
    double va[64], vb[64]; /* the first 64 values of each */
    if (n > 64) n = 64;
    if (wk_copy_to_buffer(a, WK_FLOAT64, va) < 0 || wk_copy_to_buffer(b, WK_FLOAT64, vb) < 0) return false;
    return memcmp(va, vb, (size_t)n * sizeof(double)) == 0;
}

static void test_generators(void) {
    wk_generator *g = wk_generator_new();
    CHECK(wk_generator_initial_seed(g) == 67280421310721ULL);
    uint8_t s1[WK_GENERATOR_STATE_SIZE], s2[WK_GENERATOR_STATE_SIZE]; /* state bytes */
    wk_generator_get_state(g, s1);
    int64_t sz[2] = {3, 7};
    wk_tensor *a = wk_randn(wk_ints(sz, 2), g, WK_DTYPE_NONE, false);
    CHECK(wk_generator_set_state(g, s1, sizeof s1) == 0);
    wk_tensor *b = wk_randn(wk_ints(sz, 2), g, WK_DTYPE_NONE, false);
    CHECK(a && b && same_values(a, b));
    wk_generator *c = wk_generator_clone(g);
    wk_generator_get_state(g, s1);
    wk_generator_get_state(c, s2);
    CHECK(memcmp(s1, s2, sizeof s1) == 0);
    CHECK(wk_generator_set_state(g, s1, 10) < 0 && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    memset(s2, 0, sizeof s2);
    CHECK(wk_generator_set_state(g, s2, sizeof s2) < 0 && !strcmp(wk_error_message(), "Invalid mt19937 state"));
    wk_error_clear();
    /* the default generator (NULL) and an explicit one seeded alike give the same stream */
    wk_generator_manual_seed(NULL, 5);
    wk_generator_manual_seed(g, 5);
    wk_tensor *d1 = wk_rand(wk_ints(sz, 2), NULL, WK_FLOAT64, false);
    wk_tensor *d2 = wk_rand(wk_ints(sz, 2), g, WK_FLOAT64, false);
    CHECK(d1 && d2 && same_values(d1, d2));
    wk_release(a), wk_release(b), wk_release(d1), wk_release(d2);
    wk_generator_release(c);
    wk_generator_release(g);
    wk_generator_release(wk_default_generator()); /* a no-op */
}

static void test_samplers(void) {
    int64_t sz[2] = {5, 4};
    wk_tensor *base = wk_zeros(wk_ints(sz, 2), WK_FLOAT32, false);
    wk_tensor *t = wk_t(base); /* a transposed, dense view */
    int64_t st_sizes[2] = {3, 4};
    wk_tensor *sl = wk_as_strided(base, wk_ints(st_sizes, 2), wk_ints((int64_t[]){8, 1}, 2), (wk_optint){false, 0});
    wk_tensor *outs[] = {base, t, sl};
    for (int k = 0; k < 3; k++) {
        wk_tensor *x = outs[k];
        if (!x) {
            CHECK(x != NULL);
            continue;
        }
        wk_tensor *r[] = {wk_uniform_(x, -1, 2, NULL), wk_normal_(x, 0, 1, NULL), wk_random_(x, NULL),
                          wk_random_from_(x, -3, (wk_optint){true, 9}, NULL), wk_random_to_(x, 7, NULL),
                          wk_exponential_(x, 2, NULL), wk_geometric_(x, 0.3, NULL), wk_log_normal_(x, 1, 2, NULL),
                          wk_cauchy_(x, 0, 1, NULL), wk_bernoulli_float_(x, 0.4, NULL)};
        for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
            CHECK(r[i] == x);
            wk_release(r[i]);
        }
    }
    /* errors: no crash, torch's kinds, nothing leaked */
    CHECK(wk_uniform_(base, 2, 1, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    CHECK(wk_normal_(base, 0, -1, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    int64_t isz = 3;
    wk_tensor *ints = wk_zeros(wk_ints(&isz, 1), WK_INT64, false);
    CHECK(wk_uniform_(ints, 0, 1, NULL) == NULL && wk_error_kind() == WK_NOT_IMPLEMENTED_ERROR);
    wk_error_clear();
    CHECK(wk_bernoulli_Tensor_(base, ints, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_uniform_(NULL, 0, 1, NULL) == NULL && wk_error_kind() == WK_TYPE_ERROR);
    wk_error_clear();
    wk_tensor *one = wk_zeros(wk_ints((int64_t[]){1}, 1), WK_FLOAT32, false);
    wk_tensor *ex = one ? wk_expand(one, wk_ints(&isz, 1), false) : NULL;
    CHECK(ex && wk_normal_(ex, 0, 1, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    /* tensor-valued samplers and factories */
    float pv[4] = {0.1f, 0.9f, 0.5f, 0.25f};
    int64_t four = 4;
    wk_tensor *p = wk_from_data(pv, WK_FLOAT32, 1, &four);
    wk_tensor *bp = wk_bernoulli_Tensor_(base, p, NULL); /* p (4,) broadcast over base (5, 4) */
    CHECK(bp == base);
    CHECK(wk_bernoulli_Tensor_(t, p, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR); /* (4,) vs (4, 5) */
    wk_error_clear();
    wk_tensor *outs2[] = {wk_bernoulli(p, NULL), wk_bernoulli_p(p, 0.3, NULL), wk_multinomial(p, 2, false, NULL),
                          wk_multinomial(p, 9, true, NULL), wk_poisson(p, NULL), wk_normal_Tensor_float(p, 2, NULL),
                          wk_normal_float_Tensor(1, p, NULL), wk_normal_Tensor_Tensor(p, p, NULL),
                          wk_rand_like(t, NULL, WK_DTYPE_NONE, false), wk_randn_like(sl, NULL, WK_FLOAT64, false),
                          wk_randint_like(t, 10, NULL, WK_DTYPE_NONE, false), wk_randperm(17, NULL, WK_DTYPE_NONE, false),
                          wk_randint_low(-4, 4, wk_ints(sz, 2), NULL, WK_INT8, false),
                          wk_dropout(t, 0.3, true), wk_feature_dropout(base, 0.3, true),
                          wk_alpha_dropout(sl, 0.3, true), wk_feature_alpha_dropout(base, 0.6, true),
                          wk_rrelu(t, wk_float(0.1), wk_float(0.3), true, NULL),
                          wk_rrelu(sl, wk_float(0.1), wk_float(0.3), false, NULL)};
    for (size_t i = 0; i < sizeof outs2 / sizeof outs2[0]; i++) {
        CHECK(outs2[i] != NULL);
        wk_release(outs2[i]);
    }
    CHECK(wk_multinomial(p, 5, false, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    CHECK(wk_randperm(-1, NULL, WK_DTYPE_NONE, false) == NULL);
    wk_error_clear();
    CHECK(wk_dropout(t, 1.5, true) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    CHECK(wk_rrelu(t, wk_float(0.5), wk_float(0.1), true, NULL) == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    CHECK(wk_rrelu_with_noise(t, p, wk_float(0.1), wk_float(0.3), true, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_normal_Tensor_Tensor(p, ints, NULL) == NULL);
    wk_error_clear();
    wk_tensor *o = wk_zeros(wk_ints((int64_t[]){2}, 1), WK_FLOAT32, false);
    wk_tensor *ro = wk_rand_out(o, wk_ints(sz, 2), NULL, WK_DTYPE_NONE, false);
    CHECK(ro == o && wk_numel(o) == 20);
    wk_release(ro);
    CHECK(wk_rand_out(o, wk_ints(sz, 2), NULL, WK_FLOAT64, false) == NULL);
    wk_error_clear();
    wk_release(bp), wk_release(p), wk_release(o), wk_release(ex), wk_release(one), wk_release(ints);
    wk_release(sl), wk_release(t), wk_release(base);
}

int main(void) {
    test_generators();
    test_samplers();
    printf("%s\n", failures ? "FAILED" : "random ops: all checks passed");
    return failures != 0;
}
