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

/* Slots: elementwise.c 0-4 (binary), 8-17 (unary), 18-19 (identity: clone, copy_); nn.c 20-24 (its maps), 34-35
 * (SGD); reduce.c 30; matmul.c 32-33 (tiled, naive). One WGSL text per slot: a map reused elsewhere (wk__webgpu_map)
 * passes its slot's own expression. */
#define WK_WEBGPU_MAX_PIPELINES 64

/* Runs `wgsl` over `threads` invocations with ptrs[0..n-1] (n <= 7; device data pointers, 4-byte aligned) bound
 * at 0..n-1 and meta[0..nmeta-1] (nmeta >= 2 + n; meta[2..2+n) adjusted as above) at n. 0, or -1 with the error
 * set (a WGSL or validation error is a RuntimeError naming the wgpu message). */
WK_INTERNAL int wk__webgpu_dispatch(int slot, const char *wgsl, int n, void *const *ptrs, uint32_t *meta, size_t nmeta,
                                    uint64_t threads);
/* Fill the webgpu kernel table's slots: elementwise.c, reduce.c (sum, mean), matmul.c (mm, addmm), nn.c (the
 * backward ops, mse_loss, the SGD step). */
WK_INTERNAL void wk__webgpu_elementwise_kernels(wk_kernel_fn *kernels);
WK_INTERNAL void wk__webgpu_reduce_kernels(wk_kernel_fn *kernels);
WK_INTERNAL void wk__webgpu_matmul_kernels(wk_kernel_fn *kernels);
WK_INTERNAL void wk__webgpu_nn_kernels(wk_kernel_fn *kernels);
/* a new contiguous float32 tensor out = EXPR(a, b, alpha) over the broadcast shape (the elementwise template;
 * `slot` one per expression), or NULL with the error set (elementwise.c) */
WK_INTERNAL wk_tensor *wk__webgpu_map(int slot, const char *expr, const char *op, wk_tensor *a, wk_tensor *b,
                                      double alpha);
/* the sum (divisor 1) or mean (divisor the count) of float32 t over the dims in mask, keepdim (reduce.c) */
WK_INTERNAL wk_tensor *wk__webgpu_reduce(wk_tensor *t, const bool *mask, bool mean);
/* The device's copy_tensor hook (core/device.h; elementwise.c). */
WK_INTERNAL int wk__webgpu_copy_tensor(wk_tensor *dst, const wk_tensor *src);

#endif
