/* host.h — Note [Host reads]: tensors on a device without host access (webgpu: its pointers are fake addresses that
 * fault) are read and written by host code only through the device's copy hooks. These helpers are the one way:
 * printing, item(), tolist(), serialisation and cross-device copy_ go through them, so a host read of device memory
 * is a copy, never a dereference. A device with host access (the CPU, cpu-copy) is used in place. */
#ifndef WK_CORE_HOST_H
#define WK_CORE_HOST_H

#include "core/core.h"

/* t readable by the host (new reference): t itself when its device has host access, else a CPU tensor with t's
 * sizes, strides and dtype over a host copy of exactly the storage bytes t's elements span. No autograd history. */
WK_INTERNAL wk_tensor *wk__host_tensor(const wk_tensor *t);
/* A contiguous copy of t's values on device d (new reference; no autograd history): the cross-device move. */
WK_INTERNAL wk_tensor *wk__to_device(const wk_tensor *t, wk_device *d);
/* wk__to_device that autograd sees: wk_move_to_device (public, include/wick.h; src/autograd/to_device.c). The
 * public forms of the others: wk_host_tensor, wk_device_str, wk_empty_strided_on (src/core/tensor.c). */
/* empty_like(t, dtype) with torch's preserve_format strides, on t's device (wk__empty_like_preserve makes host
 * tensors): for the casts that keep a device tensor where it is. */
WK_INTERNAL wk_tensor *wk__empty_like_here(const wk_tensor *t, wk_dtype dtype);
/* torch's printed form of a device: "cpu", "webgpu:0" (wick has one device of each kind; the CPU prints bare,
 * like torch's, and so does a host-accessible test device). */
WK_INTERNAL const char *wk__device_str(const wk_device *d, char buf[64]);

#endif
