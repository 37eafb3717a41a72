/* matmul.c — the webgpu device's matrix products (issue 20): mm and addmm, float32, 2-D, any strides (t() and
 * transposed views need no copy). matmul and linear reach them through their CPU implementations, which only call
 * other ops (device.c lends them).
 *
 * Two kernels for one job, C[M, N] = alpha * A[M, K] @ B[K, N] + beta * bias[M, N] (bias broadcast by strides,
 * bound and read only when has_bias; torch ignores self when beta is 0, NaN included):
 *   TILED (the one used): a workgroup of 64 invocations computes a 32x32 tile of C, each invocation a 4x4 block,
 *   stepping K by 16 with the A and B tiles staged in workgroup memory.
 *   NAIVE (the reference beside it, WICK_WEBGPU_MM=naive): one invocation per element of C, a plain dot product.
 * tests/test_webgpu.py compares both against torch on the CPU.
 *
 * meta (Note [WGSL kernels] in gpu.h), u32 words: [n (tiles or elements), tiles_n, off_a, off_b, off_bias, off_c,
 * M, N, K, sa0, sa1, sb0, sb1, sbias0, sbias1, has_bias, alpha (f32 bits), beta (f32 bits)]; C is contiguous. */
#include "webgpu/gpu.h"

#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)

#include <stdlib.h>
#include <string.h>

#define SLOT_TILED 32
#define SLOT_NAIVE 33

#define BINDINGS                                                                                                 \
    "@group(0) @binding(0) var<storage, read> a: array<f32>;\n"                                                 \
    "@group(0) @binding(1) var<storage, read> b: array<f32>;\n"                                                 \
    "@group(0) @binding(2) var<storage, read> bias: array<f32>;\n"                                              \
    "@group(0) @binding(3) var<storage, read_write> c: array<f32>;\n"                                           \
    "@group(0) @binding(4) var<storage, read> m: array<u32>;\n"                                                 \
    "fn finish(v: f32, i: u32, j: u32) -> f32 {\n"                                                              \
    "  var r = bitcast<f32>(m[16]) * v;\n"                                                                      \
    "  if (m[15] != 0u) { r = r + bitcast<f32>(m[17]) * bias[m[4] + i * m[13] + j * m[14]]; }\n"                \
    "  return r;\n"                                                                                              \
    "}\n"

static const char TILED[] = BINDINGS
    "var<workgroup> ta: array<f32, 512>;\n" /* [32 rows][16 k] */
    "var<workgroup> tb: array<f32, 512>;\n" /* [16 k][32 cols] */
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32,\n"
    "        @builtin(num_workgroups) nw: vec3<u32>) {\n"
    "  let wg = w.x + w.y * nw.x;\n"
    "  if (wg >= m[0]) { return; }\n"
    "  let M = m[6];\n"
    "  let N = m[7];\n"
    "  let K = m[8];\n"
    "  let row0 = (wg / m[1]) * 32u;\n"
    "  let col0 = (wg % m[1]) * 32u;\n"
    "  let tr = (l / 8u) * 4u;\n"
    "  let tc = (l % 8u) * 4u;\n"
    "  var acc: array<f32, 16>;\n"
    "  for (var k0 = 0u; k0 < K; k0 = k0 + 16u) {\n"
    "    for (var e = l; e < 512u; e = e + 64u) {\n"
    "      let ar = row0 + e / 16u;\n"
    "      let ak = k0 + e % 16u;\n"
    "      var va = 0.0;\n"
    "      if (ar < M && ak < K) { va = a[m[2] + ar * m[9] + ak * m[10]]; }\n"
    "      ta[e] = va;\n"
    "      let bk = k0 + e / 32u;\n"
    "      let bc = col0 + e % 32u;\n"
    "      var vb = 0.0;\n"
    "      if (bk < K && bc < N) { vb = b[m[3] + bk * m[11] + bc * m[12]]; }\n"
    "      tb[e] = vb;\n"
    "    }\n"
    "    workgroupBarrier();\n"
    "    for (var kk = 0u; kk < 16u; kk = kk + 1u) {\n"
    "      let a0 = ta[tr * 16u + kk];\n"
    "      let a1 = ta[(tr + 1u) * 16u + kk];\n"
    "      let a2 = ta[(tr + 2u) * 16u + kk];\n"
    "      let a3 = ta[(tr + 3u) * 16u + kk];\n"
    "      for (var j = 0u; j < 4u; j = j + 1u) {\n"
    "        let bv = tb[kk * 32u + tc + j];\n"
    "        acc[j] = acc[j] + a0 * bv;\n"
    "        acc[4u + j] = acc[4u + j] + a1 * bv;\n"
    "        acc[8u + j] = acc[8u + j] + a2 * bv;\n"
    "        acc[12u + j] = acc[12u + j] + a3 * bv;\n"
    "      }\n"
    "    }\n"
    "    workgroupBarrier();\n"
    "  }\n"
    "  for (var i = 0u; i < 4u; i = i + 1u) {\n"
    "    for (var j = 0u; j < 4u; j = j + 1u) {\n"
    "      let r = row0 + tr + i;\n"
    "      let q = col0 + tc + j;\n"
    "      if (r < M && q < N) { c[m[5] + r * N + q] = finish(acc[i * 4u + j], r, q); }\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char NAIVE[] = BINDINGS
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {\n"
    "  let e = g.x + g.y * nw.x * 64u;\n"
    "  if (e >= m[0]) { return; }\n"
    "  let i = e / m[7];\n"
    "  let j = e % m[7];\n"
    "  var acc = 0.0;\n"
    "  for (var k = 0u; k < m[8]; k = k + 1u) {\n"
    "    acc = acc + a[m[2] + i * m[9] + k * m[10]] * b[m[3] + k * m[11] + j * m[12]];\n"
    "  }\n"
    "  c[m[5] + e] = finish(acc, i, j);\n"
    "}\n";

static bool fits_u32(int64_t v) { return v >= 0 && v <= (int64_t)UINT32_MAX; }

static void *not_float32(const char *op, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "The operator 'aten::%s' is not currently implemented for the webgpu device for dtype %s (webgpu "
              "kernels are float32 only so far).",
              op, wk_dtype_name(dt));
    return NULL;
}

/* alpha * a @ b + beta * bias (bias NULL, or already expanded to [M, N]); a new contiguous [M, N] tensor */
static wk_tensor *gemm(wk_tensor *a, wk_tensor *b, wk_tensor *bias, double alpha, double beta, const char *op) {
    int64_t M = a->sizes[0], K = a->sizes[1], N = b->sizes[1];
    int64_t sizes[2] = {M, N}, strides[2] = {N, 1};
    wk_tensor *c = wk__empty_strided_on(a->storage->device, 2, sizes, strides, WK_FLOAT32);
    if (!c || !M || !N) return c;
    if (!K) { /* no products (a and b may have no buffer): beta * bias, or zeros */
        static const float zero = 0;
        if (c->storage->device->fill(c->storage->data, (size_t)(M * N), &zero, 4) < 0) {
            wk_release(c);
            return NULL;
        }
        if (!bias) return c;
        wk_tensor *r = wk__webgpu_map(0, "x + alpha * y", "addmm", c, bias, beta); /* add's slot: 0 + beta * bias */
        wk_release(c);
        return r;
    }
    bool naive = getenv("WICK_WEBGPU_MM") && !strcmp(getenv("WICK_WEBGPU_MM"), "naive");
    int64_t tiles_n = (N + 31) / 32, n = naive ? M * N : ((M + 31) / 32) * tiles_n;
    wk_tensor *bb = bias ? bias : a; /* bound in every case; read only when has_bias */
    int64_t v[] = {n, tiles_n, a->offset, b->offset, bb->offset, 0, M, N, K, a->strides[0], a->strides[1],
                   b->strides[0], b->strides[1], bias ? bias->strides[0] : 0, bias ? bias->strides[1] : 0};
    uint32_t meta[18]; /* see the top of this file */
    for (int i = 0; i < 15; i++) {
        if (!fits_u32(v[i]) || (i >= 6 && i <= 8 && M * N > (int64_t)UINT32_MAX)) {
            wk_release(c);
            return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "webgpu: %s over indices past 2**32 is not supported yet", op);
        }
        meta[i] = (uint32_t)v[i];
    }
    float fa = (float)alpha, fb = (float)beta;
    meta[15] = bias != NULL;
    memcpy(&meta[16], &fa, 4);
    memcpy(&meta[17], &fb, 4);
    void *ptrs[4] = {a->storage->data, b->storage->data, bb->storage->data, c->storage->data};
    if (wk__webgpu_dispatch(naive ? SLOT_NAIVE : SLOT_TILED, naive ? NAIVE : TILED, 4, ptrs, meta, 18,
                            (uint64_t)n * (naive ? 1 : 64)) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

static int check_mm_shapes(const wk_tensor *a, const wk_tensor *b) { /* the CPU's (src/ops/linalg.c): torch's */
    if (a->sizes[1] != b->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                  (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
        return -1;
    }
    return 0;
}

static wk_tensor *gpu_mm(wk_tensor *self, wk_tensor *mat2) {
    if (self->ndim != 2 || mat2->ndim != 2 || self->dtype != mat2->dtype) /* the CPU's checks, before any data */
        return ((wk_impl_mm_fn)wk__cpu_kernels[WK_OP_mm])(self, mat2);
    if (check_mm_shapes(self, mat2) < 0) return NULL;
    if (self->dtype != WK_FLOAT32) return not_float32("mm", self->dtype);
    return gemm(self, mat2, NULL, 1, 0, "mm");
}

static wk_tensor *gpu_addmm(wk_tensor *self, wk_tensor *mat1, wk_tensor *mat2, wk_scalar beta, wk_scalar alpha) {
    if (self->dtype != mat2->dtype || mat1->dtype != mat2->dtype || mat1->ndim != 2 || mat2->ndim != 2)
        return ((wk_impl_addmm_fn)wk__cpu_kernels[WK_OP_addmm])(self, mat1, mat2, beta, alpha); /* its errors */
    if (check_mm_shapes(mat1, mat2) < 0) return NULL;
    int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
    wk_tensor *bias = wk_expand(self, wk_ints(shape, 2), false); /* torch's expand message */
    if (!bias) return NULL;
    wk_tensor *r = NULL;
    if (self->dtype != WK_FLOAT32) {
        not_float32("addmm", self->dtype);
    } else {
        double b = wk__scalar_to_double(beta);
        r = gemm(mat1, mat2, b == 0 ? NULL : bias, wk__scalar_to_double(alpha), b, "addmm");
    }
    wk_release(bias);
    return r;
}

void wk__webgpu_matmul_kernels(wk_kernel_fn *k) {
    k[WK_OP_mm] = (wk_kernel_fn)gpu_mm;
    k[WK_OP_addmm] = (wk_kernel_fn)gpu_addmm;
}

#endif
