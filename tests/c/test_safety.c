/* test_safety.c — size arithmetic never wraps (issue 16), run under ASan+UBSan with leak checking (make test-c):
 * every geometry whose numel, byte count or reach overflows, or that reaches past its storage, is an error with
 * torch's message, never a tensor. torch's values for the same calls are checked in tests/parity/cases_safety.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

static int failures = 0;
#define CHECK(cond)                                                \
    do {                                                           \
        if (!(cond)) {                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                            \
        }                                                          \
    } while (0)

/* r is NULL with a RuntimeError whose message contains `want`; clears the error */
static void expect_error(wk_tensor *r, const char *want, int line) {
    if (r || wk_error_kind() != WK_RUNTIME_ERROR || !strstr(wk_error_message(), want)) {
        printf("FAIL %s:%d: expected RuntimeError containing \"%s\", got %s \"%s\"\n", __FILE__, line, want,
               r ? "a tensor" : "error", r ? "" : wk_error_message());
        failures++;
    }
    wk_release(r);
    wk_error_clear();
}
#define EXPECT_ERROR(r, want) expect_error((r), (want), __LINE__)

static const int64_t WRAP[3] = {100000, (1LL << 62) - 1, (1LL << 62) - 1}; /* issue 16, reproducer 1 */

static void test_out_resize(void) { /* reproducer 2: out= resized to 2**62 floats */
    int64_t two = 2, big = 1LL << 62, ovf[2] = {1LL << 32, 1LL << 32};
    wk_tensor *out = wk_zeros(wk_ints(&two, 1), WK_FLOAT32, false);
    EXPECT_ERROR(wk_rand_out(out, wk_ints(&big, 1), NULL, WK_DTYPE_NONE, false),
                 "Storage size calculation overflowed with sizes=[4611686018427387904]");
    EXPECT_ERROR(wk_rand_out(out, wk_ints(ovf, 2), NULL, WK_DTYPE_NONE, false),
                 "numel: integer multiplication overflow");
    CHECK(wk_ndim(out) == 1 && wk_sizes(out)[0] == 2); /* a failed resize leaves out as it was */
    wk_release(out);
    wk_tensor *iout = wk_zeros(wk_ints(&two, 1), WK_INT64, false);
    EXPECT_ERROR(wk_randperm_out(iout, big, NULL, WK_DTYPE_NONE, false), "Storage size calculation");
    wk_release(iout);
}

static void test_factories_and_resize(void) {
    int64_t big = 1LL << 62, ovf[3] = {1LL << 31, 1LL << 31, 4}, st = 4;
    EXPECT_ERROR(wk_zeros(wk_ints(&big, 1), WK_FLOAT32, false), "Storage size calculation overflowed");
    EXPECT_ERROR(wk_zeros(wk_ints(ovf, 3), WK_FLOAT32, false), "Storage size calculation overflowed");
    EXPECT_ERROR(wk_empty_strided(wk_ints(&big, 1), wk_ints(&st, 1), WK_FLOAT32, false),
                 "with sizes=[4611686018427387904] and strides=[4]");
    int64_t sz[3] = {2, 2, 2};
    EXPECT_ERROR(wk_empty_strided(wk_ints(sz, 3), wk_ints(WRAP, 3), WK_FLOAT32, false), "and strides=[100000, ");
    int64_t two = 2;
    wk_tensor *t = wk_zeros(wk_ints(&two, 1), WK_FLOAT32, false);
    EXPECT_ERROR(wk_resize_(t, wk_ints(&big, 1)), "Storage size calculation overflowed");
    EXPECT_ERROR(wk_resize_(t, wk_ints(ovf, 3)), "numel: integer multiplication overflow");
    CHECK(wk_ndim(t) == 1 && wk_sizes(t)[0] == 2);
    wk_release(t);
}

static void test_views(void) { /* reproducer 5 and the as_strided reach */
    float one = 1.5f, four[4] = {1, 2, 3, 4};
    int64_t n1 = 1, n4 = 4, ovf[2] = {1LL << 32, 1LL << 32}, zero[2] = {0, 0};
    wk_tensor *x = wk_from_data(&one, WK_FLOAT32, 1, &n1), *y = wk_from_data(four, WK_FLOAT32, 1, &n4);
    EXPECT_ERROR(wk_as_strided(x, wk_ints(ovf, 2), wk_ints(zero, 2), wk_none_int()),
                 "numel: integer multiplication overflow");
    int64_t sz[3] = {2, 2, 2};
    EXPECT_ERROR(wk_as_strided(y, wk_ints(sz, 3), wk_ints(WRAP, 3), wk_none_int()),
                 "Storage size calculation overflowed with sizes=[2, 2, 2] and strides=[100000, 4611686018427387903, "
                 "4611686018427387903]");
    int64_t s2[2] = {2, 2}, st2[2] = {3, 1};
    EXPECT_ERROR(wk_as_strided(y, wk_ints(s2, 2), wk_ints(st2, 2), wk_none_int()),
                 "requiring a storage size of 20 are out of bounds for storage of size 16");
    int64_t s1 = 2, st1 = 1;
    EXPECT_ERROR(wk_as_strided(y, wk_ints(&s1, 1), wk_ints(&st1, 1), wk_some(1LL << 62)), "overflowed");
    EXPECT_ERROR(wk_as_strided_(y, wk_ints(ovf, 2), wk_ints(zero, 2), wk_none_int()),
                 "numel: integer multiplication overflow");
    CHECK(wk_ndim(y) == 1 && wk_numel(y) == 4);
    int64_t one1[2] = {1, 1};
    wk_tensor *x2 = wk_reshape(x, wk_ints(one1, 2));
    CHECK(x2 != NULL);
    EXPECT_ERROR(wk_expand(x2, wk_ints(ovf, 2), false), "numel: integer multiplication overflow");
    wk_release(x2);
    wk_release(x);
    wk_release(y);
}

static int deleted = 0;
static void count_delete(void *ctx) {
    deleted++;
    free(ctx);
}

static void test_from_blob(void) { /* sizes/strides reaching past nbytes are refused; the block stays the caller's */
    float *buf = malloc(4 * sizeof(float));
    int64_t n5 = 5, n4 = 4, s2[2] = {2, 2}, st2[2] = {3, 1}, ovf[2] = {1LL << 32, 1LL << 32}, zero[2] = {0, 0};
    EXPECT_ERROR(wk_from_blob(buf, WK_FLOAT32, 1, &n5, NULL, 16, count_delete, buf), "out of bounds for storage");
    EXPECT_ERROR(wk_from_blob(buf, WK_FLOAT32, 2, s2, st2, 16, count_delete, buf), "out of bounds for storage");
    EXPECT_ERROR(wk_from_blob(buf, WK_FLOAT32, 3, (int64_t[]){2, 2, 2}, WRAP, 16, count_delete, buf), "overflowed");
    EXPECT_ERROR(wk_from_blob(buf, WK_FLOAT32, 2, ovf, zero, 16, count_delete, buf), "overflowed with sizes=[");
    CHECK(deleted == 0);
    wk_tensor *t = wk_from_blob(buf, WK_FLOAT32, 1, &n4, NULL, 16, count_delete, buf);
    CHECK(t != NULL);
    /* borrowed memory cannot grow */
    int64_t big = 1000;
    EXPECT_ERROR(wk_resize_(t, wk_ints(&big, 1)), "Trying to resize storage that is not resizable");
    int64_t two = 2;
    wk_tensor *r = wk_resize_(t, wk_ints(&two, 1)); /* shrinking needs no new bytes */
    CHECK(r == t);
    wk_release(r);
    wk_release(t);
    CHECK(deleted == 1);
}

int main(void) {
    test_out_resize();
    test_factories_and_resize();
    test_views();
    test_from_blob();
    if (failures) printf("%d failure(s)\n", failures);
    else printf("test_safety: ok\n");
    return failures != 0;
}
