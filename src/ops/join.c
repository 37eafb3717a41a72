/* join.c — joins and rearrangements that copy: cat, stack (and the hstack family), flip, roll, rot90, repeat,
 * tile, repeat_interleave, tril/triu, diag/diag_embed/diagflat, broadcast_tensors, atleast_Nd, meshgrid.
 *
 * Kernels copy through wk__copy_ (the strided iterator with the cast loops) into views of the output; rearranging
 * ops read from a view of the input with reversed or rotated geometry, so no op has a per-element loop of its own. */
#include "autograd/autograd.h"
#include "cpu/iter.h"
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

/* ---------------------------------------------------------------------------------------------------------------
 * atleast_Nd, hstack / vstack / dstack / column_stack (compositions, as torch) */

wk_tensor *wk_impl_atleast_1d(wk_tensor *self) {
    if (self->ndim >= 1) return wk_retain(self);
    int64_t one = 1;
    return wk_reshape(self, wk_ints(&one, 1));
}

wk_tensor *wk_impl_atleast_2d(wk_tensor *self) {
    if (self->ndim >= 2) return wk_retain(self);
    if (self->ndim == 1) return wk_unsqueeze(self, 0);
    int64_t ones[2] = {1, 1};
    return wk_reshape(self, wk_ints(ones, 2));
}

wk_tensor *wk_impl_atleast_3d(wk_tensor *self) {
    if (self->ndim >= 3) return wk_retain(self);
    if (self->ndim == 2) return wk_unsqueeze(self, -1);
    if (self->ndim == 1) {
        wk_tensor *a = wk_unsqueeze(self, 0);
        wk_tensor *b = a ? wk_unsqueeze(a, -1) : NULL;
        wk_release(a);
        return b;
    }
    int64_t ones[3] = {1, 1, 1};
    return wk_reshape(self, wk_ints(ones, 3));
}

static wk_tensorvec map_list(wk_tensorlist tensors, wk_tensor *(*f)(wk_tensor *)) {
    wk_tensorvec v = {wk__calloc((size_t)(tensors.len ? tensors.len : 1), sizeof(wk_tensor *)), tensors.len};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    for (int64_t i = 0; i < tensors.len; i++) {
        if (!tensors.data[i] || !(v.data[i] = f(tensors.data[i]))) {
            if (!tensors.data[i]) wk__error(WK_TYPE_ERROR, "expected Tensor as element %lld in argument 0", (long long)i);
            wk_tensorvec_free(v);
            return (wk_tensorvec){NULL, 0};
        }
    }
    return v;
}

wk_tensorvec wk_impl_atleast_1d_list(wk_tensorlist tensors) { return map_list(tensors, wk_atleast_1d); }
wk_tensorvec wk_impl_atleast_2d_list(wk_tensorlist tensors) { return map_list(tensors, wk_atleast_2d); }
wk_tensorvec wk_impl_atleast_3d_list(wk_tensorlist tensors) { return map_list(tensors, wk_atleast_3d); }

/* cat of f(t) for every t: the stack family */
static wk_tensor *cat_mapped(wk_tensorlist tensors, const char *name, wk_tensor *(*f)(wk_tensor *), int64_t dim,
                             bool dim_from_first) {
    if (tensors.len == 0) return WK_FAIL(WK_RUNTIME_ERROR, "%s expects a non-empty TensorList", name);
    wk_tensorvec v = map_list(tensors, f);
    if (!v.data) return NULL;
    if (dim_from_first && v.data[0]->ndim == 1) dim = 0;
    wk_tensor *r = wk_cat((wk_tensorlist){v.data, v.len}, dim);
    wk_tensorvec_free(v);
    return r;
}

wk_tensor *wk_impl_hstack(wk_tensorlist tensors) { return cat_mapped(tensors, "hstack", wk_atleast_1d, 1, true); }
wk_tensor *wk_impl_vstack(wk_tensorlist tensors) { return cat_mapped(tensors, "vstack", wk_atleast_2d, 0, false); }
wk_tensor *wk_impl_dstack(wk_tensorlist tensors) { return cat_mapped(tensors, "dstack", wk_atleast_3d, 2, false); }

static wk_tensor *as_column(wk_tensor *t) {
    if (t->ndim > 1) return wk_retain(t);
    int64_t shape[2] = {wk__numel(t), 1};
    return wk_reshape(t, wk_ints(shape, 2));
}

wk_tensor *wk_impl_column_stack(wk_tensorlist tensors) {
    if (tensors.len == 0) return WK_FAIL(WK_RUNTIME_ERROR, "column_stack expects a non-empty TensorList");
    wk_tensorvec v = map_list(tensors, as_column);
    if (!v.data) return NULL;
    wk_tensor *r = wk_hstack((wk_tensorlist){v.data, v.len});
    wk_tensorvec_free(v);
    return r;
}

/* ---------------------------------------------------------------------------------------------------------------
 * broadcast_tensors / meshgrid */

wk_tensorvec wk_impl_broadcast_tensors(wk_tensorlist tensors) {
    int n = 0;
    int64_t shape[WK_MAX_DIM]; /* the common broadcast shape */
    for (int64_t i = 0; i < tensors.len; i++) {
        const wk_tensor *t = tensors.data[i];
        if (!t) {
            wk__error(WK_TYPE_ERROR, "expected Tensor as element %lld in argument 0", (long long)i);
            return (wk_tensorvec){NULL, 0};
        }
        int64_t out[WK_MAX_DIM];
        int nout;
        if (wk__broadcast_shapes(n, shape, t->ndim, t->sizes, &nout, out) < 0) return (wk_tensorvec){NULL, 0};
        n = nout;
        memcpy(shape, out, sizeof(int64_t) * (size_t)n);
    }
    wk_tensorvec v = {wk__calloc((size_t)(tensors.len ? tensors.len : 1), sizeof(wk_tensor *)), tensors.len};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    for (int64_t i = 0; i < tensors.len; i++) {
        wk_tensor *t = tensors.data[i];
        bool same = t->ndim == n && !memcmp(t->sizes, shape, sizeof(int64_t) * (size_t)n);
        v.data[i] = same ? wk_retain(t) : wk_expand(t, wk_ints(shape, n), false); /* torch returns t itself */
        if (!v.data[i]) {
            wk_tensorvec_free(v);
            return (wk_tensorvec){NULL, 0};
        }
    }
    return v;
}

wk_tensorvec wk_impl_meshgrid(wk_tensorlist tensors, const char *indexing) {
    int64_t n = tensors.len;
    if (n == 0) {
        wk__error(WK_RUNTIME_ERROR, "meshgrid expects a non-empty TensorList");
        return (wk_tensorvec){NULL, 0};
    }
    for (int64_t i = 0; i < n; i++) {
        if (!tensors.data[i]) {
            wk__error(WK_TYPE_ERROR, "expected Tensor as element %lld in argument 0", (long long)i);
            return (wk_tensorvec){NULL, 0};
        }
    }
    for (int64_t i = 0; i + 1 < n; i++) {
        if (tensors.data[i]->dtype != tensors.data[i + 1]->dtype) {
            wk__error(WK_RUNTIME_ERROR, "meshgrid expects all tensors to have the same dtype");
            return (wk_tensorvec){NULL, 0};
        }
    }
    bool swap = false;
    if (!strcmp(indexing, "xy")) {
        swap = n >= 2;
    } else if (strcmp(indexing, "ij")) {
        wk__error(WK_RUNTIME_ERROR, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", indexing);
        return (wk_tensorvec){NULL, 0};
    }
    if (n > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
        return (wk_tensorvec){NULL, 0};
    }
    wk_tensor *refs[WK_MAX_DIM]; /* [n] the inputs, first two swapped for "xy" */
    for (int64_t i = 0; i < n; i++) refs[i] = tensors.data[i];
    if (swap) {
        refs[0] = tensors.data[1];
        refs[1] = tensors.data[0];
    }
    int64_t shape[WK_MAX_DIM], view_shape[WK_MAX_DIM]; /* [n] grid shape; [n] 1s with -1 at i */
    for (int64_t i = 0; i < n; i++) {
        if (refs[i]->ndim > 1) {
            wk__error(WK_RUNTIME_ERROR, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a %d-D tensor",
                      refs[i]->ndim);
            return (wk_tensorvec){NULL, 0};
        }
        shape[i] = wk__numel(refs[i]);
        view_shape[i] = 1;
    }
    wk_tensorvec v = {wk__calloc((size_t)n, sizeof(wk_tensor *)), n};
    if (!v.data) return (wk_tensorvec){NULL, 0};
    for (int64_t i = 0; i < n; i++) {
        view_shape[i] = -1;
        wk_tensor *vw = wk_view(refs[i], wk_ints(view_shape, n));
        view_shape[i] = 1;
        v.data[i] = vw ? wk_expand(vw, wk_ints(shape, n), false) : NULL;
        wk_release(vw);
        if (!v.data[i]) {
            wk_tensorvec_free(v);
            return (wk_tensorvec){NULL, 0};
        }
    }
    if (swap) {
        wk_tensor *t = v.data[0];
        v.data[0] = v.data[1];
        v.data[1] = t;
    }
    return v;
}

/* ---------------------------------------------------------------------------------------------------------------
 * flip / roll / rot90 */

/* A header over t's storage that reads t with the dims in mask reversed (negative strides; internal only). Only dims
 * of size > 1 of a non-empty t are reversed: their reach lies inside the storage, so (size - 1) * stride and -stride
 * fit in int64; a size-1 or empty dim's stride may be anything (2**62 over an empty tensor, INT64_MIN). */
static wk_tensor *reversed_view(const wk_tensor *t, const bool *mask) {
    int64_t strides[WK_MAX_DIM], off = t->offset;
    bool empty = wk__numel(t) == 0;
    for (int i = 0; i < t->ndim; i++) {
        strides[i] = t->strides[i];
        if (mask[i] && !empty && t->sizes[i] > 1) {
            off += (t->sizes[i] - 1) * t->strides[i];
            strides[i] = -t->strides[i];
        }
    }
    return wk__alias(t, t->ndim, t->sizes, strides, off);
}

wk_tensor *wk_impl_flip(wk_tensor *self, wk_intlist dims) {
    bool mask[WK_MAX_DIM] = {false};
    for (int64_t i = 0; i < dims.len; i++) {
        int64_t d;
        if (wk__wrap_dim(dims.data[i], self->ndim, &d) < 0) return NULL;
        if (self->ndim && mask[d]) return WK_FAIL(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)d);
        if (self->ndim) mask[d] = true;
    }
    wk_tensor *src = reversed_view(self, mask);
    wk_tensor *out = src ? wk__empty_like_preserve(self, WK_DTYPE_NONE) : NULL; /* torch: empty_like(self) */
    if (out && wk__copy_(out, src) < 0) {
        wk_release(out);
        out = NULL;
    }
    wk_release(src);
    return out;
}

wk_tensor *wk_impl_fliplr(wk_tensor *self) {
    if (self->ndim < 2) return WK_FAIL(WK_RUNTIME_ERROR, "Input must be >= 2-d.");
    int64_t d = 1;
    return wk_flip(self, wk_ints(&d, 1));
}

wk_tensor *wk_impl_flipud(wk_tensor *self) {
    if (self->ndim < 1) return WK_FAIL(WK_RUNTIME_ERROR, "Input must be >= 1-d.");
    int64_t d = 0;
    return wk_flip(self, wk_ints(&d, 1));
}

/* out (contiguous, self's shape) = self rolled by shift along d: out[(i + shift) mod n] = self[i]. */
static int roll_into(wk_tensor *out, const wk_tensor *self, int64_t d, int64_t shift) {
    int64_t n = self->sizes[d];
    if (n == 0) return 0;
    int64_t start = (n - shift % n) % n; /* self[start:] goes first (shift % n keeps n - shift from overflowing) */
    int64_t sizes[WK_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof sizes);
    for (int part = 0; part < 2; part++) {
        int64_t from = part ? 0 : start, len = part ? start : n - start, to = part ? n - start : 0;
        if (!len) continue;
        sizes[d] = len;
        wk_tensor *s = wk__alias(self, self->ndim, sizes, self->strides, self->offset + from * self->strides[d]);
        wk_tensor *o = s ? wk__alias(out, out->ndim, sizes, out->strides, out->offset + to * out->strides[d]) : NULL;
        int rc = o ? wk__copy_(o, s) : -1;
        wk_release(s);
        wk_release(o);
        if (rc < 0) return -1;
    }
    return 0;
}

wk_tensor *wk_impl_roll(wk_tensor *self, wk_intlist shifts, wk_intlist dims) {
    /* shifts is a SymInt[]: below -2**62 c10::SymInt holds a value as a symbolic node, which torch's CPU kernel
     * refuses before any check of its own (its text then names its generated file) */
    for (int64_t i = 0; i < shifts.len; i++)
        if (shifts.data[i] < -(INT64_C(1) << 62))
            return WK_FAIL(WK_RUNTIME_ERROR, "SymIntArrayRef expected to contain only concrete integers");
    if (shifts.len == 0) return WK_FAIL(WK_RUNTIME_ERROR, "`shifts` required");
    if (dims.len == 0 && shifts.len == 1) { /* roll the flattened tensor */
        wk_tensor *src = wk__contiguous(self);
        int64_t n = wk__numel(self);
        wk_tensor *flat = src ? wk__alias(src, 1, &n, (int64_t[]){1}, src->offset) : NULL;
        wk_tensor *out = flat ? wk__empty(self->ndim, self->sizes, self->dtype) : NULL;
        wk_tensor *oflat = out ? wk__alias(out, 1, &n, (int64_t[]){1}, 0) : NULL;
        int rc = oflat ? roll_into(oflat, flat, 0, shifts.data[0]) : -1;
        wk_release(src);
        wk_release(flat);
        wk_release(oflat);
        if (rc < 0) {
            wk_release(out);
            return NULL;
        }
        return out;
    }
    if (shifts.len != dims.len)
        return WK_FAIL(WK_RUNTIME_ERROR, "shifts and dimensions must align. shifts: %lld, dims:%lld", (long long)shifts.len,
                       (long long)dims.len);
    if (wk__numel(self) == 0) return wk_impl_clone(self); /* torch: before any dim is looked at (empty_like's strides) */
    if (self->ndim == 0) {
        wk__error(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)dims.data[0]);
        return NULL;
    }
    wk_tensor *cur = wk_retain(self);
    for (int64_t i = 0; i < dims.len; i++) {
        int64_t d;
        if (wk__wrap_dim(dims.data[i], self->ndim, &d) < 0) {
            wk_release(cur);
            return NULL;
        }
        wk_tensor *out = wk__empty(self->ndim, self->sizes, self->dtype);
        if (!out || roll_into(out, cur, d, shifts.data[i]) < 0) {
            wk_release(out);
            wk_release(cur);
            return NULL;
        }
        wk_release(cur);
        cur = out;
    }
    return cur;
}

wk_tensor *wk_impl_roll_backward(wk_tensor *grad, wk_intlist shifts, wk_intlist dims) {
    int64_t s[WK_MAX_DIM], d[WK_MAX_DIM]; /* reversed, negated shifts; reversed dims */
    if (shifts.len > WK_MAX_DIM || dims.len > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "roll: too many dims");
    for (int64_t i = 0; i < shifts.len; i++) s[i] = -shifts.data[shifts.len - 1 - i];
    for (int64_t i = 0; i < dims.len; i++) d[i] = dims.data[dims.len - 1 - i];
    return wk_roll(grad, wk_ints(s, shifts.len), wk_ints(d, dims.len));
}

wk_tensor *wk_impl_rot90(wk_tensor *self, int64_t k, wk_intlist dims) {
    int n = self->ndim;
    if (dims.len != 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "expected total rotation dims == 2, but got dims = %lld", (long long)dims.len);
    if (n < 2) return WK_FAIL(WK_RUNTIME_ERROR, "expected total dims >= 2, but got total dims = %d", n);
    int64_t a = dims.data[0], b = dims.data[1];
    int64_t d0, d1;
    if (wk__wrap_dim(a, n, &d0) < 0 || wk__wrap_dim(b, n, &d1) < 0) return NULL;
    if (d0 == d1)
        return WK_FAIL(WK_RUNTIME_ERROR, "expected rotation dims to be different, but got dim0 = %lld and dim1 = %lld",
                       (long long)a, (long long)b);
    k = ((k % 4) + 4) % 4;
    bool mask[WK_MAX_DIM] = {false};
    if (k == 0) return wk__clone(self);
    if (k == 1) mask[d1] = true;
    else if (k == 2) mask[d0] = mask[d1] = true;
    else mask[d0] = true;
    wk_tensor *src = reversed_view(self, mask);
    wk_tensor *f = src ? wk__empty_like_preserve(self, WK_DTYPE_NONE) : NULL; /* torch: flip, then transpose */
    int rc = f ? wk__copy_(f, src) : -1;
    wk_release(src);
    if (rc < 0) {
        wk_release(f);
        return NULL;
    }
    if (k == 2) return f;
    int64_t t;
    t = f->sizes[d0], f->sizes[d0] = f->sizes[d1], f->sizes[d1] = t; /* transpose f in place (it is ours alone) */
    t = f->strides[d0], f->strides[d0] = f->strides[d1], f->strides[d1] = t;
    return f;
}

/* ---------------------------------------------------------------------------------------------------------------
 * repeat / tile / repeat_interleave */

wk_tensor *wk_impl_repeat(wk_tensor *self, wk_intlist repeats) {
    int n = (int)repeats.len;
    if (n < self->ndim)
        return WK_FAIL(WK_RUNTIME_ERROR, "Number of dimensions of repeat dims can not be smaller than number of "
                                         "dimensions of tensor");
    if (2 * n > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "repeat: wick supports at most %d repeat dims", WK_MAX_DIM / 2);
    int64_t padded[WK_MAX_DIM] = {0}, target[WK_MAX_DIM] = {0}; /* [n] self's sizes with leading 1s; the output shape */
    bool zero = false;
    for (int i = 0; i < n; i++) {
        int j = i - (n - self->ndim);
        padded[i] = j >= 0 ? self->sizes[j] : 1;
        target[i] = (int64_t)((uint64_t)padded[i] * (uint64_t)repeats.data[i]); /* wraps; wk__empty refuses */
        if (repeats.data[i] == 0) zero = true;
    }
    wk_tensor *out = wk__empty(n, target, self->dtype);
    if (!out || zero || wk__numel(out) == 0) return out; /* nothing to copy (and no [r, s] view of huge r to build) */
    /* out seen as [r0, s0, r1, s1, ...]: copy self (expanded over the r dims) into it */
    int64_t osz[WK_MAX_DIM], ost[WK_MAX_DIM], ssz[WK_MAX_DIM], sst[WK_MAX_DIM];
    for (int i = 0; i < n; i++) {
        int j = i - (n - self->ndim);
        osz[2 * i] = repeats.data[i];
        osz[2 * i + 1] = padded[i];
        ost[2 * i] = out->strides[i] * padded[i];
        ost[2 * i + 1] = out->strides[i];
        ssz[2 * i] = repeats.data[i];
        ssz[2 * i + 1] = padded[i];
        sst[2 * i] = 0;
        sst[2 * i + 1] = j >= 0 ? self->strides[j] : 0;
    }
    wk_tensor *o = wk__alias(out, 2 * n, osz, ost, 0);
    wk_tensor *s = o ? wk__alias(self, 2 * n, ssz, sst, self->offset) : NULL;
    int rc = s ? wk__copy_(o, s) : -1;
    wk_release(o);
    wk_release(s);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

/* torch's repeat_backward: sum the leading new dims away, then view each repeated dim as [repeat, size] and sum the
 * repeat dims (zeros when some repeat is 0). */
wk_tensor *wk_impl_repeat_backward(wk_tensor *grad, wk_intlist repeats, wk_intlist input_shape) {
    for (int64_t i = 0; i < repeats.len; i++)
        if (repeats.data[i] == 0) return wk_zeros(input_shape, grad->dtype, false);
    int64_t nd = input_shape.len, nun = grad->ndim - nd;
    wk_tensor *g = wk_retain(grad);
    for (int64_t i = 0; i < nun && g; i++) {
        int64_t zero = 0;
        wk_tensor *s = wk_sum_dim(g, wk_ints(&zero, 1), false, WK_DTYPE_NONE);
        wk_release(g);
        g = s;
    }
    if (!g) return NULL;
    int64_t gsize[WK_MAX_DIM], sdims[WK_MAX_DIM]; /* [<= 2 nd] grad viewed with repeat dims; [<= nd] those dims */
    int ng = 0, ns = 0;
    for (int64_t d = 0; d < nd; d++) {
        int64_t r = repeats.data[d + nun];
        if (r != 1) {
            gsize[ng++] = r;
            sdims[ns++] = ng - 1;
        }
        gsize[ng++] = input_shape.data[d];
    }
    if (ns == 0) return g;
    wk_tensor *v = wk_reshape(g, wk_ints(gsize, ng));
    wk_release(g);
    wk_tensor *r = v ? wk_sum_dim(v, wk_ints(sdims, ns), false, WK_DTYPE_NONE) : NULL;
    wk_release(v);
    return r;
}

wk_tensor *wk_impl_tile(wk_tensor *self, wk_intlist dims) {
    if (dims.len >= self->ndim) return wk_repeat(self, dims);
    int64_t r[WK_MAX_DIM]; /* [ndim] dims padded with leading 1s */
    int64_t pad = self->ndim - dims.len;
    for (int64_t i = 0; i < self->ndim; i++) r[i] = i < pad ? 1 : dims.data[i - pad];
    return wk_repeat(self, wk_ints(r, self->ndim));
}

wk_tensor *wk_impl_repeat_interleave(wk_tensor *self, int64_t repeats, wk_optint dim, wk_optint output_size) {
    int64_t d;
    if (wk__wrap_dim(dim.has ? dim.v : 0, self->ndim, &d) < 0) return NULL;
    if (repeats < 0) return WK_FAIL(WK_RUNTIME_ERROR, "Repeats must be non-negative");
    wk_tensor *input = dim.has ? wk_retain(self) : wk_flatten(self, 0, -1);
    wk_tensor *u = input ? wk_unsqueeze(input, d + 1) : NULL;
    wk_release(input);
    if (!u) return NULL;
    int64_t shape[WK_MAX_DIM];
    memcpy(shape, u->sizes, sizeof shape);
    shape[d + 1] = repeats;
    wk_tensor *e = wk_expand(u, wk_ints(shape, u->ndim), false); /* checks that the result's numel fits */
    wk_release(u);
    if (e && output_size.has && output_size.v != repeats * shape[d]) {
        wk_release(e);
        return WK_FAIL(WK_RUNTIME_ERROR, "repeat_interleave: Invalid output_size, expected %lld but got %lld",
                       (long long)(repeats * shape[d]), (long long)output_size.v);
    }
    wk_tensor *c = e ? wk_clone_contiguous(e) : NULL;
    wk_release(e);
    wk_tensor *r = c ? wk_flatten(c, d, d + 1) : NULL;
    wk_release(c);
    return r;
}

wk_tensor *wk_impl_repeat_interleave_counts(wk_tensor *repeats, wk_optint output_size) {
    if (repeats->ndim != 1) return WK_FAIL(WK_RUNTIME_ERROR, "repeat_interleave only accept 1D vector as repeat");
    if (repeats->dtype != WK_INT64 && repeats->dtype != WK_INT32) {
        if (wk_dtype_is_floating(repeats->dtype) || repeats->dtype == WK_BOOL || !wk_dtype_is_integral(repeats->dtype, false))
            return WK_FAIL(WK_NOT_IMPLEMENTED_ERROR, "\"repeat_interleave_cpu\" not implemented for '%s'",
                           wk_dtype_scalar_name(repeats->dtype));
        return WK_FAIL(WK_RUNTIME_ERROR, "repeats has to be Long or Int tensor");
    }
    int64_t n = repeats->sizes[0], total = 0;
    size_t esz = wk_dtype_size(repeats->dtype);
    const char *p = wk__data(repeats);
    for (int64_t i = 0; i < n; i++) {
        const char *q = p + i * repeats->strides[0] * (int64_t)esz;
        int64_t r = esz == 8 ? *(const int64_t *)q : *(const int32_t *)q;
        if (r < 0) return WK_FAIL(WK_RUNTIME_ERROR, "repeats can not be negative");
        total += r;
    }
    if (output_size.has && output_size.v != total)
        return WK_FAIL(WK_RUNTIME_ERROR, "allocated size does not match required size");
    wk_tensor *out = wk__empty(1, &total, repeats->dtype); /* [total] index i repeated repeats[i] times */
    if (!out) return NULL;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        const char *q = p + i * repeats->strides[0] * (int64_t)esz;
        int64_t r = esz == 8 ? *(const int64_t *)q : *(const int32_t *)q;
        for (int64_t j = 0; j < r && k < total; j++, k++) {
            if (esz == 8) ((int64_t *)wk__data(out))[k] = i;
            else ((int32_t *)wk__data(out))[k] = (int32_t)i;
        }
    }
    return out;
}

/* x.repeat_interleave(repeats_tensor, dim): index_select with the repeated indices, as torch (IndexSelectBackward0). */
wk_tensor *wk_impl_repeat_interleave_tensor(wk_tensor *self, wk_tensor *repeats, wk_optint dim, wk_optint output_size) {
    wk_tensor *input = dim.has ? wk_retain(self) : wk_flatten(self, 0, -1);
    if (!input) return NULL;
    int64_t d = dim.has ? dim.v : 0, wd;
    wk_tensor *reps = NULL, *idx = NULL, *r = NULL;
    if (wk__wrap_dim(d, input->ndim, &wd) < 0) goto done;
    int64_t size = input->ndim ? input->sizes[wd] : 1;
    if (repeats->ndim == 0 || (repeats->ndim == 1 && repeats->sizes[0] == 1)) {
        int64_t one = 1;
        wk_tensor *flat = wk__alias(repeats, 1, &one, &one, repeats->offset);
        reps = flat ? wk__expand_to(flat, 1, &size) : NULL;
        wk_release(flat);
    } else if (repeats->ndim == 1) {
        if (repeats->sizes[0] != size) {
            wk__error(WK_RUNTIME_ERROR, "repeats must have the same size as input along dim, but got repeats.size(0) = "
                                        "%lld and input.size(%lld) = %lld", (long long)repeats->sizes[0], (long long)d,
                      (long long)size);
            goto done;
        }
        reps = wk_retain(repeats);
    } else {
        wk__error(WK_RUNTIME_ERROR, "repeats must be 0-dim or 1-dim tensor");
        goto done;
    }
    if (!reps || !(idx = wk_repeat_interleave_counts(reps, output_size))) goto done;
    r = wk_index_select(input, d, idx);
done:
    wk_release(idx);
    wk_release(reps);
    wk_release(input);
    return r;
}

/* ---------------------------------------------------------------------------------------------------------------
 * tril / triu / diag family */

/* A contiguous copy of self with the part outside the band zeroed: lower keeps j - i <= k (tril), else j - i >= k. */
static wk_tensor *tri(wk_tensor *self, int64_t k, bool lower) {
    if (self->ndim < 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "%s: input tensor must have at least 2 dimensions", lower ? "tril" : "triu");
    wk_tensor *out = wk__clone(self);
    if (!out) return NULL;
    int64_t rows = self->sizes[self->ndim - 2], cols = self->sizes[self->ndim - 1];
    int64_t batch = (rows * cols) != 0 ? wk__numel(self) / (rows * cols) : 0;
    size_t esz = wk_dtype_size(self->dtype);
    if (k > cols + 1) k = cols + 1; /* beyond these the band is everything / nothing: clamp (no overflow below) */
    if (k < -rows - 1) k = -rows - 1;
    char *base = wk__data(out); /* [batch][rows][cols] */
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t i = 0; i < rows; i++) {
            char *row = base + ((b * rows + i) * cols) * (int64_t)esz;
            int64_t lo, hi; /* zero columns [lo, hi) */
            if (lower) {
                lo = i + k + 1 < 0 ? 0 : i + k + 1;
                hi = cols;
            } else {
                lo = 0;
                hi = i + k < cols ? i + k : cols;
            }
            if (lo < hi && lo < cols && hi > 0) memset(row + lo * (int64_t)esz, 0, (size_t)(hi - lo) * esz);
        }
    }
    return out;
}

wk_tensor *wk_impl_tril(wk_tensor *self, int64_t diagonal) { return tri(self, diagonal, true); }
wk_tensor *wk_impl_triu(wk_tensor *self, int64_t diagonal) { return tri(self, diagonal, false); }

wk_tensor *wk_impl_diag_embed(wk_tensor *self, int64_t offset, int64_t dim1, int64_t dim2) {
    int n = self->ndim + 1;
    int64_t d1, d2;
    if (wk__wrap_dim(dim1, n, &d1) < 0 || wk__wrap_dim(dim2, n, &d2) < 0) return NULL;
    if (d1 == d2)
        return WK_FAIL(WK_RUNTIME_ERROR, "diagonal dimensions cannot be identical %lld, %lld", (long long)dim1,
                       (long long)dim2);
    if (n > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t len; /* |offset| + the last size */
    if (offset == INT64_MIN || __builtin_add_overflow(offset < 0 ? -offset : offset, self->sizes[self->ndim - 1], &len))
        return WK_FAIL(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
    int64_t sizes[WK_MAX_DIM]; /* [n]: self's sizes without the last, with len inserted at d1 and d2 */
    int64_t lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;
    for (int i = 0, j = 0; i < n; i++) sizes[i] = (i == lo || i == hi) ? len : self->sizes[j++];
    wk_tensor *out = wk__zeros(n, sizes, self->dtype);
    wk_tensor *diag = out ? wk_impl_diagonal(out, offset, d1, d2) : NULL;
    int rc = diag ? wk__copy_(diag, self) : -1;
    wk_release(diag);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}

wk_tensor *wk_impl_diagonal_copy(wk_tensor *self, int64_t offset, int64_t dim1, int64_t dim2) {
    wk_tensor *v = wk_impl_diagonal(self, offset, dim1, dim2);
    wk_tensor *c = v ? wk__clone(v) : NULL;
    wk_release(v);
    return c;
}

wk_tensor *wk_impl_diag(wk_tensor *self, int64_t diagonal) {
    if (self->ndim != 1 && self->ndim != 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "diag(): Supports 1D or 2D tensors. Got %dD", self->ndim);
    if (self->ndim == 1) return wk_diag_embed(self, diagonal, 0, 1);
    return wk_diagonal_copy(self, diagonal, 0, 1);
}

wk_tensor *wk_impl_diagflat(wk_tensor *self, int64_t offset) {
    wk_tensor *c = wk_contiguous(self);
    int64_t m1 = -1;
    wk_tensor *v = c ? wk_view(c, wk_ints(&m1, 1)) : NULL;
    wk_release(c);
    wk_tensor *r = v ? wk_diag(v, offset) : NULL;
    wk_release(v);
    return r;
}
