/* join.c — joins and rearrangements that copy: cat, stack (and the hstack family), flip, roll, rot90, repeat,
 * tile, repeat_interleave, tril/triu, diag/diag_embed/diagflat, broadcast_tensors, atleast_Nd, meshgrid.
 *
 * Kernels copy through wk__copy_ (the strided iterator with the cast loops) into views of the output; rearranging
 * ops read from a view of the input with reversed or rotated geometry, so no op has a per-element loop of its own. */
#include "autograd.h"
#include "iter.h"
#include "ops_impl.h"

/* ---------------------------------------------------------------------------------------------------------------
 * cat / stack */

/* torch's legacy rule: a 1-D tensor of size 0 is skipped by cat whatever its shape "should" be. */
static bool cat_skip(const wk_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

/* Copies src into the [start, start + src.sizes[dim]) part of out along dim. */
static int copy_into(wk_tensor *out, int64_t dim, int64_t start, const wk_tensor *src) {
    int64_t sizes[WK_MAX_DIM];
    memcpy(sizes, out->sizes, sizeof sizes);
    sizes[dim] = src->sizes[dim];
    wk_tensor *part = wk__alias(out, out->ndim, sizes, out->strides, out->offset + start * out->strides[dim]);
    if (!part) return -1;
    int rc = wk__copy_(part, src);
    wk_release(part);
    return rc;
}

static wk_dtype list_result_type(wk_tensorlist tensors) {
    wk_promo p;
    wk__promo_init(&p);
    for (int64_t i = 0; i < tensors.len; i++) wk__promo_tensor(&p, tensors.data[i]);
    return wk__promo_result(&p);
}

wk_tensor *wk_impl_cat(wk_tensorlist tensors, int64_t dim) {
    if (tensors.len == 0) return WK_FAIL(WK_VALUE_ERROR, "torch.cat(): expected a non-empty list of Tensors");
    for (int64_t i = 0; i < tensors.len; i++) {
        if (!tensors.data[i]) return WK_FAIL(WK_TYPE_ERROR, "expected Tensor as element %lld in argument 0", (long long)i);
        if (tensors.data[i]->ndim == 0)
            return WK_FAIL(WK_RUNTIME_ERROR, "zero-dimensional tensor (at position %lld) cannot be concatenated",
                           (long long)i);
    }
    wk_dtype dt = list_result_type(tensors);
    const wk_tensor *ref = NULL;
    for (int64_t i = 0; i < tensors.len && !ref; i++)
        if (!cat_skip(tensors.data[i])) ref = tensors.data[i];
    if (!ref) { /* every input is a legacy empty tensor: the result is one too */
        int64_t zero = 0;
        return wk__empty(1, &zero, dt);
    }
    int64_t d;
    if (wk__wrap_dim(dim, ref->ndim, &d) < 0) return NULL;
    int64_t sizes[WK_MAX_DIM]; /* the output shape */
    memcpy(sizes, ref->sizes, sizeof sizes);
    sizes[d] = 0;
    for (int64_t i = 0; i < tensors.len; i++) {
        const wk_tensor *t = tensors.data[i];
        if (cat_skip(t)) continue;
        if (t->ndim != ref->ndim)
            return WK_FAIL(WK_RUNTIME_ERROR, "Tensors must have same number of dimensions: got %d and %d", ref->ndim,
                           t->ndim);
        for (int k = 0; k < ref->ndim; k++) {
            if (k == d || t->sizes[k] == ref->sizes[k]) continue;
            return WK_FAIL(WK_RUNTIME_ERROR, "Sizes of tensors must match except in dimension %lld. Expected size %lld "
                                             "but got size %lld for tensor number %lld in the list.",
                           (long long)d, (long long)ref->sizes[k], (long long)t->sizes[k], (long long)i);
        }
        sizes[d] += t->sizes[d];
    }
    wk_tensor *out = wk__empty(ref->ndim, sizes, dt);
    if (!out) return NULL;
    int64_t start = 0;
    for (int64_t i = 0; i < tensors.len; i++) {
        const wk_tensor *t = tensors.data[i];
        if (cat_skip(t)) continue;
        if (copy_into(out, d, start, t) < 0) {
            wk_release(out);
            return NULL;
        }
        start += t->sizes[d];
    }
    return out;
}

/* The gradient of each cat input: the slice of grad it came from (a legacy empty input gets zeros of shape [0]).
 * Composed of public ops (narrow), so the backward graph is differentiable too. */
wk_tensorvec wk_impl_cat_backward(wk_tensor *grad, wk_intlist sizes, int64_t dim) {
    const int64_t row = WK_MAX_DIM + 1;
    int64_t n = sizes.len / row;
    wk_tensorvec v = {wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *)), n};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    int64_t d;
    if (wk__wrap_dim(dim, grad->ndim, &d) < 0) goto fail;
    int64_t start = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *r = sizes.data + i * row; /* r[0] = ndim, r[1..] = sizes */
        if (r[0] == 1 && r[1] == 0) {
            int64_t zero = 0;
            v.data[i] = wk__zeros(1, &zero, grad->dtype);
        } else {
            v.data[i] = wk_narrow(grad, d, start, r[1 + d]);
            start += r[1 + d];
        }
        if (!v.data[i]) goto fail;
    }
    return v;
fail:
    wk_tensorvec_free(v);
    return (wk_tensorvec){NULL, 0};
}

wk_tensor *wk_impl_stack(wk_tensorlist tensors, int64_t dim) {
    if (tensors.len == 0) return WK_FAIL(WK_RUNTIME_ERROR, "stack expects a non-empty TensorList");
    for (int64_t i = 0; i < tensors.len; i++)
        if (!tensors.data[i]) return WK_FAIL(WK_TYPE_ERROR, "expected Tensor as element %lld in argument 0", (long long)i);
    const wk_tensor *t0 = tensors.data[0];
    int64_t d;
    if (wk__wrap_dim(dim, t0->ndim + 1, &d) < 0) return NULL;
    if (t0->ndim + 1 > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    for (int64_t i = 1; i < tensors.len; i++) {
        const wk_tensor *t = tensors.data[i];
        if (t->ndim == t0->ndim && !memcmp(t->sizes, t0->sizes, sizeof(int64_t) * (size_t)t0->ndim)) continue;
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, t0->sizes, t0->ndim);
        wk_sb_ints(&b, t->sizes, t->ndim);
        wk__error(WK_RUNTIME_ERROR, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %lld",
                  a.s ? a.s : "", b.s ? b.s : "", (long long)i);
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    int64_t sizes[WK_MAX_DIM]; /* [ndim + 1] the output shape */
    for (int k = 0, j = 0; k <= t0->ndim; k++) sizes[k] = k == d ? tensors.len : t0->sizes[j++];
    wk_tensor *out = wk__empty(t0->ndim + 1, sizes, list_result_type(tensors));
    if (!out) return NULL;
    for (int64_t i = 0; i < tensors.len; i++) {
        wk_tensor *part = wk_impl_select(out, d, i);
        int rc = part ? wk__copy_(part, tensors.data[i]) : -1;
        wk_release(part);
        if (rc < 0) {
            wk_release(out);
            return NULL;
        }
    }
    return out;
}

wk_tensorvec wk_impl_stack_backward(wk_tensor *grad, int64_t dim) {
    int64_t d;
    if (wk__wrap_dim(dim, grad->ndim, &d) < 0) return (wk_tensorvec){NULL, 0};
    int64_t n = grad->ndim ? grad->sizes[d] : 1;
    wk_tensorvec v = {wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *)), n};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    for (int64_t i = 0; i < n; i++) {
        if (!(v.data[i] = wk_select(grad, d, i))) {
            wk_tensorvec_free(v);
            return (wk_tensorvec){NULL, 0};
        }
    }
    return v;
}
