/* device_test.c — "cpu-copy", a test device (Note [Device table]): the CPU's kernels over memory of its own.
 * With WICK_TEST_DEVICE=cpu-copy in the environment (read at the first allocation) every new storage is made on
 * it instead of the CPU, so the parity suite can run with all its tensors there (tests/test_device.py runs a slice).
 * What it catches in shared code: a storage allocated, freed, filled or grown around its device (each block carries
 * a header, checked when it comes back: a block freed by another path, or one not from here, aborts with a
 * message), code that reads a fresh storage before writing it (blocks are poisoned with 0xff bytes, NaN as floats,
 * when made and when freed), and tensors made outside the seam meeting tensors made through it (torch's
 * mixed-device error). Its kernels are the CPU's, so host code may still read its memory directly: this device
 * finds what bypasses the table, not (yet) every host-pointer read. At exit it prints to stderr how many blocks it
 * made and how many are still live. */
#include "core/device.h"
#include "ops_impl.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x79706f632d757063ULL /* "cpu-copy" */
#define HEAD 64                    /* header bytes before each block: the magic and the size, keeps 64-byte alignment */

static _Atomic int64_t made, live;

static void *copy_alloc(size_t nbytes) {
    if (nbytes > SIZE_MAX - HEAD - 63) return NULL;
    unsigned char *p = aligned_alloc(64, (HEAD + nbytes + 63) & ~(size_t)63);
    if (!p) return NULL;
    uint64_t h[2] = {MAGIC, nbytes};
    memcpy(p, h, sizeof h);
    memset(p + HEAD, 0xff, nbytes);
    atomic_fetch_add(&made, 1);
    atomic_fetch_add(&live, 1);
    return p + HEAD;
}
static void copy_free(void *q, size_t nbytes) {
    unsigned char *p = (unsigned char *)q - HEAD;
    uint64_t h[2];
    memcpy(h, p, sizeof h);
    if (h[0] != MAGIC || h[1] != nbytes) {
        fprintf(stderr, "cpu-copy: freeing %p (%zu bytes), not a live block of this device\n", q, nbytes);
        abort();
    }
    memset(p, 0xff, HEAD + nbytes);
    free(p);
    atomic_fetch_sub(&live, 1);
}
static int copy_host(void *dst, const void *src, size_t nbytes) {
    if (nbytes) memcpy(dst, src, nbytes);
    return 0;
}
static int copy_between(void *dst, const wk_device *src_device, const void *src, size_t nbytes) {
    if (src_device->host_access) return copy_host(dst, src, nbytes);
    return src_device->copy_to_host(dst, src, nbytes);
}
static int copy_fill(void *dst, size_t count, const void *elem, size_t elem_size) {
    for (size_t i = 0; i < count; i++) memcpy((char *)dst + i * elem_size, elem, elem_size);
    return 0;
}
static int copy_synchronize(void) { return 0; }

static wk_device cpu_copy = {
    .name = "cpu-copy",
    .host_access = true,
    .alloc = copy_alloc,
    .free = copy_free,
    .copy_from_host = copy_host,
    .copy_to_host = copy_host,
    .copy = copy_between,
    .fill = copy_fill,
    .synchronize = copy_synchronize,
    .kernels = wk__cpu_kernels,
};

static void report(void) {
    fprintf(stderr, "cpu-copy: %lld blocks made, %lld live at exit\n", (long long)atomic_load(&made),
            (long long)atomic_load(&live));
}

static wk_device *_Atomic chosen; /* decided once; a race decides it twice, the same way */
wk_device *wk__default_device(void) {
    wk_device *d = atomic_load_explicit(&chosen, memory_order_acquire);
    if (d) return d;
    const char *e = getenv("WICK_TEST_DEVICE");
    d = &wk__cpu_device;
    if (e && !strcmp(e, "cpu-copy")) {
        d = &cpu_copy;
        wk_device *expected = NULL;
        if (atomic_compare_exchange_strong(&chosen, &expected, d)) atexit(report);
        return d;
    }
    atomic_store_explicit(&chosen, d, memory_order_release);
    return d;
}
