/* device.h — the WebGPU device (Note [Device table] in core/device.h; issue 20): GPU buffers from wgpu-native,
 * loaded with dlopen at run time (no link-time dependency: the core stays libc + libm + threads). Step 1: memory
 * only (allocate/free with a size-bucketed pool, host<->device and device<->device copies, fill, synchronise);
 * the kernel table holds the views (metadata only); every other op raises NotImplementedError naming the op and
 * "webgpu". Tensors reach it from Python (Note [Device argument], pyext/convert.c); host reads copy (core/host.h). */
#ifndef WK_WEBGPU_DEVICE_H
#define WK_WEBGPU_DEVICE_H

#include "core/device.h"

/* wk_webgpu_open, wk_webgpu_reason, wk_webgpu_device_name, wk_webgpu_backend and wk_webgpu_memory are public
 * (include/wick.h, "devices"). */

#endif
