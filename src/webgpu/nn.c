/* nn.c — what a small MLP's training step needs on the webgpu device beyond elementwise ops, reductions and mm
 * (issue 20): the backward ops of relu / sigmoid / tanh (threshold_backward, sigmoid_backward, tanh_backward) and
 * mse_loss with its backward, as maps of the elementwise template (elementwise.c) and the reduction (reduce.c);
 * and the SGD step (torch.optim.SGD's _sgd_step: weight decay, momentum, dampening, nesterov, maximize) as one
 * fused kernel per parameter, in place on the device. All float32; the CPU kernels are the references
 * (tests/test_webgpu.py trains an MLP against torch on the CPU).
 *
 * SGD meta (Note [WGSL kernels] in gpu.h), u32 words: [numel, 0, off_p, off_g, off_buf, weight_decay, momentum,
 * lr, dampening (f32 bits), flags (1 nesterov, 2 maximize, 4 first step: the buffer starts as the gradient)]. */
#include "webgpu/gpu.h"

#include "ops/nn.h"

#if !defined(__wasi__) && !defined(__EMSCRIPTEN__)

#include <string.h>

enum { SLOT_THRESHOLD_BW = 20, SLOT_SIGMOID_BW, SLOT_TANH_BW, SLOT_MSE, SLOT_MSE_BW, SLOT_MUL = 2, SLOT_CLONE = 18 };
enum { SLOT_SGD = 34, SLOT_SGD_MOMENTUM };

static void *not_float32(const char *op, wk_dtype dt) {
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "The operator 'aten::%s' is not currently implemented for the webgpu device for dtype %s (webgpu "
              "kernels are float32 only so far).",
              op, wk_dtype_name(dt));
    return NULL;
}

/* torch's formulas (its CPU kernels): grad where self > threshold, else 0 (NaN in self passes the gradient) */
static wk_tensor *gpu_threshold_backward(wk_tensor *grad_output, wk_tensor *self, wk_scalar threshold) {
    return wk__webgpu_map(SLOT_THRESHOLD_BW, "select(x, 0.0, y <= alpha)", "threshold_backward", grad_output, self,
                          wk__scalar_to_double(threshold));
}
static wk_tensor *gpu_sigmoid_backward(wk_tensor *grad_output, wk_tensor *output) {
    return wk__webgpu_map(SLOT_SIGMOID_BW, "x * (1.0 - y) * y", "sigmoid_backward", grad_output, output, 1);
}
static wk_tensor *gpu_tanh_backward(wk_tensor *grad_output, wk_tensor *output) {
    return wk__webgpu_map(SLOT_TANH_BW, "x * (1.0 - y * y)", "tanh_backward", grad_output, output, 1);
}

static wk_tensor *gpu_mse_loss(wk_tensor *self, wk_tensor *target, int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    wk_tensor *l = wk__webgpu_map(SLOT_MSE, "(x - y) * (x - y)", "mse_loss", self, target, 1);
    if (!l || reduction == WK_RED_NONE) return l;
    bool mask[WK_MAX_DIM];
    for (int d = 0; d < l->ndim; d++) mask[d] = true;
    wk_tensor *r = wk__webgpu_reduce(l, mask, reduction == WK_RED_MEAN);
    wk_release(l);
    if (!r) return NULL;
    wk_tensor *s = wk__alias(r, 0, NULL, NULL, r->offset); /* the 0-d loss */
    wk_release(r);
    return s;
}

static wk_tensor *gpu_mse_loss_backward(wk_tensor *grad_output, wk_tensor *self, wk_tensor *target,
                                        int64_t reduction) {
    if (wk__nn_check_reduction(reduction) < 0) return NULL;
    int64_t n = wk__numel(self);
    double norm = reduction == WK_RED_MEAN ? (n ? 2.0 / (double)n : 2.0) : 2.0; /* torch's 2 / numel for mean */
    wk_tensor *d = wk__webgpu_map(SLOT_MSE_BW, "alpha * (x - y)", "mse_loss_backward", self, target, norm);
    if (!d) return NULL;
    wk_tensor *r = wk__webgpu_map(SLOT_MUL, "x * y", "mse_loss_backward", d, grad_output, 1);
    wk_release(d);
    return r;
}

#define SGD_HEAD                                                                                                 \
    "@compute @workgroup_size(64)\n"                                                                             \
    "fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {\n"           \
    "  let i = g.x + g.y * nw.x * 64u;\n"                                                                        \
    "  if (i >= m[0]) { return; }\n"                                                                             \
    "  let f = m[9];\n"                                                                                          \
    "  let pi = m[2] + i;\n"                                                                                     \
    "  var d = gr[m[3] + i];\n"                                                                                  \
    "  if ((f & 2u) != 0u) { d = -d; }\n"                                                                        \
    "  let wd = bitcast<f32>(m[5]);\n"                                                                           \
    "  if (wd != 0.0) { d = d + wd * p[pi]; }\n"
static const char SGD[] = "@group(0) @binding(0) var<storage, read_write> p: array<f32>;\n"
                          "@group(0) @binding(1) var<storage, read> gr: array<f32>;\n"
                          "@group(0) @binding(2) var<storage, read> m: array<u32>;\n" SGD_HEAD
                          "  p[pi] = p[pi] + (-bitcast<f32>(m[7])) * d;\n"
                          "}\n";
static const char SGD_MOMENTUM[] = "@group(0) @binding(0) var<storage, read_write> p: array<f32>;\n"
                                   "@group(0) @binding(1) var<storage, read> gr: array<f32>;\n"
                                   "@group(0) @binding(2) var<storage, read_write> buf: array<f32>;\n"
                                   "@group(0) @binding(3) var<storage, read> m: array<u32>;\n" SGD_HEAD
                                   "  let mom = bitcast<f32>(m[6]);\n"
                                   "  let bi = m[4] + i;\n"
                                   "  var b = d;\n"
                                   "  if ((f & 4u) == 0u) { b = mom * buf[bi] + (1.0 - bitcast<f32>(m[8])) * d; }\n"
                                   "  buf[bi] = b;\n"
                                   "  if ((f & 1u) != 0u) { d = d + mom * b; } else { d = b; }\n"
                                   "  p[pi] = p[pi] + (-bitcast<f32>(m[7])) * d;\n"
                                   "}\n";

static bool fits_u32_all(const wk_tensor *p, const wk_tensor *g, const wk_tensor *buf) {
    bool ok = p->offset <= (int64_t)UINT32_MAX && g->offset <= (int64_t)UINT32_MAX &&
              (!buf || buf->offset <= (int64_t)UINT32_MAX);
    if (!ok) wk__error(WK_NOT_IMPLEMENTED_ERROR, "webgpu: _sgd_step over indices past 2**32 is not supported yet");
    return ok;
}

static int sgd_check(const char *what, int64_t i, const wk_tensor *p, const wk_tensor *t) {
    bool grad = !strcmp(what, "grads"); /* a gradient may be any view: it is read through a contiguous copy */
    if (t && t->storage->device == p->storage->device && t->dtype == WK_FLOAT32 && (grad || wk__is_contiguous(t)) &&
        t->ndim == p->ndim && !memcmp(t->sizes, p->sizes, sizeof(int64_t) * (size_t)p->ndim) &&
        wk__numel(t) <= (int64_t)UINT32_MAX && (t == p || t->storage != p->storage))
        return 0;
    wk__error(WK_NOT_IMPLEMENTED_ERROR,
              "_sgd_step on the webgpu device needs float32 tensors of one shape on the device, contiguous and with "
              "their own storage: %s[%lld] is not one",
              what, (long long)i);
    return -1;
}

static wk_tensorvec gpu_sgd_step(wk_tensorlist params, wk_tensorlist grads, wk_opttensorlist momentum_buffer_list,
                                 double weight_decay, double momentum, double lr, double dampening, bool nesterov,
                                 bool maximize) {
    int64_t n = params.len;
    bool use_buf = momentum != 0;
    wk_tensorvec out = {NULL, 0};
    if (grads.len != n || (use_buf && momentum_buffer_list.len != n)) {
        wk__error(WK_RUNTIME_ERROR, "_sgd_step: expected %lld grads%s", (long long)n,
                  use_buf ? " and momentum buffers" : "");
        return out;
    }
    for (int64_t i = 0; i < n; i++) {
        if (sgd_check("params", i, params.data[i], params.data[i]) < 0 ||
            sgd_check("grads", i, params.data[i], grads.data[i]) < 0)
            return out;
        if (use_buf && momentum_buffer_list.data[i] &&
            sgd_check("momentum_buffer_list", i, params.data[i], momentum_buffer_list.data[i]) < 0)
            return out;
    }
    out.data = wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *)); /* [n]: the momentum buffers */
    if (!out.data) return out;
    out.len = use_buf ? n : 0;
    float f[4] = {(float)weight_decay, (float)momentum, (float)lr, (float)dampening};
    for (int64_t i = 0; i < n; i++) {
        wk_tensor *p = params.data[i], *buf = NULL;
        wk_tensor *g = wk__is_contiguous(grads.data[i]) ? wk_retain(grads.data[i])
                                                        : wk__webgpu_map(SLOT_CLONE, "x", "clone", grads.data[i],
                                                                         grads.data[i], 1);
        if (!g) goto fail;
        bool first = false;
        if (use_buf) {
            first = !momentum_buffer_list.data[i];
            buf = first ? wk__empty_strided_on(p->storage->device, p->ndim, p->sizes, p->strides, WK_FLOAT32)
                        : wk_retain((wk_tensor *)momentum_buffer_list.data[i]);
            if (!buf) {
                wk_release(g);
                goto fail;
            }
            out.data[i] = buf;
        }
        int64_t numel = wk__numel(p);
        if (!numel) {
            wk_release(g);
            continue;
        }
        uint32_t meta[10] = {(uint32_t)numel, 0, (uint32_t)p->offset, (uint32_t)g->offset,
                             buf ? (uint32_t)buf->offset : 0};
        memcpy(&meta[5], f, sizeof f);
        meta[9] = (nesterov ? 1u : 0u) | (maximize ? 2u : 0u) | (first ? 4u : 0u);
        void *ptrs[3] = {p->storage->data, g->storage->data, buf ? buf->storage->data : NULL};
        bool ok = fits_u32_all(p, g, buf) &&
                  wk__webgpu_dispatch(use_buf ? SLOT_SGD_MOMENTUM : SLOT_SGD, use_buf ? SGD_MOMENTUM : SGD,
                                      use_buf ? 3 : 2, ptrs, meta, 10, (uint64_t)numel) == 0;
        wk_release(g);
        if (!ok) goto fail;
        wk__bump_version(p);
        if (buf) wk__bump_version(buf);
    }
    return out;
fail:
    wk_tensorvec_free(out);
    return (wk_tensorvec){NULL, 0};
}

void wk__webgpu_nn_kernels(wk_kernel_fn *k) {
    k[WK_OP_threshold_backward] = (wk_kernel_fn)gpu_threshold_backward;
    k[WK_OP_sigmoid_backward] = (wk_kernel_fn)gpu_sigmoid_backward;
    k[WK_OP_tanh_backward] = (wk_kernel_fn)gpu_tanh_backward;
    k[WK_OP_mse_loss] = (wk_kernel_fn)gpu_mse_loss;
    k[WK_OP_mse_loss_backward] = (wk_kernel_fn)gpu_mse_loss_backward;
    k[WK_OP_sgd_step] = (wk_kernel_fn)gpu_sgd_step;
}

#endif
