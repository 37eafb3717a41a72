/* elementwise.c — the webgpu device's first kernels (issue 20, step 4): float32 elementwise binary ops (add, sub
 * with alpha, mul, div; their Scalar forms) and a family of unary ones, all from ONE WGSL template (below) that
 * walks the output's index through the broadcast sizes and each input's strides, so broadcasting, views
 * (transposed, stepped, expanded, offset) and CPU 0-d operands need no copy first. The output is a new contiguous
 * float32 tensor on the device; in-place forms (add_, ...) go through the generated in-place path (the op, then
 * copy_ into self on the device). The naive reference is the CPU kernel: tests/test_webgpu.py compares every op
 * against torch on the CPU. Other dtypes raise NotImplementedError naming the op, the device and the dtype.
 *
 * meta (Note [WGSL kernels] in gpu.h), u32 words: [numel, ndim, off_a, off_b, off_o, alpha (f32 bits),
 * sizes[ndim], strides_a[ndim], strides_b[ndim], strides_o[ndim]]. A unary op binds its input as both a and b.
 * The output is a new contiguous tensor, or (copy_ on the device, the copy_tensor hook) any float32 view. */
#include "webgpu/gpu.h"

#include "core/host.h"

#if !defined(__wasi__) && !defined(__EMSCRIPTEN__) /* the wasm builds have no webgpu device yet (device.c) */

#include <stdio.h>
#include <string.h>

static const char TEMPLATE[] =
    "@group(0) @binding(0) var<storage, read> a: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> b: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> o: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read> m: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {\n"
    "  let i = g.x + g.y * nw.x * 64u;\n"
    "  if (i >= m[0]) { return; }\n"
    "  let nd = m[1];\n"
    "  var r = i;\n"
    "  var ia = m[2];\n"
    "  var ib = m[3];\n"
    "  var io = m[4];\n"
    "  for (var k = nd; k > 0u; k = k - 1u) {\n" /* dim k - 1, innermost first */
    "    let s = m[5u + k];\n"
    "    let c = r %% s;\n" /* %% : printf text */
    "    r = r / s;\n"
    "    ia = ia + c * m[5u + nd + k];\n"
    "    ib = ib + c * m[5u + 2u * nd + k];\n"
    "    io = io + c * m[5u + 3u * nd + k];\n"
    "  }\n"
    "  let x = a[ia];\n"
    "  let y = b[ib];\n"
    "  let alpha = bitcast<f32>(m[5]);\n"
    "  o[io] = %s;\n"
    "}\n";

/* The unary ops: slot (binary ops use 0-4, the identity of clone_contiguous 18), name, the WGSL expression of x. */
#define UNARY_OPS(X)                                                                                             \
    X(8, neg, "-x")                                                                                              \
    X(9, relu, "select(x, 0.0, x < 0.0)") /* NaN stays NaN, as torch's clamp_min(x, 0) */                       \
    X(10, abs, "abs(x)")                                                                                         \
    X(11, exp, "exp(x)")                                                                                         \
    X(12, log, "log(x)")                                                                                         \
    X(13, sqrt, "sqrt(x)")                                                                                       \
    X(14, sin, "sin(x)")                                                                                         \
    X(15, cos, "cos(x)")                                                                                         \
    X(16, sigmoid, "1.0 / (1.0 + exp(-x))")                                                                      \
    X(17, tanh, "select(tanh(x), sign(x), abs(x) > 10.0)") /* |x| > 10: tanh is 1 in float32 */

static char *shaders[WK_WEBGPU_MAX_PIPELINES]; /* [slot]: the template filled in, made once (never freed) */

static const char *shader(int slot, const char *expr) {
    if (shaders[slot]) return shaders[slot];
    size_t n = sizeof TEMPLATE + strlen(expr);
    char *s = wk__malloc(n); /* [n]: the WGSL text */
    if (!s) return NULL;
    snprintf(s, n, TEMPLATE, expr);
    return shaders[slot] = s;
}

static void *not_float32(const char *op, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "The operator 'aten::%s' is not currently implemented for the webgpu device for dtype %s (webgpu "
              "kernels are float32 only so far).",
              op, wk_dtype_name(dt));
    return NULL;
}

/* t as a float32 operand on dev (new reference): t itself when it is a float32 device tensor; a CPU 0-d tensor
 * (torch lets one stand beside device tensors) as its value in a float32 0-d device tensor. */
static wk_tensor *operand(wk_tensor *t, wk_device *dev, const char *op) {
    if (t->storage->device == dev) {
        if (t->dtype != WK_FLOAT32) return not_float32(op, t->dtype);
        wk_retain(t);
        return t;
    }
    wk_tensor *h = wk__host_tensor(t); /* the mixed-device check (wk__kernel) let only a 0-d CPU tensor by */
    if (!h) return NULL;
    wk_tensor *f = wk__empty(0, NULL, WK_FLOAT32);
    if (f) *(float *)f->storage->data = (float)wk__load_double((const char *)h->storage->data +
                                                                   h->offset * (int64_t)wk_dtype_size(h->dtype),
                                                               h->dtype);
    wk_release(h);
    if (!f) return NULL;
    wk_tensor *d = wk__to_device(f, dev);
    wk_release(f);
    return d;
}

static bool fits_u32(int64_t v) { return v >= 0 && v <= (int64_t)UINT32_MAX; }

/* out = EXPR(a, b, alpha) over the broadcast shape of a and b (b == a for a unary op): a new contiguous tensor, or
 * dst (a float32 tensor on the device whose shape is the broadcast shape; returned with a new reference). */
static wk_tensor *run_into(int slot, const char *expr, const char *op, wk_tensor *a0, wk_tensor *b0, double alpha,
                           wk_tensor *dst) {
    wk_device *dev = dst                           ? dst->storage->device
                     : a0->storage->device->host_access ? b0->storage->device
                                                        : a0->storage->device;
    wk_promo pr;
    wk__promo_init(&pr);
    wk__promo_tensor(&pr, a0);
    wk__promo_tensor(&pr, b0);
    wk_dtype rt = wk__promo_result(&pr);
    if (rt != WK_FLOAT32) return not_float32(op, rt);
    int nd;
    int64_t sizes[WK_MAX_DIM]; /* [nd]: the broadcast shape */
    if (wk__broadcast_shapes(a0->ndim, a0->sizes, b0->ndim, b0->sizes, &nd, sizes) < 0) return NULL;
    wk_tensor *a = NULL, *b = NULL, *ea = NULL, *eb = NULL, *out = NULL;
    if (!(a = operand(a0, dev, op)) || !(b = b0 == a0 ? (wk_retain(a), a) : operand(b0, dev, op))) goto fail;
    if (!(ea = wk__expand_to(a, nd, sizes)) || !(eb = wk__expand_to(b, nd, sizes))) goto fail;
    if (dst) {
        out = wk_retain(dst);
    } else {
        int64_t strides[WK_MAX_DIM], st = 1; /* [nd]: the output's, contiguous */
        for (int d = nd - 1; d >= 0; d--) strides[d] = st, st *= sizes[d] ? sizes[d] : 1;
        if (!(out = wk__empty_strided_on(dev, nd, sizes, strides, WK_FLOAT32))) goto fail;
    }
    int64_t numel = wk__numel(out);
    if (!numel) goto done;
    uint32_t meta[6 + 4 * WK_MAX_DIM]; /* [6 + 4 nd]: see the top of this file */
    float fa = (float)alpha;
    bool ok = fits_u32(numel) && fits_u32(ea->offset) && fits_u32(eb->offset) && fits_u32(out->offset);
    meta[0] = (uint32_t)numel, meta[1] = (uint32_t)nd, meta[2] = (uint32_t)ea->offset;
    meta[3] = (uint32_t)eb->offset, meta[4] = (uint32_t)out->offset;
    memcpy(&meta[5], &fa, 4);
    for (int d = 0; d < nd; d++) {
        ok = ok && fits_u32(ea->strides[d]) && fits_u32(eb->strides[d]) && fits_u32(out->strides[d]);
        meta[6 + d] = (uint32_t)sizes[d];
        meta[6 + nd + d] = (uint32_t)ea->strides[d];
        meta[6 + 2 * nd + d] = (uint32_t)eb->strides[d];
        meta[6 + 3 * nd + d] = (uint32_t)out->strides[d];
    }
    if (!ok) {
        wk__error(WK_NOT_IMPLEMENTED_ERROR, "webgpu: %s over indices past 2**32 is not supported yet", op);
        goto fail;
    }
    const char *wgsl = shader(slot, expr);
    void *ptrs[3] = {ea->storage->data, eb->storage->data, out->storage->data};
    if (!wgsl || wk__webgpu_dispatch(slot, wgsl, 3, ptrs, meta, 6 + 4 * (size_t)nd, (uint64_t)numel) < 0) goto fail;
done:
    wk_release(a), wk_release(b), wk_release(ea), wk_release(eb);
    return out;
fail:
    if (a) wk_release(a);
    if (b) wk_release(b);
    if (ea) wk_release(ea);
    if (eb) wk_release(eb);
    if (out) wk_release(out);
    return NULL;
}

static wk_tensor *run(int slot, const char *expr, const char *op, wk_tensor *a0, wk_tensor *b0, double alpha) {
    return run_into(slot, expr, op, a0, b0, alpha, NULL);
}
wk_tensor *wk__webgpu_map(int slot, const char *expr, const char *op, wk_tensor *a, wk_tensor *b, double alpha) {
    return run_into(slot, expr, op, a, b, alpha, NULL);
}

static wk_tensor *with_scalar(int slot, const char *expr, const char *op, wk_tensor *self, wk_scalar other,
                              double alpha) {
    wk_tensor *s = wk__wrap_scalar(other); /* a wrapped number: promotes as a Python scalar */
    if (!s) return NULL;
    wk_tensor *r = run(slot, expr, op, self, s, alpha);
    wk_release(s);
    return r;
}

static wk_tensor *gpu_add(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    return run(0, "x + alpha * y", "add", self, other, wk__scalar_to_double(alpha));
}
static wk_tensor *gpu_add_Scalar(wk_tensor *self, wk_scalar other, wk_scalar alpha) {
    return with_scalar(0, "x + alpha * y", "add", self, other, wk__scalar_to_double(alpha));
}
static wk_tensor *gpu_sub(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    return run(1, "x - alpha * y", "sub", self, other, wk__scalar_to_double(alpha));
}
static wk_tensor *gpu_rsub(wk_tensor *self, wk_tensor *other, wk_scalar alpha) {
    return run(4, "y - alpha * x", "rsub", self, other, wk__scalar_to_double(alpha));
}
static wk_tensor *gpu_rsub_Scalar(wk_tensor *self, wk_scalar other, wk_scalar alpha) {
    return with_scalar(4, "y - alpha * x", "rsub", self, other, wk__scalar_to_double(alpha));
}
static wk_tensor *gpu_mul(wk_tensor *self, wk_tensor *other) { return run(2, "x * y", "mul", self, other, 1); }
static wk_tensor *gpu_mul_Scalar(wk_tensor *self, wk_scalar other) {
    return with_scalar(2, "x * y", "mul", self, other, 1);
}
static wk_tensor *gpu_div(wk_tensor *self, wk_tensor *other, const char *rounding_mode) {
    if (rounding_mode)
        return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR,
                       "The operator 'aten::div' with rounding_mode='%s' is not currently implemented for the webgpu "
                       "device.",
                       rounding_mode);
    return run(3, "x / y", "div", self, other, 1);
}
static wk_tensor *gpu_div_Scalar(wk_tensor *self, wk_scalar other) {
    return with_scalar(3, "x / y", "div", self, other, 1);
}

#define X(slot, op, expr)                                                                                        \
    static wk_tensor *gpu_##op(wk_tensor *self) { return run(slot, expr, #op, self, self, 1); }
UNARY_OPS(X)
#undef X

/* ---- copies and *_like factories on the device ----
 * clone keeps torch's preserve_format strides (wk__empty_like_here) and copies any dtype through the device's copy
 * hooks (wk__copy_, core/host.h); contiguous / clone_contiguous of a float32 view run the identity kernel, other
 * dtypes copy through the hooks too. */
static wk_tensor *gpu_clone(wk_tensor *self) {
    wk_tensor *c = wk__empty_like_here(self, WK_DTYPE_NONE);
    if (c && wk__copy_(c, self) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}
static wk_tensor *gpu_clone_contiguous(wk_tensor *self) {
    if (self->dtype == WK_FLOAT32) return run(18, "x", "clone", self, self, 1);
    int64_t strides[WK_MAX_DIM]; /* [ndim]: contiguous */
    wk__contiguous_strides(self->ndim, self->sizes, strides);
    wk_tensor *c = wk__empty_strided_on(self->storage->device, self->ndim, self->sizes, strides, self->dtype);
    if (c && wk__copy_(c, self) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}
static wk_tensor *gpu_contiguous(wk_tensor *self) {
    return wk__is_contiguous(self) ? wk_retain(self) : gpu_clone_contiguous(self);
}

/* The device's copy_tensor hook (core/device.h): float32 into a float32 view on the device, from a float32 tensor
 * on the device, broadcast to dst's shape, in one kernel (the identity, slot 19); every other pair goes through the
 * host (a host source too: the kernels' own CPU 0-d operands reach the device through this very copy). A src
 * sharing dst's storage is first copied out (a kernel may not read and write one buffer). */
int wk__webgpu_copy_tensor(wk_tensor *dst, const wk_tensor *src) {
    if (dst->dtype != WK_FLOAT32 || src->dtype != WK_FLOAT32 || src->storage->device != dst->storage->device) return 1;
    wk_tensor *s = wk__expand_to((wk_tensor *)src, dst->ndim, dst->sizes);
    if (!s) return -1;
    if (s->storage == dst->storage) {
        wk_tensor *c = run(18, "x", "copy_", s, s, 1);
        wk_release(s);
        if (!c) return -1;
        s = c;
    }
    wk_tensor *r = run_into(19, "x", "copy_", s, s, 1, dst);
    wk_release(s);
    if (!r) return -1;
    wk_release(r);
    return 0;
}

/* copy_'s kernel (ops/core.def, `device: self`): self's shape and dtype on the device, src's values (any device) */
static wk_tensor *gpu_copy(wk_tensor *self, wk_tensor *src, bool non_blocking) {
    (void)non_blocking;
    int nd;
    int64_t shape[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [nd]: the broadcast shape; [self->ndim]: contiguous */
    if (wk__broadcast_shapes(self->ndim, self->sizes, src->ndim, src->sizes, &nd, shape) < 0) return NULL;
    if (nd != self->ndim || memcmp(shape, self->sizes, sizeof(int64_t) * (size_t)nd)) /* torch's TensorIterator */
        return wk_impl_copy(self, src, non_blocking);                                   /* its error */
    wk__contiguous_strides(self->ndim, self->sizes, strides);
    wk_tensor *r = wk__empty_strided_on(self->storage->device, self->ndim, self->sizes, strides, self->dtype);
    if (r && wk__copy_(r, src) < 0) {
        wk_release(r);
        return NULL;
    }
    return r;
}

static wk_tensor *filled_like(wk_tensor *self, wk_dtype dtype, bool requires_grad, const wk_scalar *v) {
    wk_tensor *t = wk__empty_like_here(self, dtype);
    if (!t) return NULL;
    size_t es = wk_dtype_size(t->dtype);
    unsigned char elem[16]; /* [es]: one element of the value */
    if (v && es <= sizeof elem && t->storage->nbytes) {
        wk__store_scalar(elem, t->dtype, *v);
        if (t->storage->device->fill(t->storage->data, t->storage->nbytes / es, elem, es) < 0) {
            wk_release(t);
            return NULL;
        }
    }
    return wk__finish_factory(t, requires_grad);
}
static wk_tensor *gpu_zeros_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    wk_scalar z = wk_int(0);
    return filled_like(self, dtype, requires_grad, &z);
}
static wk_tensor *gpu_ones_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    wk_scalar one = wk_int(1);
    return filled_like(self, dtype, requires_grad, &one);
}
static wk_tensor *gpu_empty_like(wk_tensor *self, wk_dtype dtype, bool requires_grad) {
    return filled_like(self, dtype, requires_grad, NULL);
}

void wk__webgpu_elementwise_kernels(wk_kernel_fn *k) {
    k[WK_OP_copy] = (wk_kernel_fn)gpu_copy;
    k[WK_OP_clone] = (wk_kernel_fn)gpu_clone;
    k[WK_OP_clone_contiguous] = (wk_kernel_fn)gpu_clone_contiguous;
    k[WK_OP_contiguous] = (wk_kernel_fn)gpu_contiguous;
    k[WK_OP_zeros_like] = (wk_kernel_fn)gpu_zeros_like;
    k[WK_OP_ones_like] = (wk_kernel_fn)gpu_ones_like;
    k[WK_OP_empty_like] = (wk_kernel_fn)gpu_empty_like;
    k[WK_OP_add] = (wk_kernel_fn)gpu_add;
    k[WK_OP_add_Scalar] = (wk_kernel_fn)gpu_add_Scalar;
    k[WK_OP_sub] = (wk_kernel_fn)gpu_sub;
    k[WK_OP_rsub] = (wk_kernel_fn)gpu_rsub;
    k[WK_OP_rsub_Scalar] = (wk_kernel_fn)gpu_rsub_Scalar;
    k[WK_OP_mul] = (wk_kernel_fn)gpu_mul;
    k[WK_OP_mul_Scalar] = (wk_kernel_fn)gpu_mul_Scalar;
    k[WK_OP_div] = (wk_kernel_fn)gpu_div;
    k[WK_OP_div_Scalar] = (wk_kernel_fn)gpu_div_Scalar;
#define X(slot, op, expr) k[WK_OP_##op] = (wk_kernel_fn)gpu_##op;
    UNARY_OPS(X)
#undef X
}

#endif
