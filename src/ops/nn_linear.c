/* nn_linear.c — addmm (what nn.Linear runs on 2-D input) and linear, the composite that picks addmm / mm / the
 * flattened path exactly as torch's at::linear does, so grad_fn chains match (AddmmBackward0, ViewBackward0 over
 * AddmmBackward0 for N-d contiguous input, UnsafeViewBackward0 over MmBackward0 otherwise); bilinear's core. */
#include "ops/nn.h"

/* torch's at::linear. Shapes: input [*, in], weight [out, in], bias [out] -> [*, out]. */
wk_tensor *wk_impl_linear(wk_tensor *input, wk_tensor *weight, wk_tensor *bias) {
    if (input->ndim == 0 || weight->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR, "both arguments to linear need to be at least 1D, but they are %dD and %dD",
                  input->ndim, weight->ndim);
        return NULL;
    }
    wk_tensor *wt = wk_t(weight);
    if (!wt) return NULL;
    wk_tensor *r = NULL;
    if (input->ndim == 2 && bias) {
        r = wk_addmm(bias, input, wt, wk_int(1), wk_int(1));
    } else if (bias && wk__is_contiguous(input) && bias->ndim == 1) {
        /* _flatten_nd_linear: [prod(sizes[:-1]), in] @ weight.t() + bias, viewed back */
        int nd = input->ndim;
        int64_t flat[2] = {wk__prod(input->sizes, nd - 1), input->sizes[nd - 1]};
        wk_tensor *x2 = wk_reshape(input, wk_ints(flat, 2));
        wk_tensor *y = x2 ? wk_addmm(bias, x2, wt, wk_int(1), wk_int(1)) : NULL;
        if (y) {
            int64_t shape[WK_MAX_DIM];
            memcpy(shape, input->sizes, sizeof(int64_t) * (size_t)(nd - 1));
            shape[nd - 1] = y->sizes[1];
            r = wk_view(y, wk_ints(shape, nd));
        }
        wk_release(x2);
        wk_release(y);
    } else { /* matmul(input, weight.t()), then bias added in place (a 1-d weight makes it an mv or a dot) */
        r = wk_matmul(input, wt);
        if (r && bias && !wk_add_(r, bias, wk_int(1))) {
            wk_release(r);
            r = NULL;
        }
    }
    wk_release(wt);
    return r;
}

/* ---- bilinear's core (torch's _trilinear for this case): out[b, o] = sum_ij x1[b, i] W[o, i, j] x2[b, j] ----
 * x1 [B, I], W [O, I, J], x2 [B, J]. which = 0/1/2 gives the gradient of x1 / W / x2 from g [B, O]. */
static int bil_check(const wk_tensor *a, const wk_tensor *w, const wk_tensor *b) {
    if (a->ndim != 2 || b->ndim != 2 || w->ndim != 3 || a->sizes[0] != b->sizes[0] || a->sizes[1] != w->sizes[1] ||
        b->sizes[1] != w->sizes[2]) {
        wk__error(WK_RUNTIME_ERROR, "bilinear: inconsistent sizes");
        return -1;
    }
    if (a->dtype != w->dtype || b->dtype != w->dtype) {
        wk__error(WK_RUNTIME_ERROR, "expected scalar type %s but found %s", wk_dtype_scalar_name(a->dtype),
                  wk_dtype_scalar_name(a->dtype != w->dtype ? w->dtype : b->dtype));
        return -1;
    }
    return 0;
}

static wk_tensor *bil_run(wk_tensor *g, wk_tensor *a, wk_tensor *w, wk_tensor *b, int which) {
    if (bil_check(a, w, b) < 0) return NULL;
    int64_t B = a->sizes[0], NI = a->sizes[1], NJ = b->sizes[1], NO = w->sizes[0];
    double *x1 = wk__nn_load(a), *W = wk__nn_load(w), *x2 = wk__nn_load(b), *gv = g ? wk__nn_load(g) : NULL;
    wk_tensor *out = NULL;
    if (!x1 || !W || !x2 || (g && !gv)) goto done;
    if (g && wk__numel(g) != B * NO) {
        wk__error(WK_RUNTIME_ERROR, "bilinear backward: grad has the wrong size");
        goto done;
    }
    int64_t s2[2] = {B, NO};
    if (which < 0) out = wk__nn_work(2, s2);
    else if (which == 0) out = wk__nn_work(2, a->sizes);
    else if (which == 1) out = wk__nn_work(3, w->sizes);
    else out = wk__nn_work(2, b->sizes);
    if (!out) goto done;
    double *o = wk__nn_data(out);
    for (int64_t n = 0; n < B; n++)
        for (int64_t k = 0; k < NO; k++) {
            double gk = gv ? gv[n * NO + k] : 0, acc = 0;
            for (int64_t i = 0; i < NI; i++) {
                const double *wr = W + (k * NI + i) * NJ;
                double inner = 0;
                for (int64_t j = 0; j < NJ; j++) {
                    if (which == 1) o[(k * NI + i) * NJ + j] += gk * x1[n * NI + i] * x2[n * NJ + j];
                    else if (which == 2) o[n * NJ + j] += gk * x1[n * NI + i] * wr[j];
                    else inner += wr[j] * x2[n * NJ + j];
                }
                if (which < 0) acc += x1[n * NI + i] * inner;
                else if (which == 0) o[n * NI + i] += gk * inner;
            }
            if (which < 0) o[n * NO + k] = acc;
        }
done:
    free(x1), free(W), free(x2), free(gv);
    return wk__nn_finish(out, w->dtype);
}

wk_tensor *wk_impl__bilinear_core(wk_tensor *a, wk_tensor *weight, wk_tensor *b) { return bil_run(NULL, a, weight, b, -1); }
wk_tensor *wk_impl__nn_bilinear_backward(wk_tensor *grad, wk_tensor *a, wk_tensor *weight, wk_tensor *b, int64_t which) {
    return bil_run(grad, a, weight, b, (int)which);
}
