/* test_saved_hooks.c — Note [Saved-tensor hooks] (src/autograd/autograd.h), under ASan+UBSan with leak checking
 * (make test-c): while hooks are set every saved tensor goes through pack and the node keeps only the handle;
 * backward unpacks once per use; every handle is dropped exactly once (after backward without retain_graph, or
 * when the graph is freed unused); a failing pack makes the op fail with its error and leaks nothing. */
#include <stdio.h>
#include <string.h>

#include "wick.h"
#include "autograd/autograd.h"

static int failures = 0;
#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static int packs, unpacks, drops, fail_pack;

static void *pack(const wk_tensor *t, void *ctx) {
    (void)ctx;
    if (fail_pack) {
        wk__error(WK_RUNTIME_ERROR, "pack refused");
        return NULL;
    }
    packs++;
    return wk_clone((wk_tensor *)t); /* the handle: an owned copy */
}

static wk_tensor *unpack(void *packed, void *ctx) {
    (void)ctx;
    unpacks++;
    return wk_retain((wk_tensor *)packed);
}

static void drop(void *packed, void *ctx) {
    (void)ctx;
    drops++;
    wk_release((wk_tensor *)packed);
}

static const wk_saved_hooks hooks = {pack, unpack, drop, NULL};

int main(void) {
    float a[3] = {0.5f, -1.0f, 2.0f}, b[3] = {1.5f, 0.25f, -0.75f};
    int64_t n = 3;
    wk_tensor *x = wk_from_data(a, WK_FLOAT32, 1, &n), *y = wk_from_data(b, WK_FLOAT32, 1, &n);
    CHECK(wk_requires_grad_(x, true) == 0 && wk_requires_grad_(y, true) == 0);

    CHECK(wk_set_saved_tensor_hooks(&hooks) == NULL);
    wk_tensor *z = wk_mul(x, y);                      /* saves self and other */
    wk_tensor *s = wk_sum(z, WK_DTYPE_NONE);
    CHECK(wk_set_saved_tensor_hooks(NULL) == &hooks);
    CHECK(packs == 2 && unpacks == 0 && drops == 0);
    CHECK(wk_backward(s, NULL, false, false) == 0);   /* unpacks both, then frees the graph's saved state */
    CHECK(unpacks == 2 && drops == 2);
    const float *gx = wk_grad(x) ? (const float *)wk_data_ptr(wk_grad(x)) : NULL;
    CHECK(gx && gx[0] == 1.5f && gx[2] == -0.75f);
    CHECK(wk_backward(s, NULL, false, false) < 0 && strstr(wk_error_message(), "a second time") != NULL);
    wk_error_clear();
    wk_release(s);
    wk_release(z);

    /* a graph freed without backward drops its handles */
    wk_set_saved_tensor_hooks(&hooks);
    z = wk_mul(x, y);
    wk_set_saved_tensor_hooks(NULL);
    CHECK(packs == 4);
    wk_release(z);
    CHECK(drops == 4);

    /* a failing pack fails the op, with pack's error */
    wk_set_saved_tensor_hooks(&hooks);
    fail_pack = 1;
    z = wk_mul(x, y);
    fail_pack = 0;
    wk_set_saved_tensor_hooks(NULL);
    CHECK(z == NULL && strstr(wk_error_message(), "pack refused") != NULL);
    wk_error_clear();
    CHECK(drops == 4);

    wk_release(x);
    wk_release(y);
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("test_saved_hooks: all checks passed\n");
    return 0;
}
