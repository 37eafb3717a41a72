/* test_device.c — Note [Device table] (src/core/device.h): the dispatch seam under every generated op.
 * A test device "cpu-copy" keeps its memory in its own malloc'ed blocks and runs the CPU kernels (a copy of the
 * CPU table with the slots of mul emptied), so the checks are about the seam itself: the CPU table is full, tensors
 * on one device dispatch to it, torch's mixed-device rule (CPU 0-d inputs allowed, outputs not) and the
 * NotImplementedError of an empty slot. The mixed-device message is TensorIterator's (libtorch_cpu's
 * "Expected all tensors to be on the same device, but found at least two devices, " A " and " B "!"; the CPU-only
 * torch here has no second real device to print it live), the empty-slot one torch's MPS wording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops_support.h"

static int failures = 0, checked = 0;
#define CHECK(cond)                                                       \
    do {                                                                  \
        checked++;                                                        \
        if (!(cond)) {                                                    \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static int64_t live_blocks = 0; /* the test device's allocations not yet freed */
static void *copy_alloc(size_t n) {
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (p) live_blocks++;
    return p;
}
static void copy_free(void *p, size_t n) {
    (void)n;
    live_blocks--;
    free(p);
}
static int copy_host(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
    return 0;
}
static int copy_dev(void *dst, const wk_device *src_device, const void *src, size_t n) {
    return src_device->host_access ? copy_host(dst, src, n) : src_device->copy_to_host(dst, src, n);
}
static int copy_fill(void *dst, size_t count, const void *elem, size_t elem_size) {
    for (size_t i = 0; i < count; i++) memcpy((char *)dst + i * elem_size, elem, elem_size);
    return 0;
}
static int copy_sync(void) { return 0; }

static wk_kernel_fn copy_kernels[WK_NUM_OPS];
static wk_device cpu_copy = {.name = "cpu-copy", /* by field name: alloc_zeroed stays NULL (alloc, then fill) */
                             .host_access = true,
                             .alloc = copy_alloc,
                             .free = copy_free,
                             .copy_from_host = copy_host,
                             .copy_to_host = copy_host,
                             .copy = copy_dev,
                             .fill = copy_fill,
                             .synchronize = copy_sync,
                             .kernels = copy_kernels};

static wk_tensor *on(wk_device *dev, const float *xs, int nd, const int64_t *sizes) {
    int64_t strides[WK_MAX_DIM];
    wk__contiguous_strides(nd, sizes, strides);
    wk_tensor *t = wk__empty_strided_on(dev, nd, sizes, strides, WK_FLOAT32);
    if (t && t->storage->nbytes) dev->copy_from_host(t->storage->data, xs, t->storage->nbytes);
    return t;
}

static void expect_error(wk_tensor *r, wk_error_kind kind, const char *msg) {
    CHECK(r == NULL);
    CHECK(wk_error_kind() == kind);
    if (strcmp(wk_error_message(), msg) != 0) {
        fprintf(stderr, "message:  %s\nexpected: %s\n", wk_error_message(), msg);
        failures++;
    }
    checked++;
    wk_error_clear();
    wk_release(r);
}

int main(void) {
    /* the CPU table is full: every op id has its CPU kernel */
    int empty = 0;
    for (int i = 0; i < WK_NUM_OPS; i++) empty += wk__cpu_kernels[i] == NULL;
    CHECK(empty == 0);
    CHECK(wk__cpu_device.kernels == wk__cpu_kernels);
    memcpy(copy_kernels, wk__cpu_kernels, sizeof copy_kernels);
    copy_kernels[WK_OP_mul] = NULL;

    const float xs[6] = {1, 2, 3, 4, 5, 6}, ys[6] = {0.5f, -1, 2, 7, 0, 3}, s = 10;
    const int64_t sz[2] = {2, 3};
    wk_tensor *a = on(&cpu_copy, xs, 2, sz), *b = on(&cpu_copy, ys, 2, sz);
    wk_tensor *c = on(&wk__cpu_device, ys, 2, sz), *z = on(&wk__cpu_device, &s, 0, NULL), *a0 = on(&cpu_copy, &s, 0, NULL);
    CHECK(a && b && c && z && a0 && a->storage->device == &cpu_copy && c->storage->device == &wk__cpu_device);
    CHECK(live_blocks == 3);

    /* one device: its kernel runs */
    wk_tensor *r = wk_add(a, b, wk_float(1));
    CHECK(r != NULL);
    if (r) {
        float got[6];
        CHECK(wk_copy_to_buffer(r, WK_FLOAT32, got) == 0);
        for (int i = 0; i < 6; i++) CHECK(got[i] == xs[i] + ys[i]);
    }
    wk_release(r);
    /* a CPU 0-d input goes with any device */
    r = wk_add(a, z, wk_float(1));
    CHECK(r != NULL);
    wk_release(r);
    r = wk_add(z, a, wk_float(1));
    CHECK(r != NULL);
    wk_release(r);
    /* two devices: the first tensor's device is the op's, the other one is named */
    expect_error(wk_add(a, c, wk_float(1)), WK_RUNTIME_ERROR,
                 "Expected all tensors to be on the same device, but found at least two devices, cpu-copy and cpu!");
    expect_error(wk_add(c, a, wk_float(1)), WK_RUNTIME_ERROR,
                 "Expected all tensors to be on the same device, but found at least two devices, cpu and cpu-copy!");
    /* an output is never exempt: a CPU 0-d self written with another device's tensor */
    expect_error(wk_add_(z, a0, wk_float(1)), WK_RUNTIME_ERROR,
                 "Expected all tensors to be on the same device, but found at least two devices, cpu and cpu-copy!");
    /* lists: cat of tensors on two devices */
    wk_tensor *two[2] = {a, c};
    expect_error(wk_cat((wk_tensorlist){two, 2}, 0), WK_RUNTIME_ERROR,
                 "Expected all tensors to be on the same device, but found at least two devices, cpu-copy and cpu!");
    /* an empty slot: NotImplementedError naming the op and the device, in each variant */
    expect_error(wk_mul(a, b), WK_NOT_IMPLEMENTED_ERROR,
                 "The operator 'aten::mul' is not currently implemented for the cpu-copy device.");
    expect_error(wk_mul_(a, b), WK_NOT_IMPLEMENTED_ERROR,
                 "The operator 'aten::mul_' is not currently implemented for the cpu-copy device.");
    expect_error(wk_mul_out(a, a, b), WK_NOT_IMPLEMENTED_ERROR,
                 "The operator 'aten::mul.out' is not currently implemented for the cpu-copy device.");
    /* the same op on the CPU still runs */
    r = wk_mul(c, c);
    CHECK(r != NULL);
    wk_release(r);

    wk_release(a);
    wk_release(b);
    wk_release(c);
    wk_release(z);
    wk_release(a0);
    CHECK(live_blocks == 0); /* storage went back through the device's free */
    printf("test_device: %d checks, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}
