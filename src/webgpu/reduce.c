/* reduce.c — the webgpu device's reductions (issue 20): sum, sum.dim_IntList, sum_to_size (the engine's sum for
 * broadcast gradients), mean, mean.dim, all float32, from ONE kernel: a workgroup per output element, its 64
 * invocations each summing a strided share of the reduced elements (any strides: views need no copy), then a tree
 * in workgroup memory; the result is divided by `divisor` (1 for sum, the count for mean, as torch's mean is
 * sum / count). Argument checks are the CPU's (src/ops/reduce.c helpers), so the errors are torch's. The naive
 * reference is the CPU kernel: tests/test_webgpu.py compares against torch on the CPU.
 *
 * meta (Note [WGSL kernels] in gpu.h), u32 words: [n_out, count, off_x, off_o, nk, nr, divisor (f32 bits), 0,
 * kept sizes[nk], kept strides[nk], reduced sizes[nr], reduced strides[nr]] (strides of x; o is contiguous). */
#include "webgpu/gpu.h"

#include "ops/reduce.h"

#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)

#include <math.h>
#include <string.h>

#define SLOT_REDUCE 30

static const char REDUCE[] =
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read_write> o: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> m: array<u32>;\n"
    "var<workgroup> part: array<f32, 64>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32,\n"
    "        @builtin(num_workgroups) nw: vec3<u32>) {\n"
    "  let wg = w.x + w.y * nw.x;\n"
    "  if (wg >= m[0]) { return; }\n"
    "  let nk = m[4];\n"
    "  let nr = m[5];\n"
    "  var base = m[2];\n"
    "  var r = wg;\n"
    "  for (var k = nk; k > 0u; k = k - 1u) {\n"
    "    let s = m[7u + k];\n"
    "    base = base + (r % s) * m[7u + nk + k];\n"
    "    r = r / s;\n"
    "  }\n"
    "  var acc = 0.0;\n"
    "  for (var j = l; j < m[1]; j = j + 64u) {\n"
    "    var off = base;\n"
    "    var q = j;\n"
    "    for (var k = nr; k > 0u; k = k - 1u) {\n"
    "      let s = m[7u + 2u * nk + k];\n"
    "      off = off + (q % s) * m[7u + 2u * nk + nr + k];\n"
    "      q = q / s;\n"
    "    }\n"
    "    acc = acc + x[off];\n"
    "  }\n"
    "  part[l] = acc;\n"
    "  workgroupBarrier();\n"
    "  for (var s = 32u; s > 0u; s = s >> 1u) {\n"
    "    if (l < s) { part[l] = part[l] + part[l + s]; }\n"
    "    workgroupBarrier();\n"
    "  }\n"
    "  if (l == 0u) { o[m[3] + wg] = part[0] / bitcast<f32>(m[6]); }\n"
    "}\n";

static bool fits_u32(int64_t v) { return v >= 0 && v <= (int64_t)UINT32_MAX; }

wk_tensor *wk__webgpu_reduce(wk_tensor *t, const bool *mask, bool mean) {
    int64_t shape[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [nd]: the keepdim result's, contiguous */
    int nd = wk__reduce_shape(t, mask, true, shape);
    wk__contiguous_strides(nd, shape, strides);
    wk_tensor *out = wk__empty_strided_on(t->storage->device, nd, shape, strides, WK_FLOAT32);
    if (!out) return NULL;
    int64_t n_out = wk__numel(out), count = wk__reduce_count(t, mask);
    if (!n_out) return out;
    if (!count) { /* nothing to read (t may have no buffer): torch's 0 for a sum, 0 / 0 for a mean */
        float v = mean ? NAN : 0.0f;
        if (out->storage->device->fill(out->storage->data, (size_t)n_out, &v, 4) == 0) return out;
        wk_release(out);
        return NULL;
    }
    uint32_t meta[8 + 4 * WK_MAX_DIM]; /* [8 + 2 nk + 2 nr]: see the top of this file */
    int nk = 0, nr = 0;
    bool ok = fits_u32(n_out) && fits_u32(count) && fits_u32(t->offset);
    for (int d = 0; d < t->ndim; d++) {
        ok = ok && fits_u32(t->strides[d]) && fits_u32(t->sizes[d]);
        nk += !mask[d];
    }
    nr = t->ndim - nk;
    for (int d = 0, i = 0, j = 0; d < t->ndim; d++) {
        uint32_t *p = mask[d] ? meta + 8 + 2 * nk + j++ : meta + 8 + i++; /* its size; its stride sits n after */
        p[0] = (uint32_t)t->sizes[d];
        p[mask[d] ? nr : nk] = (uint32_t)t->strides[d];
    }
    if (!ok) {
        wk_release(out);
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "webgpu: %s over indices past 2**32 is not supported yet",
                  mean ? "mean" : "sum");
        return NULL;
    }
    float div = mean ? (float)count : 1.0f;
    meta[0] = (uint32_t)n_out, meta[1] = (uint32_t)count, meta[2] = (uint32_t)t->offset, meta[3] = 0;
    meta[4] = (uint32_t)nk, meta[5] = (uint32_t)nr, meta[7] = 0;
    memcpy(&meta[6], &div, 4);
    void *ptrs[2] = {t->storage->data, out->storage->data};
    if (wk__webgpu_dispatch(SLOT_REDUCE, REDUCE, 2, ptrs, meta, 8 + 2 * (size_t)(nk + nr), (uint64_t)n_out * 64) < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

static void *not_float32(const char *op, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "The operator 'aten::%s' is not currently implemented for the webgpu device for dtype %s (webgpu "
              "kernels are float32 only so far).",
              op, wk_dtype_name(dt));
    return NULL;
}

/* sum / mean over dim (None or [] = all), keepdim, with dtype None or float32 */
static wk_tensor *reduce_op(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype, bool mean) {
    const char *op = mean ? "mean" : "sum";
    if (mean && !wk_dtype_is_floating(dtype != WK_DTYPE_NONE ? dtype : self->dtype)) /* the CPU's check: torch's text */
        return ((wk_impl_mean_dim_fn)wk__cpu_kernels[WK_OP_mean_dim])(self, dim, keepdim, dtype);
    bool mask[WK_MAX_DIM];
    if (wk__reduce_mask(self, dim, mask) < 0) return NULL;
    if (self->dtype != WK_FLOAT32) return not_float32(op, self->dtype);
    if (dtype != WK_DTYPE_NONE && dtype != WK_FLOAT32) return not_float32(op, dtype);
    return wk__reduce_finish(wk__webgpu_reduce(self, mask, mean), mask, keepdim);
}

static wk_tensor *gpu_sum(wk_tensor *self, wk_dtype dtype) {
    return reduce_op(self, wk_none_ints(), false, dtype, false);
}
static wk_tensor *gpu_sum_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    return reduce_op(self, dim, keepdim, dtype, false);
}
static wk_tensor *gpu_mean(wk_tensor *self, wk_dtype dtype) {
    return reduce_op(self, wk_none_ints(), false, dtype, true);
}
static wk_tensor *gpu_mean_dim(wk_tensor *self, wk_intlist dim, bool keepdim, wk_dtype dtype) {
    return reduce_op(self, dim, keepdim, dtype, true);
}

/* sum_to_size (the CPU's rule, src/ops/reduce.c): the leading dims and the dims where size is 1 and self's is not */
static wk_tensor *gpu_sum_to_size(wk_tensor *self, wk_intlist size) {
    int nd = self->ndim, ns = (int)size.len, lead = nd - ns;
    bool mask[WK_MAX_DIM] = {0};
    bool ok = ns <= nd;
    for (int i = 0; ok && i < nd; i++) {
        if (i < lead) mask[i] = true;
        else if (size.data[i - lead] == 1 && self->sizes[i] != 1) mask[i] = true;
        else if (size.data[i - lead] != self->sizes[i]) ok = false;
    }
    if (!ok || self->dtype != WK_FLOAT32) /* the CPU's message, or the dtype's */
        return !ok ? ((wk_impl_sum_to_size_fn)wk__cpu_kernels[WK_OP_sum_to_size])(self, size)
                   : not_float32("sum_to_size", self->dtype);
    wk_tensor *k = wk__webgpu_reduce(self, mask, false);
    if (!k) return NULL;
    wk_tensor *r = wk__alias(k, ns, size.data, k->strides + lead, k->offset);
    wk_release(k);
    return r;
}

void wk__webgpu_reduce_kernels(wk_kernel_fn *k) {
    k[WK_OP_sum] = (wk_kernel_fn)gpu_sum;
    k[WK_OP_sum_dim] = (wk_kernel_fn)gpu_sum_dim;
    k[WK_OP_mean] = (wk_kernel_fn)gpu_mean;
    k[WK_OP_mean_dim] = (wk_kernel_fn)gpu_mean_dim;
    k[WK_OP_sum_to_size] = (wk_kernel_fn)gpu_sum_to_size;
}

#endif
