/* nn_spatial.c — spatial transformers, max unpooling and pdist: affine_grid_generator (the grid of affine maps) and
 * grid_sampler (bilinear / nearest / bicubic sampling of an image at grid positions, with zeros / border /
 * reflection padding), forward and backward, with torch's checks in torch's order.
 * The kernels compute in the input's own type (float for float32) in the order of torch's CPU kernels, see
 * src/ops/nn_grid_kern.h; float16 / bfloat16 compute in float and round once. */
#include "ops/nn.h"

#include <stdio.h>

#define GK_T float
#define GK_(name) gkf_##name
#define gkf_floor floorf
#define gkf_rint rintf
#define gkf_trunc truncf
#define gkf_fma fmaf
#define gkf_fmod fmodf
#include "ops/nn_grid_kern.h"
#undef GK_T
#undef GK_
#define GK_T double
#define GK_(name) gkd_##name
#define gkd_floor floor
#define gkd_rint rint
#define gkd_trunc trunc
#define gkd_fma fma
#define gkd_fmod fmod
#include "ops/nn_grid_kern.h"
#undef GK_T
#undef GK_

static void sizes_str(char *buf, size_t n, const wk_tensor *t) {
    wk_strbuf b = {0};
    wk_sb_ints(&b, t->sizes, t->ndim);
    snprintf(buf, n, "%s", b.s ? b.s : "[]");
    wk_sb_free(&b);
}

/* torch's check_grid_sampler_common */
static int gs_check_common(const wk_tensor *input, const wk_tensor *grid) {
    char a[256], b[256];
    if (input->ndim == 0)
        return wk__error(WK_INDEX_ERROR, "Dimension specified as 0 but tensor has no dimensions"), -1;
    if (grid->ndim == 0)
        return wk__error(WK_INDEX_ERROR, "Dimension specified as 0 but tensor has no dimensions"), -1;
    sizes_str(a, sizeof a, input);
    sizes_str(b, sizeof b, grid);
    if (input->sizes[0] != grid->sizes[0])
        return wk__error(WK_RUNTIME_ERROR,
                         "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                         "%s and grid with sizes %s", a, b), -1;
    if (grid->sizes[grid->ndim - 1] != input->ndim - 2)
        return wk__error(WK_RUNTIME_ERROR,
                         "grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s",
                         input->ndim - 2, b), -1;
    for (int i = 2; i < input->ndim; i++)
        if (input->sizes[i] <= 0)
            return wk__error(WK_RUNTIME_ERROR,
                             "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                             "%s with dimension %d being empty", a, i), -1;
    return 0;
}

static int gs_check_nd(const wk_tensor *input, const wk_tensor *grid, int nd, int64_t mode) {
    char a[256], b[256];
    sizes_str(a, sizeof a, input);
    sizes_str(b, sizeof b, grid);
    if (!(input->ndim == nd + 2 && grid->ndim == nd + 2))
        return wk__error(WK_RUNTIME_ERROR,
                         "grid_sampler(): expected %dD input and grid with same number of dimensions, but got input "
                         "with sizes %s and grid with sizes %s", nd + 2, a, b), -1;
    if (nd == 3 && mode == 2)
        return wk__error(WK_RUNTIME_ERROR, "grid_sampler(): bicubic interpolation only supports 4D input"), -1;
    return 0;
}

/* the kernel over contiguous copies: forward (gy NULL) answers the output; backward answers the gradient of
 * input (which 0) or grid (which 1). 4-D input: torch's vectorised 2-D kernel; 5-D: its scalar 3-D kernel. */
static wk_tensor *gs_run(wk_tensor *input, wk_tensor *grid, int64_t mode, int64_t pad, bool ac, wk_tensor *gy,
                         int which) {
    int nd = input->ndim - 2;
    int64_t N = input->sizes[0], C = input->sizes[1], S = 1;
    int64_t oshape[5] = {N, C};
    for (int j = 0; j < nd; j++) oshape[2 + j] = grid->sizes[1 + j], S *= grid->sizes[1 + j];
    wk_dtype dt = input->dtype;
    const char *kname = nd == 2 ? (gy ? "grid_sampler_2d_backward_cpu_kernel_impl" : "grid_sampler_2d_cpu_kernel_impl")
                                : (gy ? "grid_sampler_3d_backward_cpu" : "grid_sampler3d_cpu");
    if (nd == 3 && !wk_dtype_is_floating(dt)) {
        wk__not_implemented_for(kname, dt);
        return NULL;
    }
    if (!gy) {
        if (N * C * S == 0) return wk__empty(nd + 2, oshape, dt);
    } else if (wk__numel(gy) == 0) {
        return which == 0 ? wk__zeros(nd + 2, input->sizes, dt) : wk__zeros(nd + 2, grid->sizes, dt);
    }
    if (!wk_dtype_is_floating(dt)) {
        wk__not_implemented_for(kname, dt);
        return NULL;
    }
    if (grid->dtype != dt)
        return WK_FAIL(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(dt),
                       wk_dtype_scalar_name(grid->dtype));
    wk_dtype wt = dt == WK_FLOAT64 ? WK_FLOAT64 : WK_FLOAT32;
    wk_tensor *xi = wk__to_dtype(input, wt), *gi = xi ? wk__to_dtype(grid, wt) : NULL;
    wk_tensor *x = gi ? wk__contiguous(xi) : NULL, *g = x ? wk__contiguous(gi) : NULL;
    wk_tensor *go = NULL, *goc = NULL, *res = NULL, *aux = NULL;
    if (g && gy) {
        go = wk__to_dtype(gy, wt);
        goc = go ? wk__contiguous(go) : NULL;
    }
    if (g && (!gy || goc)) {
        if (!gy) res = wk__empty(nd + 2, oshape, wt);
        else {
            res = which == 0 ? wk__zeros(nd + 2, input->sizes, wt) : wk__empty(nd + 2, grid->sizes, wt);
            aux = which == 0 ? wk__empty(nd + 2, grid->sizes, wt) : NULL;
        }
    }
    if (res && (!gy || which == 1 || aux)) {
        void *yp = gy ? NULL : wk__data(res), *gxp = gy && which == 0 ? wk__data(res) : NULL;
        void *ggp = gy ? wk__data(which == 0 ? aux : res) : NULL;
        const void *gop = gy ? wk__data(goc) : NULL;
        const int64_t *is = input->sizes;
        if (wt == WK_FLOAT64 && nd == 2)
            gkd_run((const double *)wk__data(x), (const double *)wk__data(g), N, C, is[2], is[3], oshape[2], oshape[3],
                    (int)mode, (int)pad, ac, yp, gop, gxp, ggp);
        else if (nd == 2)
            gkf_run((const float *)wk__data(x), (const float *)wk__data(g), N, C, is[2], is[3], oshape[2], oshape[3],
                    (int)mode, (int)pad, ac, yp, gop, gxp, ggp);
        else if (wt == WK_FLOAT64)
            gkd_run3d((const double *)wk__data(x), (const double *)wk__data(g), N, C, is[2], is[3], is[4], S, (int)mode,
                      (int)pad, ac, yp, gop, gxp, ggp);
        else
            gkf_run3d((const float *)wk__data(x), (const float *)wk__data(g), N, C, is[2], is[3], is[4], S, (int)mode,
                      (int)pad, ac, yp, gop, gxp, ggp);
    } else if (res) {
        wk_release(res);
        res = NULL;
    }
    wk_tensor *out = res ? wk__to_dtype(res, dt) : NULL;
    wk_release(xi);
    wk_release(gi);
    wk_release(x);
    wk_release(g);
    wk_release(go);
    wk_release(goc);
    wk_release(res);
    wk_release(aux);
    return out;
}

wk_tensor *wk_impl_grid_sampler_2d(wk_tensor *input, wk_tensor *grid, int64_t interpolation_mode,
                                   int64_t padding_mode, bool align_corners) {
    if (gs_check_common(input, grid) < 0 || gs_check_nd(input, grid, 2, interpolation_mode) < 0) return NULL;
    if (interpolation_mode < 0 || interpolation_mode > 2 || padding_mode < 0 || padding_mode > 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "grid_sampler(): unknown interpolation mode %lld or padding mode %lld",
                       (long long)interpolation_mode, (long long)padding_mode);
    return gs_run(input, grid, interpolation_mode, padding_mode, align_corners, NULL, 0);
}

wk_tensor *wk_impl_grid_sampler_3d(wk_tensor *input, wk_tensor *grid, int64_t interpolation_mode,
                                   int64_t padding_mode, bool align_corners) {
    if (gs_check_common(input, grid) < 0 || gs_check_nd(input, grid, 3, interpolation_mode) < 0) return NULL;
    if (interpolation_mode < 0 || interpolation_mode > 1 || padding_mode < 0 || padding_mode > 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "grid_sampler(): unknown interpolation mode %lld or padding mode %lld",
                       (long long)interpolation_mode, (long long)padding_mode);
    return gs_run(input, grid, interpolation_mode, padding_mode, align_corners, NULL, 0);
}

wk_tensor *wk_impl__nn_grid_sampler_backward(wk_tensor *grad, wk_tensor *input, wk_tensor *grid,
                                             int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                                             int64_t which) {
    return gs_run(input, grid, interpolation_mode, padding_mode, align_corners, grad, (int)which);
}

wk_tensor *wk_impl_grid_sampler(wk_tensor *input, wk_tensor *grid, int64_t interpolation_mode, int64_t padding_mode,
                                bool align_corners) {
    if (gs_check_common(input, grid) < 0) return NULL;
    if (input->ndim == 4) return wk_grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
    return wk_grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

/* ---- affine_grid_generator -------------------------------------------------------------------------------------
 * torch's base grid [N, spatial..., nd + 1]: the last axis holds (x, y[, z], 1), x along W, y along H, z along D,
 * each linspace(-1, 1, S) (scaled by (S - 1) / S without align_corners; 0 for S = 1), as torch computes them in
 * theta's dtype. The grid is base.view(N, P, nd + 1).bmm(theta.transpose(1, 2)). */
static wk_tensor *affine_base(wk_intlist size, bool ac, wk_dtype dt) {
    int nd = (int)size.len - 2;
    int64_t N = size.data[0], P = 1;
    for (int j = 0; j < nd; j++) P *= size.data[2 + j];
    int64_t shape[3] = {N, P, nd + 1};
    if (wk__check_sizes(3, shape) < 0) return NULL;
    wk_tensor *base = wk__empty(3, shape, WK_FLOAT64);
    if (!base) return NULL;
    double *B = (double *)wk__data(base);
    for (int c = 0; c < nd; c++) {     /* coordinate c runs along spatial dim nd - 1 - c */
        int sd = nd - 1 - c;
        int64_t S = size.data[2 + sd];
        wk_tensor *r = NULL;
        if (S > 1) {
            wk_tensor *l = wk_linspace(wk_float(-1), wk_float(1), S, dt, false);
            if (l && !ac) {
                wk_tensor *m = wk_mul_Scalar(l, wk_int(S - 1));
                r = m ? wk_div_Scalar(m, wk_int(S)) : NULL;
                wk_release(m);
            } else if (l) {
                wk_retain(l);
                r = l;
            }
            wk_release(l);
            wk_tensor *r64 = r ? wk__to_dtype(r, WK_FLOAT64) : NULL, *rc = r64 ? wk__contiguous(r64) : NULL;
            wk_release(r);
            wk_release(r64);
            r = rc;
            if (!r) {
                wk_release(base);
                return NULL;
            }
        }
        const double *R = r ? (const double *)wk__data(r) : NULL;
        int64_t inner = 1;
        for (int j = sd + 1; j < nd; j++) inner *= size.data[2 + j];
        for (int64_t n = 0; n < N; n++)
            for (int64_t p = 0; p < P; p++) B[(n * P + p) * (nd + 1) + c] = R ? R[(p / inner) % S] : 0;
        wk_release(r);
    }
    for (int64_t q = 0; q < N * P; q++) B[q * (nd + 1) + nd] = 1;
    wk_tensor *out = wk__to_dtype(base, dt);
    wk_release(base);
    return out;
}

static int affine_check(wk_intlist size) {
    if (size.len != 4 && size.len != 5)
        return wk__error(WK_RUNTIME_ERROR, "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs."), -1;
    /* torch's base grid is empty({N, spatial..., nd + 1}) */
    int64_t shape[6];
    int nd = (int)size.len - 2;
    shape[0] = size.data[0];
    for (int j = 0; j < nd; j++) shape[1 + j] = size.data[2 + j];
    shape[1 + nd] = nd + 1;
    for (int j = 0; j < nd + 2; j++)
        if (shape[j] < 0) {
            wk_strbuf b = {0};
            wk_sb_ints(&b, shape, nd + 2);
            wk__error(WK_RUNTIME_ERROR, "Trying to create tensor with negative dimension %lld: %s", (long long)shape[j],
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
    return 0;
}

wk_tensor *wk_impl_affine_grid_generator(wk_tensor *theta, wk_intlist size, bool align_corners) {
    if (affine_check(size) < 0) return NULL;
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *base = affine_base(size, align_corners, theta->dtype), *tt = NULL, *g = NULL, *out = NULL;
    if (base) tt = wk_transpose(theta, 1, 2);
    if (tt) g = wk_bmm(base, tt);
    if (g) {
        int64_t shape[WK_MAX_DIM];
        int nd = (int)size.len - 2;
        shape[0] = size.data[0];
        for (int j = 0; j < nd; j++) shape[1 + j] = size.data[2 + j];
        shape[1 + nd] = nd;
        out = wk_view(g, wk_ints(shape, nd + 2));
    }
    wk_set_grad_enabled(prev);
    wk_release(base);
    wk_release(tt);
    wk_release(g);
    return out;
}

/* torch's backward is a composite (it records ViewBackward0, BmmBackward0, TransposeBackward0 itself):
 * base.view(N, P, nd + 1).transpose(1, 2).bmm(grad.view(N, P, nd)).transpose(1, 2) */
wk_tensor *wk_impl_affine_grid_generator_backward(wk_tensor *grad, wk_intlist size, bool align_corners) {
    if (affine_check(size) < 0) return NULL;
    int nd = (int)size.len - 2;
    int64_t P = 1;
    for (int j = 0; j < nd; j++) P *= size.data[2 + j];
    int64_t shape[3] = {size.data[0], P, nd};
    bool prev = wk_set_grad_enabled(false);
    wk_tensor *base = affine_base(size, align_corners, grad->dtype), *bt = NULL, *g = NULL, *m = NULL, *out = NULL;
    wk_set_grad_enabled(prev);
    if (base) bt = wk_transpose(base, 1, 2);
    if (bt) g = wk_view(grad, wk_ints(shape, 3));
    if (g) m = wk_bmm(bt, g);
    if (m) out = wk_transpose(m, 1, 2);
    wk_release(base);
    wk_release(bt);
    wk_release(g);
    wk_release(m);
    return out;
}

/* ---- max_unpool2d / max_unpool3d ---------------------------------------------------------------------------------
 * out = zeros([batch..., C, output_size...]); out[plane, indices[i]] = self[i] in memory order (the last write and
 * the last invalid index win, as torch's kernel on one thread). Checks in torch's order. */
static wk_tensor *max_unpool(wk_tensor *self, wk_tensor *indices, wk_intlist output_size, int nd,
                             const wk_intlist *stride, const wk_intlist *padding) {
    static const char *names[4] = {"", "", "height, width", "depth, height, width"};
    if (indices->dtype != WK_INT64)
        return nd == 2 ? WK_FAIL(WK_RUNTIME_ERROR, "elements in indices should be type int64 but got: %s",
                                 wk_dtype_scalar_name(indices->dtype))
                       : WK_FAIL(WK_RUNTIME_ERROR, "elements in indices should be type int64");
    if (nd == 2 && output_size.len != 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "There should be exactly two elements (%s) in output_size, but got %lld "
                       "elements.", names[2], (long long)output_size.len);
    if (self->ndim != nd + 1 && self->ndim != nd + 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "Input to max_unpooling%dd should be a %dd or %dd Tensor, but got a tensor with "
                       "%d dimensions.", nd, nd + 1, nd + 2, self->ndim);
    if (nd == 3) {
        if (output_size.len != 3)
            return WK_FAIL(WK_RUNTIME_ERROR, "There should be exactly three elements (%s) in output_size, but got %lld "
                           "elements.", names[3], (long long)output_size.len);
        if (stride->len != 3)
            return WK_FAIL(WK_RUNTIME_ERROR, "There should be exactly three elements (%s) in stride, but got: %lld "
                           "elements.", names[3], (long long)stride->len);
        if (padding->len != 3)
            return WK_FAIL(WK_RUNTIME_ERROR, "There should be exactly three elements (%s) in padding, but got: %lld "
                           "elements.", names[3], (long long)padding->len);
    }
    bool same = self->ndim == indices->ndim;
    for (int i = 0; same && i < self->ndim; i++) same = self->sizes[i] == indices->sizes[i];
    if (!same) {
        char a[256], b[256];
        sizes_str(a, sizeof a, self);
        sizes_str(b, sizeof b, indices);
        return WK_FAIL(WK_RUNTIME_ERROR, "Expected shape of indices to be same as that of the input tensor (%s) but got "
                       "indices tensor with shape: %s", a, b);
    }
    for (int i = 1; i < self->ndim; i++)
        if (self->sizes[i] <= 0) {
            char a[256];
            sizes_str(a, sizeof a, self);
            return WK_FAIL(WK_RUNTIME_ERROR, "max_unpooling%dd_forward_out_cpu(): Expected input to have non-zero size "
                           "for non-batch dimensions, but got %s with dimension %d being empty.", nd, a, i);
        }
    if (nd == 3 && !(stride->data[0] > 0 && stride->data[1] > 0 && stride->data[2] > 0)) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, stride->data, 3);
        wk__error(WK_RUNTIME_ERROR, "strides should be greater than zero, but got stride: %s", b.s ? b.s : "");
        wk_sb_free(&b);
        return NULL;
    }
    for (int j = 0; j < nd; j++)
        if (output_size.data[j] < 0) {
            wk_strbuf b = {0};
            wk_sb_puts(&b, "(");
            for (int k = 0; k < nd; k++) wk_sb_printf(&b, "%s%lld", k ? ", " : "", (long long)output_size.data[k]);
            wk_sb_puts(&b, ")");
            wk__error(WK_RUNTIME_ERROR, "max_unpooling%dd(): output_size must contain non-negative spatial dimensions, "
                      "but got output_size=%s", nd, b.s ? b.s : "");
            wk_sb_free(&b);
            return NULL;
        }
    if (!wk_dtype_is_floating(self->dtype)) {
        wk__not_implemented_for(nd == 2 ? "max_unpool2d" : "max_unpool3d", self->dtype);
        return NULL;
    }
    int64_t shape[WK_MAX_DIM];
    int lead = self->ndim - nd;
    for (int i = 0; i < lead; i++) shape[i] = self->sizes[i];
    int64_t osz = 1, isz = 1;
    for (int j = 0; j < nd; j++) {
        shape[lead + j] = output_size.data[j];
        osz *= output_size.data[j];
        isz *= self->sizes[lead + j];
    }
    if (wk__check_sizes(self->ndim, shape) < 0) return NULL;
    wk_tensor *w = wk__nn_work(self->ndim, shape);
    if (!w) return NULL;
    int64_t P = isz ? wk__numel(self) / isz : 0;
    if (P * isz == 0 || wk__numel(w) == 0) return wk__nn_finish(w, self->dtype);
    double *x = wk__nn_load(self);
    int64_t *ix = x ? wk__nn_load_index(indices) : NULL;
    if (!ix) {
        free(x);
        wk_release(w);
        return NULL;
    }
    double *o = wk__nn_data(w);
    bool bad = false;
    int64_t bad_ix = 0;
    for (int64_t p = 0; p < P; p++)
        for (int64_t i = 0; i < isz; i++) {
            int64_t m = ix[p * isz + i];
            if (m < 0 || m >= osz) bad = true, bad_ix = m;
            else o[p * osz + m] = x[p * isz + i];
        }
    free(x);
    free(ix);
    if (bad) {
        wk_release(w);
        if (nd == 2)
            return WK_FAIL(WK_RUNTIME_ERROR, "Found an invalid max index: %lld (output volumes are of size %lldx%lld)",
                           (long long)bad_ix, (long long)output_size.data[0], (long long)output_size.data[1]);
        return WK_FAIL(WK_RUNTIME_ERROR, "Found an invalid max index: %lld (output volumes are of size %lldx%lldx%lld)",
                       (long long)bad_ix, (long long)output_size.data[0], (long long)output_size.data[1],
                       (long long)output_size.data[2]);
    }
    return wk__nn_finish(w, self->dtype);
}

wk_tensor *wk_impl_max_unpool2d(wk_tensor *self, wk_tensor *indices, wk_intlist output_size) {
    return max_unpool(self, indices, output_size, 2, NULL, NULL);
}

wk_tensor *wk_impl_max_unpool3d(wk_tensor *self, wk_tensor *indices, wk_intlist output_size, wk_intlist stride,
                                wk_intlist padding) {
    return max_unpool(self, indices, output_size, 3, &stride, &padding);
}

/* torch's max_pool_double_backward: grad.flatten(-nd).gather(-1, indices.flatten(-nd)); an index outside the
 * (flattened) output raises gather's error, which only an empty output lets through the forward */
wk_tensor *wk_impl__nn_unpool_backward(wk_tensor *grad, wk_tensor *indices, int64_t nd) {
    int64_t osz = wk__prod(grad->sizes + grad->ndim - nd, (int)nd);
    int64_t n = wk__numel(indices);
    if (n > 0) {
        int64_t *ix = wk__nn_load_index(indices);
        if (!ix) return NULL;
        for (int64_t i = 0; i < n; i++)
            if (ix[i] < 0 || ix[i] >= osz) {
                int64_t bad = ix[i];
                free(ix);
                return WK_FAIL(WK_RUNTIME_ERROR, "index %lld is out of bounds for dimension %d with size %lld",
                               (long long)bad, (int)(indices->ndim - nd), (long long)osz);
            }
        free(ix);
    }
    return wk_impl__nn_pool_gather(grad, indices, nd);
}

/* ---- pdist --------------------------------------------------------------------------------------------------------
 * the p-norm distance of every pair of rows i < j, in row-major pair order; accumulated in double */
wk_tensor *wk_impl_pdist(wk_tensor *input, double p) {
    if (input->ndim != 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "pdist only supports 2D tensors, got: %dD", input->ndim);
    if (!wk_dtype_is_floating(input->dtype))
        return WK_FAIL(WK_RUNTIME_ERROR, "pdist only supports floating-point dtypes");
    if (!(p >= 0)) return WK_FAIL(WK_RUNTIME_ERROR, "pdist only supports non-negative p values");
    wk_tensor *c = wk_contiguous(input);
    if (!c) return NULL;
    wk_tensor *r = wk__pdist_forward(c, p);
    wk_release(c);
    return r;
}

static double pdist_term(double d, double p, double acc) {
    d = fabs(d);
    if (p == 0) return acc + (d != 0);
    if (p == 1) return acc + d;
    if (p == 2) return acc + d * d;
    if (isinf(p)) return d > acc ? d : acc;
    return acc + pow(d, p);
}

wk_tensor *wk_impl__pdist_forward(wk_tensor *self, double p) {
    if (self->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "pdist only supports 2D tensors, got: %dD", self->ndim);
    if (!(p >= 0)) return WK_FAIL(WK_RUNTIME_ERROR, "pdist only supports non-negative p values");
    if (self->dtype != WK_FLOAT32 && self->dtype != WK_FLOAT64) {
        wk__not_implemented_for("pdist", self->dtype);
        return NULL;
    }
    int64_t n = self->sizes[0], m = self->sizes[1], np = n > 1 ? n * (n - 1) / 2 : 0;
    wk_tensor *w = wk__nn_work(1, &np);
    if (!w || np == 0) return w ? wk__nn_finish(w, self->dtype) : NULL;
    double *x = wk__nn_load(self);
    if (!x) {
        wk_release(w);
        return NULL;
    }
    double *o = wk__nn_data(w);
    bool f32 = self->dtype == WK_FLOAT32;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++, k++) {
            double acc = 0;
            for (int64_t c = 0; c < m; c++) {
                double d = x[i * m + c] - x[j * m + c];
                acc = pdist_term(f32 ? (double)(float)d : d, p, acc); /* the difference rounds as torch's */
            }
            o[k] = p == 2 ? sqrt(acc) : (p == 0 || p == 1 || isinf(p)) ? acc : pow(acc, 1.0 / p);
        }
    free(x);
    return wk__nn_finish(w, self->dtype);
}

wk_tensor *wk_impl__pdist_backward(wk_tensor *grad, wk_tensor *self, double p, wk_tensor *pdist) {
    int64_t n = self->sizes[0], m = self->sizes[1];
    wk_tensor *w = wk__nn_work(2, self->sizes);
    if (!w) return NULL;
    if (n <= 1 || m == 0 || p == 0) return wk__nn_finish(w, self->dtype);
    double *x = wk__nn_load(self), *g = x ? wk__nn_load(grad) : NULL, *D = g ? wk__nn_load(pdist) : NULL;
    if (!D) {
        free(x);
        free(g);
        wk_release(w);
        return NULL;
    }
    double *O = wk__nn_data(w);
    bool f32 = self->dtype == WK_FLOAT32;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++, k++) {
            double gd = g[k], dist = D[k];
            for (int64_t c = 0; c < m; c++) {
                double diff = x[i * m + c] - x[j * m + c], v;
                if (f32) diff = (double)(float)diff;
                double s = (diff > 0) - (diff < 0);
                if (p == 1) v = gd * s;
                else if (p < 2) v = (dist == 0 || (diff == 0 && p < 1)) ? 0 : s * pow(fabs(diff), p - 1) * gd / pow(dist, p - 1);
                else if (p == 2) v = dist == 0 ? 0 : gd * diff / dist;
                else if (isinf(p)) v = gd * s * (fabs(diff) == dist);
                else v = dist == 0 ? 0 : diff * pow(fabs(diff), p - 2) * gd / pow(dist, p - 1);
                O[i * m + c] += v;
                O[j * m + c] -= v;
            }
        }
    free(x);
    free(g);
    free(D);
    return wk__nn_finish(w, self->dtype);
}
