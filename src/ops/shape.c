/* shape.c — views and shape ops: view, reshape, expand, permute/transpose, (un)squeeze, flatten, select/slice/narrow,
 * diagonal, as_strided, unbind/split/chunk, the in-place metadata ops (t_, squeeze_, ...), contiguous, clone, to(dtype).
 *
 * Note [Views]: a view is a new header over self's storage (wk__alias) with its own sizes, strides and offset, exactly
 * as torch computes them (data_ptr, stride() and storage_offset() agree with torch). The generated dispatch marks
 * it as a view of self's root base (`view: true` in ops/shape.def), which is what in-place ops on it consult
 * (CopySlices, Note [In-place on views] in autograd.c). Ops that torch implements by composing other ops
 * (narrow = slice, movedim = permute, flatten = reshape, ...) call the public ops, so their grad_fn is the one
 * torch records. */
#include "core/host.h"
#include "autograd/autograd.h"
#include "cpu/iter.h"
#include "ops_impl.h"

/* torch's numel overflow check for a new shape: the product of the sizes (in order) must fit in int64. */
static int check_numel(int n, const int64_t *sizes) {
    uint64_t p = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++) overflow |= __builtin_mul_overflow(p, (uint64_t)sizes[i], &p);
    if (overflow || p > (uint64_t)INT64_MAX) {
        wk__error(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
        return -1;
    }
    return 0;
}

/* Resolves a requested shape against numel: one -1 is inferred. torch's infer_size. */
static int infer_size(wk_intlist shape, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t prod = 1;
    if (shape.len > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions, got %lld", WK_MAX_DIM,
                  (long long)shape.len);
        return -1;
    }
    for (int64_t i = 0; i < shape.len; i++) {
        int64_t s = shape.data[i];
        if (s == -1) {
            if (infer >= 0) {
                wk__error(WK_RUNTIME_ERROR, "only one dimension can be inferred");
                return -1;
            }
            infer = (int)i;
        } else if (s >= 0) {
            prod = (int64_t)((uint64_t)prod * (uint64_t)s); /* wraps as torch's does; overflow is caught below */
        } else {
            wk_strbuf b = {0};
            wk_sb_ints(&b, shape.data, (int)shape.len);
            wk__error(WK_RUNTIME_ERROR, "invalid shape dimension %lld at index %lld of shape %s", (long long)s,
                      (long long)i, b.s ? b.s : "");
            wk_sb_free(&b);
            return -1;
        }
        out[i] = s;
    }
    if (numel == prod || (infer >= 0 && prod > 0 && numel % prod == 0)) {
        if (infer >= 0) {
            if (prod == 0) { /* 0 elements and a zero-size dim: any -1 would do */
                wk_strbuf b = {0};
                wk_sb_ints(&b, shape.data, (int)shape.len);
                wk__error(WK_RUNTIME_ERROR, "cannot reshape tensor of %lld elements into shape %s because the "
                          "unspecified dimension size -1 can be any value and is ambiguous", (long long)numel, b.s);
                wk_sb_free(&b);
                return -1;
            }
            out[infer] = numel / prod;
        }
        return check_numel((int)shape.len, out);
    }
    wk_strbuf b = {0};
    wk_sb_ints(&b, shape.data, (int)shape.len);
    wk__error(WK_RUNTIME_ERROR, "shape '%s' is invalid for input of size %lld", b.s, (long long)numel);
    wk_sb_free(&b);
    return -1;
}

/* torch's computeStride: strides for viewing (sizes, strides) as new_sizes without copying: 1, or 0 when there are
 * none, or -1 with torch's error. */
static int compute_stride(const wk_tensor *t, int nn, const int64_t *nsizes, int64_t *nstrides) {
    int64_t numel = wk__numel(t);
    if (t->ndim == 0) { /* a 0-d tensor views as any shape of one element with unit strides */
        for (int i = 0; i < nn; i++) nstrides[i] = 1;
        return true;
    }
    if (numel == 0 && nn == t->ndim && !memcmp(nsizes, t->sizes, sizeof(int64_t) * (size_t)nn)) {
        memcpy(nstrides, t->strides, sizeof(int64_t) * (size_t)nn); /* as NumPy: same shape keeps the strides */
        return true;
    }
    if (numel == 0) {
        /* torch's wrapping products; a stride that wrapped negative is recomputed by set_sizes_and_strides, whose
         * checked product then overflows (x.view(0, 2**62, 2) of an empty x) */
        wk__contiguous_strides(nn, nsizes, nstrides);
        for (int i = 0; i < nn; i++)
            if (nstrides[i] < 0) {
                wk__error(WK_RUNTIME_ERROR, "Stride calculation overflowed");
                return -1;
            }
        return true;
    }
    int view_d = nn - 1;
    int64_t chunk_base_stride = t->ndim ? t->strides[t->ndim - 1] : 1;
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = t->ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= t->sizes[tensor_d];
        if (tensor_d == 0 || (t->sizes[tensor_d - 1] != 1 && t->strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || nsizes[view_d] == 1)) {
                nstrides[view_d] = view_numel * chunk_base_stride;
                view_numel *= nsizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (tensor_d > 0) {
                chunk_base_stride = t->strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

wk_tensor *wk_impl_view(wk_tensor *self, wk_intlist size) {
    int64_t shape[WK_MAX_DIM], strides[WK_MAX_DIM];
    if (infer_size(size, wk__numel(self), shape) < 0) return NULL;
    int nn = (int)size.len;
    int viewable = compute_stride(self, nn, shape, strides);
    if (viewable < 0) return NULL;
    if (!viewable) {
        wk__error(WK_RUNTIME_ERROR, "view size is not compatible with input tensor's size and stride (at least one "
                                    "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return wk__alias(self, nn, shape, strides, self->offset);
}

wk_tensor *wk_impl__reshape_alias(wk_tensor *self, wk_intlist size, wk_intlist stride) {
    if (size.len != stride.len || size.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "mismatch in length of strides and shape");
    return wk__alias(self, (int)size.len, size.data, stride.data, self->offset);
}

wk_tensor *wk_impl__unsafe_view(wk_tensor *self, wk_intlist size) { return wk_impl_view(self, size); }

wk_tensor *wk_impl_reshape(wk_tensor *self, wk_intlist shape) {
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    if (infer_size(shape, wk__numel(self), sizes) < 0) return NULL;
    /* torch: contiguous -> view; viewable -> _reshape_alias (ReshapeAliasBackward0); else a contiguous copy */
    if (wk__is_contiguous(self)) return wk_view(self, wk_ints(sizes, shape.len));
    int viewable = compute_stride(self, (int)shape.len, sizes, strides);
    if (viewable < 0) return NULL;
    if (viewable)
        return wk__reshape_alias(self, wk_ints(sizes, shape.len), wk_ints(strides, shape.len));
    wk_tensor *r = wk_clone_contiguous(self);
    if (!r) return NULL;
    wk_tensor *v = wk__unsafe_view(r, wk_ints(sizes, shape.len));
    wk_release(r);
    return v;
}

wk_tensor *wk_impl_expand(wk_tensor *self, wk_intlist size, bool implicit) {
    WK_UNUSED(implicit);
    int n = (int)size.len;
    if (n < self->ndim) return wk__expand_too_few(self, n, size.data), NULL;
    if (n > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    /* torch's infer_expand_geometry: from the last dim, so its errors name the last bad dim; the target sizes are
     * printed as given. A negative size it lets through (against a dim of 1, or leading) fails its numel count. */
    int64_t sizes[WK_MAX_DIM];
    bool negative = false;
    for (int i = n - 1; i >= 0; i--) {
        int j = i - (n - self->ndim);
        int64_t s = size.data[i];
        if (j < 0 && s == -1 && self->ndim > 0) { /* a 0-d tensor's -1 fails torch's numel count instead */
            wk__error(WK_RUNTIME_ERROR,
                      "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d", i);
            return NULL;
        }
        if (j >= 0 && s == -1) s = self->sizes[j];
        if (j >= 0 && s != self->sizes[j] && self->sizes[j] != 1)
            return wk__expand_mismatch(self, n, size.data, i), NULL;
        negative |= s < 0;
        sizes[i] = s;
    }
    if (negative) return WK_FAIL(WK_RUNTIME_ERROR, "numel: integer multiplication overflow");
    if (check_numel(n, sizes) < 0) return NULL;
    return wk__expand_to(self, n, sizes);
}

wk_tensor *wk_impl_t(wk_tensor *self) {
    if (self->ndim > 2) {
        wk__error(WK_RUNTIME_ERROR, "t() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
        return NULL;
    }
    if (self->ndim < 2) return wk__alias(self, self->ndim, self->sizes, self->strides, self->offset);
    int64_t sizes[2] = {self->sizes[1], self->sizes[0]}, strides[2] = {self->strides[1], self->strides[0]};
    return wk__alias(self, 2, sizes, strides, self->offset);
}

wk_tensor *wk_impl_contiguous(wk_tensor *self) {
    if (wk__is_contiguous(self)) return wk_retain(self);
    return wk_clone_contiguous(self);
}

wk_tensor *wk_impl_clone_contiguous(wk_tensor *self) { return wk__clone(self); }

wk_tensor *wk_impl_clone(wk_tensor *self) {
    wk_tensor *c = wk__empty_like_preserve(self, WK_DTYPE_NONE);
    if (c && wk__copy_(c, self) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

wk_tensor *wk_impl_to_dtype(wk_tensor *self, wk_dtype dtype, bool non_blocking, bool copy) {
    WK_UNUSED(non_blocking);
    if (dtype < 0 || dtype >= WK_NUM_DTYPES) return WK_FAIL(WK_TYPE_ERROR, "to(): invalid dtype");
    if (dtype == self->dtype && !copy) return wk_retain(self);
    return wk__to_copy(self, dtype); /* to(copy=True) is a ToCopyBackward0 in torch too */
}

/* Always a new tensor (in self's memory order), even when the dtype does not change. */
wk_tensor *wk_impl__to_copy(wk_tensor *self, wk_dtype dtype) {
    wk_tensor *c = wk__empty_like_here(self, dtype); /* on self's device (Note [Host reads], core/host.h) */
    if (c && wk__copy_(c, self) < 0) {
        wk_release(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------------------------------------------------------
 * permute / transpose / movedim */

wk_tensor *wk_impl_permute(wk_tensor *self, wk_intlist dims) {
    int n = self->ndim;
    if (dims.len != n) {
        wk__error(WK_RUNTIME_ERROR,
                  "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
                  "desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %lld",
                  n, (long long)dims.len);
        return NULL;
    }
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [n] the permuted geometry */
    bool seen[WK_MAX_DIM] = {false};
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (wk__wrap_dim(dims.data[i], n, &d) < 0) return NULL;
        if (seen[d]) return WK_FAIL(WK_RUNTIME_ERROR, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = self->sizes[d];
        strides[i] = self->strides[d];
    }
    return wk__alias(self, n, sizes, strides, self->offset);
}

wk_tensor *wk_impl_permute_backward(wk_tensor *grad, wk_intlist dims) {
    int64_t inv[WK_MAX_DIM]; /* [n] inverse permutation */
    int n = (int)dims.len;
    if (n != grad->ndim || n > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "permute_backward: bad dims");
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (wk__wrap_dim(dims.data[i], n, &d) < 0) return NULL;
        inv[d] = i;
    }
    return wk_permute(grad, wk_ints(inv, n));
}

wk_tensor *wk_impl_transpose(wk_tensor *self, int64_t dim0, int64_t dim1) {
    int64_t d0, d1;
    if (wk__wrap_dim(dim0, self->ndim, &d0) < 0 || wk__wrap_dim(dim1, self->ndim, &d1) < 0) return NULL;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof sizes);
    memcpy(strides, self->strides, sizeof strides);
    if (self->ndim) {
        sizes[d0] = self->sizes[d1];
        sizes[d1] = self->sizes[d0];
        strides[d0] = self->strides[d1];
        strides[d1] = self->strides[d0];
    }
    return wk__alias(self, self->ndim, sizes, strides, self->offset);
}

wk_tensor *wk_impl_swapaxes(wk_tensor *self, int64_t axis0, int64_t axis1) { return wk_transpose(self, axis0, axis1); }
wk_tensor *wk_impl_swapdims(wk_tensor *self, int64_t dim0, int64_t dim1) { return wk_transpose(self, dim0, dim1); }

wk_tensor *wk_impl_adjoint(wk_tensor *self) {
    if (self->ndim == 0) { /* torch: deprecated identity on 0-D (real dtypes) */
        wk__warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().");
        return wk_retain(self);
    }
    if (self->ndim == 1)
        return WK_FAIL(WK_RUNTIME_ERROR,
                       "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.");
    return wk_transpose(self, -2, -1);
}

static int wrap_dims_unique(wk_intlist dims, int ndim, int64_t *out, const char *what, bool *dup) {
    bool seen[WK_MAX_DIM] = {false};
    *dup = false;
    for (int64_t i = 0; i < dims.len; i++) {
        if (wk__wrap_dim(dims.data[i], ndim, &out[i]) < 0) return -1;
        if (ndim && seen[out[i]]) *dup = true;
        if (ndim) seen[out[i]] = true;
    }
    WK_UNUSED(what);
    return 0;
}

wk_tensor *wk_impl_movedim_int(wk_tensor *self, int64_t source, int64_t destination) {
    return wk_movedim(self, wk_ints(&source, 1), wk_ints(&destination, 1));
}

wk_tensor *wk_impl_movedim(wk_tensor *self, wk_intlist source, wk_intlist destination) {
    int n = self->ndim;
    if (source.len != destination.len) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, source.data, (int)source.len);
        wk_sb_ints(&b, destination.data, (int)destination.len);
        wk__error(WK_RUNTIME_ERROR,
                  "movedim: Invalid source or destination dims: source (%s dims) should contain the same number of "
                  "dims as destination (%s dims)", a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        return NULL;
    }
    if (source.len > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "movedim: too many dims");
    int64_t src[WK_MAX_DIM], dst[WK_MAX_DIM]; /* [len] wrapped dims */
    bool dup;
    if (wrap_dims_unique(source, n, src, "source", &dup) < 0) return NULL;
    bool dup2;
    if (wrap_dims_unique(destination, n, dst, "destination", &dup2) < 0) return NULL;
    if (dup || dup2) {
        wk_intlist l = dup ? source : destination;
        wk_strbuf a = {0};
        wk_sb_ints(&a, l.data, (int)l.len);
        wk__error(WK_RUNTIME_ERROR, "movedim: repeated dim in `%s` (%s)", dup ? "source" : "destination",
                  a.s ? a.s : "");
        wk_sb_free(&a);
        return NULL;
    }
    if (n == 0) return wk_permute(self, wk_ints(NULL, 0));
    int64_t order[WK_MAX_DIM];           /* [n] result dim i takes self dim order[i] */
    bool src_used[WK_MAX_DIM] = {false}, dst_used[WK_MAX_DIM] = {false};
    for (int64_t i = 0; i < source.len; i++) {
        order[dst[i]] = src[i];
        src_used[src[i]] = true;
        dst_used[dst[i]] = true;
    }
    int si = 0;
    for (int di = 0; di < n; di++) { /* the remaining dims keep their relative order */
        if (dst_used[di]) continue;
        while (src_used[si]) si++;
        order[di] = si++;
    }
    return wk_permute(self, wk_ints(order, n));
}

/* ---------------------------------------------------------------------------------------------------------------
 * unsqueeze / squeeze */

wk_tensor *wk_impl_unsqueeze(wk_tensor *self, int64_t dim) {
    int n = self->ndim;
    int64_t d;
    if (wk__wrap_dim(dim, n + 1, &d) < 0) return NULL;
    if (n + 1 > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [n+1] */
    for (int i = 0, j = 0; i <= n; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d >= n ? 1 : self->sizes[d] * self->strides[d];
        } else {
            sizes[i] = self->sizes[j];
            strides[i] = self->strides[j];
            j++;
        }
    }
    return wk__alias(self, n + 1, sizes, strides, self->offset);
}

/* A view of self without the dims in `drop` (which must all have size 1). */
static wk_tensor *squeeze_mask(wk_tensor *self, const bool *drop) {
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    int m = 0;
    for (int i = 0; i < self->ndim; i++) {
        if (drop[i]) continue;
        sizes[m] = self->sizes[i];
        strides[m] = self->strides[i];
        m++;
    }
    return wk__alias(self, m, sizes, strides, self->offset);
}

wk_tensor *wk_impl_squeeze(wk_tensor *self) {
    bool drop[WK_MAX_DIM];
    for (int i = 0; i < self->ndim; i++) drop[i] = self->sizes[i] == 1;
    return squeeze_mask(self, drop);
}

wk_tensor *wk_impl_squeeze_dim(wk_tensor *self, int64_t dim) {
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    bool drop[WK_MAX_DIM] = {false};
    if (self->ndim) drop[d] = self->sizes[d] == 1;
    return squeeze_mask(self, drop);
}

/* Wraps a dim list into a mask over ndim dims; "dim 0 appears multiple times in the list of dims". */
static int dims_to_mask(wk_intlist dims, int ndim, bool *mask) {
    for (int i = 0; i < WK_MAX_DIM; i++) mask[i] = false;
    for (int64_t i = 0; i < dims.len; i++) {
        int64_t d;
        if (wk__wrap_dim(dims.data[i], ndim, &d) < 0) return -1;
        if (mask[d]) {
            wk__error(WK_RUNTIME_ERROR, "dim %lld appears multiple times in the list of dims", (long long)d);
            return -1;
        }
        mask[d] = true;
    }
    return 0;
}

wk_tensor *wk_impl_squeeze_dims(wk_tensor *self, wk_intlist dim) {
    bool mask[WK_MAX_DIM];
    if (dims_to_mask(dim, self->ndim, mask) < 0) return NULL;
    for (int i = 0; i < self->ndim; i++) mask[i] = mask[i] && self->sizes[i] == 1;
    if (self->ndim == 0) mask[0] = false;
    return squeeze_mask(self, mask);
}

/* unsqueeze_to: the inverse of squeeze for a gradient — unsqueeze (in increasing order) at each size-1 dim of
 * `sizes` (all of them, or those in dim). Returns grad itself when nothing is unsqueezed, as torch does. */
static wk_tensor *unsqueeze_at(wk_tensor *grad, const bool *mask, wk_intlist sizes) {
    wk_tensor *r = wk_retain(grad);
    for (int64_t d = 0; d < sizes.len && r; d++) {
        if (!mask[d] || sizes.data[d] != 1) continue;
        wk_tensor *u = wk_unsqueeze(r, d);
        wk_release(r);
        r = u;
    }
    return r;
}

wk_tensor *wk_impl_unsqueeze_to(wk_tensor *grad, wk_intlist sizes) {
    bool mask[WK_MAX_DIM];
    for (int i = 0; i < WK_MAX_DIM; i++) mask[i] = true;
    return unsqueeze_at(grad, mask, sizes);
}

wk_tensor *wk_impl_unsqueeze_to_dim(wk_tensor *grad, int64_t dim, wk_intlist sizes) {
    return wk_unsqueeze_to_dims(grad, wk_ints(&dim, 1), sizes);
}

wk_tensor *wk_impl_unsqueeze_to_dims(wk_tensor *grad, wk_intlist dim, wk_intlist sizes) {
    bool mask[WK_MAX_DIM];
    if (dims_to_mask(dim, (int)sizes.len, mask) < 0) return NULL;
    if (sizes.len == 0) mask[0] = false;
    return unsqueeze_at(grad, mask, sizes);
}

/* ---------------------------------------------------------------------------------------------------------------
 * flatten / unflatten / *_as / broadcast_to / view(dtype) */

wk_tensor *wk_impl_flatten(wk_tensor *self, int64_t start_dim, int64_t end_dim) {
    int64_t s, e;
    if (wk__wrap_dim(start_dim, self->ndim, &s) < 0 || wk__wrap_dim(end_dim, self->ndim, &e) < 0) return NULL;
    if (s > e) return WK_FAIL(WK_RUNTIME_ERROR, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (self->ndim == 0) {
        int64_t one = 1;
        return wk_reshape(self, wk_ints(&one, 1));
    }
    if (s == e) return wk_retain(self); /* torch returns self itself */
    int64_t shape[WK_MAX_DIM]; /* [ndim - (e - s)] */
    int m = 0;
    for (int64_t i = 0; i < s; i++) shape[m++] = self->sizes[i];
    shape[m++] = wk__prod(self->sizes + s, (int)(e - s + 1));
    for (int64_t i = e + 1; i < self->ndim; i++) shape[m++] = self->sizes[i];
    return wk_reshape(self, wk_ints(shape, m));
}

wk_tensor *wk_impl_unflatten(wk_tensor *self, int64_t dim, wk_intlist sizes) {
    int n = self->ndim;
    int64_t d;
    if (wk__wrap_dim(dim, n, &d) < 0) return NULL; /* a 0-d tensor: as one dim, [-1, 0] */
    if (n == 0) /* then torch's size check finds no dim 0 */
        return WK_FAIL(WK_RUNTIME_ERROR, "unflatten got an unexpected error:\nDimension specified as 0 but tensor has "
                                         "no dimensions");
    if (sizes.len == 0) return WK_FAIL(WK_RUNTIME_ERROR, "unflatten: sizes must be non-empty");
    if (n - 1 + sizes.len > WK_MAX_DIM)
        return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t inferred[WK_MAX_DIM]; /* [sizes.len] sizes with the -1 resolved */
    if (infer_size(sizes, self->sizes[d], inferred) < 0) {
        const char *msg = wk_error_message();
        if (!strstr(msg, "is invalid for input of size")) {
            wk_strbuf b = {0};
            wk_sb_printf(&b, "unflatten got an unexpected error:\n%s", msg);
            wk__error(WK_RUNTIME_ERROR, "%s", b.s ? b.s : "");
            wk_sb_free(&b);
            return NULL;
        }
        wk_strbuf b = {0};
        wk_sb_ints(&b, sizes.data, (int)sizes.len);
        wk__error(WK_RUNTIME_ERROR,
                  "unflatten: Provided sizes %s don't multiply up to the size of dim %lld (%lld) in the input tensor",
                  b.s ? b.s : "", (long long)d, (long long)self->sizes[d]);
        wk_sb_free(&b);
        return NULL;
    }
    int64_t shape[WK_MAX_DIM];
    int m = 0;
    for (int64_t i = 0; i < d; i++) shape[m++] = self->sizes[i];
    for (int64_t i = 0; i < sizes.len; i++) shape[m++] = inferred[i];
    for (int64_t i = d + 1; i < n; i++) shape[m++] = self->sizes[i];
    return wk_view(self, wk_ints(shape, m));
}

wk_tensor *wk_impl_view_as(wk_tensor *self, wk_tensor *other) {
    return wk_view(self, wk_ints(other->sizes, other->ndim));
}
wk_tensor *wk_impl_reshape_as(wk_tensor *self, wk_tensor *other) {
    return wk_reshape(self, wk_ints(other->sizes, other->ndim));
}
wk_tensor *wk_impl_expand_as(wk_tensor *self, wk_tensor *other) {
    return wk_expand(self, wk_ints(other->sizes, other->ndim), false);
}
wk_tensor *wk_impl_broadcast_to(wk_tensor *self, wk_intlist size) { return wk_expand(self, size, false); }

wk_tensor *wk_impl_view_dtype(wk_tensor *self, wk_dtype dtype) {
    if (dtype < 0 || dtype >= WK_NUM_DTYPES) return WK_FAIL(WK_TYPE_ERROR, "view(): invalid dtype");
    size_t from = wk_dtype_size(self->dtype), to = wk_dtype_size(dtype);
    int n = self->ndim;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof sizes);
    memcpy(strides, self->strides, sizeof strides);
    int64_t offset = self->offset;
    const char *a = wk_dtype_scalar_name(self->dtype), *b = wk_dtype_scalar_name(dtype);
    if (from != to) {
        if (n == 0)
            return WK_FAIL(WK_RUNTIME_ERROR, "self.dim() cannot be 0 to view %s as %s (different element sizes)", a, b);
        if (strides[n - 1] != 1)
            return WK_FAIL(WK_RUNTIME_ERROR, "self.stride(-1) must be 1 to view %s as %s (different element sizes), "
                                             "but got %lld", a, b, (long long)strides[n - 1]);
        if (to > from) {
            int64_t r = (int64_t)(to / from);
            if (sizes[n - 1] % r)
                return WK_FAIL(WK_RUNTIME_ERROR, "self.size(-1) must be divisible by %lld to view %s as %s (different "
                                                 "element sizes), but got %lld", (long long)r, a, b, (long long)sizes[n - 1]);
            if (offset % r)
                return WK_FAIL(WK_RUNTIME_ERROR, "self.storage_offset() must be divisible by %lld to view %s as %s "
                                                 "(different element sizes), but got %lld", (long long)r, a, b, (long long)offset);
            for (int i = 0; i < n - 1; i++) {
                if (strides[i] % r)
                    return WK_FAIL(WK_RUNTIME_ERROR, "self.stride(%d) must be divisible by %lld to view %s as %s "
                                                     "(different element sizes), but got %lld", i, (long long)r, a, b,
                                   (long long)strides[i]);
                strides[i] /= r;
            }
            sizes[n - 1] /= r;
            offset /= r;
        } else {
            int64_t r = (int64_t)(from / to);
            for (int i = 0; i < n - 1; i++) strides[i] *= r;
            sizes[n - 1] *= r;
            offset *= r;
        }
    }
    wk_tensor *v = wk__alias(self, n, sizes, strides, offset);
    if (v) v->dtype = dtype;
    return v;
}

/* ---------------------------------------------------------------------------------------------------------------
 * In-place metadata ops (Note [In-place metadata ops]): torch changes self's geometry, bumps its version and gives it
 * the grad_fn of the corresponding view (named ...Backward1 and so on). The twin op (_t_meta, ...) computes the view
 * out of place and records that node with self's current history as its input; its geometry and grad_fn then move
 * into self. */
static wk_tensor *take_geometry(wk_tensor *self, wk_tensor *r) {
    if (!r) return NULL;
    self->ndim = r->ndim;
    memcpy(self->sizes, r->sizes, sizeof self->sizes);
    memcpy(self->strides, r->strides, sizeof self->strides);
    self->offset = r->offset;
    wk__bump_version(self);
    if (r->grad_fn) wk__set_history(self, r->grad_fn, r->output_nr); /* after the bump: a view stays fresh */
    wk_release(r);
    return wk_retain(self);
}

wk_tensor *wk_impl_t_(wk_tensor *self) {
    if (self->ndim > 2)
        return WK_FAIL(WK_RUNTIME_ERROR, "t_() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__t_meta(self));
}
wk_tensor *wk_impl_transpose_(wk_tensor *self, int64_t dim0, int64_t dim1) {
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__transpose_meta(self, dim0, dim1));
}
wk_tensor *wk_impl_swapaxes_(wk_tensor *self, int64_t axis0, int64_t axis1) { return wk_transpose_(self, axis0, axis1); }
wk_tensor *wk_impl_swapdims_(wk_tensor *self, int64_t dim0, int64_t dim1) { return wk_transpose_(self, dim0, dim1); }
wk_tensor *wk_impl_unsqueeze_(wk_tensor *self, int64_t dim) {
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__unsqueeze_meta(self, dim));
}
wk_tensor *wk_impl_squeeze_(wk_tensor *self) {
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__squeeze_meta(self));
}
wk_tensor *wk_impl_squeeze__dim(wk_tensor *self, int64_t dim) {
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__squeeze_meta_dim(self, dim));
}
wk_tensor *wk_impl_squeeze__dims(wk_tensor *self, wk_intlist dim) {
    if (wk__check_inplace(self) < 0) return NULL;
    return take_geometry(self, wk__squeeze_meta_dims(self, dim));
}

/* ---------------------------------------------------------------------------------------------------------------
 * select / slice / narrow / diagonal / as_strided, and their backward helpers (scatter grad into zeros) */

wk_tensor *wk_impl_select(wk_tensor *self, int64_t dim, int64_t index) {
    if (self->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "select() cannot be applied to a 0-dim tensor.");
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    int64_t size = self->sizes[d];
    if (index < -size || index >= size) {
        wk_strbuf b = {0};
        wk_sb_ints(&b, self->sizes, self->ndim);
        wk__error(WK_INDEX_ERROR, "select(): index %lld out of range for tensor of size %s at dimension %lld",
                  (long long)index, b.s ? b.s : "", (long long)d);
        wk_sb_free(&b);
        return NULL;
    }
    if (index < 0) index += size;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    for (int i = 0, j = 0; i < self->ndim; i++) {
        if (i == d) continue;
        sizes[j] = self->sizes[i];
        strides[j] = self->strides[i];
        j++;
    }
    return wk__alias(self, self->ndim - 1, sizes, strides, self->offset + index * self->strides[d]);
}

/* torch's slice geometry: clamps start/end into [0, size], end >= start; size = ceil((end - start) / step). */
static wk_tensor *slice_view(const wk_tensor *self, int64_t d, int64_t start, int64_t end, int64_t step) {
    int64_t size = self->sizes[d];
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0) start = 0;
    else if (start >= size) start = size;
    if (end < start) end = start;
    else if (end >= size) end = size;
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM];
    memcpy(sizes, self->sizes, sizeof sizes);
    memcpy(strides, self->strides, sizeof strides);
    sizes[d] = end == start ? 0 : (end - start - 1) / step + 1; /* ceil, without overflow for a huge step */
    strides[d] = self->strides[d] * step;
    return wk__alias(self, self->ndim, sizes, strides, self->offset + start * self->strides[d]);
}

wk_tensor *wk_impl_slice(wk_tensor *self, int64_t dim, wk_optint start, wk_optint end, int64_t step) {
    if (self->ndim == 0) return WK_FAIL(WK_INDEX_ERROR, "slice() cannot be applied to a 0-dim tensor.");
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    if (step <= 0) return WK_FAIL(WK_RUNTIME_ERROR, "slice step must be positive");
    return slice_view(self, d, start.has ? start.v : 0, end.has ? end.v : INT64_MAX, step);
}

/* zeros of input_sizes (grad's dtype) with `grad` copied into the part that `part` (a view maker) selects */
static wk_tensor *zeros_for(const wk_tensor *grad, wk_intlist input_sizes) {
    if (input_sizes.len > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "too many dimensions");
    return wk__zeros((int)input_sizes.len, input_sizes.data, grad->dtype);
}
static wk_tensor *fill_part(wk_tensor *z, wk_tensor *part, const wk_tensor *grad) {
    if (!z || !part || wk__copy_(part, grad) < 0) {
        wk_release(part);
        wk_release(z);
        return NULL;
    }
    wk_release(part);
    return z;
}

wk_tensor *wk_impl_select_backward(wk_tensor *grad_output, wk_intlist input_sizes, int64_t dim, int64_t index) {
    wk_tensor *z = zeros_for(grad_output, input_sizes);
    return z ? fill_part(z, wk_impl_select(z, dim, index), grad_output) : NULL;
}

wk_tensor *wk_impl_slice_backward(wk_tensor *grad_output, wk_intlist input_sizes, int64_t dim, int64_t start,
                                  int64_t end, int64_t step) {
    wk_tensor *z = zeros_for(grad_output, input_sizes);
    return z ? fill_part(z, wk_impl_slice(z, dim, wk_some(start), wk_some(end), step), grad_output) : NULL;
}

wk_tensor *wk_impl_narrow(wk_tensor *self, int64_t dim, int64_t start, int64_t length) {
    if (self->ndim == 0) return WK_FAIL(WK_RUNTIME_ERROR, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0) return WK_FAIL(WK_RUNTIME_ERROR, "narrow(): length must be non-negative.");
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return NULL;
    int64_t cur = self->sizes[d];
    if (start < -cur || start > cur)
        return WK_FAIL(WK_INDEX_ERROR, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                       (long long)-cur, (long long)cur, (long long)start);
    if (start < 0) start += cur;
    if (start > cur - length)
        return WK_FAIL(WK_RUNTIME_ERROR, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start,
                       (long long)length, (long long)cur);
    return wk_slice(self, d, wk_some(start), wk_some(start + length), 1);
}

/* narrow_copy: narrow's checks, then a fresh contiguous copy (not a view) */
wk_tensor *wk_impl_narrow_copy(wk_tensor *self, int64_t dim, int64_t start, int64_t length) {
    int64_t d;
    if (length < 0 && self->ndim > 0 && wk__wrap_dim(dim, self->ndim, &d) == 0) /* torch's own check, not narrow's */
        return WK_FAIL(WK_RUNTIME_ERROR, "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                       (long long)(start < 0 ? start + self->sizes[d] : start), (long long)length, (long long)self->sizes[d]);
    wk_tensor *v = wk_impl_narrow(self, dim, start, length);
    wk_tensor *c = v ? wk__clone(v) : NULL;
    wk_release(v);
    return c;
}

wk_tensor *wk_impl_diagonal(wk_tensor *self, int64_t offset, int64_t dim1, int64_t dim2) {
    int n = self->ndim;
    int64_t d1, d2;
    if (wk__wrap_dim(dim1, n, &d1) < 0 || wk__wrap_dim(dim2, n, &d2) < 0) return NULL;
    if (d1 == d2)
        return WK_FAIL(WK_RUNTIME_ERROR, "diagonal dimensions cannot be identical %lld, %lld", (long long)dim1,
                       (long long)dim2);
    int64_t diag, off = self->offset;
    if (offset >= 0) {
        diag = self->sizes[d1] < self->sizes[d2] - offset ? self->sizes[d1] : self->sizes[d2] - offset;
    } else {
        diag = self->sizes[d1] + offset < self->sizes[d2] ? self->sizes[d1] + offset : self->sizes[d2];
    }
    if (diag < 0) diag = 0;
    if (diag > 0) off += offset >= 0 ? offset * self->strides[d2] : -offset * self->strides[d1];
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [n - 1]: the other dims, then the diagonal */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (i == d1 || i == d2) continue;
        sizes[m] = self->sizes[i];
        strides[m] = self->strides[i];
        m++;
    }
    sizes[m] = diag;
    strides[m] = self->strides[d1] + self->strides[d2];
    return wk__alias(self, m + 1, sizes, strides, off);
}

wk_tensor *wk_impl_diagonal_backward(wk_tensor *grad_output, wk_intlist input_sizes, int64_t offset, int64_t dim1,
                                     int64_t dim2) {
    wk_tensor *z = zeros_for(grad_output, input_sizes);
    return z ? fill_part(z, wk_impl_diagonal(z, offset, dim1, dim2), grad_output) : NULL;
}

static void sb_ints_list(wk_strbuf *b, wk_intlist l) { wk_sb_ints(b, l.data, (int)l.len); }

wk_tensor *wk_impl_as_strided(wk_tensor *self, wk_intlist size, wk_intlist stride, wk_optint storage_offset) {
    if (size.len != stride.len) return WK_FAIL(WK_RUNTIME_ERROR, "mismatch in length of strides and shape");
    if (size.len > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    for (int64_t i = 0; i < stride.len; i++) {
        if (stride.data[i] < 0) {
            wk_strbuf b = {0};
            sb_ints_list(&b, stride);
            wk__error(WK_RUNTIME_ERROR, "as_strided: Negative strides are not supported at the moment, got strides: %s",
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return NULL;
        }
    }
    int64_t off = storage_offset.has ? storage_offset.v : self->offset;
    if (wk__check_in_storage((int)size.len, size.data, stride.data, off, wk_dtype_size(self->dtype),
                             self->storage->nbytes) < 0)
        return NULL;
    return wk__alias(self, (int)size.len, size.data, stride.data, off);
}

/* Storage positions (element offsets) of every element of a geometry, in row-major order: pos[numel]. */
static int64_t *geometry_positions(int n, const int64_t *sizes, const int64_t *strides, int64_t offset, int64_t *numel) {
    int64_t total = wk__prod(sizes, n);
    *numel = total;
    int64_t *pos = wk__calloc((size_t)(total ? total : 1), sizeof(int64_t)); /* [total]; calloc checks n * 8 */
    if (!pos) return NULL;
    int64_t idx[WK_MAX_DIM] = {0};
    int64_t p = offset;
    for (int64_t k = 0; k < total; k++) {
        pos[k] = p;
        for (int d = n - 1; d >= 0; d--) { /* odometer; p stays within offset + sum((size - 1) * stride) */
            if (idx[d] + 1 < sizes[d]) {
                idx[d]++;
                p += strides[d];
                break;
            }
            p -= strides[d] * (sizes[d] - 1);
            idx[d] = 0;
        }
    }
    return pos;
}

/* The gradient of as_strided: scatter-add grad over the storage positions of the output geometry, then gather it
 * back at the input geometry's positions (divided by how often the input itself visits a position). */
/* A geometry as_strided_backward may walk (issue 25: it is exported, so its lists come from any caller): lengths
 * agree, at most WK_MAX_DIM dims, sizes/strides/offset >= 0, and every storage position it visits, offset +
 * sum((size - 1) * stride), fits in int64 (the overflow-checked arithmetic of src/core/sizes.c). */
static int strided_geometry_ok(wk_intlist sizes, wk_intlist strides, int64_t offset) {
    if (sizes.len != strides.len) {
        wk__error(WK_RUNTIME_ERROR, "mismatch in length of strides and shape");
        return -1;
    }
    if (sizes.len > WK_MAX_DIM) {
        wk__error(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
        return -1;
    }
    for (int64_t i = 0; i < sizes.len; i++)
        if (sizes.data[i] < 0) {
            wk__error(WK_RUNTIME_ERROR, "as_strided_backward: negative size %lld in dimension %lld",
                      (long long)sizes.data[i], (long long)i);
            return -1;
        }
    int64_t reach;
    if (wk__storage_nbytes((int)sizes.len, sizes.data, strides.data, offset, 1, &reach) < 0) return -1;
    return wk__numel_checked((int)sizes.len, sizes.data, NULL);
}

wk_tensor *wk_impl_as_strided_backward(wk_tensor *grad, wk_intlist input_sizes, wk_intlist input_strides,
                                       int64_t input_storage_offset, wk_intlist size, wk_intlist stride,
                                       wk_optint storage_offset) {
    int64_t out_off = storage_offset.has ? storage_offset.v : input_storage_offset;
    if (strided_geometry_ok(size, stride, out_off) < 0 ||
        strided_geometry_ok(input_sizes, input_strides, input_storage_offset) < 0)
        return NULL;
    int64_t n_out;
    wk__numel_checked((int)size.len, size.data, &n_out);
    if (wk_numel(grad) != n_out)
        return WK_FAIL(WK_RUNTIME_ERROR, "as_strided_backward: grad has %lld elements, the geometry (size, stride) has "
                       "%lld", (long long)wk_numel(grad), (long long)n_out);
    int64_t n_in;
    int64_t *pout = geometry_positions((int)size.len, size.data, stride.data, out_off, &n_out);
    int64_t *pin = pout ? geometry_positions((int)input_sizes.len, input_sizes.data, input_strides.data,
                                             input_storage_offset, &n_in) : NULL;
    wk_tensor *g64 = NULL, *res = NULL, *r64 = NULL;
    double *buf = NULL, *cnt = NULL;
    if (!pin) goto done;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t k = 0; k < n_out; k++) { lo = pout[k] < lo ? pout[k] : lo; hi = pout[k] > hi ? pout[k] : hi; }
    for (int64_t k = 0; k < n_in; k++) { lo = pin[k] < lo ? pin[k] : lo; hi = pin[k] > hi ? pin[k] : hi; }
    int64_t span = hi >= lo ? hi - lo + 1 : 1;
    buf = wk__calloc((size_t)span, sizeof(double));   /* [span] gradient per storage position */
    cnt = wk__calloc((size_t)span, sizeof(double));   /* [span] input elements per storage position */
    g64 = wk__to_dtype(grad, WK_FLOAT64);
    wk_tensor *gc = g64 ? wk__contiguous(g64) : NULL;
    wk_release(g64);
    g64 = gc;
    r64 = wk__empty((int)input_sizes.len, input_sizes.data, WK_FLOAT64);
    if (!buf || !cnt || !g64 || !r64) goto done;
    const double *g = (const double *)wk__data(g64);
    double *r = (double *)wk__data(r64);
    for (int64_t k = 0; k < n_out; k++) buf[pout[k] - lo] += g[k];
    for (int64_t k = 0; k < n_in; k++) cnt[pin[k] - lo] += 1;
    for (int64_t k = 0; k < n_in; k++) r[k] = buf[pin[k] - lo] / cnt[pin[k] - lo];
    res = wk__to_dtype(r64, grad->dtype);
done:
    free(pout);
    free(pin);
    free(buf);
    free(cnt);
    wk_release(g64);
    wk_release(r64);
    return res;
}

/* ---------------------------------------------------------------------------------------------------------------
 * unbind / split / split_with_sizes / chunk / tensor_split (multi-output views) */

static wk_tensorvec vec_new(int64_t n) {
    wk_tensorvec v = {wk__calloc((size_t)(n ? n : 1), sizeof(wk_tensor *)), n};
    if (!v.data) v.len = 0;
    return v;
}
static wk_tensorvec vec_fail(wk_tensorvec v) {
    wk_tensorvec_free(v);
    return (wk_tensorvec){NULL, 0};
}
#define VEC_FAIL ((wk_tensorvec){NULL, 0})

wk_tensorvec wk_impl_unbind(wk_tensor *self, int64_t dim) {
    int64_t d;
    if (self->ndim == 0) { /* torch wraps as for one dim ([-1, 0]), then select finds none */
        if (wk__wrap_dim(dim, 1, &d) < 0) return VEC_FAIL;
        wk__error(WK_INDEX_ERROR, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
        return VEC_FAIL;
    }
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return VEC_FAIL;
    wk_tensorvec v = vec_new(self->sizes[d]);
    if (!v.data) return VEC_FAIL;
    for (int64_t i = 0; i < v.len; i++)
        if (!(v.data[i] = wk_impl_select(self, d, i))) return vec_fail(v);
    return v;
}

wk_tensorvec wk_impl_split(wk_tensor *self, int64_t split_size, int64_t dim) {
    if (self->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR, "split expects at least a 1-dimensional tensor");
        return VEC_FAIL;
    }
    if (split_size < 0) {
        wk__error(WK_RUNTIME_ERROR, "split expects split_size be non-negative, but got split_size=%lld",
                  (long long)split_size);
        return VEC_FAIL;
    }
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return VEC_FAIL;
    int64_t dim_size = self->sizes[d];
    if (split_size == 0 && dim_size != 0) {
        wk__error(WK_RUNTIME_ERROR, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                  (long long)dim_size);
        return VEC_FAIL;
    }
    int64_t num = 1;
    if (split_size && dim_size) num = (dim_size - 1) / split_size + 1; /* ceil, no overflow */
    int64_t last = split_size - (split_size * num - dim_size);
    wk_tensorvec v = vec_new(num);
    if (!v.data) return VEC_FAIL;
    for (int64_t i = 0; i < num; i++) {
        int64_t len = i < num - 1 ? split_size : last;
        if (!(v.data[i] = slice_view(self, d, i * split_size, i * split_size + len, 1))) return vec_fail(v);
    }
    return v;
}

wk_tensorvec wk_impl_split_with_sizes(wk_tensor *self, wk_intlist split_sizes, int64_t dim) {
    if (self->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR, "split expects at least a 1-dimensional tensor");
        return VEC_FAIL;
    }
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return VEC_FAIL;
    int64_t dim_size = self->sizes[d], start = 0;
    wk_tensorvec v = vec_new(split_sizes.len);
    if (!v.data) return VEC_FAIL;
    for (int64_t i = 0; i < split_sizes.len; i++) {
        int64_t len = split_sizes.data[i];
        if (len < 0) {
            wk_strbuf b = {0};
            sb_ints_list(&b, split_sizes);
            wk__error(WK_RUNTIME_ERROR,
                      "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s",
                      b.s ? b.s : "");
            wk_sb_free(&b);
            return vec_fail(v);
        }
        if (!(v.data[i] = slice_view(self, d, start, start + len, 1))) return vec_fail(v);
        start += len;
    }
    if (start != dim_size) {
        wk_strbuf b = {0};
        sb_ints_list(&b, split_sizes);
        wk__error(WK_RUNTIME_ERROR,
                  "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %lld), "
                  "but got split_sizes=%s", (long long)dim_size, (long long)dim, b.s ? b.s : "");
        wk_sb_free(&b);
        return vec_fail(v);
    }
    return v;
}

wk_tensorvec wk_impl_split_sizes(wk_tensor *self, wk_intlist split_size, int64_t dim) {
    return wk_split_with_sizes(self, split_size, dim);
}

wk_tensorvec wk_impl_chunk(wk_tensor *self, int64_t chunks, int64_t dim) {
    if (self->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR, "chunk expects at least a 1-dimensional tensor");
        return VEC_FAIL;
    }
    if (chunks <= 0) {
        wk__error(WK_RUNTIME_ERROR, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
        return VEC_FAIL;
    }
    int64_t d;
    if (wk__wrap_dim(dim, self->ndim, &d) < 0) return VEC_FAIL;
    int64_t dim_size = self->sizes[d];
    /* torch's (dim_size + chunks - 1) / chunks in int64: it wraps for chunks near 2**63, and split then refuses the
     * negative size with torch's message */
    int64_t split_size = (int64_t)((uint64_t)dim_size + (uint64_t)chunks - 1) / chunks;
    if (split_size == 0 && dim_size == 0) {
        if (chunks > 1 << 20) {
            wk__error(WK_RUNTIME_ERROR, "chunk: too many chunks");
            return VEC_FAIL;
        }
        int64_t *sizes = wk__calloc((size_t)chunks, sizeof(int64_t)); /* [chunks] all zero */
        if (!sizes) return VEC_FAIL;
        wk_tensorvec v = wk_split_with_sizes(self, wk_ints(sizes, chunks), dim);
        free(sizes);
        return v;
    }
    return wk_split(self, split_size, dim);
}

static int tensor_split_check(const wk_tensor *self, int64_t dim, int64_t *d) {
    if (self->ndim == 0) {
        wk__error(WK_RUNTIME_ERROR,
                  "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        return -1;
    }
    return wk__wrap_dim(dim, self->ndim, d);
}

wk_tensorvec wk_impl_tensor_split_sections(wk_tensor *self, int64_t sections, int64_t dim) {
    int64_t d;
    if (tensor_split_check(self, dim, &d) < 0) return VEC_FAIL;
    if (sections <= 0) {
        wk__error(WK_RUNTIME_ERROR, "number of sections must be larger than 0, got %lld", (long long)sections);
        return VEC_FAIL;
    }
    if (sections > (1 << 24)) {
        wk__error(WK_RUNTIME_ERROR, "tensor_split: too many sections");
        return VEC_FAIL;
    }
    int64_t size = self->sizes[d], base = size / sections, extra = size % sections, start = 0;
    wk_tensorvec v = vec_new(sections);
    if (!v.data) return VEC_FAIL;
    for (int64_t i = 0; i < sections; i++) {
        int64_t len = i < extra ? base + 1 : base;
        if (!(v.data[i] = wk_slice(self, d, wk_some(start), wk_some(start + len), 1))) return vec_fail(v);
        start += len;
    }
    return v;
}

wk_tensorvec wk_impl_tensor_split_indices(wk_tensor *self, wk_intlist indices, int64_t dim) {
    int64_t d;
    if (tensor_split_check(self, dim, &d) < 0) return VEC_FAIL;
    wk_tensorvec v = vec_new(indices.len + 1);
    if (!v.data) return VEC_FAIL;
    int64_t start = 0;
    for (int64_t i = 0; i < indices.len; i++) {
        if (!(v.data[i] = wk_slice(self, d, wk_some(start), wk_some(indices.data[i]), 1))) return vec_fail(v);
        start = indices.data[i];
    }
    if (!(v.data[indices.len] = wk_slice(self, d, wk_some(start), wk_some(self->sizes[d]), 1))) return vec_fail(v);
    return v;
}

wk_tensorvec wk_impl_tensor_split_tensor(wk_tensor *self, wk_tensor *tensor_indices_or_sections, int64_t dim) {
    const wk_tensor *t = tensor_indices_or_sections;
    if (t->dtype != WK_INT64) {
        wk__error(WK_RUNTIME_ERROR, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s",
                  wk_dtype_scalar_name(t->dtype));
        return VEC_FAIL;
    }
    if (t->ndim > 1) {
        wk__error(WK_RUNTIME_ERROR, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                    "one-dimensional tensor, but got a tensor with %d dims", t->ndim);
        return VEC_FAIL;
    }
    if (t->ndim == 0) return wk_tensor_split_sections(self, *(const int64_t *)wk__data(t), dim);
    int64_t n = t->sizes[0];
    int64_t *idx = wk__malloc(sizeof(int64_t) * (size_t)(n ? n : 1)); /* [n] the split indices */
    if (!idx) return VEC_FAIL;
    for (int64_t i = 0; i < n; i++) idx[i] = *(const int64_t *)(wk__data(t) + i * t->strides[0] * 8);
    wk_tensorvec v = wk_tensor_split_indices(self, wk_ints(idx, n), dim);
    free(idx);
    return v;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Tensor.T / .H / .mT / .mH (properties in Python, checks here) */

wk_tensor *wk_impl_numpy_T(wk_tensor *self) {
    if (self->ndim != 2 && self->ndim != 0)
        wk__warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                 "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                 "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.");
    if (self->ndim == 0) wk__warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.");
    int64_t dims[WK_MAX_DIM]; /* [ndim] reversed dims */
    for (int i = 0; i < self->ndim; i++) dims[i] = self->ndim - 1 - i;
    return wk_permute(self, wk_ints(dims, self->ndim));
}

wk_tensor *wk_impl_matrix_H(wk_tensor *self) {
    if (self->ndim == 0) {
        wk__warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().");
        return wk_retain(self);
    }
    if (self->ndim != 2) {
        wk__error(WK_RUNTIME_ERROR, "tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor.%s",
                  self->ndim, self->ndim > 2 ? " For batches of matrices, consider using tensor.mH" : "");
        return NULL;
    }
    return wk_transpose(self, 0, 1);
}

static wk_tensor *batch_transpose(wk_tensor *self, const char *name) {
    if (self->ndim == 0) {
        if (!strcmp(name, "mT")) wk__warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.");
        else wk__warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().");
        return wk_retain(self);
    }
    if (self->ndim == 1)
        return WK_FAIL(WK_RUNTIME_ERROR, "tensor.%s is only supported on matrices or batches of matrices. Got 1-D tensor.",
                       name);
    return wk_transpose(self, -2, -1);
}
wk_tensor *wk_impl_mT(wk_tensor *self) { return batch_transpose(self, "mT"); }
wk_tensor *wk_impl_mH(wk_tensor *self) { return batch_transpose(self, "mH"); }

/* ---------------------------------------------------------------------------------------------------------------
 * select_scatter / slice_scatter / diagonal_scatter: a copy of self (in self's layout) with src written into a view */

static wk_tensor *scatter_into(wk_tensor *self, const wk_tensor *src, wk_tensor *(*part)(wk_tensor *out, void *ctx),
                               void *ctx) {
    wk_tensor *ins[1] = {self};
    wk_tensor *out = wk_iter_alloc_output(1, ins, self->ndim, self->sizes, self->dtype);
    if (!out || wk__copy_(out, self) < 0) goto fail;
    wk_tensor *p = part(out, ctx);
    if (!p) goto fail;
    if (p->ndim != src->ndim || memcmp(p->sizes, src->sizes, sizeof(int64_t) * (size_t)p->ndim)) {
        wk_strbuf a = {0}, b = {0};
        wk_sb_ints(&a, src->sizes, src->ndim);
        wk_sb_ints(&b, p->sizes, p->ndim);
        wk__error(WK_RUNTIME_ERROR, "expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                  a.s ? a.s : "", b.s ? b.s : "");
        wk_sb_free(&a);
        wk_sb_free(&b);
        wk_release(p);
        goto fail;
    }
    int rc = wk__copy_(p, src);
    wk_release(p);
    if (rc < 0) goto fail;
    return out;
fail:
    wk_release(out);
    return NULL;
}

typedef struct {
    int64_t a, b, c, step;
    wk_optint start, end;
} scatter_args;

static wk_tensor *select_part(wk_tensor *out, void *ctx) {
    scatter_args *s = ctx;
    return wk_impl_select(out, s->a, s->b);
}
static wk_tensor *slice_part(wk_tensor *out, void *ctx) {
    scatter_args *s = ctx;
    return wk_impl_slice(out, s->a, s->start, s->end, s->step);
}
static wk_tensor *diagonal_part(wk_tensor *out, void *ctx) {
    scatter_args *s = ctx;
    return wk_impl_diagonal(out, s->a, s->b, s->c);
}

wk_tensor *wk_impl_select_scatter(wk_tensor *self, wk_tensor *src, int64_t dim, int64_t index) {
    scatter_args s = {.a = dim, .b = index};
    return scatter_into(self, src, select_part, &s);
}
wk_tensor *wk_impl_slice_scatter(wk_tensor *self, wk_tensor *src, int64_t dim, wk_optint start, wk_optint end,
                                 int64_t step) {
    scatter_args s = {.a = dim, .start = start, .end = end, .step = step};
    return scatter_into(self, src, slice_part, &s);
}
wk_tensor *wk_impl_diagonal_scatter(wk_tensor *self, wk_tensor *src, int64_t offset, int64_t dim1, int64_t dim2) {
    scatter_args s = {.a = offset, .b = dim1, .c = dim2};
    return scatter_into(self, src, diagonal_part, &s);
}

typedef struct {
    wk_intlist size, stride;
    wk_optint storage_offset;
} strided_args;
static wk_tensor *strided_part(wk_tensor *out, void *ctx) {
    strided_args *s = ctx;
    return wk_impl_as_strided(out, s->size, s->stride, s->storage_offset);
}

/* torch (TensorShape.cpp) asserts a contiguous self when it requires grad: its backward reads grad contiguously */
wk_tensor *wk_impl_as_strided_scatter(wk_tensor *self, wk_tensor *src, wk_intlist size, wk_intlist stride,
                                      wk_optint storage_offset) {
    if (wk__tensor_requires_grad(self) && !wk__is_contiguous(self))
        return WK_FAIL(WK_RUNTIME_ERROR,
                       "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
                       "\"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp\":4754, please report a bug to "
                       "PyTorch. as_strided_scatter is currently only supported for contiguous inputs");
    strided_args s = {.size = size, .stride = stride, .storage_offset = storage_offset};
    return scatter_into(self, src, strided_part, &s);
}

/* ---------------------------------------------------------------------------------------------------------------
 * unfold: windows of `size` every `step` along a dim, as a new last dim (a view) */

wk_tensor *wk_impl_unfold(wk_tensor *self, int64_t dimension, int64_t size, int64_t step) {
    int n = self->ndim;
    int64_t d;
    if (wk__wrap_dim(dimension, n, &d) < 0) return NULL;
    if (n + 1 > WK_MAX_DIM) return WK_FAIL(WK_RUNTIME_ERROR, "wick supports tensors of at most %d dimensions", WK_MAX_DIM);
    int64_t max_size = n == 0 ? 1 : self->sizes[d];
    if (size > max_size)
        return WK_FAIL(WK_RUNTIME_ERROR, "maximum size for tensor at dimension %lld is %lld but size is %lld",
                       (long long)d, (long long)max_size, (long long)size);
    if (size < 0) return WK_FAIL(WK_RUNTIME_ERROR, "size is %lld but must be >= 0", (long long)size);
    if (step <= 0) return WK_FAIL(WK_RUNTIME_ERROR, "step is %lld but must be > 0", (long long)step);
    int64_t sizes[WK_MAX_DIM], strides[WK_MAX_DIM]; /* [n + 1]: windows along d, then the window */
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)n);
    memcpy(strides, self->strides, sizeof(int64_t) * (size_t)n);
    sizes[n] = size;
    strides[n] = n == 0 ? 1 : self->strides[d];
    if (d < n) {
        sizes[d] = (sizes[d] - size) / step + 1;
        strides[d] *= step;
    }
    return wk__alias(self, n + 1, sizes, strides, self->offset);
}

/* The gradient of unfold: zeros of the input's shape, every window's gradient added back where it came from. */
wk_tensor *wk_impl_unfold_backward(wk_tensor *grad_in, wk_intlist input_sizes, int64_t dim, int64_t size, int64_t step) {
    wk_tensor *out = zeros_for(grad_in, input_sizes);
    if (!out) return NULL;
    int n = out->ndim;
    int64_t d;
    if (wk__wrap_dim(dim, n, &d) < 0 || grad_in->ndim != n + 1) {
        if (!wk__error_set()) wk__error(WK_RUNTIME_ERROR, "unfold_backward: bad gradient shape");
        wk_release(out);
        return NULL;
    }
    int64_t nwin = n == 0 ? 1 : grad_in->sizes[d];
    bool prev = wk_set_grad_enabled(false);
    int rc = 0;
    for (int64_t w = 0; w < nwin && rc == 0; w++) {
        /* window w of grad_in (its dims with d's slot taken by the window dim) and the part of out it came from */
        wk_tensor *g = wk_impl_select(grad_in, n == 0 ? 0 : d, w); /* 0-d input: the one-element window */
        wk_tensor *gm = g && n ? wk_movedim(g, wk_ints((int64_t[]){-1}, 1), wk_ints(&d, 1)) : wk_retain(g);
        wk_tensor *o = n == 0 ? wk_retain(out) : slice_view(out, d, w * step, w * step + size, 1);
        wk_tensor *r = gm && o ? wk_add_(o, gm, wk_int(1)) : NULL;
        if (!r) rc = -1;
        wk_release(r);
        wk_release(o);
        wk_release(gm);
        wk_release(g);
    }
    wk_set_grad_enabled(prev);
    if (rc < 0) {
        wk_release(out);
        return NULL;
    }
    return out;
}
