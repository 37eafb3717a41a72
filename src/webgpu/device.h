/* device.h — the WebGPU device (Note [Device table] in core/device.h; issue 20): GPU buffers from wgpu-native,
 * loaded with dlopen at run time (no link-time dependency: the core stays libc + libm + threads). Step 1: memory
 * only (allocate/free with a size-bucketed pool, host<->device and device<->device copies, fill, synchronise);
 * the kernel table holds the views (metadata only); every other op raises NotImplementedError naming the op and
 * "webgpu". Tensors reach it from Python (Note [Device argument], pyext/convert.c); host reads copy (core/host.h). */
#ifndef WK_WEBGPU_DEVICE_H
#define WK_WEBGPU_DEVICE_H

#include "core/device.h"

/* Opens wgpu-native and the first adapter/device, once (later calls return the first answer). The library is
 * $WICK_WGPU_LIB when set, else `lib_path` when not NULL (the Python layer passes the wgpu wheel's copy), else
 * "libwgpu_native.so" on the loader's path. Returns the device, or NULL with the reason in wk__webgpu_reason(). */
__attribute__((visibility("hidden"))) wk_device *wk__webgpu_open(const char *lib_path);
__attribute__((visibility("hidden"))) const char *wk__webgpu_reason(void);      /* why open failed; "" if not */
__attribute__((visibility("hidden"))) const char *wk__webgpu_device_name(void); /* the adapter's name; "" if none */
__attribute__((visibility("hidden"))) const char *wk__webgpu_backend(void);     /* "Vulkan", "Metal", ...; "" */

/* Memory in bytes of whole pool buckets: out[0] handed out, out[1] that plus the idle pool (torch.cuda's
 * memory_allocated / memory_reserved), out[2] GPU buffers ever created for blocks, out[3] blocks handed out now. */
__attribute__((visibility("hidden"))) void wk__webgpu_memory(int64_t out[4]);

#endif
