/* device.c — the CPU device (Note [Device table] in core/device.h): memory from the caching allocator (alloc.c),
 * host memcpy / memset for moves and fills, nothing to wait for, and every kernel (wk__cpu_kernels, generated). */
#include "core/device.h"

#include "cpu/alloc.h"
#include "ops_impl.h"

static void *cpu_alloc(size_t nbytes) { return wk__cache_alloc(nbytes); }
static void *cpu_alloc_zeroed(size_t nbytes) { return wk__cache_alloc_zeroed(nbytes); }
static void cpu_free(void *p, size_t nbytes) { wk__cache_free(p, nbytes); }
static int cpu_copy_host(void *dst, const void *src, size_t nbytes) {
    if (nbytes) memcpy(dst, src, nbytes);
    return 0;
}
static int cpu_copy(void *dst, const wk_device *src_device, const void *src, size_t nbytes) {
    if (src_device->host_access) return cpu_copy_host(dst, src, nbytes);
    return src_device->copy_to_host(dst, src, nbytes);
}
static int cpu_fill(void *dst, size_t count, const void *elem, size_t elem_size) {
    if (elem_size == 1) {
        if (count) memset(dst, *(const unsigned char *)elem, count);
        return 0;
    }
    for (size_t i = 0; i < count; i++) memcpy((char *)dst + i * elem_size, elem, elem_size);
    return 0;
}
static int cpu_synchronize(void) { return 0; }

wk_device wk__cpu_device = {
    .name = "cpu",
    .host_access = true,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .alloc_zeroed = cpu_alloc_zeroed, /* fresh big blocks: lazy zero pages (Note [Lazy zero pages]) */
    .copy_from_host = cpu_copy_host,
    .copy_to_host = cpu_copy_host,
    .copy = cpu_copy,
    .fill = cpu_fill,
    .synchronize = cpu_synchronize,
    .kernels = wk__cpu_kernels, /* generated (tools/gen.py): every op id's CPU implementation */
};
