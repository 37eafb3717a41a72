/* test_core.c — the C door's contract, run under ASan+UBSan with leak checking (make test-c):
 * errors come back as (NULL, kind, message) and never abort; bad arguments never crash; every object is freed.
 * Values are checked by the parity suite against torch; here only the API's own promises are checked. */
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

static wk_tensor *vec(const float *xs, int64_t n) { return wk_from_data(xs, WK_FLOAT32, 1, &n); }

static void test_errors_are_values(void) {
    float a[3] = {1, 2, 3}, b[4] = {1, 2, 3, 4};
    wk_tensor *x = vec(a, 3), *y = vec(b, 4);
    wk_tensor *r = wk_add(x, y, wk_int(1));
    CHECK(r == NULL);
    CHECK(wk_error_kind() == WK_RUNTIME_ERROR);
    CHECK(strstr(wk_error_message(), "must match the size of tensor b") != NULL);
    wk_error_clear();
    CHECK(wk_error_kind() == WK_OK);
    /* NULL where a tensor is required: TypeError, no crash */
    CHECK(wk_mul(NULL, x) == NULL);
    CHECK(wk_error_kind() == WK_TYPE_ERROR);
    wk_error_clear();
    /* an error inside a chain propagates the first message */
    r = wk_exp(wk_add(x, y, wk_int(1)));
    CHECK(r == NULL && strstr(wk_error_message(), "non-singleton dimension 0"));
    wk_error_clear();
    /* out-of-range dims */
    int64_t dim = 5;
    r = wk_sum_dim(x, wk_ints(&dim, 1), false, WK_DTYPE_NONE);
    CHECK(r == NULL && wk_error_kind() == WK_INDEX_ERROR);
    wk_error_clear();
    /* negative sizes */
    int64_t neg = -1;
    r = wk_zeros(wk_ints(&neg, 1), WK_DTYPE_NONE, false);
    CHECK(r == NULL && wk_error_kind() == WK_RUNTIME_ERROR);
    wk_error_clear();
    /* absurd sizes: an error, not an abort */
    int64_t huge[3] = {1LL << 40, 1LL << 40, 1LL << 40};
    r = wk_zeros(wk_ints(huge, 3), WK_DTYPE_NONE, false);
    CHECK(r == NULL && wk_error_kind() != WK_OK);
    wk_error_clear();
    wk_release(x);
    wk_release(y);
}

static void test_autograd_and_versions(void) {
    float a[3] = {1, 2, 3};
    wk_tensor *x = vec(a, 3);
    CHECK(wk_requires_grad_(x, true) == 0);
    wk_tensor *y = wk_exp(x);              /* saves its result */
    wk_tensor *s = wk_sum(y, WK_DTYPE_NONE);
    wk_tensor *one = wk_scalar_tensor_new(wk_float(1), WK_FLOAT32);
    wk_tensor *r = wk_add_(y, one, wk_int(1)); /* modifies the saved result */
    CHECK(r != NULL);
    wk_release(r);
    CHECK(wk_backward(s, NULL, false, false) < 0);
    CHECK(strstr(wk_error_message(), "modified by an inplace operation") != NULL);
    wk_error_clear();
    /* in-place on a leaf that requires grad */
    CHECK(wk_add_(x, one, wk_int(1)) == NULL);
    CHECK(strstr(wk_error_message(), "a leaf Variable that requires grad") != NULL);
    wk_error_clear();
    /* backward twice through freed buffers */
    wk_tensor *z = wk_mul(x, x), *t = wk_sum(z, WK_DTYPE_NONE);
    CHECK(wk_backward(t, NULL, false, false) == 0);
    CHECK(wk_grad(x) != NULL);
    CHECK(wk_backward(t, NULL, false, false) < 0);
    CHECK(strstr(wk_error_message(), "backward through the graph a second time") != NULL);
    wk_error_clear();
    /* non-scalar backward without a gradient */
    CHECK(wk_backward(z, NULL, false, false) < 0 && strstr(wk_error_message(), "implicitly created only for scalar"));
    wk_error_clear();
    wk_release(t);
    wk_release(z);
    wk_release(one);
    wk_release(s);
    wk_release(y);
    wk_release(x);
}

static void test_long_graph_release(void) {
    /* a 200k-node chain must be released without recursion blowing the stack */
    float a[1] = {1};
    wk_tensor *x = vec(a, 1);
    wk_requires_grad_(x, true);
    wk_tensor *h = wk_retain(x);
    for (int i = 0; i < 200000; i++) {
        wk_tensor *n = wk_mul(h, h);
        wk_release(h);
        h = n;
    }
    CHECK(h != NULL && wk_grad_fn(h) != NULL);
    wk_release(h);
    wk_release(x);
}

/* wk_from_blob: sizes / strides that need more than nbytes are refused (no over-read in the first op); the caller
 * keeps its block on failure */
static void keep_block(void *p) { (void)p; }
static void test_from_blob_bounds(void) {
    float buf[4] = {1, 2, 3, 4};
    int64_t sz[2] = {2, 3}, st[2] = {3, 1}, big[2] = {2, 2}, bst[2] = {100000, 1}, neg[1] = {-1}, wrap[2] = {3, 3};
    int64_t wst[2] = {INT64_MAX / 2, INT64_MAX / 2};
    CHECK(wk_from_blob(buf, WK_FLOAT32, 2, sz, NULL, sizeof buf, keep_block, NULL) == NULL); /* 24 > 16 bytes */
    CHECK(wk_error_kind() == WK_RUNTIME_ERROR && strstr(wk_error_message(), "out of bounds for storage of size 16"));
    wk_error_clear();
    CHECK(wk_from_blob(buf, WK_FLOAT32, 2, sz, st, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_from_blob(buf, WK_FLOAT32, 2, big, bst, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_from_blob(buf, WK_FLOAT32, 2, wrap, wst, sizeof buf, keep_block, NULL) == NULL); /* wraps int64 */
    CHECK(wk_error_kind() == WK_RUNTIME_ERROR && strstr(wk_error_message(), "overflowed"));
    wk_error_clear();
    CHECK(wk_from_blob(buf, WK_FLOAT32, 1, (int64_t[]){2}, neg, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_from_blob(buf, WK_FLOAT32, 2, NULL, NULL, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_from_blob(buf, (wk_dtype)99, 1, big, NULL, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    CHECK(wk_from_blob(NULL, WK_FLOAT32, 1, big, NULL, sizeof buf, keep_block, NULL) == NULL);
    wk_error_clear();
    wk_tensor *ok = wk_from_blob(buf, WK_FLOAT32, 2, big, NULL, sizeof buf, keep_block, NULL); /* exactly fits */
    CHECK(ok != NULL);
    wk_tensor *s = ok ? wk_sum(ok, WK_DTYPE_NONE) : NULL;
    wk_scalar v = {0};
    CHECK(s && wk_item(s, &v) == 0 && v.v.f == 10.0);
    wk_release(s);
    wk_release(ok);
    wk_tensor *e = wk_from_blob(NULL, WK_FLOAT32, 1, (int64_t[]){0}, NULL, 0, keep_block, NULL); /* empty */
    CHECK(e != NULL);
    wk_release(e);
    wk_error_clear();
}

int main(void) {
    test_errors_are_values();
    test_from_blob_bounds();
    test_autograd_and_versions();
    test_long_graph_release();
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("test_core: all checks passed\n");
    return 0;
}
