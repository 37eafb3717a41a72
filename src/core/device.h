/* device.h — Note [Device table]: every storage lives on a device, and a device is a table: how to get and give
 * back its memory, how to move bytes between it and the host or another device, how to fill and wait, and one
 * kernel per op (indexed by the op id the generator emits, WK_OP_<impl> in build/gen/ops_impl.h). Core code
 * allocates, frees, fills and moves a storage's memory through its device; every generated wrapper takes its kernel
 * from its tensors' device (wk__pick / wk__kernel, src/ops/ops_support.h). A new device is a folder that defines
 * one of these (the CPU's is src/cpu/device.c, its table generated: wk__cpu_kernels).
 *
 * Memory hooks work in bytes on the device's own pointers: host code may dereference them only where
 * `host_access` says so. Each returns 0, or -1 with the error set (alloc: NULL, error not set, so the caller words
 * torch's out-of-memory message). */
#ifndef WK_DEVICE_H
#define WK_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wk_tensor;
typedef void (*wk_kernel_fn)(void); /* a kernel slot; the wrapper casts it back to its op's wk_impl_<op>_fn */

typedef struct wk_device {
    const char *name; /* torch's device string: "cpu" */
    bool host_access; /* host code may read and write its pointers directly (the CPU: yes) */
    void *(*alloc)(size_t nbytes);                        /* nbytes > 0, 64-byte aligned; NULL if out of memory */
    void (*free)(void *p, size_t nbytes);                 /* p from alloc with the same nbytes */
    void *(*alloc_zeroed)(size_t nbytes); /* optional (NULL: alloc, then fill with 0): alloc, every byte 0 */
    int (*copy_from_host)(void *dst, const void *src, size_t nbytes);
    int (*copy_to_host)(void *dst, const void *src, size_t nbytes);
    int (*copy)(void *dst, const struct wk_device *src_device, const void *src, size_t nbytes); /* into this one */
    int (*fill)(void *dst, size_t count, const void *elem, size_t elem_size); /* count copies of one element */
    int (*synchronize)(void); /* returns once every kernel queued on the device has finished */
    /* optional: copy_ of src's elements (any device, broadcast to dst's shape, cast) into dst on this device, in
     * place (dst may be a view): 0, -1 with the error set, or 1 when it does not handle these tensors (then the
     * copy goes through the host, core/tensor.c) */
    int (*copy_tensor)(struct wk_tensor *dst, const struct wk_tensor *src);
    const wk_kernel_fn *kernels; /* [WK_NUM_OPS]; an empty (NULL) slot raises NotImplementedError naming op and device */
} wk_device;

/* The CPU device (src/cpu/device.c): where every tensor lives unless made on another device. */
__attribute__((visibility("hidden"))) extern wk_device wk__cpu_device;
/* Where new storage goes: the CPU, or the test device named by WICK_TEST_DEVICE (src/cpu/device_test.c). */
__attribute__((visibility("hidden"))) wk_device *wk__default_device(void);

#endif
