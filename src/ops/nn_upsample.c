/* nn_upsample.c — interpolation over 1-3 spatial dims: nearest, nearest-exact, (bi/tri)linear, bicubic, with
 * align_corners and scale factors, forward and backward. Each spatial dim gets a table of taps per output index
 * (source index, weight): 1 tap for nearest, 2 for linear, 4 for cubic. The output is the weighted sum over the
 * product of the dims' taps; the backward scatters through the same taps.
 * Source positions follow torch's area_pixel_compute_source_index / nearest_idx, computed in the input's opmath
 * type (float for float32/16, double for float64) so indices and weights round as torch's do. */
#include "ops/nn.h"

#include <stdio.h>

enum { UP_NEAREST = 0, UP_NEAREST_EXACT = 1, UP_LINEAR = 2, UP_CUBIC = 3 };

typedef struct {
    int nd;
    int64_t P;                 /* planes: N * C */
    int64_t in[3], out[3];
    int ntap;                  /* taps per output index */
    int64_t *idx[3];           /* [out[j] * ntap] source indices */
    double *w[3];              /* [out[j] * ntap] weights */
    void *block;
} up_taps;

static void taps_free(up_taps *t) { free(t->block); }

static double cubic1(double x, double A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
static double cubic2(double x, double A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }

/* scale (source units per output unit) for linear/cubic: area_pixel_compute_scale */
static double area_scale(int64_t in, int64_t out, bool align_corners, wk_optfloat scale, bool f32) {
    if (align_corners) {
        if (out > 1) return f32 ? (double)((float)(in - 1) / (float)(out - 1)) : (double)(in - 1) / (double)(out - 1);
        return 0;
    }
    if (scale.has && scale.v > 0) return f32 ? (double)(1.0f / (float)scale.v) : 1.0 / scale.v;
    return f32 ? (double)((float)in / (float)out) : (double)in / (double)out;
}

static int taps_build(up_taps *T, int mode, bool align_corners, const wk_optfloat *scales, bool f32) {
    T->ntap = mode == UP_LINEAR ? 2 : (mode == UP_CUBIC ? 4 : 1);
    size_t total = 0;
    for (int j = 0; j < T->nd; j++) total += (size_t)(T->out[j] * T->ntap);
    T->block = wk__malloc((sizeof(int64_t) + sizeof(double)) * (total ? total : 1));
    if (!T->block) return -1;
    int64_t *ip = T->block;
    double *wp = (double *)(ip + total);
    for (int j = 0; j < T->nd; j++) {
        int64_t in = T->in[j], out = T->out[j];
        T->idx[j] = ip;
        T->w[j] = wp;
        for (int64_t o = 0; o < out; o++) {
            int64_t *IX = ip + o * T->ntap;
            double *W = wp + o * T->ntap;
            if (mode == UP_NEAREST || mode == UP_NEAREST_EXACT) {
                int64_t s;
                if (mode == UP_NEAREST && out == in) s = o;
                else if (mode == UP_NEAREST && out == 2 * in) s = o >> 1;
                else {
                    float sc = (scales[j].has && scales[j].v > 0) ? (float)(1.0 / scales[j].v) : (float)in / (float)out;
                    float pos = mode == UP_NEAREST ? floorf((float)o * sc) : floorf(((float)o + 0.5f) * sc);
                    s = (int64_t)pos;
                    if (s > in - 1) s = in - 1;
                }
                IX[0] = s;
                W[0] = 1;
            } else {
                double sc = area_scale(in, out, align_corners, scales[j], f32);
                double src;
                if (align_corners) src = f32 ? (double)((float)sc * (float)o) : sc * (double)o;
                else src = f32 ? (double)((float)sc * ((float)o + 0.5f) - 0.5f) : sc * ((double)o + 0.5) - 0.5;
                if (mode == UP_LINEAR) {
                    if (src < 0) src = 0;
                    int64_t i0 = (int64_t)src;
                    double l1 = src - (double)i0;
                    if (f32) l1 = (double)((float)src - (float)i0);
                    int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
                    IX[0] = i0, IX[1] = i1;
                    W[0] = 1 - l1, W[1] = l1;
                } else {
                    double fl = floor(src), t = src - fl;
                    if (f32) t = (double)((float)src - (float)fl);
                    int64_t i0 = (int64_t)fl;
                    const double A = -0.75;
                    double c[4] = {cubic2(t + 1, A), cubic1(t, A), cubic1(1 - t, A), cubic2(2 - t, A)};
                    for (int k = 0; k < 4; k++) {
                        int64_t s = i0 - 1 + k;
                        IX[k] = s < 0 ? 0 : (s > in - 1 ? in - 1 : s);
                        W[k] = c[k];
                    }
                }
            }
        }
        ip += out * T->ntap;
        wp += out * T->ntap;
    }
    return 0;
}

/* forward: y[p, o...] = sum over taps of prod w * x[p, idx...]; backward (gy given): gx[p, idx...] += prod w * gy */
static void taps_run(const up_taps *T, const double *x, double *y, bool backward) {
    int64_t isz = 1, osz = 1, nt = 1;
    for (int j = 0; j < T->nd; j++) {
        isz *= T->in[j];
        osz *= T->out[j];
        nt *= T->ntap;
    }
    for (int64_t p = 0; p < T->P; p++)
        for (int64_t o = 0; o < osz; o++) {
            int64_t oc[3], rem = o;
            for (int j = T->nd - 1; j >= 0; j--) {
                oc[j] = rem % T->out[j];
                rem /= T->out[j];
            }
            double acc = 0;
            for (int64_t t = 0; t < nt; t++) {
                int64_t tr = t, src = 0;
                double w = 1;
                int tk[3];
                for (int j = T->nd - 1; j >= 0; j--) {
                    tk[j] = (int)(tr % T->ntap);
                    tr /= T->ntap;
                }
                for (int j = 0; j < T->nd; j++) {
                    int64_t k = oc[j] * T->ntap + tk[j];
                    src = src * T->in[j] + T->idx[j][k];
                    w *= T->w[j][k];
                }
                if (backward) y[p * isz + src] += w * x[p * osz + o];
                else acc += w * x[p * isz + src];
            }
            if (!backward) y[p * osz + o] = acc;
        }
}

static const char *mode_name(int mode, int nd) {
    static const char *n[4][3] = {{"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
                                  {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
                                  {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
                                  {"upsample_bicubic1d", "upsample_bicubic2d", "upsample_bicubic3d"}};
    return n[mode][nd - 1];
}

/* output sizes from output_size or scale_factors (torch's upsample::compute_output_size) and the checks */
static int up_sizes(const wk_tensor *input, int nd, wk_intlist output_size, wk_floatlist scale_factors, int mode,
                    up_taps *T, wk_optfloat *scales) {
    memset(T, 0, sizeof *T);
    T->nd = nd;
    bool has_out = output_size.data && output_size.len >= 0, has_sc = scale_factors.data && scale_factors.len >= 0;
    if (has_out && has_sc) return wk__error(WK_RUNTIME_ERROR, "Must specify exactly one of output_size and scale_factors"), -1;
    if (!has_out && !has_sc) return wk__error(WK_RUNTIME_ERROR, "Must specify exactly one of output_size and scale_factors"), -1;
    if (input->ndim != nd + 2) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, input->sizes, input->ndim);
        wk__error(WK_RUNTIME_ERROR, "Expected %dD input, but got a tensor with sizes %s", nd + 2, b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    if ((has_out && output_size.len != nd) || (has_sc && scale_factors.len != nd)) {
        wk__error(WK_RUNTIME_ERROR, "It is expected output_size equals to %d, but got size %lld", nd,
                  (long long)(has_out ? output_size.len : scale_factors.len));
        return -1;
    }
    T->P = input->sizes[0] * input->sizes[1];
    for (int j = 0; j < nd; j++) {
        T->in[j] = input->sizes[j + 2];
        T->out[j] = has_out ? output_size.data[j] : (int64_t)((double)T->in[j] * scale_factors.data[j]);
        scales[j] = has_sc ? wk_somef(scale_factors.data[j]) : wk_none_float();
    }
    bool ok = true;
    for (int j = 0; j < nd; j++) ok &= T->in[j] > 0 && T->out[j] > 0;
    if (ok) {
        int64_t shape[WK_MAX_DIM] = {input->sizes[0], input->sizes[1]};
        for (int j = 0; j < nd; j++) shape[j + 2] = T->out[j];
        if (wk__check_sizes(nd + 2, shape) < 0) return -1;
    }
    if (!ok) {
        static const char *ax[3] = {"D", "H", "W"};
        wk_strbuf b = {0};
        wk_sb_puts(&b, "Input and output sizes should be greater than 0, but got input (");
        for (int j = 0; j < nd; j++) wk_sb_printf(&b, "%s%s: %lld", j ? ", " : "", ax[3 - nd + j], (long long)T->in[j]);
        wk_sb_puts(&b, ") output (");
        for (int j = 0; j < nd; j++) wk_sb_printf(&b, "%s%s: %lld", j ? ", " : "", ax[3 - nd + j], (long long)T->out[j]);
        wk_sb_puts(&b, ")");
        wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "");
        wk_sb_free(&b);
        return -1;
    }
    bool nearest = mode == UP_NEAREST || mode == UP_NEAREST_EXACT;
    if (!wk_dtype_is_floating(input->dtype) && !(nearest && input->dtype == WK_UINT8)) {
        char name[64];
        if (nearest) snprintf(name, sizeof name, "%s_channels_last", mode_name(mode, nd));
        else if (mode == UP_CUBIC) snprintf(name, sizeof name, "compute_indices_weights_cubic");
        else if (nd == 2) snprintf(name, sizeof name, "upsample_bilinear2d_channels_last");
        else snprintf(name, sizeof name, "compute_indices_weights_linear");
        wk__not_implemented_for(name, input->dtype);
        return -1;
    }
    return 0;
}

static wk_tensor *up_forward(wk_tensor *input, int nd, wk_intlist output_size, wk_floatlist scale_factors, int mode,
                             bool align_corners) {
    up_taps T;
    wk_optfloat sc[3];
    if (up_sizes(input, nd, output_size, scale_factors, mode, &T, sc) < 0) return NULL;
    if (taps_build(&T, mode, align_corners, sc, input->dtype != WK_FLOAT64) < 0) return NULL;
    int64_t shape[WK_MAX_DIM] = {input->sizes[0], input->sizes[1]};
    for (int j = 0; j < nd; j++) shape[j + 2] = T.out[j];
    wk_tensor *w = wk__nn_work(nd + 2, shape);
    double *x = w ? wk__nn_load(input) : NULL;
    if (x) taps_run(&T, x, wk__nn_data(w), false);
    else {
        wk_release(w);
        w = NULL;
    }
    free(x);
    taps_free(&T);
    if (w && input->dtype == WK_UINT8) { /* nearest on bytes: values are copied, exact */
        return wk__nn_finish(w, input->dtype);
    }
    return wk__nn_finish(w, input->dtype);
}

/* the backward: grad [N, C, *out] -> [N, C, *input_sizes] */
wk_tensor *wk_impl__nn_upsample_backward(wk_tensor *grad, wk_intlist input_sizes, int64_t mode, bool align_corners,
                                         wk_floatlist scale_factors) {
    int nd = (int)input_sizes.len - 2;
    if (nd < 1 || nd > 3 || grad->ndim != nd + 2 || wk__check_sizes((int)input_sizes.len, input_sizes.data) < 0)
        return wk__error_set() ? NULL : WK_FAIL(WK_RUNTIME_ERROR, "upsample backward: bad sizes");
    up_taps T;
    memset(&T, 0, sizeof T);
    T.nd = nd;
    T.P = input_sizes.data[0] * input_sizes.data[1];
    wk_optfloat sc[3];
    bool has_sc = scale_factors.data && scale_factors.len == nd;
    for (int j = 0; j < nd; j++) {
        T.in[j] = input_sizes.data[j + 2];
        T.out[j] = grad->sizes[j + 2];
        sc[j] = has_sc ? wk_somef(scale_factors.data[j]) : wk_none_float();
    }
    if (taps_build(&T, (int)mode, align_corners, sc, grad->dtype != WK_FLOAT64) < 0) return NULL;
    wk_tensor *w = wk__nn_work(nd + 2, input_sizes.data);
    double *g = w ? wk__nn_load(grad) : NULL;
    if (g) taps_run(&T, g, wk__nn_data(w), true);
    else {
        wk_release(w);
        w = NULL;
    }
    free(g);
    taps_free(&T);
    return wk__nn_finish(w, grad->dtype);
}

/* the adjoint of the backward (its double backward) is the forward with the same geometry */
wk_tensor *wk_impl__nn_upsample_forward(wk_tensor *input, wk_intlist output_size, int64_t mode, bool align_corners,
                                        wk_floatlist scale_factors) {
    int nd = input->ndim - 2;
    if (nd < 1 || nd > 3 || output_size.len != nd) return WK_FAIL(WK_RUNTIME_ERROR, "upsample: bad sizes");
    for (int j = 0; j < nd; j++)
        if (output_size.data[j] <= 0) return WK_FAIL(WK_RUNTIME_ERROR, "upsample: bad sizes");
    up_taps T;
    memset(&T, 0, sizeof T);
    T.nd = nd;
    T.P = input->sizes[0] * input->sizes[1];
    wk_optfloat sc[3];
    bool has_sc = scale_factors.data && scale_factors.len == nd;
    for (int j = 0; j < nd; j++) {
        T.in[j] = input->sizes[j + 2];
        T.out[j] = output_size.data[j];
        sc[j] = has_sc ? wk_somef(scale_factors.data[j]) : wk_none_float();
    }
    if (taps_build(&T, (int)mode, align_corners, sc, input->dtype != WK_FLOAT64) < 0) return NULL;
    int64_t shape[WK_MAX_DIM] = {input->sizes[0], input->sizes[1]};
    for (int j = 0; j < nd; j++) shape[j + 2] = T.out[j];
    wk_tensor *w = wk__nn_work(nd + 2, shape);
    double *x = w ? wk__nn_load(input) : NULL;
    if (x) taps_run(&T, x, wk__nn_data(w), false);
    else {
        wk_release(w);
        w = NULL;
    }
    free(x);
    taps_free(&T);
    return wk__nn_finish(w, input->dtype);
}

#define UP_OPS(NAME, ND, MODE)                                                                                        \
    wk_tensor *wk_impl_##NAME##_vec(wk_tensor *input, wk_intlist output_size, wk_floatlist scale_factors) {          \
        return up_forward(input, ND, output_size, scale_factors, MODE, false);                                       \
    }
#define UP_OPS_AC(NAME, ND, MODE)                                                                                     \
    wk_tensor *wk_impl_##NAME##_vec(wk_tensor *input, wk_intlist output_size, bool align_corners,                    \
                                    wk_floatlist scale_factors) {                                                   \
        return up_forward(input, ND, output_size, scale_factors, MODE, align_corners);                               \
    }
UP_OPS(upsample_nearest1d, 1, UP_NEAREST)
UP_OPS(upsample_nearest2d, 2, UP_NEAREST)
UP_OPS(upsample_nearest3d, 3, UP_NEAREST)
UP_OPS(_upsample_nearest_exact1d, 1, UP_NEAREST_EXACT)
UP_OPS(_upsample_nearest_exact2d, 2, UP_NEAREST_EXACT)
UP_OPS(_upsample_nearest_exact3d, 3, UP_NEAREST_EXACT)
UP_OPS_AC(upsample_linear1d, 1, UP_LINEAR)
UP_OPS_AC(upsample_bilinear2d, 2, UP_LINEAR)
UP_OPS_AC(upsample_trilinear3d, 3, UP_LINEAR)
UP_OPS_AC(upsample_bicubic2d, 2, UP_CUBIC)
