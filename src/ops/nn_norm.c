/* nn_norm.c — batch, layer, group and instance normalisation: fused forward (statistics + affine) and backward
 * kernels on float64 working buffers (Note [nn working precision]).
 *
 * Every one of them normalises "rows": batch norm a channel over [N, spatial] (strided rows), layer norm the
 * trailing normalized_shape block, group norm a (sample, group) block. The backward of a row with M elements,
 * xhat = (x - mean) * rstd and gy = grad * weight (per element's channel) is
 *   grad_input = rstd / M * (M * gy - sum(gy) - xhat * sum(gy * xhat))          (statistics from the input)
 *   grad_input = gy * rstd                                                      (running statistics: eval)
 * grad_weight and grad_bias are sums of grad * xhat and grad per channel / element of normalized_shape.
 * Layer norm's double backward is composed of recorded ops (_nn_layer_norm_double_backward); batch and group norm's
 * is not implemented (a clear NotImplementedError; see ops/nn_norm.def). */
#include "ops/nn.h"
#include "ops/reduce.h" /* wk_cpool: composing recorded ops */

/* running statistics are updated in place without a version bump, as torch does */
static int store_into(wk_tensor *dst, const double *v, int64_t n) {
    wk_tensor *src = wk__empty(dst->ndim, dst->sizes, WK_FLOAT64); /* contiguous, n elements */
    if (!src) return -1;
    if (n) memcpy(wk__data(src), v, sizeof(double) * (size_t)n);
    int rc = wk__copy_(dst, src);
    wk_release(src);
    return rc;
}

/* ---- batch norm: input [N, C, *] ---- */
static int bn_check(const wk_tensor *input, const wk_tensor *weight, const wk_tensor *bias, const wk_tensor *rm,
                    const wk_tensor *rv, bool training) {
    if (input->ndim < 2) {
        wk__error(WK_INDEX_ERROR, "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                  input->ndim ? input->ndim : 1, input->ndim ? input->ndim - 1 : 0);
        return -1;
    }
    int64_t C = input->sizes[1];
    const wk_tensor *ts[4] = {rm, rv, weight, bias};
    const char *names[4] = {"running_mean", "running_var", "weight", "bias"};
    for (int i = 0; i < 4; i++)
        if (ts[i] && wk__numel(ts[i]) != C) {
            wk__error(WK_RUNTIME_ERROR, "%s should contain %lld elements not %lld", names[i], (long long)C,
                      (long long)wk__numel(ts[i]));
            return -1;
        }
    if (!training && (!rm || !rv)) {
        wk__error(WK_RUNTIME_ERROR, "running_%s must be defined in evaluation mode", !rm ? "mean" : "var");
        return -1;
    }
    if (!wk_dtype_is_floating(input->dtype)) {
        wk__not_implemented_for("batch_norm", input->dtype);
        return -1;
    }
    return 0;
}

typedef struct {
    int64_t N, C, S; /* input viewed as [N, C, S] */
} bn_geom;

static bn_geom bn_geometry(const wk_tensor *input) {
    bn_geom g = {input->sizes[0], input->sizes[1], wk__prod(input->sizes + 2, input->ndim - 2)};
    return g;
}

/* The statistics type: float32 for reduced-precision input, else the input's. */
static wk_dtype stat_dtype(wk_dtype dt) { return (dt == WK_FLOAT16 || dt == WK_BFLOAT16) ? WK_FLOAT32 : dt; }

int wk_impl_native_batch_norm(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_tensor *running_mean,
                              wk_tensor *running_var, bool training, double momentum, double eps, wk_tensor **outs) {
    if (bn_check(input, weight, bias, running_mean, running_var, training) < 0) return -1;
    bn_geom g = bn_geometry(input);
    int64_t M = g.N * g.S;
    double *x = wk__nn_load(input), *w = weight ? wk__nn_load(weight) : NULL, *b = bias ? wk__nn_load(bias) : NULL;
    double *rm = running_mean ? wk__nn_load(running_mean) : NULL, *rv = running_var ? wk__nn_load(running_var) : NULL;
    double *mean = wk__calloc((size_t)(g.C ? g.C : 1), sizeof(double)), *inv = wk__calloc((size_t)(g.C ? g.C : 1), sizeof(double));
    wk_tensor *out = wk__nn_work(input->ndim, input->sizes);
    int rc = -1;
    if (!x || !mean || !inv || !out || (weight && !w) || (bias && !b) || (running_mean && !rm) || (running_var && !rv))
        goto done;
    for (int64_t c = 0; c < g.C; c++) {
        if (training) {
            double s = 0, ss = 0;
            for (int64_t n = 0; n < g.N; n++)
                for (int64_t i = 0; i < g.S; i++) s += x[(n * g.C + c) * g.S + i];
            double mu = M ? s / (double)M : NAN;
            for (int64_t n = 0; n < g.N; n++)
                for (int64_t i = 0; i < g.S; i++) {
                    double d = x[(n * g.C + c) * g.S + i] - mu;
                    ss += d * d;
                }
            double var = M ? ss / (double)M : NAN;
            mean[c] = mu;
            inv[c] = 1 / sqrt(var + eps);
            if (rm) rm[c] = momentum * mu + (1 - momentum) * rm[c];
            if (rv) rv[c] = momentum * (ss / (double)(M - 1)) + (1 - momentum) * rv[c];
        } else {
            mean[c] = rm[c];
            inv[c] = 1 / sqrt(rv[c] + eps);
        }
    }
    double *o = wk__nn_data(out);
    for (int64_t n = 0; n < g.N; n++)
        for (int64_t c = 0; c < g.C; c++) {
            double a = inv[c] * (w ? w[c] : 1);
            for (int64_t i = 0; i < g.S; i++) {
                int64_t k = (n * g.C + c) * g.S + i;
                o[k] = (x[k] - mean[c]) * a + (b ? b[c] : 0);
            }
        }
    if (training && rm && store_into(running_mean, rm, g.C) < 0) goto done;
    if (training && rv && store_into(running_var, rv, g.C) < 0) goto done;
    wk_dtype sd = stat_dtype(input->dtype);
    int64_t cs[1] = {training ? g.C : 0};
    wk_tensor *sm = wk__nn_work(1, cs), *si = wk__nn_work(1, cs);
    if (sm && si && training && g.C > 0) {
        memcpy(wk__nn_data(sm), mean, sizeof(double) * (size_t)g.C);
        memcpy(wk__nn_data(si), inv, sizeof(double) * (size_t)g.C);
    }
    outs[0] = wk__nn_finish(out, input->dtype);
    out = NULL;
    outs[1] = wk__nn_finish(sm, sd);
    outs[2] = wk__nn_finish(si, sd);
    if (!outs[0] || !outs[1] || !outs[2]) {
        for (int i = 0; i < 3; i++) {
            wk_release(outs[i]);
            outs[i] = NULL;
        }
        goto done;
    }
    rc = 0;
done:
    wk_release(out);
    free(x), free(w), free(b), free(rm), free(rv), free(mean), free(inv);
    return rc;
}

/* which: 0 grad_input, 1 grad_weight, 2 grad_bias */
wk_tensor *wk_impl__nn_batch_norm_backward(wk_tensor *grad_out, wk_tensor *input, wk_tensor *weight,
                                           wk_tensor *running_mean, wk_tensor *running_var, wk_tensor *save_mean,
                                           wk_tensor *save_invstd, bool train, double eps, int64_t which) {
    if (bn_check(input, weight, NULL, running_mean, running_var, train) < 0) return NULL;
    bn_geom g = bn_geometry(input);
    int64_t M = g.N * g.S;
    double *x = wk__nn_load(input), *gy = wk__nn_load(grad_out), *w = weight ? wk__nn_load(weight) : NULL;
    double *mean = NULL, *inv = NULL;
    wk_tensor *out = NULL;
    if (!x || !gy || (weight && !w)) goto done;
    if (train) {
        if (!save_mean || !save_invstd || wk__numel(save_mean) != g.C || wk__numel(save_invstd) != g.C) {
            wk__error(WK_RUNTIME_ERROR, "batch_norm backward: missing saved statistics");
            goto done;
        }
        mean = wk__nn_load(save_mean);
        inv = wk__nn_load(save_invstd);
    } else {
        mean = wk__nn_load(running_mean);
        inv = wk__nn_load(running_var);
        if (inv)
            for (int64_t c = 0; c < g.C; c++) inv[c] = 1 / sqrt(inv[c] + eps);
    }
    if (!mean || !inv) goto done;
    if (which == 0) out = wk__nn_work(input->ndim, input->sizes);
    else {
        int64_t cs[1] = {g.C};
        out = wk__nn_work(1, cs);
    }
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t c = 0; c < g.C; c++) {
        double sg = 0, sgx = 0; /* sum(grad), sum(grad * xhat) */
        for (int64_t n = 0; n < g.N; n++)
            for (int64_t i = 0; i < g.S; i++) {
                int64_t k = (n * g.C + c) * g.S + i;
                sg += gy[k];
                sgx += gy[k] * (x[k] - mean[c]) * inv[c];
            }
        if (which == 1) o[c] = sgx;
        else if (which == 2) o[c] = sg;
        else {
            double wc = w ? w[c] : 1;
            for (int64_t n = 0; n < g.N; n++)
                for (int64_t i = 0; i < g.S; i++) {
                    int64_t k = (n * g.C + c) * g.S + i;
                    if (train) {
                        double xh = (x[k] - mean[c]) * inv[c];
                        o[k] = wc * inv[c] / (double)M * ((double)M * gy[k] - sg - xh * sgx);
                    } else {
                        o[k] = gy[k] * wc * inv[c];
                    }
                }
        }
    }
done:
    free(x), free(gy), free(w), free(mean), free(inv);
    wk_dtype dt = which == 0 ? input->dtype : (weight ? weight->dtype : input->dtype);
    return wk__nn_finish(out, dt);
}

wk_tensor *wk_impl_batch_norm(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_tensor *running_mean,
                              wk_tensor *running_var, bool training, double momentum, double eps, bool cudnn_enabled) {
    WK_UNUSED(cudnn_enabled);
    wk_tensor *outs[3] = {0};
    if (wk_native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, outs) < 0)
        return NULL;
    wk_release(outs[1]);
    wk_release(outs[2]);
    return outs[0];
}

/* ---- layer norm: input [M, N] around the trailing normalized_shape ---- */
static int ln_check(const wk_tensor *input, wk_intlist ns, const wk_tensor *weight, const wk_tensor *bias,
                    int64_t *M, int64_t *N) {
    if (ns.len < 1) {
        wk__error(WK_RUNTIME_ERROR,
                  "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
                  "got normalized_shape = []");
        return -1;
    }
    wk_strbuf a = {0}, b = {0};
    wk_sb_ints(&a, ns.data, (int)ns.len);
    const wk_tensor *wb[2] = {weight, bias};
    const char *wn[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++)
        if (wb[i] && (wb[i]->ndim != ns.len || memcmp(wb[i]->sizes, ns.data, sizeof(int64_t) * (size_t)ns.len))) {
            wk_sb_ints(&b, wb[i]->sizes, wb[i]->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "Expected %s to be of same shape as normalized_shape, but got %s of shape %s and normalized_shape "
                      "= %s",
                      wn[i], wn[i], b.s, a.s);
            goto fail;
        }
    int axis = input->ndim - (int)ns.len;
    if (axis < 0 || memcmp(input->sizes + axis, ns.data, sizeof(int64_t) * (size_t)ns.len)) {
        wk_strbuf c = {0};
        wk_sb_puts(&c, "[*");
        for (int64_t i = 0; i < ns.len; i++) wk_sb_printf(&c, ", %lld", (long long)ns.data[i]);
        wk_sb_puts(&c, "]");
        wk_sb_ints(&b, input->sizes, input->ndim);
        wk__error(WK_RUNTIME_ERROR, "Given normalized_shape=%s, expected input with shape %s, but got input of size%s",
                  a.s, c.s, b.s);
        wk_sb_free(&c);
        goto fail;
    }
    if (!wk_dtype_is_floating(input->dtype)) {
        wk__not_implemented_for("LayerNormKernelImpl", input->dtype);
        goto fail;
    }
    *M = wk__prod(input->sizes, axis);
    *N = wk__prod(input->sizes + axis, (int)ns.len);
    wk_sb_free(&a);
    wk_sb_free(&b);
    return 0;
fail:
    wk_sb_free(&a);
    wk_sb_free(&b);
    return -1;
}

int wk_impl_native_layer_norm(wk_tensor *input, wk_intlist normalized_shape, wk_tensor *weight, wk_tensor *bias,
                              double eps, wk_tensor **outs) {
    int64_t M, N;
    if (ln_check(input, normalized_shape, weight, bias, &M, &N) < 0) return -1;
    double *x = wk__nn_load(input), *w = weight ? wk__nn_load(weight) : NULL, *b = bias ? wk__nn_load(bias) : NULL;
    int axis = input->ndim - (int)normalized_shape.len;
    int64_t ssz[WK_MAX_DIM];
    memcpy(ssz, input->sizes, sizeof(int64_t) * (size_t)axis);
    for (int i = axis; i < input->ndim; i++) ssz[i] = 1;
    wk_tensor *out = wk__nn_work(input->ndim, input->sizes), *mt = wk__nn_work(input->ndim, ssz),
              *rt = wk__nn_work(input->ndim, ssz);
    int rc = -1;
    if (!x || !out || !mt || !rt || (weight && !w) || (bias && !b)) goto done;
    double *o = wk__nn_data(out), *mp = wk__nn_data(mt), *rp = wk__nn_data(rt);
    for (int64_t m = 0; m < M; m++) {
        const double *xr = x + m * N;
        double s = 0, ss = 0;
        for (int64_t j = 0; j < N; j++) s += xr[j];
        double mu = s / (double)N;
        for (int64_t j = 0; j < N; j++) ss += (xr[j] - mu) * (xr[j] - mu);
        double r = 1 / sqrt(ss / (double)N + eps);
        mp[m] = mu;
        rp[m] = r;
        for (int64_t j = 0; j < N; j++) o[m * N + j] = (xr[j] - mu) * r * (w ? w[j] : 1) + (b ? b[j] : 0);
    }
    wk_dtype sd = stat_dtype(input->dtype);
    if (input->dtype == WK_FLOAT16 || input->dtype == WK_BFLOAT16) sd = input->dtype;
    outs[0] = wk__nn_finish(out, input->dtype);
    outs[1] = wk__nn_finish(mt, sd);
    outs[2] = wk__nn_finish(rt, sd);
    out = mt = rt = NULL;
    if (!outs[0] || !outs[1] || !outs[2]) {
        for (int i = 0; i < 3; i++) {
            wk_release(outs[i]);
            outs[i] = NULL;
        }
        goto done;
    }
    rc = 0;
done:
    wk_release(out), wk_release(mt), wk_release(rt);
    free(x), free(w), free(b);
    return rc;
}

wk_tensor *wk_impl__nn_layer_norm_backward(wk_tensor *grad_out, wk_tensor *input, wk_intlist normalized_shape,
                                           wk_tensor *mean, wk_tensor *rstd, wk_tensor *weight, int64_t which) {
    int64_t M, N;
    if (ln_check(input, normalized_shape, weight, NULL, &M, &N) < 0) return NULL;
    double *x = wk__nn_load(input), *gy = wk__nn_load(grad_out), *w = weight ? wk__nn_load(weight) : NULL;
    double *mu = wk__nn_load(mean), *rs = wk__nn_load(rstd);
    wk_tensor *out = NULL;
    if (!x || !gy || !mu || !rs || (weight && !w)) goto done;
    if (which == 0) out = wk__nn_work(input->ndim, input->sizes);
    else out = wk__nn_work((int)normalized_shape.len, normalized_shape.data);
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t m = 0; m < M; m++) {
        const double *xr = x + m * N, *gr = gy + m * N;
        if (which == 0) {
            double sg = 0, sgx = 0;
            for (int64_t j = 0; j < N; j++) {
                double g = gr[j] * (w ? w[j] : 1), xh = (xr[j] - mu[m]) * rs[m];
                sg += g;
                sgx += g * xh;
            }
            for (int64_t j = 0; j < N; j++) {
                double g = gr[j] * (w ? w[j] : 1), xh = (xr[j] - mu[m]) * rs[m];
                o[m * N + j] = rs[m] / (double)N * ((double)N * g - sg - xh * sgx);
            }
        } else {
            for (int64_t j = 0; j < N; j++) o[j] += which == 1 ? gr[j] * (xr[j] - mu[m]) * rs[m] : gr[j];
        }
    }
done:
    free(x), free(gy), free(w), free(mu), free(rs);
    return wk__nn_finish(out, which == 0 ? input->dtype : (weight ? weight->dtype : input->dtype));
}

/* Double backward of layer norm, as recorded ops. Per row (the trailing normalized_shape block, N elements), with
 * xh = (input - mean) * rstd, g = grad_out * weight, <v> the row mean of v, and gg the incoming gradient:
 *   which 0 (gI = rstd * (g - <g> - xh <g xh>)):
 *     d/dgrad_out = weight * rstd * (gg - <gg> - xh <gg xh>)           d/dweight = grad_out * rstd * (same bracket)
 *     d/dinput = -rstd^2 * (xh (<gg g> - <g><gg> - 3 <g xh><gg xh>) + <gg xh> (g - <g>) + <g xh> (gg - <gg>))
 *   which 1 (gW = sum over rows of grad_out * xh): d/dgrad_out = gg * xh; d/dinput = rstd * (c - <c> - xh <c xh>),
 *     c = gg * grad_out
 *   which 2 (gB = sum over rows of grad_out): d/dgrad_out = gg expanded
 * (mean and rstd are the forward's saved statistics, constants here as in torch.) Results broadcast against the
 * input's shape; the engine sums them to weight's. */
wk_tensor *wk_impl__nn_layer_norm_double_backward(wk_tensor *gg, wk_tensor *grad_out, wk_tensor *input,
                                                  wk_intlist normalized_shape, wk_tensor *mean, wk_tensor *rstd,
                                                  wk_tensor *weight, int64_t which, int64_t wrt) {
    wk_cpool pool = {0};
    if (which == 2) return wk_cpool_end(&pool, P_(wk_expand_as(gg, grad_out)));
    int64_t dims[WK_MAX_DIM]; /* the normalized (trailing) dims */
    int64_t k = (int64_t)normalized_shape.len;
    for (int64_t i = 0; i < k; i++) dims[i] = input->ndim - k + i;
    wk_intlist nd = wk_ints(dims, k);
#define ROWMEAN(t) P_(wk_mean_dim((t), nd, true, WK_DTYPE_NONE))
    wk_tensor *xh = P_(wk_mul(P_(wk_sub(input, mean, wk_int(1))), rstd));
    wk_tensor *r = NULL;
    if (which == 1) {
        if (wrt == 0) {
            r = P_(wk_mul(gg, xh));
        } else {
            wk_tensor *c = P_(wk_mul(gg, grad_out));
            wk_tensor *br = P_(wk_sub(P_(wk_sub(c, ROWMEAN(c), wk_int(1))), P_(wk_mul(xh, ROWMEAN(P_(wk_mul(c, xh))))),
                                      wk_int(1)));
            r = P_(wk_mul(rstd, br));
        }
        return wk_cpool_end(&pool, r);
    }
    if (wrt != 1) {
        /* P(gg) = gg - <gg> - xh <gg xh> */
        wk_tensor *pg = P_(wk_sub(P_(wk_sub(gg, ROWMEAN(gg), wk_int(1))), P_(wk_mul(xh, ROWMEAN(P_(wk_mul(gg, xh))))),
                                  wk_int(1)));
        wk_tensor *rp = P_(wk_mul(rstd, pg));
        r = wrt == 0 ? (weight ? P_(wk_mul(rp, weight)) : rp) : P_(wk_mul(rp, grad_out));
        return wk_cpool_end(&pool, r);
    }
    wk_tensor *g = weight ? P_(wk_mul(grad_out, weight)) : grad_out;
    wk_tensor *mg = ROWMEAN(g), *ma = ROWMEAN(gg);
    wk_tensor *mgx = ROWMEAN(P_(wk_mul(g, xh))), *max = ROWMEAN(P_(wk_mul(gg, xh)));
    wk_tensor *mag = ROWMEAN(P_(wk_mul(gg, g)));
    /* coef = <gg g> - <g><gg> - 3 <g xh><gg xh> */
    wk_tensor *coef = P_(wk_sub(P_(wk_sub(mag, P_(wk_mul(mg, ma)), wk_int(1))), P_(wk_mul(mgx, max)), wk_int(3)));
    wk_tensor *t = P_(wk_mul(xh, coef));
    t = P_(wk_add(t, P_(wk_mul(max, P_(wk_sub(g, mg, wk_int(1))))), wk_int(1)));
    t = P_(wk_add(t, P_(wk_mul(mgx, P_(wk_sub(gg, ma, wk_int(1))))), wk_int(1)));
    r = P_(wk_mul(P_(wk_neg(P_(wk_mul(rstd, rstd)))), t));
#undef ROWMEAN
    return wk_cpool_end(&pool, r);
}

wk_tensor *wk_impl_layer_norm(wk_tensor *input, wk_intlist normalized_shape, wk_tensor *weight, wk_tensor *bias,
                              double eps, bool cudnn_enable) {
    WK_UNUSED(cudnn_enable);
    wk_tensor *outs[3] = {0};
    if (wk_native_layer_norm(input, normalized_shape, weight, bias, eps, outs) < 0) return NULL;
    wk_release(outs[1]);
    wk_release(outs[2]);
    return outs[0];
}

/* ---- group norm: input [N, C, HxW], groups of C / group channels ---- */
static int gn_check(const wk_tensor *input, const wk_tensor *weight, const wk_tensor *bias, int64_t N, int64_t C,
                    int64_t HxW, int64_t group) {
    if (group <= 0) return wk__error(WK_RUNTIME_ERROR, "Expected num groups to be greater than 0, got %lld", (long long)group), -1;
    if (C % group) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, input->sizes, input->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and "
                  "num_groups=%lld",
                  b.s ? b.s : "", (long long)group);
        wk_sb_free(&b);
        return -1;
    }
    const wk_tensor *wb[2] = {weight, bias};
    const char *wn[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++)
        if (wb[i] && !(wb[i]->ndim == 1 && wb[i]->sizes[0] == C)) {
            wk_strbuf a = {0}, b = {0};
            wk_sb_ints(&a, wb[i]->sizes, wb[i]->ndim);
            wk_sb_ints(&b, input->sizes, input->ndim);
            wk__error(WK_RUNTIME_ERROR,
                      "Expected %s to be a vector of size equal to the number of channels in input, but got %s of shape "
                      "%s and input of shape %s",
                      wn[i], wn[i], a.s ? a.s : "", b.s ? b.s : "");
            wk_sb_free(&a);
            wk_sb_free(&b);
            return -1;
        }
    /* torch allocates mean and rstd [N, group] before its kernel checks the element count; that count is checked
     * here without wrapping (torch's N * C * HxW wraps, and a wrapped match would index past the input) */
    int64_t ss[2] = {N, group}, nbytes, want;
    if (wk__check_sizes(2, ss) < 0 || wk__storage_nbytes(2, ss, NULL, 0, wk_dtype_size(input->dtype), &nbytes) < 0)
        return -1;
    if (__builtin_mul_overflow(N, C, &want) || __builtin_mul_overflow(want, HxW, &want) || want != wk__numel(input))
        return wk__error(WK_RUNTIME_ERROR, "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this "
                                           "error message be improved?  If so, please report an enhancement request "
                                           "to PyTorch.)"), -1;
    if (!wk_dtype_is_floating(input->dtype)) {
        wk__not_implemented_for("GroupNormKernelImpl", input->dtype);
        return -1;
    }
    return 0;
}

int wk_impl_native_group_norm(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, int64_t N, int64_t C,
                              int64_t HxW, int64_t group, double eps, wk_tensor **outs) {
    if (gn_check(input, weight, bias, N, C, HxW, group) < 0) return -1;
    int64_t D = C / group * HxW, cpg = C / group;
    double *x = wk__nn_load(input), *w = weight ? wk__nn_load(weight) : NULL, *b = bias ? wk__nn_load(bias) : NULL;
    int64_t ss[2] = {N, group};
    wk_tensor *out = wk__nn_work(input->ndim, input->sizes), *mt = wk__nn_work(2, ss), *rt = wk__nn_work(2, ss);
    int rc = -1;
    if (!x || !out || !mt || !rt || (weight && !w) || (bias && !b)) goto done;
    double *o = wk__nn_data(out), *mp = wk__nn_data(mt), *rp = wk__nn_data(rt);
    for (int64_t ng = 0; ng < N * group; ng++) {
        const double *xr = x + ng * D;
        double s = 0, sq = 0;
        for (int64_t j = 0; j < D; j++) s += xr[j];
        double mu = D ? s / (double)D : NAN;
        for (int64_t j = 0; j < D; j++) sq += (xr[j] - mu) * (xr[j] - mu);
        double r = 1 / sqrt((D ? sq / (double)D : NAN) + eps);
        mp[ng] = mu;
        rp[ng] = r;
        int64_t g0 = ng % group;
        for (int64_t j = 0; j < D; j++) {
            int64_t c = g0 * cpg + j / HxW;
            o[ng * D + j] = (xr[j] - mu) * r * (w ? w[c] : 1) + (b ? b[c] : 0);
        }
    }
    outs[0] = wk__nn_finish(out, input->dtype);
    outs[1] = wk__nn_finish(mt, input->dtype);
    outs[2] = wk__nn_finish(rt, input->dtype);
    out = mt = rt = NULL;
    if (!outs[0] || !outs[1] || !outs[2]) {
        for (int i = 0; i < 3; i++) {
            wk_release(outs[i]);
            outs[i] = NULL;
        }
        goto done;
    }
    rc = 0;
done:
    wk_release(out), wk_release(mt), wk_release(rt);
    free(x), free(w), free(b);
    return rc;
}

wk_tensor *wk_impl__nn_group_norm_backward(wk_tensor *grad_out, wk_tensor *input, wk_tensor *mean, wk_tensor *rstd,
                                           wk_tensor *weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
                                           int64_t which) {
    if (gn_check(input, weight, NULL, N, C, HxW, group) < 0) return NULL;
    int64_t D = C / group * HxW, cpg = C / group;
    double *x = wk__nn_load(input), *gy = wk__nn_load(grad_out), *w = weight ? wk__nn_load(weight) : NULL;
    double *mu = wk__nn_load(mean), *rs = wk__nn_load(rstd);
    wk_tensor *out = NULL;
    if (!x || !gy || !mu || !rs || (weight && !w)) goto done;
    if (which == 0) out = wk__nn_work(input->ndim, input->sizes);
    else {
        int64_t cs[1] = {C};
        out = wk__nn_work(1, cs);
    }
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t ng = 0; ng < N * group; ng++) {
        int64_t g0 = ng % group;
        const double *xr = x + ng * D, *gr = gy + ng * D;
        if (which == 0) {
            double sg = 0, sgx = 0;
            for (int64_t j = 0; j < D; j++) {
                int64_t c = g0 * cpg + j / HxW;
                double g = gr[j] * (w ? w[c] : 1), xh = (xr[j] - mu[ng]) * rs[ng];
                sg += g;
                sgx += g * xh;
            }
            for (int64_t j = 0; j < D; j++) {
                int64_t c = g0 * cpg + j / HxW;
                double g = gr[j] * (w ? w[c] : 1), xh = (xr[j] - mu[ng]) * rs[ng];
                o[ng * D + j] = rs[ng] / (double)D * ((double)D * g - sg - xh * sgx);
            }
        } else {
            for (int64_t j = 0; j < D; j++) {
                int64_t c = g0 * cpg + j / HxW;
                o[c] += which == 1 ? gr[j] * (xr[j] - mu[ng]) * rs[ng] : gr[j];
            }
        }
    }
done:
    free(x), free(gy), free(w), free(mu), free(rs);
    return wk__nn_finish(out, which == 0 ? input->dtype : (weight ? weight->dtype : input->dtype));
}

wk_tensor *wk_impl_group_norm(wk_tensor *input, int64_t num_groups, wk_tensor *weight, wk_tensor *bias, double eps,
                              bool cudnn_enabled) {
    WK_UNUSED(cudnn_enabled);
    if (input->ndim < 2) {
        wk__error(WK_RUNTIME_ERROR, "Expected at least 2 dimensions for input tensor but received %d", input->ndim);
        return NULL;
    }
    int64_t N = input->sizes[0], C = input->sizes[1], HxW = wk__prod(input->sizes + 2, input->ndim - 2);
    if (num_groups <= 0 || C % num_groups) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, input->sizes, input->ndim);
        wk__error(WK_RUNTIME_ERROR,
                  "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and "
                  "num_groups=%lld",
                  b.s ? b.s : "", (long long)num_groups);
        wk_sb_free(&b);
        return NULL;
    }
    wk_tensor *x = wk_contiguous(input);
    if (!x) return NULL;
    wk_tensor *outs[3] = {0};
    int rc = wk_native_group_norm(x, weight, bias, N, C, HxW, num_groups, eps, outs);
    wk_release(x);
    if (rc < 0) return NULL;
    wk_release(outs[1]);
    wk_release(outs[2]);
    return outs[0];
}

/* ---- instance norm: batch norm over [1, N * C, *] ---- */
/* t [C] -> [b * C] (the parameter repeated per sample); its backward sums the copies */
wk_tensor *wk_impl__nn_repeat_channels(wk_tensor *t, int64_t b) {
    int64_t C = wk__numel(t), sz[1] = {b * C};
    wk_tensor *out = wk__empty(1, sz, t->dtype);
    if (!out) return NULL;
    wk_tensor *c = wk__contiguous(t);
    if (!c) {
        wk_release(out);
        return NULL;
    }
    size_t es = wk_dtype_size(t->dtype);
    if (C > 0)
        for (int64_t i = 0; i < b; i++) memcpy(wk__data(out) + (size_t)(i * C) * es, wk__data(c), (size_t)C * es);
    wk_release(c);
    return out;
}
wk_tensor *wk_impl__nn_sum_repeats(wk_tensor *grad, int64_t b) {
    int64_t C = b ? wk__numel(grad) / b : 0, sz[2] = {b, C}, d = 0;
    wk_tensor *v = wk_impl_reshape(grad, wk_ints(sz, 2));
    if (!v) return NULL;
    wk_tensor *r = wk_impl_sum_dim(v, wk_ints(&d, 1), false, WK_DTYPE_NONE);
    wk_release(v);
    return r;
}

wk_tensor *wk_impl_instance_norm(wk_tensor *input, wk_tensor *weight, wk_tensor *bias, wk_tensor *running_mean,
                                 wk_tensor *running_var, bool use_input_stats, double momentum, double eps,
                                 bool cudnn_enabled) {
    WK_UNUSED(cudnn_enabled);
    if (!use_input_stats && (!running_mean || !running_var))
        return WK_FAIL(WK_RUNTIME_ERROR, "Expected running_mean and running_var to be defined when use_input_stats is false");
    if (input->ndim < 2) {
        wk__error(WK_INDEX_ERROR, "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                  input->ndim ? input->ndim : 1, input->ndim ? input->ndim - 1 : 0);
        return NULL;
    }
    int64_t b = input->sizes[0], c = input->sizes[1];
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
    shape[0] = 1;
    shape[1] = b * c;
    wk_tensor *w = weight ? wk__nn_repeat_channels(weight, b) : NULL, *bb = bias ? wk__nn_repeat_channels(bias, b) : NULL;
    wk_tensor *rm = running_mean ? wk_impl__nn_repeat_channels(running_mean, b) : NULL;
    wk_tensor *rv = running_var ? wk_impl__nn_repeat_channels(running_var, b) : NULL;
    wk_tensor *xc = NULL, *xv = NULL, *out = NULL, *r = NULL;
    if ((weight && !w) || (bias && !bb) || (running_mean && !rm) || (running_var && !rv)) goto done;
    xc = wk_contiguous(input);
    xv = xc ? wk_view(xc, wk_ints(shape, input->ndim)) : NULL;
    out = xv ? wk_batch_norm(xv, w, bb, rm, rv, use_input_stats, momentum, eps, false) : NULL;
    if (!out) goto done;
    /* running stats: the mean over the batch of the per-sample copies */
    wk_tensor *rs[2] = {running_mean, running_var}, *rr[2] = {rm, rv};
    for (int i = 0; i < 2; i++) {
        if (!rs[i] || !use_input_stats) continue;
        int64_t sz[2] = {b, c}, d0 = 0;
        wk_tensor *v = wk_impl_reshape(rr[i], wk_ints(sz, 2));
        wk_tensor *s = v ? wk_impl_mean_dim(v, wk_ints(&d0, 1), false, WK_DTYPE_NONE) : NULL;
        wk_release(v);
        if (!s) goto done;
        int rc = wk__copy_(rs[i], s);
        wk_release(s);
        if (rc < 0) goto done;
    }
    r = wk_view(out, wk_ints(input->sizes, input->ndim));
done:
    wk_release(w), wk_release(bb), wk_release(rm), wk_release(rv), wk_release(xc), wk_release(xv), wk_release(out);
    return r;
}
