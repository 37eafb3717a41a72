/* gpu.h — Note [WGSL kernels]: how the webgpu device's kernels (src/webgpu/elementwise.c, ...) reach the GPU.
 * A kernel is WGSL text with entry point `main` and @workgroup_size(64); its bindings 0..n-1 are the buffers that
 * hold the n tensors' storages (each bound whole, read-only or read_write as the WGSL declares), binding n is a
 * read-only array<u32> of parameters, `meta`. meta[0] is the number of invocations that do work (the kernel
 * returns for i >= meta[0]; the grid is 2-D, i = g.x + g.y * num_workgroups.x * 64), meta[1] is free, and
 * meta[2 + i] holds tensor i's element offset inside its storage: the dispatch adds where that storage starts in
 * its pool block, so the kernel indexes its array<f32> with meta[2 + i] + (strided index). Pipelines are compiled
 * once per `slot` (one per op) and kept for the process. The dispatch is queued, not waited for: every host read
 * goes through the device's copy hooks, which wait for the queue (core/host.h). */
#ifndef WK_WEBGPU_GPU_H
#define WK_WEBGPU_GPU_H

#include "core/core.h"
#include "ops_impl.h"

#define WK_WEBGPU_MAX_PIPELINES 64

/* Runs `wgsl` over `threads` invocations with ptrs[0..n-1] (n <= 7; device data pointers, 4-byte aligned) bound
 * at 0..n-1 and meta[0..nmeta-1] (nmeta >= 2 + n; meta[2..2+n) adjusted as above) at n. 0, or -1 with the error
 * set (a WGSL or validation error is a RuntimeError naming the wgpu message). */
WK_INTERNAL int wk__webgpu_dispatch(int slot, const char *wgsl, int n, void *const *ptrs, uint32_t *meta, size_t nmeta,
                                    uint64_t threads);
/* Fills the elementwise slots of the webgpu kernel table (elementwise.c). */
WK_INTERNAL void wk__webgpu_elementwise_kernels(wk_kernel_fn *kernels);

#endif
