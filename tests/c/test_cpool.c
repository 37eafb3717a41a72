/* test_cpool.c — src/ops/reduce.h's wk_cpool (the pool that composes recorded ops in C backward helpers): it holds
 * any number of tensors (it held 32 and then failed with no error set), a failed step skips the rest and keeps the
 * step's own error, and the end releases every tensor (LeakSanitizer under make test-c). */
#include <stdio.h>
#include <string.h>

#include "ops/reduce.h"

static int failures = 0;
#define CHECK(c)                                                    \
    do {                                                            \
        if (!(c)) {                                                 \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);     \
            failures++;                                             \
        }                                                           \
    } while (0)

int main(void) {
    int64_t s2 = 2;
    wk_tensor *x = wk_ones(wk_ints(&s2, 1), WK_FLOAT32, false);
    for (int n = 1; n <= 300; n += 37) { /* across the 32-tensor start and several doublings */
        wk_cpool pool = {0};
        wk_tensor *y = x;
        for (int i = 0; i < n; i++) y = P_(wk_add(y, x, wk_int(1)));
        wk_tensor *r = wk_cpool_end(&pool, y);
        CHECK(r != NULL);
        CHECK(!wk_error_message()[0]);
        if (r) {
            float *d = (float *)wk_data_ptr(r);
            CHECK(d[0] == (float)(n + 1) && d[1] == (float)(n + 1));
        }
        wk_release(r);
    }
    /* a failing step past 32: NULL result, the op's own error, later steps skipped, nothing leaked */
    int64_t s3 = 3;
    wk_tensor *z = wk_ones(wk_ints(&s3, 1), WK_FLOAT32, false);
    wk_cpool pool = {0};
    wk_tensor *y = x;
    for (int i = 0; i < 40; i++) y = P_(wk_add(y, x, wk_int(1)));
    y = P_(wk_add(y, z, wk_int(1))); /* [2] + [3]: torch's broadcast error */
    wk_tensor *after = P_(wk_add(x, x, wk_int(1)));
    CHECK(y == NULL && after == NULL && pool.failed);
    CHECK(wk_cpool_end(&pool, y) == NULL);
    CHECK(strstr(wk_error_message(), "must match the size") != NULL);
    wk_error_clear();
    wk_release(z);
    wk_release(x);
    printf("test_cpool: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
