/* nn_linear.c — addmm (what nn.Linear runs on 2-D input) and linear, the composite that picks addmm / mm / the
 * flattened path exactly as torch's at::linear does, so grad_fn chains match (AddmmBackward0, ViewBackward0 over
 * AddmmBackward0 for N-d contiguous input, UnsafeViewBackward0 over MmBackward0 otherwise).
 * addmm lives here because Linear needs it first; it belongs with the matrix products (ops/linalg) and can move
 * there unchanged. */
#include "nn.h"

static bool scalar_is_one(wk_scalar s) {
    return (s.tag == WK_SCALAR_FLOAT && s.v.f == 1.0) || (s.tag != WK_SCALAR_FLOAT && s.v.i == 1);
}
static bool scalar_is_zero(wk_scalar s) {
    return (s.tag == WK_SCALAR_FLOAT && s.v.f == 0.0) || (s.tag != WK_SCALAR_FLOAT && s.v.i == 0);
}

/* out[m, n] = beta * self (broadcast to [m, n]) + alpha * (mat1[m, k] @ mat2[k, n]) */
wk_tensor *wk_impl_addmm(wk_tensor *self, wk_tensor *mat1, wk_tensor *mat2, wk_scalar beta, wk_scalar alpha) {
    if (self->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "self and mat2 must have the same dtype, but got %s and %s",
                  wk_dtype_scalar_name(self->dtype), wk_dtype_scalar_name(mat2->dtype));
        return NULL;
    }
    if (mat1->dtype != mat2->dtype) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 must have the same dtype, but got %s and %s",
                  wk_dtype_scalar_name(mat1->dtype), wk_dtype_scalar_name(mat2->dtype));
        return NULL;
    }
    if (mat1->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "mat1 must be a matrix, got %d-D tensor", mat1->ndim);
    if (mat2->ndim != 2) return WK_FAIL(WK_RUNTIME_ERROR, "mat2 must be a matrix, got %d-D tensor", mat2->ndim);
    if (mat1->sizes[1] != mat2->sizes[0]) {
        wk__error(WK_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                  (long long)mat1->sizes[0], (long long)mat1->sizes[1], (long long)mat2->sizes[0],
                  (long long)mat2->sizes[1]);
        return NULL;
    }
    if (self->dtype == WK_BOOL) {
        wk__not_implemented_for("addmm_impl_cpu_", self->dtype);
        return NULL;
    }
    int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
    wk_tensor *s = wk__expand_to(self, 2, shape); /* [m, n] view */
    if (!s) return NULL;
    wk_tensor *prod = wk_impl_mm(mat1, mat2), *r = NULL;
    if (prod) {
        wk_tensor *a = scalar_is_one(alpha) ? wk_retain(prod) : wk_impl_mul_Scalar(prod, alpha);
        if (a && scalar_is_zero(beta)) { /* beta = 0: self is ignored (nan and inf in it do not propagate) */
            r = wk__clone(a);
        } else if (a) {
            wk_tensor *b = scalar_is_one(beta) ? wk_retain(s) : wk_impl_mul_Scalar(s, beta);
            r = b ? wk_impl_add(b, a, wk_int(1)) : NULL;
            wk_release(b);
        }
        wk_release(a);
    }
    wk_release(prod);
    wk_release(s);
    if (r && r->dtype != self->dtype) { /* integer results with a float beta/alpha stay in self's dtype */
        wk_tensor *c = wk__to_dtype(r, self->dtype);
        wk_release(r);
        r = c;
    }
    return r;
}

/* torch's at::linear. Shapes: input [*, in], weight [out, in], bias [out] -> [*, out]. */
wk_tensor *wk_impl_linear(wk_tensor *input, wk_tensor *weight, wk_tensor *bias) {
    if (input->ndim == 0 || weight->ndim == 0) {
        /* matmul's message for 0-d operands */
        wk__error(WK_RUNTIME_ERROR, "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                  input->ndim, weight->ndim);
        return NULL;
    }
    wk_tensor *wt = wk_t(weight);
    if (!wt) return NULL;
    wk_tensor *r = NULL;
    if (input->ndim == 2 && bias) {
        r = wk_addmm(bias, input, wt, wk_int(1), wk_int(1));
    } else if (bias && (input->ndim == 3 ? wk__is_contiguous(input) : (wk__is_contiguous(input) && bias->ndim == 1))) {
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
    } else {
        /* matmul(input, weight.t()) (+ bias) */
        wk_tensor *y = NULL;
        if (input->ndim == 1) {
            int64_t s2[2] = {1, input->sizes[0]};
            wk_tensor *x2 = wk_reshape(input, wk_ints(s2, 2));
            wk_tensor *m = x2 ? wk_mm(x2, wt) : NULL;
            if (m) {
                int64_t s1[1] = {m->sizes[1]};
                y = wk_reshape(m, wk_ints(s1, 1));
            }
            wk_release(x2);
            wk_release(m);
        } else if (input->ndim == 2) {
            y = wk_mm(input, wt);
        } else {
            int nd = input->ndim;
            int64_t flat[2] = {wk__prod(input->sizes, nd - 1), input->sizes[nd - 1]};
            wk_tensor *x2 = wk_reshape(input, wk_ints(flat, 2));
            wk_tensor *m = x2 ? wk_mm(x2, wt) : NULL;
            if (m) {
                int64_t shape[WK_MAX_DIM];
                memcpy(shape, input->sizes, sizeof(int64_t) * (size_t)(nd - 1));
                shape[nd - 1] = m->sizes[1];
                y = wk__unsafe_view(m, wk_ints(shape, nd));
            }
            wk_release(x2);
            wk_release(m);
        }
        if (y && bias) {
            r = wk_add(y, bias, wk_int(1));
            wk_release(y);
        } else {
            r = y;
        }
    }
    wk_release(wt);
    return r;
}
